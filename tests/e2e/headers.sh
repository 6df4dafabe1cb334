#!/bin/bash
# Figure 4.2 of the thesis in C: 5 statements, the first assert fails; with
# --ddmin classic (the thesis's Algorithm 1) the run ends at 2 statements
# after 12 candidates, at most 5 built and tested, the rest answered by the
# cache; a rerun of the same job builds nothing. The default chunked walk
# ends at the same 2 statements after 3 candidates: the three trailing
# asserts in one chunk, then host and parse one at a time; sweep 2 skips the
# unchanged level.
# Without the precheck, as in the thesis (tests/e2e/precheck.sh runs it with).
. "$(dirname "$0")/lib.sh"
P="$T/headers"; cp -r "$FIX/headers" "$P"
before=$(tree_digest "$P")
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka --out "$T/runs"
      --precheck off --jobs 1 --ddmin classic) # the figure's counts are a one-slot run's
"$WHITTLE" reduce "${args[@]}" > "$T/out1" 2>&1 || { cat "$T/out1"; fail "first run"; }
R=$(run_dir "$T/runs")
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "candidates" "$(json "$R/summary.json" .candidates)" 12
check_le "evaluated" "$(json "$R/summary.json" .evaluated)" 5
check_eq "cached" "$(json "$R/summary.json" .cached)" 7
check_eq "sweeps" "$(json "$R/summary.json" .sweeps)" 2
check_eq "verdict sequence" "$(cut -d, -f6 "$R/candidates.csv" | tail -n +2 | tr '\n' ' ')" \
  "TestPassed Preserved Preserved TestPassed BuildFailed BuildFailed TestPassed TestPassed TestPassed BuildFailed BuildFailed TestPassed "
check_eq "PRS" "$(json "$R/summary.json" .PRS)" 60
check_eq "PrTRS undefined" "$(json "$R/summary.json" .PrTRS)" null
grep -q 'assert_string_equal("example.com", request_header(request, "Host"));' "$R/reduced.c" \
  && pass "reduced keeps the Host assert" || fail "reduced lacks the Host assert"
# rerun of the same job: everything from the on-disk cache, nothing built
"$WHITTLE" reduce "${args[@]}" > "$T/out2" 2>&1 || { cat "$T/out2"; fail "second run"; }
R2=$(ls -dt "$T"/runs/*/ | head -n1)
check_eq "rerun evaluated" "$(json "$R2/summary.json" .evaluated)" 0
check_eq "rerun reduced the same" "$(cat "$R2/reduced.c")" "$(cat "$R/reduced.c")"
[ -d "$R2/work" ] && fail "rerun created a workspace" || pass "rerun created no workspace"
# the default walk, with its own cache: 3 candidates, each built once
"$WHITTLE" reduce "${args[@]:0:${#args[@]}-2}" --out "$T/chunked" --cache memory: > "$T/out3" 2>&1 \
  || { cat "$T/out3"; fail "chunked run"; }
R3=$(ls -d "$T"/chunked/*/ | head -n1)
check_eq "chunked: ddmin" "$(json "$R3/summary.json" .ddmin)" chunked
check_eq "chunked: candidates" "$(json "$R3/summary.json" .candidates)" 3
check_eq "chunked: evaluated" "$(json "$R3/summary.json" .evaluated)" 3
check_eq "chunked: verdict sequence" "$(cut -d, -f6 "$R3/candidates.csv" | tail -n +2 | tr '\n' ' ')" \
  "Preserved TestPassed BuildFailed "
check_eq "chunked: reduced the same" "$(cat "$R3/reduced.c")" "$(cat "$R/reduced.c")"
check_eq "project byte-identical" "$(tree_digest "$P")" "$before"
finish
