#!/bin/bash
# The "criterion" preset on a Criterion 2.4 project (tests/fixtures/
# fw_criterion): five statements; cr_expect is non-fatal, so the original
# fails twice (lines 13 and 14; the XML lists them last-first) and the first
# failure is the identity. Whittle runs only the target (--filter) and reads
# --xml; it keeps two statements, and the reduced test fails the same way.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/fw_criterion" "$P"
before=$(tree_digest "$P")
"$WHITTLE" reduce --project "$P" --file tests/test_temp.c --test temp::converts_freezing \
    --setup "make -s" --build "make -s" --run "./test_temp" --framework criterion \
    --out "$T/runs" --cache memory: > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
msg="The expression (freezing) == (32) is false."
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint kind" "$(json "$R/summary.json" .fingerprint.kind)" assert
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" "$msg"
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" "test_temp.c:13"
check_eq "no InfraError" "$(json "$R/summary.json" .verdicts.InfraError)" 0
want='Test(temp, converts_freezing)
{
    int freezing = c_to_f(0);
    cr_expect_eq(freezing, 32);
}'
check_eq "reduced test" "$(awk '/^Test\(temp, converts_freezing\)/,/^}/' "$R/reduced.c")" "$want"
check_eq "line-true line count" "$(wc -l < "$R/reduced.lines.c")" "$(wc -l < "$P/tests/test_temp.c")"
# Only the target ran: the other test is listed as skipped.
grep -q '<testcase name="scale_is_linear" assertions="0" status="SKIPPED"' "$R/reports/original.report" \
    && pass "the filter ran only the target" || fail "the filter did not apply"

# The reduced test on its own, in a fresh copy: one failed assertion, same line, same text.
V="$T/v"; cp -r "$FIX/fw_criterion" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_temp.c"
(cd "$V" && make -s >/dev/null 2>&1) || fail "reduced test does not build on its own"
(cd "$V" && ./test_temp --filter='temp/converts_freezing' > "$T/v.out" 2>&1)
check_eq "failed assertions" "$(grep -c 'Assertion Failed' "$T/v.out")" 1
grep -qxF '[----] tests/test_temp.c:13: Assertion Failed' "$T/v.out" && grep -qF "$msg" "$T/v.out" \
    && pass "reduced test fails with the original fingerprint" \
    || { cat "$T/v.out"; fail "reduced test does not fail the same way"; }
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
