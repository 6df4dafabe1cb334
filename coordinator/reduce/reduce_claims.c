/*
 * reduce_claims — the claims check (DESIGN.md, "Trust"): the verify step
 * checks the one positive claim behind the answer (the reduced test fails
 * the same way); this checks the negative ones. The answer is 1-minimal
 * because removing any one kept unit from it was judged not Preserved; each
 * such verdict a node gave (in this run, or earlier through the cache) is
 * judged again afresh, on a slot of another node than the one that gave it
 * when there is one. A removal found Preserved after all refutes its
 * verdict, but only once a second node confirms it: a refutation is a
 * positive claim, and a node that says Preserved to everything would
 * otherwise refute every honest verdict (s_next). A confirmed refutation:
 * that verdict is dropped from every cache, so is every verdict its node
 * gave in this run, the node leaves the job (as a liar found by the verify
 * step does), and the walk resumes from the answer's step, so the
 * removals are judged again by the nodes left. A refutation the others
 * outvote: the refuter leaves the job instead, the answers it gave count
 * for nothing (asked again), and an answer it verified is verified again
 * on another node. Verdicts the
 * coordinator made itself (predicted by the front end, UBGuard) are not
 * claims of a node and are not judged again. While the chain that is
 * expected to end the walk runs, the checks of the answer it expects go
 * out early on slots it leaves idle (red_early_claims); the walk's real
 * answer keeps those that are its own. Part of the reduce module
 * (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_fault.h"
#include "reduce_trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* Infrastructure failures of one check before the run gives up on it. */
#define S_TRIES 3

/* Whom a decided check blames besides its verdict's judge (blame_refuter). */
#define S_BLAME_REFUTER 1
#define S_BLAME_CONFIRMER 2

void red_claim_note(wh_reduction_t *r, const char *key, const char *judge, int unjudged)
{
    if (r->claims.nseen == r->claims.capseen) {
        int cap = r->claims.capseen ? 2 * r->claims.capseen : 64;
        struct red_seen *ns = realloc(r->claims.seen, (size_t)cap * sizeof *ns);
        if (!ns) {
            r->claims.seen_lost = 1; /* the check then refuses to vouch (red_start_claims) */
            return;
        }
        r->claims.seen = ns;
        r->claims.capseen = cap;
    }
    struct red_seen *s = &r->claims.seen[r->claims.nseen];
    memcpy(s->key, key, 65);
    s->judge = judge ? strdup(judge) : NULL;
    s->unjudged = unjudged;
    if (judge && !s->judge) {
        r->claims.seen_lost = 1;
        return;
    }
    r->claims.nseen++;
}

const char *red_cached_judge(wh_reduction_t *r, const char *key)
{
    wh_verdict_t v;
    char node[WH_CACHE_NODE_MAX + 1];
    if (wh_cache_get_node(r->cache, key, &v, node) || v == WH_V_NONE)
        return NULL;
    return wh_pool_slot_of_key(r->pool, node);
}

/* The newest note of key, or NULL: the walk never had a node's negative
 * verdict for it. */
static const struct red_seen *s_seen(const wh_reduction_t *r, const char *key)
{
    for (int i = r->claims.nseen; i-- > 0;)
        if (memcmp(r->claims.seen[i].key, key, 64) == 0)
            return &r->claims.seen[i];
    return NULL;
}

static void s_check_free(struct red_check *k)
{
    free(k->judge);
    free(k->worker);
    free(k->refuter);
    free(k->confirmer);
    free(k->base);
}

/* Forgets the checks (not the notes of what was seen). */
static void s_checks_free(wh_reduction_t *r)
{
    for (int i = 0; i < r->claims.nchecks; i++)
        s_check_free(&r->claims.checks[i]);
    free(r->claims.checks);
    r->claims.checks = NULL;
    r->claims.nchecks = r->claims.checks_left = 0;
    r->claims.queued = r->claims.early = 0;
}

void red_claims_free(wh_reduction_t *r)
{
    for (int i = 0; i < r->claims.nseen; i++)
        free(r->claims.seen[i].judge);
    free(r->claims.seen);
    r->claims.seen = NULL;
    r->claims.nseen = r->claims.capseen = 0;
    s_checks_free(r);
}

/* removed plus unit u and its descendants, into out (n bytes). */
static void s_remove_unit(const wh_tree_t *t, const uint8_t *removed, int u, uint8_t *out)
{
    memcpy(out, removed, (size_t)t->n);
    out[u] = 1;
    for (int v = u + 1; v < t->n; v++) {
        int p = t->units[v].parent;
        if (p >= u && out[p] && !removed[p])
            out[v] = 1;
    }
}

static int s_submit(wh_reduction_t *r, struct red_check *k, const char *txt, size_t len)
{
    k->id = ++r->next_eval;
    return wh_pool_submit_verify(r->pool, r->pool_id, k->id, txt, len,
                                 k->stage ? k->refuter : k->judge);
}

/* Asks check k's question (again): the answer without unit k->unit, or at
 * stage 2 the original; 0, or a WH_E* code. */
static int s_ask(wh_reduction_t *r, struct red_check *k)
{
    uint8_t *conf = malloc(r->tree->n ? (size_t)r->tree->n : 1u);
    if (!conf)
        return WH_ENOMEM;
    if (k->stage == 2)
        memcpy(conf, wh_trail_removed(r->trail, 0), (size_t)r->tree->n);
    else
        s_remove_unit(r->tree, k->base ? k->base : wh_engine_removed(r->engine), k->unit, conf);
    size_t len = 0;
    char *txt = wh_render(r->tree, conf, &len);
    free(conf);
    int rc = txt ? s_submit(r, k, txt, len) : WH_ENOMEM;
    free(txt);
    return rc;
}

static const char *s_node(const wh_reduction_t *r, const char *slot)
{
    return slot ? wh_pool_node_of(r->pool, slot) : NULL;
}

static int s_same_node(const wh_reduction_t *r, const char *a, const char *b)
{
    const char *na = s_node(r, a), *nb = s_node(r, b);
    return na && nb && strcmp(na, nb) == 0;
}

/* 1 when slot's node was found out and left the job. */
static int s_out(const wh_reduction_t *r, const char *slot)
{
    return wh_pool_node_excluded(r->pool, r->pool_id, s_node(r, slot));
}

/* The check of the removal whose text has key, or NULL. */
static struct red_check *s_check_of(wh_reduction_t *r, const char *key)
{
    for (int i = 0; i < r->claims.nchecks; i++)
        if (memcmp(r->claims.checks[i].key, key, 64) == 0)
            return &r->claims.checks[i];
    return NULL;
}

/* Adds and asks the check of removing unit u (txt, key) against judge's
 * verdict; 0, or a WH_E* code. */
static int s_add_with(wh_reduction_t *r, int u, const char *txt, size_t len, const char *key,
                      const char *judge, int unjudged)
{
    struct red_check *nk = realloc(r->claims.checks, (size_t)(r->claims.nchecks + 1) * sizeof *nk);
    if (!nk)
        return WH_ENOMEM;
    r->claims.checks = nk;
    struct red_check *k = &r->claims.checks[r->claims.nchecks];
    memset(k, 0, sizeof *k);
    memcpy(k->key, key, 65);
    k->unit = u;
    k->unjudged = unjudged;
    k->wanted = 1;
    if (judge && !(k->judge = strdup(judge)))
        return WH_ENOMEM;
    r->claims.nchecks++;
    int rc = s_submit(r, k, txt, len);
    if (rc == 0)
        r->claims.checks_left++;
    return rc;
}

/* Adds the check of removing kept unit u (conf: the answer without it)
 * when a node's negative verdict stands behind it, unless it is out
 * already (judged early, or the text of another unit's removal); 0, or a
 * WH_E* code. */
static int s_add_check(wh_reduction_t *r, int u, const uint8_t *conf)
{
    size_t len = 0;
    char *txt = wh_render(r->tree, conf, &len);
    if (!txt)
        return WH_ENOMEM;
    char key[65];
    wh_cache_key(r->verdict_id, r->job.file, txt, len, key);
    /* !s: the coordinator's own verdict (front end, UB guard), or none */
    const struct red_seen *s = s_seen(r, key);
    struct red_check *k = s ? s_check_of(r, key) : NULL;
    int rc = 0;
    if (k)
        k->wanted = 1;
    else if (s)
        rc = s_add_with(r, u, txt, len, key, s->judge, s->unjudged);
    free(txt);
    return rc;
}

/* Drops the checks no longer wanted (judged early for an answer the walk
 * did not reach, or that got no verdict), saying why. */
static void s_drop_unwanted(wh_reduction_t *r, const char *why)
{
    int n = 0, early = 0;
    for (int i = 0; i < r->claims.nchecks; i++) {
        struct red_check *k = &r->claims.checks[i];
        if (!k->wanted) {
            r->claims.early_dropped += k->base != NULL;
            if (!k->done) {
                wh_pool_cancel(r->pool, r->pool_id, k->id);
                r->claims.checks_left--;
            }
            s_check_free(k);
            continue;
        }
        early += k->base != NULL;
        r->claims.checks[n++] = *k;
    }
    if (n < r->claims.nchecks)
        wh_record_log(r->rec, "claims: %d check%s judged early dropped (%s)", r->claims.nchecks - n,
                      r->claims.nchecks - n == 1 ? "" : "s", why);
    r->claims.nchecks = n;
    r->claims.early = early;
}

/* Why beside the verify run and not after it: the checks are builds of
 * their own, and waiting for the verify run first cost every run one more
 * build latency on its critical path. Their answers wait for the verify
 * run: a node that lies Preserved would otherwise "refute" claims before
 * the verify run finds it out, and a refuted answer makes them moot. */
int red_queue_claims(wh_reduction_t *r)
{
    if (r->claims.queued)
        return 0;
    if (r->partial) { /* --budget spent: the answer claims no minimality */
        for (int i = 0; i < r->claims.nchecks; i++)
            r->claims.checks[i].wanted = 0;
        r->claims.queued = 1;
        s_drop_unwanted(r, "the budget is spent");
        wh_record_log(r->rec, "claims: not checked (a partial answer: %s)", r->partial);
        return 0;
    }
    if (r->claims.seen_lost) {
        red_fail(r, 4, wh_strdup_printf("cannot check the negative verdicts: %s",
                                        wh_strerror(WH_ENOMEM)));
        return -1;
    }
    const uint8_t *removed = wh_engine_removed(r->engine);
    uint8_t *conf = malloc(r->tree->n ? (size_t)r->tree->n : 1u);
    if (!conf) {
        red_fail(r, 4, NULL);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < r->claims.nchecks; i++)
        r->claims.checks[i].wanted = 0; /* judged early: kept if the answer has them */
    r->claims.queued = 1;
    for (int u = 0; u < r->tree->n && rc == 0; u++) {
        if (removed[u])
            continue;
        s_remove_unit(r->tree, removed, u, conf);
        rc = s_add_check(r, u, conf);
    }
    free(conf);
    s_drop_unwanted(r, "the walk's answer is another");
    if (rc) {
        red_fail(r, 4, wh_strdup_printf("cannot queue the claims check: %s", wh_strerror(rc)));
        return -1;
    }
    if (r->claims.nchecks)
        wh_record_log(r->rec, "claims: judging again afresh the %d removal%s of a kept unit "
                      "that a node judged not Preserved (or gave no verdict), beside the "
                      "verify run (%d started early, beside the walk's last chain)",
                      r->claims.nchecks, r->claims.nchecks == 1 ? "" : "s", r->claims.early);
    return 0;
}

/* The kept unit whose removal from fin step row is, or -1. */
static int s_unit_removed_from(const wh_tree_t *t, const uint8_t *fin, const uint8_t *row,
                               uint8_t *conf)
{
    int u = -1;
    for (int x = 0; x < t->n && u < 0; x++)
        if (row[x] && !fin[x])
            u = x;
    if (u < 0)
        return -1;
    s_remove_unit(t, fin, u, conf);
    return memcmp(conf, row, (size_t)t->n) == 0 ? u : -1;
}

/* Early checks: while the chain that is expected to end the walk runs,
 * every step it has sent out, none of its verdicts has surprised, and
 * slots are idle, the claims of the answer it expects are judged on those
 * slots as its steps' negative verdicts arrive (a step that removes one
 * kept unit from that answer is that claim's very text). When the walk
 * ends elsewhere, they are dropped (red_queue_claims). Only idle slots:
 * a check queued in front of the next chain's steps would hold the walk
 * up a whole build. */
void red_early_claims(wh_reduction_t *r)
{
    const uint8_t *fin = r->walk.chain ? wh_chain_final(r->walk.chain) : NULL;
    if (!fin || r->claims.queued || r->claims.seen_lost)
        return;
    for (int i = 0; i < r->walk.nc; i++) {
        const red_cand_t *c = &r->walk.c[r->walk.c[i].rep];
        if (c->v == WH_V_NONE ? !c->submitted
                              : (c->v == WH_V_PRESERVED) != (wh_chain_step(r->walk.chain, i)->expect != 0))
            return; /* a step still to send, or a surprise: not the walk's end */
    }
    wh_pool_stats_t ps;
    wh_pool_stats(r->pool, &ps);
    int idle = ps.slots - ps.busy - ps.queued;
    uint8_t *conf = idle > 0 ? malloc(r->tree->n ? (size_t)r->tree->n : 1u) : NULL;
    for (int i = 0; conf && i < r->walk.nc && idle > 0; i++) {
        const red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || c->predicted || !red_negative(c->v) || s_check_of(r, c->key))
            continue;
        const char *judge = c->from_cache ? red_cached_judge(r, c->key) : c->node;
        int u = s_unit_removed_from(r->tree, fin, wh_chain_step(r->walk.chain, i)->removed, conf);
        if (u < 0 || !judge)
            continue;
        size_t len = 0;
        char *txt = wh_render(r->tree, conf, &len);
        int rc = txt ? s_add_with(r, u, txt, len, c->key, judge, 0) : WH_ENOMEM;
        free(txt);
        struct red_check *k = rc == 0 ? s_check_of(r, c->key) : NULL;
        if (!k || !(k->base = malloc(r->tree->n ? (size_t)r->tree->n : 1u))) {
            red_fail(r, 4, wh_strdup_printf("cannot check the claims early: %s",
                                            wh_strerror(rc ? rc : WH_ENOMEM)));
            break;
        }
        memcpy(k->base, fin, (size_t)r->tree->n);
        idle--;
        r->claims.early_sent++;
        wh_record_log(r->rec, "claims: removing unit %d, judged by %s: checked early, on an idle "
                      "slot beside the walk's last chain", u, judge);
    }
    free(conf);
}

void red_drop_claims(wh_reduction_t *r)
{
    int out = 0;
    for (int i = 0; i < r->claims.nchecks; i++)
        if (!r->claims.checks[i].done) {
            wh_pool_cancel(r->pool, r->pool_id, r->claims.checks[i].id);
            out++;
        }
    if (r->claims.nchecks)
        wh_record_log(r->rec, "claims: the answer was not verified; its %d check%s dropped "
                      "(%d still out, cancelled)", r->claims.nchecks, r->claims.nchecks == 1 ? "" : "s", out);
    s_checks_free(r);
}

int red_is_claim(const wh_reduction_t *r, uint64_t id)
{
    for (int i = 0; i < r->claims.nchecks; i++)
        if (r->claims.checks[i].id == id)
            return 1;
    return 0;
}

/* A check refuted its verdict: the verdict, and its judge's others, go. */
static void s_refuted(wh_reduction_t *r, struct red_check *k, const char *worker)
{
    r->claims.refuted++;
    if (k->unjudged) {
        /* No verdict of anyone's was wrong: the walk kept the unit
         * because its run gave none. */
        r->claims.news_now++;
        wh_record_log(r->rec, "claims: removing unit %d is Preserved afresh on %s; the walk "
                      "kept it with no verdict (InfraError on %s)", k->unit, worker,
                      k->judge ? k->judge : "-");
        return;
    }
    wh_trail_blame_t how = red_blame(r, "claims");
    const char *node = k->judge ? wh_pool_node_of(r->pool, k->judge) : NULL;
    const char *by = wh_pool_node_of(r->pool, worker);
    int n = wh_trail_blame_judge(r->trail, k->key, k->judge, node, by, &how);
    r->dropped += n;
    wh_record_log(r->rec, "claims: removing unit %d is Preserved afresh on %s, not as %s "
                  "said; %d verdict%s dropped", k->unit, worker,
                  k->judge ? k->judge : "the cache", n, n == 1 ? "" : "s");
}

/* Every check answered: on to the fault check, or the walk resumed. */
/* Asks again every settled check a node since found out answered: its
 * answer counts for nothing. The number asked, or -1 (the run failed). */
static int s_reask_void(wh_reduction_t *r)
{
    int n = 0;
    for (int i = 0; i < r->claims.nchecks; i++) {
        struct red_check *k = &r->claims.checks[i];
        if (!k->settled || !s_out(r, k->worker))
            continue;
        wh_record_log(r->rec, "claims: removing unit %d: %s's answer counts for nothing; asked "
                      "again", k->unit, k->worker);
        k->done = k->settled = k->stage = k->blame_refuter = 0;
        int rc = s_ask(r, k);
        if (rc) {
            red_fail(r, 4, wh_strdup_printf("cannot check the claims: %s", wh_strerror(rc)));
            return -1;
        }
        r->claims.checked--;
        r->claims.checks_left++;
        n++;
    }
    return n;
}

static void s_claims_done(wh_reduction_t *r)
{
    if (!r->claims.refuted_now && s_reask_void(r))
        return; /* the run failed, or answers to wait for */
    if (!r->claims.refuted_now && s_out(r, red_verify_by(r))) {
        wh_record_log(r->rec, "claims: %s verified the answer and was found out: verified again "
                      "on another node", red_verify_by(r));
        red_start_verify(r, wh_trail_steps(r->trail) - 1);
        return;
    }
    if (!r->claims.refuted_now) {
        wh_record_log(r->rec, "claims: all %d confirmed afresh", r->claims.nchecks);
        red_out(r, "Claims: all %d confirmed afresh\n", r->claims.nchecks);
        red_after_claims(r);
        return;
    }
    int lies = r->claims.refuted_now - r->claims.news_now;
    if (lies)
        red_tell(r, "Claims: %d removal%s judged not Preserved %s Preserved afresh; those verdicts "
                "dropped, continuing from the reduced test\n", lies, lies == 1 ? "" : "s",
                lies == 1 ? "is" : "are");
    if (r->claims.news_now)
        red_tell(r, "Claims: %d removal%s the walk kept without a verdict (infrastructure "
                "errors) %s Preserved afresh; continuing from the reduced test\n",
                r->claims.news_now, r->claims.news_now == 1 ? "" : "s",
                r->claims.news_now == 1 ? "is" : "are");
    r->claims.refuted_now = r->claims.news_now = 0;
    s_checks_free(r); /* acted on: nothing is left to drop */
    red_resume_walk(r, wh_trail_steps(r->trail) - 1);
}

/* Acts on check k's answer (the answer is verified). */
static void s_settle(wh_reduction_t *r, struct red_check *k)
{
    k->settled = 1;
    r->claims.checked++;
    const char *worker = k->worker ? k->worker : "-";
    if (k->verdict == WH_V_PRESERVED) {
        r->claims.refuted_now++;
        s_refuted(r, k, worker);
        if (k->blame_refuter == S_BLAME_CONFIRMER) {
            wh_trail_blame_t how = red_blame(r, "claims");
            r->dropped += wh_trail_blame_judge(r->trail, NULL, k->confirmer,
                                               s_node(r, k->confirmer), s_node(r, worker), &how);
        }
    } else if (k->blame_refuter) {
        /* Outvoted: the refuter's verdicts of this run go, its node leaves
         * the job (s_claims_done asks again what it answered). */
        wh_trail_blame_t how = red_blame(r, "claims");
        r->dropped += wh_trail_blame_judge(r->trail, NULL, k->refuter, s_node(r, k->refuter),
                                           s_node(r, worker), &how);
    } else {
        wh_record_log(r->rec, "claims: removing unit %d is %s afresh on %s (%s %s)", k->unit,
                      wh_verdict_name((wh_verdict_t)k->verdict), worker,
                      k->unjudged ? "no verdict in the walk: InfraError on" : "judged by",
                      k->judge ? k->judge : "the cache");
    }
}

void red_start_claims(wh_reduction_t *r)
{
    r->state = RED_CLAIMS;
    if (!r->claims.queued || !r->claims.nchecks) {
        s_checks_free(r);
        red_after_claims(r);
        return;
    }
    red_out(r, "Checking the claims: %d removal%s of a kept statement judged again afresh\n",
            r->claims.nchecks, r->claims.nchecks == 1 ? "" : "s");
    for (int i = 0; i < r->claims.nchecks; i++)
        if (r->claims.checks[i].done && !r->claims.checks[i].settled)
            s_settle(r, &r->claims.checks[i]);
    if (!r->claims.checks_left)
        s_claims_done(r);
}

/* ---- a refutation is a claim too ---- */

/* Check k is decided: verdict v, given by slot who. 0. */
static int s_decide(struct red_check *k, int v, const char *who, int blame)
{
    k->verdict = v;
    free(k->worker);
    k->worker = who ? strdup(who) : NULL;
    k->blame_refuter = blame;
    return 0;
}

/* Asks check k again at stage st: 1, or -WH_E* when it cannot. */
static int s_escalate(wh_reduction_t *r, struct red_check *k, int st)
{
    k->stage = st;
    int rc = s_ask(r, k);
    return rc ? -rc : 1;
}

/* Moves check k on with answer v from slot worker: 1 when it asked again,
 * 0 when k is decided (k->verdict, k->worker, k->blame_refuter), -WH_E*.
 * Stage 0: not Preserved confirms the verdict; Preserved is a refutation,
 * asked again of another node than the refuter's (stage 1). There,
 * Preserved confirms the refutation; not Preserved on the refuter's own
 * node (no other node) leaves the verdict standing; on a third node (not
 * the judge's) it outvotes the refuter. On the judge's node, or when the
 * judge is unknown (a cached verdict whose node has no slot here, which
 * may be this one), that node judges the original afresh (stage 2), as
 * the verify step asks of a node that refutes the original: it sees the
 * original fail the same way and is believed over the refuter; it does
 * not, and the refutation stands (and that node goes). */
static int s_next(wh_reduction_t *r, struct red_check *k, int v, const char *worker)
{
    const char *why = NULL;
    if (k->stage && s_out(r, k->refuter)) {
        /* The refuter was found out meanwhile: its Preserved counts for
         * nothing, and this answer is the check. */
        if (k->stage == 2)
            return s_decide(k, k->confirm_v, k->confirmer, 0);
        k->stage = 0;
    }
    if (k->stage == 0) {
        if (v != WH_V_PRESERVED)
            return s_decide(k, v, worker, 0);
        free(k->refuter);
        if (!(k->refuter = strdup(worker ? worker : "-")))
            return -WH_ENOMEM;
        wh_record_log(r->rec, "claims: removing unit %d is Preserved afresh on %s, not as %s "
                      "said; asked again of another node", k->unit, k->refuter,
                      k->judge ? k->judge : "the cache");
        return s_escalate(r, k, 1);
    }
    if (k->stage == 1) {
        if (v == WH_V_PRESERVED)
            return s_decide(k, v, worker, 0);
        if (s_same_node(r, worker, k->refuter))
            why = "no other node to ask; the verdict stands";
        else if (!k->judge || s_same_node(r, worker, k->judge)) {
            /* Not a third voice: the judge's node again, or maybe the node
             * that gave a cached verdict; it answers for the original. */
            free(k->confirmer);
            if (!(k->confirmer = strdup(worker ? worker : "-")))
                return -WH_ENOMEM;
            k->confirm_v = v;
            wh_record_log(r->rec, "claims: removing unit %d is %s again on %s, %s: the original "
                          "asked of it afresh", k->unit, wh_verdict_name((wh_verdict_t)v), worker,
                          k->judge ? "the judge's node" : "maybe the cached verdict's node");
            return s_escalate(r, k, 2);
        }
        wh_record_log(r->rec, "claims: removing unit %d is Preserved on %s alone: %s afresh on "
                      "%s%s%s", k->unit, k->refuter, wh_verdict_name((wh_verdict_t)v), worker,
                      why ? "; " : "", why ? why : "");
        return s_decide(k, v, worker, why ? 0 : S_BLAME_REFUTER);
    }
    /* Stage 2: v is the original's verdict on (most likely) the
     * confirmer's node. */
    if (!s_same_node(r, worker, k->confirmer)) {
        wh_record_log(r->rec, "claims: removing unit %d is Preserved on %s alone, %s on %s; the "
                      "original was asked of %s: undecided, the verdict stands", k->unit,
                      k->refuter, wh_verdict_name((wh_verdict_t)k->confirm_v), k->confirmer,
                      worker);
        return s_decide(k, k->confirm_v, k->confirmer, 0);
    }
    if (v == WH_V_PRESERVED) {
        wh_record_log(r->rec, "claims: removing unit %d is Preserved on %s alone: %s afresh on "
                      "%s, which sees the original fail the same way", k->unit, k->refuter,
                      wh_verdict_name((wh_verdict_t)k->confirm_v), k->confirmer);
        return s_decide(k, k->confirm_v, k->confirmer, S_BLAME_REFUTER);
    }
    wh_record_log(r->rec, "claims: the original is %s afresh on %s: its verdicts are not "
                  "believed", wh_verdict_name((wh_verdict_t)v), worker);
    /* The refutation stands; the confirmer's node goes too when it is not
     * the judge's (whose verdicts s_refuted drops). */
    return s_decide(k, WH_V_PRESERVED, k->refuter,
                    k->judge && s_same_node(r, worker, k->judge) ? 0 : S_BLAME_CONFIRMER);
}

/* 1 when id is a check of this run's claims (its answer taken). */
int red_on_claim(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    struct red_check *k = NULL;
    for (int i = 0; i < r->claims.nchecks && !k; i++)
        if (r->claims.checks[i].id == id && !r->claims.checks[i].done)
            k = &r->claims.checks[i];
    if (!k)
        return 0;
    const char *d = m->detail ? m->detail : "";
    if ((m->code && m->code != WH_EBUILD) || m->verdict == WH_V_INFRA_ERROR ||
        m->verdict == WH_V_NONE || m->verdict >= WH_V_COUNT) {
        wh_record_log(r->rec, "claims: no verdict from %s: %s", worker, d);
        if (!r->claims.queued) {
            /* Judged early, for an answer the walk may not reach: not
             * worth failing the run; asked at the walk's end if it is. */
            k->wanted = 0;
            s_drop_unwanted(r, "no verdict");
            return 1;
        }
        int rc = ++k->tries < S_TRIES ? s_ask(r, k) : WH_EINVAL;
        if (rc)
            red_fail(r, 4, wh_strdup_printf("cannot check the claims: %s", d));
        return 1;
    }
    k->tries = 0;
    if (m->verdict == WH_V_PRESERVED && k->stage != 2) {
        /* The removal of the failing statement is never Preserved
         * (reduce_trust.c): a lie, asked again of another node. */
        int lie = red_fprule_claim(r, k->base ? k->base : wh_engine_removed(r->engine), k->unit,
                                   worker);
        int rc = lie == 2 ? s_ask(r, k) : 0;
        if (rc)
            red_fail(r, 4, wh_strdup_printf("cannot check the claims: %s", wh_strerror(rc)));
        if (lie)
            return 1;
    }
    int asked = s_next(r, k, (int)m->verdict, worker);
    if (asked < 0)
        red_fail(r, 4, wh_strdup_printf("cannot check the claims: %s", wh_strerror(-asked)));
    if (asked)
        return 1;
    k->done = 1;
    r->claims.checks_left--;
    if (r->state != RED_CLAIMS)
        return 1; /* held until the verify run has verified the answer */
    s_settle(r, k);
    if (!r->claims.checks_left)
        s_claims_done(r);
    return 1;
}

void red_claims_reused(wh_reduction_t *r, int checked)
{
    r->claims.checked = checked;
    r->claims.refuted = 0;
}

int red_claims_checked(const wh_reduction_t *r)
{
    return r->claims.checked;
}

int red_claims_refuted(const wh_reduction_t *r)
{
    return r->claims.refuted;
}

void red_claims_summary(const wh_reduction_t *r, wh_summary_t *s)
{
    s->claims_checked = r->claims.checked;
    s->claims_refuted = r->claims.refuted;
    s->claims_early = r->claims.early_sent;
    s->claims_early_dropped = r->claims.early_dropped;
}
