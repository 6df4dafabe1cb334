#!/bin/bash
# The status line's ETA against the truth (issue 17): the synthetic fixture
# (bench/synthetic, whose "build" is a fixed sleep in a real process, so
# the machine's load changes little) reduced with 1 and with 4 slots, plain
# progress lines every second, each stamped when it arrives; the ETA shown
# at about half the run's wall time is compared with the time the run
# really still took: within a factor of 1.5 either way. Ratios, not
# times, are compared, and not one line's: the median of the ratios of the
# lines from 30% to 70% of the walk (one line read early in a burst of load
# said 6s where 3.5s were left, in a CI run beside a compiling test). The
# build with 4 slots sleeps longer so that its walk has lines to take.
. "$(dirname "$0")/lib.sh"
synth_fixture

# ETA text ("45s", "1m05s", "2h03m") -> ms
eta_ms() {
    awk -v e="$1" 'BEGIN { ms = 0
        if (match(e, /[0-9]+h/)) ms += substr(e, RSTART, RLENGTH - 1) * 3600000
        if (match(e, /[0-9]+m/)) ms += substr(e, RSTART, RLENGTH - 1) * 60000
        if (match(e, /[0-9]+s/)) ms += substr(e, RSTART, RLENGTH - 1) * 1000
        print ms }'
}

for slots in 1 4; do
    secs=0.25; [ "$slots" = 1 ] || secs=0.5
    log="$T/j$slots.log"
    WHITTLE_PROGRESS_SECS=1 "$WHITTLE" reduce --project "$P" --file tests/test_synth.c \
        --test test_synth_small --setup true --build "$J build $secs" --run "$J run" \
        --framework junit --cache memory: --precheck off --no-speculate --jobs "$slots" \
        --out "$T/j$slots" 2>&1 |
        while IFS= read -r line; do printf '%s %s\n' "$(date +%s%3N)" "$line"; done > "$log"
    R=$(run_dir "$T/j$slots")
    [ -f "$R/summary.json" ] || { cat "$log"; fail "j$slots: run"; continue; }
    # From the first line with an ETA to the end of the walk (the verify
    # step after it is not in the ETA): the line nearest the half.
    t0=$(awk '/ETA [0-9]/ { print $1; exit }' "$log")
    t1=$(awk '/Progress: verifying|Verif/ { print $1; exit }' "$log")
    [ -n "$t0" ] && [ -n "$t1" ] || { cat "$log"; fail "j$slots: no ETA lines"; continue; }
    # Each ETA line in the window: its ETA and the walk's truth after it.
    awk -v a=$(( t0 + (t1 - t0) * 3 / 10 )) -v b=$(( t0 + (t1 - t0) * 7 / 10 )) \
        '/ETA [0-9]/ && $1 >= a && $1 <= b { print $1, $NF }' "$log" > "$T/w$slots"
    n=0; : > "$T/r$slots"
    while read -r th eta; do
        truth=$((t1 - th)) est=$(eta_ms "$eta")
        echo "j$slots: at $((th - t0)) ms of a $((t1 - t0)) ms walk the ETA said $eta, the walk took $truth ms more" >&2
        awk -v e="$est" -v t="$truth" 'BEGIN { printf "%.3f\n", (t > 0 ? e / t : 1e9) }' >> "$T/r$slots"
        n=$((n + 1))
    done < "$T/w$slots"
    [ "$n" -ge 2 ] || { cat "$log"; fail "j$slots: $n ETA lines in the middle of the walk, want 2 or more"; continue; }
    med=$(sort -g "$T/r$slots" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    awk -v m="$med" 'BEGIN { exit !(m <= 1.5 && m * 1.5 >= 1) }' &&
        pass "j$slots: ETA in the middle of the run within 1.5x (median ratio $med of $n lines)" ||
        fail "j$slots: ETA in the middle of the run off by more than 1.5x (median ratio $med of $n lines)"
done
finish
