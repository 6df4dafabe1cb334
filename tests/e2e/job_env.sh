#!/bin/bash
# A job sees an allow-listed environment, nothing of the node's secrets
# (issue 34). A whittle-node started with WHITTLE_REDIS_PASSWORD, a cache
# secret, a key path and a cloud token in its environment runs a job whose
# setup and --run dump `env` into a folder outside the workspace: neither
# dump holds any of them (nor their values), both hold PATH, HOME, TMPDIR,
# LANG and LC_ALL. Runs as root or not (--sandbox none either way, so the
# dumps reach a host folder).
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
CLUSTER_INSECURE=1 # slots_joined, wait_slots (lib.sh)
P="$T/tally"; cp -r "$FIX/tally" "$P"
O="$T/dumps"; mkdir -m 777 "$O"
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
env WHITTLE_REDIS_PASSWORD=pw-4f1e2d WHITTLE_CACHE_SECRET=cs-77aa91 WHITTLE_CACHE_SECRET_FILE="$T/cache.secret" \
    WHITTLE_SECRET_KEY="$T/node.secret" AWS_SECRET_ACCESS_KEY=aws-5c3b LANG=C.UTF-8 LC_ALL=C \
    CCACHE_DIR=/var/cache/cc-91d2 \
    "$B/node/whittle-node" --connect "$EP" --insecure --slots 1 --workdir "$T/wd" --sandbox none \
    --pass-env CCACHE_DIR > "$T/node.log" 2>&1 &
PIDS+=($!)
wait_slots 1
# --no-verify-local: the client's own check of the lone node's answer would
# run the same commands here, in the client's environment, over the dumps
# (the answer then ends "not verified", exit 5)
timeout 300 "$WHITTLE" reduce --cluster "$EP" --insecure --project "$P" --file tests/test_tally.c \
    --test test_total --setup "make -s && env > '$O/setup.env'" --build "make -s" \
    --run "env > '$O/run.env'; ./test_tally" --framework plain --out out --no-verify-local \
    > "$T/out.txt" 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 5 ] || { cat "$T/out.txt"; fail "the job: exit $rc"; }
for f in setup run; do
    [ -s "$O/$f.env" ] && pass "$f: env dumped" || { fail "$f: no env dump"; continue; }
    leaked=$(grep -E '^(WHITTLE_(REDIS|CACHE|SECRET|SERVER)|AWS_)|pw-4f1e2d|cs-77aa91|aws-5c3b|cache\.secret|node\.secret' "$O/$f.env")
    check_eq "$f: node secrets in the job's environment" "$leaked" ""
    check_eq "$f: allow-listed names there" "$(grep -oE '^(PATH|HOME|TMPDIR|LANG|LC_ALL)=' "$O/$f.env" | sort | tr -d '\n')" \
        "HOME=LANG=LC_ALL=PATH=TMPDIR="
    check_eq "$f: --pass-env CCACHE_DIR there" "$(grep '^CCACHE_DIR=' "$O/$f.env")" "CCACHE_DIR=/var/cache/cc-91d2"
done
out=$("$B/node/whittle-node" --connect "$EP" --insecure --pass-env 'A=B' 2>&1); rc=$?
check_eq "--pass-env with no variable name: exit $rc, one line" "$rc: $out" \
    "2: whittle-node: error: --pass-env wants a variable name, not A=B"
finish
