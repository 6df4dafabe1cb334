#!/bin/bash
# The UB guard (DESIGN.md, "Trust"; issue 19): a candidate that drops
# `expect = 0;` still fails the same way, by reading stack garbage, so
# without the guard the reduced test reads an indeterminate value. With it
# (the default) that candidate is UBGuard, not built, and the reduced test
# keeps the assignment and compiles without a new -Wuninitialized warning;
# --ub-guard off drops it (the guard is what keeps it). A build with
# sanitizers is named in the record.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ub_expect" "$P"
WARN="-fsyntax-only -Wuninitialized -Wsometimes-uninitialized -Wreturn-type -I$P/src"
# Warnings clang raises on a file of the fixture (0 on the original).
warnings() { cp "$1" "$P/tests/check_$2.c"; clang $WARN "$P/tests/check_$2.c" 2>&1 | grep -c "warning:"; rm -f "$P/tests/check_$2.c"; }
reduce() { # out-folder extra-args...
    local out=$1; shift
    "$WHITTLE" reduce --project "$P" --file tests/test_acc.c --test test_acc_total \
        --setup "make -s" --build "make -s" --run "./test_acc" --framework plain \
        --cache memory: --out "$out" "$@" > "$out.log" 2>&1 || { cat "$out.log"; fail "reduce $*"; }
}
check_eq "original: uninitialized-use warnings" "$(warnings "$P/tests/test_acc.c" orig)" 0

reduce "$T/on"
R=$(run_dir "$T/on")
body=$(awk '/^static void test_acc_total/,/^}/' "$R/reduced.c")
want='static void test_acc_total(void)
{
    struct acc a = {0, 0};
    acc_add(&a, 2);
    int expect;
    expect = 0;
    int total = acc_total(&a);
    assert(total == expect);
}'
check_eq "guard on: reduced test" "$body" "$want"
check_eq "guard on: new warnings in reduced.c" "$(warnings "$R/reduced.c" on)" 0
n=$(awk -F, 'NR > 1 && $6 == "UBGuard"' "$R/candidates.csv" | wc -l)
[ "$n" -ge 1 ] && pass "candidates.csv: $n UBGuard rows" || fail "candidates.csv: no UBGuard row"
check_eq "summary.json ub_guard" "$(json "$R/summary.json" .ub_guard)" "$n"
check_eq "summary.json verdicts.UBGuard" "$(json "$R/summary.json" .verdicts.UBGuard)" "$n"
check_eq "summary.json ub_guard_check.enabled" "$(json "$R/summary.json" .ub_guard_check.enabled)" true
check_eq "summary.json held_not_built" "$(json "$R/summary.json" .ub_guard_check.held_not_built)" "$n"
# Not built: the precheck-like row (node ubguard, predicted 1, no build time).
check_eq "UBGuard rows: node ubguard, predicted" \
    "$(awk -F, 'NR > 1 && $6 == "UBGuard" { print $8 "," $14 }' "$R/candidates.csv" | sort -u)" "ubguard,1"
grep -q -- "-> UBGuard  (predicted)" "$R/run.log" && pass "run.log names UBGuard" || fail "run.log has no UBGuard line"
grep -q "note: UB guard, not built: .*'expect'.*-Wuninitialized" "$R/run.log" \
    && pass "run.log: the UBGuard note names expect" || fail "run.log: no UBGuard note naming expect"
grep -q "^ub guard:    on, .* $n UBGuard" "$R/summary.txt" && pass "summary.txt ub guard line" \
    || fail "summary.txt ub guard line"
# E + P + C = N with the UBGuard candidates among the predicted.
c=$(json "$R/summary.json" .candidates); e=$(json "$R/summary.json" .evaluated)
p=$(json "$R/summary.json" .predicted); k=$(json "$R/summary.json" .cached)
x=$(json "$R/summary.json" .extra)
check_eq "evaluated + predicted + cached" "$((e - x + p + k))" "$c"
grep -q 'id="v-UBGuard">'"$n"'<' "$R/report.html" && pass "report.html: UBGuard in the verdicts" \
    || fail "report.html: no UBGuard count"
check_eq "verify_sanitizers (none)" "$(json "$R/summary.json" .verify_sanitizers)" null

# --precheck audit builds every candidate: the guard's second hook, before a
# round's winner is taken, must hold the Preserved verdict the build gave.
reduce "$T/audit" --precheck audit
R=$(run_dir "$T/audit")
check_eq "audit: reduced test" "$(awk '/^static void test_acc_total/,/^}/' "$R/reduced.c")" "$want"
n=$(awk -F, 'NR > 1 && $6 == "UBGuard" && $14 == 0' "$R/candidates.csv" | wc -l)
[ "$n" -ge 1 ] && pass "audit: $n UBGuard rows built" || fail "audit: no built UBGuard row"
grep -q "note: UB guard (its build preserved the failure): .*'expect'" "$R/run.log" \
    && pass "audit: run.log says the build preserved it" || fail "audit: no note on the built UBGuard"
check_eq "audit: held_not_built" "$(json "$R/summary.json" .ub_guard_check.held_not_built)" 0

reduce "$T/off" --ub-guard off
R=$(run_dir "$T/off")
body=$(awk '/^static void test_acc_total/,/^}/' "$R/reduced.c")
case "$body" in *"expect = 0;"*) fail "guard off: expect = 0; kept (the test shows nothing)";;
                *) pass "guard off: expect = 0; dropped";; esac
w=$(warnings "$R/reduced.c" off)
[ "$w" -ge 1 ] && pass "guard off: reduced.c has $w uninitialized-use warnings" \
    || fail "guard off: no warning on reduced.c (the warning check proves nothing)"
check_eq "guard off: no UBGuard rows" "$(awk -F, 'NR > 1 && $6 == "UBGuard"' "$R/candidates.csv" | wc -l)" 0
check_eq "guard off: ub_guard_check.mode" "$(json "$R/summary.json" .ub_guard_check.mode)" off

# With sanitizers in the compile command, the record says the verify run had them.
reduce "$T/san" --build "make -s CFLAGS='-O0 -g -fsanitize=address,undefined'" \
    --setup "make -s CFLAGS='-O0 -g -fsanitize=address,undefined'"
R=$(run_dir "$T/san")
check_eq "verify_sanitizers" "$(json "$R/summary.json" .verify_sanitizers)" "address,undefined"
grep -q "^sanitizers:  the verify run was built with -fsanitize=address,undefined" "$R/summary.txt" \
    && pass "summary.txt names the sanitizers" || fail "summary.txt does not name the sanitizers"
check_eq "sanitizers: reduced test" "$(awk '/^static void test_acc_total/,/^}/' "$R/reduced.c")" "$want"
finish
