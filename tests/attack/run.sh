#!/bin/bash
# Issue 34's attack list, run again: 58 attacks and faults on a CURVE
# cluster with a Redis password and the cluster secret, each ending in one
# line: HELD (whittle refused it or gave the honest answer and said what
# happened), WEAK (no wrong answer, but a misleading message, a lie left
# behind, or a limit not kept) or WRONG (a wrong answer with exit 0, or
# another tenant's data). The list is reconstructed from the issue's text
# (the original was never committed): the issue names its three WRONG and
# eleven weak items; the 44 it held are spelled out here from its summary
# ("every liar beside an honest node, forged and replayed cache values,
# wrong-role peers, garbage and huge frames, kill -9 of coordinator, node
# and Redis, FLUSHALL, SIGSTOP, a full disk, the per-client limit") and
# from the tests that guard each (tests/e2e/*.sh), so their exact split
# is this harness's, not the original's.
#   WRONG in the issue: 10 (lone liar, Preserved), 51 (another tenant's
#     path), 58 (no sandbox under podman kube play).
#   weak in the issue: 11, 12 (lone liar BuildFailed / TestPassed), 17
#     (replay after cache forget), 24 (older journal record), 25, 26
#     (wrong-role keys), 41 (1,100 connections), 42 (slow-loris), 43
#     (wire limit), 47 (SIGSTOP blames keys), 57 (job environment).
#   held in the issue: the rest. 52-55 and 34 are the later grants' and
#     uid pools' own cases, counted with 51 and 58's family.
#
#   tests/attack/run.sh [BUILD_DIR] [ID-or-NAME-PATTERN...]
#
# BUILD_DIR defaults to ./build of this worktree; patterns (grep -E on
# "ID name") pick attacks, e.g. `tests/attack/run.sh build '^1[0-2] '` for
# the lone liars. Needs root (uid pools, a tmpfs), redis-server, jq, cc
# with libzmq (a raw CURVE peer is compiled into the temp folder),
# python3. Everything runs on loopback; every process is stopped by the
# PID it was started with; KEEP=1 keeps the temp folder. Attack 58 plays
# containers/k8s with podman through tests/e2e/container_kube.sh and runs
# only with ATTACK_KUBE=1 (it shares podman's names with ctest's
# e2e_container_kube). Exit status: 0 when nothing is WRONG, 1 otherwise.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "run.sh: no build folder '${1:-$SRC/build}'" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
ONLY=("$@")
export WH_SOURCE_DIR="$SRC" WH_BINARY_DIR="$BUILD"
. "$SRC/tests/e2e/lib.sh" # T, free_port, run_dir, json, tree_digest, wait_listening
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (uid pools, a tmpfs)" >&2; exit 2; }
for tool in redis-server redis-cli jq cc python3; do
    command -v "$tool" > /dev/null || { echo "run.sh: $tool not installed" >&2; exit 2; }
done
COORD="$BUILD/coordinator/whittle-coordinator"; NODE="$BUILD/node/whittle-node"
NODE_TEST="$BUILD/node/whittle-node-test"; PEER="$BUILD/tests/wh_peer"
for b in "$WHITTLE" "$COORD" "$NODE" "$NODE_TEST" "$PEER"; do
    [ -x "$b" ] || { echo "run.sh: $b not built" >&2; exit 2; }
done
PIDS=()
RPID=
cleanup() {
    stop_all
    [ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
    mountpoint -q "$T/full" 2>/dev/null && umount "$T/full"
    [ -n "${KEEP:-}" ] && echo "kept $T" >&2 || rm -rf "$T"
}
trap cleanup EXIT
stop_all() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    PIDS=()
}
log() { echo "$*" >> "$T/harness.log"; }

# ---- keys, Redis with a password, the cluster secret, tenants' folders ----
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients" "$K/other"
for k in coord nodes/n1 nodes/n2 nodes/liar nodes/liar2 clients/alice clients/bob clients/carol other/rogue; do
    "$WHITTLE" keygen --out "$K/$k" > /dev/null || { echo "run.sh: keygen $k failed" >&2; exit 2; }
done
export WHITTLE_SERVER_KEY="$K/coord.public" WHITTLE_SECRET_KEY="$K/clients/alice.secret"
RPASS="rp-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export WHITTLE_REDIS_PASSWORD="$RPASS"
cache_secret # $T/cache.secret, WHITTLE_CACHE_SECRET_FILE
RPORT=$(free_port)
start_redis() {
    redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --requirepass "$RPASS" \
        --databases 80 --dir "$T" >> "$T/redis.log" 2>&1 &
    RPID=$!
    local t0=$SECONDS
    while [ $((SECONDS - t0)) -lt 60 ]; do rcli0 ping 2>/dev/null | grep -q PONG && return 0; sleep 0.1; done
    echo "run.sh: redis-server did not start" >&2; exit 2
}
rcli0() { REDISCLI_AUTH="$RPASS" redis-cli -p "$RPORT" "$@"; }
rcli() { REDISCLI_AUTH="$RPASS" redis-cli -p "$RPORT" -n "$RDB" "$@"; }
start_redis
S="$T/shared"; mkdir -p "$S/alice" "$S/bob" "$S/carol"
cp -r "$FIX/tally" "$S/alice/tally"; cp -r "$FIX/tally" "$S/bob/tally"
PA="$S/alice/tally"
# alice's private files (the layout containers/README suggests: 0600, her uid)
mkdir -p "$S/alice/private"; cp -r "$FIX/tally" "$S/alice/private/tally"
echo "TOPSECRET-alice-5e7d" > "$S/alice/private/tally/secret.txt"
echo "PRIVATEKEY-alice-0b2f" > "$S/alice/private/tally/alice.key"
chown 4242:4242 "$S/alice/private/tally/secret.txt" "$S/alice/private/tally/alice.key"
chmod 600 "$S/alice/private/tally/secret.txt" "$S/alice/private/tally/alice.key"
ln -s ../alice/private/tally "$S/bob/borrowed"
DROP="$T/drop"; mkdir -m 1777 "$DROP" # a folder any job may write: what an attack got out
chmod -R a+rX "$S/alice/tally" "$S/bob/tally"

TALLY=(--file tests/test_tally.c --test test_total --framework plain --setup "make -s" --build "make -s")
"$WHITTLE" reduce --project "$PA" "${TALLY[@]}" --run ./test_tally --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 \
    || { echo "run.sh: the embedded reference run failed: $(tail -n 3 "$T/ref.out")" >&2; exit 2; }
REF=$(run_dir "$T/ref")
REF_AFTER=$(json "$REF/summary.json" .statements_after)

# ---- a raw CURVE peer (garbage, huge and many-part frames) ----
cat > "$T/rawpeer.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>
/* rawpeer EP SECRETFILE SERVERPUBFILE garbage|huge|parts: sends one raw
 * message as an authenticated DEALER and waits 1 s for anything back. */
static int key(const char *f, const char *name, char out[41])
{
    FILE *fp = fopen(f, "r"); char line[256];
    if (!fp) return -1;
    while (fgets(line, sizeof line, fp)) {
        char *p = strstr(line, name), *q;
        if (p && (p = strchr(p, '"')) && (q = strchr(p + 1, '"')) && q - p - 1 == 40) {
            memcpy(out, p + 1, 40); out[40] = 0; fclose(fp); return 0;
        }
    }
    fclose(fp); return -1;
}
int main(int argc, char **argv)
{
    char pub[41], sec[41], srv[41];
    if (argc != 5 || key(argv[2], "public-key", pub) || key(argv[2], "secret-key", sec) || key(argv[3], "public-key", srv))
        return 2;
    void *ctx = zmq_ctx_new(), *s = zmq_socket(ctx, ZMQ_DEALER);
    int zero = 0, to = 1000;
    zmq_setsockopt(s, ZMQ_LINGER, &to, sizeof to);
    zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, srv, 40);
    zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pub, 40);
    zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sec, 40);
    (void)zero;
    if (zmq_connect(s, argv[1])) return 2;
    size_t n = !strcmp(argv[4], "huge") ? (17u << 20) : 4096;
    unsigned char *b = malloc(n);
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(rand() & 0xff);
    if (!strcmp(argv[4], "parts")) {
        for (int i = 0; i < 1000; i++) zmq_send(s, b, (size_t)(i % 7), ZMQ_SNDMORE);
        zmq_send(s, b, 3, 0);
    } else {
        zmq_send(s, b, n, 0);
    }
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &to, sizeof to);
    char r[64]; int got = zmq_recv(s, r, sizeof r, 0);
    printf("sent %s, %s\n", argv[4], got >= 0 ? "got an answer" : "no answer");
    zmq_close(s); zmq_ctx_term(ctx); free(b);
    return 0;
}
C
cc -O1 -o "$T/rawpeer" "$T/rawpeer.c" -lzmq || { echo "run.sh: cannot compile the raw peer (libzmq-dev?)" >&2; exit 2; }

# ---- the cluster: a coordinator on its own Redis database per attack ----
NEXTDB=1
# Grants (--grant KEY=ROOT) where this build has them; an older build (a
# branch cut before them) takes every path from every client key.
GRANTS=(--grant alice="$S/alice" --grant bob="$S/bob")
"$COORD" --help 2>&1 | grep -q -- '--grant' || GRANTS=()
# start_coord NAME [coordinator args...]: EP, CPID, CLOG, RURL, RDB set.
# KEEP_EP=1 restarts on the same EP and database (after a crash).
start_coord() {
    CN=$1; shift
    if [ -z "${KEEP_EP:-}" ]; then EP="tcp://127.0.0.1:$(free_port)"; RDB=$NEXTDB; NEXTDB=$((NEXTDB + 1)); fi
    RURL="redis://127.0.0.1:$RPORT/$RDB"; CLOG="$T/$CN.coord.log"
    mkdir -p "$T/runs/$CN"
    WHITTLE_CACHE_DIR="$T/$CN.fallback" "$COORD" --runs "$T/runs/$CN" --bind "$EP" --cache "$RURL" -v \
        --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" \
        "${GRANTS[@]}" "$@" >> "$CLOG" 2>&1 &
    CPID=$!; PIDS+=($CPID)
    local t0=$SECONDS
    while [ $((SECONDS - t0)) -lt 60 ] && kill -0 "$CPID" 2>/dev/null; do grep -qs 'listening on ' "$CLOG" && return 0; sleep 0.05; done
    COORD_FAILED="the coordinator did not start: $(tail -n 1 "$CLOG" | cut -c1-110)"; log "$CN: $COORD_FAILED"; return 1
}
# start_node ID [node args...]: the key nodes/ID; LIE=... starts the liar
# (whittle-node-test with WH_TEST_LIE); SLOTS (default 1). NPID set.
start_node() {
    local id=$1; shift
    local bin=$NODE; [ -n "${LIE:-}" ] && bin=$NODE_TEST
    env ${LIE:+WH_TEST_LIE=$LIE} "$bin" --connect "$EP" --slots "${SLOTS:-1}" --workdir "$T/w.$CN.$id" --id "$id" \
        --secret-key "$K/nodes/$id.secret" --server-key "$K/coord.public" "$@" >> "$T/$CN.$id.log" 2>&1 &
    NPID=$!; PIDS+=($NPID)
}
slots_now() { "$WHITTLE" status --cluster "$EP" 2>/dev/null | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p'; }
wait_n() { # slots
    local t0=$SECONDS
    while [ $((SECONDS - t0)) -lt 90 ] && kill -0 "$CPID" 2>/dev/null; do [ "$(slots_now)" = "$1" ] && return 0; sleep 0.2; done
    log "$CN: $1 slots did not join (have $(slots_now))"; return 1
}
# red OUT [reduce args...]: alice reduces the tally project (PROJ, RUN
# override) through EP; RC, R (the coordinator's run folder), O (output).
red() {
    local out=$1; shift
    O="$T/$CN.$out.out"
    timeout "${RED_TIMEOUT:-600}" "$WHITTLE" reduce --cluster "$EP" --project "${PROJ:-$PA}" "${TALLY[@]}" \
        --run "${RUN:-./test_tally}" --out "$out" "$@" > "$O" 2>&1
    RC=$?
    R=$(run_dir "$T/runs/$CN/$out" 2>/dev/null)
}
# red_bg OUT [args...]: red in the background; red_wait OUT then sets RC, O, R.
red_bg() { ( red "$@"; exit "$RC" ) & BG=$!; }
red_wait() { wait "$BG"; RC=$?; O="$T/$CN.$1.out"; R=$(ls -d "$T/runs/$CN/$1"/*/ 2>/dev/null | grep -v -e /latest/ -e /references/ | tail -n 1 | sed 's:/$::'); }
runlog_has() { grep -qs -- "$1" "$T/runs/$CN/$2"/*/run.log; }
same() { [ -n "$R" ] && cmp -s "$R/reduced.c" "$REF/reduced.c"; }
stmts() { [ -s "$R/summary.json" ] && echo "$(json "$R/summary.json" .statements_before) -> $(json "$R/summary.json" .statements_after)"; }
lastline() { grep -v '^\s*$' "$1" 2>/dev/null | tail -n 1 | cut -c1-150; }
# An answer that must be the honest one: HELD when it is (with NOTE),
# WRONG when exit 0 gives another, WEAK when the run was refused.
judge_answer() {
    if [ -z "$R" ] && [ "$RC" = 0 ]; then say "NOT RUN" "exit 0 but no run folder found (harness error)"
    elif [ "$RC" = 0 ] && same; then say HELD "exit 0, the honest answer ($(stmts))${NOTE:+; $NOTE}"
    elif [ "$RC" = 0 ]; then say WRONG "exit 0 with another answer ($(stmts))${NOTE:+; $NOTE}"
    else say WEAK "no answer: exit $RC: $(lastline "$O")"; fi
}
node_judged() { # node run-folder: candidates it judged (not cached)
    [ -n "$2" ] && awk -F, -v n="$1" 'NR > 1 && $7 == 0 && index($8, n "/") == 1 { c++ } END { print c + 0 }' "$2/candidates.csv" || echo 0
}
redis_values_of() { # node: verdict values in RDB that name it
    rcli --scan --pattern 'whittle:v1:verdict:*' | while read -r k; do rcli get "$k"; done | grep -c " node=$1\( \|$\)"
}
wait_for() { # seconds command...
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ "$SECONDS" -lt "$end" ] || return 1; sleep 0.2; done
}

# ---- the attacks ----
COORD_FAILED=
COUNT_HELD=0; COUNT_WEAK=0; COUNT_WRONG=0; COUNT_NOTRUN=0
say() {
    SAID=1
    if [ -n "$COORD_FAILED" ] && [ "$1" != "NOT RUN" ]; then set -- "NOT RUN" "$COORD_FAILED (would have said: $1)"; fi
    case "$1" in HELD) COUNT_HELD=$((COUNT_HELD + 1)) ;; WEAK) COUNT_WEAK=$((COUNT_WEAK + 1)) ;;
        WRONG) COUNT_WRONG=$((COUNT_WRONG + 1)) ;; *) COUNT_NOTRUN=$((COUNT_NOTRUN + 1)) ;; esac
    printf '%2s %-7s %-34s %s\n' "$ID" "$1" "$TITLE" "$2"
}
attack() { # id name function
    ID=$1 TITLE=$2
    if [ ${#ONLY[@]} -gt 0 ]; then
        local p hit=
        for p in "${ONLY[@]}"; do grep -Eq -- "$p" <<< "$ID $TITLE" && hit=1; done
        [ -n "$hit" ] || return 0
    fi
    SAID=; R=; RC=; NOTE=; PROJ=; RUN=; COORD_FAILED=
    log "==== $ID $TITLE ($(date +%T))"
    "$3"
    [ -n "$SAID" ] || say "NOT RUN" "the attack gave no verdict (harness error; see $T/harness.log)"
    stop_all
}

# -- liars beside an honest node --
liar_beside() { # lie liar-slots order(first|second) [second-liar-lie]
    start_coord "$ID"
    if [ "$3" = first ]; then LIE=$1 SLOTS=$2 start_node liar; wait_n "$2"; start_node n1; wait_n $(($2 + 1))
    else start_node n1; wait_n 1; LIE=$1 SLOTS=$2 start_node liar; wait_n $(($2 + 1)); fi
    if [ -n "${4:-}" ]; then LIE=$4 start_node liar2; wait_n $(($2 + 2)); fi
    red out
    local named; named=$(grep -c "node liar2\? gave wrong verdicts" "$R/run.log" 2>/dev/null)
    NOTE="liar judged $(node_judged liar "$R")${4:+, liar2 $(node_judged liar2 "$R")}; named out of the job ${named:-0} time(s)"
    judge_answer
}
a_liar_pres_first() { liar_beside preserved 1 first; }
a_liar_pres_second() { liar_beside preserved 1 second; }
a_liar_bf() { liar_beside buildfailed 1 first; }
a_liar_tp() { liar_beside testpassed 1 first; }
a_liar_majority() { liar_beside preserved 3 first; }
a_liar_two() { liar_beside preserved 1 first testpassed; }
a_liar_rejoin() { # the liar, put out of the job, comes back on a new session
    start_coord "$ID"; LIE=preserved start_node liar; local L=$NPID; wait_n 1; start_node n1; wait_n 2
    RUN="sleep 0.2; ./test_tally" red_bg out
    wait_for 300 runlog_has "node liar gave wrong verdicts" out || log "$ID: the liar was never named"
    kill "$L"; wait "$L" 2>/dev/null
    LIE=preserved start_node liar; wait_n 2
    red_wait out
    NOTE="the liar came back mid-job and judged $(node_judged liar "$R") in all"
    judge_answer
}
cached_lies() { # back: the liar stays beside the honest node
    start_coord "$ID"; LIE=buildfailed start_node liar; local L=$NPID; wait_n 1
    red lone
    local lies; lies=$(redis_values_of liar)
    if [ "$1" = back ]; then start_node n1; wait_n 2; else kill "$L"; wait "$L" 2>/dev/null; start_node n1; wait_n 1; fi
    red out
    NOTE="lies in Redis before: $lies; claims refuted $(json "$R/summary.json" .claims.refuted 2>/dev/null)"
    grep -q "node n1 gave wrong verdicts" "$R/run.log" 2>/dev/null && NOTE="$NOTE; THE HONEST NODE WAS BLAMED"
    judge_answer
}
a_cached_lies() { cached_lies gone; }
a_cached_lies_back() { cached_lies back; }

# -- lone liars --
lone_liar() { # lie
    start_coord "$ID"; LIE=$1 SLOTS=2 start_node liar; wait_n 2
    red out
    local verified named left
    verified=$(json "$R/summary.json" .verified 2>/dev/null || echo "no summary.json")
    named=$(grep -c "node liar\b" "$O")
    left=$(redis_values_of liar)
    local what="exit $RC, $(stmts), coordinator's run folder verified: ${verified:-?}, client names the node ${named}x, says flaky $(grep -c flaky "$O")x, liar's values left in Redis: $left; last line: $(lastline "$O")"
    if [ "$RC" = 0 ] && ! same; then say WRONG "$what"
    elif [ "$RC" = 0 ]; then say WEAK "$what (the honest answer by chance)"
    elif [ "$verified" = true ] || [ "$named" = 0 ] || [ "$left" -gt 0 ]; then say WEAK "$what"
    else say HELD "$what"; fi
}
a_lone_pres() { lone_liar preserved; }
a_lone_bf() { lone_liar buildfailed; }
a_lone_tp() { lone_liar testpassed; }

# -- the cache --
# populate: one honest run on n1 and n2 fills this attack's database.
populate() { start_coord "$ID"; start_node n1; start_node n2; wait_n 2; red r1; R1=$R; RC1=$RC; }
restart_cluster() { # after the values were changed: a fresh coordinator (empty fallback) on the same database
    stop_all; KEEP_EP=1 start_coord "$ID.b"; start_node n1; start_node n2; wait_n 2
}
vkeys() { rcli --scan --pattern 'whittle:v1:*' | grep -e ':verdict:' -e ':predicted:' -e ':blob:' | LC_ALL=C sort; }
forged() { # value with-mac(0|1)
    populate
    local mac i=0 k; mac=$(rcli get "$(vkeys | head -n 1)" | sed -n 's/.*\( mac=[0-9a-f]*\)$/\1/p')
    while read -r k; do
        if [ "$2" = 1 ] && [ $((i % 2)) = 1 ]; then rcli set "$k" "$1$mac" > /dev/null; else rcli set "$k" "$1" > /dev/null; fi
        i=$((i + 1))
    done < <(vkeys)
    restart_cluster; red r2
    NOTE="$i values forged; coordinator warned: $(grep -c 'without a valid MAC' "$CLOG")"
    judge_answer
}
a_forge_bf() { forged "BuildFailed node=n1" 0; }
a_forge_bf_mac() { forged "BuildFailed node=n1" 1; }
a_forge_pres() { forged "Preserved node=n1" 1; }
a_swap() { # MAC-valid values moved to other keys
    populate
    local ks=() k; mapfile -t ks < <(rcli --scan --pattern 'whittle:v1:verdict:*' | LC_ALL=C sort)
    local vs=(); for k in "${ks[@]}"; do vs+=("$(rcli get "$k")"); done
    local n=${#ks[@]} i
    for ((i = 0; i < n; i++)); do rcli set "${ks[$i]}" "${vs[$(((i + 1) % n))]}" > /dev/null; done
    restart_cluster; red r2
    NOTE="$n verdict values rotated between keys"
    judge_answer
}
a_forget_replay() { # a forgotten node's MAC-valid values written back after cache forget
    start_coord "$ID"; start_node n1; wait_n 1; red r1
    rcli --scan --pattern 'whittle:v1:verdict:*' | while read -r k; do printf '%s\t%s\n' "$k" "$(rcli get "$k")"; done > "$T/$ID.saved"
    local nsaved; nsaved=$(grep -c ' node=n1' "$T/$ID.saved")
    WHITTLE_CACHE_DIR="$T/$ID.cli" "$WHITTLE" cache forget --node n1 --cache "$RURL" > "$T/$ID.forget" 2>&1
    while IFS=$'\t' read -r k v; do rcli set "$k" "$v" > /dev/null; done < "$T/$ID.saved"
    stop_all; KEEP_EP=1 start_coord "$ID.b"; start_node n2; wait_n 1; red r2
    local believed; believed=$(awk -F, -v f="$T/$ID.saved" 'BEGIN { while ((getline l < f) > 0) { split(l, a, "\t"); sub(/.*:/, "", a[1]); s[a[1]] = 1 } }
        NR > 1 && $7 == 1 && ($12 in s) { c++ } END { print c + 0 }' "$R/candidates.csv" 2>/dev/null)
    local what="$nsaved values of n1 saved, forgotten ($(head -c 80 "$T/$ID.forget")), written back; rerun: exit $RC, served $believed of them from the cache"
    if [ "$RC" = 0 ] && ! same; then say WRONG "$what; another answer"
    elif [ "${believed:-0}" -gt 0 ]; then say WEAK "$what (believed)"
    elif [ "$RC" = 0 ]; then say HELD "$what"
    else say WEAK "$what; no answer: $(lastline "$O")"; fi
}
midrun() { # wait until the running job has stored N verdicts in RDB
    wait_for 300 bash -c "[ \"\$(REDISCLI_AUTH='$RPASS' redis-cli -p $RPORT -n $RDB --scan --pattern 'whittle:v1:verdict:*' | wc -l)\" -ge $1 ]"
}
a_flushall() {
    start_coord "$ID"; start_node n1; start_node n2; wait_n 2
    RUN="sleep 0.3; ./test_tally" red_bg out
    midrun 2 && rcli0 flushall > /dev/null
    red_wait out
    NOTE="FLUSHALL mid-run"; judge_answer
}
a_kill_redis() {
    start_coord "$ID"; start_node n1; start_node n2; wait_n 2
    RUN="sleep 0.3; ./test_tally" red_bg out
    midrun 2 && kill -9 "$RPID"; wait "$RPID" 2>/dev/null
    red_wait out
    NOTE="Redis SIGKILLed mid-run; warned: $(grep -c 'unavailable' "$CLOG")"
    judge_answer
    start_redis
}
a_redis_wrongpw() {
    local out rc; out=$(WHITTLE_REDIS_PASSWORD=wrong-pw-91 timeout 60 "$COORD" --runs "$T/runs/x" --bind "tcp://127.0.0.1:$(free_port)" \
        --cache "redis://127.0.0.1:$RPORT/70" --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" 2>&1); rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 124 ] && ! grep -q "wrong-pw-91\|$RPASS" <<< "$out"; then say HELD "refused, exit $rc: $(tail -n 1 <<< "$out" | cut -c1-120)"
    else say WEAK "exit $rc: $(tail -n 1 <<< "$out" | cut -c1-120)"; fi
}
a_no_secret() {
    local out rc; out=$(env -u WHITTLE_CACHE_SECRET_FILE timeout 60 "$COORD" --runs "$T/runs/x" --bind "tcp://127.0.0.1:$(free_port)" \
        --cache "redis://127.0.0.1:$RPORT/71" --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" 2>&1); rc=$?
    local n; n=$(RDB=71 rcli dbsize)
    if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$n" = 0 ]; then say HELD "refused, exit $rc: $(tail -n 1 <<< "$out" | cut -c1-110)"
    else say WRONG "exit $rc, $n keys written: $(tail -n 1 <<< "$out" | cut -c1-110)"; fi
}
a_short_secret() {
    printf 'short\n' > "$T/short.secret"
    local out rc; out=$(WHITTLE_CACHE_SECRET_FILE="$T/short.secret" timeout 60 "$COORD" --runs "$T/runs/x" --bind "tcp://127.0.0.1:$(free_port)" \
        --cache "redis://127.0.0.1:$RPORT/72" --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" 2>&1); rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 124 ]; then say HELD "refused, exit $rc: $(tail -n 1 <<< "$out" | cut -c1-110)"
    else say WEAK "exit $rc: $(tail -n 1 <<< "$out" | cut -c1-110)"; fi
}
jobs_in_status() { "$WHITTLE" status --cluster "$EP" 2>/dev/null | grep -c '^  job '; }
a_journal_forged() { # a record without a MAC: a running job in alice's name
    populate
    local id rec; id=$(rcli hkeys whittle:v1:jobs | grep -v '^_' | head -n 1)
    rec=$(rcli hget whittle:v1:jobs "$id" | sed 's/ mac=[0-9a-f]\{64\}$//' | jq -c --arg o "$T/runs/$ID/forged" '.state = "running" | .id = "00000000deadbeef" | .job.out = $o | .out = $o' 2>/dev/null)
    [ -n "$rec" ] || { say "NOT RUN" "no journal record to copy (ids: $(rcli hkeys whittle:v1:jobs | tr '\n' ' '))"; return; }
    rcli hset whittle:v1:jobs 00000000deadbeef "$rec" > /dev/null
    stop_all
    if ! KEEP_EP=1 start_coord "$ID.b"; then COORD_FAILED=; say HELD "the coordinator refuses to start on it: $(tail -n 1 "$CLOG" | cut -c1-120)"; return; fi
    start_node n1; wait_n 1
    local st; st=$("$WHITTLE" status --cluster "$EP" 2>&1 | grep -c deadbeef)
    local warned; warned=$(grep -ci 'deadbeef' "$CLOG")
    if [ "$st" = 0 ] && [ ! -e "$T/runs/$ID/forged" ]; then say HELD "the record without a MAC was not resumed (coordinator log names it $warned time(s))"
    else say WRONG "a record without a MAC was resumed (status lists it $st time(s))"; fi
}
a_journal_replay() { # a finished job's running record written back
    start_coord "$ID"; start_node n1; wait_n 1
    RUN="sleep 0.3; ./test_tally" red_bg out
    local id= rec=
    wait_for 300 bash -c "REDISCLI_AUTH='$RPASS' redis-cli -p $RPORT -n $RDB hgetall whittle:v1:jobs | grep -q '\"state\": *\"running\"'"
    id=$(rcli hkeys whittle:v1:jobs | grep -v '^_' | head -n 1); rec=$(rcli hget whittle:v1:jobs "$id")
    red_wait out
    [ "$RC" = 0 ] && grep -q '"state": *"running"' <<< "$rec" || { say "NOT RUN" "could not catch a running record (exit $RC)"; return; }
    rcli hset whittle:v1:jobs "$id" "$rec" > /dev/null
    stop_all; KEEP_EP=1 start_coord "$ID.b"; start_node n1; wait_n 1
    wait_for 30 grep -q "$id" "$CLOG"
    wait_for 10 bash -c "[ \$(ls -d '$T/runs/$ID/out'/*/ 2>/dev/null | grep -vc /latest/) -gt 1 ]"
    local runs; runs=$(ls -d "$T/runs/$ID/out"/*/ 2>/dev/null | grep -vc /latest/)
    if grep -qi "resum.*$id\|$id.*resum" "$CLOG" && ! grep -qi "refus\|older\|sequence" <<< "$(grep "$id" "$CLOG")"; then
        say WEAK "the older record was resumed: $(grep "$id" "$CLOG" | tail -n 1 | cut -c1-110)"
    elif [ "$runs" -gt 1 ]; then say WEAK "the job ran again ($runs run folders)"
    else say HELD "refused: $(grep "$id" "$CLOG" | grep -i 'refus\|older\|sequence' | head -n 1 | cut -c1-120)"; fi
}

# -- roles and keys --
a_client_as_node() {
    start_coord "$ID"
    "$NODE" --connect "$EP" --slots 1 --workdir "$T/w.$ID" --id imp --secret-key "$K/clients/bob.secret" \
        --server-key "$K/coord.public" > "$T/$ID.node.log" 2>&1 &
    local np=$!; PIDS+=($np)
    wait_for 60 bash -c "! kill -0 $np 2>/dev/null"
    local rc=running; kill -0 "$np" 2>/dev/null || { wait "$np"; rc=$?; }
    local line; line=$(grep -i 'error\|refused\|connected' "$T/$ID.node.log" | tail -n 1 | cut -c1-130)
    if [ "$rc" = 2 ] && grep -q "client key" "$T/$ID.node.log"; then say HELD "the node stops, exit 2: $line"
    else say WEAK "the node: $rc: $line"; fi
}
a_node_as_client() {
    start_coord "$ID"
    local out rc; out=$(timeout 60 "$WHITTLE" status --cluster "$EP" --secret-key "$K/nodes/n1.secret" 2>&1); rc=$?
    if [ "$rc" = 2 ] && grep -q "node key" <<< "$out"; then say HELD "exit 2: $(cut -c1-120 <<< "$out")"
    else say WEAK "exit $rc: $(tail -n 1 <<< "$out" | cut -c1-120)"; fi
}
a_rogue_node() {
    start_coord "$ID"
    "$NODE" --connect "$EP" --slots 1 --workdir "$T/w.$ID" --id rogue --secret-key "$K/other/rogue.secret" \
        --server-key "$K/coord.public" > "$T/$ID.node.log" 2>&1 &
    local np=$!; PIDS+=($np)
    wait_for 90 bash -c "! kill -0 $np 2>/dev/null"
    local s; s=$(slots_now)
    if [ "${s:-0}" != 0 ]; then say WRONG "an unlisted node key got $s slot(s)"
    elif ! kill -0 "$np" 2>/dev/null; then say HELD "no slot; the node stopped: $(grep error "$T/$ID.node.log" | tail -n 1 | cut -c1-110)"
    else say WEAK "no slot, but the node reconnects for ever: $(tail -n 1 "$T/$ID.node.log" | cut -c1-100)"; fi
}
client_refused() { # what key-args...
    local what=$1; shift
    start_coord "$ID"
    local t0=$SECONDS out rc; out=$(timeout 60 "$WHITTLE" status --cluster "$EP" "$@" 2>&1); rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <<< "$out")" = 1 ] && [ $((SECONDS - t0)) -lt 15 ]; then say HELD "$what: exit 2 in $((SECONDS - t0)) s: $(cut -c1-100 <<< "$out")"
    elif [ "$rc" = 0 ]; then say WRONG "$what: status answered"
    else say WEAK "$what: exit $rc in $((SECONDS - t0)) s: $(tail -n 1 <<< "$out" | cut -c1-100)"; fi
}
a_rogue_client() { client_refused "unlisted client key" --secret-key "$K/other/rogue.secret"; }
a_wrong_server_key() { client_refused "wrong server key" --server-key "$K/other/rogue.public"; }
a_insecure_client() { client_refused "--insecure against CURVE" --insecure; }
peer_job() { jq -n --arg p "$PA" --arg o "$1" '{project: $p, file: "tests/test_tally.c", test: "test_total",
    setup: "make -s", build: "make -s", run: "./test_tally", framework: "plain", out: $o}'; }
a_node_submit() {
    start_coord "$ID"; peer_job "$T/runs/$ID/bynode" > "$T/$ID.json"
    "$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" --server-key "$K/coord.public" --send submit --json "$T/$ID.json" --wait 2000 > "$T/$ID.peer" 2>&1
    local sub; sub=$("$WHITTLE" status --cluster "$EP" | sed -n 's/^jobs submitted: \([0-9]*\).*/\1/p')
    if [ "$sub" = 0 ] && [ ! -e "$T/runs/$ID/bynode" ] && grep -q "dropped SUBMIT from node:n2" "$CLOG"; then say HELD "no job; got $(tr '\n' ' ' < "$T/$ID.peer"); logged"
    elif [ "$sub" = 0 ]; then say WEAK "no job, but not logged: $(tr '\n' ' ' < "$T/$ID.peer")"
    else say WRONG "a node key submitted a job"; fi
}
a_client_hello() {
    start_coord "$ID"
    "$PEER" --connect "$EP" --secret-key "$K/clients/bob.secret" --server-key "$K/coord.public" --send hello --wait 2000 > "$T/$ID.peer" 2>&1
    local s; s=$(slots_now)
    if [ "${s:-0}" = 0 ] && grep -q "dropped HELLO from client:bob" "$CLOG"; then say HELD "no slot; got $(tr '\n' ' ' < "$T/$ID.peer"); logged"
    elif [ "${s:-0}" = 0 ]; then say WEAK "no slot, not logged"
    else say WRONG "a client key's HELLO made $s slot(s)"; fi
}
a_claim_rid() { # a listed node key claims a slot's routing id: while it lives, then just after it died
    start_coord "$ID" --heartbeat 4000; start_node n1 --heartbeat 4000; local N1=$NPID; wait_n 1
    local rid; rid=$(sed -n 's/.*node slot n1\/0 joined (routing id \(.*\))$/\1/p' "$CLOG" | head -n 1)
    [ -n "$rid" ] || { say "NOT RUN" "no routing id in the log"; return; }
    "$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" --server-key "$K/coord.public" --id "$rid" --send hello --wait 2000 > "$T/$ID.live" 2>&1
    local live_ok=; ! grep -q "^EVALUATE" "$T/$ID.live" && [ "$(slots_now)" = 1 ] && live_ok=1
    kill -9 "$N1"; wait "$N1" 2>/dev/null
    local t0=$SECONDS
    while [ $((SECONDS - t0)) -lt 30 ]; do
        "$PEER" --connect "$EP" --secret-key "$K/nodes/n2.secret" --server-key "$K/coord.public" --id "$rid" --send hello --wait 1000 >> "$T/$ID.dead" 2>&1
        grep -qF "claimed routing id '$rid'" "$CLOG" && break
    done
    if grep -q "^EVALUATE" "$T/$ID.live" "$T/$ID.dead"; then say WRONG "the claimer got work"
    elif [ -n "$live_ok" ] && grep -qF "claimed routing id '$rid' owned by slot n1/0; refused" "$CLOG"; then
        say HELD "live slot: the claimer gets nothing, n1 keeps its slot; dead slot: refused and logged (no takeover)"
    else say WEAK "live: $(tr '\n' ' ' < "$T/$ID.live"); dead: not logged as a refused claim"; fi
}
a_job_reads_key() { # a job reads the node's and the coordinator's secret keys (bare processes, node as root, its default sandbox)
    start_coord "$ID"; start_node n1; wait_n 1
    TALLY_SAVE=("${TALLY[@]}")
    TALLY=(--file tests/test_tally.c --test test_total --framework plain --build "make -s"
           --setup "cat '$K/nodes/n1.secret' '$K/coord.secret' 2>&1 | tr '\n' ' '; echo; false")
    red out; TALLY=("${TALLY_SAVE[@]}")
    if grep -q 'secret-key' "$O" "$T/runs/$CN"/out/*/* 2>/dev/null; then say WRONG "the job read a secret key (in the client's output or run folder)"
    elif grep -q "Permission denied\|No such file" "$O"; then say HELD "refused: $(grep -m1 -o "cat: [^:]*: [A-Z][a-z ]*" "$O" | sed "s:$T:\$T:" | cut -c1-110)"
    else say "NOT RUN" "the setup's output did not reach the client (exit $RC): $(lastline "$O")"; fi
}
# -- frames --
alive() { # the coordinator runs and answers status within 10 s, with its slots
    kill -0 "$CPID" 2>/dev/null && [ "$(timeout 10 "$WHITTLE" status --cluster "$EP" 2>/dev/null | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p')" = "$1" ]
}
a_tcp_garbage() {
    start_coord "$ID"; start_node n1; wait_n 1
    python3 - "${EP##*:}" <<'PY' > "$T/$ID.py" 2>&1
import socket, sys, os
p = int(sys.argv[1])
for payload in (os.urandom(65536), b"\xff" + b"\0" * 8 + b"\x7f\x03\x00NULL" + b"\0" * 16 + b"\0" * 32, b"GET / HTTP/1.0\r\n\r\n"):
    s = socket.create_connection(("127.0.0.1", p)); s.settimeout(2)
    try:
        s.sendall(payload); s.recv(100)
    except Exception:
        pass
    s.close()
print("sent")
PY
    if alive 1; then say HELD "random bytes, a NULL-mechanism greeting, HTTP: the coordinator runs on, 1 slot"
    else say WRONG "the coordinator is down or lost its slot"; fi
}
raw() { # key-file mode
    start_coord "$ID"; start_node n1; wait_n 1
    "$T/rawpeer" "$EP" "$1" "$K/coord.public" "$2" > "$T/$ID.raw" 2>&1
    if alive 1; then say HELD "$(cat "$T/$ID.raw"); the coordinator runs on, 1 slot; log: $(grep -ci 'bad\|drop\|malformed\|invalid' "$CLOG") line(s)"
    else say WRONG "after $(cat "$T/$ID.raw"): the coordinator is down or lost its slot"; fi
}
a_garbage_node() { raw "$K/nodes/n2.secret" garbage; }
a_garbage_client() { raw "$K/clients/bob.secret" garbage; }
a_huge_frame() { raw "$K/clients/bob.secret" huge; }
a_many_parts() { raw "$K/nodes/n2.secret" parts; }
a_metrics_garbage() {
    local MP; MP=$(free_port); start_coord "$ID" --metrics "127.0.0.1:$MP"
    python3 - "$MP" > "$T/$ID.py" 2>&1 <<'PY'
import socket, sys, os, urllib.request
p = int(sys.argv[1])
for payload in (os.urandom(4096), b"GET /" + b"A" * 1000000 + b" HTTP/1.1\r\n\r\n", b"GET /metrics HTTP/1.1\r\nX: " + b"B" * 200000 + b"\r\n\r\n"):
    s = socket.create_connection(("127.0.0.1", p)); s.settimeout(3)
    try:
        s.sendall(payload); s.recv(100)
    except Exception:
        pass
    s.close()
try:
    with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % p, timeout=2) as r:
        print("healthz", r.status)
except Exception as e:
    print("healthz failed:", e)
PY
    if grep -q "healthz 200" "$T/$ID.py" && alive 0; then say HELD "random bytes, a 1 MB path, a 200 KB header: /healthz 200 after"
    else say WEAK "$(tail -n 1 "$T/$ID.py")"; fi
}
flood() { # what: probes|slowloris
    local MP; MP=$(free_port); start_coord "$ID" --metrics "127.0.0.1:$MP"
    ( ulimit -n 4096 2>/dev/null; python3 - "$MP" "$1" ) > "$T/$ID.py" 2>&1 <<'PY'
import socket, sys, time, threading, selectors, urllib.request
port, what = int(sys.argv[1]), sys.argv[2]
def opener():
    s = socket.socket(); s.settimeout(5); s.connect(("127.0.0.1", port)); s.setblocking(False); return s
stop = False
def hold():
    sel = selectors.DefaultSelector()
    for i in range(1100):
        try: sel.register(opener(), selectors.EVENT_READ)
        except OSError: pass
    ready.set()
    while not stop:
        for key, _ in sel.select(0.05):
            s = key.fileobj
            try: d = s.recv(4096)
            except OSError: d = b""
            if not d:
                sel.unregister(s); s.close()
                try: sel.register(opener(), selectors.EVENT_READ)
                except OSError: pass
ready = threading.Event()
if what == "probes":
    threading.Thread(target=hold, daemon=True).start(); ready.wait(60)
    ok = 0
    for i in range(15):
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=1.0) as r:
                ok += r.status == 200 and time.monotonic() - t0 <= 1.0
        except Exception:
            pass
        time.sleep(0.5)
    print("probes ok: %d of 15" % ok)
else:
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(0.2)
    line = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"; t0 = time.monotonic(); sent = 0; closed = None
    while time.monotonic() - t0 < 30 and closed is None:
        if time.monotonic() - t0 >= sent:
            try: s.send(line[sent % len(line):sent % len(line) + 1]); sent += 1
            except OSError: closed = time.monotonic() - t0
        try:
            if s.recv(100) == b"": closed = time.monotonic() - t0
        except socket.timeout: pass
        except OSError: closed = time.monotonic() - t0
    print("slow-loris closed after: %s" % ("%.1f s" % closed if closed is not None else "more than 30 s"))
stop = True
PY
    local got; got=$(tail -n 1 "$T/$ID.py")
    case "$1:$got" in
        "probes:probes ok: 15 of 15") say HELD "1,100 held connections: $got one-second /healthz probes" ;;
        probes:*) say WEAK "1,100 held connections: $got" ;;
        slowloris:*"more than"*) say WEAK "a byte a second: $got (documented: 5 s)" ;;
        slowloris:*) local s=${got##*: }; s=${s%%.*}; [ "$s" -le 8 ] && say HELD "a byte a second: $got (documented: 5 s)" || say WEAK "a byte a second: $got (documented: 5 s)" ;;
    esac
}
a_metrics_flood() { flood probes; }
a_slowloris() { flood slowloris; }
a_wire_limit() {
    start_coord "$ID"
    local big res="" opt out rc ok=1; big=$(head -c 70000 /dev/zero | tr '\0' ' ')
    for opt in run setup; do
        if [ $opt = run ]; then out=$(timeout 120 "$WHITTLE" reduce --cluster "$EP" --project "$PA" "${TALLY[@]}" --run "./test_tally$big" --out w1 -q 2>&1); rc=$?
        else out=$(timeout 120 "$WHITTLE" reduce --cluster "$EP" --project "$PA" --file tests/test_tally.c --test test_total --framework plain \
                --setup "make -s$big" --build "make -s" --run ./test_tally --out w2 -q 2>&1); rc=$?; fi
        res="$res --$opt: exit $rc;"
        [ "$rc" = 2 ] && grep -q -- "--$opt is .*65536" <<< "$out" || ok=
    done
    local sub; sub=$("$WHITTLE" status --cluster "$EP" | sed -n 's/^jobs submitted: \([0-9]*\).*/\1/p')
    [ -n "$ok" ] && say HELD "$res the line names the option and the limit; coordinator got $sub job(s)" \
        || say WEAK "$res $(tail -n 1 <<< "$out" | cut -c1-100)"
}

# -- faults --
a_kill_coord() {
    start_coord "$ID"; start_node n1; start_node n2; wait_n 2
    RUN="sleep 0.3; ./test_tally" red_bg out
    midrun 2; kill -9 "$CPID"; wait "$CPID" 2>/dev/null
    KEEP_EP=1 start_coord "$ID"
    red_wait out
    NOTE="coordinator SIGKILLed mid-job and restarted; client reattached: $(grep -c 'reattaching' "$O")"
    judge_answer
}
a_kill_node() {
    start_coord "$ID"; start_node n1; local N1=$NPID; start_node n2; wait_n 2
    RUN="sleep 0.3; ./test_tally" red_bg out
    midrun 2; kill -9 "$N1"; wait "$N1" 2>/dev/null
    red_wait out
    NOTE="node n1 SIGKILLed mid-job"; judge_answer
}
a_sigstop_job() {
    start_coord "$ID" --heartbeat 500; start_node n1 --heartbeat 500; local N1=$NPID; start_node n2 --heartbeat 500; wait_n 2
    RUN="sleep 0.3; ./test_tally" red_bg out
    midrun 2; kill -STOP "$N1"
    wait_for 60 grep -q "n1/0 missed 3 heartbeats" "$CLOG"; sleep 1; kill -CONT "$N1"
    red_wait out
    NOTE="node n1 SIGSTOPped mid-job past 3 heartbeats, then continued"; judge_answer
}
a_sigstop_blame() {
    start_coord "$ID" --heartbeat 500; start_node n1 --heartbeat 500 -v; local N1=$NPID; wait_n 1
    kill -STOP "$N1"; wait_for 60 grep -q "n1/0 missed 3 heartbeats" "$CLOG"; sleep 2; kill -CONT "$N1"
    wait_for 60 bash -c "[ \$(grep -c 'node slot n1/0 joined' '$CLOG') -ge 2 ]"; sleep 2
    local L="$T/$CN.n1.log" blame; blame=$(grep -iE "key|handshake|silent|refused" "$L" | grep -v "job commands" | head -n 1 | cut -c1-100)
    if grep -q "this node was stopped" "$L" && [ -z "$blame" ]; then say HELD "the node says it was stopped; rejoined: $(grep -c 'node slot n1/0 joined' "$CLOG") joins"
    else say WEAK "node log: ${blame:-$(tail -n 1 "$L" | cut -c1-100)}"; fi
}
a_full_disk() {
    mkdir -p "$T/full"; mount -t tmpfs -o size=2m tmpfs "$T/full" 2> "$T/$ID.mount" || { say "NOT RUN" "cannot mount a tmpfs: $(cat "$T/$ID.mount")"; return; }
    mkdir -p -m 1777 "$T/full/tmp"; head -c 4M /dev/zero > "$T/full/filler" 2>/dev/null
    start_coord "$ID"
    TMPDIR="$T/full/tmp" "$NODE" --connect "$EP" --slots 1 --workdir "$T/full/w" --id n1 --secret-key "$K/nodes/n1.secret" \
        --server-key "$K/coord.public" > "$T/$ID.full.log" 2>&1 &
    PIDS+=($!); wait_n 1; start_node n2; wait_n 2
    red out
    NOTE="verdicts from the full node: $(node_judged n1 "$R"); infra faults $(json "$R/summary.json" .infra_faults 2>/dev/null)"
    judge_answer
    stop_all; umount "$T/full"
}
a_client_limit() {
    start_coord "$ID" --max-client-jobs 2
    { peer_job a0; peer_job a1; } | jq -s '.' > "$T/$ID.two.json"
    "$WHITTLE" submit --cluster "$EP" "$T/$ID.two.json" > "$T/$ID.two.out" 2>&1 &
    PIDS+=($!)
    wait_for 60 bash -c "[ \"\$('$WHITTLE' status --cluster '$EP' 2>/dev/null | grep -c '^  job ')\" = 2 ]"
    jq '[.[0] | .out = "a2"]' "$T/$ID.two.json" > "$T/$ID.three.json"
    local out rc; out=$(timeout 60 "$WHITTLE" submit --cluster "$EP" "$T/$ID.three.json" 2>&1); rc=$?
    if [ "$rc" = 4 ] && grep -q "max-client-jobs 2" <<< "$out"; then say HELD "the 3rd job of one key: exit 4: $(grep error <<< "$out" | cut -c1-90)"
    elif [ "$rc" = 4 ]; then say WEAK "exit 4: $(tail -n 1 <<< "$out" | cut -c1-100)"
    else say WRONG "the 3rd job: exit $rc (taken?)"; fi
}
a_foreign_cancel() {
    start_coord "$ID"
    peer_job c0 | jq -s '.' > "$T/$ID.json"
    "$WHITTLE" submit --cluster "$EP" "$T/$ID.json" > "$T/$ID.sub" 2>&1 &
    PIDS+=($!)
    wait_for 60 grep -q "accepted" "$T/$ID.sub"
    local jid; jid=$(sed -n 's/.*job \([0-9a-f]\{16\}\) accepted.*/\1/p' "$T/$ID.sub" | head -n 1)
    local out rc; out=$(WHITTLE_SECRET_KEY="$K/clients/bob.secret" timeout 60 "$WHITTLE" cancel --cluster "$EP" "$jid" 2>&1); rc=$?
    local still; still=$("$WHITTLE" status --cluster "$EP" | grep -c "$jid")
    if [ "$rc" = 2 ] && [ "$still" -ge 1 ]; then say HELD "bob cancels alice's job $jid: exit 2: $(cut -c1-90 <<< "$out")"
    else say WRONG "bob's cancel: exit $rc: $(cut -c1-90 <<< "$out"); job listed $still time(s)"; fi
}

# -- tenants --
tenant_path() { # key project what
    start_coord "$ID" ${GRANT:+--grant "$GRANT"}; start_node n1; wait_n 1
    TALLY_SAVE=("${TALLY[@]}")
    TALLY=(--file tests/test_tally.c --test test_total --framework plain --build "make -s"
           --setup "cat secret.txt alice.key 2>&1 | tr '\n' ' '; echo; cat secret.txt alice.key > '$DROP/$ID.loot' 2>&1; false")
    WHITTLE_SECRET_KEY="$K/clients/$1.secret" PROJ="$2" red out; TALLY=("${TALLY_SAVE[@]}")
    local leak; leak=$(grep -rlE "TOPSECRET-alice|PRIVATEKEY-alice" "$T/runs/$CN" "$T/w.$CN".* "$O" "$DROP/$ID.loot" 2>/dev/null | head -n 3 | tr '\n' ' ')
    if [ -n "$leak" ]; then say WRONG "$3: exit $RC; alice's secret reached: $leak"
    elif [ "$RC" = 0 ]; then say WRONG "$3: exit 0 (the job ran on alice's project)"
    else say HELD "$3: exit $RC, nothing leaked: $(grep -m1 error "$O" | cut -c1-110)"; fi
}
a_tenant_path() { tenant_path bob "$S/alice/private/tally" "bob names alice's path"; }
a_tenant_symlink() { tenant_path bob "$S/bob/borrowed" "bob, through a symlink in his folder"; }
a_tenant_dotdot() { tenant_path bob "$S/bob/../alice/private/tally" "bob, by .. out of his folder"; }
a_tenant_nogrant() { tenant_path carol "$S/alice/private/tally" "carol, a key with no grant"; }
a_tenant_widegrant() { GRANT="carol=$S" tenant_path carol "$S/alice/private/tally" "carol, granted the whole shared folder (0600 files)"; GRANT=; }
a_tenant_workspace() { # bob's job on the same node writes and reads alice's workspaces
    start_coord "$ID"; start_node n1 --sandbox none; wait_n 1
    red a1
    local W="$T/w.$CN.n1" AK; AK=$(find "$W/ws" -path '*/src/tally.c' | head -n 1 | sed "s:^\($W/ws/[^/]*\)/.*:\1:")
    [ -d "$AK" ] || { say "NOT RUN" "no workspace of alice found under $W/ws"; return; }
    local before; before=$(tree_digest "$AK")
    local cmd='make -s; : > tried;' f
    for f in $(find "$AK" -path '*/src/tally.c'); do cmd="$cmd { echo '#error pwned' >> '$f' && echo WROTE; } >> tried 2>&1;"; done
    cmd="$cmd { cat '$(find "$AK" -path '*/src/tally.c' | head -n 1)' > '$DROP/$ID.stolen' && echo READ; } >> tried 2>&1; cp tried '$DROP/$ID.tried'; true"
    TALLY_SAVE=("${TALLY[@]}"); TALLY=(--file tests/test_tally.c --test test_total --framework plain --build "make -s" --setup "$cmd")
    # --no-verify-local: bob's client would otherwise check the lone node's
    # answer here, on the node's own machine, as root (not the node's doing)
    WHITTLE_SECRET_KEY="$K/clients/bob.secret" PROJ="$S/bob/tally" red b1 --no-verify-local
    TALLY=("${TALLY_SAVE[@]}")
    local tried; tried=$(cat "$DROP/$ID.tried" 2>/dev/null)
    if grep -q "WROTE\|READ" <<< "$tried" || [ "$(tree_digest "$AK")" != "$before" ]; then say WRONG "bob's job reached alice's workspace: $(grep -c WROTE <<< "$tried") write(s), $(grep -c READ <<< "$tried") read(s)"
    elif [ -n "$tried" ]; then say HELD "every write and read refused ($(grep -c 'Permission denied' <<< "$tried") Permission denied); alice's folder byte for byte"
    else say "NOT RUN" "bob's setup left no log (exit $RC)"; fi
}
a_job_env() {
    start_coord "$ID"; start_node n1 --sandbox none; wait_n 1
    TALLY_SAVE=("${TALLY[@]}"); TALLY=(--file tests/test_tally.c --test test_total --framework plain --build "make -s"
        --setup "make -s && env > '$DROP/$ID.env'")
    # --no-verify-local: the attack is on the node; the client's own check of
    # the lone node's answer would run the set-up on this same machine
    red out --no-verify-local; TALLY=("${TALLY_SAVE[@]}")
    [ -s "$DROP/$ID.env" ] || { say "NOT RUN" "no env dump (exit $RC)"; return; }
    local leak; leak=$(grep -E "^WHITTLE_(REDIS|CACHE|SECRET|SERVER)|$RPASS" "$DROP/$ID.env" | cut -d= -f1 | tr '\n' ' ')
    [ -z "$leak" ] && say HELD "the job's environment holds none of the node's secrets ($(wc -l < "$DROP/$ID.env") variables)" \
        || say WEAK "the job's environment holds: $leak"
}
a_kube() {
    if [ -z "${ATTACK_KUBE:-}" ]; then say "NOT RUN" "set ATTACK_KUBE=1 (plays containers/k8s with podman via tests/e2e/container_kube.sh)"; return; fi
    bash "$SRC/tests/e2e/container_kube.sh" > "$T/$ID.out" 2>&1; local rc=$?
    local hostile; hostile=$(grep -iE "hostile|node key|evil" "$T/$ID.out" | grep -E "^(ok|FAIL)" | tr '\n' ' ' | cut -c1-150)
    case $rc in 0) say HELD "container_kube.sh passed: $hostile" ;;
        77) say "NOT RUN" "container_kube.sh skipped: $(tail -n 1 "$T/$ID.out")" ;;
        *) grep -qiE "^FAIL.*(hostile|node key|workspace)" "$T/$ID.out" && say WRONG "$hostile" || say WEAK "container_kube.sh failed elsewhere: $(grep -m1 FAIL "$T/$ID.out" | cut -c1-120)" ;; esac
}

echo "whittle attack list (issue 34), build $BUILD, $(git -C "$SRC" log --oneline -1 | cut -c1-80)"
echo "reference (embedded): $(json "$REF/summary.json" .statements_before) -> $REF_AFTER statements"
[ ${#GRANTS[@]} -gt 0 ] || echo "note: this coordinator has no --grant: it takes any path from any client key"
attack 1 liar-preserved-first a_liar_pres_first
attack 2 liar-preserved-second a_liar_pres_second
attack 3 liar-buildfailed-beside a_liar_bf
attack 4 liar-testpassed-beside a_liar_tp
attack 5 liar-3-slots-vs-1-honest a_liar_majority
attack 6 two-liars-beside-honest a_liar_two
attack 7 liar-rejoins-mid-job a_liar_rejoin
attack 8 cached-lies-then-honest a_cached_lies
attack 9 cached-lies-liar-back a_cached_lies_back
attack 10 lone-liar-preserved a_lone_pres
attack 11 lone-liar-buildfailed a_lone_bf
attack 12 lone-liar-testpassed a_lone_tp
attack 13 forged-bf-no-mac a_forge_bf
attack 14 forged-bf-foreign-mac a_forge_bf_mac
attack 15 forged-preserved a_forge_pres
attack 16 mac-valid-values-swapped a_swap
attack 17 replay-after-cache-forget a_forget_replay
attack 18 flushall-mid-run a_flushall
attack 19 kill-9-redis-mid-run a_kill_redis
attack 20 redis-wrong-password a_redis_wrongpw
attack 21 redis-without-secret a_no_secret
attack 22 redis-short-secret a_short_secret
attack 23 journal-record-forged a_journal_forged
attack 24 journal-older-record-replayed a_journal_replay
attack 25 client-key-as-node a_client_as_node
attack 26 node-key-as-client a_node_as_client
attack 27 unlisted-node-key a_rogue_node
attack 28 unlisted-client-key a_rogue_client
attack 29 wrong-server-key a_wrong_server_key
attack 30 node-key-sends-submit a_node_submit
attack 31 client-key-sends-hello a_client_hello
attack 32 claim-live-routing-id a_claim_rid
attack 33 insecure-client-vs-curve a_insecure_client
attack 34 job-reads-node-keys a_job_reads_key
attack 35 tcp-garbage a_tcp_garbage
attack 36 garbage-frame-node-key a_garbage_node
attack 37 garbage-frame-client-key a_garbage_client
attack 38 huge-frame-17mb a_huge_frame
attack 39 1001-part-message a_many_parts
attack 40 metrics-garbage-http a_metrics_garbage
attack 41 metrics-1100-connections a_metrics_flood
attack 42 metrics-slow-loris a_slowloris
attack 43 wire-limit-run-setup a_wire_limit
attack 44 kill-9-coordinator-mid-job a_kill_coord
attack 45 kill-9-node-mid-job a_kill_node
attack 46 sigstop-node-mid-job a_sigstop_job
attack 47 sigstop-node-blames-keys a_sigstop_blame
attack 48 full-disk-one-node a_full_disk
attack 49 per-client-limit a_client_limit
attack 50 cancel-other-keys-job a_foreign_cancel
attack 51 tenant-names-other-path a_tenant_path
attack 52 tenant-symlink a_tenant_symlink
attack 53 tenant-dotdot a_tenant_dotdot
attack 54 tenant-no-grant a_tenant_nogrant
attack 55 tenant-too-wide-grant-0600 a_tenant_widegrant
attack 56 tenant-other-workspace a_tenant_workspace
attack 57 job-env-node-secrets a_job_env
attack 58 kube-no-sandbox a_kube
echo "held $COUNT_HELD / weak $COUNT_WEAK / wrong $COUNT_WRONG / not run $COUNT_NOTRUN"
[ "$COUNT_WRONG" = 0 ]
