#!/bin/bash
# A key of the wrong role is told so, on both sides (issue 34): a real
# CURVE coordinator on loopback with one node key and one client key.
#  - a node started with the client key stops within a deadline, non-zero,
#    with one error line naming the role problem (it printed "1 slot(s)
#    connected" and went on as if let in);
#  - `whittle status` and `whittle reduce --cluster` with the node key exit
#    2 with one line naming the role problem (not "no answer within 5 s");
#  - the coordinator logs each refusal.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
curve_keys n1
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache memory: "${coord_keys[@]}" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"

# A client key as a node.
"$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/w" --id imp --secret-key "$K/clients/cli.secret" \
    --server-key "$K/coord.public" > "$T/node.out" 2> "$T/node.err" &
NP=$!; PIDS+=($NP)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ] && kill -0 "$NP" 2>/dev/null; do sleep 0.1; done
if kill -0 "$NP" 2>/dev/null; then fail "the node with a client key still runs after 60 s"; rc=running
else wait "$NP"; rc=$?; fi
check_eq "node with a client key: exit" "$rc" 2
errline=$(grep 'error' "$T/node.err")
check_eq "node with a client key: the error line" "$errline" \
    "whittle-node: error: coordinator at $EP: the coordinator refused key 'cli' as a node: it is a client key (in the coordinator's --clients), not a node key; use a key from its --nodes folder (this node's key '$K/clients/cli.secret'); stopping"
grep -q "auth: dropped HELLO from client:cli" "$T/coord.log" && pass "the coordinator logged the client key's HELLO" || fail "no log of the HELLO"

# A node key as a client.
nk=(--secret-key "$K/nodes/n1.secret" --server-key "$K/coord.public")
t0=$SECONDS
out=$("$WHITTLE" status --cluster "$EP" "${nk[@]}" 2>&1); rc=$?
check_eq "status with a node key: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: cluster '$EP': the coordinator refused key 'n1' as a client: it is a node key (in the coordinator's --nodes), not a client key; use a key from its --clients folder"
P="$T/headers"; cp -r "$FIX/headers" "$P"
out=$(timeout 120 "$WHITTLE" reduce --cluster "$EP" "${nk[@]}" --project "$P" --file tests/test_request.c \
      --test test_should_read_headers --setup "make -s" --build "make -s" --run ./test_request --framework cmocka -q 2>&1); rc=$?
check_eq "reduce with a node key: exit $rc, the last line" "$rc: $(printf '%s\n' "$out" | tail -n 1)" \
    "2: whittle: error: cluster '$EP': the coordinator refused key 'n1' as a client: it is a node key (in the coordinator's --nodes), not a client key; use a key from its --clients folder"
grep -q "auth: dropped SUBMIT from node:n1" "$T/coord.log" && pass "the coordinator logged the node key's SUBMIT" || fail "no log of the SUBMIT"
finish
