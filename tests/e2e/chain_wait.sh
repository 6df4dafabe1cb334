#!/bin/bash
# The next chain waits for a verdict that is due (issue 17): with several
# slots, steps a chain left running past its surprise finish a few
# milliseconds after it, and the next chain is made once their verdicts are
# in (chain_waits in summary.json), never with one slot (nothing runs past
# a surprise). The wait changes when a chain is made, not what the walk
# judges: the 1- and 4-slot runs give the same reduced test, and the
# 4-slot run judges the 1-slot run's candidates plus its extras.
. "$(dirname "$0")/lib.sh"
synth_fixture

for slots in 1 4 16; do
    "$WHITTLE" reduce --project "$P" --file tests/test_synth.c --test test_synth \
        --setup true --build "$J build 0.2" --run "$J run" --framework junit \
        --cache memory: --jobs "$slots" --out "$T/j$slots" > "$T/j$slots.log" 2>&1 ||
        { cat "$T/j$slots.log"; fail "j$slots: run"; }
done
R1=$(run_dir "$T/j1") R4=$(run_dir "$T/j4") R16=$(run_dir "$T/j16")
[ -f "$R1/summary.json" ] && [ -f "$R4/summary.json" ] && [ -f "$R16/summary.json" ] ||
    { fail "no summaries"; finish; }
check_eq "1 slot: chains that waited" "$(json "$R1/summary.json" .chain_waits)" 0
w4=$(json "$R4/summary.json" .chain_waits)
[ "$w4" -ge 1 ] && pass "4 slots: $w4 chains waited for a due verdict" ||
    fail "4 slots: no chain waited for a due verdict ($w4)"
e1=$(json "$R1/summary.json" .evaluated)
for n in 4 16; do
    R=$(run_dir "$T/j$n")
    cmp -s "$R1/reduced.c" "$R/reduced.c" && pass "$n slots: the same reduced test" ||
        fail "$n slots: the reduced test differs from 1 slot's"
    e=$(json "$R/summary.json" .evaluated) x=$(json "$R/summary.json" .extra)
    check_eq "$n slots: judged beyond the extras = 1 slot's" "$((e - x))" "$e1"
    check_eq "$n slots: cache hits (a fresh cache)" "$(json "$R/summary.json" .cached)" 0
done
finish
