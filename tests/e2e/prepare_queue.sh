#!/bin/bash
# Lazy preparation (issue 35): the coordinator prepares submitted jobs on a
# fixed number of threads, first come, first served, and queues a job's
# original as soon as the job is identified (parsed, hashed), setting its
# front end (precheck, UB guard) up while the original runs. 20 jobs of the
# synthetic fixture submitted at once to a coordinator with
# --prepare-threads 2 and one node of 2 slots; its --verbose log says when
# each preparation starts and ends (written under the queue's lock, so its
# order is the order of events) and when a job is started with its original
# queued. Checks, on the order of events, never on times:
#  - at most 2 preparations ever run at once, and each job is identified
#    and its front end set up exactly once;
#  - the jobs are identified, and their front ends set up, in submit
#    order; all but the first (or the first two) take the precheck's
#    set-up of an identical job (same project, file, text, flags);
#  - every job's original is queued before its front end's set-up begins,
#    and the first job's before the last job's front end begins;
#  - a job waiting on the queue tells its client so ('waiting to be
#    prepared: N jobs ahead');
#  - every job gives the reduced test, candidates and verdicts of the same
#    job reduced alone with everything prepared before it starts (plain
#    `whittle reduce`, embedded);
#  - a bad --prepare-threads is refused with one line.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
trap 'stop_all; rm -rf "$T"' EXIT
synth_fixture
N=20
jq -n --arg p "$P" --arg b "$J build 0.05" --arg r "$J run" --argjson n "$N" \
    '[range($n) | {project: $p, file: "tests/test_synth.c", test: "test_synth_small", setup: "true",
      build: $b, run: $r, framework: "junit", out: "q/job\(.)", test_timeout: (60 + .)}]' > "$T/jobs.json"

EP="tcp://127.0.0.1:$(free_port)"
"$B/coordinator/whittle-coordinator" --runs "$T/runs" --bind "$EP" --cache memory: --journal off \
    --insecure --verbose --prepare-threads 2 --max-client-jobs "$N" > "$T/coord.log" 2>&1 &
PIDS+=($!)
wait_listening "$T/coord.log"
"$B/node/whittle-node" --connect "$EP" --slots 2 --workdir "$T/node" --id n1 --insecure \
    --sandbox none > "$T/node.log" 2>&1 &
PIDS+=($!)
CLUSTER_INSECURE=1 wait_slots 2
timeout 600 "$WHITTLE" submit --cluster "$EP" --insecure "$T/jobs.json" > "$T/submit.out" 2>&1
check_eq "whittle submit of $N jobs: exit" "$?" 0
stop_all

# Submit order: the client's tag k is the job's place in the file.
ids=()
for ((k = 0; k < N; k++)); do
    ids+=("$(sed -n "s/^\[job $k\] job \([^ ]*\) accepted.*/\1/p" "$T/submit.out" | head -n1)")
done
check_eq "jobs accepted" "$(printf '%s\n' "${ids[@]}" | grep -c .)" "$N"

# The preparations, in the log's order: at most 2 at once.
grep -E '^whittle: info: preparation: ' "$T/coord.log" > "$T/prep.log"
check_eq "most preparations at once" "$(awk '/ started after / { n++; if (n > m) m = n } / done in / { n-- } END { print m + 0 }' "$T/prep.log")" 2
check_eq "identifications started" "$(grep -c '^whittle: info: preparation: identification of job .* started' "$T/prep.log")" "$N"
check_eq "front ends set up" "$(grep -c '^whittle: info: preparation: front end of job .* done in' "$T/prep.log")" "$N"
check_eq "identified in submit order" \
    "$(sed -n 's/^whittle: info: preparation: identification of job \([^ ]*\) started.*/\1/p' "$T/prep.log" | tr '\n' ' ')" \
    "$(printf '%s ' "${ids[@]}")"
check_eq "front ends set up in submit order" \
    "$(sed -n 's/^whittle: info: preparation: front end of job \([^ ]*\) started.*/\1/p' "$T/prep.log" | tr '\n' ' ')" \
    "$(printf '%s ' "${ids[@]}")"

# Every job's original queued before its own front end's set-up started,
# and the first job's before the last job's front end started (the
# preparations are logged under the queue's lock, the starts on the poll
# thread: the log's order is the order of events).
grep -nE '^whittle: info: (job [0-9a-f]+ \(identity [0-9a-f]+\) started: original queued|preparation: front end of job [0-9a-f]+ started)' \
    "$T/coord.log" > "$T/order.log"
queued_first=0
for ((k = 0; k < N; k++)); do
    q=$(grep -m1 "info: job ${ids[k]} (identity" "$T/order.log" | cut -d: -f1)
    f=$(grep -m1 "front end of job ${ids[k]} started" "$T/order.log" | cut -d: -f1)
    [ -n "$q" ] && [ -n "$f" ] && [ "$q" -lt "$f" ] && queued_first=$((queued_first + 1))
done
check_eq "jobs whose original was queued before their front end's set-up began" "$queued_first" "$N"
q0=$(grep -m1 "info: job ${ids[0]} (identity" "$T/order.log" | cut -d: -f1)
fl=$(grep -m1 "front end of job ${ids[N - 1]} started" "$T/order.log" | cut -d: -f1)
if [ -n "$q0" ] && [ -n "$fl" ] && [ "$q0" -lt "$fl" ]; then
    pass "job 0's original queued (log line $q0) before job $((N - 1))'s front end began (line $fl)"
else
    fail "job 0's original queued at log line '$q0', job $((N - 1))'s front end began at '$fl'"
fi
check_le "a waiting job told its client how many are ahead (lines)" \
    1 "$(grep -cE '^\[job [0-9]+\] waiting to be prepared: [0-9]+ jobs? ahead$' "$T/submit.out")"

# The same answer as the job reduced alone, prepared all at once.
"$WHITTLE" reduce --project "$P" --file tests/test_synth.c --test test_synth_small --setup true \
    --build "$J build 0.05" --run "$J run" --framework junit --test-timeout 60 --jobs 2 \
    --out "$T/alone" > "$T/alone.out" 2>&1 || fail "the job alone: $(tail -n 3 "$T/alone.out")"
ref=$(run_dir "$T/alone")
same=0
for ((k = 0; k < N; k++)); do
    d=$(run_dir "$T/runs/q/job$k")
    if ! cmp -s "$ref/reduced.c" "$d/reduced.c"; then
        fail "job $k: another reduced test than the job alone"
    elif [ "$(cut -d, -f1-6 "$d/candidates.csv")" != "$(cut -d, -f1-6 "$ref/candidates.csv")" ]; then
        fail "job $k: other candidates or verdicts than the job alone"
    else
        same=$((same + 1))
    fi
done
check_eq "jobs with the reduced test, candidates and verdicts of the job alone" "$same" "$N"
# The jobs share one file, its flags and the project: the precheck was set
# up once (or once per preparation thread that got there first), its
# outcome taken by the others.
twins=0
for ((k = 0; k < N; k++)); do
    grep -q '^precheck: set up as for a job with the same project, file, text and flags' \
        "$(run_dir "$T/runs/q/job$k")/run.log" && twins=$((twins + 1))
done
check_le "jobs whose precheck was set up as a twin's" "$((N - 2))" "$twins"

out=$("$B/coordinator/whittle-coordinator" --bind "tcp://127.0.0.1:$(free_port)" --insecure --prepare-threads 0 2>&1)
check_eq "--prepare-threads 0: exit $?, the line" "$out" \
    "whittle-coordinator: error: --prepare-threads wants a number of threads in 1..64, not '0'"
finish
