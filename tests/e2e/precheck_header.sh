#!/bin/bash
# The precheck and the UB guard when the original has a front-end error in
# a header, not the test file (issue 33: "Precheck off: front-end error at
# <test file>:47" for an #error in test.h, and both "on again" a line
# later). tests/check.h has `#error` unless -DTALLY_TESTING, which only the
# Makefile passes:
#  1. the flags guessed before the setup hit it, the warm workspace's own
#     compile command does not: the console says once that both are on
#     with that command, nothing "off"; run.log names check.h:7, the file
#     the #error is in;
#  2. flags given after `--` without the define: the console says once that
#     both are off, naming check.h:7:2, never test_tally.c.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/precheck_header" "$P"
job=(--project "$P" --file tests/test_tally.c --test test_tally_floor --setup "make -s"
     --build "make -s" --run ./test_tally --framework console
     --failure-regex '^FAIL (?<file>[^:]+):(?<line>\d+): (?<message>.*)$'
     --pass-regex '^PASS (?<test>\w+)$' --cache memory:)
said() { grep -E '^(Precheck|UB guard)' "$1"; }
reduced() { awk '/^static void test_tally_floor/,/^}/' "$1/reduced.c"; }
want='static void test_tally_floor(void)
{
    struct tally t = {10, 0};
    tally_add(&t, 12);
    tally_add(&t, 10);
    CHECK_INT(1, t.count);
}'

# 1
"$WHITTLE" reduce "${job[@]}" --out "$T/r1" > "$T/o1" 2>&1 || { cat "$T/o1"; fail "reduce (guessed flags)"; }
check_eq "guessed flags: what the console says" "$(said "$T/o1")" \
    "Precheck and UB guard on: compile arguments from the file's own compile command (the flags guessed before it gave a front-end error; run.log names it)"
R1=$(run_dir "$T/r1")
grep -q "^precheck: off with the statement tree's flags .*: the original has a front-end error with these flags ($P/tests/check.h:7:2: \"build the tests with -DTALLY_TESTING\")$" "$R1/run.log" \
    && pass "guessed flags: run.log names check.h:7:2" || { grep -i precheck "$R1/run.log"; fail "guessed flags: run.log does not name check.h:7:2"; }
grep -q "test_tally.c:7:" "$R1/run.log" && fail "guessed flags: run.log names the test file's line 7" || pass "guessed flags: no test_tally.c:7"
check_eq "guessed flags: precheck enabled" "$(json "$R1/summary.json" .precheck.enabled)" true
check_eq "guessed flags: reduced test" "$(reduced "$R1")" "$want"

# 2
"$WHITTLE" reduce "${job[@]}" --out "$T/r2" -- -Isrc > "$T/o2" 2>&1 || { cat "$T/o2"; fail "reduce (-- -Isrc)"; }
check_eq "-- -Isrc: what the console says" "$(said "$T/o2")" \
    "Precheck and UB guard off: the original has a front-end error with these flags ($P/tests/check.h:7:2: \"build the tests with -DTALLY_TESTING\")"
R2=$(run_dir "$T/r2")
check_eq "-- -Isrc: precheck off_because" "$(json "$R2/summary.json" .precheck.off_because)" \
    "the original has a front-end error with these flags ($P/tests/check.h:7:2: \"build the tests with -DTALLY_TESTING\")"
check_eq "-- -Isrc: reduced test" "$(reduced "$R2")" "$want"
finish
