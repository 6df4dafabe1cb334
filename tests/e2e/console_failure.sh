#!/bin/bash
# The console preset on a harness printing
# "***FAILURE*** Expected … [s_test_fn(): file.c:331]" for every test of the
# binary: the target is picked out by its test group; 5 statements, 2 needed.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_failure" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_slug.c --test s_test_slug_blanks \
    --setup "make -s" --build "make -s" --run "./test_slug" --framework console \
    --failure-regex '\*\*\*FAILURE\*\*\* (?<message>.*) \[(?<test>[[:alnum:]_]+)\(\): (?<file>[^]:]+):(?<line>[0-9]+)\]' \
    --pass-regex '^PASS (?<test>[[:alnum:]_]+)$' \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint test" "$(json "$R/summary.json" .fingerprint.test)" s_test_slug_blanks
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" test_slug.c:16
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" 'Expected "a-b" but got "a--b"'
want='static void s_test_slug_blanks(void)
{
    char buf[64];
    ASSERT_STR("a-b", slug(buf, sizeof buf, "a  b"));
}'
check_eq "reduced test" "$(awk '/^static void s_test_slug_blanks/,/^}/' "$R/reduced.c")" "$want"
# The other test still passes in the reduced file (picked out by name).
grep -q 'ASSERT_STR("abc", slug(buf, sizeof buf, "ABC"));' "$R/reduced.c" \
    && pass "other test untouched" || fail "other test changed"
finish
