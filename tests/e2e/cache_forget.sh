#!/bin/bash
# Forgetting one node's verdicts (issue 10), with real processes on
# loopback: a CURVE coordinator on a real redis-server (private port), two
# node keys n1 and n2, one slot each.
#  - every verdict in Redis names the node key that produced it, and both
#    nodes produced some;
#  - `whittle cache forget --node F` (F: the node that judged the walk's
#    first candidate; run with an embedded cache of its own) deletes
#    exactly F's verdicts from Redis and bumps the generation;
#  - the same job rerun on the still-running coordinator re-judges exactly
#    those its walk needs: every candidate with one of F's keys is judged
#    again (the coordinator's embedded fallback, which still holds F's
#    verdicts, answers none of them), every other one is a cache hit, and
#    the keys stored again are F's, with the same verdicts;
#  - the answer is the first run's; usage errors are one line, exit 2.
. "$(dirname "$0")/lib.sh"
cache_secret # a redis:// cache needs the cluster secret
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 nodes/n2 clients/cli; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SECRET_KEY="$K/clients/cli.secret" WHITTLE_SERVER_KEY="$K/coord.public"

RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no > "$T/redis.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
RURL="redis://127.0.0.1:$RPORT/2"
rcli() { redis-cli -p "$RPORT" -n 2 "$@"; }
# key:value of every stored verdict, sorted
verdicts() { rcli --scan --pattern 'whittle:v1:verdict:*' | LC_ALL=C sort | while read -r k; do echo "$k $(rcli get "$k" | sed 's/ mac=[0-9a-f]\{64\}$//; s/ gen=[0-9]*$//')"; done; }

port=$(free_port); EP="tcp://127.0.0.1:$port"
WHITTLE_CACHE_DIR="$T/coord-fallback" "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --cache "$RURL" -v \
    --secret-key "$K/coord.secret" --nodes "$K/nodes" --clients "$K/clients" --grant cli="$T" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
for n in 1 2; do
    "$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/node$n" --id "n$n" \
        --secret-key "$K/nodes/n$n.secret" --server-key "$K/coord.public" > "$T/node$n.log" 2>&1 &
    PIDS+=($!)
done
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    [ "$("$WHITTLE" status --cluster "$EP" | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p')" = 2 ] && break
    sleep 0.1
done

P="$T/headers"; cp -r "$FIX/headers" "$P"
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers --no-speculate --precheck off
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka)
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out r1 > "$T/r1.out" 2>&1 || { cat "$T/r1.out"; fail "run 1"; }
R1=$(run_dir "$T/r1")
verdicts > "$T/v1"
total=$(wc -l < "$T/v1")
n1=$(grep -c ' node=n1$' "$T/v1"); n2=$(grep -c ' node=n2$' "$T/v1")
check_eq "every verdict in Redis names n1 or n2" "$((n1 + n2))" "$total"
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] && pass "both nodes produced verdicts: n1 $n1, n2 $n2" || fail "n1 $n1, n2 $n2"
check_eq "Redis holds one verdict per evaluated candidate" "$total" "$(json "$R1/summary.json" .evaluated)"
# Forget the node that judged the walk's first candidate: the rerun needs it.
F=$(awk -F, 'NR == 2 { sub(/\/.*/, "", $8); print $8 }' "$R1/candidates.csv")
case "$F" in n1) O=n2; nf=$n1 ;; n2) O=n1; nf=$n2 ;; *) fail "first candidate judged by '$F'"; O=n1; nf=0 ;; esac
grep " node=$F\$" "$T/v1" | cut -d' ' -f1 > "$T/fkeys"

# Usage errors: one line, exit 2.
out=$("$WHITTLE" cache forget --cache "$RURL" 2>&1); rc=$?
check_eq "forget without --node: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: cache forget needs --node KEYID (usage: whittle cache stats|clear [--cache SPEC] | forget --node KEYID [--cache SPEC])"
out=$("$WHITTLE" cache forget --node 'a b' 2>&1); rc=$?
check_eq "forget with a bad key id: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: bad node key id 'a b' (1 to 64 of A-Z a-z 0-9 . _ @ + -) (usage: whittle cache stats|clear [--cache SPEC] | forget --node KEYID [--cache SPEC])"

# Forget F from another machine's point of view: its own embedded cache.
out=$(WHITTLE_CACHE_DIR="$T/cli-cache" "$WHITTLE" cache forget --node "$F" --cache "$RURL" 2>&1); rc=$?
check_eq "forget $F: exit $rc, output" "$rc: $out" \
    "0: forgot $nf verdicts of node $F: $nf in redis, 0 in the embedded cache; generation 1"
verdicts > "$T/v2"
check_eq "Redis after forget: $O's verdicts, untouched" "$(cat "$T/v2")" "$(grep " node=$O\$" "$T/v1")"
check_eq "Redis generation" "$(rcli get whittle:v1:generation)" 1
grep -c " node=$F\$" "$T/coord-fallback/verdicts.log" > "$T/fb" || true
check_eq "the coordinator's fallback still holds $F's verdicts" "$(cat "$T/fb")" "$nf"

# The rerun re-judges exactly the forgotten verdicts the walk needs: a
# candidate whose key was F's is judged again (never answered from the
# coordinator's fallback, which still holds it), every other one is a
# cache hit; nothing else is judged.
"$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out r2 > "$T/r2.out" 2>&1 || { cat "$T/r2.out"; fail "run 2"; }
R2=$(run_dir "$T/r2")
check_eq "rerun: same reduced test" "$(cat "$R2/reduced.c")" "$(cat "$R1/reduced.c")"
awk -F, -v keys="$T/fkeys" 'BEGIN { while ((getline k < keys) > 0) { sub(/.*:/, "", k); f[k] = 1 } }
    NR > 1 { print ($12 in f ? "forgotten" : "kept") " " ($7 ? "cached" : "judged") }' "$R2/candidates.csv" | sort | uniq -c > "$T/r2rows"
# (The sample audit, reduce_audit.c, judges afresh one cached negative
# verdict per 20 candidates built: those are the only kept keys judged.)
audited=$(json "$R2/summary.json" .cache_audit.audited)
check_eq "rerun: candidates with forgotten keys judged, the others cached (but $audited audited)" \
    "$(grep -c 'forgotten cached' "$T/r2rows") $(awk '$2 == "kept" && $3 == "judged" { n += $1 } END { print n + 0 }' "$T/r2rows")" "0 $audited"
[ "$(grep -c 'forgotten judged' "$T/r2rows")" = 1 ] && pass "rerun: $(cat "$T/r2rows" | tr -s ' \n' ' ')" \
    || fail "no forgotten candidate judged again: $(cat "$T/r2rows")"
verdicts > "$T/v3"
cut -d' ' -f1 "$T/v3" | LC_ALL=C sort > "$T/k3"
comm -13 <(cut -d' ' -f1 "$T/v2") "$T/k3" > "$T/rejudged"
check_eq "rerun: evaluated = keys stored again + audited" "$(json "$R2/summary.json" .evaluated)" "$(( $(wc -l < "$T/rejudged") + audited ))"
# The walk's own candidates stored again are F's; any other key stored
# again is a step a chain judged ahead for a path the walk did not take
# (summary.json .extra counts those), never a candidate of the walk.
awk -F, 'NR > 1 { print "whittle:v1:verdict:" $12 }' "$R2/candidates.csv" | LC_ALL=C sort -u > "$T/walkkeys"
comm -12 "$T/rejudged" "$T/walkkeys" > "$T/rewalk"
check_eq "rerun: every walk candidate stored again was $F's" "$(comm -23 "$T/rewalk" "$T/fkeys" | wc -l)" 0
others=$(comm -23 "$T/rejudged" "$T/fkeys" | comm -23 - "$T/walkkeys" | wc -l)
[ "$others" -le "$(json "$R2/summary.json" .extra)" ] && pass "rerun: $others other key(s) stored again, all judged ahead (extra $(json "$R2/summary.json" .extra))" \
    || fail "rerun: $others keys stored again that are neither $F's nor judged ahead"
grep -F -f "$T/rejudged" "$T/v1" | sed 's/ node=.*//' > "$T/again1"
check_eq "rerun: the same verdicts as run 1 for the keys judged again" \
    "$(grep -F -f <(cut -d' ' -f1 "$T/again1") "$T/v3" | sed 's/ node=.*//')" "$(cat "$T/again1")"
total=$(wc -l < "$T/v3")

# Forgetting a node nobody knows: nothing, and the generation moves on.
out=$(WHITTLE_CACHE_DIR="$T/cli-cache" "$WHITTLE" cache forget --node ghost --cache "$RURL" 2>&1); rc=$?
check_eq "forget ghost" "$rc: $out" "0: forgot 0 verdicts of node ghost: 0 in redis, 0 in the embedded cache; generation 2"

# stats and clear of the same Redis (the client's own fallback is empty).
WHITTLE_CACHE_DIR="$T/cli-cache" "$WHITTLE" cache stats --cache "$RURL" > "$T/stats" 2>&1 || fail "cache stats: $(cat "$T/stats")"
check_eq "stats: where" "$(sed -n 1p "$T/stats")" "cache: redis://127.0.0.1:$RPORT/2"
check_eq "stats: verdicts" "$(sed -n 's/^  verdicts: \([0-9]*\).*/\1/p' "$T/stats" | head -1)" "$total"
check_eq "stats: generation" "$(sed -n 's/^  generation: //p' "$T/stats" | head -1)" 2
grep -q '^  lookups: [1-9][0-9]* hits, [1-9][0-9]* misses$' "$T/stats" && pass "stats: lookups recorded" || fail "stats: $(cat "$T/stats")"
out=$(WHITTLE_CACHE_DIR="$T/cli-cache" "$WHITTLE" cache clear --cache "$RURL" 2>&1); rc=$?
check_eq "clear" "$rc: $out" "0: cleared $total verdicts: $total in redis, 0 in the embedded cache; generation 3"
check_eq "Redis after clear: verdicts, predictions and blobs left" \
    "$(rcli --scan --pattern 'whittle:v1:*' | grep -c -e ':verdict:' -e ':predicted:' -e ':blob:')" 0
check_eq "Redis after clear: generation" "$(rcli get whittle:v1:generation)" 3
stop_all
finish
