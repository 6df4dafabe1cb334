#!/bin/bash
# A night of failures through a cluster (issue 35): `whittle reduce
# --from-ctest --cluster` groups the batch before reducing, as the embedded
# path does, and writes the night's report on the client. The ctest_night
# fixture (9 failing CTest tests, 4 root causes) on a loopback cluster: a
# coordinator and two nodes (the answer verified by the other node),
# started and stopped by PID. The coordinator runs in a mount namespace of
# its own with a tmpfs over its --runs folder, so the client cannot read a
# run folder, as on a real cluster:
#  - every original runs once for its fingerprint, then 4 reductions for 4
#    groups, every failure in one, the planted test_scale_huge alone;
#  - night.json and night.html in the client's own --out, with the groups,
#    each representative's reduced test and diff, members and builds;
#  - each group's reduced test equals the embedded path's;
#  - each representative's fingerprint came from the coordinator's cache
#    (its first run's), not from another build of its original.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
# The coordinator's mount namespace needs root (or user namespaces): skipped where none can be made.
unshare --mount --propagation private true 2>/dev/null || { echo "skipped: no mount namespace (unshare --mount)" >&2; exit 77; }
trap 'stop_all; rm -rf "$T"' EXIT
P="$T/p"; cp -r "$FIX/ctest_night" "$P"
BD="$T/b"
cmake -S "$P" -B "$BD" -G Ninja > /dev/null && cmake --build "$BD" > /dev/null || { fail "fixture build"; finish; }
ctest --test-dir "$BD" > /dev/null 2>&1 && fail "ctest passed on the seeded bugs"
chmod -R a+rX "$P" "$BD"
digest=$(tree_digest "$P")

# The embedded path's answers, to compare with.
"$WHITTLE" reduce --from-ctest "$BD" --project "$P" --cache memory: --out "$T/g" > "$T/g.out" 2>&1 ||
    { cat "$T/g.out" >&2; fail "embedded: exit"; }

mkdir -p "$T/runs"
EP="tcp://127.0.0.1:$(free_port)"
unshare --mount --propagation private bash -c 'mount -t tmpfs -o mode=755 none "$1" && shift && exec "$@"' _ \
    "$T/runs" "$B/coordinator/whittle-coordinator" --runs "$T/runs" --bind "$EP" --cache memory: \
    --insecure > "$T/coord.log" 2>&1 &
COORD=$!
PIDS+=($COORD)
for n in n1 n2; do
    "$B/node/whittle-node" --connect "$EP" --slots 2 --workdir "$T/$n" --id "$n" --insecure > "$T/$n.log" 2>&1 &
    PIDS+=($!)
done
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q '^nodes: 2 ' && break
    sleep 0.1
done

mkdir -p "$T/client"
(cd "$T/client" && "$WHITTLE" reduce --cluster "$EP" --insecure --from-ctest "$BD" --project "$P" \
    --out night > "$T/c.out" 2> "$T/c.err")
rc=$?
cat "$T/c.out" "$T/c.err" | grep -v '^Progress:\|^\[job' >&2
check_eq "cluster: exit status" "$rc" 0
check_eq "cluster: stderr" "$(cat "$T/c.err")" ""
check_eq "the client sees no run folder" "$(ls -A "$T/runs")" ""
check_eq "cluster: the count" "$(grep '^Groups before reducing' "$T/c.out")" \
    "Groups before reducing: 9 failing tests, 4 groups, 4 reductions"
# submitted in priority order (larger groups first; the coordinator starts them first come)
check_eq "cluster: the order" "$(grep '^Reducing in this order' "$T/c.out")" \
    "$(grep '^Reducing in this order' "$T/g.out")"
check_eq "cluster: submitted in that order" \
    "$(grep '^\[[0-9]/4\] test_.*: job [0-9]$' "$T/c.out" | sed 's/^\[[0-9]\/4\] \(test_[a-z_]*\).*/\1/' | tr '\n' ' ')" \
    "$(grep '^Reducing in this order' "$T/c.out" | grep -o '[0-9]\. test_[a-z_]*' | sed 's/^[0-9]\. //' | tr '\n' ' ')"
[ -s "$T/client/night/night-seen.json" ] && pass "the history beside the report" || fail "no night-seen.json"
check_eq "cluster: 4 reductions submitted" "$(grep -c '^\[[0-9]/4\] test_.*: job [0-9]$' "$T/c.out")" 4
check_eq "cluster: 4 answers" "$(grep -c '^Run folder: ' "$T/c.out")" 4
check_eq "cluster: the same groups as embedded" \
    "$(sed -n '/^Groups before reducing/,/^[^ g]/p' "$T/c.out" | grep '^group\|^  test_')" \
    "$(sed -n '/^Groups before reducing/,/^[^ g]/p' "$T/g.out" | grep '^group\|^  test_')"

N="$T/client/night/night.json"
[ -s "$N" ] && pass "night.json in the client's --out" || { fail "no $N"; finish; }
[ -s "$T/client/night/night.html" ] && pass "night.html beside it" || fail "no night.html"
check_eq "night.json: failures" "$(json "$N" .failures)" 9
check_eq "night.json: groups" "$(json "$N" '.groups | length')" 4
check_eq "night.json: every failure in a group" \
    "$(json "$N" '[.groups[].members[]] | sort | join(" ")')" \
    "$(sed 's/^[0-9]*://' "$BD/Testing/Temporary/LastTestsFailed.log" | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "night.json: test_scale_huge alone" \
    "$(json "$N" '.groups[] | select(.members | index("test_scale_huge")) | .members | join(",")')" \
    "test_scale_huge"
check_eq "night.json: the helper's group" \
    "$(json "$N" '.groups[] | select(.representative == "test_scale_ten") | [.state, (.members | sort | join(","))] | join(" ")')" \
    "reduced test_scale_four,test_scale_loop,test_scale_ten,test_scale_three"
check_eq "night.json: states" "$(json "$N" '[.tests[].state] | sort | unique | join(",")')" "answered,reduced"
check_eq "night.json: builds counted" "$(json "$N" '.builds > 9')" "true"
for r in test_last_loop test_max_own test_scale_huge test_scale_ten; do
    check_eq "$r: reduced as embedded" \
        "$(json "$N" ".groups[] | select(.representative == \"$r\") | .reduced")" \
        "$(cat "$T/g/$r"-*/reduced.c)"
    check_eq "$r: its diff as embedded" \
        "$(json "$N" ".groups[] | select(.representative == \"$r\") | .diff")" \
        "$(cat "$T/g/$r"-*/reduced.diff)"
done
check_eq "night.html: one section per group" "$(grep -c '<section class="group"' "$T/client/night/night.html")" 4
# Inside the coordinator's namespace: the first runs, and each
# representative's fingerprint taken from the cache they filled.
in_coord() { nsenter -t "$COORD" -m -r -- "$@"; } # -r: its root (a chroot here under .ci/fresh)
check_eq "coordinator: 9 first runs" "$(in_coord ls "$T/runs/night/.first-runs" | grep -vc '^latest$')" 9
check_eq "coordinator: 4 reductions" "$(in_coord ls "$T/runs/night" | grep -vc '^latest$')" 4
check_eq "coordinator: each representative's fingerprint from the cache" \
    "$(in_coord sh -c "grep -l '^fingerprint from the cache' $T/runs/night/test_*/run.log" | wc -l)" 4

# --batch-budget through the cluster: the client keeps the batch's
# account (a job of its own: another --test-timeout, so no verdict of the
# run above answers it; the 9 first runs count 9; the largest group's
# reduction gets what is left, 3 builds, as its own budget), and the
# groups after it are skipped with the reason; exit 6.
(cd "$T/client" && "$WHITTLE" reduce --cluster "$EP" --insecure --from-ctest "$BD" --project "$P" \
    --out budget --batch-budget builds=12 --test-timeout 61 > "$T/b.out" 2> "$T/b.err")
rc=$?
check_eq "batch budget: exit status" "$rc" 6
check_eq "batch budget: stderr" "$(cat "$T/b.err")" ""
NB="$T/client/budget/night.json"
check_eq "batch budget: the largest group first, partial" \
    "$(json "$NB" '.groups[] | select(.representative == "test_scale_ten") | .state')" "partial"
check_eq "batch budget: the other groups skipped" \
    "$(json "$NB" '[.groups[] | select(.representative != "test_scale_ten") | .state] | unique | join(",")')" "skipped"
check_eq "batch budget: why" \
    "$(json "$NB" '[.tests[] | select(.state == "skipped") | .why | startswith("batch budget spent (builds=12 spent: ")] | unique | join(",")')" "true"
check_eq "batch budget: skipped, the 5 failures of those groups" \
    "$(json "$NB" '[.tests[] | select(.state == "skipped")] | length')" 5
grep -q "^\[2/4\] test_last_loop (tests/test_night.c): skipped: batch budget spent (builds=12 spent: " "$T/b.out" \
    && pass "batch budget: skipped said" || fail "batch budget: no skipped line"
check_eq "the project is unchanged" "$(tree_digest "$P")" "$digest"
stop_all
finish
