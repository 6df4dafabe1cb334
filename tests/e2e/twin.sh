#!/bin/bash
# The thesis's DelayTest1: two asserts fail with the same message at
# different lines. With the default fingerprint (message + location) the
# reduced test still fails at the original assert's line; with
# --match message the reduction slides to the other assert. Both runs walk
# --ddmin classic: the slide is the thesis's Algorithm 1 trajectory (the
# chunked walk, which tries the later statements first, keeps line 21 with
# either fingerprint: also 1-tree-minimal, just another minimum).
. "$(dirname "$0")/lib.sh"
P="$T/twin"; cp -r "$FIX/twin_assert" "$P"
args=(--project "$P" --file tests/test_twin.c --test test_reset_restores_start --setup "make -s"
      --build "make -s" --run ./test_twin --framework cmocka --cache memory: --ddmin classic)
"$WHITTLE" reduce "${args[@]}" --out "$T/full" > "$T/o1" 2>&1 || { cat "$T/o1"; fail "default run"; }
R=$(run_dir "$T/full")
check_eq "default: fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" "test_twin.c:21"
check_eq "default: the failing assert stays on line 21" "$(sed -n 21p "$R/reduced.lines.c" | tr -s ' ')" " assert_int_equal(1, counter_value(c));"
check_eq "default: the other assert (line 18) is gone" "$(sed -n 18p "$R/reduced.lines.c" | tr -d ' ')" ""
grep -q DifferentFailure "$R/candidates.csv" && pass "default: the slide was seen and rejected as DifferentFailure" || fail "default: no DifferentFailure"
V="$T/v"; cp -r "$FIX/twin_assert" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_twin.c"
(cd "$V" && make -s >/dev/null 2>&1 && CMOCKA_MESSAGE_OUTPUT=xml CMOCKA_XML_FILE="$V/r.xml" ./test_twin >/dev/null 2>&1)
grep -q "test_twin.c:21: error" "$V/r.xml" && pass "default: reduced test fails at line 21 on its own" || fail "default: reduced test does not fail at line 21"

"$WHITTLE" reduce "${args[@]}" --match message --out "$T/msg" > "$T/o2" 2>&1 || { cat "$T/o2"; fail "message run"; }
R2=$(run_dir "$T/msg")
check_eq "--match message: the reduced test fails at line 18 instead" "$(sed -n 18p "$R2/reduced.lines.c" | tr -s " ")" " assert_int_equal(1, counter_start(c));"
check_eq "--match message: line 21 is gone" "$(sed -n 21p "$R2/reduced.lines.c" | tr -d ' ')" ""
echo "default:         $(grep -c . "$R/reduced.c") lines; --match message: $(grep -c . "$R2/reduced.c") lines" >&2
finish
