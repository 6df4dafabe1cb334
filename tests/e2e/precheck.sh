#!/bin/bash
# Build avoidance (DESIGN.md, "Predicted verdicts") on the cart, headers and
# GoogleTest fixtures. --precheck audit builds every candidate and compares:
# at least 90 % of the BuildFailed builds were predicted, 0 disagreements,
# and the reduced test is the same text as with --precheck off, with the same
# candidates and verdicts. --precheck on (cart, headers): the same again
# with fewer builds; summary.json's counts equal candidates.csv's columns;
# predictions sit in their own key space (predicted.log), never among the
# real verdicts (verdicts.log); a rerun answers them from there.
. "$(dirname "$0")/lib.sh"

# csv columns: 6 verdict, 7 cached, 12 key, 14 predicted, 15 precheck
csv_count() { # file awk-condition
    awk -F, "NR > 1 && ($2) { n++ } END { print n + 0 }" "$1"
}

# run NAME MODE CACHE reduce-args... -> the run folder in $RD. The exact
# counts below were derived on the thesis's walk (--ddmin classic), which
# proposes the most doomed candidates; audit = off holds for any walk.
run() {
    local name=$1 mode=$2 cache=$3; shift 3
    "$WHITTLE" reduce --precheck "$mode" --ddmin classic --cache "$cache" --out "$T/$name" "$@" > "$T/$name.out" 2>&1 \
        || { cat "$T/$name.out"; fail "$name: run"; }
    RD=$(run_dir "$T/$name")
}

# audit against off for one fixture: ratio, disagreements, same answer.
audit_vs_off() { # label reduce-args...
    local label=$1; shift
    run "$label-off" off memory: "$@"; local OFF=$RD
    run "$label-audit" audit memory: "$@"; local AUD=$RD
    check_eq "$label: audit disagreements" "$(json "$AUD/summary.json" .precheck.audit.disagreements)" 0
    check_eq "$label: audit predicted_but_built" "$(json "$AUD/summary.json" .precheck.audit.predicted_but_built)" 0
    local bf pr
    bf=$(json "$AUD/summary.json" .precheck.audit.build_failed)
    pr=$(json "$AUD/summary.json" .precheck.audit.build_failed_predicted)
    [ "$bf" -gt 0 ] && [ $((pr * 100)) -ge $((bf * 90)) ] \
        && pass "$label: $pr of $bf BuildFailed builds predicted (>= 90 %)" \
        || fail "$label: $pr of $bf BuildFailed builds predicted (< 90 %)"
    # every built row: the front end said fail exactly when the build failed
    check_eq "$label: csv rows where precheck and build disagree" \
        "$(csv_count "$AUD/candidates.csv" '$7 == 0 && (($15 == "fail") != ($6 == "BuildFailed"))')" 0
    check_eq "$label: audit predicted nothing" "$(json "$AUD/summary.json" .predicted)" 0
    check_eq "$label: audit built as much as off" "$(json "$AUD/summary.json" .evaluated)" "$(json "$OFF/summary.json" .evaluated)"
    cmp -s "$OFF/reduced$EXT" "$AUD/reduced$EXT" && pass "$label: audit reduced test = off" || fail "$label: audit reduced test differs from off"
    check_eq "$label: audit candidates and verdicts = off" "$(cut -d, -f1-6 "$AUD/candidates.csv")" "$(cut -d, -f1-6 "$OFF/candidates.csv")"
    OFF_RUN=$OFF
}

# on against off: same answer and verdicts, fewer builds, exact counts.
on_vs_off() { # label evaluated predicted cached reduce-args...
    local label=$1 ev=$2 pr=$3 ca=$4; shift 4
    run "$label-on" on "dir:$T/cache-$label" "$@"; local ON=$RD
    cmp -s "$OFF_RUN/reduced$EXT" "$ON/reduced$EXT" && pass "$label: on reduced test = off" || fail "$label: on reduced test differs from off"
    check_eq "$label: on candidates and verdicts = off" "$(cut -d, -f1-6 "$ON/candidates.csv")" "$(cut -d, -f1-6 "$OFF_RUN/candidates.csv")"
    check_eq "$label: on evaluated" "$(json "$ON/summary.json" .evaluated)" "$ev"
    check_eq "$label: on predicted" "$(json "$ON/summary.json" .predicted)" "$pr"
    check_eq "$label: on cached" "$(json "$ON/summary.json" .cached)" "$ca"
    check_eq "$label: csv predicted rows = summary" "$(csv_count "$ON/candidates.csv" '$14 == 1')" "$pr"
    check_eq "$label: csv built rows = summary" "$(csv_count "$ON/candidates.csv" '$7 == 0 && $14 == 0')" "$ev"
    check_eq "$label: predicted rows are BuildFailed, precheck fail" \
        "$(csv_count "$ON/candidates.csv" '$14 == 1 && ($6 != "BuildFailed" || $15 != "fail")')" 0
    check_eq "$label: one report per built candidate (+ original, + verify runs)" "$(ls "$ON/reports" | wc -l)" \
        "$((ev + 1 + $(json "$ON/summary.json" .verify_runs)))"
    grep -q "^precheck:    on, .* $pr predicted$" "$ON/summary.txt" && pass "$label: summary.txt precheck line" || fail "$label: summary.txt precheck line"
    # key spaces: every predicted key in predicted.log, none in verdicts.log
    local keys inpred=0 inreal=0
    keys=$(awk -F, 'NR > 1 && $14 == 1 { print $12 }' "$ON/candidates.csv" | sort -u)
    for k in $keys; do
        grep -q "^$k BuildFailed node=local$" "$T/cache-$label/predicted.log" && inpred=$((inpred + 1))
        grep -q "^$k " "$T/cache-$label/verdicts.log" && inreal=$((inreal + 1))
    done
    check_eq "$label: predicted keys in predicted.log" "$inpred" "$(echo "$keys" | grep -c .)"
    check_eq "$label: predicted keys in verdicts.log" "$inreal" 0
    # a rerun builds nothing and takes the predictions from their key space
    run "$label-rerun" on "dir:$T/cache-$label" "$@"
    check_eq "$label: rerun evaluated" "$(json "$RD/summary.json" .evaluated)" 0
    check_eq "$label: rerun predicted" "$(json "$RD/summary.json" .predicted)" "$pr"
    cmp -s "$OFF_RUN/reduced$EXT" "$RD/reduced$EXT" && pass "$label: rerun reduced test = off" || fail "$label: rerun reduced test differs"
}

cp -r "$FIX/cart" "$T/cart"
EXT=.c
cart=(--project "$T/cart" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --run build/test_cart --framework cmocka)
audit_vs_off cart "${cart[@]}"
check_eq "cart: off evaluated" "$(json "$OFF_RUN/summary.json" .evaluated)" 27
on_vs_off cart 16 23 21 "${cart[@]}"

cp -r "$FIX/headers" "$T/headers"
headers=(--project "$T/headers" --file tests/test_request.c --test test_should_read_headers
         --setup "make -s" --build "make -s" --run ./test_request --framework cmocka)
audit_vs_off headers "${headers[@]}"
on_vs_off headers 4 2 6 "${headers[@]}"

cp -r "$FIX/gtest_stack" "$T/stack"
EXT=.cc
stack=(--project "$T/stack" --file tests/test_stack.cc --test Stack.TopIsLastPushed
       --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
       --build "cmake --build build" --run build/test_stack --framework gtest)
audit_vs_off gtest "${stack[@]}"

# A file whose original has front-end errors with the flags at hand (the
# header is not found; --allow-parse-errors lets the run go on): the
# precheck turns itself off for the job and says so.
cp -r "$FIX/headers" "$T/noinc-project"
run noinc on memory: --project "$T/noinc-project" --file tests/test_request.c --test test_should_read_headers \
    --setup "make -s" --build "make -s" --run ./test_request --framework cmocka --allow-parse-errors \
    -- -I/nonexistent
check_eq "no include path: precheck enabled" "$(json "$RD/summary.json" .precheck.enabled)" false
json "$RD/summary.json" .precheck.off_because | grep -q "the original has a front-end error with these flags .*'request.h' file not found" \
    && pass "no include path: summary says why the precheck is off" || fail "no include path: no reason given"
grep -q "^Precheck and UB guard off: the original has a front-end error with these flags (.*'request.h' file not found)$" "$T/noinc.out" \
    && pass "no include path: the console says so" || fail "no include path: the console is silent"
check_eq "no include path: said once" "$(grep -cE '^(Precheck|UB guard)' "$T/noinc.out")" 1
check_eq "no include path: predicted" "$(json "$RD/summary.json" .predicted)" 0
check_eq "no include path: statements_after" "$(json "$RD/summary.json" .statements_after)" 2

# A header the setup generates (gen/request.h from a template): the flags
# guessed before the setup cannot find it, so the precheck and the UB guard
# start off; the warm workspace's own compile command brings them back, and
# the console says so (issue 19: "never says it came back on"), once, with
# no "off" before it (issue 33).
G="$T/gen"; cp -r "$FIX/headers" "$G"; mkdir "$G/tmpl"; mv "$G/src/request.h" "$G/tmpl/request.h.in"
sed -i 's|-Isrc|-Igen|g; s| src/request.h||g' "$G/Makefile"
"$WHITTLE" reduce --project "$G" --file tests/test_request.c --test test_should_read_headers \
    --setup "mkdir -p gen && cp tmpl/request.h.in gen/request.h && make -s" --build "make -s" \
    --run ./test_request --framework cmocka --out "$T/genruns" --cache memory: > "$T/gen.out" 2>&1 \
    || { cat "$T/gen.out"; fail "generated header run"; }
check_eq "generated header: on with the workspace's command, said once" \
    "$(grep -E '^(Precheck|UB guard)' "$T/gen.out")" \
    "Precheck and UB guard on: compile arguments from the file's own compile command (the flags guessed before it gave a front-end error; run.log names it)"
RG=$(run_dir "$T/genruns")
check_eq "generated header: precheck enabled in the end" "$(json "$RG/summary.json" .precheck.enabled)" true
finish
