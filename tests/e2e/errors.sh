#!/bin/bash
# Every error of `whittle reduce` is one line that names the problem and the
# input, with the exit status of README's table (2 bad input, 1 a test file
# that does not parse or a test it does not define, 3 an original that
# cannot be reduced, 4 infrastructure trouble, such as an --out that cannot
# be written or a --run command the shell cannot find, 5 an answer not
# verified by a second node nor on this machine, 130 interrupted); a
# test that hangs (and forks a sleeper) is killed with its whole process
# group: nothing is left running.
. "$(dirname "$0")/lib.sh"
P="$T/headers"; cp -r "$FIX/headers" "$P"
base=(--project "$P" --file tests/test_request.c --setup "make -s" --build "make -s"
      --framework cmocka --out "$T/runs" --cache memory:)

expect_error() { # name exit-status pattern args...
    local name=$1 want=$2 pat=$3; shift 3
    "$WHITTLE" reduce "$@" > "$T/o" 2> "$T/e"; local rc=$?
    local line; line=$(grep 'whittle: error:' "$T/e" | head -n1)
    if [ $rc -eq "$want" ] && echo "$line" | grep -q -- "$pat"; then
        pass "$name: exit $rc: $line"
    else
        fail "$name: exit $rc (want $want), stderr: $(cat "$T/e")"
    fi
    [ "$(grep -c 'whittle: error:' "$T/e")" -eq 1 ] || fail "$name: more than one error line"
}

expect_error "original passes" 3 "original test passes: test_missing_header_is_empty" \
    "${base[@]}" --test test_missing_header_is_empty --run ./test_request
# A refused run leaves its record but not its workspaces (work/, a copy of
# the project and its build per slot); --keep-work keeps them.
RR=$(run_dir "$T/runs")
[ -s "$RR/run.log" ] && [ -s "$RR/original.c" ] && pass "refused run: record kept" || fail "refused run: record missing in $RR"
[ ! -e "$RR/work" ] && pass "refused run: no work/ left" || fail "refused run: $RR/work left ($(du -sh "$RR/work" | cut -f1))"
expect_error "original passes, --keep-work" 3 "original test passes: test_missing_header_is_empty" \
    "${base[@]}" --test test_missing_header_is_empty --run ./test_request --out "$T/keep" --keep-work
[ -d "$(run_dir "$T/keep")/work/ws" ] && pass "--keep-work: work/ kept" || fail "--keep-work: no work/ws in $(run_dir "$T/keep")"
expect_error "unknown test lists names" 1 "test 'test_nope' not found.*test_should_read_headers.*test_missing_header_is_empty" \
    "${base[@]}" --test test_nope --run ./test_request
grep -q "did you mean" "$T/e" && fail "test_nope: a suggestion: $(cat "$T/e")" || pass "test_nope: nothing near, no suggestion"
expect_error "mistyped test names the nearest" 1 "test 'test_should_read_headrs' not found in .*; it defines: test_should_read_headers, test_missing_header_is_empty (did you mean 'test_should_read_headers'?)\$" \
    "${base[@]}" --test test_should_read_headrs --run ./test_request
expect_error "setup fails" 3 "setup failed.*exited 3: no-such-tool: not found (log: " \
    --project "$P" --file tests/test_request.c --test test_should_read_headers \
    --setup "echo configuring; echo 'no-such-tool: not found' >&2; exit 3" \
    --build "make -s" --run ./test_request --framework cmocka --out "$T/runs" --cache memory:
# Its log was in the slot's workspace, which is gone: the run folder keeps
# it, the error names that copy and stderr shows its last lines.
SL=$(sed -n 's/.*(log: \(.*\))$/\1/p' "$T/e" | tail -n1)
case "$SL" in "$T"/runs/*/reports/setup.log) pass "setup fails: the log named is the run folder's" ;; *) fail "setup fails: log named '$SL'" ;; esac
grep -q "no-such-tool: not found" "$SL" 2>/dev/null && pass "setup fails: the log is there" || fail "setup fails: no log at '$SL'"
grep -q "^Last lines of the setup's output (reports/setup.log):" "$T/e" && grep -q "^  | configuring" "$T/e" \
    && pass "setup fails: its output is shown" || fail "setup fails: no output shown: $(cat "$T/e")"
N="$T/nobuild"; cp -r "$FIX/headers" "$N"; echo 'this is not C;' >> "$N/src/request.c"
expect_error "original does not build" 3 "original does not build (testing tests/test_request.c): src/request.c:[0-9]*:[0-9]*: error: " \
    --project "$N" --file tests/test_request.c --test test_should_read_headers --setup true \
    --build "make -s" --run ./test_request --framework cmocka --out "$T/runs" --cache memory:
grep -q "^Last lines of the original build's output (reports/original.report):" "$T/e" \
    && pass "failed build: its output is shown" || fail "failed build: no build output on stderr"
grep -q "src/request.c:.*error" "$T/e" && grep -q "this is not C" "$T/e" \
    && pass "failed build: the compiler's error is in it" || fail "failed build: the compiler's error is missing: $(cat "$T/e")"
expect_error "report missing" 3 "report missing on the original run" \
    "${base[@]}" --test test_should_read_headers --run "true"
expect_error "run command not found (exit 127)" 4 "command not found: ./test_nope (in --run)" \
    "${base[@]}" --test test_should_read_headers --run "./test_nope"
expect_error "run command not found, first word" 4 "command not found: no-such-runner (in --run)" \
    "${base[@]}" --test test_should_read_headers --run "no-such-runner --x {test}"
expect_error "missing project" 2 "project '/nonexistent' is not a folder" \
    --project /nonexistent --file x.c --test t --run true
expect_error "missing file" 2 "test file 'nope.c' not found" \
    --project "$P" --file nope.c --test t --run true
# Numbers no timeout can be: refused before anything runs, exit 2.
for bad in nan inf -1 0 1e300 5x; do
    expect_error "--test-timeout $bad" 2 "--test-timeout wants a number of seconds in (0, 604800\\], not '$bad'" \
        "${base[@]}" --test test_should_read_headers --test-timeout "$bad"
    [ "$(wc -l < "$T/o")" -eq 0 ] || fail "--test-timeout $bad: output before the refusal"
done
expect_error "empty project" 2 "empty --project" \
    --project "" --file tests/test_request.c --test test_should_read_headers --run true
expect_error "unknown framework" 2 "unknown framework 'nunit'" \
    "${base[@]}" --test test_should_read_headers --run true --framework nunit
expect_error "unknown precheck mode" 2 "unknown precheck mode 'maybe' (known: on, off, audit)" \
    "${base[@]}" --test test_should_read_headers --run true --precheck maybe

# An --out that cannot be written is infrastructure trouble (4), here and
# through a coordinator whose --runs folder cannot be written.
echo "a file, not a folder" > "$T/afile"
expect_error "unwritable --out" 4 "cannot create output folder '$T/afile/runs': Not a directory" \
    "${base[@]}" --test test_should_read_headers --run ./test_request --out "$T/afile/runs"
EP="tcp://127.0.0.1:$(free_port)"
"$WH_BINARY_DIR/coordinator/whittle-coordinator" --bind "$EP" --insecure --cache memory: --journal off \
    --runs "$T/afile/runs" > "$T/coord.log" 2>&1 &
CPID=$!
for _ in $(seq 1 50); do "$WHITTLE" status --cluster "$EP" --insecure > /dev/null 2>&1 && break; sleep 0.1; done
expect_error "unwritable --runs of the coordinator" 4 "job 0: cannot create output folder '$T/afile/runs/cl': Not a directory" \
    --cluster "$EP" --insecure --project "$P" --file tests/test_request.c --setup "make -s" --build "make -s" \
    --framework cmocka --test test_should_read_headers --run ./test_request --out cl
kill "$CPID"; wait "$CPID" 2>/dev/null

# An answer no second node checked, which this machine may not check either
# (--no-verify-local): not verified, 5 (issue 34).
EP="tcp://127.0.0.1:$(free_port)"
"$WH_BINARY_DIR/coordinator/whittle-coordinator" --bind "$EP" --insecure --cache memory: --journal off \
    --runs "$T/lone-runs" > "$T/coord-lone.log" 2>&1 &
CPID=$!
"$WH_BINARY_DIR/node/whittle-node" --connect "$EP" --insecure --slots 1 --workdir "$T/wd-lone" --id lone \
    > "$T/node-lone.log" 2>&1 &
NPID=$!
for _ in $(seq 1 600); do "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 1" && break; sleep 0.1; done
expect_error "not verified" 5 "job 0: not verified: one node judged every candidate and verified the answer itself, and --no-verify-local keeps this machine from checking it" \
    --cluster "$EP" --insecure --project "$P" --file tests/test_request.c --setup "make -s" --build "make -s" \
    --framework cmocka --test test_should_read_headers --run ./test_request --out lone --no-verify-local
check_eq "not verified: the coordinator's summary.json" "$(json "$(run_dir "$T/lone-runs/lone")/summary.json" .verified)" false
kill "$NPID" "$CPID"; wait "$NPID" "$CPID" 2>/dev/null

# A file that does not parse.
B="$T/broken"; cp -r "$FIX/headers" "$B"
printf 'static void test_bad(void **state)\n{\n    int x = ;\n}\n' > "$B/tests/test_bad.c"
expect_error "file does not parse" 1 "test_bad.c:3:.*error" \
    --project "$B" --file tests/test_bad.c --test test_bad --run true --out "$T/runs" --cache memory:

# A hanging test that forks a sleeper: the timeout kills the whole group.
marker="whittle-e2e-sleeper-$$"
cp "$(command -v sleep)" "$T/$marker"
expect_error "test timeout" 3 "timed out after 1000 ms" \
    "${base[@]}" --test test_should_read_headers --test-timeout 1 \
    --run "$T/$marker 300 & $T/$marker 301"
# No grace period: whittle returns only after the whole group is gone.
left=$(pgrep -f "$T/$marker" || true)
if [ -n "$left" ]; then
    fail "sleepers left running: $left"; kill -KILL $left 2>/dev/null || true
else
    pass "nothing left running after the timeout"
fi

# Interrupted part-way (SIGINT): a non-zero exit, and the record and the
# verdicts cached so far are kept. --ddmin classic: its 12 candidates leave
# time to interrupt (the default walk needs 3 here).
C="$T/icache"
"$WHITTLE" reduce --project "$P" --file tests/test_request.c --test test_should_read_headers \
    --setup "make -s" --build "sleep 0.3; make -s" --run ./test_request --framework cmocka \
    --out "$T/irun" --cache "dir:$C" --ddmin classic > "$T/io" 2> "$T/ie" &
wpid=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    [ "$(ls "$T"/irun/*/candidates.csv 2>/dev/null | head -n1)" ] && [ "$(wc -l < "$(ls "$T"/irun/*/candidates.csv | head -n1)")" -ge 3 ] && break
    sleep 0.1
done
IR=$(run_dir "$T/irun")
# The slots' workspaces are the kept ones (coordinator/cluster/workstore.h).
[ -d "$WHITTLE_CACHE_DIR/work/ws" ] && pass "interrupt: the kept workspaces are there while the run goes" ||
    fail "interrupt: no $WHITTLE_CACHE_DIR/work/ws mid-run"
kill -INT "$wpid"; wait "$wpid"; rc=$?
[ ! -e "$IR/work" ] && pass "interrupted run: no work/ left" || fail "interrupted run: $IR/work left"
[ "$rc" -eq 130 ] && grep -q "interrupted" "$T/ie" && pass "interrupted: exit $rc, '$(grep 'whittle: error' "$T/ie")'" || fail "interrupt: exit $rc, $(cat "$T/ie")"
[ "$(wc -l < "$IR/candidates.csv")" -ge 3 ] && grep -q "error: interrupted" "$IR/run.log" && pass "interrupted run kept its record" || fail "interrupted run lost its record"
[ -s "$C/verdicts.log" ] && pass "interrupted run kept $(wc -l < "$C/verdicts.log") cached verdicts" || fail "interrupted run lost its cached verdicts"

# Every failed run still left its record.
n=$(ls -d "$T"/runs/*/ 2>/dev/null | grep -vc /latest/)
[ "$n" -ge 4 ] && pass "failed runs kept $n run folders" || fail "failed runs kept only $n run folders"
finish
