#!/bin/bash
# The walk's prior (issue 17): a removal no verdict speaks for yet is
# expected Preserved when it keeps the failing statement's backward slice
# (over the test body's data flow). Expectations decide how far slots run
# ahead, never the answer: with --prior slice and none, at 1 and 4 slots,
# the reduced test, the candidates and their verdicts are the same, and
# 1 slot builds the same candidates. The slice is made from the
# fingerprint's location and named in run.log and summary.json; at 4
# slots it leaves fewer chains ended by an unexpected Preserved. The
# claims the walk's last chain makes are judged early on idle slots and
# the answer's claims are still all confirmed.
. "$(dirname "$0")/lib.sh"
synth_fixture

run() { # name prior jobs [cache]
    "$WHITTLE" reduce --project "$P" --file tests/test_synth.c --test test_synth \
        --setup true --build "$J build 0.05" --run "$J run" --framework junit \
        --cache "${4:-memory:}" --prior "$2" --jobs "$3" --out "$T/$1" > "$T/$1.log" 2>&1 ||
        { cat "$T/$1.log"; fail "$1: run"; }
}
run none1 none 1
run slice1 slice 1
run none4 none 4
run slice4 slice 4
N1=$(run_dir "$T/none1")
[ -f "$N1/summary.json" ] || { fail "no summary for --prior none, 1 slot"; finish; }
for r in slice1 none4 slice4; do
    R=$(run_dir "$T/$r")
    [ -f "$R/summary.json" ] || { fail "$r: no summary"; continue; }
    same_walk "$r against --prior none at 1 slot" "$N1" "$R"
    grep -q "^Claims: all [0-9]* confirmed afresh" "$T/$r.log" && pass "$r: claims confirmed" ||
        fail "$r: the claims were not all confirmed"
done
S1=$(run_dir "$T/slice1") S4=$(run_dir "$T/slice4") N4=$(run_dir "$T/none4")
check_eq "1 slot: candidates built with the slice = without" \
    "$(json "$S1/summary.json" .evaluated)" "$(json "$N1/summary.json" .evaluated)"
check_eq "summary: the prior named" "$(json "$S4/summary.json" .expectations.mode)" slice
check_eq "summary: --prior none named" "$(json "$N4/summary.json" .expectations.mode)" none
check_eq "summary: no slice with --prior none" "$(json "$N4/summary.json" .expectations.slice)" null
n=$(json "$S4/summary.json" .expectations.slice)
[ "$n" -ge 2 ] && [ "$n" -lt 56 ] && pass "the slice holds $n of 56 statements" ||
    fail "the slice holds $n of 56 statements"
grep -q "^prior: the slice of the failing statement (unit 55, line 126) holds $n of 56" \
    "$S4/run.log" && pass "run.log: the slice from the assert's line" ||
    fail "run.log: no slice from the assert's line 126"
grep -q "^prior: none (--prior none)" "$N4/run.log" && pass "run.log: --prior none said" ||
    fail "run.log: --prior none not said"
s=$(json "$S4/summary.json" .expectations.surprised_preserved)
o=$(json "$N4/summary.json" .expectations.surprised_preserved)
[ "$s" -lt "$o" ] && pass "4 slots: $s chains ended by an unexpected Preserved, $o without the prior" ||
    fail "4 slots: $s chains ended by an unexpected Preserved with the slice, $o without"
# A fingerprint from the cache (a second run of the same job) makes the
# same slice.
run cold slice 2 "dir:$T/cache"
run warm slice 2 "dir:$T/cache"
W=$(run_dir "$T/warm")
grep -q "^fingerprint from the cache" "$W/run.log" && pass "warm: the fingerprint from the cache" ||
    fail "warm: the fingerprint was not taken from the cache"
check_eq "warm: the slice with a cached fingerprint" "$(json "$W/summary.json" .expectations.slice)" "$n"
e=$(grep -c "checked early, on an idle slot" "$S4/run.log")
[ "$e" -ge 1 ] && pass "4 slots: $e claims judged early on idle slots" ||
    fail "4 slots: no claim judged early"
finish
