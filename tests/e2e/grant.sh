#!/bin/bash
# A client key names only folders the coordinator granted it (issue 34:
# "a client names another tenant's files"). Alice's project sits in a shared
# projects folder with a 0600 secret; bob's client names it, through its
# path, through a symlink in bob's own granted folder and through '..':
# each is refused before it is journaled, exit 2, one
# line naming the path and the key, the same line in the coordinator's log;
# carol, a key with no grant, is told she has none; bob's own project
# reduces. The secret appears in no run folder and no workspace. Bad
# --grant values stop the coordinator at start, one line each.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 clients/alice clients/bob clients/carol; do
    "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"
done
export WHITTLE_SERVER_KEY="$K/coord.public"
S="$T/shared"; mkdir -p "$S/alice" "$S/bob"
cp -r "$FIX/tally" "$S/alice/tally"
echo "TOPSECRET-alice-91c4" > "$S/alice/tally/secret.txt"; chmod 600 "$S/alice/tally/secret.txt"
cp -r "$FIX/tally" "$S/bob/tally"
ln -s ../alice/tally "$S/bob/borrowed"
RUNS="$T/runs"
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$RUNS" --bind "$EP" --cache memory: \
    --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" \
    --grant alice="$S/alice" --grant bob="$S/bob" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
"$B/node/whittle-node" --connect "$EP" --secret-key "$K/nodes/n1.secret" --slots 1 --workdir "$T/wd" \
    > "$T/node.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    WHITTLE_SECRET_KEY="$K/clients/bob.secret" "$WHITTLE" status --cluster "$EP" 2>/dev/null | grep -q '^nodes: 1  slots: 1' && break
    sleep 0.1
done
job() { # key out project
    WHITTLE_SECRET_KEY="$K/clients/$1.secret" timeout 300 "$WHITTLE" reduce --cluster "$EP" --project "$3" \
        --file tests/test_tally.c --test test_total --framework plain \
        --setup "cat secret.txt > stolen 2>&1; make -s" --build "make -s" --run "cat secret.txt; ./test_tally" \
        --out "$2" > "$T/$2.out" 2>&1
}
refused() { # name key out project path-named roots-text
    job "$2" "$3" "$4"; local rc=$?
    local want="whittle: error: job 0: project '$5' is outside the folders granted to client key $2 ($6); refused: send it as a snapshot (--snapshot git or tar) or ask for a grant"
    check_eq "$1: exit" "$rc" 2
    check_eq "$1: the client's error line" "$(grep -c error "$T/$3.out") $(grep error "$T/$3.out")" "1 $want"
    grep -qF "submit from client key client:$2 refused: project '$5' is outside the folders granted to client key $2" "$T/coord.log" \
        && pass "$1: the coordinator's log names it" || fail "$1: coordinator log: $(tail -3 "$T/coord.log")"
}
refused "bob names alice's project" bob b1 "$S/alice/tally" "$S/alice/tally" "$S/bob"
# The client resolves a symlink and '..' before it sends the path; the
# coordinator resolves what it gets again (grants.h).
refused "bob, through a symlink in his own folder" bob b2 "$S/bob/borrowed" "$S/alice/tally" "$S/bob"
refused "bob, by .. out of his folder" bob b4 "$S/bob/../alice/tally" "$S/alice/tally" "$S/bob"
job carol c1 "$S/alice/tally"; rc=$?
check_eq "carol, no grant: exit and line" "$rc $(grep error "$T/c1.out")" \
    "2 whittle: error: job 0: project '$S/alice/tally' is in no folder granted to client key carol (the coordinator grants it none: whittle-coordinator --grant carol=ROOT); refused: send it as a snapshot (--snapshot git or tar)"
# bob's own project: the grant lets it through (secret.txt is not there:
# the setup's cat fails and goes on).
job bob b5 "$S/bob/tally" || { cat "$T/b5.out"; fail "bob's own project"; }
check_eq "bob's own project: 6 -> 2 statements" "$(json "$(run_dir "$RUNS/b5")/summary.json" '.statements_after')" 2
leak=$(grep -rl "TOPSECRET-alice" "$RUNS" "$T/wd" "$T"/*.out 2>/dev/null)
check_eq "alice's secret in a run folder, a workspace or a client's output" "$leak" ""
check_eq "nothing journaled or run for the refused jobs" "$(ls "$RUNS")" "b5"
stop_all
# Bad grants: one line at start, exit 2.
bad() { # name want args...
    local name=$1 want=$2; shift 2
    out=$("$B/coordinator/whittle-coordinator" --runs "$RUNS" --bind "tcp://127.0.0.1:$(free_port)" --cache memory: \
        --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" "$@" 2>&1); rc=$?
    check_eq "$name" "$rc $out" "2 whittle-coordinator: error: $want"
}
bad "a grant without KEY=" "--grant wants KEY=ROOT (a client key's name, an absolute folder), not '$S/bob'" --grant "$S/bob"
bad "a relative root" "--grant wants KEY=ROOT (a client key's name, an absolute folder), not 'bob=shared'" --grant bob=shared
bad "a root that is no folder" "--grant bob=$S/none: '$S/none' is not a folder" --grant "bob=$S/none"
out=$("$B/coordinator/whittle-coordinator" --runs "$RUNS" --bind "tcp://127.0.0.1:$(free_port)" --insecure --cache memory: --grant "bob=$S/bob" 2>&1); rc=$?
check_eq "a grant without --clients" "$rc $out" \
    "2 whittle-coordinator: error: --grant names client keys: it needs --clients DIR (under --insecure every client may name any path)"
finish
