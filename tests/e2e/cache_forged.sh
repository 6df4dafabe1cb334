#!/bin/bash
# Authenticated Redis values (issue 18, item 2), with real processes on
# loopback: a coordinator on a private redis-server and one node.
#  - a redis:// cache without the cluster secret (or with a short one) is
#    refused in one line that says how to make one;
#  - the cart fixture reduces 7 -> 4; every value whittle wrote to Redis
#    carries " mac=<64 hex>";
#  - every value in Redis is then rewritten by hand to "BuildFailed
#    node=n1" (half with no MAC, half with a MAC of another value), and
#    the rerun, on a coordinator whose embedded fallback is empty, still
#    answers 7 -> 4 with exit 0; `whittle cache stats` names the forged
#    values and the rejected lookups; the re-judged verdicts overwrite
#    the forged ones;
#  - the same with "Preserved node=n1" (which verify would catch anyway).
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
CPIDS=()
trap 'for p in "${CPIDS[@]}"; do kill "$p" 2>/dev/null; done; stop_all; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
unset WHITTLE_CACHE_SECRET_FILE

RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no > "$T/redis.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
RURL="redis://127.0.0.1:$RPORT/3"
rcli() { redis-cli -p "$RPORT" -n 3 "$@"; }
head -c 32 /dev/urandom | base64 > "$T/secret"
printf 'short\n' > "$T/short"

# No secret, a short one: refused in one line.
out=$(WHITTLE_CACHE_DIR="$T/cli" "$WHITTLE" cache stats --cache "$RURL" 2>&1); rc=$?
check_eq "cache stats without a secret" "$rc: $out" \
    '1: whittle: error: a redis:// cache needs the cluster secret: make one with `head -c 32 /dev/urandom | base64 > secret` and pass --cache-secret-file secret (or set WHITTLE_CACHE_SECRET_FILE)'
out=$(WHITTLE_CACHE_DIR="$T/cli" "$WHITTLE" cache stats --cache "$RURL" --cache-secret-file "$T/short" 2>&1); rc=$?
check_eq "cache stats with a short secret: exit, lines" "$rc $(echo "$out" | wc -l)" "1 1"
grep -q "holds 5 bytes; at least 32 are needed" <<< "$out" && pass "short secret named" || fail "short: $out"
port=$(free_port)
timeout 20 "$B/coordinator/whittle-coordinator" --runs "$T" --bind "tcp://127.0.0.1:$port" --cache "$RURL" --insecure \
    > "$T/nosecret.out" 2>&1; rc=$?
[ "$rc" != 0 ] && grep -q 'needs the cluster secret: make one with `head -c 32 /dev/urandom | base64 > secret`' "$T/nosecret.out" \
    && pass "coordinator without a secret refused (exit $rc)" || fail "coordinator without a secret: $rc $(cat "$T/nosecret.out")"
check_eq "nothing written to Redis without a secret" "$(rcli dbsize)" 0

# start_cluster FALLBACK_DIR: a coordinator with the secret and one node.
start_cluster() {
    port=$(free_port); EP="tcp://127.0.0.1:$port"
    WHITTLE_CACHE_DIR="$1" "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "$RURL" \
        --cache-secret-file "$T/secret" --insecure -v > "$T/coord.$2.log" 2>&1 &
    CPIDS+=($!)
    "$B/node/whittle-node" --connect "$EP" --slots 2 --workdir "$T/node.$2" --id n1 --insecure > "$T/node.$2.log" 2>&1 &
    CPIDS+=($!)
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
        "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 2" && break; sleep 0.1
    done
}
stop_cluster() { for p in "${CPIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; CPIDS=(); }
P="$T/cart"; cp -r "$FIX/cart" "$P"
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --run "build/test_cart" --framework cmocka)
# reduce NAME: 7 -> 4, exit 0, the same reduced test as run 1.
reduce() {
    "$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out "$1" > "$T/$1.out" 2>&1; rc=$?
    R=$(run_dir "$T/$1")
    check_eq "$1: exit, statements" "$rc $(json "$R/summary.json" .statements_before) -> $(json "$R/summary.json" .statements_after)" "0 7 -> 4"
}
stats() { WHITTLE_CACHE_DIR="$T/cli" "$WHITTLE" cache stats --cache "$RURL" --cache-secret-file "$T/secret" 2>&1; }
values() { rcli --scan --pattern 'whittle:v1:*' | grep -e ':verdict:' -e ':predicted:' -e ':blob:' | LC_ALL=C sort; }

start_cluster "$T/fb1" 1
reduce r1
R1=$R
stop_cluster
values > "$T/keys1"
nv=$(wc -l < "$T/keys1")
[ "$nv" -gt 5 ] && pass "run 1 stored $nv values in Redis" || fail "run 1 stored $nv values"
check_eq "every value carries a MAC" \
    "$(while read -r k; do rcli get "$k"; done < "$T/keys1" | grep -cvE ' mac=[0-9a-f]{64}$')" 0
stats > "$T/stats1"
check_eq "stats before forging" "$(grep 'without a valid MAC' "$T/stats1")" \
    "  without a valid MAC (not believed): 0 values; 0 lookups rejected"

# forge VALUE N: every value rewritten by hand; every other one with the
# MAC of another key's value (a wrong MAC), the rest with none.
forge() {
    local i=0 mac
    mac=$(rcli get "$(head -1 "$T/keys1")" | sed -n 's/.*\( mac=[0-9a-f]*\)$/\1/p')
    while read -r k; do
        if [ $((i % 2)) = 0 ]; then rcli set "$k" "$1" > /dev/null; else rcli set "$k" "$1$mac" > /dev/null; fi
        i=$((i + 1))
    done < <(values)
}
for fv in "BuildFailed node=n1" "Preserved node=n1"; do
    tag=${fv%% *}
    forge "$fv"
    check_eq "$tag: every value forged" "$(values | while read -r k; do rcli get "$k"; done | grep -c "^$fv")" "$(values | wc -l)"
    stats > "$T/stats.$tag"
    check_eq "$tag: stats names the forged values" "$(sed -n 's/^  without a valid MAC (not believed): \([0-9]*\) values.*/\1/p' "$T/stats.$tag")" "$(values | wc -l)"
    start_cluster "$T/fb.$tag" "$tag"
    reduce "r.$tag"
    check_eq "$tag: same reduced test" "$(cat "$R/reduced.c")" "$(cat "$R1/reduced.c")"
    stop_cluster
    grep -q 'holds values without a valid MAC' "$T/coord.$tag.log" && pass "$tag: the coordinator warned" \
        || fail "$tag: no warning in the coordinator's log"
    stats > "$T/stats2.$tag"
    rej=$(sed -n 's/.* values; \([0-9]*\) lookups rejected$/\1/p' "$T/stats2.$tag")
    [ "${rej:-0}" -gt 0 ] && pass "$tag: $rej lookups rejected" || fail "$tag: stats $(cat "$T/stats2.$tag")"
    left=$(sed -n 's/^  without a valid MAC (not believed): \([0-9]*\) values.*/\1/p' "$T/stats2.$tag")
    [ "$left" -lt "$nv" ] && pass "$tag: re-judged verdicts overwrote forged ones ($left of $nv left)" \
        || fail "$tag: $left forged values left"
done
stop_all
finish
