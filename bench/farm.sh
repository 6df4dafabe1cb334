#!/bin/bash
# The mutation pipeline on the farm fixture (tests/fixtures/farm): whittle
# mutate (build + every test per mutant) and whittle suite, once on 1 slot
# and once on N slots, side by side; prints both wall times and the ratio.
#   bench/farm.sh [--jobs N] [--max M] [--repeat K] [--build-dir DIR] [--keep]
set -u -o pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
JOBS=2 MAX=0 REPEAT=2 BUILD="$SRC/build" KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
    --jobs) JOBS=$2; shift 2 ;;
    --max) MAX=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    *) echo "farm.sh: error: unknown option '$1'" >&2; exit 2 ;;
    esac
done
W="$BUILD/coordinator/whittle"
[ -x "$W" ] || { echo "farm.sh: error: no whittle at '$W' (build first)" >&2; exit 2; }
T=$(mktemp -d /tmp/whittle-bench.XXXXXX)
[ "$KEEP" = 1 ] || trap 'rm -rf "$T"' EXIT
cp -r "$SRC/tests/fixtures/farm" "$T/p"
max=(); [ "$MAX" -gt 0 ] && max=(--max "$MAX")
run() { # slots -> prints wall ms
    local t0 t1
    t0=$(date +%s%N)
    "$W" mutate --project "$T/p" --source 'src/*.c' --tests-file tests/test_shop.c \
        --setup "make -s" --build "make -s" --run ./test_shop --framework cmocka \
        --repeat "$REPEAT" --jobs "$1" "${max[@]+"${max[@]}"}" --out "$T/run$1" > "$T/mutate$1.out" 2>&1 \
        || { cat "$T/mutate$1.out" >&2; exit 1; }
    "$W" suite --kills "$T/run$1/kills.csv" --method all > "$T/suite$1.out" 2>&1 \
        || { cat "$T/suite$1.out" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
ms1=$(run 1); msn=$(run "$JOBS")
cmp -s "$T/run1/kills.csv" "$T/run$JOBS/kills.csv" && same=yes || same=NO
echo "mutate+suite on tests/fixtures/farm ($(tail -n1 "$T/mutate1.out" | cut -d: -f1), repeat $REPEAT)"
printf '%-8s %10s\n' slots wall_ms
printf '%-8s %10s\n' 1 "$ms1" "$JOBS" "$msn"
awk -v a="$ms1" -v b="$msn" -v n="$JOBS" 'BEGIN { printf "speedup 1 -> %d slots: %.2fx\n", n, a / b }'
echo "same kill matrix on 1 and $JOBS slots: $same"
[ "$same" = yes ]
