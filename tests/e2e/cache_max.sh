#!/bin/bash
# --cache-max on a real reduction (issue 12): the embedded cache is
# compacted while whittle reduce runs (the logs outgrow a 1 KiB cap), and
# nothing is lost: the same answer, the same latest verdict per key as a
# run without a cap, `whittle cache stats` counts them all, and a rerun
# judges nothing. A bad size is refused in one line.
. "$(dirname "$0")/lib.sh"
P="$T/tally"; cp -r "$FIX/tally" "$P"
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain --precheck off --no-speculate)
latest() { # the latest verdict per key, as the cache reads a log (nodes left out)
    awk '$1 !~ /^@/ { last[$1] = $2 } END { for (k in last) if (last[k] != "Dropped") print k, last[k] }' "$1" | LC_ALL=C sort
}

"$WHITTLE" reduce "${args[@]}" --cache "dir:$T/free" --out "$T/a" > "$T/a.out" 2>&1 || { cat "$T/a.out"; fail "run without a cap"; }
A=$(run_dir "$T/a")
WHITTLE_DEBUG=1 "$WHITTLE" reduce "${args[@]}" --cache "dir:$T/capped" --cache-max 1K --out "$T/b" > "$T/b.out" 2>&1 \
    || { cat "$T/b.out"; fail "run with --cache-max 1K"; }
B=$(run_dir "$T/b")
n=$(grep -c "compacted the embedded cache in $T/capped" "$T/b.out")
[ "$n" -ge 1 ] && pass "compacted $n times during the run" || fail "never compacted: $(ls -l "$T/capped")"
check_eq "same answer with the cap" "$(cat "$B/reduced.c")" "$(cat "$A/reduced.c")"
check_eq "same latest verdict per key with the cap" "$(latest "$T/capped/verdicts.log")" "$(latest "$T/free/verdicts.log")"
live=$(latest "$T/free/verdicts.log" | wc -l)
[ "$live" -ge 5 ] && pass "$live verdicts" || fail "only $live verdicts: the test proves little"
"$WHITTLE" cache stats --cache "dir:$T/capped" > "$T/stats" 2>&1 || fail "cache stats: $(cat "$T/stats")"
check_eq "stats: verdicts" "$(sed -n 's/^  verdicts: \([0-9]*\).*/\1/p' "$T/stats")" "$live"
check_eq "stats: size = the logs' size" "$(sed -n 's/^  size: \([0-9]*\) bytes$/\1/p' "$T/stats")" \
    "$(cat "$T/capped/verdicts.log" "$T/capped/predicted.log" "$T/capped/blobs.log" | wc -c)"
"$WHITTLE" reduce "${args[@]}" --cache "dir:$T/capped" --cache-max 1K --out "$T/c" > "$T/c.out" 2>&1 || { cat "$T/c.out"; fail "rerun"; }
check_eq "rerun with the cap: evaluated" "$(json "$(run_dir "$T/c")/summary.json" .evaluated)" 0

out=$("$WHITTLE" reduce "${args[@]}" --cache-max 10X 2>&1); rc=$?
check_eq "--cache-max 10X: exit $rc, one line" "$rc: $out" "2: whittle: error: --cache-max wants a size like 64M (K, M, G), not '10X'"
finish
