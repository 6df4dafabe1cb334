#!/bin/bash
# A loop macro with a braced body (ringq_foreach from the project's own
# header, include/ringq/ringq.h) is a Tree statement: the seeded bug makes
# the assert inside the loop fail, and the reduction removes the other
# statements of the body while keeping the loop (15 -> 5 statements). A
# rerun is answered from the cache, compile command included.
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
# A rerun takes the fingerprint and the compile command from the cache and
# builds nothing; the tree parsed with the cached command is the same.
"$WHITTLE" reduce --project "$P" --file tests/test_ringq.c --test test_visit_after_pop \
    --setup "make -s" --build "make -s" --run ./test_ringq --framework cmocka --out "$T/runs2" \
    > "$T/out2" 2>&1 || { cat "$T/out2"; fail "rerun"; }
R2=$(run_dir "$T/runs2")
check_eq "rerun evaluated" "$(json "$R2/summary.json" .evaluated)" 0
grep -q "statement tree with the cached compile command: 15 statements" "$R2/run.log" \
    && pass "rerun parsed with the cached command" || fail "rerun did not use the cached command"
check_eq "rerun reduced the same" "$(cat "$R2/reduced.c")" "$(cat "$R/reduced.c")"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
