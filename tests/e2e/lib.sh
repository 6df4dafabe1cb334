# Shared helpers for whittle's end-to-end tests (sourced by each script).
# Each test runs in its own temp folder; nothing is written to the repo.
set -u
WH_SOURCE_DIR=${WH_SOURCE_DIR:?set by ctest}
WH_BINARY_DIR=${WH_BINARY_DIR:?set by ctest}
WHITTLE="$WH_BINARY_DIR/coordinator/whittle"
FIX="$WH_SOURCE_DIR/tests/fixtures"
T=$(mktemp -d /tmp/whittle-e2e.XXXXXX)
# Nodes started as root run job commands as nobody, who must reach the
# workspaces under T.
chmod 755 "$T"
export WHITTLE_CACHE_DIR="$T/cache"
# Run folders of a run standing in its project go under the state folder
# (never into the project): here, not the user's ~/.local/state.
export XDG_STATE_HOME="$T/state"
FAILS=0
cleanup() { rm -rf "$T"; }
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok   $*" >&2; }
check_eq() { # name got want
    if [ "$2" = "$3" ]; then pass "$1 = $3"; else fail "$1: got '$2', want '$3'"; fi
}
check_le() { # name got max
    if [ "$2" -le "$3" ]; then pass "$1 = $2 <= $3"; else fail "$1: got $2, want <= $3"; fi
}
# Cluster tests: a free loopback port, and the processes a test started
# (PIDS), stopped by PID.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PIDS=()
# The cluster secret a redis:// cache and journal need (wh_mac.h): a fresh
# one in $T, named by $WHITTLE_CACHE_SECRET_FILE for every whittle started.
cache_secret() { head -c 32 /dev/urandom | base64 > "$T/cache.secret"; export WHITTLE_CACHE_SECRET_FILE="$T/cache.secret"; }
stop_all() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; PIDS=(); }
json() { # file jq-expression
    jq -r "$2" "$1"
}
# A digest of every file under a folder (paths + contents), to prove a tree
# is byte-identical before and after a run.
tree_digest() {
    (cd "$1" && find . -type f -o -type l | LC_ALL=C sort | while read -r f; do
        printf '%s ' "$f"; if [ -L "$f" ]; then readlink "$f"; else sha256sum < "$f"; fi
    done) | sha256sum | cut -c1-64
}
# The single run folder under an --out folder.
# same_walk NAME REF RUN: run folder RUN gave run folder REF's reduced test,
# candidates and verdicts (candidates.csv's first six columns).
same_walk() {
    cmp -s "$2/reduced.c" "$3/reduced.c" && pass "$1: the same reduced test" ||
        fail "$1: the reduced test differs"
    check_eq "$1: the same candidates and verdicts" \
        "$(cut -d, -f1-6 "$3/candidates.csv")" "$(cut -d, -f1-6 "$2/candidates.csv")"
}
# synth_fixture: the synthetic benchmark fixture (bench/synthetic) copied
# to P=$T/synth, and its judge (build and run in one program) compiled to
# J=$T/judge.
synth_fixture() {
    local syn="$WH_SOURCE_DIR/bench/synthetic"
    J="$T/judge"
    cc -std=c11 -O2 -o "$J" "$syn/judge.c" "$syn/marks.c" || { fail "judge: compile"; exit 1; }
    P="$T/synth"; cp -r "$syn" "$P"
}
run_dir() { ls -d "$1"/*/ | grep -v "/references/$" | grep -v "/latest/$" | head -n1 | sed "s:/$::"; }
finish() {
    if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed" >&2; exit 1; fi
    echo "all checks passed" >&2; exit 0
}

# Slots the cluster at $EP says have joined (status as the client; set
# CLUSTER_INSECURE=1 for a coordinator without keys), and a wait for N of
# them with a deadline.
slots_joined() { "$WHITTLE" status --cluster "$EP" ${CLUSTER_INSECURE:+--insecure} | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p'; }
wait_slots() { # n
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do [ "$(slots_joined)" = "$1" ] && return 0; sleep 0.1; done
    fail "nodes did not join"
}
# A coordinator started in the background has bound its endpoint once its
# log (the file given) says it listens: waits for that, with a deadline.
wait_listening() { # coordinator-log
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do grep -q 'listening on ' "$1" 2>/dev/null && return 0; sleep 0.05; done
    fail "the coordinator did not listen within 60 s: $(tail -n 1 "$1" 2>/dev/null)"
}
# CURVE keys in $T/keys for a coordinator, the nodes named and one client
# (cli, whose key the environment names): sets K and coord_keys; node_keys
# NAME gives a node's flags.
curve_keys() {
    K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
    local k
    for k in coord clients/cli "${@/#/nodes/}"; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
    export WHITTLE_SECRET_KEY="$K/clients/cli.secret" WHITTLE_SERVER_KEY="$K/coord.public"
    coord_keys=(--secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" --grant cli="$T")
}
node_keys() { echo --secret-key "$K/nodes/$1.secret" --server-key "$K/coord.public"; }
