#!/bin/bash
# Redis with a password (issue 10): a private redis-server with requirepass
# and a Redis 6 ACL user restricted to whittle's keys.
#  - redis://wh:PASSWORD@127.0.0.1:PORT/0 (password percent-encoded) caches
#    verdicts: a rerun evaluates nothing, Redis holds one verdict per
#    evaluated candidate;
#  - the password may come from WHITTLE_REDIS_PASSWORD instead (redis://wh@…);
#  - a wrong password and a missing one are one-line errors, exit 2;
#  - through a coordinator (--insecure on loopback) the password appears in
#    neither `whittle status`, the coordinator's log, nor the run record;
#  - a coordinator with the password in WHITTLE_REDIS_PASSWORD journals in
#    that Redis too (the journal used to read only the URL's password and
#    fell back to a file); killed with SIGKILL mid-job and started again
#    against the same Redis, it resumes the job and the client gets the
#    answer.
. "$(dirname "$0")/../e2e/lib.sh"
cache_secret # a redis:// cache needs the cluster secret
for tool in redis-server redis-cli jq; do
    command -v "$tool" >/dev/null || { echo "skipped: $tool not installed" >&2; exit 77; }
done
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT

PASS='p@ss:w/rd-Zq81'                 # needs escaping in a URL
PASS_URL='p%40ss%3Aw%2Frd-Zq81'
ADMIN='admin-Xk29'
RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --requirepass "$ADMIN" --dir "$T" \
    > "$T/redis.log" 2>&1 &
PIDS+=($!)
rcli() { redis-cli -p "$RPORT" --no-auth-warning "$@"; }
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do rcli -a "$ADMIN" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
check_eq "ACL user created" "$(rcli -a "$ADMIN" ACL SETUSER wh on ">$PASS" '~whittle:*' '+@all' '-flushall' '-flushdb')" OK

P="$T/headers"; cp -r "$FIX/headers" "$P"
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka)
URL="redis://wh:$PASS_URL@127.0.0.1:$RPORT/0"
MASKED="redis://wh:***@127.0.0.1:$RPORT/0"

"$WHITTLE" reduce "${args[@]}" --cache "$URL" --out "$T/r1" > "$T/r1.out" 2>&1 || { cat "$T/r1.out"; fail "run 1 with an ACL user"; }
R1=$(run_dir "$T/r1")
nkeys=$(rcli --user wh --pass "$PASS" --scan --pattern 'whittle:v1:verdict:*' | wc -l)
check_eq "Redis (as user wh) holds one verdict per evaluated candidate" "$nkeys" "$(json "$R1/summary.json" .evaluated)"
[ "$nkeys" -gt 0 ] || fail "no verdicts stored"
"$WHITTLE" reduce "${args[@]}" --cache "$URL" --out "$T/r2" > "$T/r2.out" 2>&1 || fail "run 2"
R2=$(run_dir "$T/r2")
check_eq "rerun through the ACL user: evaluated" "$(json "$R2/summary.json" .evaluated)" 0
check_eq "rerun: same reduced test" "$(cat "$R2/reduced.c")" "$(cat "$R1/reduced.c")"
WHITTLE_REDIS_PASSWORD="$PASS" "$WHITTLE" reduce "${args[@]}" --cache "redis://wh@127.0.0.1:$RPORT/0" --out "$T/r3" \
    > "$T/r3.out" 2>&1 || fail "run with WHITTLE_REDIS_PASSWORD"
check_eq "password from WHITTLE_REDIS_PASSWORD: evaluated" "$(json "$(run_dir "$T/r3")/summary.json" .evaluated)" 0
check_eq "job.json records the cache with the password masked" "$(json "$R1/job.json" .cache)" "$MASKED"

# Wrong and missing passwords: one line on stderr, exit 2, the password never
# shown (stdout may say which reference the run took first).
out=$("$WHITTLE" reduce "${args[@]}" --cache "redis://wh:nope-Qv7@127.0.0.1:$RPORT/0" --out "$T/bad" 2>&1 >/dev/null); rc=$?
check_eq "wrong password: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: redis at redis://wh:***@127.0.0.1:$RPORT/0 refused the credentials: WRONGPASS invalid username-password pair or user is disabled."
out=$("$WHITTLE" reduce "${args[@]}" --cache "redis://127.0.0.1:$RPORT/0" --out "$T/bad" 2>&1 >/dev/null); rc=$?
check_eq "no password: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: redis at redis://127.0.0.1:$RPORT/0 refused access without a password: NOAUTH Authentication required."
out=$("$WHITTLE" reduce "${args[@]}" --cache "redis://wh@127.0.0.1:$RPORT/0" --out "$T/bad" 2>&1 >/dev/null); rc=$?
check_eq "user without a password: exit $rc, one line" "$rc: $out" \
    "2: whittle: error: redis URL names user 'wh' but no password (add :PASSWORD or set WHITTLE_REDIS_PASSWORD)"

# Through a coordinator: nothing prints the password.
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache "$URL" -v > "$T/coord.log" 2>&1 &
PIDS+=($!)
"$B/node/whittle-node" --connect "$EP" --insecure --slots 2 --workdir "$T/node" -v > "$T/node.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 2" && break; sleep 0.1; done
"$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --cache "$URL" --out "c1" > "$T/c1.out" 2>&1 || { cat "$T/c1.out"; fail "cluster run"; }
check_eq "cluster run through the ACL user: evaluated" "$(json "$(run_dir "$T/c1")/summary.json" .evaluated)" 0
"$WHITTLE" status --cluster "$EP" --insecure > "$T/status" 2>&1
grep -q "^cache: redis$" "$T/status" && pass "status: cache redis" || fail "status: $(cat "$T/status")"
port2=$(free_port)
WHITTLE_REDIS_PASSWORD="$PASS" "$B/coordinator/whittle-coordinator" --runs "$T" --bind "tcp://127.0.0.1:$port2" \
    --insecure --cache "redis://wh@127.0.0.1:$RPORT/0" > "$T/coord2.log" 2>&1 &
co2=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do grep -q "listening on" "$T/coord2.log" && break; sleep 0.1; done
grep -qF "cache redis, journal redis 127.0.0.1:$RPORT/0 hash whittle:v1:jobs" "$T/coord2.log" \
    && pass "password from WHITTLE_REDIS_PASSWORD: the journal is in Redis" \
    || fail "journal with WHITTLE_REDIS_PASSWORD: $(cat "$T/coord2.log")"
# That coordinator killed with SIGKILL mid-job and started again against the
# same Redis (as a new pod would be): the job resumes from the Redis
# journal and its client gets the answer. A build that takes 0.3 s makes
# it a new job identity (nothing cached) and long enough to be killed in.
"$B/node/whittle-node" --connect "tcp://127.0.0.1:$port2" --insecure --slots 1 --workdir "$T/node2" > "$T/node2.log" 2>&1 &
n2=$!
jargs=(--project "$P" --file tests/test_request.c --test test_should_read_headers --setup "make -s"
       --build "sleep 0.3; make -s" --run "./test_request" --framework cmocka)
"$WHITTLE" reduce --cluster "tcp://127.0.0.1:$port2" --insecure "${jargs[@]}" --out "k1" > "$T/k1.out" 2>&1 &
kc=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 120 ]; do
    csv=$(ls "$T"/k1/*/candidates.csv 2>/dev/null | head -1)
    [ -n "$csv" ] && [ "$(awk -F, 'NR > 1 && $7 == 0 && $8 != "precheck" && $8 != "ubguard"' "$csv" | wc -l)" -ge 2 ] && break
    sleep 0.1
done
kill -9 "$co2"; wait "$co2" 2>/dev/null
before=$(grep -c "" "$csv" 2>/dev/null)
WHITTLE_REDIS_PASSWORD="$PASS" "$B/coordinator/whittle-coordinator" --runs "$T" --bind "tcp://127.0.0.1:$port2" \
    --insecure --cache "redis://wh@127.0.0.1:$RPORT/0" > "$T/coord3.log" 2>&1 &
co3=$!
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 240 ] && kill -0 "$kc" 2>/dev/null; do sleep 0.2; done
wait "$kc"; rc=$?
check_eq "kill -9 mid-job (candidates.csv had $before lines), restarted on the same Redis: client exit" "$rc" 0
grep -q "^whittle-coordinator: resuming job [0-9a-f]* (test_should_read_headers in tests/test_request.c) after a restart" "$T/coord3.log" \
    && pass "the restarted coordinator resumed the job from the Redis journal" || fail "no resume: $(cat "$T/coord3.log")"
grep -q "coordinator lost, reattaching to job" "$T/k1.out" && pass "the client reattached" || fail "client: $(cat "$T/k1.out")"
# The resumed job keeps the interrupted folder and writes its record in a
# new one: the one the client's last Report line names.
RK=$(sed -n 's/^Report: \(.*\)\/report.html$/\1/p' "$T/k1.out" | tail -1)
check_eq "the resumed job's answer" "$(cat "$RK/reduced.c")" "$(cat "$R1/reduced.c")"
kill "$co3" "$n2"; wait "$co3" "$n2" 2>/dev/null
# Stop Redis: the outage warning names the URL, masked.
kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null
"$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --algorithm dd --out "c2" > "$T/c2.out" 2>&1 || fail "cluster run during the outage"
grep -qF "redis at $MASKED unavailable" "$T/coord.log" && pass "outage warning names the masked URL" || fail "no masked outage warning"
"$WHITTLE" status --cluster "$EP" --insecure >> "$T/status" 2>&1
leaks=$(grep -rlF -e "$PASS" -e "$PASS_URL" "$T/status" "$T/coord.log" "$T/coord2.log" "$T/coord3.log" "$T/node.log" "$T/node2.log" "$T/c1" "$T/c2" "$T/r1" "$T/r2" "$T/r3" \
        "$T"/*.out 2>/dev/null | tr '\n' ' ')
check_eq "files holding the password (status, logs, run records)" "$leaks" ""
stop_all
finish
