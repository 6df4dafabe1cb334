#!/bin/bash
# The images' Debian package lists against the code, without building an image:
#   - every library a shipped binary links directly (readelf NEEDED, resolved by
#     ldd, owned per dpkg -S) is installed by that image's runtime stage or is
#     part of the minbase Debian 12 base;
#   - every pkg-config module, protoc-c and libclang that CMake found on this
#     host belongs to a package the builder stage installs;
#   - the builder COPYs every top-level folder the CMake build reads.
# So a new library dependency fails here, not in the first `podman build`.
# Needs a Debian 12 host (the images' base), where the package names agree.
source "$(dirname "$0")/lib.sh"
C="$WH_SOURCE_DIR/containers"
. /etc/os-release 2>/dev/null || true
if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ] || ! command -v dpkg >/dev/null; then
    echo "skip: the Containerfiles' package names are Debian 12's; this host is ${PRETTY_NAME:-unknown}" >&2
    exit 77
fi
if grep -qE '^WH_(SANITIZE|FUZZ):BOOL=ON' "$WH_BINARY_DIR/CMakeCache.txt"; then
    echo "skip: a sanitizer/fuzz build links libraries the images do not ship" >&2
    exit 77
fi
# In every apt image: a minbase debootstrap of bookworm has them (apt needs them).
BASE_PKGS="libc6 libgcc-s1 libstdc++6 zlib1g libzstd1"

# The packages a stage's `apt-get install` names, its ARG defaults expanded
# (${PARSE_HEADERS}); ${EXTRA_PACKAGES}, empty by default, adds nothing.
stage_pkgs() { # Containerfile stage
    awk -v stage="$2" '
        /^FROM / { on = ($NF == stage); next }
        !on { next }
        { line = line $0 }
        /\\$/ { sub(/\\$/, " ", line); next }
        {
            if (match(line, /^ARG [A-Z_]+="[^"]*"/)) {
                name = substr(line, 5); sub(/=.*/, "", name)
                val = line; sub(/^[^"]*"/, "", val); sub(/".*/, "", val)
                arg[name] = val
            } else if (line ~ /apt-get install/) {
                s = line; sub(/.*apt-get install/, "", s); sub(/&&.*/, "", s)
                n = split(s, w, /[ \t]+/)
                for (i = 1; i <= n; i++) {
                    if (w[i] == "" || w[i] ~ /^-/) continue
                    if (w[i] ~ /^\$\{[A-Z_]+\}$/) {
                        k = substr(w[i], 3, length(w[i]) - 3)
                        m = split(arg[k], v, /[ \t]+/)
                        for (j = 1; j <= m; j++) if (v[j] != "") print v[j]
                    } else print w[i]
                }
            }
            line = ""
        }' "$1" | sort -u
}

# The package that owns a file (usrmerge: /lib/x is registered as /usr/lib/x
# or the other way round).
pkg_of() { # path
    local p
    for p in "$1" "/usr$1" "${1#/usr}" "$(readlink -f "$1")"; do
        dpkg -S "$p" 2>/dev/null | sed -n '1s/[:,].*//p' | grep . && return 0
    done
    return 1
}

# Each library a binary links directly and its package, "lib pkg" per line.
linked_pkgs() { # binary
    local lib path
    for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        path=$(ldd "$1" | awk -v l="$lib" '$1 == l && $3 ~ /^\// { print $3 }')
        if [ -z "$path" ]; then fail "$(basename "$1"): ldd does not find $lib"; continue; fi
        echo "$lib $(pkg_of "$path" || echo "unowned:$path")"
    done
}

check_runtime() { # image binaries...
    local image=$1 bin lib pkg have; shift
    have=" $(stage_pkgs "$C/Containerfile.$image" runtime | tr '\n' ' ') $BASE_PKGS "
    case "$have" in *" tini "*) pass "$image: tini installed" ;; *) fail "$image: no tini (the ENTRYPOINT)" ;; esac
    for bin in "$@"; do
        [ -x "$bin" ] || { fail "$image: $bin not built"; continue; }
        while read -r lib pkg; do
            case "$have" in
                *" $pkg "*) pass "$image: $(basename "$bin") links $lib from $pkg" ;;
                *) fail "$image: $(basename "$bin") links $lib from package $pkg, not in Containerfile.$image's runtime apt-get install" ;;
            esac
        done < <(linked_pkgs "$bin")
    done
}

check_builder() { # image binaries...
    local image=$1 have mod pc pkg inc lib dir bin path dev; shift
    have=" $(stage_pkgs "$C/Containerfile.$image" builder | tr '\n' ' ') "
    need() { # what pkg
        case "$have" in *" $2 "*) pass "$1: builder installs $2" ;;
            *) fail "$1: $2 provides $3, not in Containerfile.$1's builder apt-get install" ;; esac
    }
    for mod in $(sed -n 's/^pkg_check_modules([A-Z0-9_]* REQUIRED IMPORTED_TARGET \([^ )]*\)).*/\1/p' \
                     "$WH_SOURCE_DIR/CMakeLists.txt"); do
        pc="$(pkg-config --variable=pcfiledir "$mod")/$mod.pc"
        pkg=$(pkg_of "$pc") || { fail "$image: pkg-config module $mod: no package owns $pc"; continue; }
        need "$image" "$pkg" "pkg-config module $mod"
    done
    # Libraries linked by name (-lglpk): the package of the link-time libX.so.
    for bin in "$@"; do
        while read -r lib pkg; do
            case " $BASE_PKGS " in *" $pkg "*) continue ;; esac
            path=$(ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')
            dev="$(dirname "$path")/${lib%%.so*}.so"
            pkg=$(pkg_of "$dev") || { fail "$image: no package owns $dev (to link $lib)"; continue; }
            need "$image" "$pkg" "$(basename "$dev")"
        done < <(linked_pkgs "$bin")
    done
    pkg=$(pkg_of "$(command -v protoc-c)") && need "$image" "$pkg" protoc-c
    inc=$(sed -n 's/^CLANG_C_INCLUDE:PATH=//p' "$WH_BINARY_DIR/CMakeCache.txt")
    pkg=$(pkg_of "$inc/clang-c/Index.h") && need "$image" "$pkg" "clang-c/Index.h"
    lib=$(sed -n 's/^LIBCLANG:FILEPATH=//p' "$WH_BINARY_DIR/CMakeCache.txt")
    pkg=$(pkg_of "$lib") && need "$image" "$pkg" "$(basename "$lib")"
    # Top-level folders the build reads: add_subdirectory() and ${PROJECT_SOURCE_DIR}/X.
    for dir in $( (sed -n 's/^add_subdirectory(\([^) ]*\)).*/\1/p' "$WH_SOURCE_DIR/CMakeLists.txt"
                   cd "$WH_SOURCE_DIR" && find . -path ./build -prune -o -path './build*' -prune -o \
                       \( -name CMakeLists.txt -o -name '*.cmake' \) -print0 \
                     | xargs -0 grep -ohE 'PROJECT_SOURCE_DIR\}/[A-Za-z0-9_.-]+/' \
                     | sed 's:.*}/::; s:/$::') | sort -u); do
        if grep -qE "^COPY $dir/ $dir/\$" "$C/Containerfile.$image"; then pass "$image: builder copies $dir/"
        else fail "$image: the build reads $dir/ but Containerfile.$image does not COPY $dir/ $dir/"; fi
    done
}

check_runtime coordinator "$WH_BINARY_DIR/coordinator/whittle-coordinator" "$WH_BINARY_DIR/coordinator/whittle"
check_runtime node "$WH_BINARY_DIR/node/whittle-node"
check_builder coordinator "$WH_BINARY_DIR/coordinator/whittle-coordinator" "$WH_BINARY_DIR/coordinator/whittle"
check_builder node "$WH_BINARY_DIR/node/whittle-node"
# The parser: a stage with no apt-get install would make every check above vacuous.
check_eq "coordinator runtime names libclang1-14" \
    "$(stage_pkgs "$C/Containerfile.coordinator" runtime | grep -cx 'libclang1-14')" 1
check_eq "coordinator runtime expands PARSE_HEADERS (libgtest-dev)" \
    "$(stage_pkgs "$C/Containerfile.coordinator" runtime | grep -cx 'libgtest-dev')" 1
finish
