#!/bin/bash
# aws-c-common's harness shape: AWS_TEST_CASE(test_bag_sum_two,
# s_test_bag_sum_fn) registers the function as the test test_bag_sum_two
# (the name whittle runs it by), but a failure names the function. A
# --failure-regex whose test group captures the function is the test's own
# failure (issue 33 item 7); a regex that matched another test is never said
# to have "matched nothing".
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_aws" "$P"
FRX='^\*\*\*FAILURE\*\*\* (?<test>\w+): (?<message>.*) \((?<file>[^:]+):(?<line>[0-9]+)\)$'
"$WHITTLE" reduce --project "$P" --file tests/test_bag.c --test s_test_bag_sum_fn \
    --setup "make -s" --build "make -s" --run "./test_bag {test}" --framework console \
    --failure-regex "$FRX" --pass-regex '^PASS (?<test>\w+)$' \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce (regex naming the function)"; }
R=$(run_dir "$T/runs")
check_eq "fingerprint test" "$(json "$R/summary.json" .fingerprint.test)" test_bag_sum_two
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" test_bag.c:21
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" 'want 9, got 5'
want='static int s_test_bag_sum_fn(void *ctx)
{
    struct bag b = {0};
    bag_put(&b, 4);
    bag_put(&b, 5);
    ASSERT_INT_EQ(9, bag_sum(&b));
    return 0;
}'
check_eq "reduced test" "$(awk '/^static int s_test_bag_sum_fn/,/^}/' "$R/reduced.c")" "$want"

# A regex that matches only another test's line: it matched, so the error
# says what it matched and which test it named, never "matched nothing".
rc=0
"$WHITTLE" reduce --project "$P" --file tests/test_bag.c --test test_bag_sum_two \
    --setup "make -s" --build "make -s" --run "./test_bag {test}; ./test_bag test_bag_empty" \
    --framework console --failure-regex '^PASS (?<test>\w+)$' \
    --cache memory: --out "$T/runs2" > "$T/out2" 2>&1 || rc=$?
check_eq "exit (regex naming another test)" "$rc" 3
if grep -q "matched nothing" "$T/out2"; then fail "said 'matched nothing':"; cat "$T/out2"; fi
grep -q "^whittle: error: the failure of test_bag_sum_two is not identified: --failure-regex '^PASS (?<test>\\\\w+)\$' matched 'PASS s_test_bag_empty_fn', whose test group names s_test_bag_empty_fn, not test_bag_sum_two (nor s_test_bag_sum_fn)" "$T/out2" \
    && pass "names what it matched and the test" || { cat "$T/out2"; fail "the error names what the regex matched"; }
finish
