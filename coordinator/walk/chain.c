/*
 * chain — the steps the walk expects next (see chain.h).
 *
 * A chain is built on a clone of the engine: each candidate of the clone's
 * round is copied out as a step with its expectation; at the first step
 * expected Preserved the clone resolves with it, and when none is, the
 * clone resolves with -1; either way the chain goes on with the clone's
 * next round until it holds max_steps steps or the walk is over. A
 * segment is one engine round's part of the chain.
 */
#include "chain.h"

#include <stdlib.h>
#include <string.h>

/* ---- the memo ---- */

/* Open addressing over 64-bit keys; 0 marks an empty slot. Exact and
 * removal keys share the table, told apart by their top bit. */
struct wh_memo {
    uint64_t *keys;
    uint8_t *pres; /* 1: that candidate (or removal) was Preserved */
    size_t cap, len;
};

#define S_EXACT_BIT 0x8000000000000000ull

wh_memo_t *wh_memo_new(void)
{
    return calloc(1, sizeof(wh_memo_t));
}

void wh_memo_destroy(wh_memo_t **pm)
{
    if (!pm || !*pm)
        return;
    free((*pm)->keys);
    free((*pm)->pres);
    free(*pm);
    *pm = NULL;
}

void wh_memo_clear(wh_memo_t *m)
{
    if (!m)
        return;
    if (m->cap) {
        memset(m->keys, 0, m->cap * sizeof *m->keys);
        memset(m->pres, 0, m->cap);
    }
    m->len = 0;
}

static size_t s_slot(const wh_memo_t *m, uint64_t k)
{
    size_t i = (size_t)(k ^ (k >> 29)) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int s_grow(wh_memo_t *m)
{
    size_t cap = m->cap ? 2 * m->cap : 256;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint8_t *pres = calloc(cap, 1);
    if (!keys || !pres) {
        free(keys);
        free(pres);
        return WH_ENOMEM;
    }
    wh_memo_t old = *m;
    m->keys = keys;
    m->pres = pres;
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.keys[i])
            continue;
        size_t j = s_slot(m, old.keys[i]);
        m->keys[j] = old.keys[i];
        m->pres[j] = old.pres[i];
    }
    free(old.keys);
    free(old.pres);
    return 0;
}

static int s_set(wh_memo_t *m, uint64_t k, int pres)
{
    k = k ? k : 1;
    if (2 * (m->len + 1) > m->cap && s_grow(m) < 0)
        return WH_ENOMEM;
    size_t i = s_slot(m, k);
    if (!m->keys[i]) {
        m->keys[i] = k;
        m->len++;
    }
    m->pres[i] = (uint8_t)pres;
    return 0;
}

/* 1 Preserved, 0 not, -1 unknown. */
static int s_get(const wh_memo_t *m, uint64_t k)
{
    if (!m || !m->cap)
        return -1;
    k = k ? k : 1;
    size_t i = s_slot(m, k);
    return m->keys[i] ? m->pres[i] : -1;
}

int wh_memo_put(wh_memo_t *m, uint64_t exact, uint64_t delta, wh_verdict_t v)
{
    if (!m || v == WH_V_NONE || v == WH_V_INFRA_ERROR)
        return 0;
    int pres = v == WH_V_PRESERVED;
    /* Two slots at most: grow first, so neither insert can fail alone. */
    if (2 * (m->len + 2) > m->cap && s_grow(m) < 0)
        return WH_ENOMEM;
    s_set(m, exact | S_EXACT_BIT, pres);
    s_set(m, delta & ~S_EXACT_BIT, pres);
    return 0;
}

int wh_memo_expect(const wh_memo_t *m, uint64_t exact, uint64_t delta, int prior)
{
    int x = s_get(m, exact | S_EXACT_BIT);
    if (x < 0)
        x = s_get(m, delta & ~S_EXACT_BIT);
    return x >= 0 ? x : prior != 0;
}

/* ---- the chain ---- */

typedef struct {
    int first, n;  /* its steps */
    int n_cand;    /* candidates of its engine round */
    int whole;     /* the segment reaches its round's end or expected winner */
} s_seg_t;

struct wh_chain {
    int units;
    int nsteps, cap;
    wh_step_t *steps;
    uint8_t *rows;  /* cap rows of units bytes */
    int *kept;
    uint8_t **rowp;
    int nseg;
    s_seg_t *segs;
    int *res;       /* winners of the last decision, per segment */
    uint8_t *final; /* the answer when every step comes out as expected, or NULL */
    wh_round_t round;
};

static uint64_t s_mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xbf58476d1ce4e5b9ull;
}

/* The candidate's own key, and the key of what it removes beyond base
 * (the unit indices, so the same removal has the same key on any base). */
static void s_keys(const uint8_t *rem, const uint8_t *base, int n, uint64_t *exact,
                   uint64_t *delta)
{
    uint64_t a = 0x243f6a8885a308d3ull, d = 0x13198a2e03707344ull;
    for (int u = 0; u < n; u++) {
        if (!rem[u])
            continue;
        a = s_mix(a, (uint64_t)u);
        if (!base[u])
            d = s_mix(d, (uint64_t)u);
    }
    *exact = a;
    *delta = d;
}

static int s_reserve(wh_chain_t *c, int need)
{
    if (need <= c->cap)
        return 0;
    int cap = c->cap ? 2 * c->cap : 64;
    while (cap < need)
        cap *= 2;
    size_t row = c->units > 0 ? (size_t)c->units : 1;
    uint8_t *rows = realloc(c->rows, (size_t)cap * row);
    if (!rows)
        return WH_ENOMEM;
    c->rows = rows;
    wh_step_t *st = realloc(c->steps, (size_t)cap * sizeof *st);
    if (!st)
        return WH_ENOMEM;
    c->steps = st;
    int *kept = realloc(c->kept, (size_t)cap * sizeof *kept);
    if (!kept)
        return WH_ENOMEM;
    c->kept = kept;
    uint8_t **rowp = realloc(c->rowp, (size_t)cap * sizeof *rowp);
    if (!rowp)
        return WH_ENOMEM;
    c->rowp = rowp;
    c->cap = cap;
    return 0;
}

static int s_add_seg(wh_chain_t *c, s_seg_t sg)
{
    s_seg_t *s = realloc(c->segs, (size_t)(c->nseg + 1) * sizeof *s);
    int *res = realloc(c->res, (size_t)(c->nseg + 1) * sizeof *res);
    if (s)
        c->segs = s;
    if (res)
        c->res = res;
    if (!s || !res)
        return WH_ENOMEM;
    c->segs[c->nseg++] = sg;
    return 0;
}

/* Copies the clone's round from candidate `from` into the chain up to the
 * first step expected Preserved (its index in *winner, else -1) or until
 * the chain is full (only when !first). */
static int s_add_round(wh_chain_t *c, wh_engine_t *e, int from, const wh_memo_t *m,
                       const wh_prior_t *prior, int max_steps, int first, int *winner)
{
    const wh_round_t *rd = wh_engine_round(e);
    const uint8_t *base = wh_engine_removed(e);
    s_seg_t sg = {c->nsteps, 0, rd->n_cand, 1};
    *winner = -1;
    for (int i = from; i < rd->n_cand; i++) {
        if (!first && c->nsteps >= max_steps) {
            sg.whole = 0;
            break;
        }
        if (s_reserve(c, c->nsteps + 1) < 0)
            return WH_ENOMEM;
        wh_step_t *st = &c->steps[c->nsteps];
        uint8_t *row = c->rows + (size_t)c->nsteps * (size_t)(c->units > 0 ? c->units : 1);
        if (c->units > 0)
            memcpy(row, rd->removed[i], (size_t)c->units);
        s_keys(row, base, c->units, &st->exact, &st->delta);
        st->seg = c->nseg;
        st->idx = i;
        st->prior = prior && wh_prior_expect(prior, row, base);
        st->expect = wh_memo_expect(m, st->exact, st->delta, st->prior);
        st->kind = rd->kind;
        st->sweep = rd->sweep;
        st->level = rd->level;
        st->total = rd->total;
        st->kept = rd->kept[i];
        c->nsteps++;
        sg.n++;
        if (st->expect) {
            *winner = i;
            break;
        }
    }
    if (sg.n == 0)
        return 1; /* full before this round: nothing of it */
    return s_add_seg(c, sg) < 0 ? WH_ENOMEM : 0;
}

wh_chain_t *wh_chain_new(const wh_engine_t *e, int start, const wh_memo_t *m,
                         const wh_prior_t *prior, int max_steps)
{
    wh_chain_t *c = calloc(1, sizeof *c);
    wh_engine_t *cl = e ? wh_engine_clone(e) : NULL;
    if (!c || !cl || !wh_engine_round(cl) || start < 0 ||
        start >= wh_engine_round(cl)->n_cand)
        goto fail;
    c->units = wh_engine_units(e);
    for (int first = 1; wh_engine_round(cl); first = 0) {
        if (!first && c->nsteps >= max_steps)
            break;
        int w, rc = s_add_round(c, cl, first ? start : 0, m, prior, max_steps, first, &w);
        if (rc < 0)
            goto fail;
        if (rc == 1 || !c->segs[c->nseg - 1].whole)
            break;
        if (wh_engine_resolve(cl, w) < 0)
            goto fail;
    }
    if (!wh_engine_round(cl)) {
        /* The walk ends with this chain if every step is as expected. */
        if (!(c->final = malloc(c->units > 0 ? (size_t)c->units : 1u)))
            goto fail;
        memcpy(c->final, wh_engine_removed(cl), (size_t)c->units);
    }
    wh_engine_destroy(&cl);
    size_t row = c->units > 0 ? (size_t)c->units : 1;
    for (int i = 0; i < c->nsteps; i++) {
        c->rowp[i] = c->rows + (size_t)i * row;
        c->steps[i].removed = c->rowp[i];
        c->kept[i] = c->steps[i].kept;
    }
    c->round = (wh_round_t){
        .kind = c->steps[0].kind, .sweep = c->steps[0].sweep, .level = c->steps[0].level,
        .granularity = 0, .total = c->steps[0].total, .n_cand = c->nsteps,
        .removed = c->rowp, .kept = c->kept,
    };
    return c;
fail:
    wh_engine_destroy(&cl);
    wh_chain_destroy(&c);
    return NULL;
}

void wh_chain_destroy(wh_chain_t **pc)
{
    if (!pc || !*pc)
        return;
    wh_chain_t *c = *pc;
    free(c->steps);
    free(c->rows);
    free(c->kept);
    free(c->rowp);
    free(c->segs);
    free(c->res);
    free(c->final);
    free(c);
    *pc = NULL;
}

int wh_chain_steps(const wh_chain_t *c)
{
    return c->nsteps;
}

const wh_step_t *wh_chain_step(const wh_chain_t *c, int i)
{
    return &c->steps[i];
}

const wh_round_t *wh_chain_round(const wh_chain_t *c)
{
    return &c->round;
}

const uint8_t *wh_chain_final(const wh_chain_t *c)
{
    return c->final;
}

int wh_chain_decide(wh_chain_t *c, const wh_verdict_t *v, wh_chain_plan_t *p)
{
    memset(p, 0, sizeof *p);
    for (int s = 0; s < c->nseg; s++) {
        const s_seg_t *sg = &c->segs[s];
        int won = 0;
        for (int i = sg->first; i < sg->first + sg->n; i++) {
            const wh_step_t *st = &c->steps[i];
            if (v[i] == WH_V_NONE)
                return 0;
            int pres = v[i] == WH_V_PRESERVED;
            p->n_steps = i + 1;
            if (pres) {
                /* The first Preserved one wins its round, expected or not;
                 * an unexpected one is the surprise. */
                c->res[p->n_res++] = st->idx;
                if (!st->expect)
                    return 1;
                won = 1;
                break;
            }
            if (st->expect) {
                /* The expected winner is not Preserved: its round goes on
                 * after it (or ends without a winner), and the chain built
                 * on it is moot. */
                if (st->idx == sg->n_cand - 1)
                    c->res[p->n_res++] = -1;
                else
                    p->next_start = st->idx + 1;
                return 1;
            }
        }
        if (won)
            continue;
        if (!sg->whole) {
            /* Cut by the length: the round is open after the last step. */
            p->next_start = c->steps[sg->first + sg->n - 1].idx + 1;
            return 1;
        }
        c->res[p->n_res++] = -1;
    }
    return 1;
}

int wh_chain_winner(const wh_chain_t *c, int s)
{
    return c->res[s];
}
