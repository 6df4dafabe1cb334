#!/bin/bash
# A project that is not git reaches a cluster as its files (--snapshot tar,
# issue 34: "a project is what its owner sent or was granted"). The
# coordinator runs with CURVE keys and grants the client key nothing; it
# and the node run in mount namespaces where the client's folder is hidden
# under an empty tmpfs. Checks:
#  - the cart fixture (copied out of any git work tree) reduces to the
#    embedded run's answer, the same candidates and verdicts;
#  - the coordinator keeps the tar under its state folder by its sha256,
#    the job identity is that hash, the node unpacked it as a uid of
#    60000-60999 (not root) without .git or build folders;
#  - --snapshot auto takes tar for it; a project over --snapshot-max is
#    refused before sending, exit 2, one line naming the limit and its size;
#    a symlink out of the project is refused on the client, one line;
#  - a hostile client (tests/proto/wh_peer) uploading a forged tar with a
#    "../x" entry or an absolute symlink gets its job refused (exit 2, the
#    entry named) and nothing is written outside the coordinator's tree;
#    another key naming that tar's hash is refused.
# On the previous binary --snapshot tar is an unknown value (exit 2) and a
# path job of this key is refused for want of a grant.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root for mount namespaces" >&2; exit 77; }
unshare -m true 2>/dev/null || { echo "skipped: no mount namespaces here" >&2; exit 77; }
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
K="$T/keys"; mkdir -p "$K/nodes" "$K/clients"
for k in coord nodes/n1 clients/alice clients/bob; do "$WHITTLE" keygen --out "$K/$k" > /dev/null || fail "keygen $k"; done
export WHITTLE_SERVER_KEY="$K/coord.public"

P="$T/client/cart"; mkdir -p "$T/client"; cp -r "$FIX/cart" "$P"; rm -rf "$P/whittle.json" "$P/build"
git -C "$P" rev-parse 2>/dev/null && fail "the project must not be in a git work tree"
mkdir -p "$P/.git"; echo "not a repository" > "$P/.git/junk"   # left home
mkdir -p "$P/build-old"; echo stale > "$P/build-old/x.o"          # left home
args=(--project "$P" --file tests/test_cart.c --test test_added_item_is_in_cart
      --setup "cmake -S . -B build -G Ninja >/dev/null && cmake --build build"
      --build "cmake --build build" --run "build/test_cart" --framework cmocka)
"$WHITTLE" reduce "${args[@]}" --out "$T/ref" --cache memory: > "$T/ref.out" 2>&1 || { cat "$T/ref.out"; fail "embedded run"; }
REF=$(run_dir "$T/ref")

hide="mount -t tmpfs none '$T/client'"
EP="tcp://127.0.0.1:$(free_port)"
mkdir -p "$T/coordstate" "$T/runs"
unshare -m sh -c "$hide && exec env WHITTLE_CACHE_DIR='$T/coordstate' '$B/coordinator/whittle-coordinator' --runs '$T/runs' --bind '$EP' --cache memory: --secret-key '$K/coord.secret' --nodes '$K/nodes' --clients '$K/clients' -v" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
W="$T/wd"
unshare -m sh -c "$hide && exec '$B/node/whittle-node' --connect '$EP' --secret-key '$K/nodes/n1.secret' --slots 2 --workdir '$W' --sandbox none" > "$T/node.log" 2>&1 &
PIDS+=($!)
export WHITTLE_SECRET_KEY="$K/clients/alice.secret"
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do "$WHITTLE" status --cluster "$EP" 2>/dev/null | grep -q '^nodes: 1  slots: 2' && break; sleep 0.1; done
unshare -m sh -c "$hide && test ! -e '$P/CMakeLists.txt'" && pass "the namespaces hide the project" || fail "project visible in the namespace"

# Without a snapshot the key (no grant) may not name the path.
out=$(timeout 120 "$WHITTLE" reduce --cluster "$EP" "${args[@]}" --out p0 2>&1); rc=$?
check_eq "path job without a grant: exit" "$rc" 2
echo "$out" | grep -q "in no folder granted to client key alice" && pass "path job refused" || fail "path job: $out"

timeout 600 "$WHITTLE" reduce --cluster "$EP" --snapshot tar "${args[@]}" --out s1 > "$T/s1.out" 2>&1 \
    || { cat "$T/s1.out"; tail -20 "$T/coord.log"; tail -20 "$T/node.log"; fail "tar snapshot run"; }
grep -q "^snapshot: tar of [0-9]* files, .* (sha256 [0-9a-f]\{12\})$" "$T/s1.out" && pass "client says what travels" \
    || fail "no snapshot line: $(head -3 "$T/s1.out")"
SHA=$(find "$T/coordstate/snapshots/blobs" -name '*.tgz' | head -1 | sed 's:.*/::; s:\.tgz$::')
[ ${#SHA} = 64 ] && pass "coordinator stores the tar by its sha256" || fail "no stored tar: $(ls "$T/coordstate/snapshots/blobs" 2>&1)"
check_eq "stored tar's name is its hash" "$(sha256sum < "$T/coordstate/snapshots/blobs/$SHA.tgz" | cut -c1-64)" "$SHA"
grep -q "^$(echo "$SHA" | cut -c1-12)" <<< "$(sed -n 's/.*(sha256 \([0-9a-f]*\)).*/\1/p' "$T/s1.out")" \
    && pass "the client's hash is the stored one" || fail "hash mismatch"
R=$(run_dir "$T/runs/s1")
check_eq "tar run: reduced test" "$(cat "$R/reduced.c" 2>/dev/null)" "$(cat "$REF/reduced.c")"
check_eq "tar run: candidates and verdicts" "$(cut -d, -f1-6 "$R/candidates.csv" 2>/dev/null)" "$(cut -d, -f1-6 "$REF/candidates.csv")"
grep -q "job identity: the sha256 of the tar snapshot the client sent, snapshot $SHA" "$R/run.log" \
    && pass "job identity from the tar's hash" || fail "identity: $(grep 'job identity' "$R/run.log")"
tree=$(ls -d "$W"/ws/*/src-"$SHA" 2>/dev/null | head -1)
[ -n "$tree" ] && pass "node unpacked the tar into the key's folder" || fail "no unpacked tree under $W/ws"
owner=$(stat -c %u "$tree/src/cart.c" 2>/dev/null)
[ -n "$owner" ] && [ "$owner" -ge 60000 ] && [ "$owner" -le 60999 ] && pass "unpacked as the job's uid ($owner)" \
    || fail "unpacked as uid '$owner'"
[ ! -e "$tree/.git" ] && [ ! -e "$tree/build-old" ] && pass "no .git, no build folder travelled" || fail "tree: $(ls -a "$tree")"
[ -d "$T/coordstate/snapshots/tars/$SHA" ] && pass "coordinator parsed its own unpacked copy" || fail "no coordinator tree"

# auto: not a git work tree, so tar (the same bytes: no second upload stored)
out=$(timeout 600 "$WHITTLE" reduce --cluster "$EP" --snapshot auto "${args[@]}" --out s2 2>&1) || fail "auto: $out"
echo "$out" | grep -q "(sha256 $(echo "$SHA" | cut -c1-12))" && pass "auto sent the same tar" || fail "auto: $(echo "$out" | head -3)"
check_eq "one tar stored" "$(ls "$T/coordstate/snapshots/blobs" | grep -c '\.tgz$')" 1

# Too big: refused on the client before anything is sent.
head -c 300000 /dev/urandom > "$P/blob.bin"
out=$("$WHITTLE" reduce --cluster "$EP" --snapshot tar --snapshot-max 100K "${args[@]}" --out s3 2>&1); rc=$?
check_eq "too big: exit" "$rc" 2
check_eq "too big: one line" "$(echo "$out" | wc -l)" 1
echo "$out" | grep -q "^whittle: error: project $P packs to [0-9.]* KiB (gzip'd tar), over the limit of 100.0 KiB (--snapshot-max)" \
    && pass "too big: names the limit and the size" || fail "too big: $out"
rm -f "$P/blob.bin"
# A symlink out of the project is refused on the client.
ln -s /etc/passwd "$P/src/passwd"
out=$("$WHITTLE" reduce --cluster "$EP" --snapshot tar "${args[@]}" --out s4 2>&1); rc=$?
check_eq "link out: exit" "$rc" 2
echo "$out" | grep -q "symlink $P/src/passwd points out of the project (to '/etc/passwd')" && pass "link out named" || fail "link out: $out"
rm -f "$P/src/passwd"

# A hostile client forges tars: "../escaped" and an absolute symlink.
job_json() { # out
    cat <<J
{"project": "/client/cart", "file": "tests/test_cart.c", "test": "test_added_item_is_in_cart",
 "framework": "cmocka", "setup": "true", "build": "true", "run": "build/test_cart", "out": "$1",
 "tar": {"sha256": "$(sha256sum < "$2" | cut -c1-64)", "size": $(stat -c %s "$2")}}
J
}
python3 - "$T" <<'PY'
import io, sys, tarfile
t = sys.argv[1]
def forge(name, entries):
    with tarfile.open(f"{t}/{name}.tgz", "w:gz") as tf:
        for kind, path, arg in entries:
            ti = tarfile.TarInfo(path)
            if kind == "file":
                data = arg.encode(); ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
            elif kind == "dir":
                ti.type = tarfile.DIRTYPE; tf.addfile(ti)
            else:
                ti.type = tarfile.SYMTYPE; ti.linkname = arg; tf.addfile(ti)
forge("dotdot", [("dir", "tests", None), ("file", "tests/test_cart.c", "int x;\n"),
                 ("file", "../escaped", "pwned\n")])
forge("abslink", [("dir", "tests", None), ("sym", "tests/etc", "/etc"),
                  ("file", "tests/test_cart.c", "int x;\n")])
PY
for f in dotdot abslink; do
    job_json "h-$f" "$T/$f.tgz" > "$T/$f.json"
    "$B/tests/wh_peer" --connect "$EP" --secret-key "$K/clients/alice.secret" --server-key "$K/coord.public" \
        --send tar --tar "$T/$f.tgz" --json "$T/$f.json" --wait 8000 > "$T/$f.peer" 2>&1
done
grep -q "^BLOB held $(stat -c %s "$T/dotdot.tgz") code 0$" "$T/dotdot.peer" && pass "forged tar uploaded" || fail "upload: $(cat "$T/dotdot.peer")"
grep -q "^final 2 .*tar snapshot refused: entry '../escaped' has a '..' component" "$T/dotdot.peer" \
    && pass "'../escaped' refused, named" || fail "dotdot: $(cat "$T/dotdot.peer")"
grep -q "^final 2 .*tar snapshot refused: symlink 'tests/etc' points out of the snapshot (to '/etc')" "$T/abslink.peer" \
    && pass "absolute symlink refused, named" || fail "abslink: $(cat "$T/abslink.peer")"
found=$(find "$T" -name escaped 2>/dev/null)
[ -z "$found" ] && pass "nothing written outside" || fail "escaped: $found"
[ -z "$(ls "$T/coordstate/snapshots/tars" | grep -v "^$SHA$")" ] && pass "no partial tree left" \
    || fail "left: $(ls "$T/coordstate/snapshots/tars")"
# Another key may not name alice's tar by its hash.
job_json h-theft "$T/coordstate/snapshots/blobs/$SHA.tgz" > "$T/theft.json"
"$B/tests/wh_peer" --connect "$EP" --secret-key "$K/clients/bob.secret" --server-key "$K/coord.public" \
    --send submit --json "$T/theft.json" --wait 3000 > "$T/theft.peer" 2>&1
grep -q "^final 2 tar snapshot $(echo "$SHA" | cut -c1-12) was not uploaded to this coordinator by client key bob; refused" \
    "$T/theft.peer" && pass "another key cannot name the tar by its hash" || fail "theft: $(cat "$T/theft.peer")"
finish
