#!/bin/bash
# whittle mutate --reduce on the farm fixture: every definite (mutant,
# killing test) pair of the first 9 mutants is reduced twice (default walk
# and --algorithm linear) with the clean project as --reference, and
# bench.json / bench.txt hold the thesis's measures and precision/recall.
# The 12 pairs, worked out by hand (statement indexes as whittle inspect
# lists them; every test has 6 statements, and shop_init() [1] always goes:
# the tests zero their shop, so there is no garbage to depend on):
#   M1 (no item is ever added): price_last segfaults in shop_price(3);
#     adds 1 and 2 go {1,2,3}, add 3 stays (without it the clean project
#     segfaults too: the fault would be lost). restock_last segfaults at
#     `before = shop_find(8)->qty`: add 7 and the assert after the crash go
#     {1,2,5}, add 8 stays for the clean project. total: the sum assert
#     fails first, the find assert after it goes {1,5}.
#   M6/M7 (shop_find answers the first item that does not match): price_last
#     fails 30 != 10 (item 1's price): add 2 goes {1,3}, add 1 stays for the
#     message, add 3 for the clean project; restock fails 4 != 1 and keeps
#     the rest {1}. total fails on find(9) and needs one add of the two: the
#     default walk (from the end) drops the second add {1,3,4}, the linear
#     walk (top to bottom) the first {1,2,4}: one FP and one FN each, the
#     thesis's only kind of disagreement (two minimal sets).
#   M8 (find answers NULL): like M1 for price_last and restock_last.
#   M9 (find's miss answers 1): total keeps the shop and the find assert.
# So 72 statements, 30 removed by each walk, TP 28 FP 2 FN 2: precision and
# recall 28/30. The fault is kept on all 12 (each reduced test passes on the
# clean project), and the project is never written.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/farm" "$P"
before=$(tree_digest "$P")
"$WHITTLE" mutate --project "$P" --source 'src/*.c' --tests-file tests/test_shop.c \
    --setup "make -s" --build "make -s" --run "./test_shop" --framework cmocka \
    --max 9 --jobs 2 --reduce --out "$T/bench" > "$T/out" 2>&1 || { cat "$T/out"; fail "mutate --reduce"; }
cat "$T/out" >&2
B="$T/bench/bench.json"
check_eq "project untouched" "$(tree_digest "$P")" "$before"
check_eq "pairs" "$(json "$B" '[.runs[] | "\(.mutant)-\(.test)"] | join(" ")')" \
    "M1-test_price_last M1-test_restock_last M1-test_total M6-test_price_last M6-test_restock_last M6-test_total M7-test_price_last M7-test_restock_last M7-test_total M8-test_price_last M8-test_restock_last M9-test_total"
check_eq "every pair = every definite kill" "$(json "$B" '.runs | length')" "$(grep -c ',definite$' "$T/bench/kills.csv")"
check_eq "all reduced, fault kept on all" "$(json "$B" '[.runs[] | select(.ok and .fault_kept == true and .linear.fault_kept == true)] | length')" 12
check_eq "statements left per pair" "$(json "$B" '[.runs[] | .statements_after] | join(",")')" "3,3,4,4,5,3,4,5,3,3,3,2"
check_eq "linear left per pair" "$(json "$B" '[.runs[] | .linear.statements_after] | join(",")')" "3,3,4,4,5,3,4,5,3,3,3,2"
check_eq "M6-test_total TP FP FN" "$(json "$B" '.runs[5] | [.tp, .fp, .fn, (.precision * 1000 | round / 1000), (.recall * 1000 | round / 1000)] | join(" ")')" "2 1 1 0.667 0.667"
R="$T/bench/reduce/M6-test_total"
check_eq "M6-test_total removed (default, linear)" \
    "$(jq -c .removed_units "$(ls -d "$R"/hdd/test_total-*/ | head -n1)/summary.json") $(jq -c .removed_units "$(ls -d "$R"/linear/test_total-*/ | head -n1)/summary.json")" "[1,3,4] [1,2,4]"
check_eq "totals" "$(json "$B" '.total | [.runs, .statements_before, .statements_after, .ARS, .ANTRS, .ATRS, .fault_kept, .tp, .fp, .fn] | join(" ")')" \
    "12 72 42 30 30 0 12 28 2 2"
check_eq "PRS, precision, recall" "$(json "$B" '.total | [(.PRS * 100 | round), (.precision * 1000 | round), (.recall * 1000 | round)] | join(" ")')" "4167 933 933"
check_eq "builds are counted" "$(json "$B" '[.runs[] | select(.builds > 0 and .linear.builds > 0)] | length')" 12
check_eq "printed" "$(grep -c 'precision 0.933 recall 0.933 against --algorithm linear (TP 28 FP 2 FN 2)' "$T/out")" 1
check_eq "bench.txt total" "$(grep '^total' "$T/bench/bench.txt" | awk '{print $2, $3, $4, $5, $13, $14, $16, $17, $18, $19, $20}')" \
    "72 42 30 41.7 12 42 28 2 2 0.933 0.933"
finish
