#!/bin/bash
# A node stopped (SIGSTOP) longer than 3 heartbeats and continued (issue
# 34): real CURVE coordinator and node on loopback, heartbeats every 500 ms.
#  - the node says what happened: it was stopped, and the coordinator
#    dropped its session; nothing about keys, handshakes or a silent
#    coordinator (it was the node that was silent);
#  - it reconnects cleanly: its slot joins again once, on a new session,
#    and the old session is not revived (the coordinator declares the slot
#    dead once, for the stop, not again after the resume);
#  - and the cluster reduces a job through it afterwards.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
curve_keys n1
port=$(free_port); EP="tcp://127.0.0.1:$port"
HB=(--heartbeat 500)
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache memory: "${coord_keys[@]}" "${HB[@]}" -v > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
"$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/w" --id n1 $(node_keys n1) "${HB[@]}" -v > "$T/node.log" 2>&1 &
NP=$!; PIDS+=($NP)
wait_slots 1
kill -STOP "$NP"
# stopped until the coordinator has declared the slot dead (1.5 s of silence), and 2 s more
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ] && ! grep -q "missed 3 heartbeats" "$T/coord.log"; do sleep 0.1; done
sleep 2
kill -CONT "$NP"
# joined again (a second "joined" line), then 3 s (6 heartbeats) to settle
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ] && [ "$(grep -c 'node slot n1/0 joined' "$T/coord.log")" -lt 2 ]; do sleep 0.1; done
sleep 3
grep -q "this node was stopped for [0-9.]* s (SIGSTOP, or the machine slept): longer than 3 heartbeats, so the coordinator at $EP has dropped this slot's session; reconnecting" "$T/node.log" \
    && pass "the node says it was stopped and lost its session" || fail "no true line: $(cat "$T/node.log")"
grep -iE "key|handshake|silent|refused" "$T/node.log" | grep -v "^whittle-node: job commands" > "$T/blame"
check_eq "the node blames no keys, handshake or silent coordinator" "$(cat "$T/blame")" ""
check_eq "slot declared dead once (for the stop, not after the resume)" "$(grep -c 'missed 3 heartbeats; declared dead' "$T/coord.log")" 1
check_eq "slot joined twice (start, resume)" "$(grep -c 'node slot n1/0 joined' "$T/coord.log")" 2
check_eq "slots now" "$(slots_joined)" 1
kill -0 "$NP" && pass "the node runs on" || fail "the node stopped"
P="$T/headers"; cp -r "$FIX/headers" "$P"
timeout 300 "$WHITTLE" reduce --cluster "$EP" --project "$P" --file tests/test_request.c --test test_should_read_headers \
    --setup "make -s" --build "make -s" --run ./test_request --framework cmocka -q --out r > "$T/r.out" 2>&1
rc=$?
check_eq "a job through the resumed node: exit" "$rc" 0
[ "$rc" = 0 ] || cat "$T/r.out" >&2
finish
