#!/bin/bash
# A project path with a space (and a quote) works with --reference GIT-REV:
# whittle runs git and tar with argument vectors, never through a shell
# string of paths. The fix is one commit back; the reference is exported
# from it, the fault is kept, and the repository is untouched.
. "$(dirname "$0")/lib.sh"
G="$T/my project's repo"; mkdir -p "$G"; cp -r "$FIX/calc_fixed/." "$G/"
gitc() { git -C "$G" -c user.email=t@t -c user.name=t "$@"; }
gitc init -q && gitc add -A && gitc commit -qm fixed
cp "$FIX/calc/src/calc.c" "$G/src/calc.c"
gitc commit -qam "break calc_init"
fixed=$(git -C "$G" rev-parse HEAD~1)
before=$(tree_digest "$G")
args=(--project "$G" --file tests/test_calc.c --test test_basic --setup "make -s"
      --build "make -s" --run ./test_calc --framework cmocka --cache memory:)
O="$T/out dir"
"$WHITTLE" reduce "${args[@]}" --reference HEAD~1 --out "$O" > "$T/o1" 2>&1 \
    || { cat "$T/o1"; fail "reduce with a space in the project path and --reference HEAD~1"; }
R=$(run_dir "$O")
check_eq "fault status" "$(json "$R/summary.json" .fault.status)" kept
check_eq "statements after" "$(json "$R/summary.json" .statements_after)" 3
check_eq "reference exported from the fixed commit" \
    "$(sha256sum < "$O/references/$fixed/src/calc.c")" "$(sha256sum < "$FIX/calc_fixed/src/calc.c")"
check_eq "the repository is untouched" "$(tree_digest "$G")" "$before"
# A revision that does not exist, or one that looks like an option, is
# named; no shell ever sees it.
out=$("$WHITTLE" reduce "${args[@]}" --reference 'no such; touch "$T/pwned"' --out "$O" 2>&1); rc=$?
check_eq "bad revision: exit and message" "$rc: $out" \
    "2: whittle: error: reference 'no such; touch \"\$T/pwned\"' is neither a folder nor a git revision of $G"
out=$("$WHITTLE" reduce "${args[@]}" --reference --output=x --out "$O" 2>&1); rc=$?
check_eq "revision that looks like an option: exit and message" "$rc: $out" \
    "2: whittle: error: reference '--output=x' is neither a folder nor a git revision of $G"
[ -e "$T/pwned" ] && fail "a shell ran the revision" || pass "no shell ran the revision"
finish
