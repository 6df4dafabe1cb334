#!/bin/bash
# Heartbeats that do not starve (issue 34): on a loaded machine, while a
# node runs a long set-up and the coordinator prepares many jobs at once,
# no live slot is declared dead.
#
# Beside `stress-ng --cpu 4` (started and stopped by its PID), a loopback
# cluster with heartbeats every 300 ms (a slot silent for 900 ms is dead):
# a coordinator, node "big" with one slot and node "many" with three. One
# submit of 1 + N jobs: the first reduces the synthetic fixture in a copy
# that also holds 40,000 files (each slot that prepares it copies them and
# hands them to the job's user: seconds of a set-up during which the slot's
# own thread does nothing else), the N others the plain fixture, each with
# an identity of its own (test_timeout 60 + k), so that the coordinator
# parses, hashes and renders for all of them at once.
# Checks:
#  - the submit ends well, every job gives the same reduced test;
#  - the big job's set-up took longer than 3 heartbeats (summary.json
#    warm.setup_ms, else the check proves nothing);
#  - the coordinator declared no slot dead ("declared dead" lines: 0) and
#    no slot reconnected (node slots joined: exactly 4).
# The previous binary (heartbeats only from the slot's own thread and the
# coordinator's poll loop): slots declared dead.
. "$(dirname "$0")/../e2e/lib.sh"
skip() { echo "skipped: $*" >&2; exit 77; }
for tool in stress-ng jq cc; do command -v "$tool" > /dev/null || skip "$tool not installed"; done
B="$WH_BINARY_DIR"
COORD="$B/coordinator/whittle-coordinator"
NODE="$B/node/whittle-node"
N=${WH_HB_JOBS:-24}
trap 'stop_all; rm -rf "$T"' EXIT

synth_fixture
BIG="$T/big"; cp -r "$P" "$BIG"; mkdir "$BIG/data"
(cd "$BIG/data" && seq 1 40000 | sed 's/^/f/' | xargs touch) || fail "cannot make the big project's files"

stress-ng --cpu 4 --timeout 900 > "$T/stress.log" 2>&1 &
PIDS+=($!)

PORT=$(free_port)
EP="tcp://127.0.0.1:$PORT"
CLUSTER_INSECURE=1
"$COORD" --runs "$T/runs" --bind "$EP" --insecure --cache memory: --journal off --heartbeat 300 \
    --max-client-jobs $((N + 1)) --verbose > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
"$NODE" --connect "$EP" --insecure --slots 1 --id big --workdir "$T/wbig" --sandbox none \
    --heartbeat 300 --verbose > "$T/node-big.log" 2>&1 &
PIDS+=($!)
"$NODE" --connect "$EP" --insecure --slots 3 --id many --workdir "$T/wmany" --sandbox none \
    --heartbeat 300 --verbose > "$T/node-many.log" 2>&1 &
PIDS+=($!)
wait_slots 4

jq -n --arg big "$BIG" --arg p "$P" --arg b "$J build 0.05" --arg r "$J run" --argjson n "$N" \
    '[{project: $big, file: "tests/test_synth.c", test: "test_synth_small", setup: "true",
       build: $b, run: $r, framework: "junit", out: "big", cache: "memory:"}] +
     [range($n) | {project: $p, file: "tests/test_synth.c", test: "test_synth_small", setup: "true",
       build: $b, run: $r, framework: "junit", out: "job\(.)", cache: "memory:",
       test_timeout: (60 + .)}]' > "$T/jobs.json"
timeout 600 "$WHITTLE" submit --cluster "$EP" --insecure --quiet "$T/jobs.json" > "$T/submit.log" 2>&1
check_eq "submit of $((N + 1)) jobs: exit" "$?" 0
"$WHITTLE" status --cluster "$EP" --insecure > "$T/status.txt" 2>&1
stop_all

# ---- every job, the same answer ----
REF="$T/runs/job0/latest"
[ -f "$REF/reduced.c" ] || { fail "job0 left no reduced.c"; tail -n 5 "$T/submit.log" >&2; finish; }
differ=0
for d in big $(seq -f 'job%g' 0 $((N - 1))); do
    cmp -s "$REF/reduced.c" "$T/runs/$d/latest/reduced.c" || { differ=$((differ + 1)); echo "differs: $d" >&2; }
done
check_eq "jobs whose reduced test differs from job0's" "$differ" 0

# ---- the set-up was long enough to matter ----
setup_ms=$(jq -r '.warm.setup_ms // 0' "$T/runs/big/latest/summary.json" 2>/dev/null)
if [ "${setup_ms:-0}" -gt 900 ]; then pass "the big job's longest set-up took $setup_ms ms (> 3 heartbeats)"
else fail "the big job's longest set-up took ${setup_ms:-?} ms: not longer than 3 heartbeats, this run proves nothing"; fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(grep -o 'longest loop gap: [0-9]* ms' "$T/status.txt")" >&2

# ---- no live slot declared dead ----
check_eq "slots declared dead" "$(grep -c 'declared dead' "$T/coord.log")" 0
check_eq "slots joined (a reconnect joins again)" "$(grep -c 'node slot .* joined' "$T/coord.log")" 4
check_eq "'coordinator silent' lines on the nodes" "$(cat "$T/node-big.log" "$T/node-many.log" | grep -c 'coordinator silent')" 0
[ "$FAILS" -ne 0 ] && { grep -m 5 'declared dead' "$T/coord.log" >&2; }
finish
