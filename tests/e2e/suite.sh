#!/bin/bash
# whittle suite on a kill matrix worked out by hand: 6 mutants, 4 tests.
# ta kills M1 M2 M5, tb kills M3 M4 M5, tc kills M1 M3 M5 M6 (the most),
# td kills M2 M4 M6. M7 survives. The only 2-test cover is {tc, td}
# ({ta, tb} misses M6, every other pair misses one more); greedy DIFF finds it
# too (tc first, then td covers the remaining M2 M4). A potential kill of M7
# by tb only counts with --potential: then 3 tests are needed.
. "$(dirname "$0")/lib.sh"
K="$T/kills.csv"
{
    echo "mutant,test,verdict"
    for m in 1 2 3 4 5 6 7; do for t in ta tb tc td; do
        v=survived
        case "$t:$m" in ta:1|ta:2|ta:5|tb:3|tb:4|tb:5|tc:1|tc:3|tc:5|tc:6|td:2|td:4|td:6) v=definite;; tb:7) v=potential;; esac
        echo "M$m,$t,$v"
    done; done
} > "$K"
"$WHITTLE" suite --kills "$K" --method all --out "$T/s.json" > "$T/out" 2>&1 || { cat "$T/out"; fail "suite"; }
cat "$T/out" >&2
check_eq "killed" "$(json "$T/s.json" .killed)" 6
check_eq "ilp tests" "$(json "$T/s.json" '.methods[] | select(.method == "ilp") | .tests | join(",")')" "tc,td"
check_eq "ilp covered" "$(json "$T/s.json" '.methods[] | select(.method == "ilp") | .covered')" 6
check_eq "diff size" "$(json "$T/s.json" '.methods[] | select(.method == "diff") | .size')" 2
check_eq "fast covered" "$(json "$T/s.json" '.methods[] | select(.method == "fast") | .covered')" 6
"$WHITTLE" suite --kills "$K" --method ilp --potential --out "$T/p.json" > /dev/null 2>&1 || fail "suite --potential"
check_eq "potential killed" "$(json "$T/p.json" .killed)" 7
check_eq "potential ilp size" "$(json "$T/p.json" '.methods[0].size')" 3
check_eq "potential ilp covered" "$(json "$T/p.json" '.methods[0].covered')" 7
echo "M1,ta,maybe" >> "$K"
"$WHITTLE" suite --kills "$K" > "$T/bad" 2>&1 && fail "accepted a bad verdict"
check_eq "bad verdict error" "$(grep -c 'line 30' "$T/bad")" 1
finish
