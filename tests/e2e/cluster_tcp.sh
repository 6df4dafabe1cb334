#!/bin/bash
# The cluster over tcp on loopback: a coordinator, real whittle-node
# processes, a real redis-server on a private port.
#  - the same reduced test and the same candidate/verdict sequence for 1, 2,
#    4 and 8 node slots over tcp as the embedded default;
#  - with Redis: a second run of the same job builds nothing (evaluated = 0),
#    and a different job on the same project (dd instead of hdd) is answered
#    from the verdicts the first one stored;
#  - `whittle status` shows the nodes, `whittle submit` runs several jobs.
# Every peer authenticates with CURVE keys (coordinator, nodes, client).
. "$(dirname "$0")/lib.sh"
cache_secret # a redis:// cache needs the cluster secret
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 nodes/n2 nodes/capped clients/cli; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SECRET_KEY="$K/clients/cli.secret" WHITTLE_SERVER_KEY="$K/coord.public"

P="$T/headers"; cp -r "$FIX/headers" "$P"
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka)
"$WHITTLE" reduce "${args[@]}" --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 || fail "embedded reference run"
REF=$(run_dir "$T/ref")

start_coord() { # cache-spec
    local port; port=$(free_port)
    EP="tcp://127.0.0.1:$port"
    "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "$1" -v \
        --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" --grant cli="$T" > "$T/coord.$port.log" 2>&1 &
    PIDS+=($!)
    wait_listening "$T/coord.$port.log"
}
start_nodes() { # nodes slots-per-node
    for n in $(seq 1 "$1"); do
        "$B/node/whittle-node" --connect "$EP" --slots "$2" --workdir "$T/node$n-$RANDOM" --id "n$n" \
            --secret-key "$K/nodes/n$n.secret" --server-key "$K/coord.public" > "$T/node$n.log" 2>&1 &
        PIDS+=($!)
    done
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
        [ "$("$WHITTLE" status --cluster "$EP" | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p')" = "$(( $1 * $2 ))" ] && return 0
        sleep 0.1
    done
    fail "nodes did not join"
}

for cfg in "1 1" "1 2" "2 2" "2 4"; do
    set -- $cfg
    start_coord memory:
    start_nodes "$1" "$2"
    slots=$(( $1 * $2 ))
    "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "tcp$slots" > "$T/tcp$slots.out" 2>&1 || { cat "$T/tcp$slots.out"; fail "tcp run with $slots slots"; }
    R=$(run_dir "$T/tcp$slots")
    check_eq "tcp $slots slots: reduced test" "$(cat "$R/reduced.c")" "$(cat "$REF/reduced.c")"
    check_eq "tcp $slots slots: candidates and verdicts" "$(cut -d, -f1-6 "$R/candidates.csv")" "$(cut -d, -f1-6 "$REF/candidates.csv")"
    stop_all
done

# Redis: a rerun builds nothing; another job shares the verdicts.
RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no > "$T/redis.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
start_coord "redis://127.0.0.1:$RPORT/3"
start_nodes 1 2
"$WHITTLE" status --cluster "$EP" > "$T/status" && grep -q "nodes: 1  slots: 2" "$T/status" && grep -q "cache: redis" "$T/status" \
    && pass "status shows the node and the Redis cache" || fail "status: $(cat "$T/status")"
check_eq "status names slots by key (n1/SLOT), not by routing id" \
    "$(sed -n 's/^  slot \([^ ]*\) .*/\1/p' "$T/status" | sort | tr '\n' ' ')" "n1/0 n1/1 "
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "r1" > "$T/r1.out" 2>&1 || fail "redis run 1"
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "r2" > "$T/r2.out" 2>&1 || fail "redis run 2"
R1=$(run_dir "$T/r1"); R2=$(run_dir "$T/r2")
check_eq "redis rerun: evaluated" "$(json "$R2/summary.json" .evaluated)" 0
check_eq "redis rerun: same reduced test" "$(cat "$R2/reduced.c")" "$(cat "$R1/reduced.c")"
nkeys=$(redis-cli -p "$RPORT" -n 3 --scan --pattern 'whittle:v1:verdict:*' | wc -l)
check_eq "redis holds one verdict per distinct evaluated candidate" "$nkeys" "$(json "$R1/summary.json" .evaluated)"
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --algorithm dd --out "r3" > "$T/r3.out" 2>&1 || fail "redis dd run"
R3=$(run_dir "$T/r3")
[ "$(json "$R3/summary.json" .cached)" -gt 0 ] && [ "$(json "$R3/summary.json" .evaluated)" -lt "$(json "$R3/summary.json" .candidates)" ] \
    && pass "a different job (dd) shares $(json "$R3/summary.json" .cached) verdicts, evaluated $(json "$R3/summary.json" .evaluated)" \
    || fail "dd job shared nothing: $(json "$R3/summary.json" '.cached, .evaluated')"

# Many failures at once.
cat > "$T/failures.json" <<JSON
[ {"project": "$P", "file": "tests/test_request.c", "test": "test_should_read_headers", "setup": "make -s",
   "build": "make -s", "run": "./test_request", "framework": "cmocka", "out": "batch"},
  {"project": "$P", "file": "tests/test_request.c", "test": "test_should_read_headers", "setup": "make -s",
   "build": "make -s", "run": "./test_request", "framework": "cmocka", "out": "batch", "algorithm": "dd"} ]
JSON
"$WHITTLE" submit --cluster "$EP" "$T/failures.json" > "$T/submit.out" 2>&1 || { cat "$T/submit.out"; fail "submit"; }
check_eq "submit wrote one run folder per failure" "$(ls -d "$T"/batch/*/ | grep -vc /latest/)" 2
stop_all

# --max-disk: a node keeps its warm workspaces under the cap, evicting the
# least recently used idle one (here the cap fits one workspace).
start_coord memory:
W="$T/capped"
"$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$W" --id capped --max-disk 100K \
    --secret-key "$K/nodes/capped.secret" --server-key "$K/coord.public" > "$T/capped.log" 2>&1 &
PIDS+=($!)
wait_slots 1
P2="$T/calc"; cp -r "$FIX/calc" "$P2"
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "cap1" > "$T/cap1.out" 2>&1 || fail "capped run 1"
"$WHITTLE" reduce --cluster "$EP" --project "$P2" --file tests/test_calc.c --test test_basic --setup "make -s" \
    --build "make -s" --run ./test_calc --framework cmocka --out "cap2" > "$T/cap2.out" 2>&1 || fail "capped run 2"
check_eq "max-disk: one warm workspace left" "$(ls -d "$W"/ws/*/slot-0 | wc -l)" 1
ls "$W"/ws/*/slot-0/tests/test_calc.c >/dev/null 2>&1 && pass "max-disk: the recent workspace stays" || fail "max-disk: the recent workspace is gone"
stop_all
finish
