/*
 * reduce_audit — the sample audit of cached negative verdicts (DESIGN.md,
 * "Trust"). The claims check judges again, at the end, the negative
 * verdicts the answer rests on; a cache that lies "not Preserved" also
 * steers the walk on the way there, and every run of every user that reads
 * it. So a sample of the cache's negative verdicts from before this run is
 * judged afresh while the walk runs: one per 20 candidates this run built
 * (5 % of its builds; none in a run that builds nothing, whose answer the
 * claims check and the verify run still judge afresh). An audited hit is
 * simply not taken: the candidate is built as a miss would be and the
 * walk goes on the fresh verdict, so an honest cache changes nothing in the walk (the same
 * verdict, one build more). When the fresh verdict is Preserved where the
 * cache said otherwise, the cache lied (a forged value, a node's lie):
 * the fresh verdict replaces it, and for the rest of the run no negative
 * verdict of the cache is taken. Part of the reduce module (reduce_int.h).
 */
#include "reduce_int.h"
#include "reduce_audit.h"
#include "reduce_verify.h"

#include <stdio.h>

/* Candidates built per audit. */
#define S_PER_AUDIT 20

int red_negative(wh_verdict_t v)
{
    return v > WH_V_NONE && v < WH_V_COUNT && v != WH_V_PRESERVED && v != WH_V_INFRA_ERROR &&
           v != WH_V_UB_GUARD;
}

void red_cache_audit_round(wh_reduction_t *r)
{
    int distrusted = 0;
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || !c->from_cache || !red_negative(c->v))
            continue;
        /* The sample: verdicts from before this run (a slot of this run
         * judged the others; the claims check judges those it rests on). */
        if (!r->cache_audit.distrust &&
            (r->cache_audit.audits >= (r->walk.evaluated + S_PER_AUDIT - 1) / S_PER_AUDIT ||
             wh_trail_judged_here(r->trail, c->key)))
            continue;
        if (!r->cache_audit.distrust) {
            r->cache_audit.audits++;
            c->audit_v = c->v;
        } else {
            distrusted++;
        }
        c->v = WH_V_NONE; /* judged afresh, as a miss */
        c->from_cache = 0;
    }
    if (distrusted)
        wh_record_log(r->rec, "audit: %d cached negative verdict%s not taken (the cache lied "
                      "earlier in this run)", distrusted, distrusted == 1 ? "" : "s");
}

void red_cache_audit_answer(wh_reduction_t *r, red_cand_t *c)
{
    wh_verdict_t was = c->audit_v;
    c->audit_v = WH_V_NONE;
    if (!was || c->v == WH_V_INFRA_ERROR || c->v == was)
        return;
    const char *slot = c->node ? c->node : "-";
    if (c->v != WH_V_PRESERVED) {
        /* Not Preserved either way: the walk would have gone the same. */
        r->cache_audit.differ++;
        wh_record_log(r->rec, "audit: the cache said %s for %.12s, judged %s afresh on %s",
                      wh_verdict_name(was), c->key, wh_verdict_name(c->v), slot);
        return;
    }
    r->cache_audit.refuted++;
    wh_record_log(r->rec, "audit: the cache said %s for %.12s, judged Preserved afresh on %s: "
                  "the cache's negative verdicts are not taken for the rest of this run",
                  wh_verdict_name(was), c->key, slot);
    if (!r->cache_audit.distrust)
        red_tell(r, "Audit: a cached verdict was wrong (the cache said %s, Preserved afresh on "
                 "slot %s); no negative verdict of the cache is taken for the rest of this run\n",
                 wh_verdict_name(was), slot);
    r->cache_audit.distrust = 1;
}

void red_cache_audit_summary(const wh_reduction_t *r, wh_summary_t *s)
{
    s->audits = r->cache_audit.audits;
    s->audits_refuted = r->cache_audit.refuted;
}
