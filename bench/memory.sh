#!/bin/bash
# Memory of a large reduction: `whittle reduce` on a generated test function
# of N statements (default 5000) judged by the synthetic fixture's judge
# with no build latency (markers, bench/README.md), under /usr/bin/time -v.
# Prints the peak resident set size, the wall time, the builds and the
# run.log size per walk. Target: 5k statements under 100 MB resident.
#
#   bench/memory.sh [--statements N] [--walks "chunked classic"] [--jobs N]
#                   [--prior MODE] [--build-dir DIR] [--keep]
# --prior MODE goes to each run (slice, none; default whittle's, slice).
. "$(dirname "$0")/lib.sh"
BUILD= N=5000 WALKS="chunked" JOBS=2 PRIOR=()
while [ $# -gt 0 ]; do
    case "$1" in
    --statements) N=$2; shift 2 ;;
    --walks) WALKS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --prior) PRIOR=(--prior "$2"); shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --keep) BENCH_KEEP=1; shift ;;
    *) bench_die "unknown argument '$1'" ;;
    esac
done
BUILD=$(bench_find_build "$BUILD") || bench_die "no built whittle (give --build-dir)"
[ -x /usr/bin/time ] || bench_die "needs /usr/bin/time (GNU time)"
bench_trap
export WHITTLE_CACHE_DIR="$BENCH_TMP/cache" # a workspace store of its own (growth.sh)
JUDGE=$(bench_judge)

P="$BENCH_TMP/project"
mkdir -p "$P/tests"
bench_gen_big "$N" > "$P/tests/test_synth.c"
# A compile command of its own (never one found above the temp folder).
bench_compdb "$P" tests/test_synth.c "$BENCH_FIX_FLAGS"
bench_check_compdb "$P" tests/test_synth.c own
units=$("$BUILD/coordinator/whittle" inspect "$P/tests/test_synth.c" --test test_big -- -w |
        grep -o 'Totals: [0-9]* statements')
printf 'memory: %s (%s), judge without latency, --jobs %s\n' "$P/tests/test_synth.c" "$units" "$JOBS"
for w in $WALKS; do
    out="$BENCH_TMP/runs-$w"
    /usr/bin/time -v -o "$BENCH_TMP/time-$w" "$BUILD/coordinator/whittle" reduce --project "$P" \
        --file tests/test_synth.c --test test_big --setup true --build "$JUDGE build 0" \
        --run "$JUDGE run" --framework junit --jobs "$JOBS" --cache memory: --out "$out" \
        --ddmin "$w" "${PRIOR[@]+"${PRIOR[@]}"}" > "$BENCH_TMP/out-$w" 2>&1 || { tail -20 "$BENCH_TMP/out-$w" >&2; bench_die "$w run failed"; }
    R=$(ls -d "$out"/*/ | head -n1)
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$BENCH_TMP/time-$w")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$BENCH_TMP/time-$w")
    printf '%-8s peak RSS %6.1f MB  wall %s  statements %s -> %s  candidates %s  built %s  rounds %s  run.log %.1f MB\n' \
        "$w" "$(echo "$rss / 1024" | bc -l)" "$wall" "$(jq .statements_before "$R/summary.json")" \
        "$(jq .statements_after "$R/summary.json")" "$(jq .candidates "$R/summary.json")" \
        "$(jq .evaluated "$R/summary.json")" "$(jq .rounds "$R/summary.json")" \
        "$(echo "$(stat -c %s "$R/run.log") / 1048576" | bc -l)"
done
