#!/bin/bash
# The "cunit" preset on a CUnit 2.1 project (tests/fixtures/fw_cunit): five
# statements; CU_ASSERT is non-fatal, so the original fails twice (lines 15
# and 16) and the first failure is the identity. The runner exits 0 and
# writes "$WHITTLE_REPORT-Results.xml" (automated mode). Whittle keeps two
# statements; the reduced test fails once, at line 15, the same way.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/fw_cunit" "$P"
before=$(tree_digest "$P")
"$WHITTLE" reduce --project "$P" --file tests/test_temp.c --test test_converts_freezing \
    --setup "make -s" --build "make -s" --run "./test_temp" --framework cunit \
    --out "$T/runs" --cache memory: > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint kind" "$(json "$R/summary.json" .fingerprint.kind)" assert
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" "CU_ASSERT_EQUAL(freezing,32)"
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" "test_temp.c:15"
check_eq "no InfraError" "$(json "$R/summary.json" .verdicts.InfraError)" 0
want='static void test_converts_freezing(void)
{
    int freezing = c_to_f(0);
    CU_ASSERT_EQUAL(freezing, 32);
}'
check_eq "reduced test" "$(awk '/^static void test_converts_freezing/,/^}/' "$R/reduced.c")" "$want"
check_eq "line-true line count" "$(wc -l < "$R/reduced.lines.c")" "$(wc -l < "$P/tests/test_temp.c")"
grep -q '<CUNIT_RUN_TEST_RECORD>' "$R/reports/original.report" \
    && pass "the CUnit report is recorded" || fail "no CUnit report in the record"

# The reduced test on its own, in a fresh copy: one failure, same condition, same line.
V="$T/v"; cp -r "$FIX/fw_cunit" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_temp.c"
(cd "$V" && make -s >/dev/null 2>&1) || fail "reduced test does not build on its own"
(cd "$V" && WHITTLE_REPORT="$T/v" ./test_temp > "$T/v.out" 2>&1)
X="$T/v-Results.xml"
check_eq "failure records" "$(grep -c '<CUNIT_RUN_TEST_FAILURE>' "$X")" 1
grep -qF '<LINE_NUMBER> 15 </LINE_NUMBER>' "$X" && grep -qF '<CONDITION> CU_ASSERT_EQUAL(freezing,32) </CONDITION>' "$X" \
    && pass "reduced test fails with the original fingerprint" \
    || { cat "$X"; fail "reduced test does not fail the same way"; }
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
