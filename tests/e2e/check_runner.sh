#!/bin/bash
# A test file another file #includes (issue 33, item 7): the Check runner
# tests/runner.c includes <check.h>, <stdlib.h> and art.h, then
# tests/test_art.c, which uses START_TEST without including anything and
# does not parse alone. Without flags whittle parses it as its includer sees
# it (-include check.h ...): inspect lists its tests and reduce reduces one
# with the check preset. With the user's own flags it does not guess: the
# error names the first parse error, the includer and the flags to give.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/check_runner" "$P"
before=$(tree_digest "$P")
cd "$P"

"$WHITTLE" inspect tests/test_art.c --list > "$T/list" 2> "$T/list.err"
check_eq "inspect --list: exit" "$?" 0
check_eq "inspect --list: the included file's tests" "$(tr '\n' ' ' < "$T/list")" \
    "test_art_insert test_art_empty "

"$WHITTLE" reduce --project "$P" --file tests/test_art.c --test test_art_insert \
    --setup "make -s" --build "make -s" --run "./runner" \
    --out "$T/runs" --cache memory: > "$T/out" 2>&1
check_eq "reduce: exit" "$?" 0
grep -q "^framework: check (from the test file's includes" "$T/out" \
    && pass "framework: check, from the includer's includes" \
    || { cat "$T/out"; fail "framework not check"; }
R=$(run_dir "$T/runs")
want='START_TEST(test_art_insert)
{
    struct art a = {0};
    art_put(&a, "apple");
    ck_assert_int_eq(art_size(&a), 2);
}'
check_eq "reduced test" "$(awk '/^START_TEST\(test_art_insert\)/,/^}/' "$R/reduced.c")" "$want"
check_eq "fingerprint message" "$(json "$R/summary.json" .fingerprint.message)" \
    "Assertion 'art_size(&a) == 2' failed: art_size(&a) == 1, 2 == 2"

# The user's own flags: no guess; the error says why and what to give.
"$WHITTLE" reduce --project "$P" --file tests/test_art.c --test test_art_insert \
    --setup "make -s" --build "make -s" --run "./runner" \
    --out "$T/runs2" --cache memory: -- -Isrc > "$T/out2" 2> "$T/err2"
check_eq "explicit flags: exit" "$?" 1
err=$(grep "^whittle: error:" "$T/err2")
case "$err" in
*"test 'test_art_insert' not found in $P/tests/test_art.c, which does not parse: $P/tests/test_art.c:5:16: error: variable has incomplete type 'struct art'"*)
    pass "error: not found, and the first parse error";;
*) fail "error does not name the parse error: $err";;
esac
case "$err" in
*"tests/test_art.c is #included by tests/runner.c (line 6), and parses only as part of it: give -- -include check.h -include stdlib.h -include art.h"*)
    pass "error: the includer and the flags";;
*) fail "error does not name the includer and its flags: $err";;
esac
check_eq "explicit flags: one error line" "$(grep -c "^whittle: error:" "$T/err2")" 1
# With those flags the file parses.
"$WHITTLE" inspect tests/test_art.c --list -- -Isrc -include check.h -include stdlib.h \
    -include art.h > "$T/list2" 2>&1
check_eq "the advised flags: inspect --list" "$(tr '\n' ' ' < "$T/list2")" \
    "test_art_insert test_art_empty "
cd /
check_eq "project untouched" "$(tree_digest "$P")" "$before"
finish
