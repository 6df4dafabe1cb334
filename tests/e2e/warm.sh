#!/bin/bash
# One setup per node per job: with --jobs 2 the node runs the setup once
# (a marker file counts setups) and clones the set-up tree into both slots;
# every library translation unit is compiled exactly once in the whole run
# (a clone's builds recompile only the test's), and the reduced test is the
# one --jobs 1 finds. Without the mount namespace (WHITTLE_NO_MOUNTNS=1)
# each slot sets up on its own, with the same answer. With --reference the
# reference is set up once per node too.
. "$(dirname "$0")/lib.sh"
P="$T/ledger"; cp -r "$FIX/ledger" "$P"
before=$(tree_digest "$P")
export LEDGER_MARK LEDGER_CC_LOG
args=(--project "$P" --file tests/test_ledger.c --test test_total_includes_rounded_tax
      --setup 'cmake -S . -B build -G Ninja -DCMAKE_C_COMPILER_LAUNCHER="$PWD/tools/cc-log.sh" >/dev/null && cmake --build build && echo setup >> "$LEDGER_MARK"'
      --build "cmake --build build" --run "build/test_ledger" --framework cmocka --cache memory:)
want='    struct ledger *l = ledger_new(75);
    ledger_add(l, 1000);
    ledger_add(l, 999);
    long total = ledger_total(l);
    assert_int_equal(2149, total);'

body() { # the reduced test function's statements
    sed -n '/^static void test_total_includes_rounded_tax/,/^}/p' "$1/reduced.c" | sed '1,2d;$d'
}
count() { grep -cx "$2" "$1" || true; }

# --jobs N [env...]: runs, checks the answer, leaves R and the logs. Each
# run has a cache folder of its own, so its kept workspaces
# (coordinator/cluster/workstore.h) are its own; "again" below reruns in
# one that has them.
run() {
    local name=$1 jobs=$2; shift 2
    LEDGER_MARK="$T/$name.mark"; LEDGER_CC_LOG="$T/$name.cc"
    : > "$LEDGER_MARK"; : > "$LEDGER_CC_LOG"
    env WHITTLE_CACHE_DIR="${CACHE_DIR:-$T/$name.cache}" "$@" "$WHITTLE" reduce "${args[@]}" --jobs "$jobs" --out "$T/$name" > "$T/$name.out" 2>&1 \
        || { cat "$T/$name.out"; fail "$name run"; }
    R=$(run_dir "$T/$name")
    check_eq "$name reduced test" "$(body "$R")" "$want"
}

run j1 1
# One setup: with a single slot the end-of-run verification runs in a fresh
# workspace of its own (DESIGN.md "Trust"), a clone of the set-up copy, not
# a second setup.
check_eq "j1 setups (marker: warm-up only; the fresh verify workspace is a clone)" "$(wc -l < "$T/j1.mark")" 1
check_eq "j1 summary warm.setups" "$(json "$R/summary.json" .warm.setups)" 1
check_eq "j1 summary warm.clones" "$(json "$R/summary.json" .warm.clones)" 1
check_eq "j1 verified afresh" "$(json "$R/summary.json" .verified)" true

run j2 2
check_eq "j2 setups (marker)" "$(wc -l < "$T/j2.mark")" 1
check_eq "j2 summary warm.setups" "$(json "$R/summary.json" .warm.setups)" 1
check_eq "j2 summary warm.clones" "$(json "$R/summary.json" .warm.clones)" 2
# the compile command recorded at the stable path comes back to the project
check_eq "j2 compile command file" "$(json "$R/compile_command.json" .file)" "$P/tests/test_ledger.c"
check_eq "j2 both slots judged candidates" \
    "$(cut -d, -f8 "$R/candidates.csv" | grep -v '^-$\|^precheck$' | sed 1d | cut -d/ -f2 | sort -u | tr '\n' ' ')" "0 1 "
for tu in ledger.c money.c tax.c; do
    check_eq "j2 $tu compiled once in the whole run" "$(count "$T/j2.cc" "$tu")" 1
done
# every build after the setup's compiled the test file only
check_le "j2 builds compiled the test file" "$(( $(json "$R/summary.json" .evaluated) + 1 ))" "$(count "$T/j2.cc" test_ledger.c)"
check_eq "j2 nothing else compiled" "$(grep -cvx 'ledger.c\|money.c\|tax.c\|test_ledger.c' "$T/j2.cc" || true)" 0

# A rerun where j2's workspaces are kept: no set-up, nothing compiled but
# the test file (the cache is memory:, so every candidate is built again).
CACHE_DIR="$T/j2.cache" run again 2
check_eq "again: setups (marker)" "$(wc -l < "$T/again.mark")" 0
check_eq "again: summary warm.setups" "$(json "$R/summary.json" .warm.setups)" 0
check_eq "again: nothing but the test file compiled" \
    "$(grep -cvx 'test_ledger.c' "$T/again.cc" || true)" 0

run nons 2 WHITTLE_NO_MOUNTNS=1
check_eq "no namespace: every slot sets up" "$(wc -l < "$T/nons.mark")" 2
check_eq "no namespace: summary warm.setups" "$(json "$R/summary.json" .warm.setups)" 2
check_eq "no namespace: summary warm.clones" "$(json "$R/summary.json" .warm.clones)" 0

# The reference warms too, once per node: two setups (project, reference),
# every other workspace a clone; the fault is kept as with --jobs 1.
C="$T/calc"; cp -r "$FIX/calc" "$C"; F="$T/calc_fixed"; cp -r "$FIX/calc_fixed" "$F"
"$WHITTLE" reduce --project "$C" --file tests/test_calc.c --test test_basic --setup "make -s" \
    --build "make -s" --run ./test_calc --framework cmocka --cache memory: --reference "$F" \
    --keep-fault --jobs 2 --out "$T/ref" > "$T/ref.out" 2>&1 || { cat "$T/ref.out"; fail "reference run"; }
R=$(run_dir "$T/ref")
check_eq "reference: setups (project + reference)" "$(json "$R/summary.json" .warm.setups)" 2
check_eq "reference: fault status" "$(json "$R/summary.json" .fault.status)" kept
check_eq "reference: statements" "$(json "$R/summary.json" .statements_after)" 3

check_eq "project untouched" "$(tree_digest "$P")" "$before"
finish
