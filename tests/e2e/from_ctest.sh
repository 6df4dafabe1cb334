#!/bin/bash
# whittle reduce --from-ctest BUILD_DIR: the failing tests of the last ctest
# run (Testing/Temporary/LastTestsFailed.log) of the ctest_purse fixture,
# built outside the project, are reduced one job each; the list is refused
# once a later ctest run that failed nothing has made it stale.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_purse" "$P"
B="$T/b"
cmake -S "$P" -B "$B" -G Ninja > /dev/null && cmake --build "$B" > /dev/null || fail "fixture build"
ctest --test-dir "$B" > /dev/null 2>&1 && fail "ctest passed on the seeded bug"
check_eq "ctest's list" "$(cat "$B/Testing/Temporary/LastTestsFailed.log" | tr '\n' ' ')" "1:take_half 2:take_twice "
digest=$(tree_digest "$P")
args=(--project "$P" --file tests/test_purse.c
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build"
      --run "ctest --test-dir build" --framework ctest --jobs 2 --out "$T/runs"
      --each) # every failing test reduced (e2e_night groups them first)
"$WHITTLE" reduce --from-ctest "$B" "${args[@]}" > "$T/o" 2> "$T/e" || { cat "$T/o" "$T/e"; fail "from-ctest exit"; }
cat "$T/o" >&2
check_eq "failing tests line" "$(head -n1 "$T/o")" "$B: 2 failing tests"
check_eq "run folders" "$(ls "$T/runs" | grep -v '^latest$' | grep -v '^night[.]' | sed 's/-[0-9-]*$//' | tr '\n' ' ')" \
    "take_half take_twice "
for t in take_half:8:30 take_twice:7:50; do
    IFS=: read -r name before amount <<< "$t"
    R=$(ls -d "$T/runs/$name"-*)
    check_eq "$name statements" "$(json "$R/summary.json" '"\(.statements_before) -> \(.statements_after)"')" \
        "$before -> 2"
    check_eq "$name reduced" "$(awk "/^static void $name/,/^}/" "$R/reduced.c" | tr '\n' ' ' | tr -s ' ')" \
        "static void $name(void) { struct purse p = {0, 0}; purse_take(&p, $amount); } "
done
check_eq "groups line" "$(grep '^Groups' "$T/o")" "Groups (one root cause each): 2 runs, 1 groups"
check_eq "project untouched" "$(tree_digest "$P")" "$digest"
# A later run that fails nothing leaves the old list in place: stale.
sleep 0.05
ctest --test-dir "$B" -R add_only > /dev/null 2>&1 || fail "add_only alone should pass"
"$WHITTLE" reduce --from-ctest "$B" "${args[@]}" > "$T/o2" 2> "$T/e2"
check_eq "stale list exit" "$?" 2
check_eq "stale list error" "$(cat "$T/e2")" \
    "whittle: error: $B/Testing/Temporary/LastTestsFailed.log is older than LastTest.log: it lists the failures of an earlier ctest run (the last run failed no test?); not trusted"
check_eq "stale: nothing reduced" "$(ls "$T/runs" | grep -v '^night[.]' | grep -vc '^latest$')" 2
# A folder where ctest never ran.
mkdir -p "$T/empty"
"$WHITTLE" reduce --from-ctest "$T/empty" "${args[@]}" > /dev/null 2> "$T/e3"
check_eq "no ctest run exit" "$?" 2
check_eq "no ctest run error" "$(cat "$T/e3")" \
    "whittle: error: no ctest run in '$T/empty': $T/empty/Testing/Temporary/LastTest.log is missing"
finish
