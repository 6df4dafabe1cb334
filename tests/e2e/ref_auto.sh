#!/bin/bash
# --reference auto, the default in a git project (issue 19). A git project
# made here from tests/fixtures/tally_fixed (plain assert(), no values in the
# message); the bug (tally/src/tally.c: + for *) is an uncommitted change of
# the library. `whittle reduce` with no flag about a reference:
#  - names HEAD as the reference, checks that the original passes there, and
#    keeps the fault: the reduced test, built here against the buggy tree,
#    fails, and against HEAD's tree passes; exit 0;
#  - writes nothing to the repository (git status, HEAD, the index file's
#    mtime and digest are the same afterwards);
#  - --reference none turns it off: the fault is lost and not checked.
# The bug committed and nothing changed, no upstream: "reference: none (...)".
# An unrelated uncommitted change on top of the committed bug: HEAD is picked,
# the original fails there too, and the run goes on unchecked.
# A copy that is no git project says at the start why there is no reference
# (issue 33 item 7: nothing said it, and the answer lost the fault).
. "$(dirname "$0")/lib.sh"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
       GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
# A git project holding a copy of fixture $1, one commit.
mkrepo() {
    cp -r "$FIX/$1" "$2" && git -C "$2" init -q -b main && git -C "$2" add -A \
        && git -C "$2" commit -q -m "$1"
}
# The repository as seen from outside: status, HEAD, the index's mtime and digest.
repo_state() {
    # (--no-optional-locks: this check itself must not refresh the index)
    git --no-optional-locks -C "$1" status --porcelain; git -C "$1" rev-parse HEAD
    stat -c %y "$1/.git/index"; sha256sum < "$1/.git/index"
}
# Builds and runs reduced test $2 in a copy of tree $1; prints the exit status.
run_reduced() {
    local V="$T/check-$3"; rm -rf "$V"; cp -r "$1" "$V"; rm -rf "$V/.git" "$V/build" "$V/test_tally"
    cp "$2" "$V/tests/test_tally.c"
    (cd "$V" && make -s >/dev/null 2>&1 && ./test_tally > out.txt 2>&1; echo $?)
}
args=(--file tests/test_tally.c --test test_total --setup "make -s" --build "make -s"
      --run ./test_tally --framework plain --cache memory:)

P="$T/proj"; mkrepo tally_fixed "$P" || fail "cannot make the git project"
cp "$FIX/tally/src/tally.c" "$P/src/tally.c"   # the bug: an uncommitted change
HEAD12=$(git -C "$P" rev-parse HEAD | cut -c1-12)
before=$(repo_state "$P")
(cd "$T" && "$WHITTLE" reduce --project "$P" "${args[@]}" --out "$T/auto") > "$T/o1" 2>&1
check_eq "auto: exit status" "$?" 0
grep -qxF "reference: HEAD $HEAD12 (a tracked file outside the test changed: src/tally.c); --reference none to turn it off" "$T/o1" \
    && pass "console names HEAD and why" || { cat "$T/o1"; fail "console does not name HEAD"; }
grep -q "^Reference HEAD $HEAD12: the original passes there" "$T/o1" \
    && pass "console: the original passes on HEAD" || fail "console does not say the original passes on HEAD"
grep -q "^Fault check: fault kept: the reduced test passes on the reference" "$T/o1" \
    && pass "console: fault kept" || fail "console does not say the fault was kept"
R=$(run_dir "$T/auto")
check_eq "auto: fault_kept" "$(json "$R/summary.json" .fault_kept)" true
check_eq "auto: reference_auto.picked" "$(json "$R/summary.json" .reference_auto.picked)" "HEAD $HEAD12"
check_eq "auto: reference_auto.why" "$(json "$R/summary.json" .reference_auto.why)" \
    "a tracked file outside the test changed: src/tally.c"
check_eq "auto: the export is in the run folder's --out" \
    "$(json "$R/summary.json" .fault.reference)" "$T/auto/references/$(git -C "$P" rev-parse HEAD)"
grep -q "^reference:   HEAD $HEAD12 (--reference auto: a tracked file outside" "$R/summary.txt" \
    && pass "summary.txt names the pick" || fail "summary.txt does not name the pick"
check_eq "report.html: the pick" "$(sed -n 's:.*id="fault-auto">\([^<]*\)<.*:\1:p' "$R/report.html")" \
    "HEAD $HEAD12 (a tracked file outside the test changed: src/tally.c)"
grep -q "tally_total" "$R/reduced.c" && pass "the reduced test still computes the total" \
    || fail "the reduced test lost the computation"
# On its own: fails on the bug, passes on HEAD's tree.
mkdir -p "$T/head" && git -C "$P" archive HEAD | tar -x -C "$T/head"
check_eq "reduced test on the buggy tree: exit status" "$(run_reduced "$P" "$R/reduced.c" bug)" 134
grep -q "Assertion \`total == 8' failed" "$T/check-bug/out.txt" \
    && pass "reduced test fails on the bug the same way" || fail "reduced test does not fail on the bug"
check_eq "reduced test on HEAD: exit status" "$(run_reduced "$T/head" "$R/reduced.c" head)" 0
check_eq "the repository is unchanged" "$(repo_state "$P")" "$before"

# --reference none: unchecked, and the default fingerprint loses the fault.
(cd "$T" && "$WHITTLE" reduce --project "$P" "${args[@]}" --reference none --out "$T/none") > "$T/o2" 2>&1
check_eq "--reference none: exit status" "$?" 0
grep -qxF "reference: none (--reference none)" "$T/o2" && pass "console: reference none" \
    || { cat "$T/o2"; fail "console does not say --reference none"; }
R2=$(run_dir "$T/none")
check_eq "--reference none: fault_kept" "$(json "$R2/summary.json" .fault_kept)" null
grep -q "tally_total" "$R2/reduced.c" && fail "--reference none kept the computation (no check expected)" \
    || pass "--reference none: the fault is lost, as without a reference"
check_eq "the repository is unchanged after --reference none" "$(repo_state "$P")" "$before"

# The bug committed, nothing changed, no upstream branch: no reference.
Q="$T/committed"; mkrepo tally "$Q" || fail "cannot make the second git project"
(cd "$T" && "$WHITTLE" reduce --project "$Q" "${args[@]}" --out "$T/clean") > "$T/o3" 2>&1
check_eq "clean: exit status" "$?" 0
grep -qxF "reference: none (no uncommitted change and no upstream branch)" "$T/o3" \
    && pass "console: reference none, said why" || { cat "$T/o3"; fail "console does not say why there is no reference"; }
R3=$(run_dir "$T/clean")
check_eq "clean: fault_kept" "$(json "$R3/summary.json" .fault_kept)" null
check_eq "clean: reference_auto.picked" "$(json "$R3/summary.json" .reference_auto.picked)" null

# An unrelated change on top of the committed bug: HEAD fails the original.
echo "# a comment" >> "$Q/Makefile"
Q12=$(git -C "$Q" rev-parse HEAD | cut -c1-12)
(cd "$T" && "$WHITTLE" reduce --project "$Q" "${args[@]}" --out "$T/fails") > "$T/o4" 2>&1
check_eq "original fails on HEAD: exit status" "$?" 0
grep -qxF "reference HEAD $Q12 (--reference auto): the original fails there too; fault not checked" "$T/o4" \
    && pass "console: the original fails on HEAD too" || { cat "$T/o4"; fail "console does not say the original fails on HEAD"; }
grep -q "^Fault check: fault not checked: reference HEAD $Q12 (--reference auto): the original fails there too" "$T/o4" \
    && pass "console: fault not checked, names why" || fail "the fault check line does not say why"
R4=$(run_dir "$T/fails")
check_eq "original fails on HEAD: fault_kept" "$(json "$R4/summary.json" .fault_kept)" null
check_eq "original fails on HEAD: reference_auto.used" "$(json "$R4/summary.json" .reference_auto.used)" false

# No git project: the start says why there is no reference.
C="$T/copy"; cp -r "$FIX/tally" "$C"
git -C "$C" rev-parse --git-dir > /dev/null 2>&1 && fail "the copy is inside a git repository"
(cd "$T" && "$WHITTLE" reduce --project "$C" "${args[@]}" --out "$T/copy-runs") > "$T/o5" 2>&1
check_eq "no git project: exit status" "$?" 0
why="not a git project: the test file is not tracked by git"
check_eq "no git project: the first line says why there is no reference" "$(head -n 1 "$T/o5")" \
    "reference: none ($why)"
grep -qxF "Fault check: fault not checked: reference: none ($why); pass --reference DIR|GIT-REV to check that the reduced test still reveals the fault (and to keep it)" "$T/o5" \
    && pass "no git project: the fault check line names why" || { cat "$T/o5"; fail "no git project: the fault check line"; }
R5=$(run_dir "$T/copy-runs")
check_eq "no git project: reference_auto.why" "$(json "$R5/summary.json" .reference_auto.why)" "$why"
check_eq "no git project: reference_auto.picked" "$(json "$R5/summary.json" .reference_auto.picked)" null
finish
