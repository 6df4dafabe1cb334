#!/bin/bash
# The verify step catches a node that lies. A coordinator with the embedded
# cache, a whittle-node-test (the test-only build of whittle-node) started
# with WH_TEST_LIE=preserved (it answers Preserved to every candidate
# without judging it) and an
# honest node. The liar joins first, so it judges the first candidates and
# the walk accepts its lies; the reduced test, built and run afresh on the
# honest node, does not fail, the accepted steps are re-judged newest
# first, the liar's verdicts are dropped from the cache ("Dropped" lines in
# verdicts.log), the liar is taken out of the job, and the reduction goes
# on from the last verified configuration. The answer equals the honest
# one (the embedded default's), and it was verified. The liar is an
# authenticated node (CURVE keys on the allow-list): trust in a node does
# not make its verdicts true. The job compares no location (--match
# message): the fingerprint-location rule (lone_liar.sh) would catch the
# liar's first lie, the whole body removed, before the verify step.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

curve_keys liar honest

P="$T/tally"; cp -r "$FIX/tally" "$P"
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain --match message)
"$WHITTLE" reduce "${args[@]}" --out "$T/honest" --cache memory: > "$T/honest.out" 2>&1 || { cat "$T/honest.out"; fail "honest run"; }
H=$(run_dir "$T/honest")
want='static void test_total(void)
{
    int total = 0;
    assert(total == 8);
}'
check_eq "honest answer" "$(awk '/^static void test_total/,/^}/' "$H/reduced.c")" "$want"

port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "dir:$T/vcache" -v "${coord_keys[@]}" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
WH_TEST_LIE=preserved "$B/node/whittle-node-test" --connect "$EP" --slots 1 --workdir "$T/liar" --id liar $(node_keys liar) > "$T/liar.log" 2>&1 &
PIDS+=($!)
wait_slots 1
"$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/honest-node" --id honest $(node_keys honest) > "$T/honest-node.log" 2>&1 &
PIDS+=($!)
wait_slots 2
grep -q "this node LIES (test only)" "$T/liar.log" && pass "the liar says it lies" || fail "the liar did not start lying"

"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "lied" > "$T/lied.out" 2>&1 || { cat "$T/lied.out"; fail "run with a lying node"; }
R=$(run_dir "$T/lied")
check_eq "answer with a liar = honest answer" "$(cat "$R/reduced.c")" "$(cat "$H/reduced.c")"
check_eq "verified" "$(json "$R/summary.json" .verified)" true
check_eq "restarts" "$(json "$R/summary.json" .restarts)" 1
dropped=$(json "$R/summary.json" .verdicts_dropped)
[ "$dropped" -ge 1 ] && pass "verdicts dropped: $dropped" || fail "no verdict dropped"
check_eq "Dropped lines in the embedded cache = verdicts dropped" "$(grep -c ' Dropped$' "$T/vcache/verdicts.log")" "$dropped"
liar_judged=$(awk -F, 'NR > 1 && $7 == 0 && $8 ~ /^liar\// { n++ } END { print n + 0 }' "$R/candidates.csv")
[ "$liar_judged" -ge 1 ] && pass "the liar judged $liar_judged candidates" || fail "the liar judged nothing (the test proves nothing)"
grep -q "node liar gave wrong verdicts; it is out of this job" "$R/run.log" && pass "run.log names the liar" || fail "run.log does not name the liar"
grep -q "^verify: $dropped verdicts\? dropped as wrong; the reduction continues from the original" "$R/run.log" \
    && pass "run.log says the verdicts were dropped" || fail "run.log does not say the verdicts were dropped"
grep -q "^Verified: the reduced test fails the same way when built and run afresh ($dropped verdicts found wrong were dropped)" "$T/lied.out" \
    && pass "client console: verified, verdicts dropped" || { cat "$T/lied.out"; fail "client console does not say verdicts were dropped"; }
grep -q "^Fault check: fault not checked" "$T/lied.out" && pass "client console: fault not checked" || fail "client console: no fault line"
# Every candidate accepted after the restart was judged by the honest node.
last_liar=$(awk -F, 'NR > 1 && $8 ~ /^liar\// { n = $1 } END { print n + 0 }' "$R/candidates.csv")
late=$(awk -F, -v L="$last_liar" 'NR > 1 && $1 > L && $6 == "Preserved" && $7 == 0 && $8 !~ /^honest\// { n++ } END { print n + 0 }' "$R/candidates.csv")
check_eq "after the liar's last verdict, Preserved only from the honest node" "$late" 0

# A rerun on the same cache: the liar's verdicts are gone, nothing wrong is
# served from the cache, and the answer is the same.
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "rerun" > "$T/rerun.out" 2>&1 || { cat "$T/rerun.out"; fail "rerun"; }
R2=$(run_dir "$T/rerun")
check_eq "rerun: same answer" "$(cat "$R2/reduced.c")" "$(cat "$H/reduced.c")"
# Every verdict of the rerun comes from the cache, the honest node's: with
# the verify run on that node too, the client verifies it (issue 34).
[ "$(json "$R2/summary.json" .verified)" = true ] || grep -q "^Verified locally" "$T/rerun.out" \
    && pass "rerun: verified" || fail "rerun: not verified: $(cat "$T/rerun.out")"
# Every verdict names its node; `whittle cache forget --node liar` drops
# every verdict of the liar still in the log (those the verify step did not
# drop already); the honest node's stay. Latest line per key, as the cache
# reads the log:
latest() { awk '$1 !~ /^@/ { last[$1] = $0 } END { for (k in last) print last[k] }' "$T/vcache/verdicts.log"; }
liar_live=$(latest | grep -c ' node=liar$')
honest_live=$(latest | grep -c ' node=honest$')
liar_lines=$(grep -c ' node=liar$' "$T/vcache/verdicts.log")
[ "$liar_lines" -ge "$liar_judged" ] && pass "the liar's $liar_lines verdicts were stored as its own ($liar_live not dropped by the verify step)" \
    || fail "the liar judged $liar_judged candidates, $liar_lines verdicts stored as its own"
out=$("$WHITTLE" cache forget --node liar --cache "dir:$T/vcache" 2>&1); rc=$?
check_eq "cache forget --node liar" "$rc: $out" "0: forgot $liar_live verdicts of node liar in the embedded cache; generation 1"
check_eq "after forget: the liar's verdicts in the cache" "$(latest | grep -c ' node=liar$')" 0
check_eq "after forget: the honest node's verdicts in the cache" "$(latest | grep -c ' node=honest$')" "$honest_live"
stop_all

# The liar joins second: the honest node judges the first candidates and
# the liar the ones it can grab, mid-walk. Same answer.
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "dir:$T/vcache2" -v "${coord_keys[@]}" > "$T/coord2.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord2.log"
"$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/honest-node2" --id honest $(node_keys honest) > "$T/honest-node2.log" 2>&1 &
PIDS+=($!)
wait_slots 1
WH_TEST_LIE=preserved "$B/node/whittle-node-test" --connect "$EP" --slots 1 --workdir "$T/liar2" --id liar $(node_keys liar) > "$T/liar2.log" 2>&1 &
PIDS+=($!)
wait_slots 2
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out "lied2" > "$T/lied2.out" 2>&1 || { cat "$T/lied2.out"; fail "run with a liar joining second"; }
R3=$(run_dir "$T/lied2")
check_eq "liar second: answer = honest answer" "$(cat "$R3/reduced.c")" "$(cat "$H/reduced.c")"
check_eq "liar second: verified" "$(json "$R3/summary.json" .verified)" true
dropped=$(json "$R3/summary.json" .verdicts_dropped)
check_eq "liar second: Dropped lines = verdicts dropped" "$(grep -c ' Dropped$' "$T/vcache2/verdicts.log")" "$dropped"
liar_judged=$(awk -F, 'NR > 1 && $7 == 0 && $8 ~ /^liar\// { n++ } END { print n + 0 }' "$R3/candidates.csv")
[ "$liar_judged" -ge 1 ] && [ "$dropped" -ge "$liar_judged" ] && pass "liar second: the liar judged $liar_judged candidates, $dropped verdicts dropped" \
    || fail "liar second: the liar judged $liar_judged candidates, $dropped verdicts dropped"
stop_all
finish
