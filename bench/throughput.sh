#!/usr/bin/env bash
# throughput.sh — candidates per second through the whole coordinator path
# (render, cache lookup, dispatch over ZeroMQ, the node's build + run +
# report parse, verdict, resolution) with a zero-latency oracle.
#
# The oracle is the synthetic fixture's judge with latency 0 (`judge build 0`,
# `judge run`): two process starts per judged candidate and nothing else.
# A single reduction leaves slots idle at every round boundary (rounds are
# the critical path, see scaling.sh), so each measurement submits several
# reductions at once (default: as many as slots, at least 2; the same test
# under distinct test timeouts, so that their cache keys differ and nothing
# is shared); the pool deals their candidates round-robin and keeps the
# slots busy. The default test is the fixture's small one (82 judged
# candidates per reduction) so that 16 reductions stay short. For each slot count it
# prints:
#
#   cand/s     judged candidates / wall time, summed over the jobs
#   all/s      every candidate (judged + answered by the cache or by an
#              identical one in its round) / wall time
#   raw/s      the same two commands started through the node's runner on
#              as many threads as slots, with no coordinator, ZeroMQ or
#              node around them: what this machine's process starts allow
#   path_eff   cand/s / raw/s: the share of the machine's ceiling that the
#              coordinator + node path keeps
#
# and, when the build has it, the in-process engine benchmark
# (whittle-bench-engine: engine + render + key + cache + protobuf, no
# sockets or processes) as the ceiling of the coordinator's own work and the
# ratio of the full path to it.
#
# usage: bench/throughput.sh [--slots "1 4 16"] [--jobs N] [--procs N]
#                            [--test NAME] [--build-dir DIR] [--keep]
#   --jobs N   concurrent reductions per measurement (default: slots, >= 2)
#   --test     test_synth_small (default) or test_synth
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SLOTS="1 4 16"
NJOBS=
PROCS=4
TEST=test_synth_small
BUILD_DIR=
while [ $# -gt 0 ]; do
    case $1 in
    --slots) SLOTS=${2:?}; shift ;;
    --jobs) NJOBS=${2:?}; shift ;;
    --procs) PROCS=${2:?}; shift ;;
    --test) TEST=${2:?}; shift ;;
    --build-dir) BUILD_DIR=${2:?}; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h|--help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown argument '$1'" ;;
    esac
    shift
done
bench_trap
WB=$(bench_find_build "$BUILD_DIR") || bench_die "no build with whittle, whittle-coordinator and whittle-node (give --build-dir)"
command -v jq >/dev/null || bench_die "jq is needed"
bench_fixture
JUDGE=$(bench_judge)
FAILED=0

ENGINE="$WB/bench/whittle-bench-engine"
[ -x "$ENGINE" ] || bench_log "no $ENGINE: build the bench target for raw/s and the in-process ratio"

# raw LANES N: N build+run pairs on LANES threads through the node's own
# runner (whittle-bench-engine --spawn), each lane in its own copy of the
# fixture's tests/; prints pairs per second, or "-" without the engine.
raw() {
    local lanes=$1 n=$2 l
    [ -x "$ENGINE" ] || { echo -; return; }
    for ((l = 0; l < lanes; l++)); do
        mkdir -p "$BENCH_TMP/raw/lane$l"
        cp -r "$BENCH_FIX/tests" "$BENCH_TMP/raw/lane$l/"
    done
    "$ENGINE" --spawn "$lanes" "$n" "$BENCH_TMP/raw" "$JUDGE build 0" "$JUDGE run" "$TEST" --tsv ||
        echo -
}

ROWS=()
for s in $SLOTS; do
    name="tp-$s"
    jobs=${NJOBS:-$((s < 2 ? 2 : s))}
    procs=$((s < PROCS ? s : PROCS))
    jq -n --arg p "$BENCH_FIX" --arg t "$TEST" --arg b "$JUDGE build 0" --arg r "$JUDGE run" \
        --arg o "out-$s" --argjson k "$jobs" \
        '[range($k) | {project: $p, file: "tests/test_synth.c", test: $t, setup: "true",
          build: $b, run: $r, framework: "junit", out: ($o + "/job\(.)"), cache: "memory:",
          test_timeout: (60 + .)}]' >"$BENCH_TMP/$name.jobs.json"
    # The raw ceiling on as many lanes as slots, before and after the
    # whittle run (the better of the two: the machine is shared and noisy).
    n=$(( 82 * jobs )); [ $n -gt 200 ] && n=200; [ $n -lt $s ] && n=$s
    raw1=$(raw "$s" "$n")
    bench_cluster_start "$name" "$s" "$procs"
    t0=$(bench_now_ms)
    rc=0
    "$WB/coordinator/whittle" submit --cluster "$CL_EP" --insecure "$BENCH_TMP/$name.jobs.json" \
        >"$BENCH_TMP/$name.client.log" 2>&1 || rc=$?
    t1=$(bench_now_ms)
    bench_cluster_stop
    if [ $rc -ne 0 ]; then
        bench_log "FAIL: $name: whittle submit exited $rc (log: $BENCH_TMP/$name.client.log)"
        tail -n 5 "$BENCH_TMP/$name.client.log" >&2
        FAILED=1 BENCH_KEEP=1
        continue
    fi
    ev=0 all=0 first=
    for ((k = 0; k < jobs; k++)); do
        d=$(bench_run_dir "$BENCH_TMP/out-$s/job$k")
        read -r e c < <(jq -r '[.evaluated, .candidates] | @tsv' "$d/summary.json")
        ev=$((ev + e)) all=$((all + c))
        [ -z "$first" ] && first=$d
        cmp -s "$first/reduced.c" "$d/reduced.c" ||
            { bench_log "FAIL: $name: job $k reduced differently from job 0"; FAILED=1; }
    done
    wall=$((t1 - t0))
    raw2=$(raw "$s" "$n")
    rawps=$(printf '%s\n%s\n' "$raw1" "$raw2" | sort -g | tail -n1)
    ROWS+=("$s ${procs}x$((s / procs)) $jobs $wall $ev $all $rawps")
    bench_log "  $s slots: $ev judged ($all candidates) in $wall ms; raw $rawps pairs/s"
done

echo
echo "throughput: concurrent reductions of $TEST, zero-latency oracle, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
{
    echo "slots layout jobs wall_s judged cand/s all/s raw/s path_eff"
    for r in "${ROWS[@]}"; do
        set -- $r
        awk -v s="$1" -v lay="$2" -v j="$3" -v ms="$4" -v ev="$5" -v all="$6" -v raw="$7" 'BEGIN {
            printf "%d %s %d %.1f %d %.1f %.1f %s %s\n", s, lay, j, ms / 1000, ev,
                ev * 1000 / ms, all * 1000 / ms, raw, raw == "-" ? "-" : sprintf("%.2f", ev * 1000 / ms / raw) }'
    done
} | column -t
if [ -x "$ENGINE" ]; then
    echo
    "$ENGINE" --test "$TEST" --repeat 200
    read -r _ e _ total coord _ < <("$ENGINE" --test "$TEST" --repeat 200 --tsv)
    best=$(for r in "${ROWS[@]}"; do set -- $r; awk -v ms="$4" -v ev="$5" 'BEGIN { printf "%.1f\n", ev * 1000 / ms }'; done | sort -g | tail -n1)
    awk -v e="$e" -v c="$coord" -v best="${best:-0}" 'BEGIN {
        inproc = e / c
        printf "in-process coordinator work: %.0f judged candidates/s; the best full path above (%.1f/s) is %.2f%% of it\n", inproc, best, 100 * best / inproc }'
fi
[ "$FAILED" -eq 0 ] || { echo "FAILED (records kept in $BENCH_TMP)" >&2; exit 1; }
