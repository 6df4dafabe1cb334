/*
 * reduce_fault — the fault check's state and interface (reduce_fault.c):
 * with a reference (the version without the bug), the reduced test must
 * pass there (thesis 8.1, second item); a reference --reference auto
 * picked must pass the original first. struct red_fault is embedded in the
 * job (r->fault); only reduce_fault.c reads or writes its fields
 * (tests/layout checks it), every other file goes through the functions
 * below. Part of the reduce module: everything here runs on the pool's
 * thread.
 */
#ifndef WH_REDUCE_FAULT_H
#define WH_REDUCE_FAULT_H

#include <stdint.h>

#include "record.h"
#include "reduce.h"
#include "wire.h"

struct red_fault {
    uint64_t probe_id;      /* the original on a picked reference (refauto.h) */
    char *unchecked;        /* why a picked reference was dropped, or NULL */
    char *said;             /* "kept", "lost", or why the check could not tell */
    char *detail;           /* the reference run's test | location | message */
};

/* With a reference --reference auto picked and not yet tried: queues the
 * original's run there (the job waits in RED_REFPROBE) and returns 1; 1
 * too when that failed the job; 0 when the walk may begin now. */
int red_fault_probe(wh_reduction_t *r);
/* After the verify step and the claims check: the fault check, or done. */
void red_after_claims(wh_reduction_t *r);
/* 1 when id was the fault check's task for the job's state (the probe, or
 * the reduced test on the reference), its answer taken. */
int red_fault_take(wh_reduction_t *r, uint64_t id, const wh_msg_t *m);
/* 1 when id is a run on the reference (the probe or the check). */
int red_fault_is_ours(const wh_reduction_t *r, uint64_t id);
/* What the check said ("kept", "lost", "unknown: ..."), or NULL (not run);
 * and its run's test | location | message, or NULL. */
const char *red_fault_said(const wh_reduction_t *r);
const char *red_fault_detail(const wh_reduction_t *r);
/* Takes what an earlier run of this job said (copied; detail may be NULL). */
void red_fault_reused(wh_reduction_t *r, const char *said, const char *detail);
/* The fault check's figures for the summary. */
void red_fault_summary(const wh_reduction_t *r, wh_summary_t *s);
void red_fault_free(wh_reduction_t *r);

#endif
