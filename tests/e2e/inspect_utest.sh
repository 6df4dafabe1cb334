#!/bin/bash
# utest.h files (json.h's tests, issue 19): `inspect --list` lists each
# UTEST(set, name) as "set.name"; --test takes that name or the function
# utest_run_set_name the macro defines; reduce (console preset over
# utest's own lines, which print "set.name") reduces it by that name.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/utest_mini" "$P"
check_eq "inspect --list" "$(cd "$P" && "$WHITTLE" inspect tests/test_parity.c --list 2>&1 | tr '\n' ' ')" \
    "parity.small parity.top_bit "
for name in parity.top_bit utest_run_parity_top_bit; do
    "$WHITTLE" inspect "$P/tests/test_parity.c" --test "$name" > "$T/tree" 2>&1
    check_eq "inspect --test $name" "$(head -n1 "$T/tree") $(tail -n1 "$T/tree")" \
        "Statement hierarchy for parity.top_bit: Totals: 4 statements | NonTree (#NTN): 4 | Tree (#TN): 0 | deepest level: 0"
done
"$WHITTLE" reduce --project "$P" --file tests/test_parity.c --test parity.top_bit \
    --setup "make -s" --build "make -s" --run ./test_parity --framework console \
    --failure-regex '(?m)^\[ RUN      \] (?<test>\S+)\n(?<file>[^:\n]+):(?<line>\d+): Failure\n(?<message>(?:  .*\n)+)' \
    --pass-regex '^\[       OK \] (?<test>\S+)' --reference none \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "fingerprint" "$(json "$R/summary.json" '.fingerprint | .test + " | " + .location + " | " + .message')" \
    "parity.top_bit | test_parity.c:16 | Expected : 1 Actual : 0"
want='UTEST(parity, top_bit)
{
    unsigned top = 0x80000000u;
    EXPECT_EQ(parity(top), 1);
}'
check_eq "reduced test" "$(awk '/^UTEST\(parity, top_bit\)/,/^}/' "$R/reduced.c")" "$want"
# With no --framework: utest.h's XML says nothing of a failure, so the
# console preset with utest's regexes is the default for a file that
# includes it; the same fingerprint and the same reduced test.
"$WHITTLE" reduce --project "$P" --file tests/test_parity.c --test parity.top_bit \
    --setup "make -s" --build "make -s" --run ./test_parity --reference none \
    --cache memory: --out "$T/runs-auto" > "$T/out-auto" 2>&1 || { cat "$T/out-auto"; fail "reduce (no --framework)"; }
grep -q "^framework: console (utest.h's console output, from the test file's includes; --framework to choose another)$" "$T/out-auto" \
    && pass "the console preset is said" || fail "framework line: $(grep '^framework' "$T/out-auto")"
R2=$(run_dir "$T/runs-auto")
check_eq "no --framework: fingerprint" "$(json "$R2/summary.json" '.fingerprint | .test + " | " + .location + " | " + .message')" \
    "parity.top_bit | test_parity.c:16 | Expected : 1 Actual : 0"
check_eq "no --framework: reduced test" "$(awk '/^UTEST\(parity, top_bit\)/,/^}/' "$R2/reduced.c")" "$want"
# By the function the macro defines: the job takes the name utest prints
# (before, the oracle looked for 'utest_run_parity_top_bit' in the output
# and said the failure was not identified).
"$WHITTLE" reduce --project "$P" --file tests/test_parity.c --test utest_run_parity_top_bit \
    --setup "make -s" --build "make -s" --run ./test_parity --reference none \
    --cache memory: --out "$T/runs-fn" > "$T/out-fn" 2>&1 || { cat "$T/out-fn"; fail "reduce --test utest_run_parity_top_bit"; }
R3=$(run_dir "$T/runs-fn")
check_eq "by function name: test in job.json" "$(json "$R3/job.json" .test)" parity.top_bit
check_eq "by function name: reduced test" "$(awk '/^UTEST\(parity, top_bit\)/,/^}/' "$R3/reduced.c")" "$want"
finish
