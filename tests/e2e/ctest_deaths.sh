#!/bin/bash
# reduce --from-ctest on one CTest program whose failures interfere (issue
# 33): the ctest_bag fixture's cmocka group, built with AddressSanitizer,
# where test_sum's assertion fails and then test_overflow is killed by an
# ASan report that aborts the whole program. The bug is an uncommitted
# change (ctest_bag_fixed is HEAD), so the fault is checked on HEAD.
#   1. each failure belongs to its own function: test_sum keeps its
#      assertion (not the other function's sanitizer report), and
#      test_overflow, killed mid-way, is reduced too; exit 0;
#   2. the fault is judged as CTest judges the whole test on HEAD, with
#      ASan's leak checker on: both answers keep bag_free (a naive answer
#      drops it, and the clean version's test program then leaks), and
#      `ctest` on clean HEAD with each reduced diff applied passes;
#   3. the set-up builds the test's target only: the fixture's slow_docs
#      target (in `all`, failing) is never built.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_bag" "$P"
cp "$FIX/ctest_bag_fixed/src/bag.c" "$P/src/bag.c"
git -C "$P" init -q && git -C "$P" add -A &&
    git -C "$P" -c user.email=t@t -c user.name=t commit -qm clean || fail "git"
cp "$FIX/ctest_bag/src/bag.c" "$P/src/bag.c"
(cd "$P" && cmake -S . -B build -G Ninja > /dev/null && cmake --build build --target test_bag > /dev/null) ||
    fail "fixture build"
(cd "$P" && ctest --test-dir build > /dev/null 2>&1) && fail "ctest passed on the seeded bugs"
(cd "$P" && "$WHITTLE" reduce --from-ctest build --out "$T/runs") > "$T/o" 2> "$T/e"
check_eq "exit" "$?" 0
cat "$T/o" "$T/e" >&2
check_eq "split line" "$(grep '^failing test' "$T/o")" \
    "failing test 'bag_tests' is the whole test program; its output (bracket) names 2 failing functions: test_sum, test_overflow (the program died while it ran)"
S=$(ls -d "$T"/runs/test_sum-*) O=$(ls -d "$T"/runs/test_overflow-*)
check_eq "test_sum: its own failure" \
    "$(json "$S/summary.json" '.fingerprint | .test + " | " + .kind + " | " + .location + " | " + .message')" \
    "test_sum | assert | test_bag.c:18 | 0x7 != 0x4"
check_eq "test_overflow: its own failure" \
    "$(json "$O/summary.json" '.fingerprint | .test + " | " + .kind + " | " + .location')" \
    "test_overflow | sanitizer(asan,heap-buffer-overflow,WRITE) | bag.c:20"
want_sum='static void test_sum(void **state)
{
    struct bag *b = bag_new(8);
    int expect = 0;
    bag_add(b, 3);
    expect += 3;
    bag_add(b, 4);
    expect += 4;
    assert_int_equal(expect, bag_sum(b));
    bag_free(b);
}'
want_over='static void test_overflow(void **state)
{
    struct bag *b = bag_new(2);
    bag_add(b, 1);
    bag_add(b, 2);
    bag_add(b, 5);
    bag_free(b);
}'
check_eq "test_sum reduced" "$(awk '/^static void test_sum/,/^}/' "$S/reduced.c")" "$want_sum"
check_eq "test_overflow reduced" "$(awk '/^static void test_overflow/,/^}/' "$O/reduced.c")" "$want_over"
for R in "$S" "$O"; do
    check_eq "$(basename "$R"): verified, fault kept" \
        "$(json "$R/summary.json" '"\(.verified) \(.fault.status)"')" "true kept"
    check_eq "$(basename "$R"): judged as the whole CTest test" "$(json "$R/job.json" .whole_test)" true
done
# Some candidate dropped bag_free and was refused on HEAD by the whole
# test's leak report.
for R in "$S" "$O"; do
    n=$(grep -c 'whole CTest test fails (exit status [0-9]* (sanitizer(lsan' "$R/run.log")
    [ "$n" -ge 1 ] && pass "$(basename "$R"): $n candidate(s) refused for a leak on the reference" ||
        fail "$(basename "$R"): no candidate refused for a leak on the reference"
done
# By hand: each reduced diff on clean HEAD, ctest green.
C="$T/clean"; git clone -q "$P" "$C"
for R in "$S" "$O"; do
    [ -s "$R/reduced.diff" ] || fail "$(basename "$R"): no reduced diff"
    (cd "$C" && git checkout -q . && patch -s -p1 < "$R/reduced.diff" &&
        cmake -S . -B build -G Ninja > /dev/null && cmake --build build --target test_bag > /dev/null &&
        ctest --test-dir build > "$T/ct" 2>&1)
    check_eq "$(basename "$R"): ctest on clean HEAD with the reduced diff" "$?" 0
done
# 3: slow_docs never built (it fails: a set-up that built it would have
# stopped the run), and the set-up names the test's target.
check_eq "set-up builds the test's target" "$(json "$S/job.json" .setup)" \
    "cmake -S '.' -B 'build' -G 'Ninja' && cmake --build 'build' --target 'test_bag'"
# A rerun of the same command costs what changed, here nothing: the kept
# workspaces need no set-up, the cache answers every candidate, and the
# answers' verification, claims and fault checks are the first run's.
(cd "$P" && "$WHITTLE" reduce --from-ctest build --out "$T/runs") > "$T/o2" 2> "$T/e2"
check_eq "rerun: exit" "$?" 0
check_eq "rerun: nothing built again" \
    "$(grep -c 'verified (by an earlier run of this job: nothing built again); fault kept' "$T/o2")" 2
for R in $(ls -td "$T"/runs/test_sum-* "$T"/runs/test_overflow-* | head -n2); do
    check_eq "rerun $(basename "$R"): built, set up" \
        "$(json "$R/summary.json" '"\(.evaluated) \(.warm.setups)"')" "0 0"
done
exit $((FAILS > 0))
