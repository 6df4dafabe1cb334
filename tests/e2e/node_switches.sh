#!/bin/bash
# The switches that make a node misbehave on purpose (WH_TEST_LIE,
# WH_TEST_BUSY; issue 18) exist only in whittle-node-test, the test-only
# build of whittle-node, never in the whittle-node that is installed:
#  - whittle-node's binary holds no WH_TEST_ string; whittle-node-test's does
#    (so the check can see one);
#  - a whittle-node started with both switches set judges honestly: it does
#    not say it lies or is busy, it answers more than Preserved, and the
#    reduction through it equals the embedded default's, verified, with no
#    verdict dropped.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT

for s in WH_TEST_LIE WH_TEST_BUSY; do
    check_eq "whittle-node holds $s" "$(grep -ac "$s" "$B/node/whittle-node")" 0
    [ "$(grep -ac "$s" "$B/node/whittle-node-test")" -ge 1 ] && pass "whittle-node-test holds $s" \
        || fail "whittle-node-test lacks $s: the check above proves nothing"
done
check_eq "whittle-node holds getenv(\"WH_TEST...\") of any name" "$(grep -ac 'WH_TEST_' "$B/node/whittle-node")" 0

P="$T/tally"; cp -r "$FIX/tally" "$P"
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain)
"$WHITTLE" reduce "${args[@]}" --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 || { cat "$T/ref.out"; fail "embedded run"; }
REF=$(run_dir "$T/ref")

EP="tcp://127.0.0.1:$(free_port)"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: > "$T/coord.log" 2>&1 &
PIDS+=($!)
WH_TEST_LIE=preserved WH_TEST_BUSY=always "$B/node/whittle-node" --connect "$EP" --insecure --slots 1 \
    --workdir "$T/node" --id n1 > "$T/node.log" 2>&1 &
PIDS+=($!)
joined=
for _ in $(seq 1 100); do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q '^nodes: 1  slots: 1 ' && { joined=1; break; }
    sleep 0.1
done
[ -n "$joined" ] && pass "the node joined" || fail "the node did not join: $(cat "$T/node.log")"
timeout 300 "$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out run > "$T/run.out" 2>&1; rc=$?
check_eq "reduction through whittle-node with the switches set: exit" "$rc" 0
R=$(run_dir "$T/run")
check_eq "answer = the embedded default's" "$(cat "$R/reduced.c" 2>/dev/null)" "$(cat "$REF/reduced.c")"
# One node judged everything and verified it: not verified in the cluster,
# checked on the client's machine (issue 34).
check_eq "not verified by a second node" "$(json "$R/summary.json" .not_verified)" \
    "node n1 judged every candidate built in this run and ran the verify run too: no second opinion"
grep -q "^Verified locally: the reduced test fails the same way on this machine" "$T/run.out" \
    && pass "verified on the client's machine" || fail "not verified on the client's machine: $(cat "$T/run.out")"
check_eq "verdicts dropped" "$(json "$R/summary.json" .verdicts_dropped)" 0
other=$(awk -F, 'NR > 1 && $7 == 0 && $8 ~ /^n1\// && $6 != "Preserved" { n++ } END { print n + 0 }' "$R/candidates.csv")
[ "$other" -ge 1 ] && pass "the node answered $other candidates other than Preserved" \
    || fail "the node answered only Preserved"
grep -qE "LIES|answers busy|WH_TEST" "$T/node.log" && fail "the node read a switch: $(cat "$T/node.log")" \
    || pass "the node's log names no switch"
stop_all
finish
