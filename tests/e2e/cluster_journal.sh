#!/bin/bash
# Jobs survive a coordinator crash (issue 10). A coordinator, one real
# whittle-node (one slot, so the walk is the sequential one), CURVE keys.
#  - an uninterrupted run gives the reference answer and the count of
#    candidates judged (built and run, not cached or predicted);
#  - for each journal back end (Redis, when the cache is Redis; the embedded
#    file beside the cache otherwise): `whittle submit` is started, the
#    coordinator is killed with SIGKILL mid-job and restarted on the same
#    port; the waiting client prints "coordinator lost, reattaching to job
#    ID...", the same job id finishes with the reference answer, `whittle
#    status` marked it resumed, and the candidates judged before the kill
#    plus those judged after it equal the reference count, with no cache
#    key judged twice;
#  - the same after SIGTERM (a rolling update): the client is told the job
#    resumes when the coordinator restarts;
#  - another client key can neither cancel nor watch the job; its owner
#    can cancel a job, and the waiting client hears it (exit 130);
#  - a coordinator that does not come back: the client gives up after 10 s
#    of silence and 60 s of asking, exit 4, saying that a journaled job
#    resumes on restart and that an unjournaled one (--journal off) is lost.
. "$(dirname "$0")/lib.sh"
cache_secret # a redis:// cache needs the cluster secret
B="$WH_BINARY_DIR"
PIDS=()
stop_all() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait "${PIDS[@]}" 2>/dev/null; PIDS=(); }
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 clients/cli clients/other; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SECRET_KEY="$K/clients/cli.secret" WHITTLE_SERVER_KEY="$K/coord.public"

# The headers fixture with 16 removable statements more, and a test run
# that takes 0.4 s: a walk of 24 candidates, long enough to be killed in.
P="$T/headers"; cp -r "$FIX/headers" "$P"
pad=$(for k in $(seq 1 16); do printf '    volatile int pad%d = %d;\\n' "$k" "$k"; done)
sed -i "/struct request \*request = parse_request(\"GET \/demo/a\\
$pad" "$P/tests/test_request.c"
check_eq "padded test file" "$(grep -c 'volatile int pad' "$P/tests/test_request.c")" 16
RUNS="$T/runs"  # the coordinator's --runs: a job's "out" is a folder under it
job() { # out-folder (under $RUNS) [run]: another run command is another job,
    # which a finished one's verified answer (reused by a rerun) does not end
    printf '[{"project": "%s", "file": "tests/test_request.c", "test": "test_should_read_headers",
      "setup": "make -s", "build": "make -s", "run": "%s",
      "framework": "cmocka", "speculate": false, "precheck": "off", "out": "%s"}]\n' "$P" \
        "${2:-sleep 0.4 && ./test_request}" "$1"
}

PORT=$(free_port); EP="tcp://127.0.0.1:$PORT"
COORD_PID=
start_coord() { # cache-spec log
    "$B/coordinator/whittle-coordinator" --bind "$EP" --cache "$1" --runs "$RUNS" -v --secret-key "$K/coord.secret" \
        --nodes "$K/nodes" --clients "$K/clients" --grant cli="$T" --grant other="$T" >> "$2" 2>&1 &
    COORD_PID=$!
    PIDS+=($COORD_PID)
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do "$WHITTLE" status --cluster "$EP" > /dev/null 2>&1 && return 0; sleep 0.1; done
    fail "coordinator did not start: $(tail -3 "$2")"
}
start_node() {
    "$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/node-$RANDOM" --id n1 \
        --secret-key "$K/nodes/n1.secret" --server-key "$K/coord.public" > "$T/node.$RANDOM.log" 2>&1 &
    NODE_PID=$!
    PIDS+=($NODE_PID)
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
        "$WHITTLE" status --cluster "$EP" 2>/dev/null | grep -q '^nodes: 1  slots: 1 ' && return 0
        sleep 0.1
    done
    fail "the node did not join"
}
# Candidates judged by a slot (neither cached nor predicted) and their keys.
judged() { python3 - "$1" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["cached"] == "0" and r["predicted"] == "0"]
for r in rows: print(r["key"])
PY
}
# Keys answered from the cache in $1 that $2 (a list of keys) lacks: verdicts
# judged while the coordinator stopped (cached, not yet in the first csv).
cached_not_in() { python3 - "$1" "$2" <<'PY'
import csv, sys
have = set(open(sys.argv[2]).read().split())
for r in csv.DictReader(open(sys.argv[1])):
    if r["cached"] == "1" and r["predicted"] == "0" and r["key"] not in have:
        print(r["key"])
PY
}
job_id() { sed -n 's/^\[job 0\] job \([0-9a-f]\{16\}\) accepted.*/\1/p' "$1" | head -n1; }

# ---- the uninterrupted reference ----
start_coord "dir:$T/c0" "$T/coord0.log"
start_node
job ref > "$T/ref.json"
"$WHITTLE" submit --cluster "$EP" "$T/ref.json" > "$T/ref.out" 2>&1 || { cat "$T/ref.out"; fail "reference run"; }
REF=$(run_dir "$RUNS/ref")
REF_JUDGED=$(judged "$REF/candidates.csv" | wc -l)
[ "$REF_JUDGED" -ge 20 ] && pass "reference judged $REF_JUDGED candidates" || fail "reference judged only $REF_JUDGED"
stop_all

# ---- kill -9 mid-job, restart, the client reattaches ----
crash_run() { # name cache-spec [signal, default KILL]
    local name=$1 sig=${3:-KILL} log="$T/$1.coord.log" out="$RUNS/$1"
    start_coord "$2" "$log"
    start_node
    job "$name" > "$T/$name.json"
    "$WHITTLE" submit --cluster "$EP" "$T/$name.json" > "$T/$name.out" 2>&1 &
    local client=$!
    local csv=
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 180 ]; do
        csv=$(ls -d "$out"/*/ 2>/dev/null | grep -v /latest/ | head -n1)
        csv=${csv:+${csv}candidates.csv}
        [ -n "$csv" ] && [ "$(judged "$csv" | wc -l)" -ge 5 ] && break
        sleep 0.1
    done
    kill -"$sig" "$COORD_PID"; wait "$COORD_PID" 2>/dev/null
    # The node goes with it (a new pod set): exactly one node serves the
    # resumed job, started below once the refusals are checked, so the
    # count of judged candidates is the single-slot walk's.
    kill "$NODE_PID" 2>/dev/null; wait "$NODE_PID" 2>/dev/null
    local before; before=$(judged "$csv" | wc -l)
    local id; id=$(job_id "$T/$name.out")
    [ -n "$id" ] && pass "$name: job id $id" || fail "$name: no job id in: $(cat "$T/$name.out")"
    [ "$before" -lt "$REF_JUDGED" ] && pass "$name: killed mid-job ($before of $REF_JUDGED judged)" \
        || fail "$name: the job was over before the kill ($before judged)"
    start_coord "$2" "$log"
    local resumed=
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
        "$WHITTLE" status --cluster "$EP" > "$T/$name.status" 2>&1
        grep -q "^  job $id (resumed) " "$T/$name.status" && { resumed=1; break; }
        sleep 0.1
    done
    [ -n "$resumed" ] && pass "$name: status marks job $id resumed" || fail "$name: status: $(cat "$T/$name.status")"
    grep -q "resuming job $id (test_should_read_headers in tests/test_request.c) after a restart" "$log" \
        && pass "$name: the coordinator resumed it" || fail "$name: no resume in the coordinator log"
    # Another key may neither cancel nor watch it.
    WHITTLE_SECRET_KEY="$K/clients/other.secret" "$WHITTLE" cancel --cluster "$EP" "$id" > "$T/$name.other" 2>&1
    check_eq "$name: another key's cancel (exit)" "$?" 2
    check_eq "$name: another key's cancel (message)" "$(cat "$T/$name.other")" \
        "whittle: error: job $id belongs to another client key; refused"
    WHITTLE_SECRET_KEY="$K/clients/other.secret" timeout 20 "$WHITTLE" watch --cluster "$EP" "$id" > "$T/$name.otherw" 2>&1
    check_eq "$name: another key's watch (exit)" "$?" 2
    start_node
    local rc=0
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 300 ]; do kill -0 "$client" 2>/dev/null || break; sleep 0.1; done
    wait "$client" || rc=$?
    check_eq "$name: the waiting client's exit" "$rc" 0
    if [ "$sig" = TERM ]; then
        grep -q "coordinator stopping; job $id is journaled and resumes when it restarts" "$T/$name.out" \
            && pass "$name: the client was told the job resumes" || fail "$name: no stopping line"
    fi
    grep -q "^whittle: coordinator lost, reattaching to job $id\.\.\.$" "$T/$name.out" \
        && pass "$name: the client said it reattaches" || fail "$name: client output: $(cat "$T/$name.out")"
    # Taken back while the job runs ("reattached to job ..."), or, when the
    # resumed job ended before the client's WATCH arrived, answered from the
    # journal's record of it (its run folder line after the reattach line).
    if grep -q "reattached to job $id (resumed after a coordinator restart)" "$T/$name.out" \
        || sed -n "/^whittle: coordinator lost, reattaching to job $id\.\.\.\$/,\$p" "$T/$name.out" | grep -q "^Run folder: $out/"; then
        pass "$name: the coordinator took the client back"
    else
        fail "$name: no reattach answer: $(cat "$T/$name.out")"
    fi
    local runs; runs=$(ls -d "$out"/*/ | grep -v /latest/ | wc -l)
    check_eq "$name: run folders (before and after the restart)" "$runs" 2
    local R2; R2=$(ls -d "$out"/*/ | grep -v /latest/ | grep -v "^$(dirname "$csv")/$" | sed 's:/$::')
    check_eq "$name: the resumed job's answer" "$(cat "$R2/reduced.c")" "$(cat "$REF/reduced.c")"
    grep -qF "$(sed -n '/Reduced test:/,$p' "$T/ref.out" | sed -n 2p)" "$T/$name.out" \
        && pass "$name: the client printed the answer" || fail "$name: the client printed no answer"
    local after; after=$(judged "$R2/candidates.csv" | wc -l)
    # A verdict that came in while the coordinator stopped is in the cache
    # but not in the first csv: the resumed job takes it from the cache.
    judged "$csv" > "$T/$name.before-keys"
    local during; during=$(cached_not_in "$R2/candidates.csv" "$T/$name.before-keys" | wc -l)
    check_eq "$name: judged before ($before) + during ($during) + after ($after) the stop" \
        "$((before + during + after))" "$REF_JUDGED"
    check_eq "$name: keys judged twice" \
        "$(cat <(judged "$csv") <(judged "$R2/candidates.csv") | sort | uniq -d | wc -l)" 0
    stop_all
}

RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no > "$T/redis.log" 2>&1 &
RPID=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
crash_run redis "redis://127.0.0.1:$RPORT/2"
RID=$(job_id "$T/redis.out")
# One node judged each job and verified it: done, not verified in the
# cluster (code 5, issue 34); its client verified it on its own machine.
check_eq "redis: the job's record" \
    "$(redis-cli -p "$RPORT" -n 2 hget whittle:v1:jobs "$RID" | sed 's/ mac=[0-9a-f]\{64\}$//' | jq -r '"\(.state) \(.code) \(.resumed)"')" "done 5 1"
grep -q "journal redis 127.0.0.1:$RPORT/2 hash whittle:v1:jobs" "$T/redis.coord.log" \
    && pass "redis: journal in Redis" || fail "redis: journal not in Redis: $(grep journal "$T/redis.coord.log")"
kill "$RPID"; wait "$RPID" 2>/dev/null

crash_run embedded "dir:$T/c2"
EID=$(job_id "$T/embedded.out")
check_eq "embedded: the job's last record" \
    "$(grep "\"id\":\"$EID\"" "$T/c2/journal" | tail -n1 | jq -r '"\(.state) \(.code) \(.resumed)"')" "done 5 1"

# A clean stop (SIGTERM, as a rolling update sends) leaves the job to resume.
crash_run stopped "dir:$T/c4" TERM
SID=$(job_id "$T/stopped.out")
check_eq "stopped: the job's last record" \
    "$(grep "\"id\":\"$SID\"" "$T/c4/journal" | tail -n1 | jq -r '"\(.state) \(.code) \(.resumed)"')" "done 5 1"

# ---- its owner may cancel a job; the waiting client hears it ----
start_coord "dir:$T/c2" "$T/cancel.coord.log"
job cancelled "sleep 0.41 && ./test_request" > "$T/cancel.json"
"$WHITTLE" submit --cluster "$EP" "$T/cancel.json" > "$T/cancel.out" 2>&1 &
client=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do [ -n "$(job_id "$T/cancel.out")" ] && break; sleep 0.1; done
CID=$(job_id "$T/cancel.out")
"$WHITTLE" cancel --cluster "$EP" "$CID" > "$T/cancel.own" 2>&1
check_eq "owner's cancel" "$?:$(cat "$T/cancel.own")" "0:job $CID cancelled"
rc=0; wait "$client" || rc=$?
check_eq "the cancelled job's client exit" "$rc" 130
grep -q "whittle: error: job 0: job $CID cancelled by its owner" "$T/cancel.out" \
    && pass "the client was told" || fail "cancel: $(cat "$T/cancel.out")"
stop_all

# ---- the coordinator does not come back: after 10 s of silence and 60 s
# of asking, the client exits 4 saying what it knows (both at once) ----
gone_start() { # name coordinator-args...
    local name=$1; shift
    local ep="tcp://127.0.0.1:$(free_port)"
    echo "$ep" > "$T/$name.ep"
    "$B/coordinator/whittle-coordinator" --bind "$ep" --cache "dir:$T/$name.cache" --runs "$RUNS" "$@" \
        --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" --grant cli="$T" --grant other="$T" > "$T/$name.coord.log" 2>&1 &
    echo $! > "$T/$name.coord.pid"
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do "$WHITTLE" status --cluster "$ep" > /dev/null 2>&1 && break; sleep 0.1; done
    job "$name" > "$T/$name.json"
    "$WHITTLE" submit --cluster "$ep" "$T/$name.json" > "$T/$name.out" 2>&1 &
    echo $! > "$T/$name.client.pid"
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do [ -n "$(job_id "$T/$name.out")" ] && break; sleep 0.1; done
    kill -9 "$(cat "$T/$name.coord.pid")"
}
gone_start gone
gone_start gone_off --journal off
for name in gone gone_off; do
    rc=0; wait "$(cat "$T/$name.client.pid")" || rc=$?
    check_eq "$name: the client's exit" "$rc" 4
    ! grep -q "keep running" "$T/$name.out" && pass "$name: no claim that jobs keep running" \
        || fail "$name: $(cat "$T/$name.out")"
done
GID=$(job_id "$T/gone.out"); GEP=$(cat "$T/gone.ep")
check_eq "journaled job: the client's last words" "$(tail -n1 "$T/gone.out")" \
    "whittle: error: job 0: coordinator at $GEP did not come back within 60 s; job $GID is journaled there and resumes when the coordinator restarts (follow it: whittle watch --cluster $GEP $GID)"
OID=$(job_id "$T/gone_off.out"); OEP=$(cat "$T/gone_off.ep")
check_eq "unjournaled job: the client's last words" "$(tail -n1 "$T/gone_off.out")" \
    "whittle: error: job 0: coordinator at $OEP did not come back within 60 s; job $OID was not journaled (the coordinator runs with --journal off), so a restart loses it"
finish
