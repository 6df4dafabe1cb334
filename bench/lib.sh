# Shared helpers of whittle's benchmarks (sourced by scaling.sh and
# throughput.sh). Everything a benchmark starts is recorded in BENCH_PIDS and
# stopped by bench_cleanup, which the scripts run from an EXIT trap; every
# file goes under one temp folder, removed at exit unless --keep was given.
set -u -o pipefail

BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The synthetic fixture as checked in (the judge's sources and the tests),
# and the project the benchmarks reduce: bench_fixture's copy of it outside
# the source tree, with a compile command of its own.
BENCH_SYN="$BENCH_SRC/bench/synthetic"
BENCH_FIX=
# The flags of the synthetic fixture's compile command (bench_fixture): what
# its judge accepts, a C11 file with nothing treated as an error that the
# judge lets through (no -Werror: an unused variable builds).
BENCH_FIX_FLAGS="-std=c11"
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
    [ -f "$BENCH_SYN/tests/test_synth.c" ] || bench_die "no fixture at $BENCH_SYN"
    cc -std=c11 -O2 -o "$BENCH_TMP/judge" "$BENCH_SYN/judge.c" "$BENCH_SYN/marks.c" ||
        bench_die "cannot compile $BENCH_SYN/judge.c"
    printf '%s\n' "$BENCH_TMP/judge"
}

# bench_compdb DIR FILE FLAGS...: writes DIR/compile_commands.json with one
# entry, FILE (relative to DIR) compiled by `cc FLAGS -c` in DIR: the
# fixture's own compile command, which whittle's precheck and UB guard then
# take as exact (DESIGN.md, "Predicted verdicts").
bench_compdb() {
    local dir=$1 file=$2
    shift 2
    # The flags as one string split at spaces: jq 1.6 takes a positional
    # argument starting with '-' for an option of its own.
    jq -n --arg d "$dir" --arg f "$dir/$file" --arg rel "$file" --arg fl "$*" '
        ($fl | split(" ") | map(select(. != ""))) as $fl |
        [{directory: $d, file: $f, arguments: (["cc"] + $fl + ["-c", $rel, "-o", "/dev/null"])}]' \
        >"$dir/compile_commands.json" || bench_die "cannot write $dir/compile_commands.json"
}

# bench_check_compdb PROJECT FILE [own]: refuses (one line, exit 2) a
# fixture whose test file would take its compile command from a database
# outside the fixture: whittle searches upward from the file's folder for
# compile_commands.json and build/compile_commands.json (tree_flags.c), and
# libclang answers a file the database does not list with a neighbour's
# command. In whittle's source tree that is whittle's own build (-Wall
# -Wextra -Werror): its precheck then predicts BuildFailed for candidates
# the fixture's judge builds fine (issue 36). With `own`, the fixture must
# also list FILE in a database of its own.
bench_check_compdb() {
    local proj file=$2 own=${3:-} d db=
    proj=$(cd "$1" 2>/dev/null && pwd -P) || bench_die "no fixture at '$1'"
    d=$(dirname "$proj/$file")
    d=$(cd "$d" 2>/dev/null && pwd -P) || bench_die "fixture $proj has no folder for '$file'"
    while :; do
        if [ -f "$d/compile_commands.json" ]; then db=$d/compile_commands.json; break; fi
        if [ -f "$d/build/compile_commands.json" ]; then db=$d/build/compile_commands.json; break; fi
        [ "$d" = / ] && break
        d=$(dirname "$d")
    done
    [ -n "$db" ] && db=$(realpath "$db")
    if [ -n "$db" ] && [ "${db#"$proj"/}" = "$db" ]; then
        local whose="not the fixture's" src
        src=$(cd "$BENCH_SRC" && pwd -P)
        { [ "${db#"$src"/}" != "$db" ] || grep -q '/coordinator/cli/whittle_main\.c' "$db"; } &&
            whose="whittle's own build"
        bench_die "fixture $proj: '$file' would take its compile command from $db ($whose); copy the fixture out of that tree"
    fi
    [ -z "$own" ] && return 0
    [ -n "$db" ] && jq -e --arg f "$proj/$file" 'any(.[]; .file == $f or (.directory + "/" + .file) == $f)' \
        "$db" >/dev/null 2>&1 ||
        bench_die "fixture $proj: no compile command of its own for '$file' (compile_commands.json)"
}

# bench_fixture: the synthetic fixture's tests copied to $BENCH_TMP/fixture
# (BENCH_FIX), outside whittle's source tree, with a compile command of its
# own (BENCH_FIX_FLAGS); checked by bench_check_compdb.
bench_fixture() {
    BENCH_FIX="$BENCH_TMP/fixture"
    mkdir -p "$BENCH_FIX/tests" && cp "$BENCH_SYN/tests/test_synth.c" "$BENCH_FIX/tests/" ||
        bench_die "cannot copy the fixture to $BENCH_FIX"
    # shellcheck disable=SC2086 # the flags are words
    bench_compdb "$BENCH_FIX" tests/test_synth.c $BENCH_FIX_FLAGS
    bench_check_compdb "$BENCH_FIX" tests/test_synth.c own
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

# bench_gen_big N (memory.sh, growth.sh): `test_big`, N statements: 20
# declarations, filler calls, 10 statements the failure needs (R1..R10, spread out), uses of the
# declarations, an `if` block every 50 statements, the failing assert last.
bench_gen_big() {
    local n=$1 i k=0
    printf '#include <string.h>\nstatic int g;\nstatic void note(int v) { g += v; }\n'
    printf 'static void check_eq(int want, int got, const char *what) { (void)want; (void)got; (void)what; }\n'
    printf 'void test_big(void)\n{\n    int /*decl:total*/ total = 0;\n'
    for ((i = 0; i < 20; i++)); do printf '    int /*decl:v%d*/ v%d = %d;\n' $i $i $i; done
    local body=$((n - 22)) r=1 every=$(( (n - 22) / 10 ))
    for ((i = 0; i < body; i++)); do
        if [ $((i % every)) = $((every / 2)) ] && [ $r -le 10 ]; then
            printf '    total += /*R%d use:total*/ %d;\n' $r $r; r=$((r + 1))
        elif [ $((i % 50)) = 7 ]; then
            printf '    if (g >= 0) {\n        note(/*use:v%d*/ v%d + %d);\n    }\n' $((i % 20)) $((i % 20)) $i
            i=$((i + 1))
        elif [ $((i % 9)) = 4 ]; then
            printf '    note(/*use:v%d*/ v%d * %d);\n' $((i % 20)) $((i % 20)) $i
        else
            printf '    note(%d);\n' $i
        fi
    done
    printf '    check_eq(42, /*FAIL=%d use:total*/ total, "total");\n}\n' $((r - 1))
}
