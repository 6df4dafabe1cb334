#!/bin/bash
# A night of failures grouped before reducing (issue 35): the ctest_night
# fixture (see its CMakeLists.txt) has 9 failing CTest tests from 4 root
# causes. `whittle reduce --from-ctest` runs each original once for its
# fingerprint, groups them and reduces one test per group:
#  - 4 groups, 4 reductions (4 run folders), every failure in one group;
#  - the helper's 4 failures (values differ per test) one group, reduced
#    through its smallest test; the 3 heap-buffer-overflows in the library
#    one group; test_scale_huge, which fails at the same helper line for
#    another reason (its message's shape differs), is a group of its own,
#    reduced alone; test_max_own alone;
#  - each member is answered by its group's reduced test (a closing line);
#  - each group's answer equals the reduced test of that test reduced on
#    its own (--each reduces all 9), and --each spends more builds;
#  - the project is never written to.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/ctest_night" "$P"
B="$T/b"
cmake -S "$P" -B "$B" -G Ninja > /dev/null && cmake --build "$B" > /dev/null || { fail "fixture build"; finish; }
ctest --test-dir "$B" > /dev/null 2>&1 && fail "ctest passed on the seeded bugs"
check_eq "ctest's failing tests" "$(wc -l < "$B/Testing/Temporary/LastTestsFailed.log")" 9
digest=$(tree_digest "$P")

"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$T/g" > "$T/g.out" 2> "$T/g.err"
rc=$?
check_eq "grouped: exit status" "$rc" 0
check_eq "grouped: stderr" "$(cat "$T/g.err")" ""
check_eq "grouped: the count" "$(grep '^Groups before reducing' "$T/g.out")" \
    "Groups before reducing: 9 failing tests, 4 groups, 4 reductions"
runs=$(cd "$T/g" && ls -d */ | sed 's:/$::' | grep -v '^latest$' | sed 's/-[0-9]*-[0-9]*$//' | sort | tr '\n' ' ')
check_eq "grouped: one run folder per group" "$runs" \
    "test_last_loop test_max_own test_scale_huge test_scale_ten "
# the groups as printed: "group K: KEY" then its members, two spaces in
members() { awk '/^Groups before reducing/ {on = 1; next}
                 on && /^group [0-9]+:/ {g = $2; next}
                 on && /^  test_/ {print g, $1; next}
                 on {exit}' "$T/g.out"; }
check_eq "grouped: every failure in one group" "$(members | awk '{print $2}' | sort | tr '\n' ' ')" \
    "$(sed 's/^[0-9]*://' "$B/Testing/Temporary/LastTestsFailed.log" | sort | tr '\n' ' ')"
group_of() { members | awk -v t="$1" '$2 == t {print $1}'; }
check_eq "the helper's four in one group" \
    "$(for t in test_scale_three test_scale_four test_scale_loop test_scale_ten; do group_of $t; done | sort -u | wc -l)" 1
check_eq "the library's overflows in one group" \
    "$(for t in test_last_three test_last_four test_last_loop; do group_of $t; done | sort -u | wc -l)" 1
g_scale=$(group_of test_scale_ten); g_huge=$(group_of test_scale_huge)
[ "$g_scale" != "$g_huge" ] && pass "test_scale_huge is not in the helper's group ($g_huge, not $g_scale)" \
    || fail "test_scale_huge joined the helper's group"
loc() { grep "^group $1:" "$T/g.out" | awk -F' [|] ' '{print $2}'; }
check_eq "test_scale_huge fails at the helper's line all the same" "$(loc "$g_huge")" "$(loc "$g_scale")"
check_eq "test_scale_huge's group holds it alone" "$(members | awk -v g="$g_huge" '$1 == g' | wc -l)" 1
for m in test_scale_three:test_scale_ten test_scale_four:test_scale_ten test_scale_loop:test_scale_ten \
         test_last_three:test_last_loop test_last_four:test_last_loop; do
    t=${m%%:*} r=${m#*:}
    grep -q "^  $t (tests/test_night.c): grouped with $r, whose reduced test answers it: $T/g/$r-[0-9-]*/reduced.c$" "$T/g.out" \
        && pass "$t answered by $r" || fail "no closing line answering $t by $r"
done
check_eq "the project is unchanged" "$(tree_digest "$P")" "$digest"

# ---- the batch's report: night.json and night.html ----
N="$T/g/night.json"
check_eq "night.json: failures" "$(json "$N" .failures)" 9
check_eq "night.json: groups" "$(json "$N" '.groups | length')" 4
check_eq "night.json: every failure in a group" "$(json "$N" '[.groups[].members[]] | length')" 9
check_eq "night.json: the helper's group" \
    "$(json "$N" '.groups[] | select(.representative == "test_scale_ten") | [.state, (.members | sort | join(","))] | join(" ")')" \
    "reduced test_scale_four,test_scale_loop,test_scale_ten,test_scale_three"
check_eq "night.json: states" "$(json "$N" '[.tests[].state] | sort | unique | join(",")')" "answered,reduced"
check_eq "night.json: a group's reduced test is its run's" \
    "$(json "$N" '.groups[] | select(.representative == "test_max_own") | .diff')" \
    "$(cat "$T/g"/test_max_own-*/reduced.diff)"
grep -q 'id="night" href="../night.html"' "$T/g"/test_scale_ten-*/report.html \
    && pass "a run folder's report.html links the batch's report" || fail "report.html has no link to night.html"
check_eq "night.html: one section per group" "$(grep -c '<section class="group"' "$T/g/night.html")" 4
if command -v chromium > /dev/null; then
    # as a browser shows it (headless, a profile of its own)
    title=$(timeout 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
        --dump-dom "file://$T/g/night.html" 2>/dev/null | sed -n 's:.*<h1 id="title">\([^<]*\)</h1>.*:\1:p')
    check_eq "night.html in Chromium: the title" "$title" "whittle: 9 failing tests, 4 root causes"
fi

# ---- --each: every one reduced; the groups' answers are theirs alone ----
"$WHITTLE" reduce --from-ctest "$B" --project "$P" --cache memory: --out "$T/e" --each \
    > "$T/e.out" 2>&1 || { cat "$T/e.out"; fail "--each: exit"; }
check_eq "--each: 9 run folders" "$(cd "$T/e" && ls -d */ | grep -vc '^latest/$')" 9
[ -e "$T/e/.first-runs" ] && fail "--each ran first runs" || pass "--each runs no first runs"
for r in test_last_loop test_max_own test_scale_huge test_scale_ten; do
    check_eq "$r: the group's answer is its own reduction's" \
        "$(cat "$T/g/$r"-*/reduced.c)" "$(cat "$T/e/$r"-*/reduced.c)"
done
built() { local s=0 f; for f in "$1"/*/summary.json; do case $f in */latest/*) continue;; esac
          s=$((s + $(json "$f" .evaluated))); done; echo $s; }
g_built=$(built "$T/g"); e_built=$(built "$T/e")
[ "$g_built" -lt "$e_built" ] && pass "walk builds: $g_built grouped (+ 9 first runs) against $e_built with --each" \
    || fail "walk builds: $g_built grouped, $e_built with --each"
finish
