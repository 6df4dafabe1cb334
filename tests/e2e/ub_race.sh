#!/bin/bash
# Verdict names do not depend on timing (issue 36): a candidate the UB guard
# holds is UBGuard, never built, at every slot count. On libarchive one was
# UBGuard at 1 and 4 slots and BuildFailed at 2: a speculation (the next
# round, judged ahead on idle slots) went out once the precheck passed it,
# whatever the same parse said of the guard (with --precheck off the guard
# was not asked at all), so when a slot was idle to judge it ahead its round
# took the build's verdict. tests/fixtures/ub_race makes that speculation
# certain at 2 and 4 slots (its comment says how): `v = 7;`'s removal is
# UBGuard at 1 slot and, built, DifferentFailure. The same reduction at 1, 2
# and 4 slots, with --precheck on and off, and at 4 slots with the front
# end's answers held back 150 ms (WH_TEST_FRONTEND_DELAY_MS, a test-only
# switch): candidates.csv's candidates, verdicts, predicted and precheck
# columns are the 1-slot run's every time.
. "$(dirname "$0")/lib.sh"
J="$T/judge"
cc -std=c11 -O2 -o "$J" "$WH_SOURCE_DIR/bench/synthetic/judge.c" \
    "$WH_SOURCE_DIR/bench/synthetic/marks.c" || { fail "judge: compile"; finish; }
P="$T/p"; cp -r "$FIX/ub_race" "$P"
run() { # name jobs extra-args...
    local name=$1 jobs=$2; shift 2
    "$WHITTLE" reduce --project "$P" --file tests/test_synth.c --test test_synth \
        --setup true --build "$J build 0.02" --run "$J run" --framework junit \
        --cache memory: --jobs "$jobs" --out "$T/$name" "$@" > "$T/$name.log" 2>&1 ||
        { cat "$T/$name.log"; fail "$name: run"; }
}
# candidate, sweep, level, kept, total, verdict; predicted, precheck (not
# the node, cached or timing columns).
cols() { cut -d, -f1-6,14,15 "$1/candidates.csv"; }
same_cols() { # name run-folder reference-folder
    local d
    d=$(diff <(cols "$3") <(cols "$2")) && pass "$1" || fail "$1: differs (< 1 slot, > this run):
$d"
}
ubrows() { awk -F, 'NR > 1 && $6 == "UBGuard" { print $1 "," $8 "," $14 }' "$1/candidates.csv"; }

for mode in on off; do
    run "$mode-1" 1 --precheck "$mode"
    R1=$(run_dir "$T/$mode-1")
    [ -f "$R1/summary.json" ] || { fail "$mode: no 1-slot summary"; continue; }
    # The fixture's point: one UBGuard row, not built.
    check_eq "$mode, 1 slot: the UBGuard rows (candidate, node, predicted)" "$(ubrows "$R1")" "90,ubguard,1"
    for n in 2 4; do
        run "$mode-$n" "$n" --precheck "$mode"
        R=$(run_dir "$T/$mode-$n")
        [ -f "$R/summary.json" ] || { fail "$mode, $n slots: no summary"; continue; }
        s=$(json "$R/summary.json" .speculated)
        [ "$s" -ge 1 ] && pass "$mode, $n slots: $s candidates judged ahead" ||
            fail "$mode, $n slots: nothing judged ahead (the race is not exercised)"
        same_cols "$mode, $n slots: candidates.csv as at 1 slot" "$R" "$R1"
        cmp -s "$R1/reduced.c" "$R/reduced.c" && pass "$mode, $n slots: the same reduced test" ||
            fail "$mode, $n slots: the reduced test differs"
    done
done
# Answers slower than any dispatch: nothing goes out before its answer.
WH_TEST_FRONTEND_DELAY_MS=150 run slow-4 4
R1=$(run_dir "$T/on-1") R=$(run_dir "$T/slow-4")
same_cols "answers 150 ms late, 4 slots: candidates.csv as at 1 slot" "$R" "$R1"
check_eq "answers 150 ms late: nothing left unchecked" "$(json "$R/summary.json" .precheck.unchecked)" 0
finish
