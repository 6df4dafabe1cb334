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
#   WHITTLE_SECRET_KEY   the coordinator's CURVE secret key file
#                        (default /run/secrets/coordinator_key when it exists)
#   WHITTLE_NODES_DIR    allow-list: folder of node *.public keys   (default /etc/whittle/nodes)
#   WHITTLE_CLIENTS_DIR  allow-list: folder of client *.public keys (default /etc/whittle/clients)
#   WHITTLE_REDIS_PASSWORD_FILE  file holding the Redis password
#                        (default /run/secrets/redis_password when it exists);
#                        exported as WHITTLE_REDIS_PASSWORD, never on the command line
#   WHITTLE_CACHE_SECRET_FILE  the cluster secret that MACs every value in Redis
#                        (default /run/secrets/cache_secret when it exists);
#                        passed as --cache-secret-file, the file, never the secret
#   WHITTLE_GRANTS       "KEY=ROOT ..." (space-separated): the folders each client
#                        key may name as a project (--grant, one per entry); a key
#                        without one may only send snapshots (--snapshot git)
#   WHITTLE_INSECURE=1   no keys (whittle-coordinator refuses it off loopback)
#   WHITTLE_METRICS  [HOST:]PORT for Prometheus /metrics and the /healthz,
#                    /readyz probes (default 0.0.0.0:9100 in the image; set it
#                    empty to serve none)
#   WHITTLE_RUNS   the folder every submitted job's run folder lives under
#                  (default /projects/whittle-runs; a job's "out" is a name under it)
#   WHITTLE_VERBOSE=1  adds -v
set -e
if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then
    exec "$@"
fi
set -- --bind "${WHITTLE_BIND:-tcp://0.0.0.0:7700}" --runs "${WHITTLE_RUNS:-/projects/whittle-runs}" "$@"
if [ -n "${WHITTLE_CACHE-redis://redis:6379/0}" ]; then
    set -- --cache "${WHITTLE_CACHE-redis://redis:6379/0}" "$@"
fi
secret="${WHITTLE_SECRET_KEY:-/run/secrets/coordinator_key}"
if [ "${WHITTLE_INSECURE:-0}" != 0 ]; then
    set -- --insecure "$@"
elif [ -r "$secret" ]; then
    for g in ${WHITTLE_GRANTS:-}; do
        set -- --grant "$g" "$@"
    done
    set -- --secret-key "$secret" --nodes "${WHITTLE_NODES_DIR:-/etc/whittle/nodes}" \
           --clients "${WHITTLE_CLIENTS_DIR:-/etc/whittle/clients}" "$@"
fi
pwfile="${WHITTLE_REDIS_PASSWORD_FILE:-/run/secrets/redis_password}"
if [ -z "${WHITTLE_REDIS_PASSWORD:-}" ] && [ -r "$pwfile" ]; then
    WHITTLE_REDIS_PASSWORD="$(cat "$pwfile")"
    export WHITTLE_REDIS_PASSWORD
fi
cachesecret="${WHITTLE_CACHE_SECRET_FILE:-/run/secrets/cache_secret}"
[ ! -r "$cachesecret" ] || set -- --cache-secret-file "$cachesecret" "$@"
[ -z "${WHITTLE_METRICS:-}" ] || set -- --metrics "$WHITTLE_METRICS" "$@"
[ "${WHITTLE_VERBOSE:-0}" = 0 ] || set -- -v "$@"
exec /usr/local/bin/whittle-coordinator "$@"
