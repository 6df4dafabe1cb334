#!/bin/bash
# Honest benchmarks (issue 36): bench/scaling.sh on its smallest fixture
# (--quick: test_synth_small, 1 measured slot, no build latency) builds the
# measured runs' BuildFailed predictions in an audit run and prints
# "predictions: P predicted, S built anyway, W wrong". With the fixture's
# own compile command no prediction is wrong (exit 0); with a stricter
# compile command than its judge's (-Wall -Werror: an unused variable is an
# error to the front end, the judge builds it) the audit names the first
# wrong candidate and the script fails. And bench/lib.sh refuses a fixture
# whose test file would take its compile command from whittle's own build
# (a compile_commands.json found above it), in one line naming the database.
. "$(dirname "$0")/lib.sh"
command -v jq > /dev/null || { echo "jq is needed" >&2; exit 1; }
SC="$WH_SOURCE_DIR/bench/scaling.sh"
bench() { # name args...: runs scaling.sh, output in $T/NAME.out, exit status in $T/NAME.rc
    local name=$1; shift
    local rc=0
    bash "$SC" --quick --slots 1 --latency 0 --audit-slots 2 --build-dir "$WH_BINARY_DIR" "$@" \
        > "$T/$name.out" 2>&1 || rc=$?
    echo "$rc" > "$T/$name.rc"
    # A failed run keeps its records: remove them (under /tmp/whittle-bench.*).
    local kept; kept=$(sed -n 's/.*records kept in \(\/tmp\/whittle-bench\.[A-Za-z0-9]*\)).*/\1/p' "$T/$name.out" | head -n1)
    [ -n "$kept" ] && [ -d "$kept" ] && rm -rf "$kept"
    return 0
}
# predictions P S W of a run's output ("" when the line is missing).
preds() { sed -n 's/^predictions: \([0-9]*\) predicted, \([0-9]*\) built anyway, \([0-9]*\) wrong.*/\1 \2 \3/p' "$T/$1.out"; }

# 1. The fixture's own compile command: every prediction right.
bench honest
check_eq "honest: exit status" "$(cat "$T/honest.rc")" 0
read -r p s w <<< "$(preds honest)"
if [ -n "${p:-}" ] && [ "$p" -gt 0 ]; then pass "honest: $p predictions"; else fail "honest: no predictions line with P > 0"; fi
check_eq "honest: predictions built anyway" "${s:-}" "${p:-}"
check_eq "honest: wrong predictions" "${w:-}" 0
grep -q '^audit walk: .* 0 of them built' "$T/honest.out" && pass "honest: the audit walk's predictions all failed to build" ||
    fail "honest: audit walk line: $(grep '^audit walk' "$T/honest.out")"
[ "$(cat "$T/honest.rc")" = 0 ] || cat "$T/honest.out" >&2

# 2. A compile command stricter than the judge: the audit fails, naming the
# first wrong candidate.
bench strict --fixture-flags "-std=c11 -Wall -Werror"
check_eq "strict: exit status" "$(cat "$T/strict.rc")" 1
read -r p s w <<< "$(preds strict)"
if [ -n "${w:-}" ] && [ "$w" -gt 0 ]; then pass "strict: $w wrong predictions"; else fail "strict: no wrong predictions counted ('${w:-}')"; fi
grep -q '^FAILED: wrong prediction: cand_[0-9]* of cluster-1: predicted BuildFailed, built [A-Za-z]* ' "$T/strict.out" &&
    pass "strict: the first wrong candidate named" || { fail "strict: no line naming the wrong candidate"; cat "$T/strict.out" >&2; }

# 3. A fixture inside a tree whose build/ holds whittle's compile database:
# refused in one line; a fixture with a database of its own passes.
mkdir -p "$T/src/build" "$T/src/bench/synthetic/tests"
cp "$WH_SOURCE_DIR/bench/synthetic/tests/test_synth.c" "$T/src/bench/synthetic/tests/"
printf '[{"directory": "%s/build", "file": "%s/coordinator/cli/whittle_main.c", "command": "cc -Wall -Wextra -Werror -c %s/coordinator/cli/whittle_main.c"}]\n' \
    "$T/src" "$T/src" "$T/src" > "$T/src/build/compile_commands.json"
rc=0
(. "$WH_SOURCE_DIR/bench/lib.sh" && bench_check_compdb "$T/src/bench/synthetic" tests/test_synth.c own) \
    > "$T/refuse.out" 2>&1 || rc=$?
check_eq "in a tree with whittle's build: exit status" "$rc" 2
check_eq "in a tree with whittle's build: one line" "$(wc -l < "$T/refuse.out")" 1
grep -q "would take its compile command from $T/src/build/compile_commands.json (whittle's own build)" "$T/refuse.out" &&
    pass "the refusal names the database" || fail "refusal: $(cat "$T/refuse.out")"
mkdir -p "$T/own/tests"
cp "$WH_SOURCE_DIR/bench/synthetic/tests/test_synth.c" "$T/own/tests/"
rc=0
(. "$WH_SOURCE_DIR/bench/lib.sh" && bench_compdb "$T/own" tests/test_synth.c -std=c11 &&
    bench_check_compdb "$T/own" tests/test_synth.c own) > "$T/own.out" 2>&1 || rc=$?
check_eq "a fixture with its own database: exit status" "$rc" 0
finish
