#!/bin/bash
# bear (which records the compile command during a node's setup) fails on
# its own under load: its wrapper cannot reach its gRPC collector ("wrapper:
# failed with: gRPC call failed: failed to connect to all addresses", seen
# in e2e_cluster_tcp beside stress-ng), and make stops. That is not the
# user's setup failing: the node sets up a fresh copy again without bear,
# says so in one warning, and the reduction ends as without bear. A setup
# that fails by itself is still reported as the setup's failure.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/bin"
cat > "$T/bin/bear" <<'SH'
#!/bin/sh
# Stands in for bear 3 whose interception breaks: make's compiler calls fail.
echo "wrapper: failed with: gRPC call failed: failed to connect to all addresses" >&2
echo "make: *** [Makefile:7: build/request.o] Error 1" >&2
exit 2
SH
chmod +x "$T/bin/bear"
P="$T/headers"; cp -r "$FIX/headers" "$P"
before=$(tree_digest "$P")
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka --cache memory:)
PATH="$T/bin:$PATH" "$WHITTLE" reduce "${args[@]}" --out "$T/runs" > "$T/out" 2>&1 \
    && pass "a broken bear does not fail the reduction" || { cat "$T/out"; fail "reduction with a broken bear"; }
R=$(run_dir "$T/runs")
check_eq "statements after" "$(json "$R/summary.json" .statements_after)" 2
check_eq "one warning names bear" "$(grep -c 'bear failed (.*); running the setup again without it' "$T/out")" 1
check_eq "the warning quotes bear's own line" \
    "$(grep -c 'bear failed (wrapper: failed with: gRPC call failed: failed to connect to all addresses)' "$T/out")" 1
# A setup that fails without bear too is the user's: reported as such.
PATH="$T/bin:$PATH" "$WHITTLE" reduce "${args[@]:0:6}" --setup "make -s && false" --build "make -s" \
    --run "./test_request" --framework cmocka --cache memory: --out "$T/runs2" > "$T/out2" 2>&1
rc=$?
[ "$rc" -ne 0 ] && grep -q "setup exited" "$T/out2" && pass "a failing setup still fails (exit $rc)" \
    || { cat "$T/out2"; fail "a failing setup: exit $rc"; }
check_eq "project unchanged" "$(tree_digest "$P")" "$before"
finish
