#!/bin/bash
# The sample audit of cached negative verdicts (issue 18): a cache hit from
# before the run that says "not Preserved" is judged afresh now and then
# (one per 20 candidates built), and once one is found wrong no negative
# verdict of the cache is taken for the rest of the run. The embedded cache
# (it carries no MAC: anyone who can write its folder can forge it), the
# cart fixture, 7 -> 4 when honest:
#  - honest cache without its Preserved verdicts: the audit judges a cached
#    negative verdict again, agrees, and the answer is the honest one;
#  - every Preserved verdict forged to "BuildFailed node=n1" and the
#    negative ones left out (so the run builds, and earns an audit): the
#    audit finds the lie, the console says so, the rest of the cache's
#    negative verdicts are not taken, and the answer is the honest one
#    with no restart (the claims check finds nothing left to refute).
. "$(dirname "$0")/lib.sh"
P="$T/cart"; cp -r "$FIX/cart" "$P"; rm -rf "$P/whittle.json" "$P/build"
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart --reference none
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build" --build "cmake --build build"
      --run build/test_cart)
"$WHITTLE" reduce "${args[@]}" --out "$T/honest" --cache "dir:$T/vc" > "$T/honest.out" 2>&1 || { cat "$T/honest.out"; fail "honest run"; }
H=$(run_dir "$T/honest")
check_eq "honest: 7 -> 4" "$(json "$H/summary.json" .statements_after)" 4
check_eq "honest: nothing to audit (nothing cached before)" "$(json "$H/summary.json" .cache_audit.audited)" 0
cp "$T/vc/verdicts.log" "$T/verdicts.honest"
npres=$(awk '$2 == "Preserved"' "$T/verdicts.honest" | wc -l)
nneg=$(awk '$2 != "Preserved"' "$T/verdicts.honest" | wc -l)
[ "$npres" -ge 2 ] && [ "$nneg" -ge 2 ] && pass "honest cache: $npres Preserved, $nneg other verdicts" \
    || fail "honest cache: $npres Preserved, $nneg others (the test proves nothing)"

# An honest cache, its Preserved verdicts left out: they are built, and a
# negative verdict from the cache is audited and confirmed.
awk '$2 != "Preserved"' "$T/verdicts.honest" > "$T/vc/verdicts.log"
"$WHITTLE" reduce "${args[@]}" --out "$T/audit-ok" --cache "dir:$T/vc" > "$T/audit-ok.out" 2>&1 || { cat "$T/audit-ok.out"; fail "honest audit run"; }
R=$(run_dir "$T/audit-ok")
check_eq "honest audit: the honest answer" "$(cat "$R/reduced.c")" "$(cat "$H/reduced.c")"
audited=$(json "$R/summary.json" .cache_audit.audited)
[ "$audited" -ge 1 ] && pass "honest audit: $audited cached verdicts judged afresh" || fail "honest audit: nothing audited"
check_eq "honest audit: none wrong" "$(json "$R/summary.json" .cache_audit.refuted)" 0
check_eq "honest audit: no restart" "$(json "$R/summary.json" .restarts)" 0
grep -q "^cache audit: $audited cached negative verdicts\? judged afresh, 0 wrong$" "$R/summary.txt" \
    && pass "honest audit: summary.txt" || fail "summary.txt: $(grep audit "$R/summary.txt")"
! grep -q "^Audit:" "$T/audit-ok.out" && pass "honest audit: the console says nothing" || fail "honest audit: console: $(grep ^Audit "$T/audit-ok.out")"

# A forged cache: the Preserved verdicts rewritten to BuildFailed.
awk '$2 == "Preserved" { print $1 " BuildFailed node=n1" }' "$T/verdicts.honest" > "$T/vc/verdicts.log"
"$WHITTLE" reduce "${args[@]}" --out "$T/forged" --cache "dir:$T/vc" > "$T/forged.out" 2>&1; rc=$?
check_eq "forged: exit" "$rc" 0
R=$(run_dir "$T/forged")
check_eq "forged: the honest answer" "$(cat "$R/reduced.c")" "$(cat "$H/reduced.c")"
check_eq "forged: the audit found the lie" "$(json "$R/summary.json" .cache_audit.refuted)" 1
grep -q "^audit: the cache said BuildFailed for [0-9a-f]*, judged Preserved afresh on local/0/[0-9a-f]*: the cache's negative verdicts are not taken for the rest of this run$" "$R/run.log" \
    && pass "forged: run.log says which" || { grep audit "$R/run.log"; fail "forged: run.log"; }
grep -q "^Audit: a cached verdict was wrong (the cache said BuildFailed, Preserved afresh on slot local/0/[0-9a-f]*); no negative verdict of the cache is taken for the rest of this run$" "$T/forged.out" \
    && pass "forged: the console says so" || { cat "$T/forged.out"; fail "forged: console"; }
check_eq "forged: no restart" "$(json "$R/summary.json" .restarts)" 0
check_eq "forged: no claim left to refute" "$(json "$R/summary.json" .claims.refuted)" 0
# The lie the audit found is overwritten by the fresh verdict.
key=$(sed -n 's/^audit: the cache said BuildFailed for \([0-9a-f]*\),.*/\1/p' "$R/run.log")
check_eq "forged: the fresh verdict is cached" "$(grep "^$key" "$T/vc/verdicts.log" | tail -1 | cut -d' ' -f2)" Preserved
finish
