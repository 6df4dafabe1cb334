#!/bin/bash
# The UB guard's own rule (issue 33, item 7): a candidate that drops
# `factor = 3;` passes an uninitialized local to scale(unsigned, const
# unsigned *). clang's -Wuninitialized is silent there (gcc -O2 warns), and
# the assert still fails whatever the stack holds, so without the rule the
# reduced test reads an indeterminate value. With the guard (the default)
# that candidate is UBGuard and the reduced test keeps the assignment and
# compiles without a gcc -O2 uninitialized warning; --ub-guard off drops it.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ub_constarg" "$P"
# gcc -O2's uninitialized-use warnings on a copy of a test file.
gcc_warnings() {
    cp "$1" "$P/tests/check_$2.c"
    gcc -O2 -Wall -Wextra -I"$P/src" -c "$P/tests/check_$2.c" -o /dev/null 2>&1 | grep -c "uninitialized"
    rm -f "$P/tests/check_$2.c"
}
clang_warnings() {
    cp "$1" "$P/tests/check_$2.c"
    clang -fsyntax-only -Wuninitialized -Wsometimes-uninitialized -Wconditional-uninitialized \
        -I"$P/src" "$P/tests/check_$2.c" 2>&1 | grep -c "warning:"
    rm -f "$P/tests/check_$2.c"
}
reduce() { # out-folder extra-args...
    local out=$1; shift
    "$WHITTLE" reduce --project "$P" --file tests/test_scale.c --test test_scale_ten \
        --setup "make -s" --build "make -s" --run "./test_scale" --framework plain \
        --cache memory: --out "$out" "$@" > "$out.log" 2>&1 || { cat "$out.log"; fail "reduce $*"; }
}
check_eq "original: gcc -O2 uninitialized warnings" "$(gcc_warnings "$P/tests/test_scale.c" orig)" 0

reduce "$T/on"
R=$(run_dir "$T/on")
want='static void test_scale_ten(void)
{
    unsigned factor;
    factor = 3;
    unsigned out = scale(10, &factor);
    assert(out == 30);
}'
check_eq "guard on: reduced test" "$(awk '/^static void test_scale_ten/,/^}/' "$R/reduced.c")" "$want"
check_eq "guard on: gcc -O2 warnings in reduced.c" "$(gcc_warnings "$R/reduced.c" on)" 0
n=$(awk -F, 'NR > 1 && $6 == "UBGuard"' "$R/candidates.csv" | wc -l)
[ "$n" -ge 1 ] && pass "candidates.csv: $n UBGuard rows" || fail "candidates.csv: no UBGuard row"
grep -q "note: UB guard.*'factor' is uninitialized when passed to 'scale'.*whittle-uninitialized-const-arg" \
    "$R/run.log" && pass "run.log: the UBGuard note names factor and scale" \
    || fail "run.log: no UBGuard note naming factor"

reduce "$T/off" --ub-guard off
R=$(run_dir "$T/off")
body=$(awk '/^static void test_scale_ten/,/^}/' "$R/reduced.c")
case "$body" in *"factor = 3;"*) fail "guard off: factor = 3; kept (the test shows nothing)";;
                *) pass "guard off: factor = 3; dropped";; esac
w=$(gcc_warnings "$R/reduced.c" off)
[ "$w" -ge 1 ] && pass "guard off: gcc -O2 sees $w uninitialized reads in reduced.c" \
    || fail "guard off: gcc -O2 sees no uninitialized read (the check proves nothing)"
check_eq "guard off: clang -Wuninitialized is silent on reduced.c" "$(clang_warnings "$R/reduced.c" off)" 0
finish
