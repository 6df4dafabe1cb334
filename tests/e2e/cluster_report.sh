#!/bin/bash
# The same page from a cluster run: `whittle submit` to a coordinator with
# two real whittle-node processes (CURVE keys, loopback tcp); the run
# folder is the coordinator's. The client prints the diff and names the
# page; the page passes report_check.sh in headless Chromium, with one lane
# per node slot that judged. Screenshot: build/tests/artifacts/report-cluster.png.
# Run under the cluster lock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_check.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
EP="tcp://127.0.0.1:$port"
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 nodes/n2 clients/cli; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SECRET_KEY="$K/clients/cli.secret" WHITTLE_SERVER_KEY="$K/coord.public"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache memory: \
    --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" --grant cli="$T" > "$T/coord.log" 2>&1 &
PIDS+=($!)
for n in 1 2; do
    "$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/node$n" --id "n$n" \
        --secret-key "$K/nodes/n$n.secret" --server-key "$K/coord.public" > "$T/node$n.log" 2>&1 &
    PIDS+=($!)
done
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    [ "$("$WHITTLE" status --cluster "$EP" 2>/dev/null | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p')" = 2 ] && break
    sleep 0.1
done

P="$T/cart"; cp -r "$FIX/cart" "$P"
cat > "$T/failures.json" <<JSON
[ {"project": "$P", "file": "tests/test_cart.c", "test": "test_added_item_is_in_cart",
   "setup": "cmake -S . -B build -G Ninja >/dev/null && cmake --build build", "build": "cmake --build build",
   "run": "build/test_cart", "framework": "cmocka", "out": "out"} ]
JSON
# A diff longer than a message holds (four 20 KB lines removed): the client
# is told where it is and still gets the rest of the result.
L="$T/longproj"; cp -r "$FIX/plain_assert" "$L"
pad=$(head -c 20000 /dev/zero | tr '\0' A)
awk -v pad="$pad" '{ print } /^static void test_clamp_edges/ { getline; print; for (i = 1; i <= 4; i++) printf "    const char *pad%d = \"%s\"; (void)pad%d;\n", i, pad, i }' \
    "$FIX/plain_assert/tests/test_clamp.c" > "$L/tests/test_clamp.c"
cat > "$T/long.json" <<JSON
[ {"project": "$L", "file": "tests/test_clamp.c", "test": "test_clamp_edges", "setup": "make -s",
   "build": "make -s", "run": "./test_clamp", "framework": "plain", "out": "long"} ]
JSON
"$WHITTLE" submit --cluster "$EP" "$T/long.json" > "$T/long.out" 2>&1 || { cat "$T/long.out"; fail "submit with a long diff"; }
RL=$(run_dir "$T/long")
[ "$(wc -c < "$RL/reduced.diff")" -gt 65536 ] && pass "long diff: over 64 KiB" || fail "long diff: only $(wc -c < "$RL/reduced.diff") bytes"
check_eq "long diff: the client names the file" "$(grep -c '^Diff: too long for this message; see reduced.diff in the run folder$' "$T/long.out") $(grep -c "^Report: $RL/report.html\$" "$T/long.out")" "1 1"
cp "$L/tests/test_clamp.c" "$T/plain.c"
patch -s "$T/plain.c" < "$RL/reduced.diff" && cmp -s "$T/plain.c" "$RL/reduced.c" \
    && pass "long diff: patch gives reduced.c" || fail "long diff: patch does not give reduced.c"

"$WHITTLE" submit --cluster "$EP" "$T/failures.json" > "$T/submit.out" 2>&1 || { cat "$T/submit.out"; fail "submit"; }
R=$(run_dir "$T/out")
sed -n '/^Diff (reduced.diff):$/,/^Report: /p' "$T/submit.out" | sed '1d;$d' > "$T/client.diff"
[ -s "$R/reduced.diff" ] && cmp -s "$T/client.diff" "$R/reduced.diff" && pass "submit prints reduced.diff" \
    || fail "submit does not print reduced.diff: $(cat "$T/submit.out")"
check_eq "submit names the page" "$(grep '^Report: ' "$T/submit.out")" "Report: $R/report.html"
check_eq "slots that judged: the two nodes'" \
    "$(awk -F, 'NR > 1 && $7 == 0 && $14 == 0 { sub("/.*", "", $8); print $8 }' "$R/candidates.csv" | sort -u | tr '\n' ' ')" "n1 n2 "
check_report_page "$R" report-cluster
check_eq "page: a lane per node slot" \
    "$(grep -o '<g class="slot" data-slot="n[12]/[^"]*"' "$T/report-cluster.dom" | sed 's/.*data-slot="\(n[12]\).*/\1/' | sort | tr '\n' ' ')" "n1 n2 "
stop_all
finish
