#!/bin/bash
# inspect scaling: `whittle inspect` on a generated test function of 5k and
# 20k statements (declarations, calls, ifs and loops with braced bodies, a
# macro invocation), timed with the same binary in one run. Linear work
# gives a ratio of about 4 (20k / 5k); the quadratic line counting it
# replaced gave about 16. Target: 20k statements under 0.5 s.
#
#   bench/inspect.sh [--build-dir DIR] [--keep]
. "$(dirname "$0")/lib.sh"
BUILD=
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --keep) BENCH_KEEP=1; shift ;;
    *) bench_die "unknown argument '$1'" ;;
    esac
done
for d in "$BUILD" "$BENCH_SRC/build" "$BENCH_SRC/build-bench"; do
    [ -n "$d" ] && [ -x "$d/coordinator/whittle" ] && { BUILD=$d; break; }
done
[ -x "$BUILD/coordinator/whittle" ] || bench_die "no built whittle (give --build-dir)"
WHITTLE="$BUILD/coordinator/whittle"
BENCH_TMP=$(mktemp -d /tmp/whittle-bench.XXXXXX)
trap 'bench_cleanup' EXIT

# gen N: a test function of N units (every 4th unit is an `if` holding one
# statement, so N counts both levels).
gen() {
    local n=$1 i=0 k=0
    printf '#include <stdio.h>\n#define CHECK(x) do { if (!(x)) printf("fail %%d\\n", __LINE__); } while (0)\n'
    printf 'static int f(int x) { return x + 1; }\nvoid test_big(void)\n{\n    int acc = 0;\n'
    i=1
    while [ $i -lt "$n" ]; do
        case $((k % 4)) in
        0) printf '    int v%d = f(%d);\n    acc += v%d;\n' $k $k $k; i=$((i + 2)) ;;
        1) printf '    if (acc > %d) {\n        acc -= f(%d);\n    }\n' $k $k; i=$((i + 2)) ;;
        2) printf '    CHECK(acc != %d);\n' $k; i=$((i + 1)) ;;
        3) printf '    for (int j = 0; j < 2; j++) {\n        acc ^= j;\n    }\n' ; i=$((i + 2)) ;;
        esac
        k=$((k + 1))
    done
    printf '    (void)acc;\n}\n'
}

# best of 3 wall-clock seconds of one inspect
time_inspect() {
    local f=$1 best=
    for _ in 1 2 3; do
        local t0 t1 s
        t0=$(date +%s.%N)
        "$WHITTLE" inspect "$f" --test test_big -- -w > "$BENCH_TMP/out" || bench_die "inspect failed on $f"
        t1=$(date +%s.%N)
        s=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
    done
    echo "$best"
}

declare -A T
for n in 5000 20000; do
    gen $n > "$BENCH_TMP/test_$n.c"
    # Its flags are the `-- -w` given, never a database found above it.
    bench_check_compdb "$BENCH_TMP" "test_$n.c"
    T[$n]=$(time_inspect "$BENCH_TMP/test_$n.c")
    got=$(grep -o 'Totals: [0-9]* statements' "$BENCH_TMP/out")
    printf 'inspect %6d statements (%s): %.3f s\n' $n "$got" "${T[$n]}"
done
printf 'ratio 20k/5k: %.2f (linear = 4)\n' "$(echo "${T[20000]} / ${T[5000]}" | bc -l)"
