#!/bin/bash
# Growth of whittle's own cost with the size of the test (issue 36): a
# generated test_big of each size (bench_gen_big: memory.sh's test, judged
# by the synthetic judge without latency) reduced once with the default
# precheck. Per size: candidates, the precheck's checks, whittle's own CPU
# (user + sys of the whittle process and its threads, without the builds
# and test runs it started: bench/selfcpu.c reads /proc/PID/stat of the
# exited process before reaping it), CPU per check, the children's CPU,
# peak RSS (the wait4 maximum: whittle's, its children are far smaller),
# wall time; then CPU per check and peak RSS of each size over the first's.
#
#   bench/growth.sh [--sizes "1000 5000 20000"] [--jobs N]
#                   [--build-dir DIR | --builds "DIR1 DIR2 ..."] [--keep]
#
# --builds: several builds (before and after a change) measured in turn,
# size by size, alternating; their reduced tests and the verdict columns
# of candidates.csv (candidate, sweep, level, kept, total, verdict,
# predicted) must be identical (checked, exit 1 otherwise).
. "$(dirname "$0")/lib.sh"
BUILDS= SIZES="1000 5000 20000" JOBS=2
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) SIZES=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --build-dir) BUILDS=$2; shift 2 ;;
    --builds) BUILDS=$2; shift 2 ;;
    --keep) BENCH_KEEP=1; shift ;;
    *) bench_die "unknown argument '$1'" ;;
    esac
done
DIRS=()
if [ -z "$BUILDS" ]; then
    DIRS=("$(bench_find_build "")") || bench_die "no built whittle (give --build-dir)"
else
    for b in $BUILDS; do
        d=$(bench_find_build "$b") || bench_die "no built whittle in '$b'"
        DIRS+=("$d")
    done
fi
bench_trap
# A store of the run's own: the default one (~/.cache/whittle/work) holds
# every earlier run's workspaces, which each workspace's set-up walks to
# size them (node/worker_ws.c, s_evict), and another run may hold its lock.
export WHITTLE_CACHE_DIR="$BENCH_TMP/cache"
JUDGE=$(bench_judge)
cc -std=c11 -O2 -o "$BENCH_TMP/selfcpu" "$BENCH_SRC/bench/selfcpu.c" ||
    bench_die "cannot compile bench/selfcpu.c"

# The columns of candidates.csv that must not depend on the build.
verdicts() { cut -d, -f1-6,14 "$1/candidates.csv"; }

printf 'growth: --jobs %s, judge without latency, whittle CPU without its children\n' "$JOBS"
printf '%-5s %6s %6s %6s %8s %8s %7s %8s %7s %7s\n' build stmts cands checks "self_s" "ms/chk" \
    "kids_s" "rss_MB" "wall_s" "after"
bad=0
declare -A MS RSS
for n in $SIZES; do
    P="$BENCH_TMP/p$n"
    mkdir -p "$P/tests"
    bench_gen_big "$n" > "$P/tests/test_synth.c"
    # A compile command of its own (never one found above the temp folder).
    bench_compdb "$P" tests/test_synth.c "$BENCH_FIX_FLAGS"
    bench_check_compdb "$P" tests/test_synth.c own
    for b in "${!DIRS[@]}"; do
        W="${DIRS[$b]}/coordinator/whittle" out="$BENCH_TMP/runs-$n-$b"
        t0=$(bench_now_ms)
        "$BENCH_TMP/selfcpu" "$BENCH_TMP/cpu-$n-$b" -- "$W" reduce --project "$P" \
            --file tests/test_synth.c --test test_big --setup true --build "$JUDGE build 0" \
            --run "$JUDGE run" --framework junit --jobs "$JOBS" --cache memory: --out "$out" \
            > "$BENCH_TMP/out-$n-$b" 2>&1 ||
            { tail -20 "$BENCH_TMP/out-$n-$b" >&2; bench_die "build $b, $n statements: the run failed"; }
        wall=$(( $(bench_now_ms) - t0 ))
        R=$(bench_run_dir "$out")
        read -r us ss ks rss _ < "$BENCH_TMP/cpu-$n-$b"
        checks=$(jq .precheck.checks "$R/summary.json")
        self=$(awk -v a="$us" -v b="$ss" 'BEGIN { printf "%.2f", a + b }')
        MS[$n,$b]=$(awk -v s="$self" -v c="$checks" 'BEGIN { printf "%.2f", c ? 1000 * s / c : 0 }')
        RSS[$n,$b]=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
        printf '%-5s %6s %6s %6s %8s %8s %7s %8s %7.1f %7s\n' "$b" "$(jq .statements_before "$R/summary.json")" \
            "$(jq .candidates "$R/summary.json")" "$checks" "$self" "${MS[$n,$b]}" "$ks" "${RSS[$n,$b]}" \
            "$(awk -v w="$wall" 'BEGIN { print w / 1000 }')" "$(jq .statements_after "$R/summary.json")"
        if [ "$b" != 0 ]; then
            R0=$(bench_run_dir "$BENCH_TMP/runs-$n-0")
            cmp -s "$R0/reduced.c" "$R/reduced.c" ||
                { bench_log "build $b, $n statements: reduced.c differs from build 0's"; bad=1; }
            cmp -s <(verdicts "$R0") <(verdicts "$R") ||
                { bench_log "build $b, $n statements: candidates.csv verdicts differ from build 0's"; bad=1; }
        fi
    done
done
first=${SIZES%% *}
for b in "${!DIRS[@]}"; do
    line="build $b (${DIRS[$b]}):"
    for n in $SIZES; do
        [ "$n" = "$first" ] && continue
        line+=$(awk -v a="${MS[$n,$b]}" -v z="${MS[$first,$b]}" -v r="${RSS[$n,$b]}" -v q="${RSS[$first,$b]}" \
            -v n="$n" -v f="$first" 'BEGIN { printf "  %s/%s ms/chk %.2fx rss %.2fx", n, f, z ? a / z : 0, q ? r / q : 0 }')
    done
    printf '%s\n' "$line"
done
exit $bad
