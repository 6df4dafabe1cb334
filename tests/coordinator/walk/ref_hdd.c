/*
 * ref_hdd — the sequential recursive reference (see ref_hdd.h). Aborts on
 * allocation failure: it is test scaffolding, and a partial trace would only
 * produce confusing mismatches.
 */
#include "ref_hdd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    const int *parent;
    ref_oracle_fn fn;
    void *ud;
    uint8_t *removed;   /* the current configuration */
    const int *lvl;     /* the units of the level being reduced */
    int m;
    ref_trace_t *tr;
} ref_ctx_t;

static void *s_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "ref_hdd: out of memory\n");
        abort();
    }
    return p;
}

static void *s_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "ref_hdd: out of memory\n");
        abort();
    }
    return p;
}

static uint8_t *s_dup(const uint8_t *a, int n)
{
    uint8_t *b = s_xmalloc((size_t)n);
    if (n)
        memcpy(b, a, (size_t)n);
    return b;
}

static int s_depth(const ref_ctx_t *x, int u)
{
    int d = 0;
    while (x->parent[u] >= 0) {
        u = x->parent[u];
        d++;
    }
    return d;
}

/* Is u removed in rem, directly or through an ancestor? */
static int s_gone(const ref_ctx_t *x, const uint8_t *rem, int u)
{
    for (; u >= 0; u = x->parent[u])
        if (rem[u])
            return 1;
    return 0;
}

static int s_in(const int *a, int k, int u)
{
    for (int i = 0; i < k; i++)
        if (a[i] == u)
            return 1;
    return 0;
}

/* The candidate keeping exactly `keep` of the level, the other levels as
 * they are now. Returns a fresh removed set. */
static uint8_t *s_candidate(const ref_ctx_t *x, const int *keep, int k)
{
    uint8_t *c = s_dup(x->removed, x->n);
    for (int i = 0; i < x->m; i++)
        if (!s_in(keep, k, x->lvl[i]))
            c[x->lvl[i]] = 1;
    uint8_t *closed = s_xmalloc((size_t)x->n);
    for (int u = 0; u < x->n; u++)
        closed[u] = (uint8_t)s_gone(x, c, u);
    free(c);
    return closed;
}

/* test(): judges the candidate, records it; accepts it when Preserved. */
static int s_test(ref_ctx_t *x, const int *keep, int k)
{
    uint8_t *c = s_candidate(x, keep, k);
    wh_verdict_t v = x->fn(c, x->n, x->ud);
    ref_trace_t *t = x->tr;
    t->judged = s_xrealloc(t->judged, (size_t)(t->n_judged + 1) * sizeof *t->judged);
    t->verdicts = s_xrealloc(t->verdicts, (size_t)(t->n_judged + 1) * sizeof *t->verdicts);
    t->judged[t->n_judged] = s_dup(c, x->n);
    t->verdicts[t->n_judged++] = v;
    if (v == WH_V_PRESERVED) {
        memcpy(x->removed, c, (size_t)x->n);
        t->acc = s_xrealloc(t->acc, (size_t)(t->n_acc + 1) * sizeof *t->acc);
        t->acc[t->n_acc++] = c;
        return 1;
    }
    free(c);
    return 0;
}

/* Algorithm 1, literally. c has k units in source order; returns the size of
 * the result, which is left in c. */
static int s_ddmin(ref_ctx_t *x, int *c, int k, int n)
{
    if (k == 1)
        return k;
    int *sub = s_xmalloc((size_t)k * sizeof *sub);
    /* Even split: sizes k/n or k/n + 1, the larger pieces first. */
    int *start = s_xmalloc((size_t)(n + 1) * sizeof *start);
    start[0] = 0;
    for (int i = 0; i < n; i++)
        start[i + 1] = start[i] + k / n + (i < k % n ? 1 : 0);
    for (int i = 0; i < n; i++) {
        int len = start[i + 1] - start[i];
        memcpy(sub, c + start[i], (size_t)len * sizeof *sub);
        if (s_test(x, sub, len)) {
            memcpy(c, sub, (size_t)len * sizeof *c);
            free(sub);
            free(start);
            return s_ddmin(x, c, len, 2);
        }
    }
    for (int i = 0; i < n; i++) {
        int len = 0;
        for (int j = 0; j < k; j++)
            if (j < start[i] || j >= start[i + 1])
                sub[len++] = c[j];
        if (s_test(x, sub, len)) {
            memcpy(c, sub, (size_t)len * sizeof *c);
            free(sub);
            free(start);
            return s_ddmin(x, c, len, n - 1 > 2 ? n - 1 : 2);
        }
    }
    free(sub);
    free(start);
    if (n < k)
        return s_ddmin(x, c, k, 2 * n < k ? 2 * n : k);
    return k;
}

/* Tries removing exactly the units listed in drop (alive units of the
 * level); returns 1 when that was Preserved (and is now accepted). */
static int s_try_drop(ref_ctx_t *x, const int *alive, int na, const int *drop, int nd)
{
    int *keep = s_xmalloc((size_t)(na > 0 ? na : 1) * sizeof *keep);
    int k = 0;
    for (int i = 0; i < na; i++)
        if (!s_in(drop, nd, alive[i]))
            keep[k++] = alive[i];
    int ok = s_test(x, keep, k);
    free(keep);
    return ok;
}

/* The alive units of the level, in source order; returns how many. */
static int s_alive_of(const ref_ctx_t *x, int *out)
{
    int k = 0;
    for (int i = 0; i < x->m; i++)
        if (!s_gone(x, x->removed, x->lvl[i]))
            out[k++] = x->lvl[i];
    return k;
}

/* The chunked walk of one level, written as the plain loops it describes. */
static void s_chunked(ref_ctx_t *x, int level, int first_visit)
{
    int *c = s_xmalloc((size_t)x->m * sizeof *c);
    int nc = s_alive_of(x, c);
    if (first_visit && nc > 1) {
        /* The prune: the whole level, except at the top. */
        if (level > 0 && s_try_drop(x, c, nc, c, nc)) {
            free(c);
            return;
        }
        for (int size = (nc + 1) / 2; size > 1; size = (size + 1) / 2) {
            int total = s_alive_of(x, c);
            if (total <= size)
                continue;
            /* Pieces of the pass, smaller ones first, tried from the last. */
            int pieces = (total + size - 1) / size;
            int *from = s_xmalloc((size_t)(pieces + 1) * sizeof *from);
            from[0] = 0;
            for (int p = 0; p < pieces; p++)
                from[p + 1] = from[p] + total / pieces + (p >= pieces - total % pieces ? 1 : 0);
            int *snap = s_xmalloc((size_t)total * sizeof *snap);
            memcpy(snap, c, (size_t)total * sizeof *snap);
            int removed = 0;
            for (int p = pieces - 1; p >= 0; p--) {
                int now = s_alive_of(x, c);
                int len = from[p + 1] - from[p];
                if (level == 0 && now == len)
                    break; /* it would empty the top level */
                removed += s_try_drop(x, c, now, snap + from[p], len);
            }
            free(snap);
            free(from);
            if (!removed && size <= 32)
                break; /* small chunks and none went: one at a time */
        }
        nc = s_alive_of(x, c);
    }
    /* One at a time from the end, cyclically, until every alive unit's
     * removal was judged not Preserved since the last removal. */
    int i = nc - 1, clean = 0;
    while (nc > 0 && clean < nc) {
        int u = c[i];
        if (s_try_drop(x, c, nc, &u, 1)) {
            memmove(c + i, c + i + 1, (size_t)(nc - i - 1) * sizeof *c);
            nc--;
            clean = 0;
        } else {
            clean++;
        }
        i--;
        if (i < 0)
            i = nc - 1;
    }
    free(c);
}

/* The gold-standard walk of one level: each unit of the level, top to
 * bottom, removed alone against the configuration as it is then. */
static void s_linear(ref_ctx_t *x)
{
    for (int i = 0; i < x->m; i++) {
        int u = x->lvl[i];
        s_try_drop(x, x->lvl, x->m, &u, 1);
    }
}

int ref_hdd(int n, const int *parent, wh_algo_t algo, wh_walk_t walk, ref_oracle_fn fn,
            void *ud, ref_trace_t *out)
{
    int chunked = algo == WH_ALGO_HDD && walk == WH_WALK_CHUNKED;
    /* Per level: the number of accepts when it was last left 1-minimal. */
    int *clean_at = s_xmalloc((size_t)n * sizeof *clean_at);
    for (int i = 0; i < n; i++)
        clean_at[i] = -1;
    memset(out, 0, sizeof *out);
    out->n = n;
    ref_ctx_t x = {n, parent, fn, ud, s_xmalloc((size_t)n), NULL, 0, out};
    memset(x.removed, 0, (size_t)n);
    int *lvl = s_xmalloc((size_t)n * sizeof *lvl);
    int *c = s_xmalloc((size_t)n * sizeof *c);
    x.lvl = lvl;
    for (;;) {
        int alive0 = 0;
        for (int u = 0; u < n; u++)
            if (s_depth(&x, u) == 0 && !s_gone(&x, x.removed, u))
                alive0++;
        if (!alive0)
            break;
        out->sweeps++;
        int before = out->n_acc;
        for (int level = 0; algo != WH_ALGO_DD || level == 0; level++) {
            int m = 0;
            for (int u = 0; u < n; u++)
                if (s_depth(&x, u) == level && !s_gone(&x, x.removed, u))
                    lvl[m++] = u;
            if (m == 0)
                break;
            x.m = m;
            if (algo == WH_ALGO_LINEAR) {
                s_linear(&x);
                continue;
            }
            if (chunked) {
                if (clean_at[level] != out->n_acc)
                    s_chunked(&x, level, clean_at[level] < 0);
                clean_at[level] = out->n_acc;
                continue;
            }
            if (algo == WH_ALGO_HDD) {
                if (s_test(&x, NULL, 0))
                    continue; /* the whole level went */
                if (m == 1)
                    continue;
            }
            memcpy(c, lvl, (size_t)m * sizeof *c);
            s_ddmin(&x, c, m, 2); /* accepts were applied as they happened */
        }
        if (out->n_acc == before)
            break;
    }
    out->final = x.removed;
    free(clean_at);
    free(lvl);
    free(c);
    return 0;
}

void ref_trace_free(ref_trace_t *t)
{
    for (int i = 0; i < t->n_acc; i++)
        free(t->acc[i]);
    for (int i = 0; i < t->n_judged; i++)
        free(t->judged[i]);
    free(t->acc);
    free(t->judged);
    free(t->verdicts);
    free(t->final);
    memset(t, 0, sizeof *t);
}
