/*
 * reduce_trust — no answer rests on the word of the node that produced it
 * (reduce_trust.c): its state and interface. struct red_trust is embedded
 * in the job (r->trust); only reduce_trust.c reads or writes its fields
 * (tests/layout checks it), every other file goes through the functions
 * below. Part of the reduce module: everything here runs on the pool's
 * thread.
 */
#ifndef WH_REDUCE_TRUST_H
#define WH_REDUCE_TRUST_H

#include <stdint.h>

#include "record.h"
#include "reduce.h"
#include "wire.h"

/* The fingerprint-location rule's line, who ran the original's baseline,
 * and the node an unverified answer rests on. */
struct red_trust {
    int line;               /* the failure's line in the test file (fprule.h); 0: off */
    int line_known;         /* line was worked out (the fingerprint is known) */
    char *base_slot;        /* the slot whose run gave the fingerprint; NULL: cached */
    char *lone;             /* the cluster node that judged everything and verified the
                               answer itself: not verified (WH_EXIT_UNVERIFIED); or NULL */
    char *why;              /* with lone: why not, for the records */
};

void red_trust_free(wh_reduction_t *r);
/* Notes the slot whose run of the original gave the fingerprint. */
void red_trust_baseline(wh_reduction_t *r, const char *worker);
/* Before a round's winner is taken: a Preserved candidate that removes the
 * statement at the failure's location is a lie; its node leaves the job,
 * its verdicts are dropped and the walk resumes (or the job fails when no
 * other node can judge). 1 when it did (the caller returns at once). */
int red_fprule_settle(wh_reduction_t *r);
/* A claims check's Preserved answer from worker, for the configuration
 * removed[] less unit `unit` (reduce_claims.c): 0 when the rule does not
 * apply; else a lie (its node is out of the job, its verdicts dropped) and
 * 1 when the job failed or the walk resumed, 2 when the check is to be
 * asked again of another node. */
int red_fprule_claim(wh_reduction_t *r, const uint8_t *removed, int unit, const char *worker);
/* 1 when a speculation's verdict came from a node out of this job: not
 * cached. */
int red_trust_spec_ignored(wh_reduction_t *r, const char *worker);
/* The original, verified afresh on worker, does not fail the same way and
 * no other node can judge: names worker's node in the error, drops its
 * verdicts, fails the job (exit 3). 1 when it did; 0 in the embedded
 * default (the user's own machine: flaky, not a liar). */
int red_trust_lone_refuter(wh_reduction_t *r, const char *worker, const wh_msg_t *m);
/* The reduced test fails the same way afresh on vnode: 1 when that is a
 * second opinion (another node judged something, or the embedded
 * default), 0 when not (the answer is not verified; said and noted). */
int red_trust_verified(wh_reduction_t *r, const char *vnode);
/* 1 when the answer rests on one node of a cluster that judged everything
 * and verified it itself: not verified (WH_EXIT_UNVERIFIED). */
int red_trust_lone(const wh_reduction_t *r);
/* Trust's figures for the summary: not verified, and why, with a lone
 * node (after red_verify_summary). */
void red_trust_summary(const wh_reduction_t *r, wh_summary_t *s);

#endif
