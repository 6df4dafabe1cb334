#!/bin/bash
# The precheck's window (issue 17): a chain holds up to 64 steps and few of
# them are built before a surprise replaces it, so the front end checks a
# round's candidates in canonical order only while fewer than twice the
# live slots (at least 2) are open, checked or building. Checking every
# step cost the synthetic walk 984 checks for its 102 candidates at 1 slot.
# The window changes what is checked ahead, never what the walk judges:
# with 1 and 4 slots the reduced test, the candidates and their verdicts
# are those of --precheck off, nothing goes unchecked, and 1 slot checks
# at most twice the walk's candidates. Also judged.csv: a build that failed
# is BuildFailed there, as in candidates.csv (it said InfraError).
. "$(dirname "$0")/lib.sh"
synth_fixture

run() { # name precheck jobs
    "$WHITTLE" reduce --project "$P" --file tests/test_synth.c --test test_synth \
        --setup true --build "$J build 0.02" --run "$J run" --framework junit \
        --cache memory: --precheck "$2" --jobs "$3" --out "$T/$1" > "$T/$1.log" 2>&1 ||
        { cat "$T/$1.log"; fail "$1: run"; }
}
run off off 1
run on1 on 1
run on4 on 4
OFF=$(run_dir "$T/off")
[ -f "$OFF/summary.json" ] || { fail "no summary for --precheck off"; finish; }
for n in 1 4; do
    R=$(run_dir "$T/on$n")
    [ -f "$R/summary.json" ] || { fail "$n slots: no summary"; continue; }
    same_walk "$n slots against --precheck off" "$OFF" "$R"
    check_eq "$n slots: candidates left unchecked" "$(json "$R/summary.json" .precheck.unchecked)" 0
    p=$(json "$R/summary.json" .predicted)
    [ "$p" -ge 1 ] && pass "$n slots: $p candidates predicted BuildFailed" ||
        fail "$n slots: nothing predicted ($p)"
done
# judged.csv names a failed build BuildFailed (not InfraError: its code,
# WH_EBUILD, goes with the verdict): --precheck off builds every one.
check_eq "--precheck off: judged.csv rows InfraError" \
    "$(awk -F, 'NR > 1 && $4 == "InfraError"' "$OFF/judged.csv" | wc -l)" 0
check_eq "--precheck off: judged.csv candidates BuildFailed = candidates.csv's built ones" \
    "$(awk -F, 'NR > 1 && $2 == "candidate" && $4 == "BuildFailed"' "$OFF/judged.csv" | wc -l)" \
    "$(awk -F, 'NR > 1 && $6 == "BuildFailed" && $7 == 0' "$OFF/candidates.csv" | wc -l)"
R1=$(run_dir "$T/on1")
c=$(json "$R1/summary.json" .candidates) k=$(json "$R1/summary.json" .precheck.checks)
[ "$k" -le $((2 * c)) ] && pass "1 slot: $k checks for $c candidates (at most twice)" ||
    fail "1 slot: $k checks for $c candidates (more than twice: the whole chain checked)"
finish
