#!/bin/bash
# The "unity" preset, which reads Unity's console grammar. Unity itself is
# not installed on the build image and whittle vendors nothing: the fixture
# (tests/fixtures/fw_unity) runs its tests with tests/mini_unity.h, a few
# lines that print that grammar. Five statements, the fourth fails
# ("Expected 32 Was 23"); whittle keeps two, and the reduced test fails the
# same way at the same line.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/fw_unity" "$P"
before=$(tree_digest "$P")
"$WHITTLE" reduce --project "$P" --file tests/test_temp.c --test test_converts_freezing \
    --setup "make -s" --build "make -s" --run "./test_temp" --framework unity \
    --out "$T/runs" --cache memory: > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint kind" "$(json "$R/summary.json" .fingerprint.kind)" assert
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" "Expected 32 Was 23"
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" "test_temp.c:12"
check_eq "no InfraError" "$(json "$R/summary.json" .verdicts.InfraError)" 0
want='void test_converts_freezing(void)
{
    int freezing = c_to_f(0);
    TEST_ASSERT_EQUAL_INT(32, freezing);
}'
check_eq "reduced test" "$(awk '/^void test_converts_freezing/,/^}/' "$R/reduced.c")" "$want"
check_eq "line-true line count" "$(wc -l < "$R/reduced.lines.c")" "$(wc -l < "$P/tests/test_temp.c")"

# The reduced test on its own, in a fresh copy.
V="$T/v"; cp -r "$FIX/fw_unity" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_temp.c"
(cd "$V" && make -s >/dev/null 2>&1) || fail "reduced test does not build on its own"
(cd "$V" && ./test_temp > "$T/v.out" 2>&1)
grep -qxF 'tests/test_temp.c:12:test_converts_freezing:FAIL: Expected 32 Was 23' "$T/v.out" \
    && pass "reduced test fails with the original fingerprint" \
    || { cat "$T/v.out"; fail "reduced test does not fail the same way"; }
grep -qF ':test_scale_is_linear:PASS' "$T/v.out" && pass "the other test still passes" \
    || fail "the other test is gone or fails"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
