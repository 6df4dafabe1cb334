#!/bin/bash
# A node reads and copies a project as the job's user, never as root
# (issue 34: "the node, as root, copied them where the job (nobody) could
# read them, and the job's setup printed them into the client's own run
# folder"). A shared projects folder holds alice's project with a 0600
# secret and a 0600 key of her uid; a job names it (as a too-wide grant or
# --insecure would let it) with a setup that prints both and fails, so that
# its last line reaches the client. The copy fails instead, naming the file
# and the job's user, and neither secret appears in the client's output, a
# run folder or a workspace. A readable project still reduces. Needs root
# (exit 77: skipped otherwise).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root" >&2; exit 77; }
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
CLUSTER_INSECURE=1 # slots_joined, wait_slots (lib.sh)
S="$T/shared"; mkdir -p "$S"
A="$S/alice-tally"; cp -r "$FIX/tally" "$A"
echo "TOPSECRET-alice-5e7d" > "$A/secret.txt"
echo "PRIVATEKEY-alice-0b2f" > "$A/alice.key"
chown 4242:4242 "$A/secret.txt" "$A/alice.key"; chmod 600 "$A/secret.txt" "$A/alice.key"
RUNS="$T/runs"
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$RUNS" --bind "$EP" --insecure --cache memory: > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
# --sandbox none: the copy alone is under test (a sandbox hides no file of
# the workspace from the job).
"$B/node/whittle-node" --connect "$EP" --insecure --slots 1 --workdir "$T/wd" --sandbox none > "$T/node.log" 2>&1 &
PIDS+=($!)
wait_slots 1
job() { # out project setup
    timeout 300 "$WHITTLE" reduce --cluster "$EP" --insecure --project "$2" --file tests/test_tally.c \
        --test test_total --framework plain --setup "$3" --build "make -s" --run ./test_tally \
        --out "$1" > "$T/$1.out" 2>&1
}
job steal "$A" 'cat secret.txt alice.key 2>&1 | tr "\n" " "; echo; false'; rc=$?
[ "$rc" -ne 0 ] && pass "the job on alice's project fails (exit $rc)" || fail "the job succeeded"
grep -q "cannot copy project $A as [a-z0-9-]* (uid [0-9]*, the job's user): cannot open '$A/[a-z.]*': Permission denied" "$T/steal.out" \
    && pass "the client is told the copy failed, naming the file" || fail "client said: $(cat "$T/steal.out")"
leak=$(grep -rlE "TOPSECRET-alice|PRIVATEKEY-alice" "$RUNS" "$T/wd" "$T"/*.out 2>/dev/null)
check_eq "alice's secret or key in the client's output, a run folder or a workspace" "$leak" ""
# The same project without the unreadable files: it reduces (the copy as
# the job's user works).
rm -f "$A/secret.txt" "$A/alice.key"
job ok "$A" "make -s" || { cat "$T/ok.out"; fail "a readable project"; }
check_eq "a readable project: 6 -> 2 statements" "$(json "$(run_dir "$RUNS/ok")/summary.json" '.statements_after')" 2
ws=$(find "$T/wd/ws" -name test_tally.c -path '*/tests/*' | head -1)
check_eq "the copy is the job's user's (a uid of 60000-60999), not root's" "$(stat -c %u "$ws" | grep -cE "^60[0-9]{3}$")" 1
finish
