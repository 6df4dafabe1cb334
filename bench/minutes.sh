#!/usr/bin/env bash
# minutes.sh — a "minutes build": does a slow setup stall the reduction?
#
# Generates a C project (cmocka) whose setup (configure + a clean -O2 build
# of --tus library translation units, each full of loops) takes tens of
# seconds here, and whose test-file rebuild takes about a second: a real
# -O2 compile of the test (it includes a generated header of functions kept
# alive by an exported table, ~0.3 s) and a link, plus a fixed --latency
# (default 0.7 s, a sleep in the build command). The latency stands for the
# part of a real rebuild that does not compete for this machine's 2 shared
# cores (on a cluster every node has its own); without it, parallel slots
# here only time-share the same CPUs and no scheduling can show. Reduces its failing test (21 statements; the seeded bug is in
# mix.c) in the embedded mode with --jobs 1, 2 and 4 on a fresh in-memory
# cache, side by side in one run, and prints per run:
#
#   wall_s     the reduction's wall time (summary.json wall_ms)
#   speedup    wall of --jobs 1 / this wall
#   after_s    wall time after the first slot was warm (wall_ms -
#              warm.first_warm_ms): the reduction proper; on this shared
#              machine the setup's length varies with the load more than
#              anything whittle does, so this is the steadier comparison
#   a_speedup  after_s of --jobs 1 / this after_s
#   warm%      share of the wall time before the first slot was warm
#              (warm.first_warm_ms / wall_ms): time no candidate can run
#   setups     setups the node ran (warm.setups); clones (warm.clones)
#   setup_s    the longest setup (copy + setup command)
#   clone_s    the longest clone of the node's set-up copy: what a second
#              slot pays to get warm
#   clone/setup  that ratio (target: at most 0.1)
#   cand_ms    mean node time of a judged candidate (build + test run)
#
# With --no-clone-row (default on, --skip-no-clone turns it off) one more
# run: --jobs 2 with WHITTLE_NO_MOUNTNS=1, where each slot sets up on its
# own, still eagerly and in parallel (what one setup per node saves).
# Every run must give the same reduced test (checked). --repeat N runs the
# whole set N times, interleaved, and shows for each row the run with the
# shortest wall time (the one least disturbed by other load on the machine).
#
# usage: bench/minutes.sh [--quick] [--tus N] [--jobs "1 2 4"] [--latency S]
#                         [--repeat N] [--skip-no-clone] [--build-dir DIR] [--keep]
#   --quick    12 units (setup ~10 s), jobs 1 2, no extra row
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TUS=40
LATENCY=0.7
REPEAT=1
JOBS="1 2 4"
NOCLONE=1
BUILD_DIR=
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) TUS=12; JOBS="1 2"; NOCLONE=0 ;;
    --tus) TUS=${2:?}; shift ;;
    --latency) LATENCY=${2:?}; shift ;;
    --repeat) REPEAT=${2:?}; shift ;;
    --jobs) JOBS=${2:?}; shift ;;
    --skip-no-clone) NOCLONE=0 ;;
    --build-dir) BUILD_DIR=${2:?}; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h|--help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown option '$1'" ;;
    esac
    shift
done
command -v jq >/dev/null || bench_die "jq is needed to read summary.json"
WB=$(bench_find_build "$BUILD_DIR") || bench_die "no whittle build (build/ or --build-dir)"
bench_trap

# ---- the generated project ----
P="$BENCH_TMP/proj"
mkdir -p "$P/src" "$P/tests"
gen_unit() { # index: 60 functions of loops and switches
    local u=$1 i
    printf '#include "lib.h"\n'
    for ((i = 0; i < 60; i++)); do
        cat <<C
long unit${u}_f$i(long x)
{
    long acc = x;
    for (int k = 0; k < 64; k++) {
        acc = acc * $((i + 3)) + (acc >> $((i % 7 + 1))) - k;
        if (acc % $((i + u + 5)) == 0)
            acc ^= 0x5bd1e995L;
        switch ((int)(acc & 3)) {
        case 0: acc += $i; break;
        case 1: acc -= k; break;
        default: acc ^= (long)k << 3;
        }
    }
    return acc;
}
C
    done
}
{
    printf '#ifndef LIB_H\n#define LIB_H\n'
    for ((u = 0; u < TUS; u++)); do printf 'long unit%d_f0(long x);\n' "$u"; done
    printf 'long mix(long a, long b);\n#endif\n'
} > "$P/src/lib.h"
srcs=
for ((u = 0; u < TUS; u++)); do gen_unit "$u" > "$P/src/unit$u.c"; srcs="$srcs src/unit$u.c"; done
cat > "$P/src/mix.c" <<'C'
#include "lib.h"

/* The seeded bug: an odd result where an even one was meant. */
long mix(long a, long b)
{
    return (a ^ b) | 1;
}
C
# The test's own header: ~0.3 s of -O2 per rebuild of the test file.
{
    printf '#ifndef HEAVY_H\n#define HEAVY_H\n'
    gen_unit 999 | sed '1d; s/^long unit999_/static long heavy_/' | sed '/^static long heavy_f20(/,$d'
    printf 'long (*const heavy_table[])(long) = {'
    for ((i = 0; i < 20; i++)); do printf 'heavy_f%d, ' "$i"; done
    printf '};\n#endif\n'
} > "$P/tests/heavy.h"
{
    cat <<'C'
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "heavy.h"
#include "lib.h"

static void test_mix_is_even(void **state)
{
    (void)state;
    long a = unit0_f0(3);
    long b = unit1_f0(5);
C
    for ((i = 2; i < 10; i++)); do
        printf '    long n%d = unit%d_f0(%d);\n    assert_true(n%d != 7);\n' \
            "$i" $((i % TUS)) "$i" "$i"
    done
    cat <<'C'
    for (int i = 0; i < 2; i++) {
        long t = heavy_table[i](i);
        assert_true(t != 7);
    }
    assert_int_equal(0, mix(a, b) % 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_mix_is_even)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
C
} > "$P/tests/test_mix.c"
cat > "$P/CMakeLists.txt" <<C
cmake_minimum_required(VERSION 3.18)
project(minutes C)
add_library(units STATIC$srcs src/mix.c)
target_include_directories(units PUBLIC src)
find_library(CMOCKA cmocka REQUIRED)
add_executable(test_mix tests/test_mix.c)
target_link_libraries(test_mix units \${CMOCKA})
C
# Its compile command is its own build's (the warm workspace's), never one
# found above the temp folder.
bench_check_compdb "$P" tests/test_mix.c

# ---- runs ----
ROWS=()
REF=
run() { # label jobs [env...]
    local label=$1 jobs=$2; shift 2
    local out="$BENCH_TMP/out-$label-$rep"
    bench_log "run $label ($rep of $REPEAT): --jobs $jobs $*"
    env "$@" "$WB/coordinator/whittle" reduce --project "$P" --file tests/test_mix.c \
        --test test_mix_is_even --setup "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build" \
        --build "sleep $LATENCY && cmake --build build" --run build/test_mix --framework cmocka \
        --jobs "$jobs" --cache memory: --out "$out" > "$BENCH_TMP/$label.log" 2>&1 ||
        { BENCH_KEEP=1; bench_die "run $label failed (log: $BENCH_TMP/$label.log)"; }
    local d; d=$(bench_run_dir "$out")
    if [ -z "$REF" ]; then REF=$d; else
        cmp -s "$REF/reduced.c" "$d/reduced.c" ||
            { BENCH_KEEP=1; bench_die "run $label reduced a different test than the first run ($d)"; }
    fi
    # keep the least disturbed run of each label
    local i
    for i in "${!ROWS[@]}"; do
        read -r l _ od <<< "${ROWS[$i]}"
        [ "$l" = "$label" ] || continue
        [ "$(jq .wall_ms "$d/summary.json")" -lt "$(jq .wall_ms "$od/summary.json")" ] &&
            ROWS[$i]="$label $jobs $d"
        return 0
    done
    ROWS+=("$label $jobs $d")
}
for ((rep = 1; rep <= REPEAT; rep++)); do
    for j in $JOBS; do run "j$j" "$j"; done
    [ "$NOCLONE" = 1 ] && run "j2-noclone" 2 WHITTLE_NO_MOUNTNS=1
done

# ---- the table ----
base=$(jq .wall_ms "$(echo "${ROWS[0]}" | cut -d' ' -f3)/summary.json")
abase=$(jq '.wall_ms - .warm.first_warm_ms' "$(echo "${ROWS[0]}" | cut -d' ' -f3)/summary.json")
printf '%-11s %5s %8s %7s %8s %9s %6s %6s %6s %8s %8s %11s %8s\n' run jobs wall_s speedup \
    after_s a_speedup warm% setups clones setup_s clone_s clone/setup cand_ms
for row in "${ROWS[@]}"; do
    read -r label jobs d <<< "$row"
    s="$d/summary.json"
    jq -r --arg l "$label" --arg j "$jobs" --argjson base "$base" --argjson abase "$abase" \
          --arg c "$(bench_mean_ms "$d/judged.csv")" '
      def r(x; n): (x * pow(10; n) | round) / pow(10; n);
      [$l, $j, r(.wall_ms / 1000; 1), r($base / .wall_ms; 2),
       r((.wall_ms - .warm.first_warm_ms) / 1000; 1), r($abase / (.wall_ms - .warm.first_warm_ms); 2),
       r(100 * .warm.first_warm_ms / .wall_ms; 1), .warm.setups, .warm.clones,
       r(.warm.setup_ms / 1000; 1), r(.warm.clone_ms / 1000; 2),
       (if .warm.clones > 0 and .warm.setup_ms > 0 then r(.warm.clone_ms / .warm.setup_ms; 3) else "-" end),
       $c] | @tsv' "$s" |
      awk -F'\t' '{ printf "%-11s %5s %8s %7s %8s %9s %6s %6s %6s %8s %8s %11s %8s\n", $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13 }'
done
echo "project: $TUS library units + mix.c; $(jq -r '"\(.statements_before) -> \(.statements_after) statements, \(.rounds) rounds, \(.evaluated) judged at --jobs 1"' "$REF/summary.json")"
