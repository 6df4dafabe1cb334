#!/bin/bash
# Job identity is the project's content as the build sees it, so stray
# files do not miss the cache:
#  - a git project is its tracked files: an untracked file written into it
#    (here: the first run's console output) leaves the rerun with 0
#    evaluated; a modified tracked file is a new identity;
#  - any other project is every file but outputs, build* folders and
#    --ignore globs: a log under build-out/ and a *.log ignored by
#    --ignore leave the rerun with 0 evaluated; a new source file does not.
. "$(dirname "$0")/lib.sh"
snap() { sed -n 's/^job identity: .*, snapshot \([0-9a-f]*\)$/\1/p' "$(run_dir "$1")/run.log"; }
basis() { sed -n 's/^job identity: \(.*\), snapshot .*$/\1/p' "$(run_dir "$1")/run.log"; }
ev() { json "$(run_dir "$1")/summary.json" .evaluated; }

G="$T/repo"; cp -r "$FIX/calc" "$G"
gitc() { git -C "$G" -c user.email=t@t -c user.name=t "$@"; }
gitc init -q && gitc add -A && gitc commit -qm calc
args=(--project "$G" --file tests/test_calc.c --test test_basic --setup "make -s"
      --build "make -s" --run ./test_calc --framework cmocka)
"$WHITTLE" reduce "${args[@]}" --out "$T/g1" > "$G/first-run.txt" 2>&1 || { cat "$G/first-run.txt"; fail "git run 1"; }
check_eq "git: identity basis" "$(basis "$T/g1")" "the project's tracked git files"
[ "$(ev "$T/g1")" -gt 0 ] && pass "git run 1 evaluated $(ev "$T/g1")" || fail "git run 1 evaluated nothing"
echo "notes" > "$G/stray.txt"
"$WHITTLE" reduce "${args[@]}" --out "$T/g2" > "$T/g2.out" 2>&1 || { cat "$T/g2.out"; fail "git run 2"; }
check_eq "git: same snapshot with untracked files written into the project" "$(snap "$T/g2")" "$(snap "$T/g1")"
check_eq "git: rerun with stray untracked files: evaluated" "$(ev "$T/g2")" 0
check_eq "git: rerun: cached" "$(json "$(run_dir "$T/g2")/summary.json" .cached)" "$(json "$(run_dir "$T/g1")/summary.json" .evaluated)"
echo "/* touched */" >> "$G/src/calc.c"
"$WHITTLE" reduce "${args[@]}" --out "$T/g3" > "$T/g3.out" 2>&1 || { cat "$T/g3.out"; fail "git run 3"; }
[ "$(snap "$T/g3")" != "$(snap "$T/g1")" ] && pass "git: a modified tracked file is a new snapshot" || fail "git: a modified tracked file kept the snapshot"
[ "$(ev "$T/g3")" -gt 0 ] && pass "git: after a modification the cache misses (evaluated $(ev "$T/g3"))" || fail "git: a modified project was answered from the cache"

P="$T/plain"; cp -r "$FIX/calc" "$P"
pargs=(--project "$P" --file tests/test_calc.c --test test_basic --setup "make -s"
       --build "make -s" --run ./test_calc --framework cmocka --ignore '*.log')
"$WHITTLE" reduce "${pargs[@]}" --out "$T/p1" > "$T/p1.out" 2>&1 || { cat "$T/p1.out"; fail "plain run 1"; }
check_eq "plain: identity basis" "$(basis "$T/p1")" "every project file but outputs and build folders minus --ignore globs"
check_eq "plain: job.json keeps the globs" "$(json "$(run_dir "$T/p1")/job.json" '.ignore | join(",")')" "*.log"
mkdir -p "$P/build-out/sub" && echo "log" > "$P/build-out/sub/x.txt"
echo "log" > "$P/tests/run.log"
"$WHITTLE" reduce "${pargs[@]}" --out "$T/p2" > "$T/p2.out" 2>&1 || { cat "$T/p2.out"; fail "plain run 2"; }
check_eq "plain: same snapshot with a build* folder and an ignored *.log" "$(snap "$T/p2")" "$(snap "$T/p1")"
check_eq "plain: rerun with stray files: evaluated" "$(ev "$T/p2")" 0
echo "int unused;" > "$P/src/extra.c"
"$WHITTLE" reduce "${pargs[@]}" --out "$T/p3" > "$T/p3.out" 2>&1 || { cat "$T/p3.out"; fail "plain run 3"; }
[ "$(snap "$T/p3")" != "$(snap "$T/p1")" ] && pass "plain: a new source file is a new snapshot" || fail "plain: a new source file kept the snapshot"
# A bad "ignore" field in a job file is named.
echo '{"ignore": [1]}' > "$T/bad.json"
out=$("$WHITTLE" reduce --config "$T/bad.json" 2>&1); rc=$?
check_eq "bad ignore field: exit and message" "$rc: $out" \
    "2: whittle: error: config '$T/bad.json': field 'ignore' must be a glob or an array of globs"
finish
