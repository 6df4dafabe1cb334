#!/bin/bash
# The fault is kept by default when it can be checked. tests/fixtures/tally
# asserts `total == 8` with no values in the message, and its library adds
# where it should multiply (a seeded AOR mutant); tally_fixed is the clean
# version.
#  - Without --reference the default fingerprint loses the fault: deleting
#    the computation keeps the message, the reduced test no longer calls the
#    library, and the run ends saying the fault was not checked.
#  - With --reference (keep-fault by default) the reduced test keeps the
#    computation: it fails on the mutant and passes on the clean version,
#    and summary.json says "fault_kept": true.
#  - Both runs are verified: the reduced test built and run afresh.
. "$(dirname "$0")/lib.sh"
P="$T/tally"; cp -r "$FIX/tally" "$P"; F="$T/tally_fixed"; cp -r "$FIX/tally_fixed" "$F"
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain --cache memory:)

"$WHITTLE" reduce "${args[@]}" --out "$T/plain" > "$T/o1" 2>&1 || { cat "$T/o1"; fail "run without reference"; }
R=$(run_dir "$T/plain")
grep -q "^Fault check: fault not checked: .*--reference DIR|GIT-REV" "$T/o1" \
    && pass "console: fault not checked, names --reference" || { cat "$T/o1"; fail "console does not say the fault was not checked"; }
grep -q "^fault: *fault not checked" "$R/summary.txt" && pass "summary.txt: fault not checked" || fail "summary.txt does not say the fault was not checked"
check_eq "no reference: fault_kept" "$(json "$R/summary.json" .fault_kept)" null
check_eq "no reference: verified" "$(json "$R/summary.json" .verified)" true
check_eq "no reference: statements" "$(json "$R/summary.json" .statements_before) -> $(json "$R/summary.json" .statements_after)" "8 -> 2"
want_lost='static void test_total(void)
{
    int total = 0;
    assert(total == 8);
}'
check_eq "no reference: reduced test (the fault is lost)" "$(awk '/^static void test_total/,/^}/' "$R/reduced.c")" "$want_lost"

# The setup notes when it starts and ends: the reference's workspace is set
# up beside the main one, not after it (one slot: both setups overlap).
stamp() { echo "echo $1 >> '$T/stamps'"; }
kargs=("${args[@]}")
kargs[7]="$(stamp start); sleep 1; make -s; $(stamp end)"
"$WHITTLE" reduce "${kargs[@]}" --jobs 1 --reference "$F" --out "$T/keep" > "$T/o2" 2>&1 || { cat "$T/o2"; fail "run with reference"; }
R2=$(run_dir "$T/keep")
check_eq "the two setups overlap (reference warmed in parallel)" "$(head -n 4 "$T/stamps" | tr '\n' ' ')" "start start end end "
check_eq "reference: fault_kept" "$(json "$R2/summary.json" .fault_kept)" true
check_eq "reference: fault.keep_fault" "$(json "$R2/summary.json" .fault.keep_fault)" true
check_eq "reference: verified" "$(json "$R2/summary.json" .verified)" true
check_eq "reference: verdicts dropped" "$(json "$R2/summary.json" .verdicts_dropped)" 0
check_eq "report.html: fault kept" "$(sed -n 's:.*id="fault-pill">\([^<]*\)<.*:\1:p' "$R2/report.html")" "fault kept"
check_eq "report.html: the reference" "$(sed -n 's:.*id="fault-ref">\([^<]*\)<.*:\1:p' "$R2/report.html")" "$F"
grep -q "^Fault check: fault kept: the reduced test passes on the reference" "$T/o2" \
    && pass "console: fault kept" || { cat "$T/o2"; fail "console does not say the fault was kept"; }
grep -q "^Verified: the reduced test fails the same way when built and run afresh" "$T/o2" \
    && pass "console: verified" || fail "console does not say the reduced test was verified"
want_kept='static void test_total(void)
{
    tally_t t = {0};
    tally_init(&t);
    tally_add(&t, 3);
    tally_add(&t, 5);
    int total = 0;
    total = tally_total(&t);
    assert(total == 8);
}'
check_eq "reference: reduced test (the fault is kept)" "$(awk '/^static void test_total/,/^}/' "$R2/reduced.c")" "$want_kept"
# On its own: fails on the mutant, passes on the clean version.
for v in "$P" "$F"; do
    V="$T/check-$(basename "$v")"; cp -r "$v" "$V"; cp "$R2/reduced.lines.c" "$V/tests/test_tally.c"
    (cd "$V" && make -s >/dev/null 2>&1 && ./test_tally > out.txt 2>&1; echo $? > rc.txt)
done
check_eq "reduced test on the mutant: exit status" "$(cat "$T/check-tally/rc.txt")" 134
grep -q "test_tally.c:25: test_total: Assertion \`total == 8' failed" "$T/check-tally/out.txt" \
    && pass "reduced test fails on the mutant at line 25" || fail "reduced test does not fail on the mutant the same way"
check_eq "reduced test on the clean version: exit status" "$(cat "$T/check-tally_fixed/rc.txt")" 0
# --no-keep-fault only reports: the fault is lost, and says so.
"$WHITTLE" reduce "${args[@]}" --reference "$F" --no-keep-fault --out "$T/report" > "$T/o3" 2>&1 || { cat "$T/o3"; fail "run with --no-keep-fault"; }
R3=$(run_dir "$T/report")
check_eq "--no-keep-fault: fault_kept" "$(json "$R3/summary.json" .fault_kept)" false
check_eq "report.html: FAULT LOST" "$(sed -n 's:.*id="fault-pill">\([^<]*\)<.*:\1:p' "$R3/report.html")" "FAULT LOST"
check_eq "--no-keep-fault: reduced test" "$(awk '/^static void test_total/,/^}/' "$R3/reduced.c")" "$want_lost"
grep -q "^Fault check: FAULT LOST" "$T/o3" && pass "console: FAULT LOST" || fail "console does not say the fault is lost"
"$WHITTLE" reduce "${args[@]}" --reference "$F" --keep-fault --no-keep-fault --out "$T/bad" > "$T/o4" 2>&1
check_eq "--keep-fault with --no-keep-fault: exit status" "$?" 2
finish
