#!/bin/sh
# Builds the whittle images on a machine without a container registry:
#   1. debootstrap a Debian 12 root file system from the Debian archive,
#   2. import it as the base image localhost/debian:12,
#   3. podman build both images with --build-arg BASE=localhost/debian:12,
#      tagged :latest and :VERSION (the project's version, the tag the k8s
#      kustomization pins),
#   4. and a stand-in for the official Redis image the manifests name
#      (Containerfile.redis: Debian's redis-server 7.0.15), tagged
#      localhost/redis:7.0.15-bookworm.
# Run as root from anywhere:  containers/build-local.sh [coordinator] [node] [redis]
# Steps 1-2 are skipped when the base image exists (FORCE_BASE=1 redoes them).
#
# Environment:
#   MIRROR        Debian mirror              (http://deb.debian.org/debian)
#   ROOTFS        debootstrap target          (/var/tmp/whittle-debian12-rootfs)
#   BASE_TAR      a tar of a minbase bookworm root file system to unpack into
#                 ROOTFS instead of running debootstrap (e.g. one saved earlier
#                 with `tar -C $ROOTFS -cf base.tar .`)
#   BASE_IMAGE    name of the imported base   (localhost/debian:12)
#   ISOLATION     podman build --isolation    (chroot: crun/runc cannot create
#                 containers in the sandbox this was written in, see README)
#   PODMAN_FLAGS  global podman flags, e.g. "--storage-driver vfs"
#   BUILD_FLAGS   extra podman build flags, e.g. "--build-arg EXTRA_PACKAGES=clang"
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ROOTFS=${ROOTFS:-/var/tmp/whittle-debian12-rootfs}
BASE_IMAGE=${BASE_IMAGE:-localhost/debian:12}
ISOLATION=${ISOLATION:-chroot}
PODMAN_FLAGS=${PODMAN_FLAGS:-}
BUILD_FLAGS=${BUILD_FLAGS:-}
targets=${*:-coordinator node redis}
version=$(sed -n 's/^project(whittle VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")

need() { command -v "$1" >/dev/null 2>&1 || missing="${missing:-} $2"; }
missing=
need podman podman
need debootstrap debootstrap
if [ -n "$missing" ]; then
    echo "build-local: installing$missing" >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
fi

# shellcheck disable=SC2086
if [ "${FORCE_BASE:-0}" = 1 ] || ! podman $PODMAN_FLAGS image exists "$BASE_IMAGE"; then
    if [ ! -x "$ROOTFS/usr/bin/apt-get" ] || [ "${FORCE_BASE:-0}" = 1 ]; then
        rm -rf "$ROOTFS"
        if [ -n "${BASE_TAR:-}" ]; then
            echo "build-local: unpacking $BASE_TAR into $ROOTFS" >&2
            mkdir -p "$ROOTFS"
            tar -C "$ROOTFS" -xf "$BASE_TAR"
        else
            echo "build-local: debootstrap bookworm into $ROOTFS (a few minutes)" >&2
            debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR"
        fi
    fi
    # Like the official image: updates and security suites, no package caches.
    cat > "$ROOTFS/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
SOURCES
    rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
    echo "build-local: importing $ROOTFS as $BASE_IMAGE" >&2
    tar -C "$ROOTFS" -c . | podman $PODMAN_FLAGS import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE"
fi

cd "$repo"
for t in $targets; do
    case $t in coordinator|node|redis) ;; *) echo "build-local: unknown image '$t'" >&2; exit 2 ;; esac
    if [ "$t" = redis ]; then
        echo "build-local: building localhost/redis:7.0.15-bookworm (Debian's redis-server)" >&2
        # shellcheck disable=SC2086
        podman $PODMAN_FLAGS build --isolation "$ISOLATION" \
            --build-arg BASE="$BASE_IMAGE" \
            -f containers/Containerfile.redis -t localhost/redis:7.0.15-bookworm $BUILD_FLAGS containers
        continue
    fi
    echo "build-local: building whittle-$t" >&2
    # shellcheck disable=SC2086
    podman $PODMAN_FLAGS build --isolation "$ISOLATION" \
        --build-arg BASE="$BASE_IMAGE" \
        --ignorefile containers/.containerignore \
        -f "containers/Containerfile.$t" -t "localhost/whittle-$t:latest" $BUILD_FLAGS .
    # shellcheck disable=SC2086
    [ -z "$version" ] || podman $PODMAN_FLAGS tag "localhost/whittle-$t:latest" "localhost/whittle-$t:$version"
done
# shellcheck disable=SC2086
podman $PODMAN_FLAGS images --filter reference='localhost/whittle-*' --filter reference='localhost/redis' \
    --format '{{.Repository}}:{{.Tag}} {{.Size}}'
