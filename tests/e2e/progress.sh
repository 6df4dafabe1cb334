#!/bin/bash
# Progress on the console (issue 12):
#  - on a terminal (script(1) gives one): one live status line, redrawn in
#    place ("\r" ... erase to end of line), with sweep, level, round, units
#    left, built/predicted/cached and an ETA; erased before other output;
#    no per-candidate lines;
#  - stdout not a terminal: plain "Progress:" lines, no control characters;
#  - -v adds one [cand_NNN] line per candidate; --quiet prints the result
#    and nothing else;
#  - through a coordinator: the Progress message carries the same status
#    line and the client draws it live.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
P="$T/calc"; cp -r "$FIX/calc" "$P"
args=(--project "$P" --file tests/test_calc.c --test test_basic --setup "make -s"
      --build "make -s" --run ./test_calc --framework cmocka --cache memory: --jobs 1)
q() { printf '%q ' "$@"; }
ESC=$'\033'; CR=$'\r'
has() { grep -qF -- "$2" "$1"; }

# ---- a terminal ----
script -q -c "$(q "$WHITTLE" reduce "${args[@]}" --out "$T/tty")" "$T/tty.raw" > /dev/null 2>&1 \
    || { cat "$T/tty.raw"; fail "reduce on a terminal"; }
R=$(run_dir "$T/tty")
check_eq "tty: reduced to" "$(json "$R/summary.json" .statements_after)" 2
has "$T/tty.raw" "${CR}fingerprinting the original | 5/5 units left | 0 built, 0 predicted, 0 cached${ESC}[K" \
    && pass "tty: live line while fingerprinting" || fail "tty: no live line while fingerprinting"
has "$T/tty.raw" "${CR}sweep 1 level 0 round 1 | 5/5 units left | 0 built, 0 predicted, 0 cached | ETA ?${ESC}[K" \
    && pass "tty: live line of round 1 (ETA unknown before a build)" || fail "tty: no live line for round 1"
# A later round: something built, so an ETA in seconds.
lines=$(tr '\r' '\n' < "$T/tty.raw" | grep -E "^sweep [0-9]+ level [0-9]+ round [0-9]+ \| [0-9]+/5 units left \| [1-9][0-9]* built, [0-9]+ predicted, [0-9]+ cached \| ETA [0-9]+s${ESC}\[K" | wc -l)
[ "$lines" -ge 1 ] && pass "tty: $lines live line(s) with builds and an ETA" || { cat -v "$T/tty.raw"; fail "tty: no live line with an ETA"; }
has "$T/tty.raw" "${CR}${ESC}[KVerifying: building and running the reduced test afresh" \
    && pass "tty: the live line is erased before other output" || fail "tty: output printed over the live line"
has "$T/tty.raw" "[cand_" && fail "tty: per-candidate lines without -v" || pass "tty: no per-candidate lines without -v"
has "$T/tty.raw" "Progress:" && fail "tty: plain progress lines on a terminal" || pass "tty: no plain progress lines"

# ---- not a terminal ----
WHITTLE_PROGRESS_SECS=600 "$WHITTLE" reduce "${args[@]}" --out "$T/plain" > "$T/plain.out" 2> "$T/plain.err" || { cat "$T/plain.out"; fail "plain run"; }
check_eq "plain: first progress line" "$(grep -m1 '^Progress:' "$T/plain.out")" \
    "Progress: fingerprinting the original | 5/5 units left | 0 built, 0 predicted, 0 cached"
check_eq "plain: progress line of the first level" "$(grep '^Progress: sweep' "$T/plain.out" | head -n1)" \
    "Progress: sweep 1 level 0 round 1 | 5/5 units left | 0 built, 0 predicted, 0 cached | ETA ?"
# Only changes print (the period is 10 minutes here): one line per phase and
# level (sweep 2 is one quick round, and so is the claims check: the 100 ms
# loop may not see them).
check_eq "plain: progress lines" "$(grep '^Progress:' "$T/plain.out" | sed 's/ round .*//; s/ |.*//' | grep -v -e '^Progress: sweep 2 level 0$' -e '^Progress: checking the claims$')" \
"Progress: fingerprinting the original
Progress: sweep 1 level 0
Progress: verifying the reduced test"
check_eq "plain: a line when verifying starts" "$(grep -c '^Progress: verifying the reduced test | 2/5 units left' "$T/plain.out")" 1
grep -q "[$CR$ESC]" "$T/plain.out" && fail "plain: control characters in the output" || pass "plain: no control characters"
has "$T/plain.out" "[cand_" && fail "plain: per-candidate lines without -v" || pass "plain: no per-candidate lines without -v"

# ---- -v ----
"$WHITTLE" reduce "${args[@]}" -v --out "$T/verbose" > "$T/v.out" 2>&1 || fail "verbose run"
RV=$(run_dir "$T/verbose")
check_eq "-v: one [cand_NNN] line per candidate" "$(grep -c '^\[cand_[0-9]*\] keep ' "$T/v.out")" "$(json "$RV/summary.json" .candidates)"

# ---- --quiet ----
"$WHITTLE" reduce "${args[@]}" --quiet --out "$T/quiet" > "$T/q.out" 2> "$T/q.err" || fail "quiet run"
RQ=$(run_dir "$T/quiet")
{ echo "Reduced test ($RQ/reduced.c):"; awk '/^static void test_basic/,/^}/' "$RQ/reduced.c"
  echo "Diff ($RQ/reduced.diff):"; cat "$RQ/reduced.diff"; } > "$T/q.want"
cmp -s "$T/q.out" "$T/q.want" && pass "--quiet: stdout is the result only" || { diff "$T/q.want" "$T/q.out"; fail "--quiet printed more than the result"; }
check_eq "--quiet: stderr" "$(cat "$T/q.err")" ""

# ---- through a coordinator ----
EP="tcp://127.0.0.1:$(free_port)"
"$B/coordinator/whittle-coordinator" --bind "$EP" --cache memory: --insecure --runs "$T/runs" > "$T/coord.log" 2>&1 &
PIDS+=($!)
"$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/node" --id n1 --insecure > "$T/node.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 1" && break; sleep 0.1
done
rargs=(--project "$P" --file tests/test_calc.c --test test_basic --setup "make -s"
       --build "sleep 0.3; make -s" --run ./test_calc --framework cmocka) # slower: several status lines
script -q -c "$(q "$WHITTLE" reduce "${rargs[@]}" --cluster "$EP" --insecure --out remote)" "$T/remote.raw" > /dev/null 2>&1 &
RPID=$!
# Meanwhile `whittle status` shows the job's status line under it.
seen=""
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    seen=$("$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -E '^    (sweep [0-9]+ level [0-9]+ round [0-9]+|fingerprinting the original|verifying the reduced test) \| [0-9]+/5 units left \| ' | head -n1)
    [ -n "$seen" ] && break
    sleep 0.1
done
[ -n "$seen" ] && pass "status: the running job's status line: $seen" || fail "status: no status line for the running job"
wait "$RPID" || { cat -v "$T/remote.raw"; cat "$T/coord.log"; fail "reduce --cluster on a terminal"; }
lines=$(tr '\r' '\n' < "$T/remote.raw" | grep -cE "^\[job 0\] (sweep [0-9]+ level [0-9]+ round [0-9]+ \| [0-9]+/5 units left \| [0-9]+ built, [0-9]+ predicted, [0-9]+ cached \| ETA [0-9?]+s?|fingerprinting the original \| 5/5 units left \| 0 built, 0 predicted, 0 cached|verifying the reduced test \| [0-9]+/5 units left .*)${ESC}\[K")
[ "$lines" -ge 1 ] && pass "remote: $lines live status line(s) from the coordinator" || { cat -v "$T/remote.raw"; fail "remote: no live status line"; }
has "$T/remote.raw" "Reduced test:" && pass "remote: the result is printed" || fail "remote: no result"
stop_all
finish
