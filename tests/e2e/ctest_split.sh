#!/bin/bash
# whittle reduce --from-ctest BUILD_DIR alone, standing in the project: the
# ctest_stack fixture registers its cmocka group (three functions, one
# failing on stack_peek's seeded bug) as one CTest test, stack_tests.
# whittle takes the project from the current folder, the setup, build and
# run from what CMake and CTest recorded (moved to the workspace), splits
# the whole-program test into the failing function its output names and
# reduces it. Then the same from ctest's JUnit report, and a plain reduce
# without --project (flags, and a --config without "project").
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_stack" "$P"
(cd "$P" && cmake -S . -B build -G Ninja > /dev/null && cmake --build build > /dev/null) || fail "fixture build"
(cd "$P" && ctest --test-dir build --output-junit report.xml > /dev/null 2>&1) && fail "ctest passed on the seeded bug"
check_eq "ctest's list" "$(cat "$P/build/Testing/Temporary/LastTestsFailed.log")" "1:stack_tests"
# The whole project tree, byte for byte, before and after: standing in the
# project, the run folders go to $XDG_STATE_HOME/whittle/runs/NAME, named on
# the console, never into the project.
before=$(tree_digest "$P")
(cd "$P" && "$WHITTLE" reduce --from-ctest build) > "$T/o" 2> "$T/e"
check_eq "exit" "$?" 0
cat "$T/o" "$T/e" >&2
check_eq "run folders line" "$(head -n1 "$T/o")" \
    "Run folders: $T/state/whittle/runs/p (the current folder is inside the project, which whittle never writes to; --out DIR to choose)"
check_eq "failing tests line" "$(sed -n 2p "$T/o")" "build: 1 failing test"
check_eq "split line" "$(sed -n 3p "$T/o")" \
    "failing test 'stack_tests' is the whole test program; its output (bracket) names 1 failing function: test_peek_sees_top"
check_eq "run folders" "$(ls "$T/state/whittle/runs/p" | grep -v '^latest$' | grep -v '^night[.]' | sed 's/-[0-9-]*$//' | tr '\n' ' ')" \
    "test_peek_sees_top "
check_eq "no whittle-runs in the project" "$(cd "$P" && find . -name whittle-runs)" ""
R=$(ls -d "$T"/state/whittle/runs/p/test_peek_sees_top-*)
check_eq "statements" "$(json "$R/summary.json" '"\(.statements_before) -> \(.statements_after)"')" "11 -> 5"
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .test + " | " + .location + " | " + .message')" \
    "test_peek_sees_top | test_stack.c:33 | 0x8 != 0x7"
want='static void test_peek_sees_top(void **state)
{
    struct stack s = {{0}, 0};
    stack_push(&s, 7);
    stack_push(&s, 8);
    int top = stack_peek(&s);
    assert_int_equal(stack_pop(&s), top);
}'
check_eq "reduced test" "$(awk '/^static void test_peek_sees_top/,/^}/' "$R/reduced.c")" "$want"
# The commands came from CMakeCache.txt and CTestTestfile.cmake, with the
# build folder configured afresh inside the workspace.
check_eq "derived setup" "$(json "$R/job.json" .setup)" "cmake -S '.' -B 'build' -G 'Ninja' && cmake --build 'build' --target 'test_stack'"
check_eq "derived build" "$(json "$R/job.json" .build)" "cmake --build 'build' --target 'test_stack'"
check_eq "derived run" "$(json "$R/job.json" .run)" "W=\$PWD && cd \"\$W\"/'build' && \"\$W\"/'build/test_stack'"
check_eq "framework" "$(json "$R/job.json" '.framework + " " + .project')" "cmocka $P"
check_eq "project untouched" "$(tree_digest "$P")" "$before"
# ctest's JUnit report (in the build folder) splits the same way, from its
# <system-out>; the cache answers every candidate.
(cd "$P" && "$WHITTLE" reduce --from-junit build/report.xml --out "$T/jruns") > "$T/jo" 2> "$T/je"
check_eq "junit exit" "$?" 0
check_eq "junit split line" "$(sed -n 2p "$T/jo")" \
    "failing test 'stack_tests' is the whole test program; its output (bracket) names 1 failing function: test_peek_sees_top"
JR=$(ls -d "$T"/jruns/test_peek_sees_top-*)
check_eq "junit reduced test" "$(awk '/^static void test_peek_sees_top/,/^}/' "$JR/reduced.c")" "$want"
check_eq "junit evaluated" "$(json "$JR/summary.json" .evaluated)" 0
# A plain reduce standing in the project needs no --project; nor does a
# --config file without "project".
(cd "$P" && "$WHITTLE" reduce --file tests/test_stack.c --test test_peek_sees_top \
    --setup "$(json "$R/job.json" .setup)" --build "$(json "$R/job.json" .build)" \
    --run "$(json "$R/job.json" .run)" --out "$T/pruns" -q) > "$T/po" 2> "$T/pe"
check_eq "plain reduce exit" "$?" 0
check_eq "plain reduce project" "$(json "$(run_dir "$T/pruns")/job.json" .project)" "$P"
jq '{file, test, setup, build, run}' "$R/job.json" > "$T/w.json"
(cd "$P" && "$WHITTLE" reduce --config "$T/w.json" --out "$T/cruns" -q) > "$T/co" 2> "$T/ce"
check_eq "config reduce exit" "$?" 0
check_eq "config reduce project" "$(json "$(run_dir "$T/cruns")/job.json" .project)" "$P"
# From a folder below the project (its build folder) too; from outside it,
# ./whittle-runs as before (the cache answers both).
(cd "$P/build" && "$WHITTLE" reduce --project .. --file tests/test_stack.c --test test_peek_sees_top \
    --setup "$(json "$R/job.json" .setup)" --build "$(json "$R/job.json" .build)" \
    --run "$(json "$R/job.json" .run)") > "$T/bo" 2> "$T/be"
check_eq "below the project: exit, run folders line" "$? $(grep '^Run folders:' "$T/bo")" \
    "0 Run folders: $T/state/whittle/runs/p (the current folder is inside the project, which whittle never writes to; --out DIR to choose)"
mkdir "$T/outside"
(cd "$T/outside" && "$WHITTLE" reduce --project ../p --file tests/test_stack.c --test test_peek_sees_top \
    --setup "$(json "$R/job.json" .setup)" --build "$(json "$R/job.json" .build)" \
    --run "$(json "$R/job.json" .run)" -q) > "$T/xo" 2> "$T/xe"
check_eq "outside the project: exit, ./whittle-runs" "$? $(ls "$T/outside/whittle-runs" | grep -c '^test_peek_sees_top-')" "0 1"
check_eq "project still untouched" "$(tree_digest "$P")" "$before"

# In a git project whose bug is an uncommitted change, --from-ctest picks
# the reference as `whittle reduce` does for one test (--reference auto, the
# default): HEAD, named on the console; the fault is kept. (It was never
# applied to the jobs of a report: the fault went unchecked, seen on cJSON.)
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
       GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
G="$T/g"; cp -r "$FIX/ctest_stack" "$G"
sed -i 's/return s->count > 0 ? s->items\[0\] : -1;/return s->count > 0 ? s->items[s->count - 1] : -1;/' "$G/src/stack.c"
(cd "$G" && git init -q && git add -A && git commit -qm fixed) || fail "git fixture"
cp "$FIX/ctest_stack/src/stack.c" "$G/src/stack.c" # the bug, uncommitted
(cd "$G" && cmake -S . -B build -G Ninja > /dev/null && cmake --build build > /dev/null) || fail "git fixture build"
(cd "$G" && ctest --test-dir build > /dev/null 2>&1) && fail "ctest passed on the uncommitted bug"
(cd "$G" && "$WHITTLE" reduce --from-ctest build --out "$T/gruns") > "$T/go" 2> "$T/ge"
check_eq "git: exit" "$?" 0
grep -q "^reference: HEAD [0-9a-f]\{12\} (" "$T/go" && pass "git: the console names HEAD as the reference" \
    || { cat "$T/go" "$T/ge"; fail "git: no reference line"; }
GR=$(ls -d "$T"/gruns/test_peek_sees_top-*)
check_eq "git: fault_kept" "$(json "$GR/summary.json" .fault_kept)" true
check_eq "git: nothing written to the repository" "$(cd "$G" && git status --porcelain | grep -v '^?? build/$')" " M src/stack.c"
finish
