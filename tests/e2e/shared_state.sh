#!/bin/bash
# A candidate that adds a failure is not Preserved (issue 33), in a job that
# is a whole CTest test's function: test_scaled
# sets `ready`, which test_ready (run by the same cmocka group) asserts.
# Without `ready = 1` test_scaled still fails the same way, but test_ready
# fails too; that candidate is a different failure, and the answer keeps
# the statement. No reference here (not a git project): the whole group's
# other failures are what tells.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/shared_state" "$P"
# The program is one CTest test ("whole_test", as reduce --from-ctest
# makes its split functions' jobs): CTest judges all of it.
jq -n --arg p "$P" '{project: $p, file: "tests/test_scale.c", test: "test_scaled",
    setup: "make -s", build: "make -s", run: "./test_scale", framework: "cmocka",
    whole_test: true}' > "$T/job.json"
"$WHITTLE" reduce --config "$T/job.json" --out "$T/runs" --cache memory: > "$T/out" 2>&1 ||
    { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
want='static void test_scaled(void **state)
{
    int v = 3;
    ready = 1;
    int w = scale(v, 4);
    assert_int_equal(12, w);
}'
check_eq "reduced test" "$(awk '/^static void test_scaled/,/^}/' "$R/reduced.c")" "$want"
grep -q "adds one: test_ready now fails too" "$R/run.log" &&
    pass "the candidate without ready = 1 adds a failure" || fail "no failure added was seen"
check_eq "the original's other failures" "$(jq -r '.others // "none"' "$R/fingerprint.json")" ""
exit $((FAILS > 0))
