#!/bin/bash
# Found on libcbor (issue 33): a test that reaches <cmocka.h> only through
# the project's own header is a cmocka test (not junit: "no report"), and a
# test killed by the C library's assert() in the code under test (SIGABRT,
# no sanitizer report) fails at the assertion's line, not as a bare crash
# that identifies nothing.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/abort_assert" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_stock.c --test test_take_last \
    --setup "make -s" --build "make -s" --run ./test_stock \
    --out "$T/runs" --cache memory: > "$T/out" 2>&1
check_eq "exit" "$?" 0
check_eq "framework line" "$(grep '^framework:' "$T/out")" \
    "framework: cmocka (from the test file's includes; --framework to choose another)"
R=$(run_dir "$T/runs")
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .kind + " | " + .location + " | " + .message')" \
    "assert | stock.c:10 | Assertion \`s->n < 4 && \"no unit past the last\"' failed."
want='static void test_take_last(void **state)
{
    struct stock s = {{0}, 0};
    int taken = 0;
    stock_put(&s, 5);
    stock_put(&s, 7);
    stock_put(&s, 9);
    stock_put(&s, 11);
    taken = stock_take(&s);
}'
check_eq "reduced test" "$(awk '/^static void test_take_last/,/^}/' "$R/reduced.c")" "$want"
exit $((FAILS > 0))
