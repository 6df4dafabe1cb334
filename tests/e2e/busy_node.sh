#!/bin/bash
# A node that answers "busy" to every candidate (issue 10; whittle-node-test,
# the test-only build of whittle-node, with WH_TEST_BUSY=always). Before, the coordinator sent it the same candidate
# for ever (98,238 sends in 30 s). Now every busy reply costs the slot a
# backoff (100 ms doubling to 2 s) and, after 6 in a row, its place in the
# rotation; a candidate that met 6 busy replies is an InfraError.
#  1. The busy node alone: exactly 6 sends, the slot leaves rotation, the
#     run stops with exit 4 naming it; run.log names it too.
#  2. An honest node joins the same coordinator: the same job gives the
#     embedded default's answer, the busy slot gets nothing more, and
#     `whittle status` shows it out of rotation.
#  3. A fresh coordinator, the busy node first and an honest one beside it:
#     the right answer, at most 6 sends to the busy slot.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
CLUSTER_INSECURE=1 # slots_joined, wait_slots (lib.sh)
start_coord() { # log
    local port; port=$(free_port); EP="tcp://127.0.0.1:$port"
    "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: -v > "$T/$1" 2>&1 &
    PIDS+=($!)
    wait_listening "$T/$1"
}
start_node() { # id [env...]: whittle-node, or whittle-node-test when a WH_TEST_ switch is given
    local id=$1; shift
    local bin="$B/node/whittle-node"
    case "$*" in *WH_TEST_*) bin="$B/node/whittle-node-test" ;; esac
    env "$@" "$bin" --connect "$EP" --insecure --slots 1 --workdir "$T/wd-$id-$RANDOM" --id "$id" \
        > "$T/$id.log" 2>&1 &
    PIDS+=($!)
}
sends_to_busy() { grep -c "dispatch job [0-9a-f]* cand [0-9]*.* to busy/0" "$T/$1"; }

P="$T/tally"; cp -r "$FIX/tally" "$P"
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain)
"$WHITTLE" reduce "${args[@]}" --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 || { cat "$T/ref.out"; fail "embedded run"; }
REF=$(run_dir "$T/ref")

# 1. Alone.
start_coord coord1.log
start_node busy WH_TEST_BUSY=always
wait_slots 1
grep -q "^whittle-node: WH_TEST_BUSY=always: this node answers busy to every candidate (test only)$" "$T/busy.log" \
    && pass "the busy node says so" || fail "busy node log: $(cat "$T/busy.log")"
t0=$(date +%s%N)
timeout 120 "$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out alone > "$T/alone.out" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check_eq "alone: exit status" "$rc" 4
grep -q "^whittle: error: job 0: the original run could not be judged: every slot is out of rotation (busy/0/[^ ]*: answered busy 6 times in a row)" "$T/alone.out" \
    && pass "alone: the error names the busy slot" || fail "alone: $(cat "$T/alone.out")"
check_eq "alone: sends to the busy slot" "$(sends_to_busy coord1.log)" 6
# The backoff between the 6 sends: 100+200+400+800+1600 ms.
[ "$ms" -ge 3100 ] && pass "alone: the sends were spread by the backoff ($ms ms)" || fail "alone: over in $ms ms, under the 3100 ms of backoff"
A=$(run_dir "$T/alone")
grep -q "^slot busy/0/[^ ]* taken out of rotation: answered busy 6 times in a row$" "$A/run.log" \
    && pass "alone: run.log names the slot out of rotation" || fail "alone: run.log: $(grep -i rotation "$A/run.log")"

# 2. An honest node joins.
start_node honest
wait_slots 2
timeout 300 "$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out joined > "$T/joined.out" 2>&1 \
    || { cat "$T/joined.out"; fail "run with an honest node beside the busy one"; }
R=$(run_dir "$T/joined")
check_eq "joined: reduced test = embedded" "$(cat "$R/reduced.c")" "$(cat "$REF/reduced.c")"
check_eq "joined: candidates and verdicts = embedded" "$(cut -d, -f1-6 "$R/candidates.csv")" "$(cut -d, -f1-6 "$REF/candidates.csv")"
check_eq "joined: no more sends to the busy slot" "$(sends_to_busy coord1.log)" 6
"$WHITTLE" status --cluster "$EP" --insecure > "$T/status"
grep -q "^  slot busy/0/[^ ]* .*OUT OF ROTATION: answered busy 6 times in a row" "$T/status" \
    && pass "status: the busy slot is out of rotation" || fail "status: $(cat "$T/status")"
stop_all

# 3. Both from the start, the busy node first in line.
start_coord coord3.log
start_node busy WH_TEST_BUSY=always
wait_slots 1
start_node honest
wait_slots 2
timeout 300 "$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out both > "$T/both.out" 2>&1 \
    || { cat "$T/both.out"; fail "run with both nodes"; }
R=$(run_dir "$T/both")
check_eq "both: reduced test = embedded" "$(cat "$R/reduced.c")" "$(cat "$REF/reduced.c")"
n=$(sends_to_busy coord3.log)
[ "$n" -ge 1 ] && [ "$n" -le 6 ] && pass "both: $n sends to the busy slot (1..6)" || fail "both: $n sends to the busy slot"
check_eq "both: verdicts from the busy slot" "$(grep -c ',busy/' "$R/candidates.csv")" 0
stop_all
finish
