#!/bin/bash
# The whole farm pipeline on the farm fixture (tests/fixtures/farm): whittle
# mutate (build + every test per mutant, the kill matrix), --reduce (every
# definite kill reduced with the default walk and with --algorithm linear,
# bench.json), and whittle suite, once on 1 slot and once on N slots; prints
# each phase's wall time side by side with the ratio, and checks that both
# give the same kill matrix and the same reductions.
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
[ "$KEEP" = 1 ] && echo "farm.sh: keeping $T" >&2 || trap 'rm -rf "$T"' EXIT
cp -r "$SRC/tests/fixtures/farm" "$T/p"
# Its compile command is its own build's, never one found above the copy.
. "$SRC/bench/lib.sh"
bench_check_compdb "$T/p" tests/test_shop.c
max=(); [ "$MAX" -gt 0 ] && max=(--max "$MAX")
now() { date +%s%N; }
run() { # slots -> writes $T/times$1: mutate_ms reduce_ms suite_ms total_ms
    local t0 t1 t2
    t0=$(now)
    "$W" mutate --project "$T/p" --source 'src/*.c' --tests-file tests/test_shop.c \
        --setup "make -s" --build "make -s" --run ./test_shop --framework cmocka \
        --repeat "$REPEAT" --jobs "$1" "${max[@]+"${max[@]}"}" --reduce --out "$T/run$1" > "$T/mutate$1.out" 2>&1 \
        || { cat "$T/mutate$1.out" >&2; exit 1; }
    t1=$(now)
    "$W" suite --kills "$T/run$1/kills.csv" --method all > "$T/suite$1.out" 2>&1 \
        || { cat "$T/suite$1.out" >&2; exit 1; }
    t2=$(now)
    local red; red=$(jq .total.wall_ms "$T/run$1/bench.json")
    echo "$(( (t1 - t0) / 1000000 - red )) $red $(( (t2 - t1) / 1000000 )) $(( (t2 - t0) / 1000000 ))" > "$T/times$1"
}
run 1; run "$JOBS"
cmp -s "$T/run1/kills.csv" "$T/run$JOBS/kills.csv" && same=yes || same=NO
sig() { jq -c '[.runs[] | [.mutant, .test, .statements_after, .linear.statements_after, .tp, .fp, .fn]]' "$1"; }
[ "$(sig "$T/run1/bench.json")" = "$(sig "$T/run$JOBS/bench.json")" ] && sameb=yes || sameb=NO
read -r m1 r1 s1 a1 < "$T/times1"; read -r mn rn sn an < "$T/times$JOBS"
echo "farm pipeline on tests/fixtures/farm ($(head -n1 "$T/mutate1.out" | cut -d: -f1), repeat $REPEAT;" \
     "$(jq .total.runs "$T/run1/bench.json") killing pairs reduced twice; load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-22s %10s %10s %8s\n' phase "1 slot" "$JOBS slots" ratio
row() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%-22s %10d %10d %7.2fx\n", n, a, b, (b > 0 ? a / b : 0) }'; }
row "mutate+kills ms" "$m1" "$mn"
row "reduce (x2 walks) ms" "$r1" "$rn"
row "suite ms" "$s1" "$sn"
row "total ms" "$a1" "$an"
tail -n1 "$T/mutate$JOBS.out"
echo "same kill matrix on 1 and $JOBS slots: $same; same reductions: $sameb"
[ "$same" = yes ] && [ "$sameb" = yes ]
