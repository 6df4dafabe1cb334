#!/bin/sh
# Entrypoint of the whittle coordinator image.
#   no arguments, or arguments starting with '-'  -> whittle-coordinator with the
#       settings below, the arguments appended (e.g. -v, --heartbeat 500)
#   anything else                                  -> run it (e.g. `whittle status
#       --cluster tcp://coordinator:7700`, `sh`)
# Environment:
#   WHITTLE_BIND   endpoint to listen on            (default tcp://0.0.0.0:7700)
#   WHITTLE_CACHE  verdict cache spec               (default redis://redis:6379/0;
#                  set it empty for the embedded cache in $WHITTLE_CACHE_DIR)
#   WHITTLE_VERBOSE=1  adds -v
set -e
if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then
    exec "$@"
fi
set -- --bind "${WHITTLE_BIND:-tcp://0.0.0.0:7700}" "$@"
if [ -n "${WHITTLE_CACHE-redis://redis:6379/0}" ]; then
    set -- --cache "${WHITTLE_CACHE-redis://redis:6379/0}" "$@"
fi
[ "${WHITTLE_VERBOSE:-0}" = 0 ] || set -- -v "$@"
exec /usr/local/bin/whittle-coordinator "$@"
