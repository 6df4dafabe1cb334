#!/bin/bash
# A cmocka test whose product code writes through NULL. cmocka catches the
# signal ("Test failed with exception: Segmentation fault(11)"), so the
# default fingerprint is kind crash(SIGSEGV). Candidates that skip the write
# reach stock_average with zero slots and die of SIGFPE instead: a different
# crash, judged DifferentFailure; the reduced test keeps the SIGSEGV.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/crash_null" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_stock.c --test test_restock_after_clear \
    --setup "make -s" --build "make -s" --run "./test_stock" --framework cmocka \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "fingerprint kind" "$(json "$R/fingerprint.json" .kind)" "crash(SIGSEGV)"
check_eq "fingerprint message" "$(json "$R/fingerprint.json" .message)" \
    "Test failed with exception: Segmentation fault(11)"
check_eq "fingerprint location" "$(json "$R/fingerprint.json" .location)" ""
# The console's line names the kind, and leaves out the empty location.
check_eq "console fingerprint line" "$(grep '^Fingerprint:' "$T/out")" \
    "Fingerprint: test_restock_after_clear | crash(SIGSEGV) | Test failed with exception: Segmentation fault(11)"
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 6
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
want='static void test_restock_after_clear(void **state)
{
    struct stock *s = stock_new();
    stock_set(s, 1, 5);
}'
check_eq "reduced test" "$(awk '/^static void test_restock_after_clear/,/^}/' "$R/reduced.c")" "$want"
# At least one candidate died of a different signal and was rejected. The
# default walk never builds such a candidate here (it removes the trailing
# statements first), so this part walks --ddmin classic, which does, and
# must reach the same reduced test.
"$WHITTLE" reduce --project "$P" --file tests/test_stock.c --test test_restock_after_clear \
    --setup "make -s" --build "make -s" --run "./test_stock" --framework cmocka \
    --cache memory: --out "$T/classic" --ddmin classic > "$T/out2" 2>&1 || { cat "$T/out2"; fail "reduce classic"; }
RC=$(run_dir "$T/classic")
check_eq "classic: reduced test" "$(awk '/^static void test_restock_after_clear/,/^}/' "$RC/reduced.c")" "$want"
fpe=0
for rep in $(awk -F, 'NR > 1 && $6 == "DifferentFailure" && $10 != "" { print $10 }' "$RC/candidates.csv"); do
    grep -q 'Floating point exception' "$RC/reports/$rep" && fpe=$((fpe + 1))
done
[ "$fpe" -ge 1 ] && pass "SIGFPE candidates judged DifferentFailure: $fpe" \
    || fail "no DifferentFailure candidate died of SIGFPE"
# The reduced test on its own still dies of the NULL write.
V="$T/verify"; cp -r "$FIX/crash_null" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_stock.c"
(cd "$V" && make -s >/dev/null 2>&1 && CMOCKA_MESSAGE_OUTPUT=xml CMOCKA_XML_FILE="$T/v.xml" ./test_stock >/dev/null 2>&1)
grep -q 'Segmentation fault(11)' "$T/v.xml" && pass "reduced test segfaults on its own" \
    || fail "reduced test does not segfault"
finish
