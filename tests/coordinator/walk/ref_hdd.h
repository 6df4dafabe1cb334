/*
 * ref_hdd — a plain sequential, recursive reference of the thesis's
 * algorithm (Algorithm 1 ddmin with the even split, inside the HDD* loop:
 * whole-level prune, top-down levels, sweeps to a fixpoint; or the flat DD
 * baseline), and of the chunked walk (engine.h: prune, chunk passes with
 * halving sizes, a cyclic one-at-a-time stage; revisits go straight to it,
 * levels unchanged since they were left 1-minimal are skipped), and of the
 * linear gold-standard walk (one pass per level, one unit at a time, top to
 * bottom, in the same levels and sweeps). It calls the oracle directly and records what it did, so the
 * round engine can be checked against it. Test code only: written for
 * clarity, not speed, and independently of coordinator/engine.c.
 */
#ifndef WH_REF_HDD_H
#define WH_REF_HDD_H

#include <stdint.h>

#include "engine.h"

/* Judges one candidate: removed[u] = 1 for every removed unit (closed under
 * descendants). Must be deterministic. */
typedef wh_verdict_t (*ref_oracle_fn)(const uint8_t *removed, int n, void *ud);

typedef struct {
    int n;                  /* units */
    uint8_t *final;         /* removed set at the end */
    int sweeps;             /* sweeps started (same rule as the engine) */
    int n_acc;              /* accepted configurations, in order */
    uint8_t **acc;
    int n_judged;           /* judged candidates and their verdicts, in order */
    uint8_t **judged;
    wh_verdict_t *verdicts;
} ref_trace_t;

/* Runs the reduction; returns 0, or -1 on allocation failure. *out must be
 * freed with ref_trace_free even on failure. WH_ALGO_DD walks classic. */
int ref_hdd(int n, const int *parent, wh_algo_t algo, wh_walk_t walk, ref_oracle_fn fn,
            void *ud, ref_trace_t *out);
void ref_trace_free(ref_trace_t *t);

#endif
