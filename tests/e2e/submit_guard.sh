#!/bin/bash
# A submitted job's run folder lives under the coordinator's --runs folder
# (issue 10): a client may name a relative folder under it ("out"), never
# an absolute path or one that climbs out. Each bad "out" is refused with
# one exact line and nothing is created; a good one lands under --runs; the
# embedded `whittle reduce --out ABSOLUTE` is unaffected.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT

P="$T/tally"; cp -r "$FIX/tally" "$P"
RUNS="$T/runs"
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --bind "$EP" --insecure --cache memory: --runs "$RUNS" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
grep -q "run folders under $RUNS, [0-9]* preparation threads\?$" "$T/coord.log" && pass "the coordinator names its runs folder" || fail "coord log: $(cat "$T/coord.log")"
"$B/node/whittle-node" --connect "$EP" --insecure --slots 1 --workdir "$T/wd" > "$T/node.log" 2>&1 &
PIDS+=($!)

submit() { # name extra-json-fields
    cat > "$T/$1.json" <<JSON
[ {"project": "$P", "file": "tests/test_tally.c", "test": "test_total", "setup": "make -s",
   "build": "make -s", "run": "./test_tally", "framework": "plain"$2} ]
JSON
    "$WHITTLE" submit --cluster "$EP" --insecure "$T/$1.json" > "$T/$1.out" 2> "$T/$1.err"
}
refused() { # name out want
    submit "$1" ", \"out\": \"$2\""; local rc=$?
    check_eq "$1: exit and error" "$rc $(cat "$T/$1.err")" "2 whittle: error: job 0: $3"
}
refused "absolute out" "$T/elsewhere" \
    "job \"out\" '$T/elsewhere' is an absolute path: run folders live under the coordinator's --runs folder '$RUNS' (give a relative name)"
refused "out climbing out" ../elsewhere \
    "job \"out\" '../elsewhere' is not a plain relative name under the coordinator's --runs folder '$RUNS' (no '..', '.' or empty parts)"
refused "out climbing out deeper" a/../../elsewhere \
    "job \"out\" 'a/../../elsewhere' is not a plain relative name under the coordinator's --runs folder '$RUNS' (no '..', '.' or empty parts)"
[ ! -e "$T/elsewhere" ] && pass "no folder created outside --runs" || fail "$T/elsewhere exists"
[ ! -e "$RUNS" ] && pass "nothing created under --runs for refused jobs" || fail "refused jobs created $(ls "$RUNS")"

# `whittle reduce --cluster --out ABSOLUTE` sends the path as typed: refused
# the same way, one line.
"$WHITTLE" reduce --cluster "$EP" --insecure --project "$P" --file tests/test_tally.c --test test_total \
    --setup "make -s" --build "make -s" --run ./test_tally --framework plain --out "$T/abs" \
    > "$T/abs.out" 2> "$T/abs.err"; rc=$?
check_eq "reduce --cluster --out absolute: exit and error" "$rc $(cat "$T/abs.err")" \
    "2 whittle: error: job 0: job \"out\" '$T/abs' is an absolute path: run folders live under the coordinator's --runs folder '$RUNS' (give a relative name)"

want='static void test_total(void)
{
    int total = 0;
    assert(total == 8);
}'
submit good ', "out": "team/a"' || { cat "$T/good.out" "$T/good.err"; fail "a relative out is accepted"; }
R=$(run_dir "$RUNS/team/a")
check_eq "relative out: the run folder is under --runs" "$(dirname "$R")" "$RUNS/team/a"
check_eq "relative out: answer" "$(awk '/^static void test_total/,/^}/' "$R/reduced.c")" "$want"
submit default "" || { cat "$T/default.out" "$T/default.err"; fail "a job without out is accepted"; }
check_eq "no out: run folders directly under --runs" "$(ls -d "$RUNS"/*/ | grep -v -e /team/ -e /latest/ | wc -l)" 1
stop_all

# The embedded default is not a coordinator: its --out may be anywhere.
(cd "$T" && "$WHITTLE" reduce --project "$P" --file tests/test_tally.c --test test_total --setup "make -s" \
    --build "make -s" --run ./test_tally --framework plain --out "$T/embedded-abs" --cache memory: > "$T/emb.out" 2>&1) \
    || { cat "$T/emb.out"; fail "embedded run with an absolute --out"; }
check_eq "embedded --out absolute: answer" "$(awk '/^static void test_total/,/^}/' "$(run_dir "$T/embedded-abs")/reduced.c")" "$want"
finish
