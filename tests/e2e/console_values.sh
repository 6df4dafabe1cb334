#!/bin/bash
# Messages carry their values (tests/fixtures/console_values: a harness in
# libarchive's style prints "file:line: Assertion failed: Ints not equal"
# and the two values on the lines after it). With the one-line regex alone
# the values are not in the fingerprint: the reduction drops the calls that
# compute n, still fails at the same line with n=0, and loses the fault.
# With --message-continuation the values are part of the message: the
# reduced test keeps both appends and passes on the fixed library. (The
# one-line run passes --no-keep-fault: a reference keeps the fault by
# default.)
. "$(dirname "$0")/lib.sh"
P="$T/p"; cp -r "$FIX/console_values" "$P"
REF="$T/fixed"; cp -r "$FIX/console_values" "$REF"
sed -i 's|int times = n == 1 ? 2 : 1;|int times = 1;|' "$REF/src/buf.c"
grep -q 'int times = 1;' "$REF/src/buf.c" || fail "reference not patched"
args=(--project "$P" --file tests/test_values.c --test test_append --setup "make -s"
      --build "make -s" --run './test_values {test}' --framework console --cache memory:
      --failure-regex '^(?<file>[\w/.]+\.c):(?<line>\d+): Assertion failed: (?<message>.*)$'
      --pass-on-exit0 --reference "$REF")

"$WHITTLE" reduce "${args[@]}" --no-keep-fault --out "$T/line" > "$T/o1" 2>&1 || { cat "$T/o1"; fail "one-line: reduce"; }
R=$(run_dir "$T/line")
check_eq "one-line: fingerprint message" "$(json "$R/fingerprint.json" .message)" "Ints not equal"
check_eq "one-line: statements_after" "$(json "$R/summary.json" .statements_after)" 3
check_eq "one-line: fault status" "$(json "$R/summary.json" .fault.status)" lost

"$WHITTLE" reduce "${args[@]}" --message-continuation '^\s+\S' --out "$T/cont" > "$T/o2" 2>&1 \
    || { cat "$T/o2"; fail "continuation: reduce"; }
R=$(run_dir "$T/cont")
check_eq "continuation: fingerprint location" "$(json "$R/fingerprint.json" .location)" test_values.c:14
check_eq "continuation: fingerprint message" "$(json "$R/fingerprint.json" .message)" \
    "Ints not equal n=4 (0x4, 04) 3=3 (0x3, 03)"
check_eq "continuation: statements_before" "$(json "$R/summary.json" .statements_before)" 7
check_eq "continuation: statements_after" "$(json "$R/summary.json" .statements_after)" 5
want='static void test_append(void)
{
    struct buf b = {{0}, 0};
    buf_append(&b, "ab");
    buf_append(&b, "c");
    int n = buf_len(&b);
    assertEqualInt(n, 3);
}'
check_eq "continuation: reduced test" "$(awk '/^static void test_append/,/^}/' "$R/reduced.c")" "$want"
check_eq "continuation: fault status" "$(json "$R/summary.json" .fault.status)" kept
# Candidates failing at the same line with another value were rejected.
n=$(grep -c ',DifferentFailure,' "$R/candidates.csv")
[ "$n" -ge 1 ] && pass "continuation: DifferentFailure verdicts: $n" || fail "continuation: no DifferentFailure"
finish
