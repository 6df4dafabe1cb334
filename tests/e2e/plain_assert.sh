#!/bin/bash
# The plain preset: assert() tests called from main; glibc's assertion line
# names the file, line and the function it fired in (the target test).
# 5 statements, 2 needed.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/plain_assert" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_clamp.c --test test_clamp_edges \
    --setup "make -s" --build "make -s" --run "./test_clamp" --framework plain \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 5
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "fingerprint test" "$(json "$R/summary.json" .fingerprint.test)" test_clamp_edges
check_eq "fingerprint kind" "$(json "$R/summary.json" .fingerprint.kind)" assert
check_eq "fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" test_clamp.c:17
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" "Assertion \`high == 10' failed."
want='static void test_clamp_edges(void)
{
    int high = clamp(11, 0, 10);
    assert(high == 10);
}'
check_eq "reduced test" "$(awk '/^static void test_clamp_edges/,/^}/' "$R/reduced.c")" "$want"
finish
