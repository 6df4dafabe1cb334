#!/bin/bash
# The ctest preset: a homegrown harness registered as one CTest test per
# function; ctest -R '^name$' --output-junit; the failure is read from the
# test's output in the JUnit report.
. "$(dirname "$0")/lib.sh"
# Paths with spaces: the project, the run folder and so every workspace.
P="$T/my queue"; cp -r "$FIX/ctest_queue" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_queue.c --test fifo_order \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run "ctest --test-dir build" --framework ctest --cache memory: --out "$T/my runs" > "$T/o" 2>&1 || { cat "$T/o"; fail "ctest run"; }
R=$(run_dir "$T/my runs")
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .location + " | " + .message')" "test_queue.c:27 | expected 10 but was 20"
want='static void fifo_order(void)
{
    struct queue q = {{0}, 0, 0};
    queue_put(&q, 20);
    EXPECT_EQ(10, queue_get(&q));
}'
check_eq "reduced test" "$(awk '/^static void fifo_order/,/^}/' "$R/reduced.c")" "$want"
"$WHITTLE" reduce --project "$P" --file tests/test_queue.c --test starts_empty \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run "ctest --test-dir build" --framework ctest --cache memory: --out "$T/runs2" > "$T/o2" 2> "$T/e2"
grep -q "original test passes: starts_empty" "$T/e2" && pass "a passing ctest test is refused" || fail "passing test: $(cat "$T/e2")"
finish
