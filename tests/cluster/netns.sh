#!/bin/bash
# Multi-host cluster test on network namespaces (issue 3, "What must be
# shown" 3). Run as root; exits 77 (ctest SKIP_RETURN_CODE) when namespaces
# cannot be made.
#
# Topology (all names carry this run's pid, so parallel runs never collide;
# nothing is created in the root namespace):
#
#   wh-br-PID   Linux bridge br0, one veth port per host (v-coord, v-redis, …)
#   wh-coord-PID  10.77.X.1   whittle-coordinator --bind tcp://10.77.X.1:7700
#   wh-redis-PID  10.77.X.2   redis-server --bind 10.77.X.2 --port 6390 --requirepass (random)
#   wh-node1-PID  10.77.X.11  whittle-node --slots 2 --id node1
#   wh-node2-PID  10.77.X.12  whittle-node --slots 2 --id node2
#   wh-cli-PID    10.77.X.20  the client: whittle reduce/status --cluster …
#   Every peer authenticates with CURVE keys (whittle keygen); the coordinator
#   gets the Redis password from WHITTLE_REDIS_PASSWORD.
#
# No shared project: the client's projects are git clones under T/client,
# their remote is served by `git daemon` in the client's namespace, and the
# coordinator and the nodes run in mount namespaces of their own where
# T/client and the git server's folder T/srv are hidden under empty tmpfs
# mounts; jobs go with --snapshot git and every "host" fetches
# git://CLIENT/…. (Run folders, the cache and the build-log shims stay on the
# shared filesystem.) The cart fixture is reduced through the cluster; once
# candidates.csv has >= 8 rows and a node1 slot is busy, node1 is SIGKILLed.
# Checks:
#  - same reduced.c and candidates.csv columns 1-6 as an embedded reference
#    run (--jobs 1 --cache memory:);
#  - no candidate lost: rows 1..N, each with a verdict, none InfraError;
#  - no candidate judged twice by a live node (see "judged twice" below);
#  - node1's death is in the coordinator log ("missed 3 heartbeats");
#  - node1, restarted, shows up in `whittle status` with its 2 slots, and,
#    with node2 stopped, judges a new job (headers fixture).
#
# "Judged twice": whittle itself records only the verdict it accepted per
# candidate (run.log/CSV: one row, one node) and, in `whittle status`,
# aggregate counters (dispatched, requeued, dead slots); neither the
# coordinator nor the node logs individual dispatches. So the nodes run with
# transparent cmake wrappers on PATH (shim.sh) that log every candidate build
# (time, node, slot workspace, hash of the test file). A start counts as a
# judgement unless (a) it is the original file (setup/baseline), (b) it has no
# end line on a live node (the build was killed by a cancellation), or (c) it
# is the last build a slot of the killed node1 started before the kill (in
# flight when the node died). Each candidate content may have at most one
# judgement; and the (c)-starts whose content was built again elsewhere must
# be no more than the coordinator's `requeued` counter (each re-run must be a
# requeue of a dead node's candidate). Whittle-side, dispatched - 1 (baseline)
# - requeued must lie in [evaluated, evaluated + cancelled].
set -u
WH_SOURCE_DIR=${WH_SOURCE_DIR:?set by ctest}
WH_BINARY_DIR=${WH_BINARY_DIR:?set by ctest}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/shim.sh"
WHITTLE="$WH_BINARY_DIR/coordinator/whittle"
COORD="$WH_BINARY_DIR/coordinator/whittle-coordinator"
NODE="$WH_BINARY_DIR/node/whittle-node"
FIX="$WH_SOURCE_DIR/tests/fixtures"

skip() { echo "skipped: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root"
for tool in ip redis-server redis-cli cmake ninja jq make timeout git unshare nsenter; do
    command -v "$tool" >/dev/null || skip "$tool not installed"
done

S=$$
NET="10.77.$(( S % 250 + 1 ))"
NS_BR=wh-br-$S NS_CO=wh-coord-$S NS_RE=wh-redis-$S NS_N1=wh-node1-$S NS_N2=wh-node2-$S NS_CL=wh-cli-$S
IP_CO=$NET.1 IP_RE=$NET.2 IP_N1=$NET.11 IP_N2=$NET.12 IP_CL=$NET.20
EP="tcp://$IP_CO:7700"
T=$(mktemp -d /tmp/whittle-netns.XXXXXX)
# a redis:// cache needs the cluster secret (wh_mac.h)
head -c 32 /dev/urandom | base64 > "$T/cache.secret"; export WHITTLE_CACHE_SECRET_FILE="$T/cache.secret"
chmod 755 "$T" # the nodes (root) run job commands as nobody
export WHITTLE_CACHE_DIR="$T/cache"
CREATED_NS=()
PIDS=()
FAILS=0

cleanup() {
    local rc=$? p ns
    trap - EXIT INT TERM
    # `timeout` leads its own process group: kill the group, so that a run
    # in the root namespace (reference, client) dies with its children
    for p in "${PIDS[@]}"; do kill -9 -- "-$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
    # anything still running inside our namespaces was started by this test
    # (builds orphaned by the killed node, …)
    for ns in "${CREATED_NS[@]}"; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    for ns in "${CREATED_NS[@]}"; do
        ip netns del "$ns" 2>/dev/null || { sleep 0.5; ip netns del "$ns" 2>/dev/null; } \
            || echo "warning: could not delete namespace $ns" >&2
    done
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -z "${WH_KEEP:-}" ]; then
        for f in coord.log node1a.log node1b.log node2.log client.out; do
            [ -f "$T/$f" ] && { echo "---- $f (tail)" >&2; tail -n 25 "$T/$f" >&2; }
        done
    fi
    if [ -n "${WH_KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok   $*" >&2; }
die() { echo "FAIL: $*" >&2; exit 1; }
check_eq() { if [ "$2" = "$3" ]; then pass "$1 = $3"; else fail "$1: got '$2', want '$3'"; fi; }
now_ns() { date +%s%N; }
run_dir() { ls -d "$1"/*/ 2>/dev/null | head -n1 | sed 's:/$::'; }
# Runs a command in the background and waits for it, so that a signal to
# this script runs the cleanup at once (bash delays traps until a foreground
# command ends).
bg_wait() { "$@" & local p=$!; PIDS+=("$p"); wait "$p"; }
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
status() { in_ns "$NS_CL" timeout 10 "$WHITTLE" status --cluster "$EP" 2>/dev/null; }
wait_for() { # seconds description command...
    local secs=$1 what=$2; shift 2
    local end=$(( $(date +%s) + secs ))
    until "$@"; do
        [ "$(date +%s)" -lt "$end" ] || { fail "timed out after ${secs}s waiting for $what"; return 1; }
        sleep 0.2
    done
    pass "$what"
}

# ---- topology ----
# Namespaces left by an earlier run of this test that was SIGKILLed (no trap
# then): their owner pid is gone. Empty and delete them.
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^wh-(br|coord|redis|node1|node2|cli)-[0-9]+$'); do
    kill -0 "${ns##*-}" 2>/dev/null && continue
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null && echo "removed stale namespace $ns" >&2
done
if ! ip netns add "$NS_BR" 2>"$T/netns.err"; then
    skip "ip netns add not permitted: $(cat "$T/netns.err")"
fi
CREATED_NS+=("$NS_BR")
ip -n "$NS_BR" link set lo up
ip -n "$NS_BR" link add br0 type bridge || skip "no bridge support"
ip -n "$NS_BR" link set br0 up
host() { # ns port-name address
    ip netns add "$1" || die "ip netns add $1"
    CREATED_NS+=("$1")
    ip -n "$NS_BR" link add "$2" type veth peer name eth0 netns "$1" || die "veth for $1"
    ip -n "$NS_BR" link set "$2" master br0 up
    ip -n "$1" link set lo up
    ip -n "$1" addr add "$3/24" dev eth0
    ip -n "$1" link set eth0 up
}
host "$NS_CO" v-coord "$IP_CO"
host "$NS_RE" v-redis "$IP_RE"
host "$NS_N1" v-node1 "$IP_N1"
host "$NS_N2" v-node2 "$IP_N2"
host "$NS_CL" v-cli "$IP_CL"
pass "namespaces ${CREATED_NS[*]} on $NET.0/24"

# ---- the fixture and the reference run (embedded, one slot, no cache) ----
wh_write_shims "$T/shim"
g() { git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main "$@"; }
mkdir -p "$T/srv" "$T/client"
publish() { # fixture name: a clone under T/client pushed to T/srv/NAME.git
    g init -q --bare "$T/srv/$2.git" && g clone -q "$T/srv/$2.git" "$T/client/$2" 2>/dev/null \
        && cp -r "$FIX/$1/." "$T/client/$2/" \
        && (cd "$T/client/$2" && g add -A && g commit -qm "$2" && g push -q origin main 2>/dev/null) \
        && git -C "$T/client/$2" remote set-url origin "git://$IP_CL/$2.git" || die "publish $2"
}
publish cart cart
publish headers headers
ip netns exec "$NS_CL" git daemon --reuseaddr --listen="$IP_CL" --base-path="$T/srv" --export-all "$T/srv" \
    > "$T/gitd.log" 2>&1 &
PIDS+=($!)
# what the coordinator and the nodes run under: the projects are not there
HIDE="mount -t tmpfs none '$T/client' && mount -t tmpfs none '$T/srv' && exec \"\$@\""
P="$T/client/cart"
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --run "build/test_cart" --framework cmocka)
export WH_SHIM_FILE=tests/test_cart.c
# The shim tells slots apart by their folders: no stable mount path here.
export WHITTLE_NO_MOUNTNS=1
ORIG_HASH=$(sha256sum < "$P/tests/test_cart.c" | cut -c1-16)
PATH="$T/shim:$PATH" WH_EVAL_LOG="$T/ref-evals.log" WH_NODE_TAG=ref \
    bg_wait timeout 300 "$WHITTLE" reduce "${args[@]}" --jobs 1 --cache memory: --out "$T/ref" \
    > "$T/ref.out" 2>&1 || { cat "$T/ref.out" >&2; die "reference run failed"; }
REF=$(run_dir "$T/ref")
pass "reference run: $(jq -r '"\(.statements_before) -> \(.statements_after) statements, \(.candidates) candidates, \(.evaluated) evaluated"' "$REF/summary.json")"

# ---- the cluster: CURVE keys for every peer, Redis with a password ----
KEYS="$T/keys"; mkdir -p "$KEYS/nodes" "$KEYS/clients"
for k in coord nodes/node1 nodes/node2 clients/cli; do "$WHITTLE" keygen --out "$KEYS/$k" > /dev/null || die "keygen $k"; done
export WHITTLE_SECRET_KEY="$KEYS/clients/cli.secret" WHITTLE_SERVER_KEY="$KEYS/coord.public"
RPASS="netns-$RANDOM$RANDOM"
ip netns exec "$NS_RE" redis-server --bind "$IP_RE" --port 6390 --save '' --appendonly no --requirepass "$RPASS" --dir "$T" \
    > "$T/redis.log" 2>&1 &
PIDS+=($!)
wait_for 20 "redis answers across the bridge" \
    sh -c "ip netns exec $NS_CL redis-cli --no-auth-warning -a $RPASS -h $IP_RE -p 6390 ping 2>/dev/null | grep -q PONG" || exit 1
WHITTLE_REDIS_PASSWORD="$RPASS" ip netns exec "$NS_CO" unshare -m sh -c "$HIDE" sh "$COORD" --runs "$T" --bind "$EP" --cache "redis://$IP_RE:6390/0" -v \
    --secret-key "$KEYS/coord.secret" --nodes "$KEYS/nodes" --clients "$KEYS/clients" > "$T/coord.log" 2>&1 &
COORD_PID=$!; PIDS+=("$COORD_PID")
: > "$T/evals.log"; chmod 666 "$T/evals.log" # the shims of the nodes' builds append as nobody
# --sandbox none: the shims (on PATH from $T) log every judgement into
# $T/evals.log, host files a sandbox would hide from the build; --pass-env
# gives the jobs the variables the shims read (a node's jobs see an
# allow-listed environment).
start_node() { # n tag [env…]
    local n=$1 tag=$2; shift 2
    ip netns exec "wh-node$n-$S" unshare -m sh -c "$HIDE" sh env PATH="$T/shim:$PATH" WH_EVAL_LOG="$T/evals.log" WH_NODE_TAG="$tag" "$@" \
        "$NODE" --connect "$EP" --slots 2 --workdir "$T/node$n" --id "node$n" -v --sandbox none \
        --pass-env WH_EVAL_LOG --pass-env WH_NODE_TAG --pass-env WH_SHIM_FILE --pass-env WH_SHIM_DELAY --secret-key "$KEYS/nodes/node$n.secret" --server-key "$KEYS/coord.public" \
        > "$T/$tag.log" 2>&1 &
    PIDS+=($!)
    LAST_PID=$!
}
# node1's builds wait 1 s first, so that one of its slots is surely busy
# when it is killed; the wait changes no verdict.
start_node 1 node1a WH_SHIM_DELAY=1; N1_PID=$LAST_PID
start_node 2 node2; N2_PID=$LAST_PID
wait_for 30 "4 slots joined (2 per node)" sh -c "[ \$(ip netns exec $NS_CL '$WHITTLE' status --cluster $EP 2>/dev/null | grep -c '^  slot node[12]/') -eq 4 ]" \
    || exit 1
[ "$(cat /proc/$N1_PID/comm 2>/dev/null)" = whittle-node ] || die "pid $N1_PID is not node1's whittle-node"

for pid in "$COORD_PID" "$N1_PID" "$N2_PID"; do
    nsenter -t "$pid" -m test ! -e "$P/CMakeLists.txt" && nsenter -t "$pid" -m test ! -e "$T/srv/cart.git" \
        && pass "$(cat /proc/$pid/comm) (pid $pid) cannot see the project or the git server's folder" \
        || fail "pid $pid sees the project"
done
ip netns exec "$NS_CL" timeout 300 "$WHITTLE" reduce --cluster "$EP" --snapshot git "${args[@]}" --out "cl" \
    > "$T/client.out" 2>&1 &
CLIENT=$!; PIDS+=("$CLIENT")

# ---- kill node1 mid-run ----
K=
end=$(( $(date +%s) + 240 ))
while kill -0 "$CLIENT" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
    R=$(run_dir "$T/cl")
    rows=0
    [ -n "$R" ] && [ -f "$R/candidates.csv" ] && rows=$(( $(wc -l < "$R/candidates.csv") - 1 ))
    if [ "$rows" -ge 8 ]; then
        st=$(status)
        if echo "$st" | grep -Eq '^  slot node1/[0-9]+ +busy'; then
            echo "$st" > "$T/status-before-kill.txt"
            K=$(now_ns)
            kill -9 "$N1_PID"
            pass "node1 SIGKILLed with $rows rows in candidates.csv and $(echo "$st" | grep -Ec '^  slot node1/.* busy') node1 slot(s) busy"
            break
        fi
    fi
    sleep 0.1
done
[ -n "$K" ] || die "the run ended (or stalled) before node1 could be killed mid-run"
wait "$CLIENT"; crc=$?
check_eq "cluster run exit status" "$crc" 0
R=$(run_dir "$T/cl")
[ -n "$R" ] && [ -f "$R/summary.json" ] || die "cluster run left no summary.json"
status > "$T/status-after.txt"
cat "$T/status-after.txt" >&2

# ---- same answer as the reference ----
cmp -s "$REF/reduced.c" "$R/reduced.c" && pass "same reduced.c as the reference" \
    || { diff "$REF/reduced.c" "$R/reduced.c" >&2; fail "reduced.c differs from the reference"; }
if diff <(cut -d, -f1-6 "$REF/candidates.csv") <(cut -d, -f1-6 "$R/candidates.csv") > "$T/seq.diff"; then
    pass "same candidate/verdict sequence as the reference (candidates.csv columns 1-6, $(( $(wc -l < "$R/candidates.csv") - 1 )) rows)"
else
    cat "$T/seq.diff" >&2; fail "candidate/verdict sequence differs from the reference"
fi
check_eq "statements_after" "$(jq -r .statements_after "$R/summary.json")" "$(jq -r .statements_after "$REF/summary.json")"

# ---- no candidate lost ----
N=$(jq -r .candidates "$R/summary.json")
check_eq "csv rows = summary.candidates" "$(( $(wc -l < "$R/candidates.csv") - 1 ))" "$N"
[ "$(tail -n +2 "$R/candidates.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq 1 "$N" | tr '\n' ' ')" ] \
    && pass "candidate ids are 1..$N in order" || fail "candidate ids are not 1..$N in order"
bad=$(tail -n +2 "$R/candidates.csv" | cut -d, -f6 | grep -Evc '^(Preserved|TestPassed|DifferentFailure|BuildFailed|TestMissing)$')
check_eq "candidates without a verdict or with InfraError" "$bad" 0
check_eq "summary InfraError" "$(jq -r .verdicts.InfraError "$R/summary.json")" 0
nodes_used=$(tail -n +2 "$R/candidates.csv" | awk -F, '$7==0 && $14==0 {split($8,a,"/"); print a[1]}' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
pass "verdicts by node: $nodes_used"
tail -n +2 "$R/candidates.csv" | awk -F, '$7==0 && $14==0 && $8 !~ /^node[12]\// {bad++} END {exit bad>0}' \
    && pass "every evaluated row names a node1/node2 slot" || fail "an evaluated row names no cluster slot"
dups=$(tail -n +2 "$R/candidates.csv" | awk -F, '$7==0 && $14==0 {print $10}' | sort | uniq -d | wc -l)
check_eq "evaluated rows sharing one evaluation (report)" "$dups" 0

# ---- node1's death in the coordinator log ----
n_dead=$(grep -c 'node slot node1/.*missed 3 heartbeats' "$T/coord.log")
check_eq "node1 slots declared dead in the coordinator log (missed 3 heartbeats)" "$n_dead" 2
check_eq "node2 slots declared dead" "$(grep -c 'node slot node2/.*missed 3 heartbeats' "$T/coord.log")" 0

# ---- judged twice? ----
counter() { sed -n "s/.*  $1: \([0-9]*\).*/\1/p" "$T/status-after.txt" | head -n1; }
dispatched=$(counter dispatched); requeued=$(counter requeued); dead=$(counter 'dead slots')
evaluated=$(jq -r .evaluated "$R/summary.json"); cancelled=$(jq -r .cancelled "$R/summary.json")
# Claims checked early (beside a chain expected to end the walk, on idle
# slots) and dropped when the walk ended elsewhere: their runs may have been
# on node1 and cancelled (not requeued), and are dispatches and builds no
# other figure counts.
early_dropped=$(jq -r '.claims.early_dropped // 0' "$R/summary.json")
# Speculations (judged ahead of their chain) still on a slot when the walk
# ended: cancelled there, dispatched and built, and counted by no other
# figure (the CI run of 8d7d735 had one: 15 first dispatches for 12
# evaluated and 2 early claims dropped).
spec_dropped=$(jq -r '.speculation_dropped // 0' "$R/summary.json")
check_eq "coordinator: dead slots" "$dead" 2
if [ -n "$requeued" ] && [ "$requeued" -ge $(( early_dropped > 0 ? 0 : 1 )) ] && [ "$requeued" -le 2 ]; then
    pass "coordinator requeued $requeued candidate(s) of the dead node"
else
    fail "coordinator requeued '$requeued' candidates, want 1..2 (node1 was busy when killed)"
fi
# The verify step builds the reduced test once more, afresh (its content
# is judged again on purpose: verify_runs times).
verify_runs=$(jq -r .verify_runs "$R/summary.json")
# When node1 died before any of its verdicts counted, node2 judged every
# candidate and ran the verify run too: no second opinion, so the
# coordinator's record says not verified, and the client (it has the
# project) checks the answer itself: "Verified locally" and exit 0.
if [ "$(jq -r .verified "$R/summary.json")" = false ] && [ -z "$(echo "$nodes_used" | grep node1)" ]; then
    check_eq "not verified by node2 alone (the only node that judged), verify runs" \
        "$(jq -r '.not_verified != null' "$R/summary.json") $verify_runs" "true 1"
    grep -q "^Verified locally: " "$T/client.out" && pass "the client verified the answer locally" \
        || fail "node2 alone judged, and the client did not verify locally: $(tail -n 3 "$T/client.out")"
else
    check_eq "verified afresh" "$(jq -r .verified "$R/summary.json") $verify_runs" "true 1"
fi
VERIFY_HASH=$(sha256sum < "$R/reduced.lines.c" | cut -c1-16)
# The claims check's runs are dispatches too (judged.csv kind "claim").
claim_runs=$(awk -F, 'NR > 1 && $2 == "claim"' "$R/judged.csv" | wc -l)
first=$(( dispatched - 1 - requeued - verify_runs - claim_runs ))
if [ "$first" -ge "$evaluated" ] && [ "$first" -le $(( evaluated + cancelled + early_dropped + spec_dropped )) ]; then
    pass "dispatches: $dispatched = 1 baseline + $requeued requeued + $verify_runs verify + $claim_runs claims + $first first dispatches (evaluated $evaluated, cancelled $cancelled, early claims dropped $early_dropped, speculations cancelled on a slot $spec_dropped)"
else
    fail "dispatches: $dispatched - 1 - $requeued - $verify_runs - $claim_runs = $first, want in [$evaluated, $((evaluated + cancelled + early_dropped + spec_dropped))]"
fi
# node1a is dead after K, so its last build on each slot is the one in
# flight at the kill, even when its S line came after K: a build forked just
# before the SIGKILL starts (and logs) a moment later, and its process group
# outlives the node. (Reading S < K there counted such a build as judged and
# its requeued rebuild elsewhere as a second judgement.)
# The build log: see the header. Prints "judged HASH N" for every content
# with more than one judgement, "requeue-rerun HASH" for every in-flight
# build of the dead node rebuilt elsewhere, "judged-total N" and
# "inflight N".
awk -v K="$K" -v O="$ORIG_HASH" -v V="$VERIFY_HASH" -v VR="$verify_runs" '
    $1 == "S" { n++; st[n] = $2; tag[n] = $3; dir[n] = $4; h[n] = $5; key = $3 " " $4
                last[key] = n; if ($3 == "node1a") lastk[key] = n }
    $1 == "E" { key = $3 " " $4; i = last[key]; if (i && h[i] == $5) { ended[i] = 1; et[i] = $2 } }
    END {
        for (k in lastk) { inflight[lastk[k]] = 1; nin++ }
        for (i = 1; i <= n; i++) {
            if (h[i] == O) continue
            if (inflight[i]) {
                # ended before the kill: its verdict got through, whatever
                # built the same content later (a claim check judges the
                # content of a step again on purpose)
                if (ended[i] && et[i] < K) { judged[h[i]]++; total++; continue }
                rerun = 0
                for (j = 1; j <= n; j++)
                    if (j != i && h[j] == h[i] && st[j] > st[i]) rerun = 1
                if (rerun) print "requeue-rerun", h[i]
                continue
            }
            if (!ended[i]) continue
            judged[h[i]]++; total++
        }
        # the verify runs judge the reduced test again, on purpose
        if (judged[V] >= VR) { judged[V] -= VR; total -= VR }
        for (x in judged) if (judged[x] > 1) print "judged", x, judged[x]
        print "judged-total", total + 0
        print "inflight", nin + 0
    }' "$T/evals.log" > "$T/judged.txt"
twice=$(grep -c '^judged ' "$T/judged.txt")
reruns=$(grep -c '^requeue-rerun ' "$T/judged.txt")
inflight=$(sed -n 's/^inflight //p' "$T/judged.txt")
jtotal=$(sed -n 's/^judged-total //p' "$T/judged.txt")
# The claims check (reduce_claims.c) judges again, on purpose, each kept
# statement's removal a node judged not Preserved: at most one judgement
# more per content, and no more of them than it checked.
claims=$((claim_runs + early_dropped)) # its runs, retries after an infrastructure fault and dropped early checks included
again=$(awk '$1 == "judged" { a += $3 - 1; if ($3 > 2) over++ } END { print a + 0, over + 0 }' "$T/judged.txt")
if [ "${again#* }" = 0 ] && [ "${again% *}" -le "$claims" ]; then
    pass "candidate contents judged twice by a live node: $twice (the claims check judged $claims again)"
else
    fail "contents judged again: ${again% *} (${again#* } more than twice), the claims check judged $claims"
    grep '^judged ' "$T/judged.txt" >&2; cat "$T/evals.log" >&2
fi
jtotal=$((jtotal - claim_runs)) # dropped early checks: up to early_dropped more
if [ "$reruns" -le "${requeued:-0}" ]; then
    pass "node1 slots: $inflight last build(s) before the kill, $reruns rebuilt elsewhere (<= $requeued requeued)"
else
    fail "$reruns in-flight contents of node1 rebuilt elsewhere, but the coordinator requeued only $requeued"
fi
if [ "$jtotal" -ge "$evaluated" ] && [ "$jtotal" -le $(( evaluated + cancelled + early_dropped + spec_dropped )) ]; then
    pass "build log: $jtotal judgements besides the claims check's, in [$evaluated evaluated, + $cancelled cancelled + $early_dropped early claims dropped + $spec_dropped speculations cancelled]"
else
    fail "build log: $jtotal judgements, want in [$evaluated evaluated, + $cancelled cancelled + $early_dropped early claims dropped + $spec_dropped speculations cancelled]"
    cat "$T/judged.txt" >&2
fi
# every content the sequential reference built was judged in the cluster
missing=$(awk '$1 == "S" {print $5}' "$T/ref-evals.log" | sort -u | grep -v "^$ORIG_HASH$" \
    | while read -r x; do grep -q " $x$" "$T/evals.log" || echo "$x"; done | wc -l)
check_eq "reference-built contents never built in the cluster" "$missing" 0

# ---- node1 comes back and is used again ----
start_node 1 node1b; N1_PID=$LAST_PID
wait_for 30 "restarted node1 shows its 2 slots in whittle status" \
    sh -c "[ \$(ip netns exec $NS_CL '$WHITTLE' status --cluster $EP 2>/dev/null | grep -c '^  slot node1/') -eq 2 ]"
status >&2
# stop node2 politely (it says BYE), so that a new job can only run on node1
kill -TERM "$N2_PID"
wait "$N2_PID" 2>/dev/null
wait_for 15 "only node1's slots left" \
    sh -c "ip netns exec $NS_CL '$WHITTLE' status --cluster $EP 2>/dev/null | grep -q 'nodes: 1  slots: 2 '"
H="$T/client/headers"
bg_wait ip netns exec "$NS_CL" timeout 300 "$WHITTLE" reduce --cluster "$EP" --snapshot git --project "$H" --file tests/test_request.c \
    --test test_should_read_headers --setup "make -s" --build "make -s" --run "./test_request" \
    --framework cmocka --out "h" > "$T/headers.out" 2>&1 || { cat "$T/headers.out" >&2; fail "headers run on the restarted node1"; }
RH=$(run_dir "$T/h")
if [ -n "$RH" ] && [ -f "$RH/summary.json" ]; then
    check_eq "headers statements_after (on restarted node1)" "$(jq -r .statements_after "$RH/summary.json")" 2
    n1=$(tail -n +2 "$RH/candidates.csv" | awk -F, '$7==0 && $14==0 && $8 ~ /^node1\// {n++} END {print n+0}')
    ev=$(tail -n +2 "$RH/candidates.csv" | awk -F, '$7==0 && $14==0 {n++} END {print n+0}')
    [ "$ev" -ge 1 ] && [ "$n1" -eq "$ev" ] && pass "restarted node1 judged all $ev evaluated candidates of a new job" \
        || fail "restarted node1 judged $n1 of $ev evaluated candidates"
fi

if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed" >&2; exit 1; fi
echo "all checks passed" >&2
exit 0
