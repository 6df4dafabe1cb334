#!/usr/bin/env bash
# scaling.sh — wall time of one reduction against the number of node slots.
#
# Reduces a copy of the synthetic fixture (bench/synthetic: test_synth, 56 statements,
# whose "build" takes a fixed LATENCY in a real process per candidate) on a fresh
# loopback cluster per slot count (whittle-coordinator with an in-memory
# cache + whittle-node processes), then in the embedded mode (--jobs N), and
# prints one row per run:
#
#   wall      the coordinator's wall time of the reduction (summary.json)
#   speedup   wall of 1 slot / this wall (same mode)
#   rounds    the critical path: rounds never run in parallel
#   evaluated candidates judged by a node (parallel runs judge extras)
#   predicted candidates answered without a build: BuildFailed by the
#             precheck, or held by the UB guard (summary.json predicted)
#   bound     evaluated / rounds (all rounds)
#   depth     the sequential depth: chains (chain.h) that build something
#             (summary.json building_rounds; a chain answered wholly by the
#             cache or the precheck costs no build). The walk's rounds are
#             the same for every slot count; the depth shrinks with the
#             slots, because a chain runs ahead over the rounds the walk
#             expects next
#   ceiling   the 1-slot run's evaluated / depth: what the 1-slot walk
#             offers per chain (slots can beat it: depth shrinks with N)
#   of_ceil   speedup / min(slots, ceiling)
#   work_s    builds at 1 slot / N x the 1-slot cand_ms: the wall time if
#             N slots shared the sequential walk's builds perfectly
#   of_work   work_s / wall: the speedup against that limit (1 = perfect)
#   ideal     depth x LATENCY, the wall time with unlimited slots and a
#             zero-cost coordinator (DESIGN.md, "The round engine")
#   eff       ideal / wall
#   cand_ms   mean node-side time (build + test) of every candidate a slot
#             judged, extras included (judged.csv: candidates the precheck
#             predicted are not judged and not counted), a noise gauge
#   limit_s   depth x cand_ms of the mode's 1-slot run: the same limit
#             with the latency a candidate really has on this machine
#
# and asserts that every run gives the same reduced test, the same number of
# rounds, the same candidates and verdicts in candidates.csv (candidate,
# sweep, level, kept, total, verdict), and judges the same candidates the
# sequential walk judges (evaluated - extra is constant; not with
# --speculate, whose verdicts judged ahead may come back as cache hits).
#
# usage: bench/scaling.sh [--quick] [--latency MS] [--slots "1 2 4 8 16 32"]
#                         [--jobs "1 4 16"] [--procs N] [--build-dir DIR]
#                         [--test NAME] [--csv FILE] [--keep] [--precheck MODE]
#                         [--audit-slots N | --no-audit] [--fixture-flags "FLAGS"]
#   --quick    latency 50 ms, slots 1 2 4, no embedded runs, and the
#              fixture's 19-statement test_synth_small (< 60 s)
#   --procs N  at most N whittle-node processes per cluster (default 4):
#              32 slots = 4 processes x 8 slots, 2 slots = 2 x 1
#   --jobs ""  skips the embedded runs
#   --speculate  idle slots also judge the predicted next round (whittle's
#              default; without this flag the runs pass --no-speculate)
#   --prior MODE  passed to each run (slice, none; default: whittle's,
#              slice): what the walk expects of a removal no verdict speaks
#              for yet, so how far the slots run ahead (never the answer)
#   --precheck MODE  passed to each run (on, off, audit; default: whittle's);
#              each run's front-end figures (checks, unchecked, predicted,
#              check ms) are logged
#   --audit-slots N  slots of the audit run (default 8, --quick 4): after the
#              measured runs, one more run of the same fixture with
#              `--precheck audit` (every candidate built, and checked by the
#              front end as well), off the measured runs. Every candidate a
#              measured run predicted BuildFailed is looked up (by its cache
#              key) among the audit run's builds, and the script prints
#                predictions: P predicted, S built anyway, W wrong
#              (P: distinct candidates the measured runs predicted, S: those
#              the audit built, W: built, but not BuildFailed) and the audit
#              walk's own disagreements. W > 0, or a candidate the front end
#              said fails that built in the audit walk, is a failed check
#              (exit 1, the first wrong candidate named).
#   --no-audit  no audit run (the predictions are then unchecked: said so)
#   --fixture-flags "FLAGS"  the flags of the fixture's own compile command
#              (default "-std=c11", what its judge accepts). The fixture is
#              copied out of the source tree with that command in its own
#              compile_commands.json (lib.sh, bench_fixture), so no run takes
#              whittle's build flags; "-std=c11 -Wall -Werror" makes the
#              precheck stricter than the judge, and the audit fails
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LAT_MS=200
SLOTS="1 2 4 8 16 32"
JOBS="1 4 16"
PROCS=4
BUILD_DIR=
CSV=
TEST=test_synth
SPEC=
SPEC_ARG=--no-speculate
PRECHECK_ARG=()
PRIOR_ARG=()
AUDIT_SLOTS=
while [ $# -gt 0 ]; do
    case $1 in
    --quick) LAT_MS=50; SLOTS="1 2 4"; JOBS=""; TEST=test_synth_small; AUDIT_SLOTS=${AUDIT_SLOTS:-4} ;;
    --test) TEST=${2:?}; shift ;;
    --latency) LAT_MS=${2:?}; shift ;;
    --slots) SLOTS=${2:?}; shift ;;
    --jobs) JOBS=${2?}; shift ;;
    --procs) PROCS=${2:?}; shift ;;
    --build-dir) BUILD_DIR=${2:?}; shift ;;
    --csv) CSV=${2:?}; shift ;;
    --keep) BENCH_KEEP=1 ;;
    --speculate) SPEC=--speculate; SPEC_ARG=--speculate ;;
    --precheck) PRECHECK_ARG=(--precheck "${2:?}"); shift ;;
    --prior) PRIOR_ARG=(--prior "${2:?}"); shift ;;
    --audit-slots) AUDIT_SLOTS=${2:?}; shift ;;
    --no-audit) AUDIT_SLOTS=0 ;;
    --fixture-flags) BENCH_FIX_FLAGS=${2?}; shift ;;
    -h|--help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown argument '$1'" ;;
    esac
    shift
done
bench_trap
WB=$(bench_find_build "$BUILD_DIR") || bench_die "no build with whittle, whittle-coordinator and whittle-node (give --build-dir)"
command -v jq >/dev/null || bench_die "jq is needed to read summary.json"
[[ ${AUDIT_SLOTS:=8} =~ ^[0-9]+$ ]] || bench_die "--audit-slots wants a number, not '$AUDIT_SLOTS'"
bench_fixture
JUDGE=$(bench_judge)
LAT_S=$(awk -v m="$LAT_MS" 'BEGIN { printf "%.3f", m / 1000 }')

# One reduction. mode = cluster|embedded, n = slots or jobs. Appends a row
# to ROWS and checks it against the first run.
ROWS=()
RUN_DIRS=()
FAILED=0
REF_DIR= REF_ROUNDS= REF_SEQ=
declare -A WALL1 MS1 CEIL1 EV1
run_one() {
    local mode=$1 n=$2 name="$1-$2" out="$BENCH_TMP/out-$1-$2" procs=1 layout
    local args=(reduce --project "$BENCH_FIX" --file tests/test_synth.c --test "$TEST"
        --setup true --build "$JUDGE build $LAT_S" --run "$JUDGE run" --framework junit
        --out "$out" --cache memory: $SPEC_ARG "${PRECHECK_ARG[@]+"${PRECHECK_ARG[@]}"}"
        "${PRIOR_ARG[@]+"${PRIOR_ARG[@]}"}")
    if [ "$mode" = cluster ]; then
        procs=$((n < PROCS ? n : PROCS))
        bench_cluster_start "$name" "$n" "$procs"
        # A cluster keeps run folders under its --runs folder (BENCH_TMP):
        # the same folder, named relative to it.
        args+=(--cluster "$CL_EP" --insecure --out "out-$1-$2")
        layout="${procs}x$((n / procs))$([ $((n % procs)) -ne 0 ] && echo +)"
    else
        args+=(--jobs "$n")
        layout="in-proc"
    fi
    local t0 t1 rc=0
    t0=$(bench_now_ms)
    "$WB/coordinator/whittle" "${args[@]}" >"$BENCH_TMP/$name.client.log" 2>&1 || rc=$?
    t1=$(bench_now_ms)
    [ "$mode" = cluster ] && bench_cluster_stop
    local d
    d=$(bench_run_dir "$out")
    if [ $rc -ne 0 ] || [ -z "$d" ] || [ ! -f "$d/summary.json" ]; then
        bench_log "FAIL: $name: whittle exited $rc (log: $BENCH_TMP/$name.client.log)"
        tail -n 5 "$BENCH_TMP/$name.client.log" >&2
        BENCH_KEEP=1 FAILED=1
        return 0
    fi
    local s="$d/summary.json" wall rounds evaluated extra cached cand brounds predicted
    read -r wall rounds evaluated extra cached cand brounds predicted < <(jq -r '[.wall_ms, .rounds, .evaluated, .extra, .cached, .candidates, .building_rounds, .predicted] | @tsv' "$s")
    local ms; ms=$(bench_mean_ms "$d/judged.csv")
    bench_log "$name: precheck $(jq -r '"\(.precheck.mode): \(.precheck.checks) checks, \(.precheck.unchecked) unchecked, " +
        "\(.predicted) predicted, \(.precheck.check_ms | floor) ms of checks"' "$s"), wall $wall ms"
    RUN_DIRS+=("$d")
    if [ -z "$REF_DIR" ]; then
        REF_DIR=$d REF_ROUNDS=$rounds REF_SEQ=$((evaluated - extra))
    else
        if ! cmp -s "$REF_DIR/reduced.c" "$d/reduced.c"; then
            bench_log "FAIL: $name: reduced.c differs from the first run's"
            diff "$REF_DIR/reduced.c" "$d/reduced.c" >&2
            BENCH_KEEP=1 FAILED=1
        fi
        [ "$rounds" = "$REF_ROUNDS" ] || { bench_log "FAIL: $name: $rounds rounds, first run had $REF_ROUNDS"; FAILED=1; }
        if [ -z "$SPEC" ]; then
            [ $((evaluated - extra)) = "$REF_SEQ" ] ||
                { bench_log "FAIL: $name: evaluated - extra = $((evaluated - extra)), first run had $REF_SEQ"; FAILED=1; }
        fi
        # The walk itself must be the same candidate for candidate, verdict
        # for verdict, whatever the slots.
        cmp -s <(cut -d, -f1-6 "$REF_DIR/candidates.csv") <(cut -d, -f1-6 "$d/candidates.csv") ||
            { bench_log "FAIL: $name: candidates or verdicts differ from the first run's"; FAILED=1; }
    fi
    [ -z "${WALL1[$mode]:-}" ] && WALL1[$mode]=$wall MS1[$mode]=$ms EV1[$mode]=$evaluated CEIL1[$mode]=$(awk -v e="$evaluated" -v b="$brounds" 'BEGIN { printf "%.3f", (b > 0 ? e / b : 1) }')
    ROWS+=("$mode $n $layout $wall $((t1 - t0)) ${WALL1[$mode]} $rounds $evaluated $extra $cached $cand $ms ${MS1[$mode]} $brounds ${CEIL1[$mode]} ${EV1[$mode]} $(cut -d' ' -f1 /proc/loadavg) $predicted")
    bench_log "  $name: wall $wall ms, $rounds rounds, depth $brounds, $evaluated evaluated ($extra extra), $ms ms/candidate, load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The audit run (--audit-slots): the same reduction on a fresh cluster with
# --precheck audit, every candidate built. Sets AUDIT_DIR, or FAILED.
AUDIT_DIR=
run_audit() {
    local n=$AUDIT_SLOTS out="$BENCH_TMP/out-audit" procs rc=0
    procs=$((n < PROCS ? n : PROCS))
    bench_cluster_start audit "$n" "$procs"
    "$WB/coordinator/whittle" reduce --project "$BENCH_FIX" --file tests/test_synth.c --test "$TEST" \
        --setup true --build "$JUDGE build $LAT_S" --run "$JUDGE run" --framework junit \
        --cache memory: $SPEC_ARG --precheck audit "${PRIOR_ARG[@]+"${PRIOR_ARG[@]}"}" \
        --cluster "$CL_EP" --insecure --out out-audit >"$BENCH_TMP/audit.client.log" 2>&1 || rc=$?
    bench_cluster_stop
    AUDIT_DIR=$(bench_run_dir "$out")
    if [ $rc -ne 0 ] || [ -z "$AUDIT_DIR" ] || [ ! -f "$AUDIT_DIR/summary.json" ]; then
        bench_log "FAIL: audit: whittle exited $rc (log: $BENCH_TMP/audit.client.log)"
        tail -n 5 "$BENCH_TMP/audit.client.log" >&2
        AUDIT_DIR= BENCH_KEEP=1 FAILED=1
        return 0
    fi
    bench_log "audit-$n: precheck $(jq -r '.precheck | "\(.mode), \(.flags // "no flags")"' "$AUDIT_DIR/summary.json"), wall $(jq .wall_ms "$AUDIT_DIR/summary.json") ms, load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# Prints the predicted-versus-built agreement of the measured runs (their
# BuildFailed predictions looked up by key among the audit run's builds)
# and the audit walk's own disagreements; a wrong prediction fails the run.
report_audit() {
    local s="$AUDIT_DIR/summary.json"
    if [ "$(jq -r '.precheck.enabled' "$s")" != true ]; then
        echo "predictions: not audited: the audit run's precheck was off ($(jq -r '.precheck.off_because // "?"' "$s"))"
        FAILED=1
        return 0
    fi
    # candidates.csv: 1 candidate, 6 verdict, 7 cached, 12 key, 14 predicted,
    # 15 precheck. Predictions: BuildFailed rows with predicted = 1 (the UB
    # guard's UBGuard holds are no claim about the build). Builds of the
    # audit: rows neither cached nor predicted.
    local line
    line=$(awk -F, '
        FNR == 1 { f++; next }
        f == 1 && $7 == 0 && $14 == 0 { built[$12] = $6; at[$12] = $1 }
        f >= 2 && $14 == 1 && $6 == "BuildFailed" && !($12 in seen) {
            seen[$12] = 1; order[++p] = $12; cand[$12] = $1
            run[$12] = FILENAME; sub(/\/[^\/]*\/candidates\.csv$/, "", run[$12]); sub(/.*\/out-/, "", run[$12])
        }
        END {
            for (i = 1; i <= p; i++) {
                k = order[i]
                if (!(k in built)) continue
                s++
                if (built[k] != "BuildFailed") {
                    w++
                    if (!first) first = sprintf("cand_%03d of %s: predicted BuildFailed, built %s (audit cand_%03d, key %.12s)", cand[k], run[k], built[k], at[k], k)
                }
            }
            printf "%d %d %d %s\n", p, s, w, first
        }' "$AUDIT_DIR/candidates.csv" $(printf '%s/candidates.csv ' "${RUN_DIRS[@]}"))
    local p sw w first
    read -r p sw w first <<<"$line"
    local built bf bfp pbb
    read -r built bf bfp pbb < <(jq -r '.precheck.audit | [.built, .build_failed, .build_failed_predicted, .predicted_but_built] | @tsv' "$s")
    echo "predictions: $p predicted, $sw built anyway, $w wrong (the distinct candidates the measured runs predicted BuildFailed, looked up among the builds of the audit run at $AUDIT_SLOTS slots)"
    echo "audit walk: $built candidates built and checked by the front end: $((bfp + pbb)) predicted BuildFailed, $pbb of them built ($bf BuildFailed, $((bf - bfp)) not predicted); precheck flags: $(jq -r '.precheck.flags // "?"' "$s")"
    [ "$p" -gt "$sw" ] && echo "note: $((p - sw)) predicted candidates were not built by the audit walk (it differs from the measured walk)"
    if [ "$w" -gt 0 ]; then
        echo "FAILED: wrong prediction: $first" >&2
        FAILED=1
    fi
    if [ "$pbb" -gt 0 ]; then
        echo "FAILED: wrong prediction in the audit walk: $(jq -r '[.precheck.audit.list[] | select(.kind == "predicted failure that built")][0] |
            "\(if .candidate then "cand_" + ("00\(.candidate)" | .[-3:]) else "an extra candidate" end): predicted BuildFailed (front end: \(.error // "?")), built \(.verdict) (key \(.key[0:12]))"' "$s")" >&2
        FAILED=1
    fi
    # Right predictions never change the walk (DESIGN.md): the audit walk,
    # every candidate built, is the measured one.
    if [ -n "$REF_DIR" ] && ! cmp -s <(cut -d, -f1-6 "$REF_DIR/candidates.csv") <(cut -d, -f1-6 "$AUDIT_DIR/candidates.csv"); then
        local at
        at=$(diff <(cut -d, -f1-6 "$REF_DIR/candidates.csv") <(cut -d, -f1-6 "$AUDIT_DIR/candidates.csv") |
             sed -n 's/^[<>] \([0-9]*\),.*/\1/p' | head -n1)
        echo "FAILED: the audit walk (every candidate built) differs from the measured walk, first at $([ -n "$at" ] && printf 'cand_%03d' "$at" || echo '?')" >&2
        FAILED=1
    fi
}

bench_log "whittle scaling benchmark: latency $LAT_MS ms, slots: $SLOTS, embedded jobs: ${JOBS:-none}, audit slots: $AUDIT_SLOTS"
bench_log "build $WB; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
bench_log "fixture $BENCH_FIX (its own compile command: cc $BENCH_FIX_FLAGS)"
T_START=$(bench_now_ms)
for n in $SLOTS; do run_one cluster "$n"; done
for n in $JOBS; do run_one embedded "$n"; done
T_END=$(bench_now_ms)
[ "$AUDIT_SLOTS" -gt 0 ] && run_audit

# The table.
hdr="mode slots layout wall_s client_s speedup rounds depth evaluated extra cached predicted bound ceiling of_ceil work_s of_work ideal_s eff cand_ms limit_s load"
{
    echo "$hdr"
    for r in "${ROWS[@]}"; do
        set -- $r
        awk -v mode="$1" -v n="$2" -v lay="$3" -v wall="$4" -v client="$5" -v w1="$6" \
            -v rounds="$7" -v ev="$8" -v extra="$9" -v cached="${10}" -v ms="${12}" -v ms1="${13}" \
            -v br="${14}" -v ceil="${15}" -v ev1="${16}" -v load="${17}" -v pred="${18}" -v lat="$LAT_MS" 'BEGIN {
            ideal = br * lat
            sp = w1 / wall
            lim = n < ceil ? n : ceil
            work = ev1 * ms1 / n
            printf "%s %d %s %.1f %.1f %.2f %d %d %d %d %d %d %.2f %.2f %.2f %.1f %.2f %.1f %.2f %d %.1f %s\n", mode, n, lay,
                wall / 1000, client / 1000, sp, rounds, br, ev, extra, cached, pred,
                ev / rounds, ceil, sp / lim, work / 1000, work / wall, ideal / 1000, ideal / wall, ms,
                br * ms1 / 1000, load }'
    done
} >"$BENCH_TMP/table"
[ -n "$CSV" ] && tr ' ' ',' <"$BENCH_TMP/table" >"$CSV"
echo
echo "scaling: $TEST, latency $LAT_MS ms per candidate (fixed sleep in a real process), $(nproc) cores,"
echo "fixture $(jq -r '"\(.statements_before) -> \(.statements_after) statements"' "$REF_DIR/summary.json" 2>/dev/null),"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg), total $(( (T_END - T_START) / 1000 )) s"
column -t "$BENCH_TMP/table"
if [ -n "$AUDIT_DIR" ]; then
    report_audit
elif [ "$AUDIT_SLOTS" = 0 ]; then
    echo "predictions: not audited (--no-audit)"
fi
if [ "$FAILED" -ne 0 ]; then
    echo "FAILED: runs disagree or failed (records kept in $BENCH_TMP)" >&2
    BENCH_KEEP=1
    exit 1
fi
[ -n "$REF_DIR" ] && echo "all runs gave the same reduced test (sha256 $(sha256sum <"$REF_DIR/reduced.c" | cut -c1-12)), the same $REF_ROUNDS rounds, the same candidates and verdicts, and judged the $REF_SEQ candidates of the sequential walk"
