#!/bin/bash
# Say who verified, and a second opinion from the client (issue 18). A
# cluster whose only node lies Preserved (whittle-node-test with
# WH_TEST_LIE=preserved), on a job that compares no location (--match
# message: the fingerprint-location rule, lone_liar.sh, would refuse the
# liar's first lie): the walk accepts its lies and its verify run, on the
# same node, lies too. With --no-verify-local the answer is not verified
# (exit 5), and the console, summary.json, summary.txt and report.html say
# the verify run was the same node's: no second opinion (issue 34: it was
# exit 0). With --verify-local (the default for such an answer since issue
# 34) the client builds and runs the original and the
# reduced test in a fresh copy of the project on its own machine, finds
# that the reduced test does not fail the same way, and refuses with exit 3
# and one line. Beside an honest lone node, --verify-local says "Verified
# locally" and exits 0 with the honest answer.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
CLUSTER_INSECURE=1 # slots_joined, wait_slots (lib.sh)

P="$T/tally"; cp -r "$FIX/tally" "$P"
before=$(tree_digest "$P")
args=(--project "$P" --file tests/test_tally.c --test test_total --setup "make -s"
      --build "make -s" --run ./test_tally --framework plain --insecure)
want='static void test_total(void)
{
    int total = 0;
    assert(total == 8);
}'
start_cluster() { # node-binary id [env...]
    port=$(free_port); EP="tcp://127.0.0.1:$port"
    "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: > "$T/coord-$2.log" 2>&1 &
    PIDS+=($!)
    env "${@:3}" "$B/node/$1" --connect "$EP" --insecure --slots 1 --workdir "$T/wd-$2" --id "$2" > "$T/node-$2.log" 2>&1 &
    PIDS+=($!)
    wait_slots 1
}

# 1. The lone liar, with --no-verify-local: not verified, exit 5.
start_cluster whittle-node-test liar WH_TEST_LIE=preserved
grep -q "this node LIES (test only)" "$T/node-liar.log" && pass "the liar says it lies" || fail "the liar did not start lying"
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --match message --no-verify-local --out lone > "$T/lone.out" 2>&1; rc=$?
check_eq "lone liar: exit" "$rc" 5
R=$(run_dir "$T/lone")
check_eq "lone liar: the lie stands (nothing kept)" "$(json "$R/summary.json" .statements_after)" 0
check_eq "lone liar: console line" "$(grep -c "^Not verified: node liar judged every candidate built in this run and ran the verify run too: no second opinion" "$T/lone.out")" 1
check_eq "lone liar: summary.json" "$(json "$R/summary.json" '[.verified, .second_opinion, (.verified_by | startswith("liar/"))] | map(tostring) | join(" ")')" "false false true"
grep -q "^verified by: liar/.* (its node judged every candidate built in this run: no second opinion)$" "$R/summary.txt" \
    && pass "lone liar: summary.txt says so" || fail "lone liar: summary.txt: $(grep '^verified' "$R/summary.txt")"
grep -q 'id="verified-pill">not verified: the only node that judged verified it too<' "$R/report.html" \
    && pass "lone liar: report.html pill says so" || fail "lone liar: report.html has no such pill"
grep -q 'id="verified-by">liar/[^<]* (its node judged every candidate built in this run: no second opinion)<' "$R/report.html" \
    && pass "lone liar: report.html names the verifier" || fail "lone liar: report.html does not name the verifier"

# 2. The same, with --verify-local: refused, exit 3, one line.
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --match message --out lone2 --verify-local > "$T/lone2.out" 2> "$T/lone2.err"; rc=$?
check_eq "lone liar, --verify-local: exit" "$rc" 3
grep -q "^Verifying locally: " "$T/lone2.out" && pass "lone liar, --verify-local: the check ran" || fail "no local check: $(cat "$T/lone2.out")"
check_eq "lone liar, --verify-local: one error line" "$(wc -l < "$T/lone2.err")" 1
grep -q '^whittle: error: --verify-local: the reduced test does not fail the same way on this machine: TestPassed' "$T/lone2.err" \
    && pass "lone liar, --verify-local: says why: $(cat "$T/lone2.err")" || fail "lone liar, --verify-local: said: $(cat "$T/lone2.err")"
grep -q "^Verified locally" "$T/lone2.out" && fail "lone liar: said verified locally" || pass "lone liar: never 'Verified locally'"
stop_all

# 3. An honest lone node, with --verify-local: verified here, exit 0.
start_cluster whittle-node honest
timeout 300 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out honest --verify-local > "$T/honest.out" 2>&1; rc=$?
check_eq "honest, --verify-local: exit" "$rc" 0
R=$(run_dir "$T/honest")
check_eq "honest answer" "$(awk '/^static void test_total/,/^}/' "$R/reduced.c")" "$want"
check_eq "honest, --verify-local: console" "$(grep "^Verified locally" "$T/honest.out")" \
    "Verified locally: the reduced test fails the same way on this machine (\"Assertion \`total == 8' failed.\" at test_tally.c:25)"
stop_all

# --verify-local belongs to --cluster.
"$WHITTLE" reduce "${args[@]}" --verify-local > "$T/emb.out" 2>&1; rc=$?
check_eq "embedded --verify-local: refused" "$rc $(cat "$T/emb.out")" \
    "2 whittle: error: --verify-local is for --cluster (the embedded run verifies on this machine already)"
"$WHITTLE" reduce "${args[@]}" --no-verify-local > "$T/emb.out" 2>&1; rc=$?
check_eq "embedded --no-verify-local: refused" "$rc $(cat "$T/emb.out")" \
    "2 whittle: error: --no-verify-local is for --cluster (the embedded run verifies on this machine already)"
"$WHITTLE" reduce "${args[@]}" --cluster "tcp://127.0.0.1:1" --verify-local --no-verify-local > "$T/both.out" 2>&1; rc=$?
check_eq "--verify-local --no-verify-local: refused" "$rc $(cat "$T/both.out")" \
    "2 whittle: error: --verify-local and --no-verify-local: pick one"
check_eq "project untouched" "$(tree_digest "$P")" "$before"
finish
