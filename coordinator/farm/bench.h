/*
 * bench — the figures of a `whittle mutate --reduce` run: bench.json and
 * bench.txt under the mutate --out folder, from the run folders of the
 * reductions (farm.h). Per pair and in total: statements before and after,
 * the thesis's measures (seed 000, 5.6: ARS, PRS, ATRS, PTRS, ANTRS, PNTRS,
 * the percentages over the test's statement count), builds (candidates
 * built and run), predicted builds (BuildFailed predicted, not built), wall
 * time, whether the fault was kept, and precision and recall of the default
 * walk against --algorithm linear, counted statement by statement on the
 * summaries' removed_units: TP removed by both, FP removed by the default
 * walk only, FN removed by the linear walk only.
 */
#ifndef WH_BENCH_H
#define WH_BENCH_H

#include <stdint.h>

#include "farm.h"

/* Writes bench.json and bench.txt and prints the totals line; wall_ms is
 * the whole reduction phase. 0; 1 when a run folder is missing or a fault
 * was lost (the files are still written); -1 when they cannot be written. */
int wh_bench_write(const wh_farm_t *f, uint64_t wall_ms);

#endif
