#!/bin/bash
# whittle group on real run folders: the farm fixture with two seeded bugs.
# shop_find misses the last item (i < n - 1), so test_price_last and
# test_restock_last both die of the NULL dereference: one root cause, two
# tests, fingerprints that differ only by test name. shop_discount takes a
# fifth instead of a tenth, so test_discount fails an assert: its own group.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/farm" "$P"
sed -i '/^const struct item \*shop_find/,/^}/ s/i < s->n;/i < s->n - 1;/' "$P/src/shop.c"
sed -i 's:total - total / 10:total - total / 5:' "$P/src/shop.c"
check_eq "seeded bugs" "$(grep -c 's->n - 1;\|total / 5' "$P/src/shop.c")" 2
mkdir -p "$T/all"
for t in test_price_last test_restock_last test_discount; do
    "$WHITTLE" reduce --project "$P" --file tests/test_shop.c --test $t \
        --setup "make -s" --build "make -s" --run "./test_shop" --framework cmocka \
        --cache memory: --out "$T/runs/$t" > "$T/out.$t" 2>&1 || { cat "$T/out.$t"; fail "reduce $t"; }
    mv "$(run_dir "$T/runs/$t")" "$T/all/$t"
done
"$WHITTLE" group "$T/all" > "$T/groups" 2>&1 || fail "group exit"
cat "$T/groups" >&2
check_eq "summary line" "$(head -n1 "$T/groups")" "3 runs, 2 groups"
check_eq "crash group" "$(awk '/^group/ { g++ } /^  / { print g, $1 }' "$T/groups" | tr '\n' ' ')" \
    "1 test_discount 2 test_price_last 2 test_restock_last "
check_eq "crash group key" "$(grep -c '^group 2: crash(SIGSEGV) |' "$T/groups")" 1
# The second stage: a run of another test (same body, assert on another
# line) has a different fingerprint but the same reduced statements, so it
# joins test_discount's group; the two crash runs stay apart from both.
D="$T/all/test_discount_twin"; cp -r "$T/all/test_discount" "$D"
jq '.fingerprint.test = "test_discount_twin" | .fingerprint.location = "test_shop.c:99"' \
    "$T/all/test_discount/summary.json" > "$D/summary.json"
sed -i 's/test_discount(/test_discount_twin(/' "$D/reduced.c"
"$WHITTLE" group "$T/all" > "$T/groups2" 2>&1 || fail "group exit (twin)"
check_eq "twin grouping" "$(awk '/^group/ { g++ } /^  / { print g, $1 }' "$T/groups2" | tr '\n' ' ')" \
    "1 test_discount 1 test_discount_twin 2 test_price_last 2 test_restock_last "
# A run folder whose summary.json has no fingerprint is an error.
mkdir -p "$T/bad/x" && echo '{}' > "$T/bad/x/summary.json"
"$WHITTLE" group "$T/bad" > "$T/bad.out" 2>&1 && fail "group accepted a folder without fingerprint"
check_eq "bad folder error" "$(grep -c "has no readable fingerprint" "$T/bad.out")" 1
finish
