/*
 * reduce_audit — the sample audit of cached negative verdicts
 * (reduce_audit.c): its state and interface. struct red_cache_audit is
 * embedded in the job (r->cache_audit); only reduce_audit.c reads or
 * writes its fields (tests/layout checks it). Part of the reduce module:
 * everything here runs on the pool's thread.
 */
#ifndef WH_REDUCE_AUDIT_H
#define WH_REDUCE_AUDIT_H

#include "record.h"
#include "reduce.h"

struct red_cand;

struct red_cache_audit {
    int audits;         /* cached negative verdicts judged afresh */
    int refuted;        /* of them, Preserved afresh */
    int differ;         /* of them, another negative verdict afresh */
    int distrust;       /* one was refuted: no negative verdict of the cache is taken */
};

/* The round's cached negative verdicts to judge afresh (a sample within
 * the budget, or all of them once one was refuted) are made misses;
 * red_cache_audit_answer compares candidate c's fresh verdict with the
 * cache's. */
void red_cache_audit_round(wh_reduction_t *r);
void red_cache_audit_answer(wh_reduction_t *r, struct red_cand *c);
/* 1 for a verdict that says a removal was not Preserved (never None,
 * InfraError or UBGuard, the coordinator's own): what the claims check and
 * the audit judge again. */
int red_negative(wh_verdict_t v);
/* The audit's figures for the summary. */
void red_cache_audit_summary(const wh_reduction_t *r, wh_summary_t *s);

#endif
