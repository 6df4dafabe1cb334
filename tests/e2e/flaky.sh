#!/bin/bash
# A flaky test (fails on every other run): with --repeat it is refused with
# the rates shown; with --flaky-ok it is reduced, and no flaky Preserved
# verdict lands in the cache.
. "$(dirname "$0")/lib.sh"
P="$T/flaky"; cp -r "$FIX/flaky" "$P"
args=(--project "$P" --file tests/test_counter.c --test test_bumps_add_up --setup "make -s"
      --build "make -s" --run ./test_counter --framework cmocka --out "$T/runs")
"$WHITTLE" reduce "${args[@]}" --repeat 4 --cache "dir:$T/c1" > "$T/o1" 2> "$T/e1"; rc=$?
line=$(grep 'whittle: error:' "$T/e1")
[ $rc -ne 0 ] && echo "$line" | grep -q "original test is flaky: it failed the same way in 2 of 4 runs" \
    && pass "refused: $line" || fail "flaky original not refused (exit $rc): $(cat "$T/e1")"

"$WHITTLE" reduce "${args[@]}" --repeat 4 --flaky-ok 2 --cache "dir:$T/c2" > "$T/o2" 2> "$T/e2" \
    || { cat "$T/e2"; fail "flaky-ok run"; }
R=$(ls -dt "$T"/runs/*/ | head -n1)
check_eq "flaky-ok: reduced" "$(json "$R/summary.json" .statements_after)" 5
nflaky=$(json "$R/summary.json" .flaky_candidates)
[ "$nflaky" -gt 0 ] && pass "flaky candidates seen: $nflaky" || fail "no flaky candidate seen"
# every Preserved row whose runs disagreed: its key is not in the cache
bad=0; seen=0
while IFS=, read -r id sw lv kept tot verdict cached node ms rep runs key infra; do
    [ "$verdict" = Preserved ] && [ -n "$runs" ] || continue
    a=${runs%/*}; k=${runs#*/}
    [ "$a" -lt "$k" ] || continue
    seen=$((seen + 1))
    grep -q "^$key " "$T/c2/verdicts.log" && bad=$((bad + 1))
done < <(tail -n +2 "$R/candidates.csv")
[ "$seen" -gt 0 ] && pass "$seen flaky Preserved candidates" || fail "no flaky Preserved candidate to check"
check_eq "flaky Preserved verdicts in the cache" "$bad" 0
grep -q "Preserved" "$T/c2/verdicts.log" && pass "deterministic Preserved verdicts are cached" || pass "no deterministic Preserved verdict"
finish
