#!/bin/bash
# --budget (issue 35): a job stops its walk when it has spent its builds or
# its time, with its best answer so far: verified afresh, exit status 6,
# "partial" in summary.json, run.log, the final line and report.html; its
# claims are not checked. The synthetic fixture's big test (a walk of about
# 90 builds with the whole walk) reduced:
#  - in full, for the reference figures;
#  - with --budget builds=3: about 3 builds, a partial answer between the
#    original and the full answer, its verdicts cached;
#  - with --budget builds=30: fewer statements than the original already;
#  - again without a budget on that cache: the full run's answer (a budget
#    changes no verdict, so the cache is every budget's);
#  - with --budget time=2s and slow builds: stopped on time;
#  - bad budgets: exit 2, one line naming the value.
. "$(dirname "$0")/lib.sh"
synth_fixture
args=(--project "$P" --file tests/test_synth.c --test test_synth --setup true
      --run "$J run" --framework junit)

"$WHITTLE" reduce "${args[@]}" --build "$J build 0.01" --cache memory: --out "$T/full" \
    > "$T/full.out" 2>&1 || { cat "$T/full.out"; fail "full run"; exit 1; }
F=$(run_dir "$T/full")
full_built=$(json "$F/summary.json" .evaluated)
full_after=$(json "$F/summary.json" .statements_after)
before=$(json "$F/summary.json" .statements_before)
[ "$full_built" -ge 50 ] && pass "the full walk built $full_built candidates" \
    || fail "the full walk built only $full_built candidates (want a long walk)"
check_eq "full run: partial" "$(json "$F/summary.json" .partial)" false

# ---- builds=3 ----
"$WHITTLE" reduce "${args[@]}" --build "$J build 0.01" --cache "dir:$T/cache" --out "$T/b3" \
    --budget builds=3 > "$T/b3.out" 2> "$T/b3.err"; rc=$?
check_eq "builds=3: exit status" "$rc" 6
check_eq "builds=3: nothing on stderr" "$(cat "$T/b3.err")" ""
R=$(run_dir "$T/b3")
built=$(json "$R/summary.json" .evaluated)
# the slots (one per core, --jobs default) may each have one build running
# when the third verdict comes in: cancelled, not counted
[ "$built" -ge 3 ] && [ "$built" -le 4 ] && pass "builds=3: $built builds of the walk" \
    || fail "builds=3: $built builds of the walk, want 3..4"
check_eq "builds=3: summary.partial" "$(json "$R/summary.json" .partial)" \
    "builds=3 spent: $built builds of the walk"
check_eq "builds=3: summary.budget" "$(json "$R/summary.json" .budget)" builds=3
check_eq "builds=3: verified afresh" "$(json "$R/summary.json" .verified)" true
check_eq "builds=3: claims checked" "$(json "$R/summary.json" .claims.checked)" 0
after=$(json "$R/summary.json" .statements_after)
# (three builds of HDD's first level may all fail: the original is then
# the best answer so far)
[ "$after" -le "$before" ] && [ "$after" -ge "$full_after" ] \
    && pass "builds=3: $before -> $after statements (the full walk: $full_after)" \
    || fail "builds=3: $before -> $after statements, want at most $before and at least $full_after"
grep -q "^Final: PARTIAL (builds=3 spent: $built builds of the walk): $before -> $after statements" "$T/b3.out" \
    && pass "builds=3: the final line says PARTIAL" || { cat "$T/b3.out"; fail "builds=3: final line"; }
grep -q "^Partial: builds=3 spent" "$T/b3.out" && pass "builds=3: the closing says Partial" \
    || fail "builds=3: no Partial line"
grep -q "claims: not checked (a partial answer" "$R/run.log" && pass "builds=3: run.log: claims not checked" \
    || fail "builds=3: run.log does not say the claims were not checked"
grep -q 'id="partial-pill">partial: builds=3 spent' "$R/report.html" \
    && pass "builds=3: report.html shows the partial pill" || fail "builds=3: report.html has no partial pill"
grep -q "^Reduced test (" "$T/b3.out" && pass "builds=3: the reduced test is printed" \
    || fail "builds=3: no reduced test printed"

# ---- builds=30: part of the way ----
"$WHITTLE" reduce "${args[@]}" --build "$J build 0.01" --cache memory: --out "$T/b30" \
    --budget builds=30 > "$T/b30.out" 2>&1; rc=$?
check_eq "builds=30: exit status" "$rc" 6
R=$(run_dir "$T/b30")
after=$(json "$R/summary.json" .statements_after)
[ "$after" -lt "$before" ] && [ "$after" -ge "$full_after" ] \
    && pass "builds=30: $before -> $after statements (the full walk: $full_after)" \
    || fail "builds=30: $before -> $after statements, want fewer than $before and at least $full_after"
check_eq "builds=30: verified afresh" "$(json "$R/summary.json" .verified)" true

# ---- the same job on that cache, no budget: the full answer ----
"$WHITTLE" reduce "${args[@]}" --build "$J build 0.01" --cache "dir:$T/cache" --out "$T/again" \
    > "$T/again.out" 2>&1 || { cat "$T/again.out"; fail "rerun without a budget"; }
A=$(run_dir "$T/again")
check_eq "rerun without a budget: same reduced test as the full run" \
    "$(cat "$A/reduced.c")" "$(cat "$F/reduced.c")"
check_eq "rerun without a budget: partial" "$(json "$A/summary.json" .partial)" false
cached=$(json "$A/summary.json" .cached)
[ "$cached" -ge 3 ] && pass "rerun: $cached verdicts from the budgeted run's cache" \
    || fail "rerun: $cached cached verdicts, want at least the budgeted run's 3"

# ---- time=2s with builds of 0.4 s ----
"$WHITTLE" reduce "${args[@]}" --build "$J build 0.4" --cache memory: --out "$T/t2" \
    --budget time=2s > "$T/t2.out" 2>&1; rc=$?
check_eq "time=2s: exit status" "$rc" 6
R=$(run_dir "$T/t2")
case "$(json "$R/summary.json" .partial)" in
    "time=2s spent: "*) pass "time=2s: $(json "$R/summary.json" .partial)" ;;
    *) cat "$T/t2.out"; fail "time=2s: summary.partial is '$(json "$R/summary.json" .partial)'" ;;
esac
check_eq "time=2s: verified afresh" "$(json "$R/summary.json" .verified)" true
t_built=$(json "$R/summary.json" .evaluated)
[ "$t_built" -lt "$full_built" ] && pass "time=2s: $t_built builds, fewer than the full walk's $full_built" \
    || fail "time=2s: $t_built builds"

# ---- bad budgets ----
for bad in builds=0 builds=x time=5x speed=3 "time=1h30" ""; do
    out=$("$WHITTLE" reduce "${args[@]}" --build "$J build 0" --cache memory: --out "$T/bad" \
        --budget "$bad" 2>&1 >/dev/null); rc=$?
    check_eq "--budget '$bad': exit $rc, one line" "$rc: $out" \
        "2: whittle: error: --budget '$bad': want builds=N (1 to 1000000) or time=DURATION (90s, 30m, 2h, 1h30m; at most 30d), or both joined by a comma"
done
[ -e "$T/bad" ] && fail "a refused budget made a run folder" || pass "a refused budget made no run folder"
finish
