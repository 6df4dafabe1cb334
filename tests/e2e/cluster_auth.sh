#!/bin/bash
# Who may talk to a coordinator (issue 10), with real processes on loopback:
#  - without keys, a tcp:// bind or connect off loopback is refused in one
#    line, with or without --insecure; loopback without keys needs --insecure;
#  - a coordinator with CURVE keys and two node keys + one client key listed:
#    an unlisted node key gets no work, a client key acting as a node gets no
#    work, a listed node key claiming a live slot's routing id gets nothing,
#    and the job (client key) reduces to exactly the embedded run's test, on
#    the two listed nodes only;
#  - a node key sending SUBMIT is dropped (no job), a client key sending
#    HELLO is dropped, both logged, and the peer gets only a refusing BYE;
#  - after a slot's node dies, another key claiming its routing id is refused
#    (the slot is dropped, never inherited);
#  - `whittle status` names slots by key (n1/0), never by routing id;
#  - a client with an unlisted key, the wrong server key or no keys gets a
#    one-line error at once (exit 2), not a timeout;
#  - so does a node (issue 18): an unlisted key, the wrong server key or no
#    keys is said at once (a warning), and after 3 refusals in a row the node
#    stops with exit 2 and one line naming the coordinator and the key,
#    instead of reconnecting for ever as if the coordinator were silent.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
COORD="$B/coordinator/whittle-coordinator"; NODE="$B/node/whittle-node"; PEER="$B/tests/wh_peer"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT

# ---- no keys: loopback only, and only with --insecure ----
port=$(free_port)
out=$("$COORD" --bind "tcp://0.0.0.0:$port" 2>&1); rc=$?
check_eq "bind 0.0.0.0 without keys: exit" "$rc" 2
check_eq "bind 0.0.0.0 without keys: one line" "$out" \
    "whittle-coordinator: error: refusing 'tcp://0.0.0.0:$port' without keys: only loopback (127.x, [::1], localhost) may run --insecure; give --secret-key and the other side's keys"
out=$("$COORD" --bind "tcp://0.0.0.0:$port" --insecure 2>&1); rc=$?
check_eq "--insecure on 0.0.0.0: exit" "$rc" 2
check_eq "--insecure on 0.0.0.0: one line" "$out" \
    "whittle-coordinator: error: refusing 'tcp://0.0.0.0:$port' without keys: only loopback (127.x, [::1], localhost) may run --insecure; give --secret-key and the other side's keys"
out=$("$COORD" --bind "tcp://127.0.0.1:$port" 2>&1); rc=$?
check_eq "loopback without keys or --insecure: exit $rc, one line" "$rc: $out" \
    "2: whittle-coordinator: error: 'tcp://127.0.0.1:$port' without keys needs --insecure (or --secret-key ...)"
out=$("$NODE" --connect tcp://192.0.2.7:7700 --insecure --workdir "$T/nowhere" 2>&1); rc=$?
check_eq "node --insecure to a remote coordinator: exit $rc, one line" "$rc: $out" \
    "2: whittle-node: error: refusing 'tcp://192.0.2.7:7700' without keys: only loopback (127.x, [::1], localhost) may run --insecure; give --secret-key and the other side's keys"
out=$("$WHITTLE" status --cluster tcp://192.0.2.7:7700 --insecure 2>&1); rc=$?
check_eq "client --insecure to a remote coordinator: exit" "$rc" 2
[ -e "$T/nowhere" ] && fail "a refused node created its workdir" || pass "a refused node touched nothing"

# ---- keys ----
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients" "$K/other"
for k in coord nodes/n1 nodes/n2 clients/cli other/rogue; do
    "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"
done
check_eq "keygen: secret file mode" "$(stat -c %a "$K/nodes/n1.secret")" 600
grep -q 'secret-key' "$K/nodes/n1.public" && fail "the public file holds the secret key" || pass "the public file holds no secret key"
out=$("$WHITTLE" keygen --out "$K/nodes/n1" 2>&1); rc=$?
check_eq "keygen refuses to overwrite: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: cannot create '$K/nodes/n1.secret': File exists"

P="$T/headers"; cp -r "$FIX/headers" "$P"
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka)
"$WHITTLE" reduce "${args[@]}" --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 || fail "embedded reference run"
REF=$(run_dir "$T/ref")

port=$(free_port); EP="tcp://127.0.0.1:$port"
# Heartbeats every 4 s (a slot is dead after 12 s of silence): the claim on
# a dead node's routing id below must reach the coordinator before n1's
# slot expires, and under load (a CI run beside other tests) starting the
# claiming peer and its CURVE handshake outlasted the 3 s of the default.
HB=(--heartbeat 4000)
"$COORD" --runs "$T" --bind "$EP" --cache memory: -v --secret-key "$K/coord.secret" --nodes "$K/nodes" \
    --clients "$K/clients" --grant cli="$T" "${HB[@]}" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
SK=(--server-key "$K/coord.public")
node() { # name key-file
    "$NODE" --connect "$EP" --slots 1 --workdir "$T/w-$1" --id "$1" --secret-key "$2" "${SK[@]}" "${HB[@]}" -v > "$T/node-$1.log" 2>&1 &
    PIDS+=($!)
}
node n1 "$K/nodes/n1.secret"
N1=$!
node rogue "$K/other/rogue.secret"       # an unlisted key
ROGUE=$!
node imposter "$K/clients/cli.secret"    # a client key acting as a node
export WHITTLE_SECRET_KEY="$K/clients/cli.secret" WHITTLE_SERVER_KEY="$K/coord.public"
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do grep -q "node slot n1/0 joined" "$T/coord.log" && break; sleep 0.1; done
RID=$(sed -n 's/.*node slot n1\/0 joined (routing id \(.*\))$/\1/p' "$T/coord.log")
[ -n "$RID" ] || fail "n1's routing id not in the coordinator log"
# n2's key claims n1's live routing id (HELLO + heartbeats for 3 s).
"$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" "${SK[@]}" --id "$RID" --send hello --wait 3000 > "$T/claim.out" 2>&1
check_eq "a second key claiming a live slot's routing id receives" "$(cat "$T/claim.out")" "total 0"
node n2 "$K/nodes/n2.secret"
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    [ "$("$WHITTLE" status --cluster "$EP" | grep -c '^  slot ')" = 2 ] && break; sleep 0.1
done
"$WHITTLE" status --cluster "$EP" > "$T/status" 2>&1 || fail "status with the client key"
check_eq "status: slots by key name, only the listed nodes" \
    "$(sed -n 's/^  slot \([^ ]*\) .*/\1/p' "$T/status" | sort | tr '\n' ' ')" "n1/0 n2/0 "
grep -qF "$RID" "$T/status" && fail "status shows a routing id" || pass "status shows no routing id"
# A refused client hears why at once, in one line.
out=$("$WHITTLE" status --cluster "$EP" --secret-key "$K/other/rogue.secret" "${SK[@]}" 2>&1); rc=$?
check_eq "status with an unlisted client key: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: cluster '$EP': the coordinator refused this key (it is not in its allow-list for this role)"
out=$("$WHITTLE" status --cluster "$EP" --secret-key "$K/clients/cli.secret" --server-key "$K/other/rogue.public" 2>&1); rc=$?
check_eq "status with the wrong server key: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: cluster '$EP': the security handshake failed (keys on one side, --insecure on the other, or the wrong --server-key)"
out=$(env -u WHITTLE_SECRET_KEY -u WHITTLE_SERVER_KEY "$WHITTLE" status --cluster "$EP" --insecure 2>&1); rc=$?
check_eq "status --insecure against a CURVE coordinator: exit" "$rc" 2

# A refused node says so and stops: exit 2, naming the coordinator and the key.
wait_exit() { # pid seconds: RC = its exit status, or "running" after seconds
    local end=$((SECONDS + $2)); RC=running
    while kill -0 "$1" 2>/dev/null; do [ "$SECONDS" -lt "$end" ] || return 0; sleep 0.1; done
    wait "$1"; RC=$?
}
pub() { sed -n 's/.*public-key = "\(.*\)"/\1/p' "$1"; }
wait_exit "$ROGUE" 20
check_eq "node with an unlisted key: exit" "$RC" 2
check_eq "node with an unlisted key: its last line" "$(tail -n1 "$T/node-rogue.log")" \
    "whittle-node: error: coordinator at $EP refused this node's key '$K/other/rogue.secret' (public key $(pub "$K/other/rogue.public")) 3 times in a row: it is not in the coordinator's --nodes folder; stopping"
grep -qxF "whittle: warning: node rogue slot 0: coordinator at $EP: the coordinator refused this key (it is not in its allow-list for this role)" "$T/node-rogue.log" \
    && pass "node with an unlisted key: the first refusal is said at once" || fail "no refusal warning: $(cat "$T/node-rogue.log")"
check_eq "node with an unlisted key: 'coordinator silent' lines" "$(grep -c 'coordinator silent' "$T/node-rogue.log")" 0
timeout 30 "$NODE" --connect "$EP" --workdir "$T/w-badserver" --id badserver --secret-key "$K/nodes/n2.secret" \
    --server-key "$K/other/rogue.public" > "$T/node-badserver.log" 2>&1; rc=$?
check_eq "node with the wrong server key: exit $rc, last line" "$rc: $(tail -n1 "$T/node-badserver.log")" \
    "2: whittle-node: error: coordinator at $EP failed the security handshake with this node's key '$K/nodes/n2.secret' (public key $(pub "$K/nodes/n2.public")) 3 times in a row: --server-key is not its public key, or it runs without keys (--insecure); stopping"
timeout 30 env -u WHITTLE_SECRET_KEY -u WHITTLE_SERVER_KEY "$NODE" --connect "$EP" --workdir "$T/w-nokeys" --id nokeys \
    --insecure > "$T/node-nokeys.log" 2>&1; rc=$?
check_eq "node without keys: exit $rc, last line" "$rc: $(tail -n1 "$T/node-nokeys.log")" \
    "2: whittle-node: error: coordinator at $EP failed the security handshake with this node (--insecure, no key) 3 times in a row: it runs with CURVE keys; give --secret-key and --server-key; stopping"

# The reduction over CURVE: the embedded run's exact answer, listed nodes only.
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "curve" > "$T/curve.out" 2>&1 || { cat "$T/curve.out"; fail "reduction over CURVE"; }
R=$(run_dir "$T/curve")
check_eq "CURVE run: reduced test equals the embedded run's" "$(cat "$R/reduced.c")" "$(cat "$REF/reduced.c")"
check_eq "CURVE run: candidates and verdicts" "$(cut -d, -f1-6 "$R/candidates.csv")" "$(cut -d, -f1-6 "$REF/candidates.csv")"
nodes_used=$(awk -F, 'NR > 1 && $7 == 0 && $8 != "precheck" { print $8 }' "$R/candidates.csv" | sort -u | tr '\n' ' ')
case "$nodes_used" in
    "n1/0 "|"n2/0 "|"n1/0 n2/0 ") pass "evaluated only on listed nodes: $nodes_used" ;;
    *) fail "candidates evaluated on '$nodes_used'" ;;
esac
[ -e "$T/w-rogue/ws" ] && fail "the unlisted node got work" || pass "the unlisted node got no work"
[ -e "$T/w-imposter/ws" ] && fail "the client key acting as a node got work" || pass "the client key acting as a node got no work"
grep -qF "auth: refused unlisted key $(sed -n 's/.*public-key = "\(.*\)"/\1/p' "$K/other/rogue.public")" "$T/coord.log" \
    && pass "coordinator log names the refused key" || fail "no refusal of the unlisted key in the log"
grep -q "auth: dropped HELLO from client:cli: a client key may only send SUBMIT, STATUS_REQ, WATCH, CANCEL and BLOB_PUT" "$T/coord.log" \
    && pass "a client key's HELLO is dropped and logged" || fail "client HELLO not logged"

# A node key may not submit.
jq -n --arg p "$P" --arg o "$T/by-node" '{project: $p, file: "tests/test_request.c", test: "test_should_read_headers",
    setup: "make -s", build: "make -s", run: "./test_request", framework: "cmocka", out: $o}' > "$T/job.json"
"$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" "${SK[@]}" --send submit --json "$T/job.json" --wait 1500 > "$T/nodesubmit.out" 2>&1
# (only the refusal: a BYE saying the key is a node key, issue 34)
check_eq "a node key's SUBMIT gets" "$(cat "$T/nodesubmit.out")" $'BYE 1\ntotal 1'
grep -q "auth: dropped SUBMIT from node:n2: a node key may only send HELLO, HEARTBEAT, VERDICT, WARMED, BLOB_GET and BYE" "$T/coord.log" \
    && pass "a node key's SUBMIT is dropped and logged" || fail "node SUBMIT not logged"
[ -e "$T/by-node" ] && fail "a node key started a job" || pass "no job from a node key"
"$WHITTLE" status --cluster "$EP" > "$T/status2" 2>&1
check_eq "jobs submitted (only the client's)" "$(sed -n 's/^jobs submitted: \([0-9]*\).*/\1/p' "$T/status2")" 1
"$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" "${SK[@]}" --send status --wait 1000 > "$T/nodestatus.out" 2>&1
check_eq "a node key's STATUS_REQ gets" "$(cat "$T/nodestatus.out")" $'BYE 1\ntotal 1'

# n1 dies; before its slot expires, n2's key claims its routing id: refused,
# and the slot is dropped rather than inherited.
kill -9 "$N1"
# Under load the handshake may outlast one --wait: the claim is sent again
# until the coordinator has logged it, with a deadline.
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" "${SK[@]}" --id "$RID" --send hello --wait 1000 > /dev/null 2>&1
    grep -qF "auth: node:n2 claimed routing id '$RID'" "$T/coord.log" && break
done
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 30 ]; do
    grep -q "node slot n1/0 removed: its routing id was claimed by another key" "$T/coord.log" && break
    sleep 0.1
done
grep -qF "auth: node:n2 claimed routing id '$RID' owned by slot n1/0; refused (no takeover)" "$T/coord.log" \
    && pass "a claim on a dead node's routing id is refused" || fail "claim after death not refused"
grep -q "node slot n1/0 removed: its routing id was claimed by another key" "$T/coord.log" \
    && pass "the claimed slot is dropped, not inherited" || fail "claimed slot kept"
stop_all
finish
