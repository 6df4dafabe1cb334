#!/bin/bash
# No shared filesystem: the project travels as a git snapshot.
# The client's project is a git clone whose remote is served by `git daemon`
# on loopback; its committed test passes (an early `return;`) and only the
# uncommitted change in the work tree brings the failure back. Coordinator
# and node run in mount namespaces where the client's folder and the git
# server's folder are hidden under empty tmpfs mounts: they can only fetch
# git://127.0.0.1. Checks:
#  - the reduced test equals the embedded run's on the client's own copy
#    (so the patch travelled and applied);
#  - the node fetched the revision once and keeps the tree without .git or
#    the client's untracked stray file;
#  - a commit the remote lacks is refused with a message naming it;
#  - --snapshot git on a folder that is not a git work tree is refused.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for mount namespaces" >&2; exit 77; }
unshare -m true 2>/dev/null || { echo "skipped: no mount namespaces here" >&2; exit 77; }
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
g() { git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main "$@"; }

# The git server and the client's clone.
mkdir -p "$T/srv" "$T/client"
g init -q --bare "$T/srv/proj.git"
GPORT=$(free_port)
git daemon --reuseaddr --listen=127.0.0.1 --port="$GPORT" --base-path="$T/srv" --export-all \
    "$T/srv" > "$T/gitd.log" 2>&1 &
PIDS+=($!)
URL="git://127.0.0.1:$GPORT/proj.git"
P="$T/client/proj"
g clone -q "$T/srv/proj.git" "$P" 2>/dev/null
cp -r "$FIX/headers/." "$P/"
sed -i 's|^static void test_should_read_headers(void \*\*state)$|&\n{ (void)state; return; }\nstatic void unused_(void **state)|' "$P/tests/test_request.c"
(cd "$P" && g add -A && g commit -qm "headers, test passing" && g push -q origin main 2>/dev/null) || fail "push"
cp "$FIX/headers/tests/test_request.c" "$P/tests/test_request.c"   # the uncommitted change
echo "not for the nodes" > "$P/stray-notes.txt"                     # untracked
git -C "$P" remote set-url origin "$URL"

args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka)
"$WHITTLE" reduce "${args[@]}" --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 || { cat "$T/ref.out"; fail "embedded run"; }
REF=$(run_dir "$T/ref")

# Coordinator and node see neither the client's folder nor the server's.
hide="mount -t tmpfs none '$T/client' && mount -t tmpfs none '$T/srv'"
EP="tcp://127.0.0.1:$(free_port)"
mkdir -p "$T/coordstate" "$T/runs"
unshare -m sh -c "$hide && exec env WHITTLE_CACHE_DIR='$T/coordstate' '$B/coordinator/whittle-coordinator' --runs '$T/runs' --bind '$EP' --cache memory: --insecure -v" > "$T/coord.log" 2>&1 &
PIDS+=($!)
unshare -m sh -c "$hide && exec '$B/node/whittle-node' --connect '$EP' --slots 2 --workdir '$T/node' --id n1 --insecure" > "$T/node.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 2" && break; sleep 0.1; done
unshare -m sh -c "$hide && test ! -e '$P/Makefile'" && pass "the namespaces hide the project" || fail "project visible in the namespace"

"$WHITTLE" reduce --cluster "$EP" --insecure --snapshot git "${args[@]}" --out s1 > "$T/s1.out" 2>&1 || { cat "$T/s1.out"; tail -20 "$T/coord.log"; fail "snapshot run"; }
grep -q "^snapshot: $URL at [0-9a-f]\{12\} + [1-9][0-9]* bytes of changes$" "$T/s1.out" && pass "client says what travels" || fail "no snapshot line: $(head -3 "$T/s1.out")"
R=$(run_dir "$T/runs/s1")
check_eq "snapshot run: reduced test" "$(cat "$R/reduced.c" 2>/dev/null)" "$(cat "$REF/reduced.c")"
check_eq "snapshot run: candidates and verdicts" "$(cut -d, -f1-6 "$R/candidates.csv" 2>/dev/null)" "$(cut -d, -f1-6 "$REF/candidates.csv")"
check_eq "node mirrors the remote once" "$(ls "$T/node/snapshots/mirrors" | wc -l)" 1
check_eq "node keeps one snapshot tree" "$(ls -d "$T/node/snapshots/trees"/*/ | wc -l)" 1
tree=$(ls -d "$T/node/snapshots/trees"/*/)
[ ! -e "$tree/.git" ] && [ ! -e "$tree/stray-notes.txt" ] && pass "tree has no .git and no untracked file" || fail "tree: $(ls -a "$tree")"
check_eq "node's tree holds the uncommitted change" "$(sha256sum < "$tree/tests/test_request.c")" "$(sha256sum < "$P/tests/test_request.c")"
[ -d "$T/coordstate/snapshots/trees" ] && pass "coordinator parsed its own checkout" || fail "no coordinator checkout"

# A local commit the remote does not have.
(cd "$P" && g commit -qam "local only") || fail "local commit"
git -C "$P" branch -q --unset-upstream 2>/dev/null
out=$("$WHITTLE" reduce --cluster "$EP" --insecure --snapshot git "${args[@]}" --out s2 2>&1); rc=$?
[ "$rc" -ne 0 ] && pass "unpushed commit: exit $rc" || fail "unpushed commit accepted"
sha=$(git -C "$P" rev-parse HEAD)
echo "$out" | grep -q "commit $sha is not in $URL" && pass "unpushed commit named" || fail "message: $out"

# Not a git work tree.
mkdir -p "$T/plain"; cp -r "$FIX/headers/." "$T/plain/"
out=$("$WHITTLE" reduce --cluster "$EP" --insecure --snapshot git --project "$T/plain" --file tests/test_request.c \
      --test test_should_read_headers --run ./test_request --framework cmocka 2>&1); rc=$?
check_eq "plain folder: exit" "$rc" 2
echo "$out" | grep -q "project $T/plain is not in a git work tree" && pass "plain folder named" || fail "message: $out"
finish
