#!/bin/bash
# One slot of the embedded default lacks the compiler (its build says
# "sh: 1: no-such-cc-wh: not found", exit 127): a missing tool on that slot,
# not a verdict about the candidate. Each of its runs is an InfraError that
# goes to the other slot; after 3 in a row it is out of rotation. The answer
# and the candidate/verdict sequence equal the healthy run's, the cache
# holds exactly the evaluated verdicts and no InfraError. With every slot
# lacking the tool the run stops with exit 4 and caches nothing.
. "$(dirname "$0")/lib.sh"
# Each slot sets up in its own folder (no stable mount path, no clones), so
# that the build command can tell slot 0 by its working folder.
export WHITTLE_NO_MOUNTNS=1
P="$T/headers"; cp -r "$FIX/headers" "$P"
# --ddmin classic: its 12 candidates give slot 0 its 3 faults in a row (the
# default walk needs 3 candidates here).
base=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --run "./test_request" --framework cmocka --jobs 2 --ddmin classic)
"$WHITTLE" reduce "${base[@]}" --build "make -s" --cache memory: --out "$T/a" > "$T/a.out" 2>&1 || { cat "$T/a.out"; fail "healthy run"; }
A=$(run_dir "$T/a")

# The workspace of slot 0 is ws/<key>/slot-0: only there the tool is missing.
# The healthy slot takes 0.4 s longer per build, so that slot 0, which fails
# at once, is handed the queued candidates meanwhile (the pool gives a task
# it failed to another slot, never back to it).
sick='case "$PWD" in */slot-0) no-such-cc-wh -c tests/test_request.c;; *) sleep 0.4; make -s;; esac'
"$WHITTLE" reduce "${base[@]}" --build "$sick" --cache "dir:$T/c" --out "$T/b" > "$T/b.out" 2>&1 || { cat "$T/b.out"; fail "run with a sick slot"; }
R=$(run_dir "$T/b")
check_eq "reduced test equals the healthy run's" "$(cat "$R/reduced.c")" "$(cat "$A/reduced.c")"
check_eq "candidates and verdicts equal the healthy run's" "$(cut -d, -f1-6 "$R/candidates.csv")" "$(cut -d, -f1-6 "$A/candidates.csv")"
check_eq "verdicts from slot 0" "$(grep -c ',local/0/' "$R/candidates.csv")" 0
check_eq "infra faults" "$(json "$R/summary.json" .infra_faults)" 3
json "$R/summary.json" '.out_of_rotation[0]' | grep -q '^local/0/' && pass "summary: slot 0 out of rotation" \
    || fail "summary out_of_rotation: $(json "$R/summary.json" .out_of_rotation)"
check_eq "run.log: missing-tool faults of slot 0" \
    "$(grep -c 'infra: e[0-9]* on local/0/[^ ]*: infrastructure fault (missing tool): build exited 127: `sh: 1: no-such-cc-wh: not found` (not a verdict)' "$R/run.log")" 3
grep -q '^slot local/0/[^ ]* taken out of rotation: 3 infrastructure faults in a row; last: infrastructure fault (missing tool)' "$R/run.log" \
    && pass "run.log names slot 0 out of rotation" || fail "run.log: no out-of-rotation line"
grep -q 'Slot local/0/[^ ]* taken out of rotation' "$T/b.out" && pass "console says so too" || fail "console: $(cat "$T/b.out")"
check_eq "cache: one verdict per evaluated candidate" "$(cut -d' ' -f1 "$T/c/verdicts.log" | sort -u | wc -l)" "$(json "$R/summary.json" .evaluated)"
check_eq "cache: InfraError lines" "$(grep -c InfraError "$T/c/verdicts.log")" 0

# Every slot lacks it: exit 4, the reason on stderr, nothing cached.
"$WHITTLE" reduce "${base[@]}" --build "no-such-cc-wh -c tests/test_request.c" --cache "dir:$T/d" --out "$T/d" > "$T/d.out" 2>&1
check_eq "all slots sick: exit status" "$?" 4
grep -q "error: the original run could not be judged: infrastructure fault on local/[01]/[^ ]*, and no other slot in rotation to retry on: infrastructure fault (missing tool): build exited 127: \`sh: 1: no-such-cc-wh: not found\`" "$T/d.out" \
    && pass "all slots sick: the error names the missing tool" || fail "all slots sick: $(cat "$T/d.out")"
check_eq "all slots sick: cached verdicts" "$(wc -l < "$T/d/verdicts.log")" 0
finish
