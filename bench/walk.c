/*
 * walk — how many builds each ddmin walk needs, side by side, on the shapes
 * of real reductions replayed with oracle functions (no libclang, no builds):
 *
 *   headers   Figure 4.2 (tests/fixtures/headers): 5 statements, 2 needed
 *   cart      Figure 1.1 (tests/fixtures/cart): a loop, apply(coupon)
 *   flags A-C picire's API test cases (8 units; A needs 5 and 8 unless 7
 *             stays without 2, B needs all 8, C needs 1 2 3 4 6 8)
 *   flags D   102 statements: `flags = 0`, 100 `flags |= F_i`, the assert;
 *             the fifty even flags are needed (102 -> 52)
 *   synth N   N statements in nested blocks: declarations, and statements
 *             that use earlier visible declarations (BuildFailed when one
 *             is gone); 5 % of the uses and the final assert are needed
 *
 * Walks, each with a verdict cache for the whole run (a build = a distinct
 * configuration judged; a candidate = a configuration asked for):
 *
 *   classic   the engine's --ddmin classic (Algorithm 1 inside HDD*)
 *   chunked   the engine's default walk
 *   picire    a reimplementation here of picire's default ddmin (subsets
 *             first, forward iterators, Zeller split, complement offset,
 *             config cache) on each level, one top-down pass over the
 *             levels (picireny's default HDD). Not picire itself: real
 *             picire with its defaults needs 640 builds on flags D, this
 *             one 479 (printed as "picire*")
 *   one-by-1  HDD* with a one-unit-at-a-time pass per level, repeated until
 *             a pass removes nothing
 *
 * and the chunked walk through chains (chain.h) at 1, 8 and 32 slots, in
 * builds' latencies, with the default expectations and with perfect ones
 * (the bound on what a better prior could gain).
 *
 * For every run it checks that the result is Preserved and, for the engine
 * walks, 1-tree-minimal; a failed check prints "NOT" and exits 1.
 *
 *   whittle-bench-walk [--quick]     --quick stops the synthetic tests at 1k
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chain.h"
#include "engine.h"

/* ---- shapes ---- */

typedef struct shape shape_t;
struct shape {
    const char *name;
    int n;
    int *parent;
    wh_verdict_t (*judge)(const shape_t *s, const uint8_t *rem);
    /* synthetic: per unit, 1 for a declaration, the needed flag, and up to
     * two declarations it uses (-1: none) */
    uint8_t *decl, *need;
    int (*uses)[2];
    int flags_case; /* 'A'..'D' */
};

/* Figure 4.2: parse, host, conn, key1, origin. */
static wh_verdict_t s_headers(const shape_t *s, const uint8_t *rem)
{
    (void)s;
    if (rem[0] && (!rem[1] || !rem[2] || !rem[3] || !rem[4]))
        return WH_V_BUILD_FAILED; /* 'request' undeclared */
    if (rem[1])
        return WH_V_TEST_PASSED;
    return WH_V_PRESERVED;
}

/* Figure 1.1: cart, coupon, add, loop { apply, assert_name }, assert_count. */
static wh_verdict_t s_cart(const shape_t *s, const uint8_t *rem)
{
    (void)s;
    enum { CART, COUPON, ADD, LOOP, APPLY, ASSERT_NAME, ASSERT_COUNT };
    if (!rem[APPLY] && rem[COUPON])
        return WH_V_BUILD_FAILED;
    if (rem[CART] && (!rem[ADD] || !rem[ASSERT_NAME] || !rem[ASSERT_COUNT]))
        return WH_V_BUILD_FAILED;
    if (rem[ASSERT_NAME])
        return WH_V_TEST_PASSED;
    if (rem[CART] || rem[ADD] || rem[LOOP])
        return WH_V_DIFFERENT_FAILURE;
    return WH_V_PRESERVED;
}

/* picire's cases A-C over units 0..7 holding the values 1..8. */
static wh_verdict_t s_flags_small(const shape_t *s, const uint8_t *rem)
{
#define IN(v) (!rem[(v) - 1])
    int ok = 0;
    switch (s->flags_case) {
    case 'A':
        ok = !(IN(7) && !IN(2)) && IN(5) && IN(8);
        break;
    case 'B':
        ok = IN(1) && IN(2) && IN(3) && IN(4) && IN(5) && IN(6) && IN(7) && IN(8);
        break;
    default:
        ok = IN(1) && IN(2) && IN(3) && IN(4) && IN(6) && IN(8);
        break;
    }
#undef IN
    return ok ? WH_V_PRESERVED : WH_V_TEST_PASSED;
}

/* Case D: unit 0 declares flags, 1..100 set flag i, 101 asserts. */
static wh_verdict_t s_flags_d(const shape_t *s, const uint8_t *rem)
{
    int any_use = 0;
    for (int u = 1; u < s->n; u++)
        any_use |= !rem[u];
    if (rem[0] && any_use)
        return WH_V_BUILD_FAILED;
    if (rem[101])
        return WH_V_TEST_PASSED;
    for (int f = 2; f <= 100; f += 2)
        if (rem[f])
            return WH_V_DIFFERENT_FAILURE; /* the assert shows another value */
    return WH_V_PRESERVED;
}

static wh_verdict_t s_synth(const shape_t *s, const uint8_t *rem)
{
    for (int u = 0; u < s->n; u++)
        if (!rem[u])
            for (int k = 0; k < 2; k++)
                if (s->uses[u][k] >= 0 && rem[s->uses[u][k]])
                    return WH_V_BUILD_FAILED;
    for (int u = 0; u < s->n; u++)
        if (s->need[u] && rem[u])
            return u == s->n - 1 ? WH_V_TEST_PASSED : WH_V_DIFFERENT_FAILURE;
    return WH_V_PRESERVED;
}

static uint64_t s_rng(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void s_shape_alloc(shape_t *s, int n)
{
    s->n = n;
    s->parent = malloc((size_t)n * sizeof *s->parent);
    s->decl = calloc((size_t)n, 1);
    s->need = calloc((size_t)n, 1);
    s->uses = malloc((size_t)n * sizeof *s->uses);
    if (!s->parent || !s->decl || !s->need || !s->uses) {
        fprintf(stderr, "whittle-bench-walk: out of memory\n");
        exit(1);
    }
    for (int u = 0; u < n; u++) {
        s->parent[u] = -1;
        s->uses[u][0] = s->uses[u][1] = -1;
    }
}

/* A test body of n statements in pre-order: blocks up to 3 deep (about one
 * statement in ten opens one), a third of the statements declare a name,
 * the others use one or two names visible at that point (declared earlier
 * in an enclosing block). Every statement lives inside some brace block, so
 * a use inside a block needs its ancestors too. The last statement is the
 * failing assert at level 0. */
static void s_synth_gen(shape_t *s, int n, uint64_t seed, int decl_pct, int need_pct)
{
    s_shape_alloc(s, n);
    uint64_t st = seed;
    int stack[8], depth = 0; /* open block owners */
    int *vis = malloc((size_t)n * sizeof *vis), nvis = 0;
    int mark[8] = {0}; /* nvis when each block opened */
    for (int u = 0; u < n; u++) {
        if (u == n - 1)
            while (depth > 0)
                nvis = mark[--depth];
        else if (depth > 0 && s_rng(&st) % 100 < 12)
            nvis = mark[--depth];
        s->parent[u] = depth > 0 ? stack[depth - 1] : -1;
        int r = (int)(s_rng(&st) % 100);
        if (u < n - 1 && (nvis == 0 || r < decl_pct)) {
            s->decl[u] = 1;
            vis[nvis++] = u;
        } else {
            for (int k = 0; k < 1 + (int)(s_rng(&st) % 2); k++)
                s->uses[u][k] = vis[nvis - 1 - (int)(s_rng(&st) % (uint64_t)(nvis < 6 ? nvis : 6))];
            s->need[u] = u == n - 1 || (int)(s_rng(&st) % 1000) < need_pct * 10;
        }
        if (u < n - 2 && depth < 3 && s_rng(&st) % 100 < 10) {
            mark[depth] = nvis;
            stack[depth++] = u;
        }
    }
    free(vis);
    s->judge = s_synth;
}

/* ---- the cache and the counts ---- */

typedef struct {
    uint64_t *keys; /* two words per entry, 0/0 = empty */
    wh_verdict_t *v;
    size_t cap, len;
    long candidates, built;
} cache_t;

static void s_hash(const uint8_t *rem, int n, uint64_t out[2])
{
    uint64_t a = 1469598103934665603ull, b = 0x84222325cbf29ce4ull;
    for (int i = 0; i < n; i++) {
        a = (a ^ rem[i]) * 1099511628211ull;
        b = (b ^ (uint64_t)(rem[i] + i)) * 0x100000001b3ull + 0x9e37;
    }
    out[0] = a | 1;
    out[1] = b;
}

static void s_cache_grow(cache_t *c);

static wh_verdict_t *s_cache_slot(cache_t *c, const uint64_t h[2], int *fresh)
{
    if (2 * (c->len + 1) > c->cap)
        s_cache_grow(c);
    size_t i = h[0] & (c->cap - 1);
    for (;; i = (i + 1) & (c->cap - 1)) {
        uint64_t *k = c->keys + 2 * i;
        if (k[0] == 0) {
            k[0] = h[0];
            k[1] = h[1];
            c->len++;
            *fresh = 1;
            return &c->v[i];
        }
        if (k[0] == h[0] && k[1] == h[1]) {
            *fresh = 0;
            return &c->v[i];
        }
    }
}

static void s_cache_grow(cache_t *c)
{
    cache_t old = *c;
    c->cap = old.cap ? 2 * old.cap : 1024;
    c->keys = calloc(2 * c->cap, sizeof *c->keys);
    c->v = calloc(c->cap, sizeof *c->v);
    if (!c->keys || !c->v) {
        fprintf(stderr, "whittle-bench-walk: out of memory\n");
        exit(1);
    }
    c->len = 0;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.keys[2 * i] == 0)
            continue;
        int fresh;
        *s_cache_slot(c, old.keys + 2 * i, &fresh) = old.v[i];
    }
    free(old.keys);
    free(old.v);
}

/* The verdict the cache holds for rem, if any. */
static int s_cache_peek(const cache_t *c, const uint8_t *rem, int n, wh_verdict_t *v)
{
    if (!c->cap)
        return 0;
    uint64_t h[2];
    s_hash(rem, n, h);
    for (size_t i = h[0] & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        const uint64_t *k = c->keys + 2 * i;
        if (k[0] == 0)
            return 0;
        if (k[0] == h[0] && k[1] == h[1]) {
            *v = c->v[i];
            return 1;
        }
    }
}

/* Judges a candidate through the cache; counts it. */
static wh_verdict_t s_judge(cache_t *c, const shape_t *s, const uint8_t *rem)
{
    uint64_t h[2];
    s_hash(rem, s->n, h);
    int fresh;
    wh_verdict_t *v = s_cache_slot(c, h, &fresh);
    c->candidates++;
    if (fresh) {
        *v = s->judge(s, rem);
        c->built++;
    }
    return *v;
}

/* ---- the walks ---- */

typedef struct {
    long candidates, built, rounds;
    long units; /* chain: time units (one build's latency each) */
    int kept;
    int ok; /* final Preserved (and 1-tree-minimal where promised) */
    double secs;
} result_t;

static void s_close(const shape_t *s, uint8_t *rem)
{
    for (int u = 0; u < s->n; u++)
        if (s->parent[u] >= 0 && rem[s->parent[u]])
            rem[u] = 1;
}

static int s_depth(const shape_t *s, int u)
{
    int d = 0;
    for (; s->parent[u] >= 0; u = s->parent[u])
        d++;
    return d;
}

/* Is the final configuration 1-tree-minimal: no single alive unit (with its
 * subtree) can go? */
static int s_minimal(const shape_t *s, const uint8_t *fin)
{
    uint8_t *c = malloc((size_t)s->n);
    int ok = 1;
    for (int u = 0; u < s->n && ok; u++) {
        if (fin[u])
            continue;
        memcpy(c, fin, (size_t)s->n);
        c[u] = 1;
        s_close(s, c);
        ok = s->judge(s, c) != WH_V_PRESERVED;
    }
    free(c);
    return ok;
}

static void s_finish(result_t *r, const shape_t *s, const uint8_t *fin, cache_t *c, int minimal)
{
    r->kept = 0;
    for (int u = 0; u < s->n; u++)
        r->kept += !fin[u];
    r->ok = s->judge(s, fin) == WH_V_PRESERVED && (!minimal || s_minimal(s, fin));
    r->candidates = c->candidates;
    r->built = c->built;
    free(c->keys);
    free(c->v);
}

/* The engine, sequentially: each round's candidates in order up to the
 * first Preserved one. */
static result_t s_run_engine(const shape_t *s, wh_walk_t walk)
{
    result_t r = {0};
    cache_t c = {0};
    clock_t t0 = clock();
    wh_engine_t *e = wh_engine_new(s->n, s->parent, WH_ALGO_HDD, walk);
    if (!e) {
        fprintf(stderr, "whittle-bench-walk: engine: out of memory\n");
        exit(1);
    }
    const wh_round_t *rd;
    while ((rd = wh_engine_round(e)) != NULL) {
        int w = -1;
        for (int i = 0; i < rd->n_cand && w < 0; i++)
            if (s_judge(&c, s, rd->removed[i]) == WH_V_PRESERVED)
                w = i;
        if (wh_engine_resolve(e, w) != 0) {
            fprintf(stderr, "whittle-bench-walk: engine: resolve failed\n");
            exit(1);
        }
    }
    r.rounds = wh_engine_rounds(e);
    s_finish(&r, s, wh_engine_removed(e), &c, 1);
    r.secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    wh_engine_destroy(&e);
    return r;
}


/* The default walk judged through chains (chain.h) by `slots` slots, each
 * build taking one unit of time: a chain's distinct unknown steps go out
 * in order, `slots` at a time, and every verdict of a batch goes to the
 * memo; a chain is decided as soon as its verdicts allow. Counts the
 * builds (distinct configurations judged, the extras too), the time units
 * (the critical path in builds' latencies) and the chains that built
 * something. With 1 slot it judges exactly the sequential walk.
 *
 * perfect: every chain is planned with the true verdict of each of its
 * steps (the memo told each one before the chain is used, uncounted), so
 * no chain surprises: the time a perfect prior would give, the bound on
 * what better expectations can gain. */
static wh_chain_t *s_perfect_chain(const shape_t *s, const wh_engine_t *e, int start,
                                   wh_memo_t *memo)
{
    for (int tries = 0; tries < 4 * WH_ENGINE_WINDOW; tries++) {
        wh_chain_t *ch = wh_chain_new(e, start, memo, NULL, WH_ENGINE_WINDOW);
        int k = ch ? wh_chain_steps(ch) : 0, wrong = 0;
        for (int i = 0; i < k && !wrong; i++) {
            const wh_step_t *st = wh_chain_step(ch, i);
            wh_verdict_t t = s->judge(s, st->removed);
            if ((t == WH_V_PRESERVED) != (st->expect != 0)) {
                wh_memo_put(memo, st->exact, st->delta, t);
                wrong = 1;
            }
        }
        if (!wrong || !ch)
            return ch;
        wh_chain_destroy(&ch);
    }
    return wh_chain_new(e, start, memo, NULL, WH_ENGINE_WINDOW);
}

static result_t s_run_chain(const shape_t *s, int slots, int perfect)
{
    result_t r = {0};
    cache_t c = {0};
    clock_t t0 = clock();
    wh_engine_t *e = wh_engine_new(s->n, s->parent, WH_ALGO_HDD, WH_WALK_CHUNKED);
    wh_memo_t *memo = wh_memo_new();
    if (!e || !memo) {
        fprintf(stderr, "whittle-bench-walk: chain: out of memory\n");
        exit(1);
    }
    int start = 0;
    long units = 0;
    while (wh_engine_round(e) != NULL) {
        wh_chain_t *ch = perfect ? s_perfect_chain(s, e, start, memo)
                                 : wh_chain_new(e, start, memo, NULL, WH_ENGINE_WINDOW);
        if (!ch) {
            fprintf(stderr, "whittle-bench-walk: chain: out of memory\n");
            exit(1);
        }
        int k = wh_chain_steps(ch), built = 0;
        wh_verdict_t *v = calloc((size_t)k, sizeof *v);
        wh_chain_plan_t pl;
        while (!wh_chain_decide(ch, v, &pl)) {
            /* Answer what the cache knows; send the next `slots` unknown
             * steps out together (they come back together). */
            int sent = 0;
            for (int i = 0; i < k; i++) {
                if (v[i] != WH_V_NONE)
                    continue;
                const wh_step_t *st = wh_chain_step(ch, i);
                if (s_cache_peek(&c, st->removed, s->n, &v[i]) || sent == slots)
                    continue;
                v[i] = s_judge(&c, s, st->removed);
                c.candidates--; /* counted below, once per step that counts */
                wh_memo_put(memo, st->exact, st->delta, v[i]);
                sent++;
            }
            units += sent > 0;
            built |= sent > 0;
        }
        c.candidates += pl.n_steps;
        int seg = 0;
        for (int i = 0; i < pl.n_steps; i++) {
            const wh_step_t *st = wh_chain_step(ch, i);
            int last = i + 1 == pl.n_steps || wh_chain_step(ch, i + 1)->seg != st->seg;
            if (last && st->seg < pl.n_res && wh_engine_resolve(e, wh_chain_winner(ch, seg++)) != 0) {
                fprintf(stderr, "whittle-bench-walk: chain: resolve failed\n");
                exit(1);
            }
        }
        start = pl.next_start;
        r.rounds += built;
        free(v);
        wh_chain_destroy(&ch);
    }
    r.units = units;
    s_finish(&r, s, wh_engine_removed(e), &c, 1);
    r.secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    wh_memo_destroy(&memo);
    wh_engine_destroy(&e);
    return r;
}

typedef struct {
    const shape_t *s;
    cache_t *c;
    uint8_t *cur; /* the accepted configuration */
    uint8_t *tmp;
} walker_t;

/* Tries the configuration keeping exactly keep[0..k) of the level lvl[0..m)
 * (the rest of the tree as it is); accepts it when Preserved. */
static int s_try_keep(walker_t *w, const int *lvl, int m, const int *keep, int k)
{
    const shape_t *s = w->s;
    memcpy(w->tmp, w->cur, (size_t)s->n);
    for (int i = 0, j = 0; i < m; i++) {
        if (j < k && keep[j] == lvl[i])
            j++;
        else
            w->tmp[lvl[i]] = 1;
    }
    s_close(s, w->tmp);
    if (s_judge(w->c, s, w->tmp) != WH_V_PRESERVED)
        return 0;
    memcpy(w->cur, w->tmp, (size_t)s->n);
    return 1;
}

/* picire's ZellerSplit: n pieces of cfg, the smaller ones first. */
static int s_zeller(int len, int n, int *start)
{
    start[0] = 0;
    for (int i = 0; i < n; i++)
        start[i + 1] = start[i] + (len - start[i]) / (n - i);
    return n;
}

/* picire's DD.__call__ with the default iterator (subsets, then
 * complements from complement_offset), one iteration (dd_star off). The
 * partition survives a complement removal (the removed piece drops out). */
static void s_picire_ddmin(walker_t *w, int *cfg, int len)
{
    int *start = malloc((size_t)(len + 2) * sizeof *start);
    int *sub = malloc((size_t)(len + 1) * sizeof *sub);
    int n = 1, off = 0;
    start[0] = 0;
    start[1] = len;
    while (len >= 2) {
        if (n < 2)
            n = s_zeller(len, len < 2 ? len : 2, start);
        int found = 0;
        for (int i = 0; i < n && !found; i++) {
            int l = start[i + 1] - start[i];
            if (s_try_keep(w, cfg, len, cfg + start[i], l)) {
                memmove(cfg, cfg + start[i], (size_t)l * sizeof *cfg);
                len = l;
                n = 1;
                start[0] = 0;
                start[1] = len;
                off = 0;
                found = 1;
            }
        }
        for (int j = 0; j < n && !found; j++) {
            int i = (j + off) % n, k = 0;
            for (int x = 0; x < len; x++)
                if (x < start[i] || x >= start[i + 1])
                    sub[k++] = cfg[x];
            if (s_try_keep(w, cfg, len, sub, k)) {
                int l = start[i + 1] - start[i];
                memcpy(cfg, sub, (size_t)k * sizeof *cfg);
                len = k;
                for (int p = i + 1; p <= n; p++)
                    start[p - 1] = start[p] - l;
                n--;
                off = i;
                found = 1;
            }
        }
        if (found)
            continue;
        if (n >= len)
            break;
        /* Increase granularity: split the current pieces' concatenation
         * into min(len, 2n) pieces; scale the offset. */
        int nn = 2 * n < len ? 2 * n : len;
        off = off * nn / n;
        n = s_zeller(len, nn, start);
    }
    free(start);
    free(sub);
}

/* The alive units of level d, in source order. */
static int s_level(const shape_t *s, const uint8_t *cur, int d, int *out)
{
    int m = 0;
    for (int u = 0; u < s->n; u++)
        if (!cur[u] && s_depth(s, u) == d)
            out[m++] = u;
    return m;
}

static result_t s_run_picire(const shape_t *s)
{
    result_t r = {0};
    cache_t c = {0};
    clock_t t0 = clock();
    walker_t w = {s, &c, calloc((size_t)s->n, 1), malloc((size_t)s->n)};
    int *lvl = malloc((size_t)s->n * sizeof *lvl);
    int *cfg = malloc((size_t)s->n * sizeof *cfg);
    for (int d = 0;; d++) {
        int m = s_level(s, w.cur, d, lvl);
        if (m == 0)
            break;
        memcpy(cfg, lvl, (size_t)m * sizeof *cfg);
        s_picire_ddmin(&w, cfg, m);
    }
    s_finish(&r, s, w.cur, &c, 0);
    r.secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(lvl);
    free(cfg);
    free(w.cur);
    free(w.tmp);
    return r;
}

/* HDD* with one-at-a-time passes per level until a pass removes nothing;
 * sweeps until a sweep removes nothing. */
static result_t s_run_one_by_one(const shape_t *s)
{
    result_t r = {0};
    cache_t c = {0};
    clock_t t0 = clock();
    walker_t w = {s, &c, calloc((size_t)s->n, 1), malloc((size_t)s->n)};
    int *lvl = malloc((size_t)s->n * sizeof *lvl);
    int *keep = malloc((size_t)s->n * sizeof *keep);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int d = 0;; d++) {
            int m = s_level(s, w.cur, d, lvl);
            if (m == 0)
                break;
            for (int again = 1; again;) {
                again = 0;
                for (int i = 0; i < m; i++) {
                    int k = 0;
                    for (int j = 0; j < m; j++)
                        if (j != i)
                            keep[k++] = lvl[j];
                    if (s_try_keep(&w, lvl, m, keep, k)) {
                        memmove(lvl + i, lvl + i + 1, (size_t)(m - i - 1) * sizeof *lvl);
                        m--;
                        i--;
                        again = changed = 1;
                    }
                }
            }
        }
    }
    s_finish(&r, s, w.cur, &c, 1);
    r.secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(lvl);
    free(keep);
    free(w.cur);
    free(w.tmp);
    return r;
}

/* ---- the table ---- */

static int s_row(const shape_t *s, int skip_classic)
{
    result_t cl = {0}, ch, pc, ob;
    if (!skip_classic)
        cl = s_run_engine(s, WH_WALK_CLASSIC);
    ch = s_run_engine(s, WH_WALK_CHUNKED);
    pc = s_run_picire(s);
    ob = s_run_one_by_one(s);
    char cls[48];
    if (skip_classic)
        snprintf(cls, sizeof cls, "%17s", "(--full)");
    else
        snprintf(cls, sizeof cls, "%8ld/%8ld", cl.built, cl.candidates);
    printf("%-9s %5d | %s %8ld/%8ld %8ld/%8ld %8ld/%8ld | %5d %5d %5d %5d | %6.2f %6.2f %6.2f\n",
           s->name, s->n, cls, ch.built, ch.candidates, pc.built, pc.candidates, ob.built,
           ob.candidates, skip_classic ? -1 : cl.kept, ch.kept, pc.kept, ob.kept,
           ch.built ? (double)pc.built / (double)ch.built : 0.0,
           ch.built ? (double)ob.built / (double)ch.built : 0.0,
           ch.built && !skip_classic ? (double)cl.built / (double)ch.built : 0.0);
    int bad = (!skip_classic && !cl.ok) || !ch.ok || !pc.ok || !ob.ok;
    if (bad)
        printf("  NOT Preserved or not 1-tree-minimal: classic %d chunked %d picire %d one-by-1 %d\n",
               cl.ok, ch.ok, pc.ok, ob.ok);
    /* The default walk through chains: the same answer and, at 1 slot, the
     * same builds; the time in builds' latencies shrinks with the slots. */
    static const int slots[] = {1, 8, 32};
    printf("%-9s %5s   chained: rounds %ld; time (builds) at 1/8/32 slots:", "", "", ch.rounds);
    for (int k = 0; k < 3; k++) {
        result_t cr = s_run_chain(s, slots[k], 0);
        printf(" %ld (%ld)%s", cr.units, cr.built, k < 2 ? " /" : "");
        int same = cr.ok && cr.kept == ch.kept && (slots[k] > 1 || cr.built == ch.built);
        if (!same)
            printf(" [NOT the chunked walk's answer%s]", slots[k] == 1 ? " or builds" : "");
        bad |= !same;
    }
    printf("\n%-9s %5s   with perfect expectations, time at 8/32 slots:", "", "");
    for (int k = 1; k < 3; k++) {
        result_t cr = s_run_chain(s, slots[k], 1);
        printf(" %ld (%ld)%s", cr.units, cr.built, k < 2 ? " /" : "");
        if (!cr.ok || cr.kept != ch.kept)
            printf(" [NOT the chunked walk's answer]");
        bad |= !cr.ok || cr.kept != ch.kept;
    }
    printf("\n");
    fflush(stdout);
    return bad;
}

static void s_shape_free(shape_t *s)
{
    free(s->parent);
    free(s->decl);
    free(s->need);
    free(s->uses);
}

int main(int argc, char **argv)
{
    int quick = 0, full = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--full"))
            full = 1;
        else {
            fprintf(stderr, "usage: whittle-bench-walk [--quick | --full]\n");
            return 2;
        }
    }
    printf("builds/candidates per walk (a build = a distinct configuration judged; cache on)\n");
    printf("%-9s %5s | %17s %17s %17s %17s | %5s %5s %5s %5s | %6s %6s %6s\n", "shape", "units",
           "classic", "chunked", "picire*", "one-by-1", "k.cl", "k.ch", "k.pc", "k.1b",
           "pc/ch", "1b/ch", "cl/ch");
    int bad = 0;
    shape_t s;

    memset(&s, 0, sizeof s);
    s_shape_alloc(&s, 5);
    s.name = "headers";
    s.judge = s_headers;
    bad |= s_row(&s, 0);
    s_shape_free(&s);

    memset(&s, 0, sizeof s);
    s_shape_alloc(&s, 7);
    s.name = "cart";
    s.judge = s_cart;
    s.parent[4] = s.parent[5] = 3;
    bad |= s_row(&s, 0);
    s_shape_free(&s);

    static const char *const names[] = {"flags A", "flags B", "flags C"};
    for (int k = 0; k < 3; k++) {
        memset(&s, 0, sizeof s);
        s_shape_alloc(&s, 8);
        s.name = names[k];
        s.flags_case = 'A' + k;
        s.judge = s_flags_small;
        bad |= s_row(&s, 0);
        s_shape_free(&s);
    }

    memset(&s, 0, sizeof s);
    s_shape_alloc(&s, 102);
    s.name = "flags D";
    s.judge = s_flags_d;
    bad |= s_row(&s, 0);
    s_shape_free(&s);

    static const int sizes[] = {100, 1000, 5000};
    for (int k = 0; k < (quick ? 2 : 3); k++) {
        memset(&s, 0, sizeof s);
        char name[16];
        snprintf(name, sizeof name, "synth %d", sizes[k]);
        s_synth_gen(&s, sizes[k], 0x5eed + (uint64_t)k, 33, 5);
        s.name = name;
        bad |= s_row(&s, sizes[k] >= 5000 && !full);
        s_shape_free(&s);
    }
    for (int k = 0; k < (quick ? 2 : 3); k++) {
        memset(&s, 0, sizeof s);
        char name[16];
        snprintf(name, sizeof name, "sparse %d", sizes[k]);
        s_synth_gen(&s, sizes[k], 0x5a5e + (uint64_t)k, 5, 1);
        s.name = name;
        bad |= s_row(&s, sizes[k] >= 5000 && !full);
        s_shape_free(&s);
    }
    printf("k.* = statements kept; pc/ch, 1b/ch, cl/ch = builds of that walk / builds of chunked\n");
    printf("picire* = a reimplementation of picire's default ddmin, not picire itself\n");
    printf("chained = the chunked walk through chains (chain.h); time = builds' latencies on the\n"
           "critical path, every build taking one; the same answer and, at 1 slot, the same builds\n");
    return bad;
}
