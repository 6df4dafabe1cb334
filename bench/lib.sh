# Shared helpers of whittle's benchmarks (sourced by scaling.sh and
# throughput.sh). Everything a benchmark starts is recorded in BENCH_PIDS and
# stopped by bench_cleanup, which the scripts run from an EXIT trap; every
# file goes under one temp folder, removed at exit unless --keep was given.
set -u -o pipefail

BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_FIX="$BENCH_SRC/bench/synthetic"
BENCH_PIDS=()
BENCH_KEEP=0
BENCH_TMP=

bench_log() { printf '%s\n' "$*" >&2; }
bench_die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 2; }

# Stops every process this benchmark started, politely first (SIGTERM lets a
# node kill its running build's process group and say BYE), then SIGKILL for
# whatever is still there after 5 s. Only our own pids, one by one.
bench_stop_pids() {
    local p live=()
    for p in "$@"; do
        kill -0 "$p" 2>/dev/null && { kill -TERM "$p" 2>/dev/null; live+=("$p"); }
    done
    local t=0
    while [ ${#live[@]} -gt 0 ] && [ $t -lt 50 ]; do
        local still=()
        for p in "${live[@]}"; do kill -0 "$p" 2>/dev/null && still+=("$p"); done
        live=("${still[@]+"${still[@]}"}")
        [ ${#live[@]} -gt 0 ] && sleep 0.1
        t=$((t + 1))
    done
    for p in "${live[@]+"${live[@]}"}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "$@"; do wait "$p" 2>/dev/null; done
    return 0
}

bench_cleanup() {
    trap - EXIT INT TERM
    bench_stop_pids "${BENCH_PIDS[@]+"${BENCH_PIDS[@]}"}"
    BENCH_PIDS=()
    if [ -z "$BENCH_TMP" ]; then
        :
    elif [ "$BENCH_KEEP" = 1 ]; then
        bench_log "kept $BENCH_TMP"
    else
        rm -rf "$BENCH_TMP"
    fi
}
# Creates the temp folder and installs the traps; call once, after argument
# parsing (so that --help leaves nothing behind).
bench_trap() {
    BENCH_TMP=$(mktemp -d /tmp/whittle-bench.XXXXXX) || bench_die "cannot create a temp folder"
    chmod 755 "$BENCH_TMP" # nodes started as root run job commands as nobody
    trap bench_cleanup EXIT
    trap 'bench_log "interrupted"; exit 130' INT TERM
}

# The build folder holding the three binaries: $1 if given, else the first of
# build, build-bench that has them all.
bench_find_build() {
    local d
    for d in ${1:+"$1"} "$BENCH_SRC/build" "$BENCH_SRC/build-bench"; do
        if [ -x "$d/coordinator/whittle" ] && [ -x "$d/coordinator/whittle-coordinator" ] &&
           [ -x "$d/node/whittle-node" ]; then
            (cd "$d" && pwd)
            return 0
        fi
    done
    return 1
}

# Compiles the fixture's judge (its build and run commands) once, outside the
# project: the project copy in each workspace stays the fixture as checked in.
bench_judge() {
    [ -f "$BENCH_FIX/tests/test_synth.c" ] || bench_die "no fixture at $BENCH_FIX"
    cc -std=c11 -O2 -o "$BENCH_TMP/judge" "$BENCH_FIX/judge.c" "$BENCH_FIX/marks.c" ||
        bench_die "cannot compile $BENCH_FIX/judge.c"
    printf '%s\n' "$BENCH_TMP/judge"
}

# bench_cluster_start NAME SLOTS PROCS: a coordinator on a free loopback
# port with a fresh in-memory cache, and PROCS whittle-node processes that
# share SLOTS slots as evenly as they can. Waits until the coordinator sees
# every slot. Sets CL_EP (the endpoint) and CL_PIDS. Arguments after PROCS
# go to the coordinator too (farm_scale.sh: --journal, --max-client-jobs).
bench_cluster_start() {
    local name=$1 slots=$2 procs=$3 i
    shift 3
    [ "$procs" -gt "$slots" ] && procs=$slots
    CL_PIDS=()
    # The log exists before the coordinator starts, so the loop below never
    # reads a file the background shell has not created yet.
    : >"$BENCH_TMP/$name.coord.log"
    # --journal off: another coordinator of this user (its default journal)
    # would stop this one at start.
    "$WB/coordinator/whittle-coordinator" --runs "$BENCH_TMP" --bind 'tcp://127.0.0.1:*' --insecure --cache memory: \
        --journal off "$@" 2>>"$BENCH_TMP/$name.coord.log" &
    BENCH_PIDS+=($!)
    CL_PIDS+=($!)
    CL_EP=
    local t0=$SECONDS
    while [ -z "$CL_EP" ] && [ $((SECONDS - t0)) -lt 30 ] && kill -0 "${CL_PIDS[0]}" 2>/dev/null; do
        sleep 0.05
        CL_EP=$(sed -n 's/.*listening on \(tcp:[^,]*\),.*/\1/p' "$BENCH_TMP/$name.coord.log")
    done
    [ -n "$CL_EP" ] || bench_die "coordinator did not start within 30 s: $(tail -1 "$BENCH_TMP/$name.coord.log")"
    for ((i = 0; i < procs; i++)); do
        local k=$((slots / procs + (i < slots % procs ? 1 : 0)))
        # --sandbox none: the synthetic judge is a script in $BENCH_TMP (under
        # /tmp), which a sandbox's private /tmp hides.
        "$WB/node/whittle-node" --connect "$CL_EP" --insecure --slots "$k" --workdir "$BENCH_TMP/$name.ws$i" \
            --id "$name-n$i" --sandbox none 2>"$BENCH_TMP/$name.node$i.log" &
        BENCH_PIDS+=($!)
        CL_PIDS+=($!)
    done
    local seen=0
    for i in $(seq 300); do
        seen=$("$WB/coordinator/whittle" status --cluster "$CL_EP" --insecure 2>/dev/null |
               sed -n 's/.*  slots: \([0-9]*\) .*/\1/p')
        [ "${seen:-0}" -ge "$slots" ] && return 0
        sleep 0.1
    done
    bench_die "only ${seen:-0} of $slots slots registered at $CL_EP after 30 s"
}

bench_cluster_stop() {
    bench_stop_pids "${CL_PIDS[@]}"
    local keep=() p q
    for p in "${BENCH_PIDS[@]}"; do
        for q in "${CL_PIDS[@]}"; do [ "$p" = "$q" ] && continue 2; done
        keep+=("$p")
    done
    BENCH_PIDS=("${keep[@]+"${keep[@]}"}")
    CL_PIDS=()
}

bench_now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The single run folder under an --out folder.
bench_run_dir() { ls -d "$1"/*/ 2>/dev/null | head -n1 | sed 's:/$::'; }

# Mean node-side milliseconds (build + test) of the candidates slots really
# judged, extras and candidates judged ahead included: judged.csv rows of
# kind candidate or ahead. (candidates.csv is the wrong source: a candidate
# the precheck predicted has cached = 0 and 0 ms, which pulled the mean
# below the latency.) Slot names are quoted and hold no commas.
bench_mean_ms() {
    awk -F, 'NR > 1 && ($2 == "candidate" || $2 == "ahead") && $4 != "InfraError" { n++; s += $5 + $6 }
             END { printf "%.0f", n ? s / n : 0 }' "$1"
}
