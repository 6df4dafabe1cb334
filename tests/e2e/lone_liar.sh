#!/bin/bash
# No answer rests on the word of the node that produced it (issue 34). A
# CURVE cluster on loopback, the tally fixture (its failure: the assertion
# at tests/test_tally.c:25), and whittle-node-test, which answers with
# WH_TEST_LIE=... to every candidate and verify run without judging it.
#  1. A lone node lying Preserved: its first lie is a candidate that
#     removes the failing statement, which cannot fail the same way (the
#     fingerprint-location rule): the run is refused, naming the node
#     (exit 4, no other node can judge); before, exit 0, "Verified", 7 -> 0.
#  2. The same liar with --match message (the rule does not apply: the
#     location is not compared): the walk takes its lies and its own verify
#     run says yes. The answer is not verified: the client checks it on its
#     own machine without being asked and refuses it (exit 3); with
#     --no-verify-local the run ends exit 5 and "not verified" stands in
#     summary.json, summary.txt, report.html and run.log of the
#     coordinator's run folder.
#  3. An honest lone node: verified on the client's machine (exit 0), or
#     exit 5 with --no-verify-local.
#  4. The liar beside an honest node: the rule drops the liar's verdict,
#     takes it out of the job and the answer is the honest one.
#  5. A lone node lying BuildFailed, then TestPassed, with a Redis cache:
#     the error names the node (its baseline said the original fails, its
#     verify run said not), and none of its values stay in Redis.
#  6. The embedded default verifies on the user's own machine: no "no
#     second opinion" there.
. "$(dirname "$0")/lib.sh"
for tool in redis-server redis-cli jq; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool not installed" >&2; exit 77; }
done
cache_secret
B="$WH_BINARY_DIR"
PIDS=()
RPID=
trap 'stop_cluster; [ -z "$RPID" ] || { kill "$RPID"; wait "$RPID"; } 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

curve_keys liar honest
P="$T/tally"; cp -r "$FIX/tally" "$P"
before=$(tree_digest "$P")
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain)
want='static void test_total(void)
{
    int total = 0;
    assert(total == 8);
}'
# Stops the cluster's processes by PID (lib.sh's stop_all waits for every
# child, the Redis of step 5 too).
stop_cluster() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done; PIDS=(); }
start_coord() { # name cache
    port=$(free_port); EP="tcp://127.0.0.1:$port"
    "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "$2" -v "${coord_keys[@]}" > "$T/coord-$1.log" 2>&1 &
    PIDS+=($!)
    wait_listening "$T/coord-$1.log"
}
start_node() { # binary key workdir [env...]
    env "${@:4}" "$B/node/$1" --connect "$EP" --slots 1 --workdir "$T/$3" --id "$2" $(node_keys "$2") > "$T/$3.log" 2>&1 &
    PIDS+=($!)
}

# 6. The embedded default (also the honest answer for the rest).
"$WHITTLE" reduce "${args[@]}" --out "$T/emb" --cache memory: > "$T/emb.out" 2>&1 || { cat "$T/emb.out"; fail "embedded run"; }
H=$(run_dir "$T/emb")
check_eq "embedded: the answer" "$(awk '/^static void test_total/,/^}/' "$H/reduced.c")" "$want"
check_eq "embedded: verified, the machine's own second opinion" "$(json "$H/summary.json" '[.verified, .second_opinion] | map(tostring) | join(" ")')" "true true"
check_eq "embedded: no 'no second opinion' anywhere" "$(cat "$T/emb.out" "$H/summary.txt" "$H/report.html" | grep -c 'no second opinion')" 0

# 1. A lone liar: refused by the fingerprint rule, the node named.
start_coord p1 "dir:$T/vc1"
start_node whittle-node-test liar wd-liar1 WH_TEST_LIE=preserved
wait_slots 1
grep -q "this node LIES (test only)" "$T/wd-liar1.log" && pass "the liar says it lies" || fail "the liar did not start lying"
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out lone1 > "$T/lone1.out" 2> "$T/lone1.err"; rc=$?
check_eq "lone liar: exit" "$rc" 4
check_eq "lone liar: one error line" "$(wc -l < "$T/lone1.err")" 1
grep -q "^whittle: error: job 0: node liar said Preserved of a candidate that removes the failing statement (tests/test_tally.c line 25), which cannot fail the same way: its [0-9]* verdicts\? of this run \(was\|were\) dropped, and no other node can judge test_total" "$T/lone1.err" \
    && pass "lone liar: named: $(cat "$T/lone1.err")" || fail "lone liar: said: $(cat "$T/lone1.err")"
R=$(run_dir "$T/lone1")
grep -q "^fingerprint rule: node liar gave wrong verdicts; it is out of this job" "$R/run.log" \
    && pass "lone liar: run.log names it" || fail "lone liar: run.log does not name the liar"
check_eq "lone liar: no Preserved of the liar left in the cache" "$(awk '$1 !~ /^@/ { last[$1] = $0 } END { for (k in last) print last[k] }' "$T/vc1/verdicts.log" | grep -c 'Preserved node=liar$')" 0
stop_cluster

# 2. The rule off (--match message): the liar's word is the whole answer.
start_coord p2 "dir:$T/vc2"
start_node whittle-node-test liar wd-liar2 WH_TEST_LIE=preserved
wait_slots 1
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --match message --out lone2 > "$T/lone2.out" 2> "$T/lone2.err"; rc=$?
check_eq "lone liar, --match message: exit (refused on this machine)" "$rc" 3
grep -q "^Not verified: node liar judged every candidate built in this run and ran the verify run too: no second opinion" "$T/lone2.out" \
    && pass "lone liar, --match message: the cluster says it did not verify" || fail "no 'Not verified' line: $(cat "$T/lone2.out")"
grep -q "^Verifying locally: " "$T/lone2.out" && pass "lone liar: checked locally without --verify-local" || fail "lone liar: no local check"
grep -q "^whittle: error: --verify-local: the reduced test does not fail the same way on this machine: TestPassed" "$T/lone2.err" \
    && pass "lone liar: refused here: $(cat "$T/lone2.err")" || fail "lone liar: said: $(cat "$T/lone2.err")"
grep -q "^Verified" "$T/lone2.out" && fail "lone liar: said Verified" || pass "lone liar: never 'Verified'"
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --match message --no-verify-local --out lone3 > "$T/lone3.out" 2> "$T/lone3.err"; rc=$?
check_eq "lone liar, --no-verify-local: exit" "$rc" 5
check_eq "lone liar, --no-verify-local: the error" "$(cat "$T/lone3.err")" \
    "whittle: error: job 0: not verified: one node judged every candidate and verified the answer itself, and --no-verify-local keeps this machine from checking it"
R=$(run_dir "$T/lone3")
check_eq "lone liar: summary.json" "$(json "$R/summary.json" '[.verified, .second_opinion, .not_verified] | map(tostring) | join(" | ")')" \
    "false | false | node liar judged every candidate built in this run and ran the verify run too: no second opinion"
grep -q "^verified:    no, not verified" "$R/summary.txt" && grep -q "^not verified: node liar judged every candidate" "$R/summary.txt" \
    && pass "lone liar: summary.txt says not verified" || fail "lone liar: summary.txt: $(grep verif "$R/summary.txt")"
grep -q 'id="verified-pill">not verified: ' "$R/report.html" && pass "lone liar: report.html says not verified" || fail "lone liar: report.html pill"
grep -q "^not verified: node liar judged every candidate" "$R/run.log" && pass "lone liar: run.log says not verified" || fail "lone liar: run.log"
stop_cluster

# 3. An honest lone node: the client's machine is the second opinion.
start_coord p3 "dir:$T/vc3"
start_node whittle-node honest wd-honest3
wait_slots 1
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out honest3 > "$T/honest3.out" 2>&1; rc=$?
check_eq "honest lone node: exit" "$rc" 0
check_eq "honest lone node: verified here" "$(grep -c "^Verified locally: the reduced test fails the same way on this machine" "$T/honest3.out")" 1
check_eq "honest lone node: the answer" "$(awk '/^static void test_total/,/^}/' "$(run_dir "$T/honest3")/reduced.c")" "$want"
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --no-verify-local --out honest4 > "$T/honest4.out" 2>&1; rc=$?
check_eq "honest lone node, --no-verify-local: exit" "$rc" 5
check_eq "honest lone node, --no-verify-local: coordinator's summary.json verified" "$(json "$(run_dir "$T/honest4")/summary.json" .verified)" false
stop_cluster

# 4. The liar beside an honest node (the liar joins first and judges the
#    first candidate: the whole test body removed).
start_coord p4 "dir:$T/vc4"
start_node whittle-node-test liar wd-liar4 WH_TEST_LIE=preserved
wait_slots 1
start_node whittle-node honest wd-honest4
wait_slots 2
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out pair > "$T/pair.out" 2>&1; rc=$?
check_eq "liar beside an honest node: exit" "$rc" 0
R=$(run_dir "$T/pair")
check_eq "liar beside an honest node: the honest answer" "$(cat "$R/reduced.c")" "$(cat "$H/reduced.c")"
grep -q "^fingerprint rule: liar said Preserved of a candidate that removes the failing statement (tests/test_tally.c line 25): impossible" "$R/run.log" \
    && pass "pair: the rule caught the liar" || { grep -i "liar\|verify" "$R/run.log" | head; fail "pair: the rule did not catch the liar"; }
grep -q "^fingerprint rule: node liar gave wrong verdicts; it is out of this job" "$R/run.log" \
    && pass "pair: the liar is out of the job" || fail "pair: the liar stayed in the job"
grep -q "^Fingerprint rule: node liar said Preserved of a candidate that removes the failing statement" "$T/pair.out" \
    && pass "pair: the client is told" || fail "pair: the client was not told"
check_eq "pair: verified by a second opinion" "$(json "$R/summary.json" '[.verified, .second_opinion] | map(tostring) | join(" ")')" "true true"
stop_cluster

# 5. A lone node lying "not Preserved", with Redis: named, its values gone.
RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$T" > "$T/redis.log" 2>&1 &
RPID=$! # stopped at the end, not by stop_all
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
liar_values() { # the verdicts in Redis the liar's node produced
    redis-cli -p "$RPORT" --scan --pattern 'whittle:v1:verdict:*' | while read -r k; do redis-cli -p "$RPORT" get "$k"; done | grep -c " node=liar"
}
for lie in buildfailed testpassed; do
    redis-cli -p "$RPORT" flushall > /dev/null
    start_coord "$lie" "redis://127.0.0.1:$RPORT/0"
    start_node whittle-node-test liar "liar-$lie" WH_TEST_LIE=$lie
    wait_slots 1
    timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "lone-$lie" > "$T/lone-$lie.out" 2> "$T/lone-$lie.err"; rc=$?
    check_eq "$lie: exit" "$rc" 3
    V=$([ $lie = buildfailed ] && echo BuildFailed || echo TestPassed)
    grep -q "^whittle: error: job 0: node liar said the original test test_total\( fails the same way (its baseline run) and, built and run afresh, that it does not ($V\|, built and run afresh, does not fail the same way ($V\)" "$T/lone-$lie.err" \
        && pass "$lie: the node is named: $(cat "$T/lone-$lie.err")" || fail "$lie: said: $(cat "$T/lone-$lie.err")"
    grep -q "is it flaky" "$T/lone-$lie.err" && fail "$lie: still 'is it flaky?'" || pass "$lie: not 'is it flaky?'"
    judged=$(awk -F, 'NR > 1 && $3 ~ /^"?liar\// && $2 == "candidate" { n++ } END { print n + 0 }' "$(run_dir "$T/lone-$lie")/judged.csv")
    [ "$judged" -ge 1 ] && pass "$lie: the liar judged $judged candidates" || fail "$lie: the liar judged nothing (the test proves nothing)"
    check_eq "$lie: the liar's values in Redis" "$(liar_values)" 0
    stop_cluster
done

check_eq "project untouched" "$(tree_digest "$P")" "$before"
finish
