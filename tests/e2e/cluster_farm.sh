#!/bin/bash
# whittle mutate --cluster on the farm fixture: the kill runs (each (mutant,
# test) pair's test run --repeat times on the mutated project, as the
# baseline of a reduction job) and the reductions (default walk and
# --algorithm linear) go through a real coordinator to two real nodes. The
# kill matrix equals the local run's byte for byte (with the flaky test's
# potential kill of M3 = IN in shop_discount), and so do the reductions:
# the same pairs, statements left by both walks, TP/FP/FN, fault kept on all.
# Run under the cluster lock.
. "$(dirname "$0")/lib.sh"
B="$WH_BINARY_DIR"
PIDS=()
trap 'stop_all; [ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT
P="$T/p"; cp -r "$FIX/farm" "$P"
before=$(tree_digest "$P")
margs=(--project "$P" --source 'src/*.c' --tests-file tests/test_shop.c --setup "make -s" --build "make -s"
       --run "./test_shop" --framework cmocka --ops IN --repeat 2 --reduce)
"$WHITTLE" mutate "${margs[@]}" --jobs 2 --out "$T/local" > "$T/local.out" 2>&1 || { cat "$T/local.out"; fail "local mutate"; }

EP="tcp://127.0.0.1:$(free_port)"
mkdir -p "$T/runs"
"$B/coordinator/whittle-coordinator" --runs "$T/runs" --bind "$EP" --cache memory: --insecure > "$T/coord.log" 2>&1 &
PIDS+=($!)
for n in 1 2; do
    "$B/node/whittle-node" --connect "$EP" --slots 1 --workdir "$T/node$n" --id "n$n" --insecure > "$T/node$n.log" 2>&1 &
    PIDS+=($!)
done
_t0=$SECONDS; while [ $((SECONDS - _t0)) -lt 60 ]; do
    "$WHITTLE" status --cluster "$EP" --insecure 2>/dev/null | grep -q "slots: 2" && break; sleep 0.1
done
"$WHITTLE" mutate "${margs[@]}" --cluster "$EP" --insecure --out "$T/cl" > "$T/cl.out" 2>&1 || { cat "$T/cl.out"; fail "cluster mutate"; }
cat "$T/cl.out" >&2
check_eq "project untouched" "$(tree_digest "$P")" "$before"
check_eq "mutants" "$(json "$T/cl/mutants.json" '[.[] | "\(.id):\(.operator):\(.status)"] | join(" ")')" "M1:IN:killed M2:IN:killed M3:IN:killed"
check_eq "kill matrix = local" "$(cat "$T/cl/kills.csv")" "$(cat "$T/local/kills.csv")"
check_eq "M3 kills" "$(grep '^M3,' "$T/cl/kills.csv" | grep -v survived | tr '\n' ' ')" \
    "M3,test_discount,definite M3,test_flaky_discount,potential "
sig() { jq -c '[.runs[] | [.mutant, .test, .statements_after, .linear.statements_after, .tp, .fp, .fn, .fault_kept]]' "$1"; }
check_eq "reductions = local" "$(sig "$T/cl/bench.json")" "$(sig "$T/local/bench.json")"
check_eq "pairs, fault kept" "$(json "$T/cl/bench.json" '.total | [.runs, .reduced, .fault_kept] | join(" ")')" "7 7 7"
# Every kill run was a job the coordinator accepted (3 mutants x 6 tests),
# the 7 gold walks too, and both nodes judged candidates.
check_eq "kill probes through the coordinator" "$(grep -l "run folder $T/runs/" "$T"/cl/reduce/*/hdd.log | wc -l)" 18
check_eq "gold walks through the coordinator" "$(grep -l "run folder $T/runs/" "$T"/cl/reduce/*/linear.log | wc -l)" 7
check_eq "run folders linked" "$(readlink "$T/cl/reduce/M1-test_total/linear/run" | grep -c "^$T/runs/cl/M1-test_total/linear/test_total-")" 1
check_eq "candidates judged on both nodes" "$(cat "$T"/runs/cl/*/*/*/candidates.csv | awk -F, '$8 ~ /^n[12]\// { split($8, a, "/"); print a[1] }' | sort -u | tr '\n' ' ')" "n1 n2 "
finish
