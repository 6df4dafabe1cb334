/*
 * reduce_rounds — the rounds of a job: the engine's round keyed,
 * deduplicated, looked up in the cache, speculation adopted, the rest
 * queued (rendered by the pool at dispatch); once its verdicts decide it,
 * the round is recorded in canonical order and resolved. When the walk is
 * over the verify step follows; the reference check is queued from here.
 * Part of the reduce module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

void red_clear_round(wh_reduction_t *r)
{
    for (int i = 0; i < r->walk.nc; i++) {
        free(r->walk.c[i].node);
        free(r->walk.c[i].report);
        free(r->walk.c[i].detail);
        free(r->walk.c[i].infra);
        free(r->walk.c[i].pre_msg);
        free(r->walk.c[i].ub_msg);
    }
    free(r->walk.c);
    r->walk.c = NULL;
    r->walk.nc = 0;
    free(r->walk.evidx);
    r->walk.evidx = NULL;
    r->walk.nev = 0;
    r->walk.round = NULL;
    r->walk.rec_steps = r->walk.rec_segs = r->walk.rec_built = 0;
    wh_chain_destroy(&r->walk.chain);
}

/* What a candidate removes beyond the accepted configuration, for run.log:
 * one statement by its line and head, more as unit id ranges (pre-order, so
 * a block and its body are one range) with the first line. Short whatever
 * the size of the file. */
static char *s_describe_removed(wh_reduction_t *r, const uint8_t *cand)
{
    const uint8_t *cur = wh_engine_removed(r->engine);
    const wh_tree_t *t = r->tree;
    wh_buf_t b = WH_BUF_INIT;
    int tops = 0, first = -1, ranges = 0;
    for (int i = 0; i < t->n; i++) {
        if (!cand[i] || cur[i])
            continue;
        int p = t->units[i].parent;
        if (p < 0 || !cand[p] || cur[p]) {
            tops++;
            if (first < 0)
                first = i;
        }
        if (i > 0 && cand[i - 1] && !cur[i - 1])
            continue; /* extends the current range */
        int j = i;
        while (j + 1 < t->n && cand[j + 1] && !cur[j + 1])
            j++;
        if (ranges++ < 16) {
            if (j > i)
                wh_buf_printf(&b, "%s#%d-%d", ranges > 1 ? "," : "", i, j);
            else
                wh_buf_printf(&b, "%s#%d", ranges > 1 ? "," : "", i);
        }
    }
    if (!tops) {
        wh_buf_free(&b);
        return strdup("nothing");
    }
    if (ranges > 16)
        wh_buf_printf(&b, ",... (%d ranges)", ranges);
    char *ids = wh_buf_detach(&b);
    char *out;
    if (tops == 1) {
        char *head = wh_tree_unit_head(t, first, 48);
        out = wh_strdup_printf("L%u `%s` (%s)", t->units[first].line, head ? head : "?",
                               ids ? ids : "");
        free(head);
    } else {
        out = wh_strdup_printf("%d statements from L%u: %s", tops, t->units[first].line,
                               ids ? ids : "");
    }
    free(ids);
    return out;
}

/* The first 16 hex digits of a cache key (a sha256) as a hash. */
static size_t s_key_hash(const char *key)
{
    uint64_t h = 0;
    for (int i = 0; i < 16 && key[i]; i++) {
        char ch = key[i];
        h = h << 4 | (uint64_t)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
    }
    return (size_t)h;
}

/* Keys every candidate of the round and marks the first of identical
 * candidates as their representative (a hash set over the keys, so a round
 * of thousands costs no pairwise compares). Each text is freed as soon as
 * it is keyed: a miss is rendered again when it is queued, so a round never
 * holds all its texts at once. */
static int s_key_round(wh_reduction_t *r)
{
    const wh_round_t *rd = r->walk.round;
    size_t cap = 16;
    while (cap < 2 * (size_t)r->walk.nc)
        cap <<= 1;
    int *set = malloc(cap * sizeof *set);
    if (!set)
        return WH_ENOMEM;
    for (size_t k = 0; k < cap; k++)
        set[k] = -1;
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        size_t len = 0;
        char *txt = wh_render(r->tree, rd->removed[i], &len);
        if (!txt) {
            free(set);
            return WH_ENOMEM;
        }
        wh_cache_key(r->verdict_id, r->job.file, txt, len, c->key);
        free(txt);
        size_t h = s_key_hash(c->key);
        size_t k = h & (cap - 1);
        while (set[k] >= 0 && strcmp(r->walk.c[set[k]].key, c->key) != 0)
            k = (k + 1) & (cap - 1);
        if (set[k] < 0)
            set[k] = i;
        c->rep = set[k];
    }
    free(set);
    return 0;
}

/* A verdict found (InfraError is never cached, but never taken either). */
static void s_hit_verdict(red_cand_t *c, wh_verdict_t v)
{
    if (v == WH_V_INFRA_ERROR)
        return;
    c->v = v;
    c->from_cache = 1;
}

/* One batched cache lookup for the round's representatives. */
static int s_lookup_round(wh_reduction_t *r)
{
    int rc = red_mget_reps(r, WH_CACHE_VERDICTS, 0, s_hit_verdict);
    /* What the cache knows shapes the expectations of later chains. */
    for (int i = 0; !rc && i < r->walk.nc; i++)
        if (r->walk.c[i].rep == i && r->walk.c[i].from_cache)
            wh_memo_put(r->walk.memo, r->walk.c[i].exact, r->walk.c[i].delta, r->walk.c[i].v);
    return rc;
}

void red_spec_done_clear(wh_reduction_t *r)
{
    for (int k = 0; k < r->walk.ndone; k++) {
        free(r->walk.spec_done[k].node);
        free(r->walk.spec_done[k].report);
    }
    r->walk.ndone = 0;
}

struct red_spec_done *red_spec_done_new(wh_reduction_t *r)
{
    if (r->walk.ndone == r->walk.capdone) {
        int cap = r->walk.capdone ? 2 * r->walk.capdone : 16;
        struct red_spec_done *nd = realloc(r->walk.spec_done, (size_t)cap * sizeof *nd);
        if (!nd)
            return NULL;
        r->walk.spec_done = nd;
        r->walk.capdone = cap;
    }
    return &r->walk.spec_done[r->walk.ndone++];
}

/* A verdict a speculation of this run brought in (or a step judged
 * beyond an earlier chain's surprise) is this round's own evaluation, not
 * a cache hit: count it once, where it belongs. */
static void s_claim_spec_done(wh_reduction_t *r)
{
    for (int i = 0; i < r->walk.nc && r->walk.ndone; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || !c->from_cache)
            continue;
        for (int k = 0; k < r->walk.ndone; k++) {
            struct red_spec_done *d = &r->walk.spec_done[k];
            if (strcmp(d->key, c->key) == 0) {
                c->from_cache = 0;
                c->evaluated = 1;
                c->node = d->node;
                c->report = d->report;
                c->ms = d->ms;
                c->build_ms = d->build_ms;
                c->test_ms = d->test_ms;
                c->end_ms = d->end_ms;
                c->pre = d->pre;
                r->walk.extra--;
                r->walk.evaluated--;
                r->walk.spec_used++;
                *d = r->walk.spec_done[--r->walk.ndone];
                break;
            }
        }
    }
    /* The rest stay "extra" until a later chain asks for one of them (a
     * chain after the next reached a candidate judged ahead: 16 slots, 1 of
     * 147 builds counted as a cache hit, its judging slot's work lost to
     * the count). */
}

/* Already running as a speculation (or waiting for its front-end check):
 * adopt it. 1 when adopted. */
static int s_adopt_spec(wh_reduction_t *r, red_cand_t *c)
{
    for (int k = 0; k < r->walk.nspec; k++) {
        if (strcmp(r->walk.spec[k].key, c->key) == 0) {
            c->eval_id = r->walk.spec[k].id;
            c->checking = r->walk.spec[k].checking;
            c->submitted = !c->checking;
            c->dispatched = r->walk.spec[k].running;
            c->disp_ms = r->walk.spec[k].running ? r->walk.spec[k].disp_ms : 0;
            if (!c->checking)
                c->pre = r->walk.spec[k].pre; /* answered before its round came */
            r->walk.spec[k] = r->walk.spec[--r->walk.nspec];
            r->walk.spec_used++;
            return 1;
        }
    }
    return 0;
}

/* The pool's render function: the text of a queued candidate of the
 * current round, made when a slot takes it (wh_pool_submit_lazy). NULL for
 * an id the round no longer holds. */
char *red_render_cand(void *ctx, uint64_t id, size_t *len)
{
    wh_reduction_t *r = ctx;
    if (!r->walk.round || id < r->walk.eval_base || id - r->walk.eval_base >= (uint64_t)r->walk.nev)
        return NULL;
    int i = r->walk.evidx[id - r->walk.eval_base];
    if (red_ubguard_dispatch(r, i)) {
        /* UBGuard, not built: the pool answers the task unrendered, and
         * that answer (ub_refused) only moves the walk on. */
        r->ub_refused = id;
        return NULL;
    }
    r->walk.c[i].dispatched = 1; /* running now: a decided chain leaves it running */
    r->walk.c[i].disp_ms = wh_now_ms();
    return wh_render(r->tree, r->walk.round->removed[i], len);
}

/* The pool's hold function: a step of the chain waits while an earlier
 * step's verdict is due any moment (it has run for 3/4 to 2 of a step's
 * usual time). That verdict may be the chain's surprise, after which this
 * step counts for nothing; started now, it would hold its slot for a whole
 * build while the next chain's steps wait for slots (8 slots, 200 ms: the
 * next chain's first steps started up to a build later, about two builds
 * per chain). A step of a new chain never waits (nothing of it runs yet);
 * a slot held back waits a few milliseconds in a wave of equal builds. */
int red_hold_cand(void *ctx, uint64_t id)
{
    wh_reduction_t *r = ctx;
    if (r->state != RED_ROUNDS || !r->walk.round || !r->walk.turn_ms || id < r->walk.eval_base ||
        id - r->walk.eval_base >= (uint64_t)r->walk.nev)
        return 0;
    int i = r->walk.evidx[id - r->walk.eval_base];
    uint64_t now = wh_now_ms();
    for (int k = 0; k < i; k++) {
        const red_cand_t *c = &r->walk.c[k];
        if (c->rep != k || c->v != WH_V_NONE || !c->dispatched || !c->disp_ms)
            continue;
        uint64_t ran = now - c->disp_ms;
        if (4 * ran >= 3 * r->walk.turn_ms && ran <= 2 * r->walk.turn_ms) {
            wh_pool_wake_at(r->pool, c->disp_ms + 2 * r->walk.turn_ms + 1); /* asked again then */
            return 1;
        }
    }
    return 0;
}

static int s_prepare_round(wh_reduction_t *r)
{
    r->walk.nc = r->walk.round->n_cand;
    r->walk.c = calloc((size_t)r->walk.nc, sizeof *r->walk.c);
    r->walk.evidx = malloc((size_t)r->walk.nc * sizeof *r->walk.evidx);
    if (!r->walk.c || !r->walk.evidx)
        return WH_ENOMEM;
    r->walk.eval_base = r->next_eval + 1;
    r->walk.nev = 0;
    for (int i = 0; i < r->walk.nc; i++) {
        r->walk.c[i].exact = wh_chain_step(r->walk.chain, i)->exact;
        r->walk.c[i].delta = wh_chain_step(r->walk.chain, i)->delta;
    }
    int rc = s_key_round(r);
    if (!rc)
        rc = s_lookup_round(r);
    if (rc)
        return rc;
    s_claim_spec_done(r);
    red_cache_audit_round(r);
    int check = red_precheck_begin(r);
    red_ubguard_round(r);
    int audit = check && r->job.precheck == WH_PRECHECK_AUDIT;
    /* Queue the misses in canonical order (ids in that order: the pool
     * keeps a job's queue by id, so one slot judges exactly what the
     * sequential algorithm would, however the checks come back). With the
     * precheck, each goes to the front end first and is queued when its
     * answer comes (red_precheck_take); audit checks the candidates judged
     * as speculation too. */
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || (c->v != WH_V_NONE && !(audit && c->evaluated)))
            continue;
        if (c->v == WH_V_NONE && s_adopt_spec(r, c)) {
            rc = audit && !c->checking ? red_precheck_submit(r, c, i) : 0;
            if (rc)
                return rc;
            continue;
        }
        c->eval_id = ++r->next_eval;
        r->walk.evidx[r->walk.nev++] = i;
        if (check && !audit) {
            c->waiting_check = 1; /* red_precheck_window below */
        } else if (check) {
            rc = red_precheck_submit(r, c, i);
        } else {
            c->submitted = 1;
            rc = wh_pool_submit_lazy(r->pool, r->pool_id, c->eval_id);
        }
        if (rc)
            return rc;
    }
    r->pc_room = 0; /* the live slots now, once per round */
    return check && !audit ? red_precheck_window(r) : 0;
}

/* on: 1 when a speculated candidate is known to be predicted BuildFailed
 * (it is not built). */
static int s_spec_predicted(wh_reduction_t *r, const char *key)
{
    if (r->job.precheck != WH_PRECHECK_ON || !r->pcj)
        return 0;
    wh_verdict_t v = WH_V_NONE;
    wh_cache_mget_ns(r->cache, WH_CACHE_PREDICTED, &key, 1, &v);
    return v == WH_V_BUILD_FAILED;
}

/* Cancels the speculations not yet adopted; the candidates a decided
 * chain left running go on (their verdicts are worth expecting by) unless
 * all is true (the walk is over). */
static void s_cancel_spec(wh_reduction_t *r, int all)
{
    int k = 0;
    for (int i = 0; i < r->walk.nspec; i++) {
        if (r->walk.spec[i].running && !all)
            r->walk.spec[k++] = r->walk.spec[i];
        else if (r->walk.spec[i].checking)
            red_precheck_cancel(r, r->walk.spec[i].id);
        else
            r->walk.spec_dropped += wh_pool_cancel(r->pool, r->pool_id, r->walk.spec[i].id);
    }
    r->walk.nspec = k;
}

/* Makes room for one more speculation; 0 or WH_ENOMEM. */
static int s_spec_room(wh_reduction_t *r)
{
    if (r->walk.nspec < r->walk.capspec)
        return 0;
    int cap = r->walk.capspec ? 2 * r->walk.capspec : 16;
    struct red_spec *ns = realloc(r->walk.spec, (size_t)cap * sizeof *ns);
    if (!ns)
        return WH_ENOMEM;
    r->walk.spec = ns;
    r->walk.capspec = cap;
    return 0;
}

/* Speculation (DESIGN.md, "later"): most ddmin rounds end without a winner,
 * and then the next round is known in advance. Queue its candidates behind
 * the current round's, so that slots the round leaves idle judge them. Their
 * verdicts go to the cache and, if the walk comes to that round, the
 * running evaluations are adopted; they never decide anything by
 * themselves, so the answer is unchanged. Not when the chain expects a
 * winner in the current round: the next round it expects is in the chain
 * already, and this one is the walk it does not expect (at 1 slot such a
 * candidate took the slot for a whole build while the chain's next step
 * was being checked: 2 extra builds on the synthetic test). */
static void s_speculate(wh_reduction_t *r)
{
    wh_pool_stats_t ps = {0};
    wh_pool_stats(r->pool, &ps);
    if (ps.slots / (ps.jobs > 1 ? ps.jobs : 1) < 2)
        return; /* one slot: a speculation holds it up while the chain's next step is checked */
    for (int i = 0; i < wh_chain_steps(r->walk.chain) && wh_chain_step(r->walk.chain, i)->seg == 0; i++)
        if (wh_chain_step(r->walk.chain, i)->expect)
            return;
    wh_engine_t *next = wh_engine_clone(r->engine);
    if (!next)
        return;
    const wh_round_t *rd = NULL;
    if (wh_engine_resolve(next, -1) == 0)
        rd = wh_engine_round(next);
    for (int i = 0; rd && i < rd->n_cand && r->walk.nspec < 256; i++) {
        size_t len = 0;
        char *txt = wh_render(r->tree, rd->removed[i], &len);
        if (!txt)
            break;
        char key[65];
        wh_cache_key(r->verdict_id, r->job.file, txt, len, key);
        int known = 0;
        for (int k = 0; k < r->walk.nc && !known; k++)
            known = strcmp(r->walk.c[k].key, key) == 0;
        for (int k = 0; k < r->walk.nspec && !known; k++)
            known = strcmp(r->walk.spec[k].key, key) == 0;
        wh_verdict_t v = WH_V_NONE;
        const char *kp = key;
        if (!known)
            wh_cache_mget(r->cache, &kp, 1, &v);
        /* Predicted BuildFailed, or UBGuard by the guard's kept answer:
         * never built, so not judged ahead either. */
        if (!known && v == WH_V_NONE &&
            (s_spec_predicted(r, key) || red_ubguard_ahead(r, key, txt, len, 0))) {
            free(txt);
            continue;
        }
        if (!known && v == WH_V_NONE) {
            if (s_spec_room(r) < 0) {
                free(txt);
                break;
            }
            uint64_t id = ++r->next_eval;
            /* on: the front end first; queued when it answers. */
            int pre = red_precheck_spec(r, id, txt, len);
            if (pre != 0)
                txt = NULL; /* taken */
            /* Not to the front end's threads: the guard answers now, before
             * it goes out (a UBGuard is never built, at any slot count). */
            if (pre == 0 && red_ubguard_ahead(r, key, txt, len, 1)) {
                free(txt);
                continue;
            }
            if (pre > 0 || (pre == 0 && wh_pool_submit(r->pool, r->pool_id, id, txt, len, 0) == 0)) {
                r->walk.spec[r->walk.nspec] = (struct red_spec){.id = id, .checking = pre > 0};
                memcpy(r->walk.spec[r->walk.nspec].key, key, 65);
                r->walk.nspec++;
                r->walk.speculated += pre == 0;
            }
        }
        free(txt);
    }
    wh_engine_destroy(&next);
}

/* Says where the walk is when a counted step enters a new sweep or level. */
static void s_header(wh_reduction_t *r, const wh_step_t *st)
{
    if (st->sweep != r->walk.last_sweep || st->level != r->walk.last_level) {
        r->walk.last_sweep = st->sweep;
        r->walk.last_level = st->level;
        red_out(r, "Sweep %d, level %d: %d statements\n", st->sweep, st->level, st->total);
        wh_record_log(r->rec, "Sweep %d, level %d: %d statements", st->sweep, st->level,
                      st->total);
    }
}

/* Keeps a built candidate's time for the ETA's median. */
static void s_note_ms(wh_reduction_t *r, uint64_t ms)
{
    r->walk.ms_ring[r->walk.n_ms++ % RED_MS_RING] = ms;
}

/* A candidate a slot judged for a chain that does not count it (a step
 * after the surprise, or of a chain being replaced): kept like a verdict
 * judged ahead, so a later chain that asks for it claims it as its own. */
static void s_keep_judged(wh_reduction_t *r, red_cand_t *c)
{
    struct red_spec_done *d = red_spec_done_new(r);
    if (!d)
        return; /* it stays a cache hit: counted as cached, never lost */
    memcpy(d->key, c->key, 65);
    d->node = c->node;
    d->report = c->report;
    c->node = c->report = NULL;
    d->ms = c->ms;
    d->build_ms = c->build_ms;
    d->test_ms = c->test_ms;
    d->end_ms = c->end_ms;
    d->pre = c->pre;
    r->walk.extra++;
    r->walk.evaluated++;
}

/* A candidate after the steps that count, judged for nothing by this
 * chain (its verdict stays in the cache and the memo, and a later chain
 * may claim it). */
static void s_record_extra(wh_reduction_t *r, red_cand_t *c)
{
    red_audit(r, c, 0);
    s_note_ms(r, c->ms);
    wh_record_log(r->rec, "           extra: a candidate after the chain's first surprise was "
                  "judged in parallel: %s (cached for later)", wh_verdict_name(c->v));
    s_keep_judged(r, c);
}

/* 1 when step i, a repeat, is its candidate's first step in its engine
 * round (the candidate's first step in the chain is in an earlier round):
 * the sequential walk then met it afresh, a second step of the same round
 * is a repeat inside the round. */
static int s_first_in_seg(const wh_reduction_t *r, int i)
{
    int seg = wh_chain_step(r->walk.chain, i)->seg;
    if (wh_chain_step(r->walk.chain, r->walk.c[i].rep)->seg == seg)
        return 0;
    for (int j = i - 1; j > r->walk.c[i].rep && wh_chain_step(r->walk.chain, j)->seg == seg; j--)
        if (r->walk.c[j].rep == r->walk.c[i].rep)
            return 0;
    return 1;
}

/* A step whose verdict came from the cache: its judge is a live slot of
 * the node that produced it, so the verify run goes to another node
 * (never to the one whose cached Preserved it checks). 0 or WH_ENOMEM. */
static int s_cached_judge(wh_reduction_t *r, const char *key)
{
    const char *slot = red_cached_judge(r, key);
    return slot ? wh_trail_set_judge(r->trail, slot, wh_pool_node_of(r->pool, slot)) : 0;
}

/* Records counted step i; 1 when a slot really built it. */
static int s_record_step(wh_reduction_t *r, int i, uint64_t now)
{
    const wh_step_t *st = wh_chain_step(r->walk.chain, i);
    red_cand_t *c = &r->walk.c[i];
    red_cand_t *rep = &r->walk.c[c->rep];
    int id = ++r->walk.candidates, built = 0;
    /* A repeat of a predicted candidate in a later round of the chain is
     * answered by the prediction, as it was when each round went out alone
     * (from the prediction cache); a repeat inside one round, or of a
     * built candidate, is a cache hit. */
    int again = c->rep != i && rep->predicted && s_first_in_seg(r, i);
    int cached = (c->rep != i && !again) || c->from_cache;
    int predicted = !cached && rep->predicted;
    s_header(r, st);
    if (c->rep == i)
        red_audit(r, c, id);
    if (cached)
        r->walk.cached++;
    else if (predicted)
        r->walk.predicted++;
    else {
        r->walk.evaluated++;
        s_note_ms(r, rep->ms);
        built = 1;
    }
    if (rep->v == WH_V_UB_GUARD) {
        r->ub_guard++;
        r->ub_predicted += predicted;
    } else {
        r->walk.verdicts[rep->v]++;
    }
    /* A node's negative verdict behind the walk, or its run that gave
     * none (InfraError: the unit is kept unjudged): the claims check may
     * judge it again (reduce_claims.c); the front end's are not a node's. */
    if (!predicted && !rep->predicted && red_negative(rep->v))
        red_claim_note(r, rep->key, rep->from_cache ? red_cached_judge(r, rep->key) : rep->node, 0);
    else if (!predicted && !rep->predicted && rep->v == WH_V_INFRA_ERROR)
        red_claim_note(r, rep->key, rep->node, 1);
    char *removed = s_describe_removed(r, st->removed);
    char note[256] = "";
    if (rep->v == WH_V_UB_GUARD)
        snprintf(note, sizeof note, "UB guard%s: %s", predicted ? ", not built"
                 : cached ? "" : " (its build preserved the failure)",
                 rep->ub_msg ? rep->ub_msg : "a new use of an indeterminate value");
    else if (c->rep != i && !again)
        snprintf(note, sizeof note, "same candidate as an earlier one in this round");
    else if (c->from_cache)
        snprintf(note, sizeof note, "cache");
    else if (predicted)
        snprintf(note, sizeof note, "predicted, not built%s: %s",
                 rep->predicted == 2 || again ? " (from the prediction cache)" : "",
                 rep->pre_msg ? rep->pre_msg : "the front end rejected it before");
    wh_cand_row_t row = {
        .id = id, .sweep = st->sweep, .level = st->level, .kept = st->kept,
        .total = st->total, .verdict = rep->v, .cached = cached,
        .node = cached ? "-" : predicted ? (rep->ub == RED_PRE_FAIL ? "ubguard" : "precheck")
                                         : rep->node,
        .ms = cached || predicted ? 0 : rep->ms,
        .removed = removed, .note = note[0] ? note : (rep->detail && !cached ? rep->detail : NULL),
        .report = cached ? NULL : rep->report,
        .runs = cached ? 0 : rep->runs, .agreeing = cached ? 0 : rep->agreeing,
        .key = rep->key, .infra = cached ? NULL : rep->infra,
        .predicted = predicted,
        .precheck = rep->pre == RED_PRE_FAIL ? "fail" : rep->pre == RED_PRE_PASS ? "pass" : "-",
        .build_ms = cached || predicted ? 0 : rep->build_ms,
        .test_ms = cached || predicted ? 0 : rep->test_ms,
        .end_ms = cached || predicted || !rep->end_ms ? now : rep->end_ms,
    };
    wh_record_candidate(r->rec, &row);
    if (r->job.verbose)
        red_out(r, "[cand_%03d] keep %d/%d -> %s%s\n", id, st->kept, st->total,
                wh_verdict_name(rep->v), cached ? "  (cached)" : predicted ? "  (predicted)" : "");
    free(removed);
    return built;
}

/* How a decided chain ended: its last counted step as expected (the walk
 * is over, or the chain ran out of steps) or a surprise, and who expected
 * what (the memo, else the prior): the figures a better prior must move. */
static void s_log_chain_end(wh_reduction_t *r, const wh_chain_plan_t *pl, int n)
{
    if (pl->n_steps < 1)
        return;
    const wh_step_t *st = wh_chain_step(r->walk.chain, pl->n_steps - 1);
    int pres = r->walk.c[r->walk.c[pl->n_steps - 1].rep].v == WH_V_PRESERVED;
    if (pres == (st->expect != 0)) {
        wh_record_log(r->rec, "           chain %d: %d of %d steps counted, as expected",
                      r->walk.chains, pl->n_steps, n);
        return;
    }
    r->walk.surprises[pres]++;
    wh_record_log(r->rec, "           chain %d: %d of %d steps counted; the last %s Preserved, "
                  "expected %s (%s)", r->walk.chains, pl->n_steps, n, pres ? "was" : "was not",
                  pres ? "not" : "so", st->expect == st->prior ? "as the prior guessed"
                                                             : "the memo against the prior");
}

/* Records the counted steps not recorded yet (from r->walk.rec_steps to
 * pl->n_steps) in order, resolving the engine after each engine round's
 * last one (so every accepted configuration reaches the trail in order).
 * Called for a decided chain and, before that, for the steps a chain has
 * already counted (every step before them answered as expected): at 1
 * slot with good expectations a chain runs for dozens of builds, and the
 * run's record and console would say nothing until it ends. 0, or -1
 * when the job failed. */
static int s_record_counted(wh_reduction_t *r, const wh_chain_plan_t *pl)
{
    uint64_t now = wh_now_ms() - r->t0;
    for (int i = r->walk.rec_steps; i < pl->n_steps; i++) {
        const wh_step_t *st = wh_chain_step(r->walk.chain, i);
        r->walk.rec_built |= s_record_step(r, i, now);
        r->walk.rec_steps = i + 1;
        int last = i + 1 == pl->n_steps || wh_chain_step(r->walk.chain, i + 1)->seg != st->seg;
        if (!last || st->seg >= pl->n_res)
            continue;
        int w = wh_chain_winner(r->walk.chain, r->walk.rec_segs++);
        if (wh_engine_resolve(r->engine, w) < 0) {
            red_fail(r, 4, NULL); /* out of memory */
            return -1;
        }
        r->walk.eta_wins = (r->walk.eta_wins << 1 | (w >= 0)) & 0xffu;
        r->walk.eta_nwins += r->walk.eta_nwins < 8;
        if (w < 0)
            continue;
        wh_record_log(r->rec, "           accepted cand_%03d", r->walk.candidates);
        const red_cand_t *won = &r->walk.c[r->walk.c[i].rep];
        if (wh_trail_accept(r->trail, r->engine, won->key, r->walk.candidates) ||
            (won->from_cache && s_cached_judge(r, won->key))) {
            red_fail(r, 4, NULL); /* out of memory */
            return -1;
        }
    }
    return 0;
}

/* The decided chain: its counted steps (s_record_counted), then the
 * extras. 0, or -1 when the job failed. */
static int s_record_chain(wh_reduction_t *r, const wh_chain_plan_t *pl)
{
    int n = wh_chain_steps(r->walk.chain);
    if (s_record_counted(r, pl) < 0)
        return -1;
    for (int i = pl->n_steps; i < n; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep == i && c->evaluated)
            s_record_extra(r, c);
        else if (c->rep == i && c->submitted && c->v == WH_V_NONE && !c->dispatched)
            r->walk.cancelled++;
    }
    r->walk.building_rounds += r->walk.rec_built;
    r->walk.chains++;
    s_log_chain_end(r, pl, n);
    /* For the ETA: the waves of builds this chain took on the slots. */
    int builds = 0;
    for (int i = 0; i < n; i++)
        builds += r->walk.c[i].rep == i && r->walk.c[i].evaluated;
    wh_pool_stats_t ps = {0};
    wh_pool_stats(r->pool, &ps);
    int jobs = ps.jobs > 1 ? ps.jobs : 1;
    r->walk.eta_waves += wh_progress_waves(builds, ps.slots / jobs > 1 ? ps.slots / jobs : 1);
    r->walk.eta_last = wh_now_ms();
    return 0;
}

/* The candidates a decided chain still has in flight: a queued one is
 * cancelled; one a slot is judging goes on as a speculation (its verdict
 * lands in the cache and the memo, and a later chain adopts it). */
static void s_settle(wh_reduction_t *r)
{
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep == i && c->checking) { /* its front-end answer is no longer wanted */
            red_precheck_cancel(r, c->eval_id);
            c->checking = 0;
        }
        c->ready = 0;
        if (c->rep != i || !c->submitted || c->v != WH_V_NONE)
            continue;
        if (!c->dispatched || s_spec_room(r) < 0) {
            wh_pool_cancel(r->pool, r->pool_id, c->eval_id);
            continue;
        }
        struct red_spec *sp = &r->walk.spec[r->walk.nspec++];
        *sp = (struct red_spec){.id = c->eval_id, .exact = c->exact, .delta = c->delta,
                                .running = 1, .disp_ms = c->disp_ms, .pre = c->pre};
        memcpy(sp->key, c->key, 65);
    }
}

/* The fault-kept check (thesis 8.1, second item): the reduced test must
 * pass on the version without the bug. */
void red_start_refcheck(wh_reduction_t *r)
{
    size_t len = 0;
    char *txt = wh_render(r->tree, wh_engine_removed(r->engine), &len);
    r->refcheck_id = ++r->next_eval;
    r->state = RED_REFCHECK;
    int rc = txt ? wh_pool_submit(r->pool, r->pool_id, r->refcheck_id, txt, len,
                                  WH_TASK_ON_REFERENCE)
                 : WH_ENOMEM;
    free(txt);
    if (rc)
        red_fail(r, 4, wh_strdup_printf("cannot queue the reference check: %s", wh_strerror(rc)));
    red_out(r, "Checking the reduced test on the reference %s\n", r->job.reference);
}


void red_replan(wh_reduction_t *r)
{
    if (r->state != RED_ROUNDS || !r->walk.chain)
        return;
    /* The new chain's candidates go to the front end on the precheck's
     * threads (reduce_predict.c), like any chain's, in canonical order: the
     * poll thread only renders and keys them, as without the precheck. (It
     * was off with the precheck while the checks ran on the poll thread:
     * 8 slots, 2 loaded cores, depth 12 -> 8 chains but 2.14x against
     * 3.15x.) */
    int stale = 0;
    for (int i = 0; i < r->walk.nc && !stale; i++) {
        const red_cand_t *c = &r->walk.c[i];
        const wh_step_t *st = wh_chain_step(r->walk.chain, i);
        stale = c->rep == i && !c->dispatched && c->v == WH_V_NONE &&
                wh_memo_expect(r->walk.memo, st->exact, st->delta, st->prior) != st->expect;
    }
    if (!stale)
        return;
    /* What of this chain counted is recorded (s_record_counted): the new
     * chain starts after it. What else it judged goes on to the next
     * chain through the cache, what runs goes on running. */
    s_settle(r);
    r->walk.chain_start = wh_chain_step(r->walk.chain, r->walk.rec_steps)->idx;
    if (r->walk.rec_steps) { /* a chain that counted something, as when decided */
        r->walk.building_rounds += r->walk.rec_built;
        r->walk.chains++;
    }
    for (int i = r->walk.rec_steps; i < r->walk.nc; i++)
        if (r->walk.c[i].rep == i && r->walk.c[i].evaluated)
            s_keep_judged(r, &r->walk.c[i]);
    red_clear_round(r);
    r->walk.replans++;
    red_advance(r);
}

/* How many steps a chain holds at most (beyond the engine's current
 * round up to its first expected winner, which it always holds): the
 * engine's window, so a chain costs what a round cost before. */
#define S_CHAIN_STEPS WH_ENGINE_WINDOW

/* Takes the walk's next chain and queues it; 0 when the walk is over (the
 * run then finishes or goes on to the reference check). */
static int s_next_round(wh_reduction_t *r)
{
    if (!wh_engine_round(r->engine)) {
        s_cancel_spec(r, 1);
        red_start_verify(r, wh_trail_steps(r->trail) - 1);
        return 0;
    }
    if (!r->walk.eta_t0)
        r->walk.eta_t0 = wh_now_ms();
    r->walk.chain = wh_chain_new(r->engine, r->walk.chain_start, r->walk.memo, r->walk.prior, S_CHAIN_STEPS);
    if (!r->walk.chain) {
        red_fail(r, 4, wh_strdup_printf("cannot prepare a round: %s", wh_strerror(WH_ENOMEM)));
        return 0;
    }
    r->walk.round = wh_chain_round(r->walk.chain);
    int rc = s_prepare_round(r);
    if (rc) {
        red_fail(r, 4, wh_strdup_printf("cannot prepare a round: %s", wh_strerror(rc)));
        return 0;
    }
    s_cancel_spec(r, 0);
    if (r->job.speculate)
        s_speculate(r);
    return 1;
}

/* Steps after a surprise already seen can never count (wh_chain_decide),
 * whatever the steps before it still say. The ones no slot has taken yet
 * are withdrawn: while the steps before the surprise finish, the slots
 * they free are left for the next chain instead of starting builds that
 * cannot count and would hold those slots for a whole build after the
 * chain is decided. Steps already running go on (their verdicts shape
 * the next chains' expectations). */
static void s_withdraw_doomed(wh_reduction_t *r, const wh_verdict_t *v)
{
    int k = -1;
    for (int i = 0; i < r->walk.nc && k < 0; i++) {
        const wh_step_t *st = wh_chain_step(r->walk.chain, i);
        if (v[i] != WH_V_NONE && v[i] != WH_V_INFRA_ERROR &&
            (v[i] == WH_V_PRESERVED) != (st->expect != 0))
            k = i;
    }
    for (int i = k + 1; k >= 0 && i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || c->v != WH_V_NONE || c->dispatched || c->withdrawn)
            continue;
        if (c->checking)
            red_precheck_cancel(r, c->eval_id);
        if (c->submitted)
            wh_pool_cancel(r->pool, r->pool_id, c->eval_id);
        c->checking = c->ready = c->submitted = c->waiting_check = 0;
        c->withdrawn = 1;
        r->walk.withdrawn++;
    }
}

/* 1 when the next chain waits: a step the last chain left running has
 * run for 3/4 to 2 of a step's usual time (the hold's window), so its
 * verdict is due any moment and may change what the next chain expects.
 * Planned without it, the next chain's first steps start on an
 * expectation that verdict may prove wrong (8 slots, 200 ms: 114-131
 * builds in the walk from run to run, 120 every time with the wait). The
 * wait ends with that verdict, when the step leaves the window, or after
 * a quarter of a step's usual time (a slow build never keeps the freed
 * slots idle for long), whichever comes first (the pool's timer wakes the
 * loop, and wh_reduction_poll goes on). It changes only when the next
 * chain is made, never what it judges: the steps that count are the
 * walk's (chain.h). One slot never waits (nothing runs beyond a chain's
 * surprise). */
static int s_wait_due(wh_reduction_t *r)
{
    uint64_t now = wh_now_ms(), until = 0;
    for (int k = 0; r->walk.turn_ms && !wh_engine_done(r->engine) && k < r->walk.nspec; k++) {
        struct red_spec *sp = &r->walk.spec[k];
        uint64_t ran = now - sp->disp_ms;
        if (sp->running && sp->disp_ms && (!sp->waited || r->walk.wait_from) &&
            4 * ran >= 3 * r->walk.turn_ms && ran <= 2 * r->walk.turn_ms) {
            uint64_t end = sp->disp_ms + 2 * r->walk.turn_ms + 1;
            until = until && until < end ? until : end;
            sp->waited = 1; /* the chains after this wait do not wait for it again */
        }
    }
    if (until && !r->walk.wait_from) {
        r->walk.wait_from = now;
        r->walk.deferred++;
    }
    uint64_t cap = r->walk.wait_from + r->walk.turn_ms / 4 + 1;
    if (!until || now >= cap) {
        r->walk.wait_from = r->walk.defer_until = 0;
        return 0;
    }
    r->walk.defer_until = until < cap ? until : cap;
    wh_pool_wake_at(r->pool, r->walk.defer_until); /* wh_reduction_poll goes on then */
    return 1;
}

/* Runs the walk as far as the verdicts at hand allow. */
/* --budget: 1 when the walk's budget is spent (r->partial then says why). */
static int s_budget_spent(wh_reduction_t *r)
{
    if (r->partial)
        return 1;
    char why[160];
    if (!wh_spend_over(&r->job.budget, r->walk.evaluated, wh_now_ms() - r->t0, why, sizeof why))
        return 0;
    r->partial = strdup(why);
    return 1;
}

/* The budget is spent: the walk stops where it stands. What the chain in
 * flight counted so far is the engine's already (s_record_counted); its
 * queued steps are cancelled, its running ones and every speculation too,
 * and the answer so far is verified and fault-checked as any answer is
 * (its claims are not checked: a partial answer claims no minimality). */
static void s_stop_walk(wh_reduction_t *r)
{
    if (!r->partial) {
        red_fail(r, 4, NULL); /* out of memory */
        return;
    }
    s_settle(r);
    red_clear_round(r);
    s_cancel_spec(r, 1);
    wh_record_log(r->rec, "budget: %s; the walk stops with its best answer so far", r->partial);
    red_out(r, "Budget: %s; the walk stops here with its best answer so far\n", r->partial);
    red_start_verify(r, wh_trail_steps(r->trail) - 1);
}

void wh_reduction_spend_out(wh_reduction_t *r, const char *why)
{
    if (r->partial || (r->state != RED_BASELINE && r->state != RED_REFPROBE &&
                       r->state != RED_ROUNDS))
        return;
    r->partial = strdup(why);
    if (!r->partial)
        red_fail(r, 4, NULL); /* out of memory */
    else if (r->state == RED_ROUNDS)
        red_advance(r); /* stops at once: s_budget_spent sees partial */
}

void red_advance(wh_reduction_t *r)
{
    while (r->state == RED_ROUNDS) {
        if (!r->walk.round && s_budget_spent(r)) {
            s_stop_walk(r);
            return;
        }
        if (!r->walk.round && (s_wait_due(r) || !s_next_round(r)))
            return;
        red_ubguard_settle(r); /* no Preserved is accepted unguarded */
        if (red_fprule_settle(r))
            return; /* a lie found: the walk resumed (or the job failed) */
        wh_verdict_t *v = calloc(r->walk.nc > 0 ? (size_t)r->walk.nc : 1u, sizeof *v);
        if (!v) {
            red_fail(r, 4, NULL); /* out of memory */
            return;
        }
        for (int i = 0; i < r->walk.nc; i++)
            v[i] = r->walk.c[r->walk.c[i].rep].v;
        s_withdraw_doomed(r, v);
        wh_chain_plan_t pl;
        int ready = wh_chain_decide(r->walk.chain, v, &pl);
        free(v);
        if (!ready || red_precheck_waits(r, pl.n_steps - 1)) {
            if (!ready && !red_precheck_waits(r, pl.n_steps - 1) && s_record_counted(r, &pl) < 0)
                return;
            if (s_budget_spent(r)) {
                s_stop_walk(r);
                return;
            }
            if (red_precheck_window(r))
                red_fail(r, 4, NULL); /* out of memory */
            else
                red_early_claims(r);
            return;
        }
        s_settle(r);
        if (s_record_chain(r, &pl) < 0)
            return;
        r->walk.chain_start = pl.next_start;
        red_clear_round(r);
    }
}
