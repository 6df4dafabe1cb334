#!/bin/bash
# whittle mutate on the farm fixture, then whittle suite on its kill matrix.
# The 25 mutants of src/shop.c (5 operators) are counted by hand in
# tests/test_mutagen.c. Kills worked out by hand:
#   M1  IN  !(s->n >= 8) in shop_add: no item is ever added, so the three
#       tests that look items up or sum them fail: price_last, restock_last
#       and total, on both runs (definite).
#   M2  ROR >= -> > at the capacity check: no test adds 8 items: survives.
#   M10 RV  shop_price returns 0: only test_price_last sees it.
#   M14 IN  the discount condition negated: test_discount always fails,
#       test_flaky_discount checks on every other run only: potential.
#   M11 ROR < -> <= in shop_total: also adds items[n], which the tests'
#       zeroed shop (struct shop s = {0}) holds as price 0: survives.
# Mutants kill-free are exactly M2 M3 M4 M5 M11 M15 (unused return values,
# boundaries no test touches). The project is never written.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/farm" "$P"
before=$(tree_digest "$P")
"$WHITTLE" mutate --project "$P" --source 'src/*.c' --tests-file tests/test_shop.c \
    --setup "make -s" --build "make -s" --run "./test_shop" --framework cmocka \
    --repeat 2 --jobs 2 --out "$T/bench" > "$T/out" 2>&1 || { cat "$T/out"; fail "mutate"; }
cat "$T/out" >&2
M="$T/bench/mutants.json"; K="$T/bench/kills.csv"
check_eq "project untouched" "$(tree_digest "$P")" "$before"
check_eq "mutants" "$(json "$M" length)" 25
check_eq "operators" "$(json "$M" '[.[].operator] | unique | join(",")')" "AOR,IN,LCR,ROR,RV"
check_eq "M1" "$(json "$M" '.[0] | [.operator, .file, .line, .before, .after] | join("|")')" \
    "IN|src/shop.c|10|s->n >= 8|!(s->n >= 8)"
check_eq "survivors" "$(json "$M" '[.[] | select(.status == "survived") | .id] | join(" ")')" "M2 M3 M4 M5 M11 M15"
check_eq "killed" "$(json "$M" '[.[] | select(.status == "killed")] | length')" 19
check_eq "kill rows" "$(($(wc -l < "$K") - 1))" $((25 * 6))
check_eq "M1 kills" "$(grep '^M1,' "$K" | grep -v survived | tr '\n' ' ')" \
    "M1,test_price_last,definite M1,test_restock_last,definite M1,test_total,definite "
check_eq "M2 kills" "$(grep -c '^M2,.*,survived$' "$K")" 6
check_eq "M10 kills" "$(grep '^M10,' "$K" | grep -v survived | tr '\n' ' ')" "M10,test_price_last,definite "
check_eq "M14 kills" "$(grep '^M14,' "$K" | grep -v survived | tr '\n' ' ')" \
    "M14,test_discount,definite M14,test_flaky_discount,potential "
check_eq "potential kills" "$(grep -c ',potential$' "$K")" 4
# Each of test_price_last (M10), test_total (M9), test_discount (M16) and
# test_ship (M22) kills a mutant no other test kills: the optimum is those 4.
"$WHITTLE" suite --kills "$K" --method all --out "$T/suite.json" > "$T/suite.out" 2>&1 || fail "suite"
cat "$T/suite.out" >&2
check_eq "ilp" "$(json "$T/suite.json" '.methods[0] | [.size, .covered, (.tests | join(","))] | join(" ")')" \
    "4 19 test_price_last,test_total,test_discount,test_ship"
check_eq "diff covers" "$(json "$T/suite.json" '.methods[1].covered')" 19
check_eq "fast covers" "$(json "$T/suite.json" '.methods[2].covered')" 19
finish
