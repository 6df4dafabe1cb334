#!/bin/bash
# A plain-main test built with -fsanitize=address: the product writes one
# int past a heap buffer. The identity comes from the sanitizer log that
# wh_evaluate points ASAN_OPTIONS at: kind, access, the first project frame
# and up to three project frames. Candidates without ring_init write
# through NULL instead (SEGV, WRITE): a different crash, judged
# DifferentFailure; the reduced test keeps the heap-buffer-overflow.
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/asan_overflow" "$P"
"$WHITTLE" reduce --project "$P" --file tests/test_ring.c --test test_ring_overflow \
    --setup "make -s" --build "make -s" --run "./test_ring" --framework plain \
    --cache memory: --out "$T/runs" > "$T/out" 2>&1 || { cat "$T/out"; fail "reduce"; }
R=$(run_dir "$T/runs")
check_eq "fingerprint test" "$(json "$R/fingerprint.json" .test)" test_ring_overflow
check_eq "fingerprint kind" "$(json "$R/fingerprint.json" .kind)" "sanitizer(asan,heap-buffer-overflow,WRITE)"
check_eq "fingerprint location" "$(json "$R/fingerprint.json" .location)" "ring.c:18"
check_eq "fingerprint message" "$(json "$R/fingerprint.json" .message)" \
    "ring_push@ring.c:18 < test_ring_overflow@test_ring.c:22 < main@test_ring.c:29"
check_eq "statements_before" "$(json "$R/summary.json" .statements_before)" 6
check_eq "statements_after" "$(json "$R/summary.json" .statements_after)" 4
want='static void test_ring_overflow(void)
{
    ring_init(2);
    ring_push(10);
    ring_push(20);
    ring_push(30);
}'
check_eq "reduced test" "$(awk '/^static void test_ring_overflow/,/^}/' "$R/reduced.c")" "$want"
segv=0
for rep in $(awk -F, 'NR > 1 && $6 == "DifferentFailure" && $10 != "" { print $10 }' "$R/candidates.csv"); do
    grep -q 'AddressSanitizer: SEGV on unknown address' "$R/reports/$rep" && segv=$((segv + 1))
done
[ "$segv" -ge 1 ] && pass "NULL-write candidates judged DifferentFailure: $segv" \
    || fail "no DifferentFailure candidate wrote through NULL"
# The reduced test on its own: the same overflow.
V="$T/verify"; cp -r "$FIX/asan_overflow" "$V"; cp "$R/reduced.lines.c" "$V/tests/test_ring.c"
(cd "$V" && make -s >/dev/null 2>&1 && ./test_ring > "$T/v.txt" 2>&1)
grep -q 'heap-buffer-overflow' "$T/v.txt" && grep -q 'WRITE of size 4' "$T/v.txt" \
    && pass "reduced test overflows on its own" || fail "reduced test does not overflow"
# No sanitizer log is left beside the workspaces.
left=$(find "$T/runs" -name '*.san.*' | wc -l)
check_eq "sanitizer logs left" "$left" 0
finish
