# shellcheck shell=bash
# Sourced by the cluster tests. Writes transparent wrappers for build tools
# (cmake, make) into $1: they run the real tool with the same arguments, and
# when WH_EVAL_LOG is set they append one line before and one after every
# candidate build (`cmake --build …`, or `make` in a workspace holding
# $WH_SHIM_FILE):
#
#   S <ns-epoch> <WH_NODE_TAG> <cwd> <hash>          build started
#   E <ns-epoch> <WH_NODE_TAG> <cwd> <hash> <rc>     build ended
#
# <hash> is the first 16 hex digits of sha256 of $WH_SHIM_FILE (the test file
# as the node wrote it), so the log tells, independently of whittle, which
# candidate content was built where and when. A build killed by a
# cancellation (whittle kills the process group) has no E line.
# WH_SHIM_DELAY=SECONDS sleeps before the build (to hold a slot busy).
# The commands given to whittle stay exactly what the test states; only
# PATH differs.
wh_write_shims() { # dir
    local dir=$1 tool real
    mkdir -p "$dir"
    for tool in cmake make; do
        real=$(command -v "$tool") || continue
        cat > "$dir/$tool" <<EOF
#!/bin/sh
real='$real'
is_build=0
case "$tool" in
  cmake) [ "\${1:-}" = "--build" ] && is_build=1 ;;
  make)  is_build=1 ;;
esac
if [ \$is_build = 1 ] && [ -n "\${WH_EVAL_LOG:-}" ] && [ -n "\${WH_SHIM_FILE:-}" ] && [ -f "\$WH_SHIM_FILE" ]; then
    h=\$(sha256sum < "\$WH_SHIM_FILE" | cut -c1-16)
    echo "S \$(date +%s%N) \${WH_NODE_TAG:-?} \$PWD \$h" >> "\$WH_EVAL_LOG"
    [ -n "\${WH_SHIM_DELAY:-}" ] && sleep "\$WH_SHIM_DELAY"
    "\$real" "\$@"; rc=\$?
    echo "E \$(date +%s%N) \${WH_NODE_TAG:-?} \$PWD \$h \$rc" >> "\$WH_EVAL_LOG"
    exit \$rc
fi
exec "\$real" "\$@"
EOF
        chmod +x "$dir/$tool"
    done
}
