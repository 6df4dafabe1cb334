#!/usr/bin/env bash
# farm_scale.sh — a simulated farm: N reductions submitted at once onto S
# node slots, and what one coordinator does with them: throughput, fairness
# across jobs, queue wait, and the coordinator's CPU per verdict, at several
# job counts side by side (so that a cost growing with the number of jobs
# shows as a ratio, not as a guess).
#
# For each job count N (default "50 200") a fresh loopback cluster (a
# whittle-coordinator with an in-memory cache, a journal file of its own and
# --max-client-jobs N, plus --procs whittle-node processes sharing S slots:
# 32 = 4 x 8 by default) gets one `whittle submit` of N jobs. Every job
# reduces the fixture's small test (test_synth_small) with the synthetic
# judge at a fixed latency (`judge build LATENCY`, default 100 ms); job k
# has test_timeout 60 + k seconds, so the N jobs have N distinct identities
# and cache keys (nothing is answered from another job's verdicts; the
# timeout is far above what a run takes, so it changes nothing else). The
# client runs until every job has answered (a deadline stops it: --deadline).
#
# Times: T_submit is taken just before `whittle submit` starts (so it
# includes the client's start and connect, tens of ms), T_end when it
# returns. Each job's run folder gives its own clock: summary.json's wall_ms
# runs from the job's start on the coordinator (wh_reduction_prepare, just
# after SUBMIT) to its end, and summary.json is written at the end, so its
# mtime - wall_ms is the job's start in wall-clock time; judged.csv holds
# every answer a slot gave the job (original, candidate, ahead, verify, the
# claims check, ...) with build_ms, test_ms and end_ms (since the job's start).
#
# Columns (one row per job count):
#
#   jobs       N, submitted at once
#   slots      S (layout procs x slots per process in the log)
#   wall_s     T_end - T_submit
#   judged     candidates judged by a slot, summed over the jobs
#              (summary.json "evaluated")
#   verdicts   every answer a slot gave, summed over the jobs (judged.csv
#              rows: judged candidates plus each job's original run, verify
#              step and claims check): the messages the coordinator handled
#   cand/s     judged / wall_s: judged candidates per second of wall time
#   jobs/min   N / wall_s x 60
#   jain       Jain's fairness index (sum x)^2 / (N sum x^2) over the jobs'
#              shares x_k = judged_k / (finish_k - T_submit): judged
#              candidates per second of the job's whole time in the farm,
#              queueing included. 1 = every job got the same rate; 1/N =
#              one job got everything. Why this share: the N jobs are the
#              same reduction (only the timeout differs), so they ask for
#              the same work and a fair farm gives them the same rate; it is
#              counted from the submit, not from the job's first slot, so a
#              job left waiting in the queue scores low (a share over the
#              job's own active time would call strict FIFO "fair"). Slot-
#              time received would weigh the same, but judged counts come
#              straight from summary.json.
#   min/max    the smallest and largest share over the mean share
#   wait50/99  p50 and p99 over the jobs (nearest rank) of the queue wait:
#              T_submit to the moment a slot first started work for the job
#              (the earliest end_ms - build_ms - test_ms in judged.csv: the
#              original's run, after the coordinator parsed the job)
#   first50/99 p50 and p99 of T_submit to the job's first judged candidate's
#              verdict (the first judged.csv row of kind candidate or ahead):
#              the wait above plus the original's run and one candidate
#   coord_cpu_s  utime + stime of the coordinator (/proc/PID/stat, read when
#              the client has returned, before the coordinator is stopped):
#              poll loop, job preparation (libclang parse), the precheck's
#              and UB guard's front-end checks, rendering, cache, records
#   ms/verdict coord_cpu_s / verdicts, in ms
#   node_ms/v  the node processes' utime + stime + cutime + cstime (their
#              builds and tests, which they wait for) / verdicts, in ms: where
#              the rest of the machine went
#   dead       node slots the coordinator declared dead during the run
#              ("missed 3 heartbeats" in its log: silent for 3 heartbeat
#              intervals, their candidates requeued); should be 0 on loopback
#   load       1-minute load average at the end of the run
#
# and, with two job counts or more, the ratio of ms/verdict at the largest
# count to the smallest: a coordinator whose per-verdict cost does not grow
# with the number of jobs keeps it near 1 (a cost linear in the number of
# jobs per verdict, i.e. quadratic in total, would give about the ratio of
# the job counts). Checks (exit 1 on failure): every job finishes well and
# gives the same reduced test.
#
# usage: bench/farm_scale.sh [--jobs "50 200"] [--slots S] [--procs P]
#                            [--latency MS] [--test NAME] [--precheck MODE]
#                            [--deadline SECS] [--build-dir DIR] [--keep]
#   --jobs LIST    job counts, one cluster each (default "50 200")
#   --slots S      node slots (default 32); --procs P node processes (4)
#   --latency MS   the judge's build latency (default 100)
#   --precheck MODE  passed to every job (on, off, audit; default whittle's)
#   --deadline S   longest a submit may take before the run fails (1800)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

JOB_COUNTS="50 200"
SLOTS=32
PROCS=4
LAT_MS=100
TEST=test_synth_small
PRECHECK=
DEADLINE=1800
BUILD_DIR=
while [ $# -gt 0 ]; do
    case $1 in
    --jobs) JOB_COUNTS=${2:?}; shift ;;
    --slots) SLOTS=${2:?}; shift ;;
    --procs) PROCS=${2:?}; shift ;;
    --latency) LAT_MS=${2:?}; shift ;;
    --test) TEST=${2:?}; shift ;;
    --precheck) PRECHECK=${2:?}; shift ;;
    --deadline) DEADLINE=${2:?}; shift ;;
    --build-dir) BUILD_DIR=${2:?}; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h|--help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) bench_die "unknown argument '$1'" ;;
    esac
    shift
done
for n in $JOB_COUNTS $SLOTS $PROCS $LAT_MS $DEADLINE; do
    [[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ] || bench_die "'$n' is not a positive number"
done
bench_trap
WB=$(bench_find_build "$BUILD_DIR") || bench_die "no build with whittle, whittle-coordinator and whittle-node (give --build-dir)"
command -v jq >/dev/null || bench_die "jq is needed to read summary.json"
bench_fixture
JUDGE=$(bench_judge)
LAT_S=$(awk -v m="$LAT_MS" 'BEGIN { printf "%.3f", m / 1000 }')
TCK=$(getconf CLK_TCK)

# The cluster of bench_cluster_start (lib.sh), with the coordinator options a
# farm of N jobs needs: --max-client-jobs N (the default 32 would refuse the
# rest: under --insecure every client is one key) and a journal file in the
# temp folder (the default one beside the user's cache is locked by any
# other coordinator that uses it). Sets CL_EP and CL_PIDS like lib.sh's, so
# bench_cluster_stop stops it.
farm_cluster_start() { # name slots procs maxjobs
    bench_cluster_start "$1" "$2" "$3" --journal "$BENCH_TMP/$1.journal" --max-client-jobs "$4"
}

# CPU of pid $1 in ms: utime + stime, plus cutime + cstime when $2 = all.
# The fields after the last ')' (comm may hold anything): state is $1 there,
# utime (field 14 of proc(5)) $12, stime $13, cutime $14, cstime $15.
cpu_ms() {
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    awk -v s="${st##*) }" -v all="${2:-}" -v tck="$TCK" 'BEGIN {
        split(s, f, " "); t = f[12] + f[13]; if (all == "all") t += f[14] + f[15]
        printf "%d", t * 1000 / tck }'
}

ROWS=()
FAILED=0
REF=
run_farm() {
    local n=$1 name="farm-$1" procs=$((SLOTS < PROCS ? SLOTS : PROCS))
    local pc=()
    [ -n "$PRECHECK" ] && pc=(--arg pc "$PRECHECK")
    jq -n --arg p "$BENCH_FIX" --arg t "$TEST" --arg b "$JUDGE build $LAT_S" --arg r "$JUDGE run" \
        --arg o "out-$n" --argjson k "$n" ${pc[@]+"${pc[@]}"} \
        '[range($k) | {project: $p, file: "tests/test_synth.c", test: $t, setup: "true",
          build: $b, run: $r, framework: "junit", out: ($o + "/job\(.)"), cache: "memory:",
          test_timeout: (60 + .)} + (if $ARGS.named.pc then {precheck: $ARGS.named.pc} else {} end)]' \
        >"$BENCH_TMP/$name.jobs.json" || bench_die "cannot write $name.jobs.json"
    farm_cluster_start "$name" "$SLOTS" "$procs" "$n"
    bench_log "$name: $n jobs onto $SLOTS slots (${procs}x$((SLOTS / procs))$([ $((SLOTS % procs)) -ne 0 ] && echo +)) at $LAT_MS ms, load $(cut -d' ' -f1-3 /proc/loadavg)"
    local t0 t1 rc=0
    t0=$(bench_now_ms)
    timeout "$DEADLINE" "$WB/coordinator/whittle" submit --cluster "$CL_EP" --insecure --quiet \
        "$BENCH_TMP/$name.jobs.json" >"$BENCH_TMP/$name.client.log" 2>&1 || rc=$?
    t1=$(bench_now_ms)
    local ccpu ncpu=0 p load
    ccpu=$(cpu_ms "${CL_PIDS[0]}")
    for p in "${CL_PIDS[@]:1}"; do ncpu=$((ncpu + $(cpu_ms "$p" all))); done
    load=$(cut -d' ' -f1 /proc/loadavg)
    bench_cluster_stop
    local dead
    dead=$(grep -c 'declared dead' "$BENCH_TMP/$name.coord.log")
    if [ $rc -ne 0 ]; then
        bench_log "FAIL: $name: whittle submit exited $rc$([ $rc = 124 ] && echo " (deadline $DEADLINE s)") (log: $BENCH_TMP/$name.client.log)"
        tail -n 5 "$BENCH_TMP/$name.client.log" >&2
        FAILED=1 BENCH_KEEP=1
        return 0
    fi
    # Three lines per job, keyed by its run folder: "S dir judged wall_ms"
    # (summary.json), "M dir mtime" (summary.json's, in s), and "J dir rows
    # first_start first_cand" (judged.csv; ms since the job's start).
    local k d dirs=() missing=0
    for ((k = 0; k < n; k++)); do
        d="$BENCH_TMP/out-$n/job$k/latest"
        if [ -f "$d/summary.json" ] && [ -f "$d/judged.csv" ]; then
            dirs+=("$d")
            [ -z "$REF" ] && REF=$d
            cmp -s "$REF/reduced.c" "$d/reduced.c" ||
                { bench_log "FAIL: $name: job $k reduced differently from $REF"; FAILED=1 BENCH_KEEP=1; }
        else
            bench_log "FAIL: $name: job $k has no summary.json or judged.csv under out-$n/job$k"
            missing=1 FAILED=1 BENCH_KEEP=1
        fi
    done
    [ "$missing" = 0 ] || return 0
    {
        jq -r '"S \(input_filename) \(.evaluated) \(.wall_ms)"' "${dirs[@]/%//summary.json}"
        stat -L -c 'M %n %.3Y' "${dirs[@]/%//summary.json}"
        awk -F, 'FNR == 1 { if (f != "") print "J", f, rows, first, cand; f = FILENAME; rows = 0; first = -1; cand = -1; next }
            { rows++; s = $7 - $5 - $6; if (s < 0) s = 0
              if (first < 0 || s < first) first = s
              if (($2 == "candidate" || $2 == "ahead") && (cand < 0 || $7 < cand)) cand = $7 }
            END { if (f != "") print "J", f, rows, first, cand }' "${dirs[@]/%//judged.csv}" |
            sed 's:/judged\.csv : :'
    } | sed 's:/summary\.json : :' >"$BENCH_TMP/$name.jobs.txt"
    # Per job: share (judged/s since the submit), wait and first verdict
    # (ms since the submit), judged, verdicts.
    awk -v t0="$t0" '
        $1 == "S" { ev[$2] = $3; wall[$2] = $4 }
        $1 == "M" { fin[$2] = $3 * 1000 }
        $1 == "J" { rows[$2] = $3; first[$2] = $4; cand[$2] = $5 }
        END {
            for (d in ev) {
                start = fin[d] - wall[d]
                life = fin[d] - t0; if (life < 1) life = 1
                printf "%.6f %.0f %.0f %d %d\n", ev[d] / (life / 1000), start + first[d] - t0,
                    (cand[d] >= 0 ? start + cand[d] - t0 : fin[d] - t0), ev[d], rows[d]
            }
        }' "$BENCH_TMP/$name.jobs.txt" >"$BENCH_TMP/$name.per" || { FAILED=1; return 0; }
    # pct COLUMN P: the P-th percentile (nearest rank) of a column, in s.
    pct() {
        sort -g -k"$1","$1" "$BENCH_TMP/$name.per" |
            awk -v c="$1" -v p="$2" '{ v[NR] = $c } END { i = int(p / 100 * NR + 0.999999); if (i < 1) i = 1; printf "%.2f", v[i] / 1000 }'
    }
    local w50 w99 f50 f99
    w50=$(pct 2 50) w99=$(pct 2 99) f50=$(pct 3 50) f99=$(pct 3 99)
    awk -v t0="$t0" -v t1="$t1" -v n="$n" -v slots="$SLOTS" -v ccpu="$ccpu" -v ncpu="$ncpu" -v load="$load" -v dead="$dead" \
        -v w50="$w50" -v w99="$w99" -v f50="$f50" -v f99="$f99" '
        { m++; x = $1; sx += x; sx2 += x * x; judged += $4; verdicts += $5
          if (m == 1 || x < minx) minx = x
          if (x > maxx) maxx = x }
        END {
            ws = (t1 - t0) / 1000
            mean = sx / m
            printf "%d %d %.1f %d %d %.1f %.1f %.3f %.2f %.2f %s %s %s %s %.1f %.2f %.1f %d %s\n",
                n, slots, ws, judged, verdicts, judged / ws, n / ws * 60,
                sx * sx / (m * sx2), minx / mean, maxx / mean, w50, w99, f50, f99,
                ccpu / 1000, ccpu / verdicts, ncpu / verdicts, dead, load
        }' "$BENCH_TMP/$name.per" >"$BENCH_TMP/$name.row" || { FAILED=1; return 0; }
    ROWS+=("$(cat "$BENCH_TMP/$name.row")")
    bench_log "  $name: $(awk '{ printf "%s s, %s judged (%s verdicts), jain %s, wait p50 %s s p99 %s s, coordinator %s s CPU = %s ms/verdict, %s slots declared dead", $3, $4, $5, $8, $11, $12, $15, $16, $18 }' "$BENCH_TMP/$name.row"), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

bench_log "whittle farm benchmark: jobs $JOB_COUNTS onto $SLOTS slots, latency $LAT_MS ms, $TEST"
bench_log "build $WB; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
T_START=$(bench_now_ms)
for n in $JOB_COUNTS; do run_farm "$n"; done
T_END=$(bench_now_ms)

echo
echo "farm_scale: $TEST, judge latency $LAT_MS ms, $SLOTS slots ($((SLOTS < PROCS ? SLOTS : PROCS)) node processes), $(nproc) cores,"
echo "precheck ${PRECHECK:-default}; load average at the end $(cut -d' ' -f1-3 /proc/loadavg), total $(( (T_END - T_START) / 1000 )) s"
{
    echo "jobs slots wall_s judged verdicts cand/s jobs/min jain min/max wait50_s wait99_s first50_s first99_s coord_cpu_s ms/verdict node_ms/v dead load"
    for r in "${ROWS[@]+"${ROWS[@]}"}"; do
        set -- $r
        echo "$1 $2 $3 $4 $5 $6 $7 $8 $9/${10} ${11} ${12} ${13} ${14} ${15} ${16} ${17} ${18} ${19}"
    done
} | column -t
if [ ${#ROWS[@]} -ge 2 ]; then
    printf '%s\n' "${ROWS[@]}" | sort -n -k1,1 | awk '
        NR == 1 { n0 = $1; c0 = $16; j0 = $15 / $1 } { n1 = $1; c1 = $16; j1 = $15 / $1 }
        END { printf "coordinator CPU per verdict at %d jobs / at %d jobs: %.2f (stays near 1 unless a per-verdict cost grows with the jobs; %.0f if it grew linearly); CPU per job %.2f\n",
                  n1, n0, (c0 > 0 ? c1 / c0 : 0), n1 / n0, (j0 > 0 ? j1 / j0 : 0) }'
fi
if [ "$FAILED" -ne 0 ]; then
    echo "FAILED: jobs failed or disagree (records kept in $BENCH_TMP)" >&2
    exit 1
fi
echo "every job finished and gave the same reduced test (sha256 $(sha256sum <"$REF/reduced.c" | cut -c1-12))"
