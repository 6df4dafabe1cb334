#!/bin/bash
# whittle-coordinator --metrics: a real coordinator, two real nodes, one
# reduction; the Prometheus text, /healthz and /readyz over HTTP.
#  - before any job: 0 jobs, the slots idle, ready;
#  - after the job: 1 finished, verdicts judged = the run's evaluated, and the
#    per-node verdict counters add up to it; hits + misses = candidates;
#  - a coordinator stopped with SIGSTOP is not served (liveness fails) and
#    one resumed serves again; a bad --metrics address is refused.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
stop_all() { for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; wait 2>/dev/null; PIDS=(); }
trap 'stop_all; rm -rf "$T"' EXIT
# get URL -> prints "CODE BODY..." (python: no curl on a minimal Debian)
get() { python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=3); print(r.status); print(r.read().decode(), end="")
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode(), end="")
except Exception as e:
    print("000"); print(e)
PY
}
metric() { # name-with-labels file -> value
    awk -v k="$1" '$1 == k { print $2 }' "$2"
}

EP="tcp://127.0.0.1:$(free_port)"
MPORT=$(free_port)
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache memory: --insecure --metrics "127.0.0.1:$MPORT" > "$T/coord.log" 2>&1 &
CPID=$!; PIDS+=($CPID)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do grep -q "metrics on" "$T/coord.log" && break; sleep 0.1; done
grep -q "metrics on http://127.0.0.1:$MPORT/metrics" "$T/coord.log" && pass "coordinator announces the metrics address" \
    || fail "no metrics line: $(cat "$T/coord.log")"
for n in 1 2; do
    "$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/node$n" --id "n$n" --insecure > "$T/node$n.log" 2>&1 &
    PIDS+=($!)
done
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 2" && break; sleep 0.1
done
sleep 0.7   # one publish period
get "http://127.0.0.1:$MPORT/metrics" > "$T/m0"
check_eq "metrics answer 200" "$(head -1 "$T/m0")" 200
check_eq "no job yet" "$(metric 'whittle_jobs_total{outcome="submitted"}' "$T/m0")" 0
check_eq "two idle slots" "$(metric 'whittle_slots{state="idle"}' "$T/m0")" 2
check_eq "two nodes" "$(metric whittle_nodes "$T/m0")" 2
grep -q '^# TYPE whittle_candidates_judged_total counter$' "$T/m0" && pass "TYPE lines" || fail "no TYPE line"
check_eq "healthz" "$(get "http://127.0.0.1:$MPORT/healthz" | tr '\n' ' ')" "200 ok "
check_eq "readyz" "$(get "http://127.0.0.1:$MPORT/readyz" | tr '\n' ' ')" "200 ready "
check_eq "unknown path" "$(get "http://127.0.0.1:$MPORT/nope" | sed -n 1p)" 404

P="$T/cart"; cp -r "$FIX/cart" "$P"
"$WHITTLE" reduce --cluster "$EP" --insecure --project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build" \
    --run "build/test_cart" --framework cmocka --out "run" > "$T/run.out" 2>&1 \
    || { cat "$T/run.out"; fail "reduction"; }
R=$(run_dir "$T/run")
# the loop publishes its figures after the job ends: wait for them (deadline)
_t0=$SECONDS
until get "http://127.0.0.1:$MPORT/metrics" > "$T/m1" &&
      [ "$(metric 'whittle_jobs_total{outcome="finished"}' "$T/m1")" = 1 ] || [ $((SECONDS - _t0)) -ge 30 ]; do
    sleep 0.1
done
check_eq "one job finished" "$(metric 'whittle_jobs_total{outcome="finished"}' "$T/m1")" 1
check_eq "no job running" "$(metric 'whittle_jobs{state="running"}' "$T/m1")" 0
ev=$(json "$R/summary.json" .evaluated); cand=$(json "$R/summary.json" .candidates); cached=$(json "$R/summary.json" .cached)
# the nodes judged the evaluated candidates, plus the baseline, verify and reference tasks
judged=$(metric whittle_candidates_judged_total "$T/m1")
[ "$judged" -ge "$ev" ] && pass "judged ($judged) >= evaluated ($ev)" || fail "judged $judged < evaluated $ev"
n1=$(metric 'whittle_node_verdicts_total{node="n1"}' "$T/m1"); n2=$(metric 'whittle_node_verdicts_total{node="n2"}' "$T/m1")
check_eq "per-node verdicts add up" "$((n1 + n2))" "$judged"
check_eq "cache lookups = candidates" "$(metric whittle_cache_lookups_total "$T/m1")" "$cand"
check_eq "cache hits = cached" "$(metric whittle_cache_hits_total "$T/m1")" "$cached"
check_eq "no InfraError on n1" "$(metric 'whittle_node_infra_errors_total{node="n1"}' "$T/m1")" 0

# A stopped loop: the HTTP thread stops with it, so a probe times out (a
# liveness failure); resumed, it answers again.
kill -STOP "$CPID"
check_eq "stopped coordinator: no answer" "$(get "http://127.0.0.1:$MPORT/healthz" | sed -n 1p)" 000
kill -CONT "$CPID"
_t0=$SECONDS
until [ "$(get "http://127.0.0.1:$MPORT/healthz" | sed -n 1p)" = 200 ] || [ $((SECONDS - _t0)) -ge 30 ]; do
    sleep 0.1
done
check_eq "resumed: healthy" "$(get "http://127.0.0.1:$MPORT/healthz" | sed -n 1p)" 200

out=$("$B/coordinator/whittle-coordinator" --bind "tcp://127.0.0.1:$(free_port)" --insecure --metrics "example:99999" 2>&1); rc=$?
check_eq "bad --metrics exits 2" "$rc" 2
echo "$out" | grep -q "port must be 0..65535, not '99999'" && pass "bad port named" || fail "message: $out"
finish
