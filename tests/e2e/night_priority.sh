#!/bin/bash
# The order a night's groups are reduced in (issue 35): larger groups
# first, then newer root causes (OUT/night-seen.json: not seen by an
# earlier night under the same OUT, or first seen more recently), then
# the smaller test. On the ctest_night fixture (a copy), one slot:
#  - night 1: the order printed is the groups' sizes (4, 3, then the two
#    alone, smaller test first), all new; each reduction starts only when
#    the one before it has ended (one slot), in that order; night.json
#    records each group's priority and new; the history holds 4 keys;
#  - night 2, same OUT: one more failure planted (test_sum_ok's expected
#    sum made wrong on its own line: no other line moves), and the
#    history says test_scale_huge's root cause was first seen long ago:
#    among the groups of one failure, the new one comes first, then the
#    one first seen more recently; the old date is kept;
#  - night 3: a corrupt history is one warning line, every failure counts
#    as new, and the file is kept aside (a batch budget of one build
#    skips the reductions: only the order is wanted).
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_night" "$P"
B="$T/b"
cmake -S "$P" -B "$B" -G Ninja > /dev/null && cmake --build "$B" > /dev/null || { fail "fixture build"; finish; }
ctest --test-dir "$B" > /dev/null 2>&1 && fail "ctest passed on the seeded bugs"
O="$T/o"; H="$O/night-seen.json"; N="$O/night.json"

"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$O" --jobs 1 \
    > "$T/1.out" 2> "$T/1.err"; rc=$?
check_eq "night 1: exit status" "$rc" 0
check_eq "night 1: stderr" "$(cat "$T/1.err")" ""
check_eq "night 1: the order" "$(grep '^Reducing in this order: ' "$T/1.out")" \
    "Reducing in this order: 1. test_scale_ten (4 failures, new), 2. test_last_loop (3 failures, new), 3. test_scale_huge (1 failure, new), 4. test_max_own (1 failure, new)"
# starts ("[k/4] T (file): run folder") and ends ("[k/4] T: reduced test") as printed
events() { sed -n -e 's/^\[[0-9]*\/[0-9]*\] \(test_[a-z_]*\) (tests\/test_night.c): run folder .*/start \1/p' \
                  -e 's/^\[[0-9]*\/[0-9]*\] \(test_[a-z_]*\): reduced test (.*/end \1/p' "$1" | tr '\n' ' '; }
check_eq "night 1: one reduction at a time, in that order" "$(events "$T/1.out")" \
    "start test_scale_ten end test_scale_ten start test_last_loop end test_last_loop start test_scale_huge end test_scale_huge start test_max_own end test_max_own "
check_eq "night 1: night.json priorities" \
    "$(json "$N" '[.groups[] | [.priority, .representative, .new] | map(tostring) | join(":")] | sort | join(" ")')" \
    "1:test_scale_ten:true 2:test_last_loop:true 3:test_scale_huge:true 4:test_max_own:true"
check_eq "night 1: the history's keys" "$(json "$H" '.seen | length')" 4
ten_seen=$(json "$H" '.seen[0].first_seen')

# ---- night 2: a new failure; test_scale_huge's cause first seen long ago ----
sed -i 's/assert_int_equal(6, night_sum((int\[\]){1, 2, 3}, 3));/assert_int_equal(7, night_sum((int[]){1, 2, 3}, 3));/' \
    "$P/tests/test_night.c"
grep -q 'assert_int_equal(7, night_sum' "$P/tests/test_night.c" || fail "the new failure was not planted"
cmake --build "$B" > /dev/null || fail "fixture rebuild"
ctest --test-dir "$B" > /dev/null 2>&1
check_eq "night 2: ctest's failing tests" "$(wc -l < "$B/Testing/Temporary/LastTestsFailed.log")" 10
# the history as an earlier night left it, one date moved back
jq --arg k "$(json "$H" '.seen[] | select(.key | test("-N")) | .key')" \
    '(.seen[] | select(.key == $k) | .first_seen) = "2020-01-01T00:00:00Z"' "$H" > "$T/h" && cp "$T/h" "$H"
"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$O" --jobs 1 \
    > "$T/2.out" 2> "$T/2.err"; rc=$?
check_eq "night 2: exit status" "$rc" 0
check_eq "night 2: the order" "$(grep '^Reducing in this order: ' "$T/2.out")" \
    "Reducing in this order: 1. test_scale_ten (4 failures, first seen $ten_seen), 2. test_last_loop (3 failures, first seen $ten_seen), 3. test_sum_ok (1 failure, new), 4. test_max_own (1 failure, first seen $ten_seen), 5. test_scale_huge (1 failure, first seen 2020-01-01T00:00:00Z)"
check_eq "night 2: started in that order" \
    "$(events "$T/2.out" | tr ' ' '\n' | grep '^test_' | awk 'NR % 2 == 1' | tr '\n' ' ')" \
    "test_scale_ten test_last_loop test_sum_ok test_max_own test_scale_huge "
check_eq "night 2: night.json" \
    "$(json "$N" '[.groups[] | [.priority, .representative, .new, .first_seen] | map(tostring) | join(":")] | sort | join(" ")')" \
    "1:test_scale_ten:false:$ten_seen 2:test_last_loop:false:$ten_seen 3:test_sum_ok:true:null 4:test_max_own:false:$ten_seen 5:test_scale_huge:false:2020-01-01T00:00:00Z"
grep -q '<span class="key" id="priority-3">priority 3, new</span>' "$O/night.html" \
    && grep -q '<span class="key" id="priority-5">priority 5, first seen 2020-01-01T00:00:00Z</span>' "$O/night.html" \
    && pass "night 2: night.html shows each group's priority" || fail "night 2: night.html has no priorities"
check_eq "night 2: the history keeps every key and the old date" \
    "$(json "$H" '(.seen | length | tostring) + " " + (.seen[] | select(.key | test("-N")) | .first_seen)')" \
    "5 2020-01-01T00:00:00Z"

# ---- night 3: a corrupt history ----
printf '{"version": 1, "seen": [' > "$H"
"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$O" --jobs 1 \
    --batch-budget builds=1 > "$T/3.out" 2> "$T/3.err"; rc=$?
check_eq "night 3: exit status (the budget)" "$rc" 6
check_eq "night 3: one warning line" "$(cat "$T/3.err")" \
    "whittle: warning: $H is not a history of earlier nights (not JSON (line 1: ']' expected near end of file)): every failure counts as new"
check_eq "night 3: every failure new" \
    "$(grep '^Reducing in this order: ' "$T/3.out" | grep -o 'first seen' | wc -l)" 0
check_eq "night 3: the corrupt file kept aside" "$(cat "$H.corrupt")" '{"version": 1, "seen": ['
check_eq "night 3: the history written afresh" "$(json "$H" '.seen | length')" 5
finish
