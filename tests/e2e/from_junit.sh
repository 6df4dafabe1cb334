#!/bin/bash
# whittle reduce --from-junit: the ctest_purse fixture, whose purse_take
# takes every amount twice, so take_half and take_twice both trip the
# library's invariant (one root cause) and add_only passes. ctest's own
# JUnit report of the broken build names the two; whittle reduces each as
# its own job on one pool and cache (two run folders) and prints one group.
# Then the same with cmocka's own report of the farm fixture.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_purse" "$P"
(cp -r "$P" "$T/q" && cd "$T/q" && cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null &&
    ctest --test-dir build --output-junit "$T/report.xml" >/dev/null 2>&1)
check_eq "failing cases in the report" "$(grep -c 'status="fail"' "$T/report.xml")" 2
# {test} in --build and $WHITTLE_TEST name each job's test.
args=(--project "$P" --file 'tests/*.c' --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build && echo {test}=\$WHITTLE_TEST >> '$T/built'"
      --run "ctest --test-dir build" --framework ctest --jobs 2 --out "$T/runs"
      --each) # every failing test reduced (e2e_night groups them first)
"$WHITTLE" reduce --from-junit "$T/report.xml" "${args[@]}" > "$T/o" 2> "$T/e" ||
    { cat "$T/o" "$T/e"; fail "from-junit exit"; }
cat "$T/o" >&2
check_eq "failing tests line" "$(head -n1 "$T/o")" "$T/report.xml: 2 failing tests"
check_eq "run folders" "$(ls "$T/runs" | grep -v '^latest$' | grep -v '^night[.]' | sed 's/-[0-9-]*$//' | tr '\n' ' ')" \
    "take_half take_twice "
for t in take_half:8:30 take_twice:7:50; do
    IFS=: read -r name before amount <<< "$t"
    R=$(ls -d "$T/runs/$name"-*)
    check_eq "$name statements" "$(json "$R/summary.json" '"\(.statements_before) -> \(.statements_after)"')" \
        "$before -> 2"
    check_eq "$name fingerprint" "$(json "$R/summary.json" '.fingerprint | .location + " | " + .message')" \
        "purse.c:11 | invariant broken: balance below zero"
    check_eq "$name reduced" "$(awk "/^static void $name/,/^}/" "$R/reduced.c" | tr '\n' ' ' | tr -s ' ')" \
        "static void $name(void) { struct purse p = {0, 0}; purse_take(&p, $amount); } "
done
check_eq "build saw {test} and WHITTLE_TEST" "$(sort -u "$T/built" | tr '\n' ' ')" \
    "take_half=take_half take_twice=take_twice "
check_eq "groups line" "$(grep '^Groups' "$T/o")" "Groups (one root cause each): 2 runs, 1 groups"
check_eq "group members" "$(grep -A2 '^group 1:' "$T/o" | tail -n2 | sed 's/-[0-9-]* / /' | tr '\n' ' ')" \
    "  take_half (take_half)   take_twice (take_twice) "
# whittle group on the --out folder skips the latest link.
check_eq "latest link" "$([ -L "$T/runs/latest" ] && echo yes)" yes
check_eq "group skips latest" "$("$WHITTLE" group "$T/runs" | head -n1)" "2 runs, 1 groups"
# A failing case no test file defines is named, skipped, and fails the run;
# the others are still reduced (from the cache now: 0 evaluated).
sed 's:<testcase name="add_only":<testcase name="gone"><failure message="x"/></testcase>&:' \
    "$T/report.xml" > "$T/report3.xml"
"$WHITTLE" reduce --from-junit "$T/report3.xml" "${args[@]}" > "$T/o3" 2> "$T/e3"
check_eq "exit with a missing test" "$?" 1
check_eq "missing test named" "$(cat "$T/e3")" \
    "whittle: error: failing test 'gone' is defined in no file matching 'tests/*.c'; skipped"
check_eq "others reduced" "$(grep -c ': reduced test (' "$T/o3")" 2
# A case named like a test file (CTest's whole-program tests, cJSON's
# "misc_tests") is not a function: the message says so and how to go on.
printf '<testsuite><testcase name="test_purse"><failure message="x"/></testcase></testsuite>\n' > "$T/report4.xml"
"$WHITTLE" reduce --from-junit "$T/report4.xml" "${args[@]}" > "$T/o4" 2> "$T/e4"
check_eq "exit with a whole program" "$?" 1
check_eq "whole program named" "$(cat "$T/e4")" \
    "whittle: error: failing test 'test_purse' is the whole test program tests/test_purse.c, not a function of it: reduce its failing function with --file tests/test_purse.c --test NAME (the program's output names it); skipped"
check_eq "rerun evaluated" "$(for R in $(sed -n 's/.*: run folder //p' "$T/o3"); do json "$R/summary.json" .evaluated; done | tr '\n' ' ')" "0 0 "
# cmocka's own report (CMOCKA_MESSAGE_OUTPUT=xml) of the farm fixture with
# shop_find missing the last item: test_price_last and test_restock_last
# die of one NULL dereference; the test file is the test_shop.c glob.
F="$T/farm"; cp -r "$FIX/farm" "$F"
sed -i '/^const struct item \*shop_find/,/^}/ s/i < s->n;/i < s->n - 1;/' "$F/src/shop.c"
(cp -r "$F" "$T/fq" && cd "$T/fq" && make -s >/dev/null 2>&1 &&
    CMOCKA_MESSAGE_OUTPUT=xml CMOCKA_XML_FILE="$T/cmocka.xml" ./test_shop >/dev/null 2>&1)
"$WHITTLE" reduce --from-junit "$T/cmocka.xml" --project "$F" --file 'tests/test_*.c' --setup "make -s" \
    --build "make -s" --run ./test_shop --framework cmocka --jobs 2 --out "$T/fruns" --each > "$T/fo" 2> "$T/fe" ||
    { cat "$T/fo" "$T/fe"; fail "cmocka from-junit exit"; }
check_eq "cmocka: failing tests line" "$(head -n1 "$T/fo")" "$T/cmocka.xml: 2 failing tests"
for t in test_price_last:"assert_int_equal(30, shop_price(&s, 3));" \
         test_restock_last:"int before = shop_find(&s, 8)->qty;"; do
    name=${t%%:*} stmt=${t#*:}
    R=$(ls -d "$T/fruns/$name"-*)
    check_eq "cmocka: $name statements" \
        "$(json "$R/summary.json" '"\(.statements_before) -> \(.statements_after) \(.fingerprint.kind)"')" \
        "6 -> 2 crash(SIGSEGV)"
    check_eq "cmocka: $name reduced" "$(awk "/^static void $name/,/^}/" "$R/reduced.c" | sed 's: */\*.*::' | tr '\n' ' ' | tr -s ' ')" \
        "static void $name(void **state) { struct shop s = {0}; $stmt } "
done
check_eq "cmocka: one crash group" "$(grep -A3 '^Groups' "$T/fo" | sed 's/-[0-9-]* / /' | tr '\n' '|')" \
    "Groups (one root cause each): 2 runs, 1 groups|group 1: crash(SIGSEGV) |  | Test failed with exception: Segmentation fault(11)|  test_price_last (test_price_last)|  test_restock_last (test_restock_last)|"
# Reports that cannot be used.
"$WHITTLE" reduce --from-junit "$T/nope.xml" "${args[@]}" > /dev/null 2> "$T/e4"
check_eq "missing report exit" "$?" 2
check_eq "missing report error" "$(grep -c "no report at '$T/nope.xml'" "$T/e4")" 1
finish
