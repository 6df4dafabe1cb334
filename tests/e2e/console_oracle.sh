#!/bin/bash
# The console oracle on a silent harness (tests/fixtures/console_silent:
# nothing printed on a pass, "file:line: expected 5, got 4" and abort() on a
# failure). A regex that never matches stops the run (exit 3, no reduced
# test) instead of reducing on the abort alone; a Perl-style \d regex
# reduces 10 -> 3 statements; the reference is judged passing only with
# evidence of a pass, here --pass-on-exit0.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_silent" "$P"
before=$(tree_digest "$P")
REF="$T/fixed"; cp -r "$FIX/console_silent" "$REF"
sed -i 's|stats_sum(v, n) / (n + 1)|stats_sum(v, n) / n|' "$REF/src/stats.c"
grep -q 'stats_sum(v, n) / n :' "$REF/src/stats.c" || fail "reference not patched"
args=(--project "$P" --file tests/test_stats.c --test test_summary --setup "make -s"
      --build "make -s" --run './test_stats {test}' --framework console --cache memory:)
RE='^(?<file>[\w/.]+\.c):(?<line>\d+): (?<message>expected \d+, got \d+)$'

# 1. A regex that matches nothing: exit 3, the output's last lines, no
#    fingerprint and no reduced test.
"$WHITTLE" reduce "${args[@]}" --failure-regex 'NOMATCH(?<message>.*)$' --out "$T/nomatch" \
    > "$T/o1" 2> "$T/e1"
check_eq "nomatch: exit status" "$?" 3
grep -q "^whittle: error: the failure of test_summary is not identified: --failure-regex 'NOMATCH(?<message>.\*)\$' matched nothing" "$T/e1" \
    && pass "nomatch: the error names the regex" || { cat "$T/e1"; fail "nomatch: error"; }
grep -q 'use --framework plain' "$T/e1" && pass "nomatch: says what to try" || fail "nomatch: no hint"
grep -q '^  | tests/test_stats.c:20: expected 5, got 4$' "$T/e1" \
    && pass "nomatch: shows the output's last lines" || fail "nomatch: no output tail"
R=$(run_dir "$T/nomatch")
[ -e "$R/reduced.c" ] && fail "nomatch: a reduced test was written" || pass "nomatch: no reduced test"
[ -e "$R/fingerprint.json" ] && fail "nomatch: a fingerprint was written" || pass "nomatch: no fingerprint"
grep -q 'Fingerprint' "$T/o1" && fail "nomatch: a fingerprint was printed" || pass "nomatch: no fingerprint printed"

# 2. \d as users write it (a literal 'd' in POSIX ERE): the exact answer.
"$WHITTLE" reduce "${args[@]}" --failure-regex "$RE" --out "$T/digits" > "$T/o2" 2>&1 \
    || { cat "$T/o2"; fail "digits: reduce"; }
R=$(run_dir "$T/digits")
check_eq "digits: fingerprint location" "$(json "$R/fingerprint.json" .location)" test_stats.c:20
check_eq "digits: fingerprint message" "$(json "$R/fingerprint.json" .message)" "expected 5, got 4"
check_eq "digits: statements_before" "$(json "$R/summary.json" .statements_before)" 10
check_eq "digits: statements_after" "$(json "$R/summary.json" .statements_after)" 3
want='static void test_summary(void)
{
    int v[4] = {2, 4, 6, 8};
    int m = stats_mean(v, 4);
    CHECK_INT(m, 5);
}'
check_eq "digits: reduced test" "$(awk '/^static void test_summary/,/^}/' "$R/reduced.c")" "$want"
# Without pass evidence a run that shows no failure is not a pass.
check_eq "digits: TestPassed verdicts" "$(grep -c ',TestPassed,' "$R/candidates.csv")" 0

# 3. A reference cannot be judged without evidence of a pass: refused up front.
"$WHITTLE" reduce "${args[@]}" --failure-regex "$RE" --reference "$REF" --out "$T/noev" \
    > "$T/o3" 2>&1
check_eq "no evidence: exit status" "$?" 2
grep -q -- '--reference with --framework console needs evidence of a pass: --pass-regex RE or --pass-on-exit0' "$T/o3" \
    && pass "no evidence: says why" || { cat "$T/o3"; fail "no evidence: message"; }

# 4. --pass-on-exit0: exit status 0 without a failure is a pass, on the
#    candidates and on the reference, which keeps the fault.
"$WHITTLE" reduce "${args[@]}" --failure-regex "$RE" --pass-on-exit0 --reference "$REF" \
    --out "$T/exit0" > "$T/o4" 2>&1 || { cat "$T/o4"; fail "exit0: reduce"; }
R=$(run_dir "$T/exit0")
check_eq "exit0: fault status" "$(json "$R/summary.json" .fault.status)" kept
check_eq "exit0: fault_kept" "$(json "$R/summary.json" .fault.fault_kept)" true
check_eq "exit0: reduced test" "$(awk '/^static void test_summary/,/^}/' "$R/reduced.c")" "$want"
n=$(grep -c ',TestPassed,' "$R/candidates.csv")
[ "$n" -ge 1 ] && pass "exit0: TestPassed verdicts: $n" || fail "exit0: no TestPassed verdict"
check_eq "exit0: job.json" "$(json "$R/job.json" .pass_on_exit0)" true

# 5. A regex PCRE2 cannot compile: exit 2 at validation, with its reason.
"$WHITTLE" reduce "${args[@]}" --failure-regex '(?<file>\d+' --out "$T/bad" > "$T/o5" 2>&1
check_eq "bad regex: exit status" "$?" 2
check_eq "bad regex: message" "$(cat "$T/o5")" \
    "whittle: error: bad --failure-regex '(?<file>\\d+': missing closing parenthesis at offset 11"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
