#!/bin/bash
# Redis outage mid-run (issue 3, point 4). A real redis-server on a private
# loopback port serves as the verdict cache of an embedded run of the
# headers fixture (--jobs 2); once Redis holds the fingerprint and at least
# one verdict, it is SIGKILLed. The run must go on, warn once ("redis at …
# unavailable (…); using the embedded cache"), and give the same answer
# (reduced.c, candidates.csv columns 1-6) as a run without Redis.
# The embedded fallback lives in $T/cache (WHITTLE_CACHE_DIR), private to
# this test. Builds go through transparent make wrappers (shim.sh) that wait
# 0.5 s, in both runs, so that the run is surely still going when Redis dies.
set -u
WH_SOURCE_DIR=${WH_SOURCE_DIR:?set by ctest}
WH_BINARY_DIR=${WH_BINARY_DIR:?set by ctest}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/shim.sh"
WHITTLE="$WH_BINARY_DIR/coordinator/whittle"
FIX="$WH_SOURCE_DIR/tests/fixtures"
for tool in redis-server redis-cli make jq timeout; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool not installed" >&2; exit 77; }
done
T=$(mktemp -d /tmp/whittle-redis.XXXXXX)
# a redis:// cache needs the cluster secret (wh_mac.h)
head -c 32 /dev/urandom | base64 > "$T/cache.secret"; export WHITTLE_CACHE_SECRET_FILE="$T/cache.secret"
export WHITTLE_CACHE_DIR="$T/cache"
PIDS=()
FAILS=0
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    # `timeout` leads its own process group: kill the group (the run and
    # its builds), then the process itself
    for p in "${PIDS[@]}"; do kill -9 -- "-$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    if [ "$rc" -ne 0 ] && [ -f "$T/run.out" ]; then echo "---- run.out (tail)" >&2; tail -n 20 "$T/run.out" >&2; fi
    if [ -n "${WH_KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok   $*" >&2; }
die() { echo "FAIL: $*" >&2; exit 1; }
check_eq() { if [ "$2" = "$3" ]; then pass "$1 = $3"; else fail "$1: got '$2', want '$3'"; fi; }
bg_wait() { "$@" & local p=$!; PIDS+=("$p"); wait "$p"; }
run_dir() { ls -d "$1"/*/ 2>/dev/null | head -n1 | sed 's:/$::'; }

wh_write_shims "$T/shim"
export PATH="$T/shim:$PATH" WH_SHIM_FILE=tests/test_request.c WH_SHIM_DELAY=0.5
P="$T/headers"; cp -r "$FIX/headers" "$P"
# --ddmin classic: its 12 candidates give time to kill Redis mid-run (the
# default walk needs 3 here).
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka --jobs 2
      --ddmin classic)

# ---- reference: no Redis ----
WH_EVAL_LOG="$T/ref-evals.log" bg_wait timeout 300 "$WHITTLE" reduce "${args[@]}" --cache memory: --out "$T/ref" \
    > "$T/ref.out" 2>&1 || { cat "$T/ref.out" >&2; die "reference run failed"; }
REF=$(run_dir "$T/ref")
pass "reference run: $(jq -r '"\(.statements_after) statements left, \(.candidates) candidates"' "$REF/summary.json")"

# ---- a private redis-server on loopback ----
PORT=
for _ in 1 2 3 4 5; do
    port=$(( 20000 + (RANDOM * 7 + $$) % 30000 ))
    redis-cli -p "$port" ping >/dev/null 2>&1 && continue   # taken
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$T" \
        > "$T/redis.log" 2>&1 &
    rpid=$!
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
        redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
        kill -0 "$rpid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$rpid" 2>/dev/null && redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
        PIDS+=("$rpid"); PORT=$port; break
    fi
    kill -9 "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null
done
[ -n "$PORT" ] || die "could not start redis-server on a free loopback port"
pass "redis-server (pid $rpid) on 127.0.0.1:$PORT"
URL="redis://127.0.0.1:$PORT/0"

# ---- the run, with Redis killed mid-way ----
WH_EVAL_LOG="$T/evals.log" timeout 300 "$WHITTLE" reduce "${args[@]}" --cache "$URL" --out "$T/run" \
    > "$T/run.out" 2>&1 &
RUN=$!; PIDS+=("$RUN")
killed=
end=$(( $(date +%s) + 120 ))
while kill -0 "$RUN" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
    n=$(redis-cli -p "$PORT" dbsize 2>/dev/null || echo 0)
    if [ "${n:-0}" -ge 2 ]; then   # the fingerprint and at least one verdict
        R=$(run_dir "$T/run")
        rows=0; [ -n "$R" ] && [ -f "$R/candidates.csv" ] && rows=$(( $(wc -l < "$R/candidates.csv") - 1 ))
        { kill -9 "$rpid"; wait "$rpid"; } 2>/dev/null
        killed=1
        pass "redis-server SIGKILLed mid-run: $n keys in Redis, $rows candidates recorded so far"
        break
    fi
    sleep 0.05
done
[ -n "$killed" ] || die "the run ended before Redis could be stopped mid-run"
kill -0 "$RUN" 2>/dev/null && pass "the run was still going when Redis died" \
    || fail "the run had already ended when Redis died"
wait "$RUN"; rc=$?
check_eq "run exit status" "$rc" 0
R=$(run_dir "$T/run")
[ -n "$R" ] && [ -f "$R/summary.json" ] || die "the run left no summary.json"

grep -q "redis at $URL unavailable (.*); using the embedded cache" "$T/run.out" \
    && pass "warning: $(grep -m1 'unavailable' "$T/run.out")" \
    || fail "no 'redis at $URL unavailable (…); using the embedded cache' warning"
check_eq "the warning is given once" "$(grep -c 'unavailable' "$T/run.out")" 1
cmp -s "$REF/reduced.c" "$R/reduced.c" && pass "same reduced.c as without Redis" \
    || { diff "$REF/reduced.c" "$R/reduced.c" >&2; fail "reduced.c differs from the run without Redis"; }
if diff <(cut -d, -f1-6 "$REF/candidates.csv") <(cut -d, -f1-6 "$R/candidates.csv") > "$T/seq.diff"; then
    pass "same candidate/verdict sequence (candidates.csv columns 1-6, $(( $(wc -l < "$R/candidates.csv") - 1 )) rows)"
else
    cat "$T/seq.diff" >&2; fail "candidate/verdict sequence differs from the run without Redis"
fi
check_eq "statements_after" "$(jq -r .statements_after "$R/summary.json")" 2
check_eq "candidates" "$(jq -r .candidates "$R/summary.json")" 12
check_eq "InfraError verdicts" "$(jq -r .verdicts.InfraError "$R/summary.json")" 0
[ -n "$(find "$T/cache" -type f 2>/dev/null | head -n1)" ] \
    && pass "the embedded fallback wrote to the private cache folder" \
    || fail "nothing in the embedded fallback folder $T/cache"

if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed" >&2; exit 1; fi
echo "all checks passed" >&2
exit 0
