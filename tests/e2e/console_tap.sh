#!/bin/bash
# The console preset on a TAP-like harness printing "FAIL: test_name (Invalid
# value)" and "PASS: test_name": no file or line, so the fingerprint is the
# test and the message; 5 statements, 2 needed (the first "Invalid value"
# check passes and goes).
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_tap" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_port.c --test test_port_range \
    --setup "make -s" --build "make -s" --run "./test_port" --framework console \
    --failure-regex '^FAIL: (?<test>[[:alnum:]_]+) \((?<message>.*)\)$' \
    --pass-regex '^PASS: (?P<test>[[:alnum:]_]+)$' \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint test" "$(json "$R/summary.json" .fingerprint.test)" test_port_range
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" ""
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" 'Invalid value'
want='static void test_port_range(void)
{
    int port = 0;
    CHECK(parse_port("65535", &port) == 0, "Invalid value");
}'
check_eq "reduced test" "$(awk '/^static void test_port_range/,/^}/' "$R/reduced.c")" "$want"
finish
