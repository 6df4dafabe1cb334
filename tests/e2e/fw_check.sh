#!/bin/bash
# The "check" preset on a Check 0.15 project (tests/fixtures/fw_check): five
# statements, the fourth a failing ck_assert_int_eq; whittle reads Check's XML
# log and keeps two statements. The reduced test, built and run on its own,
# fails with the original message at the original line.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/fw_check" "$P"
before=$(tree_digest "$P")
"$WHITTLE" reduce --project "$P" --file tests/test_temp.c --test test_converts_freezing \
    --setup "make -s" --build "make -s" --run "./test_temp" --framework check \
    --out "$T/runs" --cache memory: > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
msg="Assertion 'freezing == 32' failed: freezing == 23, 32 == 32"
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint kind" "$(json "$R/summary.json" .fingerprint.kind)" assert
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" "$msg"
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" "test_temp.c:13"
check_eq "no InfraError" "$(json "$R/summary.json" .verdicts.InfraError)" 0
want='START_TEST(test_converts_freezing)
{
    int freezing = c_to_f(0);
    ck_assert_int_eq(freezing, 32);
}'
check_eq "reduced test" "$(awk '/^START_TEST\(test_converts_freezing\)/,/^}/' "$R/reduced.c")" "$want"
check_eq "line-true line count" "$(wc -l < "$R/reduced.lines.c")" "$(wc -l < "$P/tests/test_temp.c")"

# The reduced test on its own, in a fresh copy: same message, same line.
V="$T/v"; cp -r "$FIX/fw_check" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_temp.c"
(cd "$V" && make -s >/dev/null 2>&1) || fail "reduced test does not build on its own"
(cd "$V" && CK_XML_LOG_FILE_NAME="$T/v.xml" ./test_temp > "$T/v.out" 2>&1)
grep -qxF "tests/test_temp.c:13:F:core:test_converts_freezing:0: $msg" "$T/v.out" \
    && pass "reduced test fails with the original fingerprint" \
    || { cat "$T/v.out"; fail "reduced test does not fail the same way"; }
grep -qF '<id>test_scale_is_linear</id>' "$T/v.xml" && grep -qF '<test result="success">' "$T/v.xml" \
    && pass "the other test still passes" || fail "the other test is gone or fails"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
