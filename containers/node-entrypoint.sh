#!/bin/sh
# Entrypoint of the whittle node image.
#   no arguments, or arguments starting with '-'  -> whittle-node with the settings
#       below, the arguments appended (e.g. -v, --heartbeat 500)
#   anything else                                  -> run it (e.g. `sh`)
# Environment:
#   WHITTLE_CONNECT   coordinator endpoint          (default tcp://coordinator:7700)
#   WHITTLE_SLOTS     build slots; "auto" = nproc   (default 4)
#   WHITTLE_MAX_DISK  cap on the workspaces' disk, e.g. 50G (default: no cap)
#   WHITTLE_WORKDIR   workspaces folder             (default /var/lib/whittle, a volume)
#   WHITTLE_NODE_ID   node name in run logs         (default: whittle-node's own)
#   WHITTLE_SANDBOX   auto, bwrap or none           (default: whittle-node's, auto);
#                     bwrap: the node refuses to start where no sandbox starts
#   WHITTLE_SECRET_KEY  this node's CURVE secret key file
#                       (default /run/secrets/node_key when it exists)
#   WHITTLE_SERVER_KEY  the coordinator's public key file
#                       (default /etc/whittle/coordinator.public)
#   WHITTLE_INSECURE=1  no keys (whittle-node refuses it off loopback)
#   WHITTLE_VERBOSE=1 adds -v
set -e
if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then
    exec "$@"
fi
slots="${WHITTLE_SLOTS:-4}"
[ "$slots" != auto ] || slots="$(nproc)"
workdir="${WHITTLE_WORKDIR:-/var/lib/whittle}"
mkdir -p "$workdir"
set -- --connect "${WHITTLE_CONNECT:-tcp://coordinator:7700}" --slots "$slots" \
       --workdir "$workdir" "$@"
[ -z "${WHITTLE_MAX_DISK:-}" ] || set -- --max-disk "$WHITTLE_MAX_DISK" "$@"
[ -z "${WHITTLE_NODE_ID:-}" ] || set -- --id "$WHITTLE_NODE_ID" "$@"
[ -z "${WHITTLE_SANDBOX:-}" ] || set -- --sandbox "$WHITTLE_SANDBOX" "$@"
if [ "${WHITTLE_INSECURE:-0}" != 0 ]; then
    set -- --insecure "$@"
else
    # whittle-node reads these two variables itself
    if [ -z "${WHITTLE_SECRET_KEY:-}" ] && [ -r /run/secrets/node_key ]; then
        export WHITTLE_SECRET_KEY=/run/secrets/node_key
    fi
    export WHITTLE_SERVER_KEY="${WHITTLE_SERVER_KEY:-/etc/whittle/coordinator.public}"
fi
[ "${WHITTLE_VERBOSE:-0}" = 0 ] || set -- -v "$@"
exec /usr/local/bin/whittle-node "$@"
