/*
 * reduce_results — the answer's record (reduce_results.c): its state and
 * interface. struct red_results is embedded in the job (r->results); only
 * reduce_results.c reads or writes its fields (tests/layout checks it);
 * the public getters of reduce.h that read them (wh_reduction_lines,
 * _result_text, _diff, _closing) are defined there too. Part of the reduce
 * module: everything here runs on the pool's thread.
 */
#ifndef WH_REDUCE_RESULTS_H
#define WH_REDUCE_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "reduce.h"

struct red_results {
    char *text;             /* the reduced test function, for the console */
    char *diff;             /* the test file, original to reduced (reduced.diff) */
    char *lines;            /* the reduced test file, line-true (reduced.lines.<ext>) */
    size_t lines_len;
    char *closing;          /* the verify and fault-check lines, for a remote client */
    uint64_t wall_ms;       /* the run's wall time, when it ended */
};

/* Writes the record of a successful run and ends the job (status 0). */
void red_finish(wh_reduction_t *r);
/* A fingerprint-only job (job.fingerprint_only) has its fingerprint: its
 * summary.json (nothing reduced, nothing verified), and done. */
void red_finish_fingerprint(wh_reduction_t *r);
/* A run that stops part-way: tree.json and partial.diff from the accepted
 * configuration so far, for report.html. */
void red_write_partial(wh_reduction_t *r);
void red_results_free(wh_reduction_t *r);

#endif
