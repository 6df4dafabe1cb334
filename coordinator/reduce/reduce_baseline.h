/*
 * reduce_baseline — the baseline phase's state and interface
 * (reduce_baseline.c): the original's run or its cached fingerprint, the
 * fingerprint recorded, and the walk begun. struct red_baseline is
 * embedded in the job (r->baseline); only reduce_baseline.c reads or
 * writes its fields (tests/layout checks it), every other file goes
 * through the functions below. The fingerprint itself (r->fp) and the
 * one waiting for the front end (r->pending_fp) are the job's core.
 * Part of the reduce module: everything here runs on the pool's thread.
 */
#ifndef WH_REDUCE_BASELINE_H
#define WH_REDUCE_BASELINE_H

#include <stdint.h>

#include "wh_common.h"
#include "reduce.h"
#include "wire.h"

struct red_baseline {
    uint64_t id;            /* the original's run */
    /* The original's other failing functions (oracle.h's others), NULL when
     * not known: a Preserved verdict whose run failed another function too
     * is a different failure (red_on_verdict). */
    char *others;
};

/* wh_reduction_start's last step: with this job's fingerprint in the
 * cache (usable, and its compile command parses the test now), the walk
 * begins (or waits for the front end); else the original is queued. 0, or
 * the pool's error with *err said. */
int red_baseline_start(wh_reduction_t *r, char **err);
/* 1 when id is the original's run and the job waits for it (its answer
 * taken: the fingerprint, or the job failed). */
int red_baseline_take(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker);
/* 1 when id is the original's run. */
int red_baseline_is(const wh_reduction_t *r, uint64_t id);
/* The functions a run of candidate id failed (others) that the original's
 * did not, for a Preserved verdict's detail (malloc'ed), or NULL. */
char *red_baseline_added(const wh_reduction_t *r, uint64_t id, const char *others);
void red_baseline_free(wh_reduction_t *r);
/* Reads a fingerprint cached as JSON; WH_EPARSE when s is no object. */
int red_fp_from_json(const char *s, wh_fp_t *fp);
/* Its "others" member (the original's other failing functions), NULL when
 * it has none (a fingerprint cached before they were kept). */
char *red_others_from_json(const char *s);
/* Records the fingerprint (cache, run folder, pool) and starts the walk. */
void red_take_fingerprint(wh_reduction_t *r, const wh_fp_t *observed);
/* The console's fingerprint: test | kind | location | message, the parts
 * that are known (malloc'ed; NULL only when out of memory). */
char *red_fp_line(const wh_fp_t *fp);
/* Starts the walk once the fingerprint is known: first, with a reference
 * --reference auto picked, the original's run there. */
void red_begin_walk(wh_reduction_t *r);

#endif
