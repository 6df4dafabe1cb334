#!/bin/bash
# A loop macro with a braced body (ringq_foreach from the project's own
# header, include/ringq/ringq.h) is a Tree statement: the seeded bug makes
# the assert inside the loop fail, and the reduction removes the other
# statements of the body while keeping the loop (15 -> 5 statements).
. "$(dirname "$0")/lib.sh"
P="$T/ringq"; cp -r "$FIX/ringq" "$P"
before=$(tree_digest "$P")
"$WHITTLE" reduce --project "$P" --file tests/test_ringq.c --test test_visit_after_pop \
    --setup "make -s" --build "make -s" --run ./test_ringq --framework cmocka --out "$T/runs" \
    > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 15
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 5
check_eq "tree_after (the loop)" "$(json "$R/summary.json" .tree_after)" 1
want='static void test_visit_after_pop(void **state)
{
    struct ringq q = RINGQ_INIT;
    int v = 0, sum = 0, count = 0;
    for (int k = 0; k < 6; k++)
        ringq_push(&q, k);
    ringq_foreach(&q, i, v) {
        assert_true(v >= 2);
    }
}'
got=$(sed -n '/^static void test_visit_after_pop/,/^}/p' "$R/reduced.c")
check_eq "reduced test" "$got" "$want"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
