#!/bin/bash
# Least privilege on a node (issue 10). A whittle-node started as root runs
# a job's commands (setup, build, test) as nobody by default: every file
# they make in the workspace is nobody's, HOME is nobody's folder under the
# workdir, and the project a root node copied is not writable by them. With
# --sandbox bwrap a command sees only its workspace, the read-only system
# and a loopback-only network: a write into a host folder anyone may write
# fails there (the same write without the sandbox lands, as nobody). The
# node refuses at start, with one clear line, a user that does not exist, a
# workdir nobody cannot enter, and a sandbox without bwrap.
# Needs root (exit 77: skipped otherwise).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root" >&2; exit 77; }
B="$WH_BINARY_DIR"
NODE="$B/node/whittle-node"
PIDS=()
trap 'stop_all; rm -rf "$T"' EXIT
CLUSTER_INSECURE=1 # slots_joined, wait_slots (lib.sh)
start_node() { # workdir log args...
    local wd=$1 log=$2; shift 2
    "$NODE" --connect "$EP" --insecure --slots 1 --workdir "$wd" "$@" > "$log" 2>&1 &
    PIDS+=($!)
}

P="$T/tally"; cp -r "$FIX/tally" "$P"
P_DIGEST=$(tree_digest "$P")
O="$T/outside"; mkdir -m 777 "$O"
want='static void test_total(void)
{
    int total = 0;
    assert(total == 8);
}'
# The jobs probe the node (they write outside their workspace, into the
# project): never run on this machine (--no-verify-local), so the lone
# node's answer is not verified, exit 5 (issue 34), which counts as done.
job() { # out setup [build]; a job no node takes must not hang the test
    timeout 300 "$WHITTLE" reduce --cluster "$EP" --insecure --project "$P" --file tests/test_tally.c \
        --test test_total --setup "$2" --build "${3:-make -s}" --run ./test_tally --framework plain \
        --no-verify-local --out "$1" > "$T/$1.out" 2>&1
    local rc=$?
    [ "$rc" -eq 5 ] && return 0
    return "$rc"
}
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"

# 1. As nobody (--run-as; root's default is a uid per client key and
# workspace: tenant.sh), no sandbox (--sandbox none: no warning;
# the default sandbox is tenant.sh's).
W="$T/wd-plain"
start_node "$W" "$T/plain.log" --sandbox none --run-as nobody
wait_slots 1
grep -q "^whittle-node: job commands run as nobody$" "$T/plain.log" && pass "the node says it runs commands as nobody" \
    || fail "node log: $(cat "$T/plain.log")"
grep -q "warning" "$T/plain.log" && fail "--sandbox none warned: $(cat "$T/plain.log")" || pass "--sandbox none: no warning"
job plain 'make -s && id -un > who && echo "$HOME" > home && touch home-is-writable-"$(test -w "$HOME" && echo yes)" && echo x > "'"$O"'/by-plain" && { echo y >> "'"$P"'/Makefile"; echo $? > project-write; }' \
    || { cat "$T/plain.out"; fail "job on the default node"; }
check_eq "default node: answer" "$(awk '/^static void test_total/,/^}/' "$(run_dir "$T/plain")/reduced.c")" "$want"
S=$(ls -d "$W"/ws/*/slot-0)
check_eq "setup ran as" "$(cat "$S/who")" nobody
# HOME is the workspace's own scratch (node/scratch.h), not nobody's shared one.
case "$(cat "$S/home")" in "$W"/ws/*.scratch/home) pass "HOME is the workspace's own";; *) fail "HOME: $(cat "$S/home")";; esac
[ -e "$S/home-is-writable-yes" ] && pass "HOME is writable by nobody" || fail "HOME is not writable by nobody"
check_eq "owner of the binary the build made" "$(stat -c %U "$S/test_tally")" nobody
check_eq "owner of the object files" "$(stat -c %U "$S"/build/*.o | sort -u)" nobody
check_eq "owner of HOME" "$(stat -c '%U %a' "$W/home-nobody")" "nobody 700"
check_eq "a write into a 777 host folder lands, as nobody" "$(stat -c %U "$O/by-plain" 2>&1)" nobody
[ "$(cat "$S/project-write")" != 0 ] && pass "the project is not writable by the job" || fail "the job wrote into the project"
check_eq "project untouched" "$(tree_digest "$P")" "$P_DIGEST"
stop_all

# 2. --sandbox bwrap.
port=$(free_port); EP="tcp://127.0.0.1:$port"
"$B/coordinator/whittle-coordinator" --runs "$T" --bind "$EP" --insecure --cache memory: > "$T/coord2.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord2.log"
W="$T/wd-boxed"
start_node "$W" "$T/boxed.log" --sandbox bwrap --run-as nobody
# Where no user namespace can be made for nobody (inside a chroot, as in
# .ci/fresh, or a kernel that forbids unprivileged ones) the node refuses at
# start with its reason: the sandbox checks are skipped, said so, not failed.
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 30 ]; do grep -q "no sandbox starts as nobody" "$T/boxed.log" && break; sleep 0.1; done
if grep -q "^whittle-node: error: --sandbox bwrap: no sandbox starts as nobody: " "$T/boxed.log"; then
    echo "skip sandbox checks: $(head -1 "$T/boxed.log")" >&2
    BOXED=0
else
    BOXED=1
fi
if [ "$BOXED" = 1 ]; then
wait_slots 1
grep -q "^whittle-node: job commands run as nobody in a bwrap sandbox (loopback-only network)$" "$T/boxed.log" \
    && pass "the node says it sandboxes" || fail "node log: $(cat "$T/boxed.log")"
BOXED_SETUP='make -s && id -un > who && sed -n "s/^ *\([a-z0-9]*\):.*/\1/p" /proc/net/dev > ifaces'
job boxed "$BOXED_SETUP" || { cat "$T/boxed.out"; fail "job on the sandboxed node"; }
check_eq "sandboxed node: answer" "$(awk '/^static void test_total/,/^}/' "$(run_dir "$T/boxed")/reduced.c")" "$want"
S=$(ls -d "$W"/ws/*/slot-0)
check_eq "sandbox: setup ran as" "$(cat "$S/who")" nobody
check_eq "sandbox: network interfaces" "$(cat "$S/ifaces")" lo
check_eq "sandbox: owner of the binary" "$(stat -c %U "$S/test_tally")" nobody
# Another entry of the key folder (as another slot's workspace would be):
# hidden from the commands, and nothing written there reaches it.
K=$(dirname "$S"); mkdir -m 777 "$K/planted"; echo secret > "$K/planted/secret"
job probe "$BOXED_SETUP" 'cat ../planted/secret > saw 2>&1; echo x > ../planted/escaped; make -s' \
    || { cat "$T/probe.out"; fail "sandbox: job probing its key folder"; }
check_eq "sandbox: another folder beside the workspace is masked" "$(cat "$S/saw")" \
    "cat: ../planted/secret: No such file or directory"
check_eq "sandbox: nothing written into it" "$(ls "$K/planted")" secret
job escape 'make -s && echo x > "'"$O"'/by-boxed"'; rc=$?
[ "$rc" -ne 0 ] && pass "sandbox: a setup writing outside its workspace fails (exit $rc)" || fail "sandbox: the escaping setup succeeded"
grep -q "setup failed.*exited 2" "$T/escape.out" && pass "sandbox: the client names the failed setup" || fail "sandbox: client said: $(cat "$T/escape.out")"
[ ! -e "$O/by-boxed" ] && pass "sandbox: nothing written outside" || fail "sandbox: $O/by-boxed exists"
# A build tool the host has where the sandbox does not look (here under
# /tmp): the client's error says the sandbox hid it, and what to do.
printf '#!/bin/sh\nexec make -s\n' > "$O/host-tool"; chmod 755 "$O/host-tool"
job hosttool 'make -s' "$O/host-tool"; rc=$?
[ "$rc" -ne 0 ] && grep -q "missing tool): build exited 127: .*host-tool: not found\` (this node runs job commands in a bwrap sandbox, which shows the system folders, the workspace and a private /tmp: a tool or file elsewhere on the host is not there; install it under /usr or /opt, or start the node with --sandbox none)" "$T/hosttool.out" \
    && pass "sandbox: a host tool it hides is named as hidden (exit $rc)" || fail "sandbox: host tool: exit $rc: $(cat "$T/hosttool.out")"
fi
stop_all

# 3. Refused at start, one line each.
refuse() { # name want path args...
    local name=$1 want=$2 path=$3; shift 3
    env PATH="$path" "$NODE" --connect tcp://127.0.0.1:1 --insecure "$@" > "$T/r.out" 2>&1; local rc=$?
    check_eq "$name" "$rc $(cat "$T/r.out")" "1 $want"
}
refuse "unknown user" "whittle-node: error: --run-as: no such user 'no-such-user-x'" "$PATH" \
    --workdir "$T/w1" --run-as no-such-user-x
mkdir -m 700 "$T/closed"
refuse "workdir nobody cannot enter" \
    "whittle-node: error: --run-as nobody: cannot enter workdir '$T/closed/wd': Permission denied (every folder above it must be searchable by nobody)" \
    "$PATH" --workdir "$T/closed/wd"
refuse "no bwrap" "whittle-node: error: --sandbox bwrap: bwrap is not on PATH (Debian: apt-get install bubblewrap)" \
    /nonexistent --workdir "$T/w2" --sandbox bwrap

# 4. The default (--sandbox auto) where no sandbox starts: the node starts,
# and says why it confines nothing, in one warning line.
env PATH=/nonexistent "$NODE" --connect tcp://127.0.0.1:1 --insecure --workdir "$T/w3" > "$T/auto.log" 2>&1 &
PIDS+=($!)
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 30 ] && ! grep -qs "^whittle-node: warning" "$T/auto.log"; do sleep 0.1; done
check_eq "default without bwrap: the warning" "$(grep -c . "$T/auto.log") $(grep warning "$T/auto.log")" \
    "3 whittle-node: warning: no sandbox: bwrap is not on PATH (Debian: apt-get install bubblewrap); job commands see this host's files and network (their uids keep other jobs' workspaces out); --sandbox none silences this"
stop_all
finish
