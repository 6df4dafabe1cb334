#!/bin/bash
# A job over the wire limit (issue 34): a --run or --setup longer than one
# message to the coordinator may carry (64 KiB) is refused by the client
# before anything is sent, exit 2, one line naming the option and the
# limit; the coordinator (real, on loopback) never hears of it, and a job
# under the limit still goes through to it.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT

port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"

P="$T/headers"; cp -r "$FIX/headers" "$P"
big=$(head -c 70000 /dev/zero | tr '\0' ' ')
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --build "make -s" --framework cmocka --cluster "$EP" --insecure -q)
for opt in run setup; do
    if [ $opt = run ]; then a=(--setup "make -s" --run "./test_request$big"); else a=(--setup "make -s$big" --run ./test_request); fi
    out=$(timeout 120 "$WHITTLE" reduce "${args[@]}" "${a[@]}" --out "$T/o-$opt" 2>&1); rc=$?
    check_eq "--$opt of 70 KB: exit" "$rc" 2
    check_eq "--$opt of 70 KB: one line" "$(printf '%s\n' "$out" | wc -l)" 1
    case "$out" in
        "whittle: error: job 0: --$opt is 700"*" bytes; a job travels to the coordinator in one message of at most 65536 bytes (the job is "*)
            pass "--$opt: the line names the option and the limit" ;;
        *) fail "--$opt: the line: $out" ;;
    esac
done
"$WHITTLE" status --cluster "$EP" --insecure > "$T/status" 2>&1
grep -q "jobs submitted: 0 " "$T/status" && pass "the coordinator got no job" || fail "status: $(cat "$T/status")"
# A job under the limit arrives (no node here: it waits; stopped by PID).
"$WHITTLE" reduce "${args[@]}" --setup "make -s" --run ./test_request --out "$T/o-small" > "$T/small.out" 2>&1 &
CLI=$!; PIDS+=($CLI)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "jobs submitted: 1 " && break; sleep 0.2
done
"$WHITTLE" status --cluster "$EP" --insecure 2>&1 | grep -q "jobs submitted: 1 " &&
    pass "a job under the limit reaches the coordinator" || fail "the small job did not arrive"
kill "$CLI" 2>/dev/null
finish
