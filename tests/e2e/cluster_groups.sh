#!/bin/bash
# Groups on a cluster: `whittle submit` of two jobs whose tests fail at one
# root cause (the ctest_purse fixture's invariant, tripped by take_half and
# take_twice) prints one group at the end, and `whittle status` shows the
# groups of the coordinator's finished jobs. Loopback, --insecure.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache memory: --insecure > "$T/coord.log" 2>&1 &
PIDS+=($!)
"$B/node/whittle-node" --connect "$EP" --slots 2 --workdir "$T/node" --id n1 --insecure > "$T/node.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q '^nodes: 1 ' && break
    sleep 0.1
done
check_eq "status before: no groups" "$("$WHITTLE" status --cluster "$EP" --insecure | grep -c '^groups')" 0
P="$T/p"; cp -r "$FIX/ctest_purse" "$P"
jq -n --arg p "$P" --arg out runs '[("take_half", "take_twice") | {project: $p,
    file: "tests/test_purse.c", test: ., framework: "ctest", out: $out,
    setup: "cmake -S . -B build -G Ninja >/dev/null && cmake --build build",
    build: "cmake --build build", run: "ctest --test-dir build"}]' > "$T/jobs.json"
"$WHITTLE" submit --cluster "$EP" --insecure "$T/jobs.json" > "$T/o" 2> "$T/e" || { cat "$T/o" "$T/e"; fail "submit exit"; }
cat "$T/o" >&2
check_eq "two run folders" "$(ls "$T/runs" | grep -v '^latest$' | sed 's/-[0-9-]*$//' | sort | tr '\n' ' ')" \
    "take_half take_twice "
check_eq "submit: groups line" "$(grep '^Groups' "$T/o")" "Groups (one root cause each): 2 runs, 1 groups"
check_eq "submit: the group" "$(sed -n '/^Groups/,$p' "$T/o" | tail -n +2 | sed 's/-[0-9-]* / /')" \
"group 1: assert | purse.c:11 | invariant broken: balance below zero
  take_half (take_half)
  take_twice (take_twice)"
"$WHITTLE" status --cluster "$EP" --insecure > "$T/s" || fail "status exit"
cat "$T/s" >&2
check_eq "status: groups line" "$(grep '^groups' "$T/s")" "groups of finished jobs: 2 runs, 1 groups"
check_eq "status: the group" "$(sed -n '/^groups/,$p' "$T/s" | tail -n +2 | sed 's/-[0-9-]* / /')" \
"group 1: assert | purse.c:11 | invariant broken: balance below zero
  take_half (take_half)
  take_twice (take_twice)"
# reduce --from-junit --cluster --each: the report's failing tests go to
# the cluster as jobs (--out as typed, under --runs), groups at the end
# (without --each the batch is grouped first: e2e_cluster_night).
(cp -r "$P" "$T/q" && cd "$T/q" && cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null &&
    ctest --test-dir build --output-junit "$T/report.xml" >/dev/null 2>&1)
# The client writes the night's report to its own --out (here $T/cl/runs2).
mkdir -p "$T/cl"
(cd "$T/cl" && "$WHITTLE" reduce --cluster "$EP" --insecure --from-junit "$T/report.xml" --project "$P" --file 'tests/*.c' \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run "ctest --test-dir build" --framework ctest --out runs2 --each > "$T/o2" 2> "$T/e2") || { cat "$T/o2" "$T/e2"; fail "from-junit --cluster exit"; }
check_eq "from-junit --cluster --each: the report's group" \
    "$(jq -r '.groups[] | [.representative, (.members | join(","))] | join(" ")' "$T/cl/runs2/night.json")" \
    "take_half take_half,take_twice"
check_eq "from-junit --cluster: run folders" "$(ls "$T/runs2" | grep -v '^latest$' | sed 's/-[0-9-]*$//' | sort | tr '\n' ' ')" \
    "take_half take_twice "
check_eq "from-junit --cluster: groups line" "$(grep '^Groups' "$T/o2")" "Groups (one root cause each): 2 runs, 1 groups"
check_eq "status: four finished runs" "$("$WHITTLE" status --cluster "$EP" --insecure | grep '^groups')" \
    "groups of finished jobs: 4 runs, 1 groups"
# submit --group: the file's jobs grouped before reducing (issue 35): one
# fingerprint-only run each, one reduction for the group, and the night's
# report in the first job's "out" on the client's side.
jq '[.[] | .out = "runs3"]' "$T/jobs.json" > "$T/jobs3.json"
mkdir -p "$T/cl3"
(cd "$T/cl3" && "$WHITTLE" submit --group --cluster "$EP" --insecure "$T/jobs3.json" > "$T/o3" 2> "$T/e3") ||
    { cat "$T/o3" "$T/e3"; fail "submit --group exit"; }
check_eq "submit --group: the count" "$(grep '^Groups before reducing' "$T/o3")" \
    "Groups before reducing: 2 failing tests, 1 group, 1 reduction"
check_eq "submit --group: one reduction" "$(ls "$T/runs3" | grep -v '^latest$' | sed 's/-[0-9-]*$//' | tr '\n' ' ')" \
    "take_twice "
check_eq "submit --group: the member answered" "$(grep -c '^  take_half (tests/test_purse.c): grouped with take_twice, whose reduced test answers it' "$T/o3")" 1
check_eq "submit --group: the report's group" \
    "$(jq -r '.groups[] | [.representative, .state, (.members | join(","))] | join(" ")' "$T/cl3/runs3/night.json")" \
    "take_twice reduced take_half,take_twice"
stop_all
finish
