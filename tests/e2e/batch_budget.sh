#!/bin/bash
# --batch-budget (issue 35): a budget for a whole batch of failures. The
# ctest_night fixture (9 failing tests, 4 root causes; a copy) reduced on
# one slot with --batch-budget builds=12: the 9 first runs count one build
# each, so 3 walk builds are left. The largest group (test_scale_ten's,
# 4 failures) goes first and stops with its best answer so far: partial,
# verified afresh, its members answered by it; the 3 groups not started
# are skipped with the reason, in the closing summary and in night.json;
# exit status 6; the project is never written to. Then a budget the first
# runs spend alone (builds=1: every group skipped), and bad values.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_night" "$P"
B="$T/b"
cmake -S "$P" -B "$B" -G Ninja > /dev/null && cmake --build "$B" > /dev/null || { fail "fixture build"; finish; }
ctest --test-dir "$B" > /dev/null 2>&1 && fail "ctest passed on the seeded bugs"
digest=$(tree_digest "$P")

"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$T/o" --jobs 1 \
    --batch-budget builds=12 > "$T/o.out" 2> "$T/o.err"; rc=$?
check_eq "builds=12: exit status" "$rc" 6
check_eq "builds=12: stderr" "$(cat "$T/o.err")" ""
grep -q "^Batch budget: batch budget builds=12 spent: 1[23] builds of the batch; " "$T/o.out" \
    && pass "builds=12: said when it was spent" || { cat "$T/o.out"; fail "builds=12: no 'Batch budget:' line"; }
N="$T/o/night.json"
check_eq "night.json: the largest group goes first" \
    "$(json "$N" '.groups[] | select(.priority == 1) | [.representative, (.members | length)] | join(" ")')" \
    "test_scale_ten 4"
check_eq "night.json: it stopped with its best answer so far" \
    "$(json "$N" '.groups[] | select(.priority == 1) | .state')" partial
R=$(ls -d "$T/o"/test_scale_ten-*/ | sed 's:/$::')
case "$(json "$R/summary.json" .partial)" in
    "batch budget builds=12 spent: "*) pass "summary.json: partial: $(json "$R/summary.json" .partial)" ;;
    *) fail "summary.json: partial is '$(json "$R/summary.json" .partial)'" ;;
esac
check_eq "the partial answer is verified afresh" "$(json "$R/summary.json" .verified)" true
walk=$(json "$R/summary.json" .evaluated)
[ "$walk" -ge 1 ] && [ "$walk" -le 4 ] && pass "its walk built $walk (3 left after the 9 first runs, one in flight)" \
    || fail "its walk built $walk, want 1..4"
check_eq "night.json: the other groups skipped, in their order" \
    "$(json "$N" '[.groups[] | select(.priority > 1)] | sort_by(.priority) | map(.representative + ":" + .state) | join(" ")')" \
    "test_last_loop:skipped test_scale_huge:skipped test_max_own:skipped"
check_eq "night.json: every skipped failure says why" \
    "$(json "$N" '[.tests[] | select(.state == "skipped") | .why | startswith("batch budget spent")] | unique | join(",")')" true
check_eq "night.json: the skipped failures (groups and members)" \
    "$(json "$N" '[.tests[] | select(.state == "skipped") | .test] | sort | join(" ")')" \
    "test_last_four test_last_loop test_last_three test_max_own test_scale_huge"
check_eq "night.json: the partial group's members answered" \
    "$(json "$N" '[.tests[] | select(.state == "answered") | .test] | sort | join(" ")')" \
    "test_scale_four test_scale_loop test_scale_three"
check_eq "one run folder: the group reduced" \
    "$(cd "$T/o" && ls -d */ | grep -v '^latest/$' | sed 's/-[0-9]*-[0-9]*\/$//' | tr '\n' ' ')" "test_scale_ten "
for t in test_last_loop test_scale_huge test_max_own; do
    grep -q "^  $t (tests/test_night.c): skipped: batch budget spent (builds=12 spent: " "$T/o.out" \
        && pass "summary: $t skipped" || fail "summary: no 'skipped: batch budget spent' line for $t"
done
grep -q "^  test_last_three (tests/test_night.c): grouped with test_last_loop, skipped with it: batch budget spent" "$T/o.out" \
    && pass "summary: a member of a skipped group is skipped with it" || fail "summary: test_last_three"
grep -q "^  test_scale_ten (tests/test_night.c): partial (budget spent): " "$T/o.out" \
    && pass "summary: test_scale_ten partial" || fail "summary: test_scale_ten not partial"
grep -q "^Exit status 6: " "$T/o.out" && pass "the closing says exit status 6" || fail "no 'Exit status 6' line"
[ "$(grep -o '<td><span class="st skipped">skipped</span></td>' "$T/o/night.html" | wc -l)" = 5 ] \
    && pass "night.html: 5 skipped rows" || fail "night.html: not 5 skipped rows"
check_eq "the project is unchanged" "$(tree_digest "$P")" "$digest"

# ---- builds=1: the first runs spend it; nothing is reduced ----
"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$T/one" --jobs 1 \
    --batch-budget builds=1 > "$T/one.out" 2>&1; rc=$?
check_eq "builds=1: exit status" "$rc" 6
check_eq "builds=1: every failure skipped" "$(json "$T/one/night.json" '[.tests[].state] | unique | join(",")')" skipped
check_eq "builds=1: no reduction" "$(cd "$T/one" && ls -d */ 2>/dev/null | grep -vc '^latest/$')" 0
check_eq "the project is unchanged" "$(tree_digest "$P")" "$digest"

# ---- bad values, and where it does not belong ----
for bad in builds=0 builds=x time=5x ""; do
    out=$("$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$T/bad" \
        --batch-budget "$bad" 2>&1 >/dev/null); rc=$?
    check_eq "--batch-budget '$bad': exit $rc, one line" "$rc: $out" \
        "2: whittle: error: --batch-budget '$bad': want builds=N (1 to 1000000) or time=DURATION (90s, 30m, 2h, 1h30m; at most 30d), or both joined by a comma"
done
out=$("$WHITTLE" reduce --project "$P" --file tests/test_night.c --test test_max_own --out "$T/bad" \
    --batch-budget builds=3 2>&1 >/dev/null); rc=$?
check_eq "--batch-budget for one job: refused" "$rc: $out" \
    "2: whittle: error: --batch-budget is for a batch (--from-ctest, --from-junit); one job takes --budget"
# Through a cluster: tests/e2e/cluster_night.sh.
[ -e "$T/bad" ] && fail "a refused batch budget made a run folder" || pass "a refused batch budget made no run folder"
finish
