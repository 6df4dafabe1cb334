#!/bin/bash
# Each client key's jobs run under uids of their own (issue 34). A
# whittle-node started as root with no user flag (--sandbox none: the uids
# alone are under test) serves two CURVE client keys. alice and bob submit
# cart jobs; bob's setup tries to append to and read every cart.c of
# alice's key folder: every attempt is refused, alice's folder is the same
# byte for byte, and the two key folders are each 0700 and owned by a uid
# of 60000-60999, not the same. The node says how it runs jobs.
# On the previous binary both ran as nobody and the attack landed.
# Needs root (exit 77: skipped otherwise).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root" >&2; exit 77; }
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 clients/alice clients/bob; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SERVER_KEY="$K/coord.public"
P="$T/cart"; cp -r "$FIX/cart" "$P"; rm -rf "$P/whittle.json" "$P/build"
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T/runs" --bind "$EP" --cache memory: --secret-key "$K/coord.secret" \
    --nodes "$K/nodes" --clients "$K/clients" --grant alice="$T" --grant bob="$T" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
W="$T/wd"
"$B/node/whittle-node" --connect "$EP" --secret-key "$K/nodes/n1.secret" --slots 1 --workdir "$W" --sandbox none \
    > "$T/node.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    WHITTLE_SECRET_KEY="$K/clients/bob.secret" "$WHITTLE" status --cluster "$EP" 2>/dev/null | grep -q '^nodes: 1  slots: 1' && break
    sleep 0.1
done
SETUP="cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
# --no-verify-local: the client shares this machine with the node, and its
# own check of a lone node's answer would run bob's hostile set-up here, as
# root (not the node's doing); that answer ends "not verified", exit 5.
job() { # key out setup
    WHITTLE_SECRET_KEY="$K/clients/$1.secret" timeout 300 "$WHITTLE" reduce --cluster "$EP" --project "$P" \
        --file tests/test_cart.c --test test_added_item_is_in_cart --setup "$3" --build "cmake --build build" \
        --run build/test_cart --out "$2" --no-verify-local > "$T/$2.out" 2>&1
    local rc=$?
    [ "$rc" = 5 ] && return 0
    return "$rc"
}
job alice a1 "$SETUP" || { cat "$T/a1.out"; fail "alice's job"; }
AK=$(find "$W/ws" -path '*/src/cart.c' | head -1 | sed "s:^\($W/ws/[^/]*\)/.*:\1:")
[ -d "$AK" ] && pass "alice's key folder: $AK" || fail "no key folder of alice under $W/ws"
AU=$(stat -c %u "$AK")
grep -q "^whittle-node: job commands run as a uid of their own per client key and workspace (60000-60999)$" "$T/node.log" \
    && pass "the node says so" || fail "node log: $(cat "$T/node.log")"
attack='cmake --build build >/dev/null 2>&1; : > tried;'
for f in $(find "$AK" -path '*/src/cart.c'); do
    attack="$attack { echo '#error pwned' >> '$f' && echo WROTE '$f'; } >> tried 2>&1;"
done
attack="$attack { cat '$(find "$AK" -path '*/src/cart.c' | head -1)' > stolen && echo READ; } >> tried 2>&1; id -u > myuid; $SETUP"
before=$(tree_digest "$AK")
job bob b2 "$attack" || { cat "$T/b2.out"; fail "bob's attacking job"; }
BT=$(find "$W/ws" -name tried | head -1)
tried=$(cat "$BT" 2>/dev/null)
[ -n "$tried" ] && pass "bob's setup ran its attack" || fail "no attack log"
BU=$(cat "$(dirname "$BT")/myuid")
[ "$BU" != "$AU" ] && pass "bob's attack ran as uid $BU, the attacked folder is uid $AU's" || fail "both uid $AU"
grep -q WROTE <<< "$tried" && fail "bob wrote into another key's workspace: $tried" || pass "every write refused"
grep -q READ <<< "$tried" && fail "bob read another key's source" || pass "the read refused"
check_eq "the attacked key folder, byte for byte" "$(tree_digest "$AK")" "$before"
keyfolders=$(find "$W/ws" -path '*/src/cart.c' | sed "s:^\($W/ws/[^/]*\)/.*:\1:" | sort -u)
check_eq "key folders of alice and bob" "$(echo "$keyfolders" | grep -c .)" 2
check_eq "two uids of 60000-60999, each one's folder 0700" \
    "$(for k in $keyfolders; do stat -c '%u %a' "$k"; done | sort -u | grep -cE '^60[0-9]{3} 700$')" 2
finish
