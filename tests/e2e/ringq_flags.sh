#!/bin/bash
# Compile flags, every statement seen (issue 8):
#  1. the header guess finds the include/NAME/NAME.h layout: `inspect` with
#     no flags counts the same statements as with the exact -Iinclude;
#  2. a header that cannot be found stops `inspect` with exit 1, naming it
#     and the fix; --allow-parse-errors parses anyway (and 11 of the 15
#     statements are gone);
#  3. a make project's setup runs under bear: the run folder holds the test
#     file's exact compile command, moved from the workspace to the project
#     (and flags after `--` still win over it, a relative -I taken in the
#     project, not the current folder);
#  4. a header only the build generates, with no setup to record flags:
#     `reduce` stops with exit 1 naming the header and the fix;
#  5. the same with the generation in --setup: bear records the command,
#     whose workspace include folder makes the header visible, and the
#     reduction sees all 15 statements; a rerun finds the cached command
#     stale (the workspace is gone) and runs the original again.
. "$(dirname "$0")/lib.sh"
P="$T/ringq"; cp -r "$FIX/ringq" "$P"
before=$(tree_digest "$P")
count() { jq -r .totals.statements; }

# 1
guess=$("$WHITTLE" inspect "$P/tests/test_ringq.c" --test test_visit_after_pop --json | count)
exact=$(cd "$P" && "$WHITTLE" inspect "$P/tests/test_ringq.c" --test test_visit_after_pop --json \
        -- -I"$P/include" | count)
check_eq "statements with the header guess" "$guess" 15
check_eq "statements with -Iinclude" "$exact" 15

# 2
M="$T/missing"; cp -r "$FIX/ringq" "$M"; rm -r "$M/include"
"$WHITTLE" inspect "$M/tests/test_ringq.c" --test test_visit_after_pop > "$T/o2" 2> "$T/e2"
check_eq "inspect exit with a missing header" "$?" 1
check_eq "message" "$(cat "$T/e2")" "whittle: error: $M/tests/test_ringq.c:7:10: error: 'ringq/ringq.h' file not found; what depends on it would be missing from the statement tree: give -p BUILD_DIR (a compile_commands.json), -- -I... flags, or --allow-parse-errors"
"$WHITTLE" inspect "$M/tests/test_ringq.c" --test test_visit_after_pop --allow-parse-errors \
    > "$T/o2" 2> "$T/e2"
check_eq "inspect --allow-parse-errors exit" "$?" 0
grep -q "warning: .*'ringq/ringq.h' file not found" "$T/e2" && pass "warning printed" \
    || fail "no warning: $(cat "$T/e2")"
# ... and shows why the default refuses: 11 of the 15 statements vanish
check_eq "statements without the header" "$(grep -o 'Totals: [0-9]* statements' "$T/o2")" "Totals: 4 statements"

# 3
"$WHITTLE" reduce --project "$P" --file tests/test_ringq.c --test test_visit_after_pop \
    --setup "make -s" --build "make -s" --run ./test_ringq --framework cmocka --out "$T/runs3" \
    > "$T/out3" 2>&1 || { cat "$T/out3"; fail "reduce with bear"; }
R=$(run_dir "$T/runs3")
cc="$R/compile_command.json"
check_eq "compile command file" "$(json "$cc" .file)" "$P/tests/test_ringq.c"
check_eq "compile command directory" "$(json "$cc" .directory)" "$P"
check_eq "compile command -I (project first)" "$(json "$cc" '[.arguments[] | select(startswith("-I"))][0]')" "-I$P/include"
check_eq "compile command -D/-O flags" "$(json "$cc" '[.arguments[] | select(. == "-O0" or . == "-g")] | join(" ")')" "-O0 -g"
grep -q "statement tree with the workspace's compile command: 15 statements" "$R/run.log" \
    && pass "tree parsed with the recorded command" || fail "run.log does not say the tree used it"

# 3b: flags after `--` win: the workspace's command is neither used nor kept;
# a relative -I names a folder of the project (as --file does), not of the
# folder whittle was started in (issue 33 item 7)
(cd "$T" && "$WHITTLE" reduce --project "$P" --file tests/test_ringq.c --test test_visit_after_pop \
    --setup "make -s" --build "make -s" --run ./test_ringq --framework cmocka --out "$T/runs3b" \
    -- -Iinclude) > "$T/out3b" 2>&1 || { cat "$T/out3b"; fail "reduce with -- flags"; }
R3b=$(run_dir "$T/runs3b")
[ -e "$R3b/compile_command.json" ] && fail "explicit flags: the workspace's command was used" \
    || pass "explicit flags: no compile_command.json"
check_eq "statements_after with -- flags" "$(json "$R3b/summary.json" .statements_after)" 5

# 4
G="$T/gen"; cp -r "$FIX/ringq" "$G"; mv "$G/include/ringq/ringq.h" "$G/ringq.h.in"; rm -r "$G/include"
gen='mkdir -p include/ringq && cp ringq.h.in include/ringq/ringq.h && make -s'
"$WHITTLE" reduce --project "$G" --file tests/test_ringq.c --test test_visit_after_pop \
    --build "$gen" --run ./test_ringq --framework cmocka --out "$T/runs4" > "$T/out4" 2> "$T/err4"
check_eq "reduce exit with a header nobody can see" "$?" 1
check_eq "message" "$(cat "$T/err4" | head -n1)" "whittle: error: $G/tests/test_ringq.c:7:10: error: 'ringq/ringq.h' file not found; the statement tree may be incomplete and the workspace recorded no compile command for tests/test_ringq.c: give -p BUILD_DIR (a compile_commands.json), -- -I... flags, or --allow-parse-errors"

# 5
"$WHITTLE" reduce --project "$G" --file tests/test_ringq.c --test test_visit_after_pop \
    --setup "$gen" --build "$gen" --run ./test_ringq --framework cmocka --out "$T/runs5" \
    > "$T/out5" 2>&1 || { cat "$T/out5"; fail "reduce with a generated header"; }
R5=$(run_dir "$T/runs5")
check_eq "statements_before (generated header)" "$(json "$R5/summary.json" .statements_before)" 15
check_eq "statements_after (generated header)" "$(json "$R5/summary.json" .statements_after)" 5
# rerun: the cached command named the workspace's include folder, gone with
# the workspace (the kept workspaces evicted); it no longer parses, so the
# original runs again
rm -rf "$WHITTLE_CACHE_DIR/work"
"$WHITTLE" reduce --project "$G" --file tests/test_ringq.c --test test_visit_after_pop \
    --setup "$gen" --build "$gen" --run ./test_ringq --framework cmocka --out "$T/runs6" \
    > "$T/out6" 2>&1 || { cat "$T/out6"; fail "rerun with a generated header"; }
R6=$(run_dir "$T/runs6")
grep -q "cached compile command does not parse now" "$R6/run.log" \
    && pass "stale cached command: the original ran again" || fail "stale cached command not noticed"
check_eq "statements_after (rerun)" "$(json "$R6/summary.json" .statements_after)" 5
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
