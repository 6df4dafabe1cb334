#!/bin/bash
# Every slot its own TMPDIR and HOME (node/scratch.h, issue 18): a harness
# that names its temp files by a fixed name (libarchive's names its folder
# by the second in /tmp) must not meet another slot's files, nor its own
# from an earlier run. The cart fixture's run command is wrapped in a probe
# that refuses a TMPDIR or HOME that is not private, writes a fixed-name
# file in each, holds it for 0.4 s while the test runs, and says "SHARED"
# when the file is there already or changes meanwhile; it then exits 70
# before the test writes its report, so the console log (with the word) is
# what the run folder keeps for that candidate. On 1 and on 2 slots, the
# answer is cart's 4 statements, no run folder holds the word, and on 2
# slots two test runs of different slots overlapped in time.
. "$(dirname "$0")/lib.sh"
P="$T/cart"; cp -r "$FIX/cart" "$P"
probe='f="$TMPDIR/whittle-probe"; h="$HOME/.whittle-probe"; me="$PWD $$"
case "$TMPDIR" in ""|/tmp|/tmp/|/var/tmp) echo "SHA""RED: TMPDIR is not private: \"$TMPDIR\""; exit 70;; esac
case "$HOME" in ""|'"$HOME"'|/root|/) echo "SHA""RED: HOME is not private: \"$HOME\""; exit 70;; esac
[ "$TMP" = "$TMPDIR" ] && [ "$TEMP" = "$TMPDIR" ] || { echo "SHA""RED: TMP/TEMP are not TMPDIR"; exit 70; }
for x in "$f" "$h"; do [ -e "$x" ] && { echo "SHA""RED: $x is there already: $(cat "$x")"; exit 70; }; done
echo "$me" > "$f" && echo "$me" > "$h" || { echo "SHA""RED: cannot write in TMPDIR or HOME"; exit 70; }
build/test_cart; rc=$?
sleep 0.4
for x in "$f" "$h"; do [ "$(cat "$x")" = "$me" ] || { echo "SHA""RED: $x changed under us: $(cat "$x")"; exit 70; }; done
exit $rc'
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --run "$probe" --framework cmocka --cache memory:)

for n in 1 2; do
    "$WHITTLE" reduce "${args[@]}" --jobs $n --out "$T/j$n" > "$T/j$n.out" 2>&1 || { cat "$T/j$n.out"; fail "jobs $n run"; }
    R=$(run_dir "$T/j$n")
    check_eq "jobs $n: statements after" "$(json "$R/summary.json" .statements_after)" 4
    check_eq "jobs $n: no probe saw a shared TMPDIR or HOME" "$(grep -rl SHARED "$R")" ""
done
R1=$(run_dir "$T/j1"); R2=$(run_dir "$T/j2")
cmp -s "$R1/reduced.c" "$R2/reduced.c" && pass "same reduced test on 1 and 2 slots" || fail "different reduced tests on 1 and 2 slots"
check_eq "same candidate sequence and verdicts on 1 and 2 slots" "$(cut -d, -f1-6 "$R2/candidates.csv")" "$(cut -d, -f1-6 "$R1/candidates.csv")"
# The probe held its files while another slot's probe ran: two test runs
# of different slots overlapped (judged.csv: slot, test_ms, end_ms).
overlap=$(tail -n +2 "$R2/judged.csv" | awk -F, '$3 != "-" && $6 > 0 { s[NR]=$3; a[NR]=$7-$6; b[NR]=$7 }
    END { n=0; for (i in s) for (j in s) if (s[i] != s[j] && a[i] < b[j] && a[j] < b[i]) n++; print (n > 0) }')
check_eq "2 slots: two test runs of different slots overlapped" "$overlap" 1
# The scratch folders are the workspace's own, beside it (never in the project).
check_eq "project has no scratch" "$(find "$P" -name '*.scratch' | wc -l)" 0
finish
