#!/bin/bash
# `whittle inspect FILE` without flags (issue 19): the project root is the
# git work tree's top, else the outermost of the build-file folders in a
# row above the file, not the nearest (tests/ has a CMakeLists.txt too, the
# headers are in include/ at the top). A header that is still not found is
# named by --list and by --test, never hidden behind "(no tests)".
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/nested_root" "$P"
check_eq "list, root above tests/CMakeLists.txt" \
    "$(cd "$P" && "$WHITTLE" inspect tests/test_ring.c --list 2>&1 | tr '\n' ' ')" \
    "test_capacity_rounds_up test_capacity_exact "
check_eq "test, root above tests/CMakeLists.txt" \
    "$("$WHITTLE" inspect "$P/tests/test_ring.c" --test test_capacity_rounds_up 2>&1 | tail -n1)" \
    "Totals: 2 statements | NonTree (#NTN): 2 | Tree (#TN): 0 | deepest level: 0"

# Without the top CMakeLists.txt and without git, the root is tests/ and
# the header is not found: both commands say so, exit 1.
Q="$T/q"; cp -r "$FIX/nested_root" "$Q"; rm "$Q/CMakeLists.txt"
fix="what depends on it would be missing from the statement tree: give -p BUILD_DIR (a compile_commands.json), -- -I... flags, or --allow-parse-errors"
(cd "$Q" && "$WHITTLE" inspect tests/test_ring.c --list) > "$T/o" 2> "$T/e"
check_eq "list exit, header not found" "$?" 1
check_eq "list error" "$(cat "$T/e")" \
    "whittle: error: tests/test_ring.c:1:10: error: 'nr/ring.h' file not found; $fix"
(cd "$Q" && "$WHITTLE" inspect tests/test_ring.c --test test_capacity_exact) > "$T/o" 2> "$T/e"
check_eq "test exit, header not found" "$?" 1
check_eq "test error" "$(cat "$T/e")" \
    "whittle: error: test 'test_capacity_exact' not found in tests/test_ring.c, which does not parse: tests/test_ring.c:1:10: error: 'nr/ring.h' file not found; $fix"

# The same folder as a git work tree: its top is the root.
git -C "$Q" init -q
check_eq "list, git top" "$(cd "$Q/tests" && "$WHITTLE" inspect test_ring.c --list 2>&1 | tr '\n' ' ')" \
    "test_capacity_rounds_up test_capacity_exact "
check_eq "test, git top" "$("$WHITTLE" inspect "$Q/tests/test_ring.c" --test test_capacity_exact 2>&1 | tail -n1)" \
    "Totals: 1 statements | NonTree (#NTN): 1 | Tree (#TN): 0 | deepest level: 0"

# A build file above folders without one is not the project's: the row of
# build-file folders ends at inner/ (no CMakeLists.txt), so $T, with a
# Makefile written for this test, is not the root; tests/ is, and the
# header is not found.
R="$T/r/inner"; mkdir -p "$T/r"; cp -r "$FIX/nested_root" "$R"; rm "$R/CMakeLists.txt"
printf 'all:\n' > "$T/Makefile"
(cd "$R" && "$WHITTLE" inspect tests/test_ring.c --list) > "$T/o" 2> "$T/e"
check_eq "list exit, a build file two folders above" "$?" 1
# A file with no test function recognised: said on stderr, not an empty answer.
printf 'static int helper(void) { return 1; }\nint main(void) { return helper(); }\n' > "$T/plain_main.c"
"$WHITTLE" inspect "$T/plain_main.c" --list > "$T/o" 2> "$T/e"
check_eq "no tests: exit" "$?" 0
check_eq "no tests: stdout" "$(cat "$T/o")" ""
check_eq "no tests: said" "$(cat "$T/e")" "whittle: no test function recognised in $T/plain_main.c; --test NAME takes any function it defines (main, a registered s_test_..._fn)"
finish
