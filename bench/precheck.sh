#!/bin/bash
# Build avoidance measured side by side: each fixture (cart, headers, the
# GoogleTest stack) reduced with --precheck off and on, one slot, a fresh
# in-memory cache each; prints builds, predictions, front-end time and wall
# time, and the ratios on/off. The answers must be equal (checked).
#   bench/precheck.sh [--build-dir DIR] [--keep] [--quick]   (--quick: C fixtures only)
. "$(dirname "$0")/lib.sh"
BUILD= QUICK=0
while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --keep) BENCH_KEEP=1; shift ;;
    --quick) QUICK=1; shift ;;
    *) bench_die "unknown option '$1'" ;;
    esac
done
BUILD=$(bench_find_build "$BUILD") || bench_die "no build folder with whittle (build it first)"
bench_trap
W="$BUILD/coordinator/whittle"
FIX="$BENCH_SRC/tests/fixtures"
export WHITTLE_CACHE_DIR="$BENCH_TMP/cache"

# one NAME MODE args... -> prints "evaluated predicted check_ms wall_ms reduced-sha"
one() {
    local name=$1 mode=$2; shift 2
    "$W" reduce --precheck "$mode" --cache memory: --out "$BENCH_TMP/$name-$mode" "$@" \
        > "$BENCH_TMP/$name-$mode.out" 2>&1 || bench_die "$name --precheck $mode failed (see $BENCH_TMP)"
    local R; R=$(bench_run_dir "$BENCH_TMP/$name-$mode")
    printf '%s %s %s %s %s\n' "$(jq .evaluated "$R/summary.json")" "$(jq .predicted "$R/summary.json")" \
        "$(jq '.precheck.check_ms + .precheck.setup_ms | floor' "$R/summary.json")" \
        "$(jq .wall_ms "$R/summary.json")" "$(cat "$R"/reduced.c* | sha256sum | cut -c1-12)"
}

row() { # name args...
    local name=$1; shift
    cp -r "$FIX/$FIXDIR" "$BENCH_TMP/$name"
    # Its compile command is its own build's (the warm workspace's).
    bench_check_compdb "$BENCH_TMP/$name" "$2"
    read -r eo po co wo so <<< "$(one "$name" off --project "$BENCH_TMP/$name" "$@")"
    read -r en pn cn wn sn <<< "$(one "$name" on --project "$BENCH_TMP/$name" "$@")"
    [ "$so" = "$sn" ] || bench_die "$name: the reduced tests differ between off and on"
    printf '%-8s %6s %6s %9s %8s %9s %9s %7s %7s\n' "$name" "$eo" "$en" "$pn" "$cn" "$wo" "$wn" \
        "$(awk -v a="$en" -v b="$eo" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$wn" -v b="$wo" 'BEGIN { printf "%.2f", a / b }')"
}

printf '%-8s %6s %6s %9s %8s %9s %9s %7s %7s\n' fixture "built" "built" predicted "fe ms" "wall ms" "wall ms" builds wall
printf '%-8s %6s %6s %9s %8s %9s %9s %7s %7s\n' "" off on on on off on on/off on/off
FIXDIR=cart row cart --file tests/test_cart.c --test test_added_item_is_in_cart \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" \
    --build "cmake --build build" --run build/test_cart --framework cmocka
FIXDIR=headers row headers --file tests/test_request.c --test test_should_read_headers \
    --setup "make -s" --build "make -s" --run ./test_request --framework cmocka
[ "$QUICK" = 1 ] || FIXDIR=gtest_stack row gtest --file tests/test_stack.cc --test Stack.TopIsLastPushed \
    --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" \
    --build "cmake --build build" --run build/test_stack --framework gtest
