#!/bin/bash
# The console preset on a homegrown harness that prints
# "file.c:59: expected <1> but was <0>" and cannot run one test: the regex
# has no test group, so the first failure is the target's. 5 statements, 2
# needed; the fingerprint's location is basename:line of the check.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_expected" "$P"
before=$(tree_digest "$P")
"$WHITTLE" reduce --project "$P" --file tests/test_conv.c --test test_to_fahrenheit \
    --setup "make -s" --build "make -s" --run "./test_conv" --framework console \
    --failure-regex '(?<file>[[:alnum:]_/.-]+\.c):(?<line>[0-9]+): (?<message>expected <[^>]*> but was <[^>]*>)' \
    --pass-regex '^ALL TESTS PASSED$' \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint test" "$(json "$R/summary.json" .fingerprint.test)" test_to_fahrenheit
check_eq "fingerprint kind" "$(json "$R/summary.json" .fingerprint.kind)" assert
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" test_conv.c:17
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" 'expected <212> but was <211>'
want='static void test_to_fahrenheit(void)
{
    int boiling = to_fahrenheit(100);
    EXPECT_INT(212, boiling);
}'
check_eq "reduced test" "$(awk '/^static void test_to_fahrenheit/,/^}/' "$R/reduced.c")" "$want"
grep -q ',Preserved,' "$R/candidates.csv" && pass "some candidate preserved" || fail "no candidate preserved"
grep -q ',TestPassed,' "$R/candidates.csv" && pass "pass regex seen" || fail "no TestPassed verdict"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
# A regex that does not compile is refused before anything runs, naming it.
"$WHITTLE" reduce --project "$P" --file tests/test_conv.c --test test_to_fahrenheit \
    --build "make -s" --run "./test_conv" --framework console --failure-regex '(unclosed' \
    --cache memory: --out "$T/bad" > "$T/bad.out" 2>&1 && fail "bad regex accepted"
grep -q "failure-regex '(unclosed'" "$T/bad.out" && pass "bad regex named" || { cat "$T/bad.out"; fail "bad regex not named"; }
finish
