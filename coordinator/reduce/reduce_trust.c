/*
 * reduce_trust — no answer rests on the word of the node that produced it
 * (DESIGN.md, "Trust"; issue 34). Three checks of the job driver that
 * need no second build:
 *
 *  - the fingerprint-location rule (fprule.h): a Preserved verdict for a
 *    candidate that removes the statement at the failure's location is
 *    impossible; the node that gave it is out of the job, every verdict it
 *    gave in this run is dropped, and the walk resumes from the last step
 *    another node judged (or the job stops when no other node can judge);
 *  - a lone node whose verify run of the original disagrees with the
 *    original's baseline run is named, and its verdicts dropped, instead
 *    of "is it flaky?";
 *  - an answer whose every verdict, and the verify run, came from one node
 *    of a cluster is not verified (WH_EXIT_UNVERIFIED): the client verifies
 *    on its own machine, or the run says "not verified". The embedded
 *    default runs on the user's own machine: its verify run is the user's
 *    own check.
 *
 * The state is struct red_trust (reduce_trust.h). Part of the reduce module;
 * runs on the pool's thread.
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fprule.h"

/* Stands for "nobody's node" where the trail wants the verifier's: the
 * coordinator found the lie itself, so the liar's node always differs. */
static const char s_coordinator[] = "(the coordinator)";

void red_trust_free(wh_reduction_t *r)
{
    free(r->trust.base_slot);
    free(r->trust.lone);
    free(r->trust.why);
    r->trust.base_slot = r->trust.lone = r->trust.why = NULL;
}

void red_trust_baseline(wh_reduction_t *r, const char *worker)
{
    free(r->trust.base_slot);
    r->trust.base_slot = worker ? strdup(worker) : NULL;
}

/* The failure's line of the test file, once the fingerprint is known. */
static int s_line(wh_reduction_t *r)
{
    if (!r->trust.line_known && r->fp.location) {
        r->trust.line = wh_fprule_line(r->tree, r->fp.location, r->job.match == 0);
        r->trust.line_known = 1;
        if (r->trust.line)
            wh_record_log(r->rec, "fingerprint rule: a candidate that leaves line %d of %s "
                          "without code cannot fail the same way (no Preserved)",
                          r->trust.line, r->job.file);
    }
    return r->trust.line;
}

/* Cancels what the current round still has out and forgets the round. */
static void s_drop_round(wh_reduction_t *r)
{
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep == i && c->checking)
            red_precheck_cancel(r, c->eval_id);
        if (c->rep == i && c->submitted && c->v == WH_V_NONE)
            wh_pool_cancel(r->pool, r->pool_id, c->eval_id);
    }
    red_clear_round(r);
}

/* A Preserved verdict of key (removed: its candidate) from slot (NULL: a
 * cached verdict whose node is not here) that removes the failing
 * statement: the lie is logged, the node is out of the job with every
 * verdict it gave in this run, the key is dropped. 1 when the job failed
 * (no other node can judge); 0 when it goes on, and *good is the trail
 * step the walk should resume from when the node judged an accepted step
 * (-1: it judged none). */
static int s_lie(wh_reduction_t *r, const char *key, const char *slot, int *good)
{
    int line = r->trust.line;
    const char *node = slot ? wh_pool_node_of(r->pool, slot) : NULL;
    char *liar = node ? strdup(node) : NULL;
    wh_record_log(r->rec, "fingerprint rule: %s said Preserved of a candidate that removes "
                  "the failing statement (%s line %d): impossible", liar ? liar : "the cache",
                  r->job.file, line);
    /* Steps accepted on the liar's word go too: the walk resumes from the
     * step before its first. */
    *good = -1;
    for (int s = 1; liar && s < wh_trail_steps(r->trail); s++) {
        const char *jn = wh_trail_judge_node(r->trail, s);
        if (jn && strcmp(jn, liar) == 0) {
            *good = s - 1;
            break;
        }
    }
    int alone = liar && !wh_pool_other_node(r->pool, r->pool_id, liar);
    wh_trail_blame_t how = red_blame(r, "fingerprint rule");
    int n = wh_trail_blame_judge(r->trail, key, liar ? slot : NULL, liar, s_coordinator, &how);
    if (!liar && key)
        wh_cache_drop(r->cache, key); /* a cached lie whose node is not here */
    r->dropped += n ? n : 1;
    if (alone)
        red_fail(r, 4, wh_strdup_printf("node %s said Preserved of a candidate that removes the "
                                        "failing statement (%s line %d), which cannot fail the "
                                        "same way: its %d verdict%s of this run %s dropped, and "
                                        "no other node can judge %s (join another node)", liar,
                                        r->job.file, line, n, n == 1 ? "" : "s",
                                        n == 1 ? "was" : "were", r->job.test));
    else if (liar)
        red_tell(r, "Fingerprint rule: node %s said Preserved of a candidate that removes the "
                 "failing statement (%s line %d); its %d verdict%s dropped, and it is out of this "
                 "job\n", liar, r->job.file, line, n, n == 1 ? "" : "s");
    free(liar);
    return alone;
}

int red_fprule_settle(wh_reduction_t *r)
{
    int line = s_line(r);
    for (int i = 0; line && r->walk.round && i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || c->v != WH_V_PRESERVED)
            continue;
        if (!wh_fprule_removes(r->tree, r->walk.round->removed[i], line))
            continue;
        /* Who said it: the slot that judged it, or a live slot of the node
         * the cache names. */
        char *slot = c->from_cache ? wh_strdup0(red_cached_judge(r, c->key)) : wh_strdup0(c->node);
        char key[65];
        memcpy(key, c->key, sizeof key);
        int good = -1;
        if (!s_lie(r, key, slot, &good)) {
            s_drop_round(r);
            red_resume_walk(r, good >= 0 ? good : wh_trail_steps(r->trail) - 1);
        }
        free(slot);
        return 1;
    }
    return 0;
}

int red_fprule_claim(wh_reduction_t *r, const uint8_t *removed, int unit, const char *worker)
{
    int line = s_line(r);
    if (!line || !worker || unit < 0 || unit >= r->tree->n)
        return 0;
    uint8_t *conf = malloc((size_t)r->tree->n);
    if (!conf)
        return 0; /* the claims check judges it as before */
    memcpy(conf, removed, (size_t)r->tree->n);
    conf[unit] = 1;
    int lie = wh_fprule_removes(r->tree, conf, line);
    free(conf);
    if (!lie)
        return 0;
    int good = -1;
    if (s_lie(r, NULL, worker, &good))
        return 1; /* failed */
    if (good < 0)
        return 2;
    red_resume_walk(r, good);
    return 1;
}

int red_trust_spec_ignored(wh_reduction_t *r, const char *worker)
{
    const char *node = worker ? wh_pool_node_of(r->pool, worker) : NULL;
    return node && wh_pool_node_excluded(r->pool, r->pool_id, node);
}

int red_trust_lone_refuter(wh_reduction_t *r, const char *worker, const wh_msg_t *m)
{
    const char *node = worker ? wh_pool_node_of(r->pool, worker) : NULL;
    if (!node || strcmp(node, "local") == 0) /* the embedded default: the user's machine */
        return 0;
    const char *bnode = r->trust.base_slot ? wh_pool_node_of(r->pool, r->trust.base_slot) : NULL;
    int own = bnode && strcmp(bnode, node) == 0;
    char *liar = strdup(node);
    const char *d = m->detail ? m->detail : "";
    char *said = own ? wh_strdup_printf("node %s said the original test %s fails the same way "
                                        "(its baseline run) and, built and run afresh, that it "
                                        "does not (%s%s%s)", node, r->job.test,
                                        wh_verdict_name((wh_verdict_t)m->verdict),
                                        *d ? ": " : "", d)
                     : wh_strdup_printf("node %s said the original test %s, built and run "
                                        "afresh, does not fail the same way (%s%s%s), though "
                                        "its fingerprint says it does", node, r->job.test,
                                        wh_verdict_name((wh_verdict_t)m->verdict),
                                        *d ? ": " : "", d);
    wh_trail_blame_t how = red_blame(r, "verify");
    int n = liar ? wh_trail_blame_judge(r->trail, NULL, worker, liar, s_coordinator, &how) : 0;
    r->dropped += n;
    red_fail(r, 3, wh_strdup_printf("%s: one of its answers is wrong; its %d verdict%s of this "
                                    "run %s dropped from the cache, and no other node can judge "
                                    "the job (join another node; if the test is flaky, try "
                                    "--repeat K)", said ? said : node, n, n == 1 ? "" : "s",
                                    n == 1 ? "was" : "were"));
    free(said);
    free(liar);
    return 1;
}

/* 1 when something the answer rests on came from another node than
 * vnode: a verdict judged in this run, or an accepted step's verdict from
 * the cache whose producer is another live node. A rerun answered from the
 * cache rests on the nodes that filled it; one whose producer is not known
 * (no live slot of it, or every node "local" under --insecure) may be
 * vnode's own word, and counts for nothing. */
static int s_other_word(const wh_reduction_t *r, const char *vnode)
{
    int steps = wh_trail_steps(r->trail);
    if (wh_trail_judged_any(r->trail) && wh_trail_other_node(r->trail, vnode))
        return 1;
    for (int s = 1; s < steps; s++) {
        const char *jn = wh_trail_judge_node(r->trail, s);
        if (jn && strcmp(jn, vnode) != 0)
            return 1;
    }
    return !wh_trail_judged_any(r->trail) && steps == 1; /* nothing judged, nothing taken */
}

int red_trust_verified(wh_reduction_t *r, const char *vnode)
{
    if (!vnode || s_other_word(r, vnode))
        return 1;
    if (strcmp(vnode, "local") == 0) {
        /* The embedded default: the slots are the user's own machine, and
         * its verify run, in a fresh workspace, is the user's own check. */
        wh_record_log(r->rec, "verify: on this machine, in a fresh workspace");
        return 1;
    }
    red_trust_free(r);
    r->trust.lone = strdup(vnode);
    r->trust.why = wh_strdup_printf("node %s judged every candidate built in this run and ran "
                                    "the verify run too: no second opinion", vnode);
    wh_record_log(r->rec, "not verified: %s", r->trust.why ? r->trust.why : vnode);
    red_tell(r, "Not verified: node %s judged every candidate built in this run and ran the "
             "verify run too: no second opinion (join another node, or verify on the client: "
             "whittle reduce --cluster does unless --no-verify-local)\n", vnode);
    return 0;
}

int red_trust_lone(const wh_reduction_t *r)
{
    return r->trust.lone != NULL;
}

void red_trust_summary(const wh_reduction_t *r, wh_summary_t *s)
{
    s->verified = s->verified && !r->trust.lone;
    s->not_verified = r->trust.lone ? r->trust.why : NULL;
}
