#!/bin/bash
# A harness that runs every test and names them by description ("FAILED:
# desc (at line N)", jsmn's shape): a --failure-regex without a test group
# takes the first failure in the output. When that failure lies inside
# another test function the run is refused (exit 3) instead of reducing the
# target on another test's failure; a line group without a file group is
# the location ("line N"); a regex naming the target's description works.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_desc" "$P"
cd "$T"
ANY='^FAILED: (?<message>.+) \(at line (?<line>\d+)\)$'
set +e
"$WHITTLE" reduce --project "$P" --file tests.c --test test_mean --build "make -s" \
    --run ./tests --framework console --failure-regex "$ANY" \
    --cache memory: --out "$T/refused" > "$T/out1" 2>&1
rc=$?
set -e
check_eq "exit status (another test's failure)" "$rc" 3
grep -q "is at line 11 of tests.c, inside another test than test_mean" "$T/out1" \
    && pass "refusal names the line and the test" || { cat "$T/out1"; fail "refusal message"; }
# The first test's own failure is accepted with the same regex.
"$WHITTLE" reduce --project "$P" --file tests.c --test test_sum --build "make -s" \
    --run ./tests --framework console --failure-regex "$ANY" \
    --cache memory: --out "$T/sum" > "$T/out2" 2>&1 || { cat "$T/out2"; fail "reduce test_sum"; }
R=$(run_dir "$T/sum")
check_eq "test_sum location" "$(json "$R/summary.json" .fingerprint.location)" "line 11"
check_eq "test_sum message" "$(json "$R/summary.json" .fingerprint.message)" "sums what was added"
check_eq "test_sum before" "$(json "$R/summary.json" .statements_before)" 7
# A regex that matches only the target's description.
"$WHITTLE" reduce --project "$P" --file tests.c --test test_mean --build "make -s" \
    --run ./tests --framework console \
    --failure-regex '^FAILED: (?<message>mean of the values) \(at line (?<line>\d+)\)$' \
    --cache memory: --out "$T/mean" > "$T/out3" 2>&1 || { cat "$T/out3"; fail "reduce test_mean"; }
R=$(run_dir "$T/mean")
check_eq "test_mean location" "$(json "$R/summary.json" .fingerprint.location)" "line 24"
check_eq "test_mean before" "$(json "$R/summary.json" .statements_before)" 9
grep -q 'expect(m == 5);' "$R/reduced.c" && pass "failing check kept" || fail "failing check lost"
finish
