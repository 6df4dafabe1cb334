#!/bin/bash
# A project's own assertion helper (issue 33, item 7): every failing
# check_equal fails at the helper's line (checks.c:14, "Failure!"), and the
# helper prints the call site and the values on the line before. That line
# is part of the fingerprint: the call site its location, the values its
# message. Without it, a candidate with an empty meter ("want 10, got 0")
# failed "the same way" and the answer lost the fault (no reference here:
# nothing else would have caught it).
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/helper_assert" "$P"
reduce_meter() { # test out-folder: reduces it, R its run folder
    "$WHITTLE" reduce --project "$P" --file tests/test_meter.c --test "$1" \
        --setup "make -s" --build "make -s" --run ./test_meter --framework cmocka \
        --out "$T/$2" --cache memory: > "$T/$2.out" 2>&1 || { cat "$T/$2.out"; fail "reduce $1"; }
    R=$(run_dir "$T/$2")
}
reduce_meter test_meter_total runs
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .location + " | " + .message')" \
    "test_meter.c:24 | want 10, got 4 | Failure!"
want='static void test_meter_total(void **state)
{
    struct meter m = {{0}, 0};
    meter_add(&m, 4);
    meter_add(&m, 6);
    check_equal(10, meter_total(&m));
}'
check_eq "reduced test" "$(awk '/^static void test_meter_total/,/^}/' "$R/reduced.c")" "$want"
# The first check failing instead (no count++) is another failure.
grep -q "DifferentFailure" "$R/candidates.csv" && pass "a check failing at another call site is a different failure" ||
    fail "no candidate was a different failure"
# The same through cmocka's fail_msg(), which cmocka prints as its own
# "[  ERROR   ] --- (file:line) ..." line (libcbor's assertions.c).
reduce_meter test_meter_count runs2
R2=$R
check_eq "fail_msg fingerprint" "$(json "$R2/summary.json" '.fingerprint | .location + " | " + .message')" \
    "test_meter.c:37 | want 7, got 5 | Failure!"
want2='static void test_meter_count(void **state)
{
    struct meter m = {{0}, 0};
    meter_add(&m, 5);
    meter_add(&m, 2);
    check_same(7, meter_total(&m));
}'
check_eq "fail_msg reduced test" "$(awk '/^static void test_meter_count/,/^}/' "$R2/reduced.c")" "$want2"
exit $((FAILS > 0))
