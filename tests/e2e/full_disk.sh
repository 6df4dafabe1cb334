#!/bin/bash
# A node whose disk fills up (issue 8): a cluster of two whittle-nodes over
# tcp, one ("full") with its workdir and TMPDIR on a 2 MiB tmpfs, the other
# healthy.
#  1. Healthy run: both nodes judge candidates; this is the answer.
#  2. The tmpfs is filled. Same job, fresh cache, the full node first in
#     line: its builds fail with ENOSPC (gcc cannot write its temporary
#     file). Each such run is an InfraError (code WH_ETAINT), never a
#     verdict: the candidate is retried on the healthy node, the full
#     slot leaves rotation after 3 in a row and is named in `whittle status`
#     and run.log. The reduced test and the whole candidate/verdict sequence
#     equal the healthy run's; the cache holds exactly the evaluated
#     verdicts, no InfraError.
#  3. A new workspace on the full disk (another setup command): its setup
#     fails there, the original's run goes to the healthy node.
#  4. Disk freed, rerun: everything from the cache, the same answer.
# Needs root for the mount: exits 77 (skipped) otherwise.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
if [ "$(id -u)" != 0 ]; then echo "skip: needs root to mount a tmpfs" >&2; exit 77; fi
FULL="$T/full"
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=2m tmpfs "$FULL" 2>"$T/mount.err"; then
    echo "skip: cannot mount a tmpfs: $(cat "$T/mount.err")" >&2; rm -rf "$T"; exit 77
fi
PIDS=()
trap 'stop_all; umount "$FULL" 2>/dev/null; rm -rf "$T"' EXIT

P="$T/headers"; cp -r "$FIX/headers" "$P"
args=(--project "$P" --file tests/test_request.c --test test_should_read_headers
      --setup "make -s" --build "make -s" --run "./test_request" --framework cmocka)

start_coord() { # cache-spec
    local port; port=$(free_port)
    EP="tcp://127.0.0.1:$port"
    "$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache "$1" -v > "$T/coord.$port.log" 2>&1 &
    PIDS+=($!)
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do "$WHITTLE" status --cluster "$EP" --insecure > /dev/null 2>&1 && return 0; sleep 0.1; done
    fail "coordinator did not start"
}
slots() { "$WHITTLE" status --cluster "$EP" --insecure | sed -n 's/^nodes: [0-9]*  slots: \([0-9]*\).*/\1/p'; }
start_node() { # id workdir want-slots [env...]
    local id=$1 wd=$2 want=$3; shift 3
    env "$@" "$B/node/whittle-node" --connect "$EP" --insecure --slots 1 --workdir "$wd" --id "$id" > "$T/$id.log" 2>&1 &
    PIDS+=($!)
    _t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do [ "$(slots)" = "$want" ] && return 0; sleep 0.1; done
    fail "node $id did not join"
}
mkdir -p -m 1777 "$FULL/tmp" # TMPDIR of the full node, whose commands run as nobody

# 1. Healthy run.
start_coord memory:
start_node full "$FULL/w" 1 TMPDIR="$FULL/tmp"
start_node healthy "$T/healthy" 2
"$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out "a" > "$T/a.out" 2>&1 || { cat "$T/a.out"; fail "healthy run"; }
A=$(run_dir "$T/a")
grep -q ',full/' "$A/candidates.csv" && pass "healthy run: the full node's slot judged candidates" \
    || fail "healthy run: the full node judged nothing"
check_eq "healthy run: infra faults" "$(json "$A/summary.json" .infra_faults)" 0
stop_all

# 2. The disk fills up.
head -c 4M /dev/zero > "$FULL/filler" 2>/dev/null
check_eq "tmpfs free KiB after filling" "$(df -k --output=avail "$FULL" | tail -n1 | tr -d ' ')" 0
start_coord "dir:$T/c2"
start_node full "$FULL/w" 1 TMPDIR="$FULL/tmp"
start_node healthy "$T/healthy" 2
"$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out "b" > "$T/b.out" 2>&1 || { cat "$T/b.out"; fail "full-disk run"; }
R=$(run_dir "$T/b")
check_eq "full disk: reduced test equals the healthy run's" "$(cat "$R/reduced.c")" "$(cat "$A/reduced.c")"
check_eq "full disk: candidates and verdicts equal the healthy run's" \
    "$(cut -d, -f1-6 "$R/candidates.csv")" "$(cut -d, -f1-6 "$A/candidates.csv")"
check_eq "full disk: no verdict from the full node" "$(grep -c ',full/' "$R/candidates.csv")" 0
check_eq "full disk: InfraError verdicts" "$(json "$R/summary.json" .verdicts.InfraError)" 0
check_eq "full disk: infra faults (3 in a row, then out)" "$(json "$R/summary.json" .infra_faults)" 3
check_eq "full disk: slots out of rotation" "$(json "$R/summary.json" '.out_of_rotation | length')" 1
json "$R/summary.json" '.out_of_rotation[0]' | grep -q '^full/0/' && pass "summary names the full slot" \
    || fail "summary out_of_rotation: $(json "$R/summary.json" .out_of_rotation)"
# The reason is the compiler's ENOSPC, or, when even the console log could
# not be written, the full file system itself.
n=$(grep -c 'infra: e[0-9]* on full/0/[^ ]*: infrastructure fault (no space): ' "$R/run.log")
check_eq "run.log: no-space faults of the full slot" "$n" 3
n=$(grep -Ec 'infra: e[0-9]* on full/0/[^ ]*: infrastructure fault \(no space\): (build output: `.*No space left on device`|the file system of .*/full/w/ws/.* is full \([0-9]+ KiB free\))' "$R/run.log")
check_eq "run.log: ... each with the compiler's ENOSPC or the full file system" "$n" 3
grep -q 'infra: e[0-9]* on full/0/[^ ]*: infrastructure fault (no space): build output: `.*No space left on device`' "$R/run.log" \
    && pass "run.log quotes the compiler's ENOSPC" || fail "run.log: no ENOSPC quoted"
grep -q '^slot full/0/[^ ]* taken out of rotation: 3 infrastructure faults in a row; last: infrastructure fault (no space)' "$R/run.log" \
    && pass "run.log names the full slot out of rotation" || fail "run.log: no out-of-rotation line"
rows=$(awk -F, 'NR > 1 && $13 ~ /^"full\/0\/.*: infrastructure fault \(no space\)/' "$R/candidates.csv" | wc -l)
[ "$rows" -ge 1 ] && pass "candidates.csv: $rows rows carry the full slot's ENOSPC in the infra column" \
    || fail "candidates.csv: no infra detail"
"$WHITTLE" status --cluster "$EP" --insecure > "$T/status"
grep -q 'out of rotation: 1  infra faults: 3' "$T/status" && grep -Eq '^  slot full/0/[^ ]* +idle  OUT OF ROTATION: 3 infrastructure faults in a row' "$T/status" \
    && pass "whittle status names the full slot out of rotation" || fail "status: $(cat "$T/status")"
# Nothing tainted was cached: exactly the evaluated verdicts, none InfraError.
check_eq "cache: one verdict per evaluated candidate" "$(cut -d' ' -f1 "$T/c2/verdicts.log" | sort -u | wc -l)" \
    "$(json "$R/summary.json" .evaluated)"
check_eq "cache: InfraError lines" "$(grep -c InfraError "$T/c2/verdicts.log")" 0
bad=0
while IFS=, read -r id sw lv kept tot verdict cached node ms rep runs key infra predicted rest; do
    [ "${predicted:-0}" = 0 ] || continue # predictions live in their own key space
    got=$(grep "^$key " "$T/c2/verdicts.log" | tail -n1 | cut -d' ' -f2)
    [ "$got" = "$verdict" ] || bad=$((bad + 1))
done < <(tail -n +2 "$R/candidates.csv")
check_eq "cache: every candidate's cached verdict is its healthy verdict" "$bad" 0

stop_all

# 3. A workspace the full node cannot even set up (another setup command:
#    a new warm workspace, copied onto the full disk): the original's run
#    there is tainted too, and goes to the healthy node.
start_coord memory:
start_node full "$FULL/w" 1 TMPDIR="$FULL/tmp"
start_node healthy "$T/healthy" 2
sargs=("${args[@]}"); sargs[7]="make -s && true"
"$WHITTLE" reduce --cluster "$EP" --insecure "${sargs[@]}" --out "s" > "$T/s.out" 2>&1 || { cat "$T/s.out"; fail "setup on a full disk"; }
S=$(run_dir "$T/s")
check_eq "setup on a full disk: reduced test equals the healthy run's" "$(cat "$S/reduced.c")" "$(cat "$A/reduced.c")"
grep -q "infra: e0001 on full/0/[^ ]*: infrastructure fault (no space: .*No space left on device" "$S/run.log" \
    && pass "setup on a full disk: the original's run is an infrastructure fault" \
    || fail "setup on a full disk: $(grep infra: "$S/run.log" | head -n1)"
check_eq "setup on a full disk: no verdict from the full node" "$(grep -c ',full/' "$S/candidates.csv")" 0
stop_all

# 4. Disk freed: a rerun answers from the cache, with the healthy answer.
rm -f "$FULL/filler"
start_coord "dir:$T/c2"
start_node healthy "$T/healthy" 1
"$WHITTLE" reduce --cluster "$EP" --insecure "${args[@]}" --out "c" > "$T/c.out" 2>&1 || fail "rerun"
C=$(run_dir "$T/c")
check_eq "rerun: evaluated" "$(json "$C/summary.json" .evaluated)" 0
check_eq "rerun: reduced test equals the healthy run's" "$(cat "$C/reduced.c")" "$(cat "$A/reduced.c")"
stop_all
finish
