#!/bin/bash
# A lying node cannot refute an honest node's claims. The claims check
# judges every negative verdict behind the answer again on another node; a
# node that answers Preserved to everything "refutes" them all. Before this
# test, one such answer was taken at its word: the honest node was blamed,
# its verdicts dropped, it left the job, and the walk went on with the liar
# alone, whose answer (a test that no longer fails) the liar then verified
# (CI saw it once in e2e_liar, verified = true on a wrong answer). Now a
# refutation is a positive claim like any other: it stands only when a
# second node confirms it; when the only other node is the one that gave
# the verdict, that node judges the original afresh, and a node that sees
# the original fail the same way is believed over one that says Preserved
# to a removal both of them judged.
#
# Made deterministic: the honest node alone judges the whole walk (the
# liar is not there yet), and a build of a text built before sleeps 6 s
# (the walk builds each text once; the verify run builds the answer a
# second time), so the verify run holds the honest node's one slot while
# the liar joins, when the client says "Verifying"; the claims queued
# beside it go to the liar (another node than the judge's).
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
# The nodes run a job's commands as a uid of their own: the build notes the
# texts it built in a folder any uid may write, outside the 0700 $T; with
# --sandbox none, as a sandbox's /tmp is its own.
SEEN=$(mktemp -d /tmp/whittle-seen.XXXXXX); chmod 1777 "$SEEN"
trap 'stop_all; rm -rf "$SEEN"; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

curve_keys liar honest

P="$T/tally"; cp -r "$FIX/tally" "$P"
again="make -s && h=\$(md5sum < tests/test_tally.c | cut -c1-32) && { [ ! -e $SEEN/\$h ] || sleep 6; } && touch $SEEN/\$h"
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "$again" --run ./test_tally --framework plain)
honest_args=("${args[@]}"); honest_args[9]="make -s"
"$WHITTLE" reduce "${honest_args[@]}" --out "$T/honest" --cache memory: > "$T/honest.out" 2>&1 \
    || { cat "$T/honest.out"; fail "honest run"; }
H=$(run_dir "$T/honest")

# One run: a coordinator with cache $2, the honest node, the client (out
# $1, more flags after), and the liar joining at the verify run; rc is the
# client's exit status.
lied_run() { # out cache flags...
    local out=$1 cache=$2; shift 2
    rm -f "$SEEN"/* # the builds of another run's texts do not wait
    port=$(free_port); EP="tcp://127.0.0.1:$port"
    "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "dir:$cache" -v "${coord_keys[@]}" > "$T/coord-$out.log" 2>&1 &
    PIDS+=($!)
    "$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/honest-$out" --id honest --sandbox none $(node_keys honest) > "$T/honest-$out.log" 2>&1 &
    PIDS+=($!)
    wait_slots 1
    "$WHITTLE" reduce --cluster "$EP" "${args[@]}" "$@" --out "$out" > "$T/$out.out" 2>&1 &
    client=$!
    # The liar joins once the walk is over: the verify run is out (on the
    # honest node, in a fresh workspace) and the claims wait behind it.
    deadline=$((SECONDS + 600))
    until grep -q "^Verifying:\|verifying the reduced test" "$T/$out.out" 2>/dev/null; do
        kill -0 "$client" 2>/dev/null || break
        [ $SECONDS -lt $deadline ] || { fail "the walk did not reach the verify run in 600 s"; break; }
        sleep 0.1
    done
    WH_TEST_LIE=preserved "$B/node/whittle-node-test" --connect "$EP" --slots 1 --workdir "$T/liar-$out" --id liar --sandbox none $(node_keys liar) > "$T/liar-$out.log" 2>&1 &
    PIDS+=($!)
    wait "$client"; rc=$?
}

# The job compares no location (--match message): with it, the liar's
# Preserved to the removal of the failing assertion is a lie the
# fingerprint-location rule names at once (below), before any refutation.
lied_run lied "$T/vcache" --match message
cp "$T/liar-lied.log" "$T/liar.log"
[ $rc -eq 0 ] || { cat "$T/lied.out"; fail "run with a liar joining for the claims: exit $rc"; }
R=$(run_dir "$T/lied")
grep -q "this node LIES (test only)" "$T/liar.log" && pass "the liar says it lies" || fail "the liar did not start lying"

# The premise: the liar answered claims (a Preserved to each), and judged no
# candidate of the walk.
liar_claims=$(awk -F, 'NR > 1 && $3 ~ /^"?liar\// && $2 == "claim" { n++ } END { print n + 0 }' "$R/judged.csv")
[ "$liar_claims" -ge 1 ] && pass "the liar answered $liar_claims claim checks" \
    || fail "the liar answered no claim check (the test proves nothing)"
check_eq "the liar judged no candidate of the walk" \
    "$(awk -F, 'NR > 1 && $8 ~ /^liar\// { n++ } END { print n + 0 }' "$R/candidates.csv")" 0

check_eq "answer = honest answer" "$(cat "$R/reduced.c")" "$(cat "$H/reduced.c")"
# The honest node alone judged the walk and ran the verify run: in the
# cluster that is one node's word (issue 34), and the client verified the
# answer on its own machine.
check_eq "the cluster did not verify it (one node's word)" "$(json "$R/summary.json" .verified)" false
grep -q "^Verified locally: the reduced test fails the same way on this machine" "$T/lied.out" \
    && pass "verified on the client's machine" || fail "not verified on the client's machine: $(cat "$T/lied.out")"
check_eq "no claim refuted" "$(json "$R/summary.json" .claims.refuted)" 0
check_eq "restarts" "$(json "$R/summary.json" .restarts)" 0
grep -q "^claims: node liar gave wrong verdicts; it is out of this job" "$R/run.log" \
    && pass "run.log: the liar is out of the job" || fail "run.log does not name the liar"
grep -q "node honest gave wrong verdicts" "$R/run.log" \
    && fail "the honest node was blamed: $(grep 'node honest gave wrong' "$R/run.log")" \
    || pass "the honest node was never blamed"
grep -q "^claims: removing unit [0-9]* is Preserved on liar/0 alone" "$R/run.log" \
    && pass "run.log: the liar's refutation was not confirmed" || fail "run.log: no unconfirmed refutation"
check_eq "no verdict of the honest node dropped" "$(grep -c ' Dropped$' "$T/vcache/verdicts.log")" 0
stop_all

# With the location compared (--match full, the default): the liar's
# Preserved to the claim that removes the assertion (line 25) cannot be
# (issue 34): it is named and out of the job at once, the check asked again
# of the honest node, and the answer stands.
lied_run full "$T/vcache-full"
check_eq "full: exit" "$rc" 0
R=$(run_dir "$T/full")
check_eq "full: answer = honest answer" "$(cat "$R/reduced.c")" "$(cat "$H/reduced.c")"
grep -q "^fingerprint rule: liar said Preserved of a candidate that removes the failing statement (tests/test_tally.c line 25): impossible" "$R/run.log" \
    && pass "full: the rule caught the liar's claim answer" || { grep "claims\|rule" "$R/run.log"; fail "full: the rule did not catch the liar"; }
grep -q "^fingerprint rule: node liar gave wrong verdicts; it is out of this job" "$R/run.log" \
    && pass "full: the liar is out of the job" || fail "full: the liar stayed in the job"
grep -q "node honest gave wrong verdicts" "$R/run.log" && fail "full: the honest node was blamed" || pass "full: the honest node was never blamed"
check_eq "full: no claim refuted" "$(json "$R/summary.json" .claims.refuted)" 0
stop_all
finish
