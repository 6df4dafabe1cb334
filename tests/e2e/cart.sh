#!/bin/bash
# Figure 1.1 of the thesis in C: HDD ends at 4 statements (the coupon goes in
# the second sweep), --algorithm dd at 6, --algorithm linear at the same 4. The reduced test, built and run on
# its own, fails with the original fingerprint; the project is untouched;
# the answer is the same for 1, 2 and 4 slots.
. "$(dirname "$0")/lib.sh"
P="$T/cart"; cp -r "$FIX/cart" "$P"
before=$(tree_digest "$P")
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --run "build/test_cart" --framework cmocka)

# inspect: the hierarchy as in the thesis's Figure 3.1, and the test list
want_tree='Statement hierarchy for test_added_item_is_in_cart:
L0 [NonTree] struct cart *cart = cart_new();
L0 [NonTree] struct coupon *coupon = coupon_new("SAVE10");
L0 [NonTree] cart_add(cart, "apple");
L0 [Tree] for (size_t i = 0; i < cart_count(cart); i++) {
  L1 [NonTree] cart_apply(cart, coupon);
  L1 [NonTree] assert_string_equal("apple", cart_item(cart, i)->name);
L0 [NonTree] assert_int_equal(1, cart_count(cart));
Totals: 7 statements | NonTree (#NTN): 6 | Tree (#TN): 1 | deepest level: 1'
check_eq "inspect" "$("$WHITTLE" inspect "$P/tests/test_cart.c" --test test_added_item_is_in_cart 2>&1)" "$want_tree"
check_eq "inspect --list" "$("$WHITTLE" inspect "$P/tests/test_cart.c" --list 2>&1 | tr '\n' ' ')" "test_added_item_is_in_cart test_empty_cart_has_no_items "
check_eq "inspect --json totals" "$("$WHITTLE" inspect "$P/tests/test_cart.c" --test test_added_item_is_in_cart --json | jq -c .totals)" '{"statements":7,"nontree":6,"tree":1,"deepest":1}'

"$WHITTLE" reduce "${args[@]}" --out "$T/hdd" --cache memory: > "$T/hdd.out" 2>&1 || { cat "$T/hdd.out"; fail "hdd run"; }
R=$(run_dir "$T/hdd")
check_eq "hdd statements_before" "$(json "$R/summary.json" .statements_before)" 7
check_eq "hdd statements_after" "$(json "$R/summary.json" .statements_after)" 4
# CMake wrote compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS=ON in the
# setup's environment): the tree used the test file's exact command.
check_eq "compile command file" "$(json "$R/compile_command.json" .file)" "$P/tests/test_cart.c"
check_eq "compile command -I (project first)" "$(json "$R/compile_command.json" '[.arguments[] | select(startswith("-I"))][0]')" "-I$P/src"
# Every path in it is the project's: none into a workspace (deleted when the
# run ends), the one that ran the baseline or another slot's it was cloned from.
check_eq "compile command: no path into a workspace" "$(grep -c '/work/ws/' "$R/compile_command.json")" 0
check_eq "hdd tree_after" "$(json "$R/summary.json" .tree_after)" 1
check_eq "hdd sweeps" "$(json "$R/summary.json" .sweeps)" 3
# 9 rounds of the walk; they go out as chains (chain.h), and a chain goes on
# into the next round whenever its steps come out as expected: on one slot 3
# chains build something (one per Preserved surprise, and the last one, whose
# third sweep is answered by the cache; the prior, the failing assert's
# slice, expects one Preserved step the default would not: 4 with --prior
# none). Before chains every round went out alone: 8 building rounds, for
# the same 12 candidates and verdicts.
check_eq "hdd rounds, building rounds" "$(json "$R/summary.json" .rounds) $(json "$R/summary.json" .building_rounds)" "9 3"
check_eq "hdd fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" '"apple" != "appl"'
check_eq "hdd fingerprint location" "$(json "$R/summary.json" .fingerprint.location)" "test_cart.c:19"
check_eq "hdd PrTRS" "$(json "$R/summary.json" .PrTRS)" 0
want_body='static void test_added_item_is_in_cart(void **state)
{
    struct cart *cart = cart_new();
    cart_add(cart, "apple");
    for (size_t i = 0; i < cart_count(cart); i++) {
        assert_string_equal("apple", cart_item(cart, i)->name);
    }
}'
got_body=$(awk '/^static void test_added_item_is_in_cart/,/^}/' "$R/reduced.c")
check_eq "hdd reduced test" "$got_body" "$want_body"
# line-true: same number of lines, the failing assert on its original line
check_eq "line-true line count" "$(wc -l < "$R/reduced.lines.c")" "$(wc -l < "$P/tests/test_cart.c")"
check_eq "assert stays on line 19" "$(sed -n 19p "$R/reduced.lines.c" | tr -s ' ')" ' assert_string_equal("apple", cart_item(cart, i)->name);'
for f in original.c reduced.c reduced.lines.c fingerprint.json run.log candidates.csv summary.txt summary.json; do
    [ -s "$R/$f" ] && pass "record has $f" || fail "record lacks $f"
done
# reduced.diff: the original to reduced.c, exactly, with `patch -p1` in a
# copy of the project and with `patch FILE`; the console shows it too.
D="$T/diffcheck"; cp -r "$FIX/cart" "$D"
(cd "$D" && patch -s -p1 < "$R/reduced.diff") && cmp -s "$D/tests/test_cart.c" "$R/reduced.c" \
    && pass "reduced.diff with patch -p1 gives reduced.c" || fail "reduced.diff with patch -p1 does not give reduced.c"
cp "$R/original.c" "$T/plain.c"
patch -s "$T/plain.c" < "$R/reduced.diff" && cmp -s "$T/plain.c" "$R/reduced.c" \
    && pass "reduced.diff with patch FILE gives reduced.c" || fail "reduced.diff with patch FILE does not give reduced.c"
check_eq "diff header" "$(head -n2 "$R/reduced.diff" | tr '\n' ' ')" "--- a/tests/test_cart.c +++ b/tests/test_cart.c "
check_eq "diff removes the three statements" "$(grep '^-[^-]' "$R/reduced.diff" | sed 's/^- *//' | tr '\n' '|')" \
    'struct coupon *coupon = coupon_new("SAVE10");|cart_apply(cart, coupon);|assert_int_equal(1, cart_count(cart));|'
check_eq "diff adds nothing" "$(grep -c '^+[^+]' "$R/reduced.diff")" 0
sed -n '/^Diff (/,/^Report: /p' "$T/hdd.out" | sed '1d;$d' > "$T/console.diff"
cmp -s "$T/console.diff" "$R/reduced.diff" && pass "console prints reduced.diff" || fail "console does not print reduced.diff"
n_reports=$(ls "$R/reports" | wc -l)
check_eq "one report per evaluated candidate (+ original, + verify runs)" "$n_reports" "$(( $(json "$R/summary.json" .evaluated) + 1 + $(json "$R/summary.json" .verify_runs) ))"
check_eq "verified afresh, once" "$(json "$R/summary.json" .verified) $(json "$R/summary.json" .verify_runs) $(json "$R/summary.json" .verdicts_dropped)" "true 1 0"
check_eq "csv rows = candidates" "$(( $(wc -l < "$R/candidates.csv") - 1 ))" "$(json "$R/summary.json" .candidates)"

# The reduced test on its own, in a fresh copy: fails with the fingerprint.
V="$T/verify"; cp -r "$FIX/cart" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_cart.c"
(cd "$V" && cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null) || fail "reduced test does not build on its own"
(cd "$V" && CMOCKA_MESSAGE_OUTPUT=xml CMOCKA_XML_FILE="$T/verify.xml" build/test_cart >/dev/null 2>&1)
grep -q '"apple" != "appl"' "$T/verify.xml" && grep -q 'tests/test_cart.c:19: error' "$T/verify.xml" \
    && pass "reduced test fails with the original fingerprint" || fail "reduced test does not fail the same way"

# Flat DD baseline: 6 statements.
"$WHITTLE" reduce "${args[@]}" --algorithm dd --out "$T/dd" --cache memory: > "$T/dd.out" 2>&1 || { cat "$T/dd.out"; fail "dd run"; }
R2=$(run_dir "$T/dd")
check_eq "dd statements_after" "$(json "$R2/summary.json" .statements_after)" 6

# The gold-standard walk (--algorithm linear): one statement at a time, top
# to bottom, per level; the same 4 statements. Rounds: sweep 1 = 1 at the top
# (assert_count, the 5th, goes) + 2 in the loop (apply goes, then
# assert_name); sweep 2 = 2 at the top (coupon goes, then add and loop) + 1;
# sweep 3 = 1 + 1, both answered by the cache. They go out as chains: 3 of
# them build something on one slot (4 with --prior none, 6 when every round
# went out alone).
"$WHITTLE" reduce "${args[@]}" --algorithm linear --out "$T/lin" --cache memory: > "$T/lin.out" 2>&1 || { cat "$T/lin.out"; fail "linear run"; }
R3=$(run_dir "$T/lin")
check_eq "linear summary" "$(json "$R3/summary.json" '[.algorithm, .statements_after, .sweeps, .rounds, .building_rounds] | join(" ")')" "linear 4 3 8 3"
cmp -s "$R/reduced.c" "$R3/reduced.c" && pass "linear: the same reduced test as hdd" || fail "linear: a different reduced test"

# Same answer, same verdict sequence, for 2 and 4 slots.
seq1=$(cut -d, -f1-7 "$R/candidates.csv" | cut -d, -f1-6)
for n in 2 4; do
    "$WHITTLE" reduce "${args[@]}" --jobs $n --out "$T/j$n" --cache memory: > "$T/j$n.out" 2>&1 || { cat "$T/j$n.out"; fail "jobs $n run"; }
    Rn=$(run_dir "$T/j$n")
    cmp -s "$R/reduced.c" "$Rn/reduced.c" && pass "jobs $n: same reduced test" || fail "jobs $n: different reduced test"
    check_eq "jobs $n: compile command: no path into a workspace" "$(grep -c '/work/ws/' "$Rn/compile_command.json")" 0
    check_eq "jobs $n: same candidate sequence and verdicts" "$(cut -d, -f1-6 "$Rn/candidates.csv")" "$seq1"
    # summary.txt names the slots that answered (judged.csv), not --jobs
    check_eq "jobs $n: summary.txt slots that judged" \
        "$(sed -n 's/^wall time: .*(slots that judged: \([0-9]*\),.*/\1/p' "$Rn/summary.txt")" \
        "$(tail -n +2 "$Rn/judged.csv" | cut -d, -f3 | sort -u | grep -vc '^-$')"
done

check_eq "project byte-identical after the runs" "$(tree_digest "$P")" "$before"
finish
