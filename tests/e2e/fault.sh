#!/bin/bash
# The thesis's TestBasic: with --no-keep-fault a plain reduction keeps the
# failure but loses the fault (the reduced test fails on the fixed version
# too); the summary says so. With a reference the fault is kept by default:
# the reduced test passes on the reference and fails on the buggy version.
# The reference can be a folder or a git revision.
. "$(dirname "$0")/lib.sh"
P="$T/calc"; cp -r "$FIX/calc" "$P"; F="$T/calc_fixed"; cp -r "$FIX/calc_fixed" "$F"
args=(--project "$P" --file tests/test_calc.c --test test_basic --setup "make -s"
      --build "make -s" --run ./test_calc --framework cmocka --cache memory:)
"$WHITTLE" reduce "${args[@]}" --reference "$F" --no-keep-fault --out "$T/plain" > "$T/o1" 2>&1 || { cat "$T/o1"; fail "plain run"; }
R=$(run_dir "$T/plain")
check_eq "plain: fault status" "$(json "$R/summary.json" .fault.status)" lost
check_eq "plain: fault_kept" "$(json "$R/summary.json" .fault.fault_kept)" false
grep -q "FAULT LOST" "$T/o1" && pass "console says the fault is lost" || fail "console does not say the fault is lost"
grep -q "calc_init(&c);" "$R/reduced.c" && fail "plain reduction kept calc_init" || pass "plain reduction dropped calc_init"

"$WHITTLE" reduce "${args[@]}" --reference "$F" --out "$T/keep" > "$T/o2" 2>&1 || { cat "$T/o2"; fail "keep-fault run"; }
R2=$(run_dir "$T/keep")
check_eq "keep-fault: fault status" "$(json "$R2/summary.json" .fault.status)" kept
grep -q "calc_init(&c);" "$R2/reduced.c" && pass "keep-fault kept calc_init" || fail "keep-fault lost calc_init"
check_eq "keep-fault: statements" "$(json "$R2/summary.json" .statements_after)" 3
# on its own: fails on the buggy version, passes on the fixed one
for v in "$P" "$F"; do
    V="$T/verify-$(basename "$v")"; cp -r "$v" "$V"; cp "$R2/reduced.lines.c" "$V/tests/test_calc.c"
    (cd "$V" && make -s >/dev/null 2>&1 && CMOCKA_MESSAGE_OUTPUT=xml CMOCKA_XML_FILE="$V/r.xml" ./test_calc >/dev/null 2>&1)
done
grep -q "<failure>" "$T/verify-calc/r.xml" && pass "reduced fails on the buggy version" || fail "reduced does not fail on the buggy version"
grep -q "<failure>" "$T/verify-calc_fixed/r.xml" && fail "reduced fails on the fixed version" || pass "reduced passes on the fixed version"

# A git revision as the reference: the fix is one commit back.
G="$T/repo"; mkdir -p "$G"; cp -r "$FIX/calc_fixed/." "$G/"
git -C "$G" init -q && git -C "$G" -c user.email=t@t -c user.name=t add -A && git -C "$G" -c user.email=t@t -c user.name=t commit -qm fixed
cp "$FIX/calc/src/calc.c" "$G/src/calc.c"
git -C "$G" -c user.email=t@t -c user.name=t commit -qam "break calc_init"
before=$(tree_digest "$G")
"$WHITTLE" reduce --project "$G" --file tests/test_calc.c --test test_basic --setup "make -s" \
    --build "make -s" --run ./test_calc --framework cmocka --cache memory: --reference HEAD~1 \
    --keep-fault --out "$T/git" > "$T/o3" 2>&1 || { cat "$T/o3"; fail "git reference run"; }
R3=$(run_dir "$T/git")
check_eq "git reference: fault status" "$(json "$R3/summary.json" .fault.status)" kept
check_eq "git repo untouched" "$(tree_digest "$G")" "$before"
finish
