#!/bin/bash
# The images' entrypoints on the host: each WHITTLE_* variable becomes the
# documented flag (exact argument lists), the Redis password never reaches the
# command line, a non-flag argument runs instead of the daemon, and every flag
# an entrypoint passes is one the real daemon's --help lists.
# The entrypoints exec /usr/local/bin/<daemon>; a copy execs a stub that prints
# its arguments (one per line) and WHITTLE_REDIS_PASSWORD / WHITTLE_*_KEY.
source "$(dirname "$0")/lib.sh"
C="$WH_SOURCE_DIR/containers"
mkdir -p "$T/bin" "$T/stubs"
for d in whittle-coordinator whittle-node whittle; do
    cat > "$T/stubs/$d" <<'STUB'
#!/bin/sh
echo "$(basename "$0")"
for a in "$@"; do echo "$a"; done
echo "pw=${WHITTLE_REDIS_PASSWORD-unset} sk=${WHITTLE_SECRET_KEY-unset} pk=${WHITTLE_SERVER_KEY-unset}"
STUB
    chmod 755 "$T/stubs/$d"
done
for e in coordinator node; do
    sed "s:/usr/local/bin/:$T/stubs/:g" "$C/$e-entrypoint.sh" > "$T/bin/$e-entrypoint"
    chmod 755 "$T/bin/$e-entrypoint"
done
# The image's environment (its ENV lines), then the case's own variables.
image_env() { # image
    awk '/^ENV /{on=1} on{print} on && !/\\$/{on=0}' "$C/Containerfile.$1" \
        | sed 's/^ENV //; s/\\$//' | tr -s ' \n' '\n\n' | grep '='
}
run() { # image [VAR=value...] -- [args...]
    local image=$1 vars=(); shift
    while [ "$1" != -- ]; do vars+=("$1"); shift; done; shift
    mapfile -t ienv < <(image_env "$image")
    out=$(env -i PATH="$T/stubs:/usr/bin:/bin" "${ienv[@]}" \
        "${vars[@]}" "$T/bin/$image-entrypoint" "$@" | tr '\n' ' ' | sed 's/ $//')
    case $out in "whittle-$image "*) echo "$out" >> "$T/$image.argv" ;; esac
    echo "$out"
}
# Default paths like /run/secrets/coordinator_key must not exist on the host,
# or the "no key" cases below would pick them up.
for f in /run/secrets/coordinator_key /run/secrets/redis_password /run/secrets/node_key; do
    [ ! -e "$f" ] || { echo "skip: $f exists on this host" >&2; exit 77; }
done

# coordinator: the image's defaults (ENV WHITTLE_METRICS=0.0.0.0:9100, Redis cache)
check_eq "coordinator defaults" "$(run coordinator --)" \
    "whittle-coordinator --metrics 0.0.0.0:9100 --cache redis://redis:6379/0 --bind tcp://0.0.0.0:7700 --runs /projects/whittle-runs pw=unset sk=unset pk=unset"
# keys, allow-lists, --runs, the password file, -v, appended flags
printf 'k' > "$T/coord.secret"; printf 's3cret\n' > "$T/redis.pw"
check_eq "coordinator with keys" \
    "$(run coordinator WHITTLE_SECRET_KEY="$T/coord.secret" WHITTLE_NODES_DIR=/k/n WHITTLE_CLIENTS_DIR=/k/c \
        WHITTLE_REDIS_PASSWORD_FILE="$T/redis.pw" WHITTLE_RUNS=/srv/p/runs WHITTLE_BIND=tcp://0.0.0.0:7800 \
        WHITTLE_METRICS=9200 WHITTLE_VERBOSE=1 -- --heartbeat 500)" \
    "whittle-coordinator -v --metrics 9200 --secret-key $T/coord.secret --nodes /k/n --clients /k/c --cache redis://redis:6379/0 --bind tcp://0.0.0.0:7800 --runs /srv/p/runs --heartbeat 500 pw=s3cret sk=$T/coord.secret pk=unset"
# WHITTLE_GRANTS: one --grant per entry (issue 34)
check_eq "coordinator with grants" \
    "$(run coordinator WHITTLE_SECRET_KEY="$T/coord.secret" WHITTLE_METRICS= \
        WHITTLE_GRANTS="alice=/projects/alice bob=/projects/bob" --)" \
    "whittle-coordinator --secret-key $T/coord.secret --nodes /etc/whittle/nodes --clients /etc/whittle/clients --grant bob=/projects/bob --grant alice=/projects/alice --cache redis://redis:6379/0 --bind tcp://0.0.0.0:7700 --runs /projects/whittle-runs pw=unset sk=$T/coord.secret pk=unset"
# empty WHITTLE_CACHE: the embedded cache; empty WHITTLE_METRICS: no endpoint
check_eq "coordinator insecure, embedded cache, no metrics" \
    "$(run coordinator WHITTLE_CACHE= WHITTLE_METRICS= WHITTLE_INSECURE=1 -- -v)" \
    "whittle-coordinator --insecure --bind tcp://0.0.0.0:7700 --runs /projects/whittle-runs -v pw=unset sk=unset pk=unset"
# a command instead of the daemon (the CLI of the image)
check_eq "coordinator runs a command" "$(run coordinator -- whittle status --cluster tcp://c:7700)" \
    "whittle status --cluster tcp://c:7700 pw=unset sk=unset pk=unset"

# node: the image's defaults, keys through the environment
mkdir -p "$T/work"
check_eq "node defaults" "$(run node WHITTLE_WORKDIR="$T/work" --)" \
    "whittle-node --connect tcp://coordinator:7700 --slots 4 --workdir $T/work pw=unset sk=unset pk=/etc/whittle/coordinator.public"
check_eq "node settings" \
    "$(run node WHITTLE_WORKDIR="$T/work/new" WHITTLE_SLOTS=auto WHITTLE_MAX_DISK=50G WHITTLE_NODE_ID=n1 \
        WHITTLE_SANDBOX=bwrap WHITTLE_SECRET_KEY=/k/node.secret WHITTLE_SERVER_KEY=/k/c.public WHITTLE_VERBOSE=1 -- --heartbeat 500)" \
    "whittle-node -v --sandbox bwrap --id n1 --max-disk 50G --connect tcp://coordinator:7700 --slots $(nproc) --workdir $T/work/new --heartbeat 500 pw=unset sk=/k/node.secret pk=/k/c.public"
check_eq "node creates its workdir" "$(test -d "$T/work/new" && echo yes)" yes
check_eq "node insecure" "$(run node WHITTLE_WORKDIR="$T/work" WHITTLE_INSECURE=1 --)" \
    "whittle-node --insecure --connect tcp://coordinator:7700 --slots 4 --workdir $T/work pw=unset sk=unset pk=unset"

# Every flag the entrypoints passed above (the cases cover each branch) is one
# the real daemon lists in its --help.
for d in coordinator node; do
    help=$("$WH_BINARY_DIR/$d/whittle-$d" --help 2>&1)
    for flag in $(tr ' ' '\n' < "$T/$d.argv" | grep -E '^--?[a-z][a-z-]*$' | sort -u); do
        if grep -qE -- "(^|[ ,])$flag([ ,=]|$)" <<<"$help"; then pass "whittle-$d --help lists $flag"
        else fail "$d-entrypoint passes $flag, which whittle-$d --help does not list"; fi
    done
done
for v in WHITTLE_SECRET_KEY WHITTLE_SERVER_KEY; do
    if grep -q "\$$v" <<<"$("$WH_BINARY_DIR/node/whittle-node" --help 2>&1)"; then pass "whittle-node reads $v"
    else fail "node-entrypoint exports $v but whittle-node --help does not name it"; fi
done
finish
