#!/bin/bash
# `whittle status` on a farm many teams share (issue 18): a client key sees
# its own jobs (test names, progress, the groups of its finished runs with
# their fingerprints and run folders) and only a count of the others'.
#  - CURVE keys alice and bob; alice's first job finishes on a node, then the
#    node goes and her second job waits for a slot;
#  - bob's status shows none of alice's job ids, tests, run folders or
#    fingerprints, only "1 job of other clients"; with a job of his own it
#    shows that one and "and 1 job of other clients";
#  - alice's status shows her job, the group of her finished run, and "and
#    1 job of other clients" (bob's);
#  - an --insecure coordinator has one anonymous client: status shows every
#    job, and no "other clients".
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
COORD="$B/coordinator/whittle-coordinator"; NODE="$B/node/whittle-node"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
# wait_for SECONDS COMMAND...: runs COMMAND until it succeeds, at most SECONDS.
wait_for() {
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ "$SECONDS" -lt "$end" ] || return 1; sleep 0.1; done
}

K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 clients/alice clients/bob; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SERVER_KEY="$K/coord.public"
as() { # client command...
    local who=$1; shift
    WHITTLE_SECRET_KEY="$K/clients/$who.secret" "$WHITTLE" "$@"
}
P="$T/tally"; cp -r "$FIX/tally" "$P"
job() { # out test [run]: another run command is another job, which the
    # first one's verified answer (reused by a rerun of the same job) does not end
    jq -n --arg p "$P" --arg o "$1" --arg t "$2" --arg r "${3:-./test_tally}" '[{project: $p,
        file: "tests/test_tally.c", test: $t, setup: "make -s", build: "make -s", run: $r,
        framework: "plain", out: $o}]'
}

EP="tcp://127.0.0.1:$(free_port)"
"$COORD" --runs "$T/runs" --bind "$EP" --cache memory: --secret-key "$K/coord.secret" --nodes "$K/nodes" \
    --clients "$K/clients" --grant alice="$T" --grant bob="$T" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_for 10 as alice status --cluster "$EP" > /dev/null 2>&1 || fail "coordinator did not start: $(cat "$T/coord.log")"
"$NODE" --connect "$EP" --slots 1 --workdir "$T/node" --id n1 --secret-key "$K/nodes/n1.secret" > "$T/node.log" 2>&1 &
NPID=$!; PIDS+=($NPID)
slots() { as alice status --cluster "$EP" 2>/dev/null | grep -q "^nodes: $1  slots: $1 "; }
wait_for 10 slots 1 || fail "the node did not join"

# alice's first job finishes; its run folder and fingerprint are hers.
job first test_total > "$T/first.json"
as alice submit --cluster "$EP" "$T/first.json" > "$T/first.out" 2>&1 || { cat "$T/first.out"; fail "alice's first job"; }
RUN=$(basename "$(run_dir "$T/runs/first")")
[ -n "$RUN" ] && pass "alice's run folder: $RUN" || fail "no run folder for alice's first job"
FP=$(jq -r '.fingerprint.location' "$T/runs/first/$RUN/summary.json")
kill "$NPID"; wait "$NPID" 2>/dev/null
wait_for 15 slots 0 || fail "the node's slot did not go"

# alice's second job waits for a slot.
job second test_total "true && ./test_tally" > "$T/second.json"
# (a plain command, so that $! is the client itself and stop_all stops it)
WHITTLE_SECRET_KEY="$K/clients/alice.secret" "$WHITTLE" submit --cluster "$EP" "$T/second.json" > "$T/second.out" 2>&1 &
PIDS+=($!)
AID=
has_job() { # client id-var
    local id; id=$(as "$1" status --cluster "$EP" 2>/dev/null | sed -n 's/^  job \([0-9a-f]\{16\}\) .*/\1/p' | head -n1)
    [ -n "$id" ] && eval "$2=$id"
}
wait_for 15 has_job alice AID || fail "alice's second job is not in her status"

as bob status --cluster "$EP" > "$T/bob1" 2>&1 || fail "bob's status: $(cat "$T/bob1")"
cat "$T/bob1" >&2
check_eq "bob sees no job lines" "$(grep -c '^  job ' "$T/bob1")" 0
check_eq "bob sees alice's job counted" "$(grep '^  .*other clients' "$T/bob1")" "  1 job of other clients"
for secret in "$AID" test_total tests/test_tally.c "$RUN" "$FP" "$T/runs" group; do
    grep -qF -- "$secret" "$T/bob1" && fail "bob's status shows '$secret'" || pass "bob's status does not show '$secret'"
done

# bob's own job: his, and alice's counted.
jq -n --arg p "$P" '[{project: $p, file: "tests/test_tally.c", test: "test_total", setup: "make -s",
    build: "make -s", run: "true && true && ./test_tally", framework: "plain", out: "bobs"}]' > "$T/bob.json"
WHITTLE_SECRET_KEY="$K/clients/bob.secret" "$WHITTLE" submit --cluster "$EP" "$T/bob.json" > "$T/bob.out" 2>&1 &
PIDS+=($!)
BID=
wait_for 15 has_job bob BID || fail "bob's job is not in his status"
as bob status --cluster "$EP" > "$T/bob2" 2>&1
check_eq "bob's job lines" "$(sed -n 's/^  job \([0-9a-f]*\) .*/\1/p' "$T/bob2" | tr '\n' ' ')" "$BID "
check_eq "bob: others counted" "$(grep 'other clients' "$T/bob2")" "  and 1 job of other clients"

as alice status --cluster "$EP" > "$T/alice" 2>&1
cat "$T/alice" >&2
check_eq "alice's job lines" "$(sed -n 's/^  job \([0-9a-f]*\) .*/\1/p' "$T/alice" | tr '\n' ' ')" "$AID "
check_eq "alice: others counted" "$(grep 'other clients' "$T/alice")" "  and 1 job of other clients"
check_eq "alice: the groups of her finished run" "$(grep '^groups' "$T/alice")" "groups of finished jobs: 1 runs, 1 groups"
grep -qF "  $RUN (test_total)" "$T/alice" && pass "alice sees her run folder" || fail "alice does not see her run folder"
grep -qF "$FP" "$T/alice" && pass "alice sees her fingerprint" || fail "alice does not see her fingerprint ($FP)"
stop_all

# --insecure: one anonymous client, who sees every job.
EP="tcp://127.0.0.1:$(free_port)"
"$COORD" --runs "$T/runs" --bind "$EP" --cache memory: --journal off --insecure > "$T/coord2.log" 2>&1 &
PIDS+=($!)
st() { env -u WHITTLE_SERVER_KEY "$WHITTLE" status --cluster "$EP" --insecure; }
wait_for 10 st > /dev/null 2>&1 || fail "insecure coordinator did not start"
for k in 1 2; do
    job "insecure$k" test_total > "$T/i$k.json"
    env -u WHITTLE_SERVER_KEY "$WHITTLE" submit --cluster "$EP" --insecure "$T/i$k.json" > "$T/i$k.out" 2>&1 &
    PIDS+=($!)
done
two() { [ "$(st 2>/dev/null | grep -c '^  job ')" = 2 ]; }
wait_for 15 two && pass "--insecure: status shows both jobs" || fail "--insecure: $(st 2>&1)"
check_eq "--insecure: no other clients" "$(st | grep -c 'other clients')" 0
stop_all
finish
