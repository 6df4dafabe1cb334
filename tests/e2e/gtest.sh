#!/bin/bash
# The gtest preset on a C++ GoogleTest fixture (CMake): range-for and a
# lambda with a block body are Tree statements; the reduced test fails with
# the original fingerprint on its own.
. "$(dirname "$0")/lib.sh"
P="$T/stack"; cp -r "$FIX/gtest_stack" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_stack.cc --test Stack.TopIsLastPushed \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run build/test_stack --framework gtest --jobs 2 --cache memory: --out "$T/runs" > "$T/o" 2>&1 || { cat "$T/o"; fail "gtest run"; }
R=$(run_dir "$T/runs")
check_eq "tree before" "$(json "$R/summary.json" .tree_before)" 2
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .test + " | " + .location + " | " + .message')" \
    "Stack.TopIsLastPushed | test_stack.cc:22 | Expected equality of these values: 3 s.top() Which is: 1"
want='TEST(Stack, TopIsLastPushed)
{
    Stack s;
    std::vector<int> values{1, 2, 3};
    for (int v : values) {
        s.push(v);
    }
    EXPECT_EQ(3, s.top());
}'
check_eq "reduced test" "$(awk '/^TEST\(Stack, TopIsLastPushed\)/,/^}/' "$R/reduced.cc")" "$want"
V="$T/v"; cp -r "$FIX/gtest_stack" "$V"; cp "$R/reduced.lines.cc" "$V/tests/test_stack.cc"
(cd "$V" && cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null && build/test_stack --gtest_filter=Stack.TopIsLastPushed --gtest_output=xml:"$V/r.xml" >/dev/null 2>&1)
grep -q 'test_stack.cc:22' "$V/r.xml" && grep -q 'Which is: 1' "$V/r.xml" && pass "reduced test fails the same way on its own" || fail "reduced test does not fail the same way"
finish
