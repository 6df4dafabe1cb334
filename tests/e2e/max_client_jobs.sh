#!/bin/bash
# One client key cannot fill a shared coordinator (issue 18: 2,000 submits
# from one key were all journaled). A key has at most --max-client-jobs
# jobs queued or running (default 32); a submit beyond that is refused with
# one line, is not journaled, and its client exits 4 (README: infrastructure
# trouble, submit it again later). No node joins, so every accepted job
# stays queued.
#  - alice's 32 jobs are accepted and journaled; her 33rd is refused (exit
#    4, the line), the journal still holds 32 jobs and nothing of the 33rd;
#  - bob's key has its own share: his job is accepted;
#  - status counts the refusal;
#  - under --insecure the one anonymous client has the share
#    (--max-client-jobs 1: the second job is refused);
#  - a bad --max-client-jobs is refused (exit 2).
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
COORD="$B/coordinator/whittle-coordinator"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
wait_for() { # seconds command...: runs command until it succeeds, at most seconds
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ "$SECONDS" -lt "$end" ] || return 1; sleep 0.2; done
}
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord clients/alice clients/bob; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SERVER_KEY="$K/coord.public"
as() { local who=$1; shift; WHITTLE_SECRET_KEY="$K/clients/$who.secret" "$WHITTLE" "$@"; }
P="$T/tally"; cp -r "$FIX/tally" "$P"
jobs() { # out-prefix count
    jq -n --arg p "$P" --arg o "$1" --argjson n "$2" '[range($n) | {project: $p, file: "tests/test_tally.c",
        test: "test_total", setup: "make -s", build: "make -s", run: "./test_tally", framework: "plain",
        out: "\($o)\(.)"}]'
}
njobs() { as "$1" status --cluster "$EP" 2>/dev/null | grep -c '^  job '; }
has_jobs() { [ "$(njobs "$1")" = "$2" ]; }

EP="tcp://127.0.0.1:$(free_port)"
"$COORD" --runs "$T/runs" --bind "$EP" --cache memory: --journal "$T/journal" --secret-key "$K/coord.secret" \
    --nodes "$K/nodes" --clients "$K/clients" --grant alice="$T" --grant bob="$T" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_for 10 as alice status --cluster "$EP" > /dev/null 2>&1 || fail "coordinator did not start: $(cat "$T/coord.log")"

jobs a 32 > "$T/a.json"
# (plain commands in the background, so that $! is the client and stop_all stops it)
WHITTLE_SECRET_KEY="$K/clients/alice.secret" "$WHITTLE" submit --cluster "$EP" "$T/a.json" > "$T/a.out" 2>&1 &
PIDS+=($!)
wait_for 60 has_jobs alice 32 && pass "alice's 32 jobs are queued" || fail "alice has $(njobs alice) jobs: $(cat "$T/a.out")"
check_eq "journaled jobs" "$(jq -r .id "$T/journal" | sort -u | wc -l)" 32

jobs over 1 > "$T/over.json"
timeout 30 env WHITTLE_SECRET_KEY="$K/clients/alice.secret" "$WHITTLE" submit --cluster "$EP" "$T/over.json" > "$T/over.out" 2>&1; rc=$?
check_eq "alice's 33rd job: exit" "$rc" 4
check_eq "alice's 33rd job: the line" "$(grep 'error' "$T/over.out")" \
    "whittle: error: job 0: client key alice has 32 jobs queued or running, the most this coordinator takes from one key (--max-client-jobs 32); this job was refused, not journaled: submit it again when one ends"
check_eq "journaled jobs after the refusal" "$(jq -r .id "$T/journal" | sort -u | wc -l)" 32
check_eq "the refused job in the journal" "$(grep -c 'over0' "$T/journal")" 0
check_eq "alice's jobs after the refusal" "$(njobs alice)" 32

jobs b 1 > "$T/b.json"
WHITTLE_SECRET_KEY="$K/clients/bob.secret" "$WHITTLE" submit --cluster "$EP" "$T/b.json" > "$T/b.out" 2>&1 &
PIDS+=($!)
wait_for 30 has_jobs bob 1 && pass "bob's job is accepted beside alice's 32" || fail "bob: $(cat "$T/b.out")"
check_eq "status counts the refusal" \
    "$(as bob status --cluster "$EP" | sed -n 's/.*  \(refused over --max-client-jobs 32: [0-9]*\)$/\1/p')" \
    "refused over --max-client-jobs 32: 1"
stop_all

# --insecure: one anonymous client, one share.
EP="tcp://127.0.0.1:$(free_port)"
"$COORD" --runs "$T/runs" --bind "$EP" --cache memory: --journal off --insecure --max-client-jobs 1 > "$T/coord2.log" 2>&1 &
PIDS+=($!)
st() { env -u WHITTLE_SERVER_KEY "$WHITTLE" status --cluster "$EP" --insecure; }
wait_for 10 st > /dev/null 2>&1 || fail "insecure coordinator did not start"
jobs i 1 > "$T/i.json"
env -u WHITTLE_SERVER_KEY "$WHITTLE" submit --cluster "$EP" --insecure "$T/i.json" > "$T/i.out" 2>&1 &
PIDS+=($!)
one() { [ "$(st 2>/dev/null | grep -c '^  job ')" = 1 ]; }
wait_for 30 one || fail "--insecure: the first job is not queued"
timeout 30 env -u WHITTLE_SERVER_KEY "$WHITTLE" submit --cluster "$EP" --insecure "$T/i.json" > "$T/i2.out" 2>&1; rc=$?
check_eq "--insecure, second job: exit $rc, the line" "$rc: $(grep error "$T/i2.out")" \
    "4: whittle: error: job 0: client key (anonymous, --insecure) has 1 jobs queued or running, the most this coordinator takes from one key (--max-client-jobs 1); this job was refused, not journaled: submit it again when one ends"
stop_all

out=$("$COORD" --bind "tcp://127.0.0.1:$(free_port)" --insecure --max-client-jobs 0 2>&1); rc=$?
check_eq "--max-client-jobs 0: exit $rc, the line" "$rc: $out" \
    "2: whittle-coordinator: error: --max-client-jobs wants a number of jobs in 1..100000, not '0'"
finish
