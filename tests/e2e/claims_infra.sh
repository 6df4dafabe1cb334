#!/bin/bash
# A removal the walk kept without a verdict is a claim too. When a
# candidate's run ends in an infrastructure error (InfraError: no report,
# a sandbox that did not start, ...), the walk keeps its unit, as it must;
# but the answer then says "1-minimal" about a removal nobody judged.
# Seen with --sandbox bwrap on a two-slot node: three InfraErrors ("no
# report"), the coupon line kept, 7 -> 5 reported with exit 0 and "claims:
# all 3 confirmed": the claims check judged only removals a node had said
# were not Preserved. Now it also judges afresh each kept unit whose
# removal had no verdict, and a Preserved answer resumes the walk (nobody
# is blamed: no verdict was wrong).
#
# Made deterministic in the embedded default: the run command of a text
# without the coupon's declaration, the first time that text runs, exits 0
# without running the test (cmocka writes no report: InfraError); every
# other run is the test's own.
. "$(dirname "$0")/lib.sh"
P="$T/cart"; cp -r "$FIX/cart" "$P"; rm -rf "$P/whittle.json" "$P/build"
SEEN="$T/seen"; mkdir -p "$SEEN"
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --cache memory:)
"$WHITTLE" reduce "${args[@]}" --run build/test_cart --out "$T/ref" > "$T/ref.out" 2>&1 \
    || { cat "$T/ref.out"; fail "reference run"; }
REF=$(run_dir "$T/ref")
check_eq "reference: 7 -> 4" "$(json "$REF/summary.json" .statements_after)" 4

flaky="if ! grep -q coupon_new tests/test_cart.c; then h=\$(md5sum < tests/test_cart.c | cut -c1-32); \
[ -e '$SEEN'/\$h ] || { touch '$SEEN'/\$h; exit 0; }; fi; exec build/test_cart"
"$WHITTLE" reduce "${args[@]}" --run "$flaky" --out "$T/flaky" > "$T/flaky.out" 2>&1; rc=$?
R=$(run_dir "$T/flaky")
check_eq "flaky run: exit" "$rc" 0
infra=$(awk -F, 'NR > 1 && $6 == "InfraError"' "$R/candidates.csv" | wc -l)
[ "$infra" -ge 1 ] && pass "the walk had $infra InfraError verdict(s) (the test exercises the path)" \
    || fail "no InfraError in the walk: the test proves nothing"
grep -q "^claims: removing unit [0-9]* is Preserved afresh on .*; the walk kept it with no verdict (InfraError on " "$R/run.log" \
    && pass "run.log: a removal kept without a verdict is Preserved afresh" \
    || fail "run.log: $(grep '^claims' "$R/run.log")"
grep -q "^Claims: 1 removal the walk kept without a verdict (infrastructure errors) is Preserved afresh; continuing from the reduced test$" "$T/flaky.out" \
    && pass "the console says why the walk resumed" || fail "console: $(grep -i claims "$T/flaky.out")"
check_eq "flaky run: the reference answer" "$(cat "$R/reduced.c")" "$(cat "$REF/reduced.c")"
check_eq "flaky run: restarts" "$(json "$R/summary.json" .restarts)" 1
grep -q "dropped" <<< "$(grep '^claims: removing unit [0-9]* is Preserved afresh' "$R/run.log")" \
    && fail "an InfraError blamed someone: $(grep '^claims' "$R/run.log")" || pass "nobody blamed"
finish
