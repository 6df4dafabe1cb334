#!/bin/bash
# report.html of a real reduction (the cart fixture, 2 slots), checked in
# headless Chromium (report_check.sh), with the exact tree of the thesis's
# Figure 1.1: the coupon goes in sweep 2, the loop's cart_apply and the last
# assert in sweep 1. Screenshot: build/tests/artifacts/report.png.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_check.sh"
P="$T/cart"; cp -r "$FIX/cart" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run "build/test_cart" --framework cmocka --jobs 2 --out "$T/out" --cache memory: > "$T/run.out" 2>&1 \
    || { cat "$T/run.out"; fail "reduce"; }
R=$(run_dir "$T/out")
check_eq "console names the page" "$(grep '^Report: ' "$T/run.out")" "Report: $R/report.html"
check_eq "tree.json: the removed units are lines 15, 18 and 21" \
    "$(jq -r '.units[] | select(.removed_by > 0) | "\(.line):\(.removed_by)"' "$R/tree.json" | tr '\n' ' ')" \
    "$(for l in 15 18 21; do printf '%s:%s ' $l "$(jq -r ".units[] | select(.line == $l) | .removed_by" "$R/tree.json")"; done)"
sweep_of() { awk -F, -v c="$1" 'NR > 1 && $1 == c { print $2 }' "$R/candidates.csv"; }
check_eq "the coupon goes in sweep 2, cart_apply and the last assert in sweep 1" \
    "$(for l in 15 18 21; do sweep_of "$(jq -r ".units[] | select(.line == $l) | .removed_by" "$R/tree.json")"; done | tr '\n' ' ')" "2 1 1 "
check_eq "candidates.csv: built rows have build and test times" \
    "$(awk -F, 'NR > 1 && $7 == 0 && $14 == 0 && ($16 == 0 || $18 == 0)' "$R/candidates.csv" | wc -l)" 0
check_report_page "$R" report
D="$T/report.dom"
check_eq "page: sweeps of the removed units" "$(grep -o 'data-sweep="[0-9]*"' "$D" | grep -v '"0"' | sort | tr '\n' ' ')" \
    'data-sweep="1" data-sweep="1" data-sweep="2" '
check_eq "page: the original's run and the verify run are drawn" \
    "$(grep -o 'data-kind="original"' "$D" | wc -l) $(grep -o 'data-kind="verify"' "$D" | wc -l)" "1 1"
check_eq "judged.csv: the original was fingerprinted" "$(awk -F, '$2 == "original" { print $4 }' "$R/judged.csv")" "fingerprinted"
check_eq "page: fault not checked (no reference)" "$(sed -n 's:.*id="fault-pill">\([^<]*\)<.*:\1:p' "$D")" "fault not checked"
# whittle report RUN_DIR remakes the same page from the folder's files.
cp "$R/report.html" "$T/page.html"; rm "$R/report.html"
check_eq "whittle report: output" "$("$WHITTLE" report "$R")" "Report: $R/report.html"
cmp -s "$R/report.html" "$T/page.html" && pass "whittle report: the same page" || fail "whittle report: a different page"
mkdir "$T/empty"
"$WHITTLE" report "$T/empty" > /dev/null 2> "$T/report.err"
check_eq "whittle report on no run folder: exit status, message" "$? $(cat "$T/report.err")" \
    "1 whittle: error: '$T/empty' is not a run folder: no summary.json, run.log or candidates.csv"

# A run that stops (the original passes) still gets its page: what it
# recorded, and the end of run.log with the reason.
"$WHITTLE" reduce --project "$P" --file tests/test_cart.c --test test_empty_cart_has_no_items \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run "build/test_cart" --framework cmocka --jobs 1 --out "$T/stopped" --cache memory: > "$T/stopped.out" 2>&1
check_eq "a passing original stops the run: exit status" "$?" 3
S=$(run_dir "$T/stopped")
check_eq "stopped run: page status" "$(sed -n 's:.*id="status">\([^<]*\)<.*:\1:p' "$S/report.html")" "did not finish"
grep -qF "error: original test passes: test_empty_cart_has_no_items in tests/test_cart.c" "$S/report.html" \
    && pass "stopped run: the page shows run.log's error line" || fail "stopped run: no error line in the page"

# An interrupted run (SIGINT once run.log says a candidate was accepted):
# the page names the test and shows the diff of the accepted configuration
# so far (partial.diff), said to be partial.
"$WHITTLE" reduce --project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" \
    --build "sleep 0.3; cmake --build build" --run "build/test_cart" --framework cmocka --jobs 1 \
    --out "$T/int" --cache memory: > "$T/int.out" 2>&1 &
wpid=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 120 ]; do
    grep -qs "accepted cand_" "$T"/int/*/run.log && break; sleep 0.1
done
kill -INT "$wpid"; wait "$wpid"; rc=$?
check_eq "interrupted run: exit status" "$rc" 130
I=$(run_dir "$T/int")
check_eq "interrupted run: the page names the test" \
    "$(sed -n 's:.*id="test">\([^<]*\)<.*:\1:p' "$I/report.html")" "test_added_item_is_in_cart"
[ -s "$I/partial.diff" ] && [ ! -e "$I/reduced.diff" ] && pass "interrupted run: partial.diff, no reduced.diff" \
    || fail "interrupted run: partial.diff $( [ -s "$I/partial.diff" ] && echo written || echo missing)"
grep -q 'id="partial"><b>Partial:</b> the run stopped before it finished' "$I/report.html" \
    && pass "interrupted run: the diff is said to be partial" || fail "interrupted run: no partial note"
# Every line partial.diff removes is a removed row of the page's diff.
check_eq "interrupted run: the page's diff is partial.diff" \
    "$(grep -c '^<tr class="del">' "$I/report.html")" "$(grep -c '^-[^-]' "$I/partial.diff")"
check_eq "interrupted run: tree.json names the removed units" \
    "$(jq '[.units[] | select(.removed_by > 0)] | length > 0' "$I/tree.json")" true
! grep -q 'No diff' "$I/report.html" && pass "interrupted run: no 'No diff'" || fail "interrupted run: 'No diff' in the page"
finish
