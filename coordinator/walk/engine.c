/*
 * engine — ddmin and HDD* as a round machine (see engine.h).
 *
 * The recursion of Algorithm 1 is flattened into three pieces of state: the
 * level being reduced (the alive units at one depth, in source order), the
 * current ddmin configuration c (a subset of that level) and the granularity
 * n. Each call to wh_engine_resolve() performs exactly one step of Algorithm 1
 * (a recursive call, a granularity increase, or a return) and then walks the
 * HDD* loop forward until the next round exists or the run is finished.
 *
 * The accepted configuration is updated on every accept, so the engine's
 * removed[] always equals the last accepted candidate: the sequence of
 * accepted configurations is observable by the caller after each resolve.
 */
#include "engine.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The chunk size at or below which a fruitless pass ends the passes. */
#define S_CHUNK_STOP 32





typedef enum {
    S_PRUNE = 0, /* the current round is the whole-level prune */
    S_DDMIN,     /* the current round is a ddmin round over c at granularity gran */
    S_CHUNKS,    /* chunked: a pass of chunk removals over c */
    S_SINGLE,    /* chunked: the one-at-a-time stage over c */
    S_LINEAR,    /* linear: the pass over c from cursor on */
    S_DONE,
} s_phase_t;

/* The forest's shape, which never changes: shared by an engine and its
 * copies (the trail keeps one per accepted step). */
typedef struct {
    atomic_int refs;
    int *parent;
    int *depth;
} s_shape_t;

/* A level's units (lvl), shared by the copies made while the level runs
 * and copied when one of them starts another level. */
typedef struct {
    atomic_int refs;
    int v[];
} s_ints_t;

struct wh_engine {
    int n;
    s_shape_t *shape;
    s_ints_t *lvlbuf; /* lvl's (lvl == lvlbuf->v) */
    int *parent; /* shape's */
    int *depth;  /* shape's */
    int nlev;    /* entries of clean_at: the deepest level + 2 */
    wh_algo_t algo;
    wh_walk_t walk;

    uint8_t *removed; /* the accepted configuration */
    int sweeps, rounds, accepts;
    int sweep_accepts; /* accepts in the current sweep: 0 ends the run */

    int level;
    int *lvl; /* the level's alive units when it started, source order */
    int m;
    int *c; /* the current ddmin configuration, source order */
    int nc;
    int gran;
    s_phase_t phase;
    /* Chunked walk. A pass splits c (fixed while the pass runs) into pass_k
     * pieces of at most chunk units; pass_next is the next piece to try and
     * pass_gone counts the units removed by the pass. The one-at-a-time
     * stage keeps c compact (alive units only): cursor is the next index to
     * try (the walk goes backwards), clean counts the removals judged not Preserved since the last
     * accept. clean_at[level] is `accepts` when the level was last left
     * 1-minimal, -1 before its first visit. */
    int chunk, pass_k, pass_next, pass_gone;
    int cursor, clean;
    int *clean_at;
    int err; /* sticky: an allocation failed while building a round */

    wh_round_t round;
    uint8_t *round_buf; /* backing store of round.removed rows */
    int cap_cand;
    uint8_t *mark; /* scratch: membership of the candidate's kept set */
    int plan;      /* wh_engine_clone_plan: rounds without removed rows */
    int unbuilt;   /* wh_engine_clone_stored: the round is built when asked for */
    int trimmed;   /* ... and c is cbits (which of lvl's m units it holds), mark is
                    * NULL, until then */
    uint8_t *cbits;
};

/* Marks descendants of removed units as removed. Parents precede children
 * (checked in wh_engine_new), so one forward pass closes the set. */
static void s_close(const wh_engine_t *e, uint8_t *rem)
{
    for (int u = 0; u < e->n; u++)
        if (e->parent[u] >= 0 && rem[e->parent[u]])
            rem[u] = 1;
}

/* The even split: piece i of k items into n pieces starts at this offset.
 * Sizes differ by at most one, the larger pieces first. */
static int s_piece_start(int k, int n, int i)
{
    int base = k / n, rem = k % n;
    return i * base + (i < rem ? i : rem);
}

/* The chunked walk's split: the mirror image of the even split, so the
 * smaller pieces come first and the walk, which goes from the end, tries
 * the larger ones first. */
static int s_chunk_start(int k, int n, int i)
{
    return k - s_piece_start(k, n, n - i);
}

static int s_round_reserve(wh_engine_t *e, int n_cand)
{
    if (n_cand <= e->cap_cand)
        return 0;
    size_t row = e->plan ? 0 : e->n > 0 ? (size_t)e->n : 1;
    uint8_t *buf = malloc((size_t)n_cand * row + 1);
    uint8_t **rows = malloc((size_t)n_cand * sizeof *rows);
    int *kept = malloc((size_t)n_cand * sizeof *kept);
    if (!buf || !rows || !kept) {
        free(buf);
        free(rows);
        free(kept);
        return WH_ENOMEM;
    }
    free(e->round_buf);
    free(e->round.removed);
    free(e->round.kept);
    e->round_buf = buf;
    e->round.removed = rows;
    e->round.kept = kept;
    for (int i = 0; i < n_cand; i++)
        rows[i] = e->plan ? NULL : buf + (size_t)i * row;
    e->cap_cand = n_cand;
    return 0;
}

/* Fills candidate slot ci: everything already removed, plus the units of c
 * whose mark is 0, closed under descendants. */
static void s_fill(wh_engine_t *e, int ci, int kept)
{
    e->round.kept[ci] = kept;
    if (e->plan)
        return; /* counts only: the rows are what costs (n bytes each) */
    uint8_t *rem = e->round.removed[ci];
    if (e->n > 0)
        memcpy(rem, e->removed, (size_t)e->n);
    for (int i = 0; i < e->nc; i++)
        if (!e->mark[e->c[i]])
            rem[e->c[i]] = 1;
    s_close(e, rem);
}

/* Builds the classic round of the current phase from c and gran. */
static int s_build_classic(wh_engine_t *e)
{
    int n_cand = e->phase == S_PRUNE ? 1 : 2 * e->gran;
    int rc = s_round_reserve(e, n_cand);
    if (rc < 0)
        return rc;
    wh_round_t *r = &e->round;
    r->n_cand = n_cand;
    if (e->phase == S_PRUNE) {
        r->kind = WH_ROUND_PRUNE;
        r->granularity = 1;
        for (int i = 0; i < e->nc; i++)
            e->mark[e->c[i]] = 0;
        s_fill(e, 0, 0);
        return 0;
    }
    r->kind = WH_ROUND_DDMIN;
    r->granularity = e->gran;
    for (int p = 0; p < e->gran; p++) {
        int lo = s_piece_start(e->nc, e->gran, p);
        int hi = s_piece_start(e->nc, e->gran, p + 1);
        /* Subset p keeps exactly the piece. */
        for (int i = 0; i < e->nc; i++)
            e->mark[e->c[i]] = (uint8_t)(i >= lo && i < hi);
        s_fill(e, p, hi - lo);
        /* Complement p keeps everything but the piece. */
        for (int i = 0; i < e->nc; i++)
            e->mark[e->c[i]] = (uint8_t)!(i >= lo && i < hi);
        s_fill(e, e->gran + p, e->nc - (hi - lo));
    }
    return 0;
}

/* The chunked prune: one candidate removing the whole level. */
static int s_build_prune(wh_engine_t *e)
{
    int rc = s_round_reserve(e, 1);
    if (rc < 0)
        return rc;
    wh_round_t *r = &e->round;
    r->kind = WH_ROUND_PRUNE;
    r->granularity = 1;
    r->n_cand = 1;
    for (int i = 0; i < e->nc; i++)
        e->mark[e->c[i]] = 0;
    s_fill(e, 0, 0);
    return 0;
}

/* A chunk pass round: pieces pass_next.. of c, at most WH_ENGINE_WINDOW. */
static int s_build_chunks(wh_engine_t *e)
{
    int left = e->pass_k - e->pass_next;
    int n_cand = left < WH_ENGINE_WINDOW ? left : WH_ENGINE_WINDOW;
    int rc = s_round_reserve(e, n_cand);
    if (rc < 0)
        return rc;
    wh_round_t *r = &e->round;
    r->kind = WH_ROUND_CHUNKS;
    r->granularity = e->pass_k;
    r->n_cand = n_cand;
    for (int i = 0; i < e->nc; i++)
        e->mark[e->c[i]] = 1;
    for (int ci = 0; ci < n_cand; ci++) {
        int p = e->pass_k - 1 - (e->pass_next + ci);
        int lo = s_chunk_start(e->nc, e->pass_k, p);
        int hi = s_chunk_start(e->nc, e->pass_k, p + 1);
        for (int i = lo; i < hi; i++)
            e->mark[e->c[i]] = 0;
        s_fill(e, ci, e->nc - e->pass_gone - (hi - lo));
        for (int i = lo; i < hi; i++)
            e->mark[e->c[i]] = 1;
    }
    return 0;
}

/* A one-at-a-time round: the units from cursor backwards, cyclically, that
 * have not been judged since the last accept. */
static int s_build_single(wh_engine_t *e)
{
    int left = e->nc - e->clean;
    int n_cand = left < WH_ENGINE_WINDOW ? left : WH_ENGINE_WINDOW;
    int rc = s_round_reserve(e, n_cand);
    if (rc < 0)
        return rc;
    wh_round_t *r = &e->round;
    r->kind = WH_ROUND_SINGLE;
    r->granularity = e->nc;
    r->n_cand = n_cand;
    for (int i = 0; i < e->nc; i++)
        e->mark[e->c[i]] = 1;
    for (int ci = 0; ci < n_cand; ci++) {
        int u = e->c[((e->cursor - ci) % e->nc + e->nc) % e->nc];
        e->mark[u] = 0;
        s_fill(e, ci, e->nc - 1);
        e->mark[u] = 1;
    }
    return 0;
}

/* A linear round: the next units of the pass, from cursor forwards. c keeps
 * the units removed earlier in the pass (they are in removed[] already);
 * pass_gone counts them. */
static int s_build_linear(wh_engine_t *e)
{
    int left = e->nc - e->cursor;
    int n_cand = left < WH_ENGINE_WINDOW ? left : WH_ENGINE_WINDOW;
    int rc = s_round_reserve(e, n_cand);
    if (rc < 0)
        return rc;
    wh_round_t *r = &e->round;
    r->kind = WH_ROUND_LINEAR;
    r->granularity = e->nc;
    r->n_cand = n_cand;
    for (int i = 0; i < e->nc; i++)
        e->mark[e->c[i]] = 1;
    for (int ci = 0; ci < n_cand; ci++) {
        int u = e->c[e->cursor + ci];
        e->mark[u] = 0;
        s_fill(e, ci, e->nc - e->pass_gone - 1);
        e->mark[u] = 1;
    }
    return 0;
}

/* Builds the round of the current phase. */
static int s_build(wh_engine_t *e)
{
    wh_round_t *r = &e->round;
    r->sweep = e->sweeps;
    r->level = e->level;
    r->total = e->m;
    if (e->algo == WH_ALGO_LINEAR)
        return s_build_linear(e);
    if (e->walk == WH_WALK_CLASSIC)
        return s_build_classic(e);
    switch (e->phase) {
    case S_PRUNE:
        return s_build_prune(e);
    case S_CHUNKS:
        return s_build_chunks(e);
    default:
        return s_build_single(e);
    }
}

/* Is unit u alive in the accepted configuration? removed[] is closed under
 * descendants, so its own flag says it. */
static int s_alive(const wh_engine_t *e, int u)
{
    return !e->removed[u];
}

/* Collects the alive units at depth level into lvl; returns how many. */
static int s_collect(wh_engine_t *e, int level)
{
    if (atomic_load(&e->lvlbuf->refs) > 1) {
        /* Another copy still has this level's units. */
        size_t k = e->n > 0 ? (size_t)e->n : 1;
        s_ints_t *b = malloc(sizeof *b + k * sizeof(int));
        if (!b)
            return WH_ENOMEM;
        atomic_init(&b->refs, 1);
        atomic_fetch_sub(&e->lvlbuf->refs, 1);
        e->lvlbuf = b;
        e->lvl = b->v;
    }
    int m = 0;
    for (int u = 0; u < e->n; u++)
        if (e->depth[u] == level && s_alive(e, u))
            e->lvl[m++] = u;
    return m;
}

/* Drops the removed units from c; returns how many are left. */
static int s_compact(wh_engine_t *e)
{
    int k = 0;
    for (int i = 0; i < e->nc; i++)
        if (s_alive(e, e->c[i]))
            e->c[k++] = e->c[i];
    return e->nc = k;
}

/* Starts the one-at-a-time stage over the alive units of c. */
static int s_single_start(wh_engine_t *e)
{
    int k = s_compact(e);
    e->phase = S_SINGLE;
    e->cursor = k - 1;
    e->clean = 0;
    return k == 0 ? 1 : s_build(e);
}

/* Starts the next chunk pass after one of size chunk ended (or after the
 * prune), halving the chunk size; a pass needs at least two pieces. Falls
 * through to the one-at-a-time stage at size 1. */
static int s_chunks_next(wh_engine_t *e)
{
    if (s_compact(e) == 0)
        return 1;
    /* A pass of small chunks that removed nothing ends the passes: the
     * needed units are dense at this scale, and the finer passes would cost
     * more builds than they save. Passes of large chunks are cheap (m/chunk
     * builds each) and pay off on sparse levels, so they go on (bench/walk
     * measured 8 .. 64 and always/never: 32 wins on dense and sparse). */
    if (e->phase == S_CHUNKS && e->pass_gone == 0 && e->chunk <= S_CHUNK_STOP)
        return s_single_start(e);
    for (;;) {
        e->chunk = (e->chunk + 1) / 2;
        if (e->chunk <= 1)
            return s_single_start(e);
        if (e->nc > e->chunk)
            break;
    }
    e->phase = S_CHUNKS;
    e->pass_k = (e->nc + e->chunk - 1) / e->chunk;
    e->pass_next = 0;
    e->pass_gone = 0;
    return s_build(e);
}

/* Does the pass have a piece left to try? At level 0 the last piece is not
 * tried when every other piece went: removing it would empty the level, and
 * the top level holds the failing statement. */
static int s_pass_more(const wh_engine_t *e)
{
    if (e->pass_next >= e->pass_k)
        return 0;
    if (e->level > 0 || e->pass_next < e->pass_k - 1)
        return 1;
    int len = s_chunk_start(e->nc, e->pass_k, 1) - s_chunk_start(e->nc, e->pass_k, 0);
    return e->pass_gone + len < e->nc;
}

/* Starts the chunked walk of the level in c. Returns 0 with a round built,
 * 1 when the level needs no round (skipped, or nothing left), or a negative
 * error. */
static int s_level_chunked(wh_engine_t *e)
{
    int *at = &e->clean_at[e->level];
    if (*at == e->accepts)
        return 1;
    if (*at >= 0 || e->nc == 1)
        return s_single_start(e);
    e->phase = S_PRUNE;
    e->chunk = e->nc;
    /* The top level holds the failing statement: its prune would be a
     * wasted build, so level 0 starts with the first chunk pass. */
    if (e->level == 0)
        return s_chunks_next(e);
    return s_build(e);
}


/* Where the walk goes after a level or sweep ends. */
typedef enum { G_SWEEP, G_LEVEL, G_LEVEL_END, G_SWEEP_END } s_goto_t;

/* Walks the HDD* loop from point g until a round exists (phase PRUNE or
 * DDMIN, round built) or the run is done. */
static int s_walk(wh_engine_t *e, s_goto_t g)
{
    for (;;) {
        switch (g) {
        case G_SWEEP:; /* a declaration follows: C17 wants a statement after a label */
            /* A sweep starts only when something is alive at level 0: an
             * empty forest, or one emptied by a prune, is finished. */
            int alive = s_collect(e, 0);
            if (alive < 0)
                return alive;
            if (alive == 0) {
                e->phase = S_DONE;
                return 0;
            }
            e->sweeps++;
            e->sweep_accepts = 0;
            e->level = 0;
            g = G_LEVEL;
            break;
        case G_LEVEL:
            if (e->algo == WH_ALGO_DD && e->level > 0) {
                g = G_SWEEP_END;
                break;
            }
            e->m = s_collect(e, e->level);
            if (e->m < 0)
                return e->m;
            if (e->m == 0) {
                g = G_SWEEP_END;
                break;
            }
            memcpy(e->c, e->lvl, (size_t)e->m * sizeof *e->c);
            e->nc = e->m;
            if (e->algo == WH_ALGO_LINEAR) {
                e->phase = S_LINEAR;
                e->cursor = 0;
                e->pass_gone = 0;
                return s_build(e);
            }
            if (e->walk == WH_WALK_CHUNKED) {
                int rc = s_level_chunked(e);
                if (rc != 1)
                    return rc;
                g = G_LEVEL_END; /* skipped: 1-minimal at this configuration */
                break;
            }
            if (e->algo == WH_ALGO_HDD) {
                e->phase = S_PRUNE;
                return s_build(e);
            }
            /* DD: no prune; ddmin on a single unit returns it unchanged. */
            if (e->nc == 1) {
                g = G_LEVEL_END;
                break;
            }
            e->phase = S_DDMIN;
            e->gran = 2;
            return s_build(e);
        case G_LEVEL_END:
            /* The removals were applied as they were accepted. A chunked
             * level ends 1-minimal (or empty) at this configuration. */
            if (e->walk == WH_WALK_CHUNKED)
                e->clean_at[e->level] = e->accepts;
            e->level++;
            g = G_LEVEL;
            break;
        case G_SWEEP_END:
            if (e->sweep_accepts == 0) {
                e->phase = S_DONE;
                return 0;
            }
            g = G_SWEEP;
            break;
        }
    }
}

static int s_depths(wh_engine_t *e, const int *parent)
{
    for (int u = 0; u < e->n; u++) {
        int p = parent[u];
        if (p < -1 || p >= u)
            return WH_EINVAL;
        e->parent[u] = p;
        e->depth[u] = p < 0 ? 0 : e->depth[p] + 1;
    }
    return 0;
}

wh_engine_t *wh_engine_new(int n, const int *parent, wh_algo_t algo, wh_walk_t walk)
{
    if (n < 0 || (n > 0 && !parent) ||
        (algo != WH_ALGO_HDD && algo != WH_ALGO_DD && algo != WH_ALGO_LINEAR) ||
        (walk != WH_WALK_CHUNKED && walk != WH_WALK_CLASSIC))
        return NULL;
    wh_engine_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->n = n;
    e->algo = algo;
    /* DD walks classic; linear has its own walk (no chunked state). */
    e->walk = algo == WH_ALGO_HDD ? walk : WH_WALK_CLASSIC;
    size_t k = n > 0 ? (size_t)n : 1;
    e->shape = calloc(1, sizeof *e->shape);
    if (!e->shape)
        goto fail;
    atomic_init(&e->shape->refs, 1);
    e->parent = e->shape->parent = malloc(k * sizeof *e->parent);
    e->depth = e->shape->depth = malloc(k * sizeof *e->depth);
    e->lvlbuf = malloc(sizeof *e->lvlbuf + k * sizeof(int));
    if (!e->lvlbuf)
        goto fail;
    atomic_init(&e->lvlbuf->refs, 1);
    e->lvl = e->lvlbuf->v;
    e->c = malloc(k * sizeof *e->c);
    e->removed = calloc(k, 1);
    e->mark = calloc(k, 1);
    if (!e->parent || !e->depth || !e->lvl || !e->c || !e->removed || !e->mark)
        goto fail;
    if (s_depths(e, parent) < 0)
        goto fail;
    int maxd = 0;
    for (int u = 0; u < n; u++)
        maxd = e->depth[u] > maxd ? e->depth[u] : maxd;
    e->nlev = maxd + 2;
    e->clean_at = malloc((size_t)e->nlev * sizeof *e->clean_at);
    if (!e->clean_at)
        goto fail;
    for (int i = 0; i < e->nlev; i++)
        e->clean_at[i] = -1;
    if (s_walk(e, G_SWEEP) < 0)
        goto fail;
    return e;
fail:
    wh_engine_destroy(&e);
    return NULL;
}

/* 1 when c (of a copy not trimmed) is a subsequence of lvl. */
static int s_c_in_lvl(const wh_engine_t *e)
{
    if (e->trimmed)
        return e->cbits != NULL;
    int j = 0;
    for (int i = 0; i < e->nc; i++) {
        while (j < e->m && e->lvl[j] != e->c[i])
            j++;
        if (j == e->m)
            return 0;
        j++;
    }
    return 1;
}

/* c as bits over lvl (s_c_in_lvl says it can be). */
static void s_c_to_bits(const wh_engine_t *e, uint8_t *bits)
{
    if (e->trimmed) {
        memcpy(bits, e->cbits, e->m > 0 ? ((size_t)e->m + 7) / 8 : 1);
        return;
    }
    int j = 0;
    for (int i = 0; i < e->nc; i++) {
        while (e->lvl[j] != e->c[i])
            j++;
        bits[j / 8] |= (uint8_t)(1u << (j % 8));
        j++;
    }
}

/* c's nc units into out, from c or from its bits. */
static void s_c_copy(const wh_engine_t *e, int *out)
{
    if (!e->cbits) {
        if (e->nc > 0)
            memcpy(out, e->c, (size_t)e->nc * sizeof *out);
        return;
    }
    int n = 0;
    for (int j = 0; j < e->m; j++)
        if (e->cbits[j / 8] >> (j % 8) & 1)
            out[n++] = e->lvl[j];
}

static wh_engine_t *s_clone(const wh_engine_t *src, int plan, int stored)
{
    if (!src)
        return NULL;
    wh_engine_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    *e = *src;
    /* Private copies of the state; the round is rebuilt from it. */
    e->round_buf = NULL;
    e->round = (wh_round_t){0};
    e->cap_cand = 0;
    e->plan = plan;
    e->unbuilt = stored;
    e->trimmed = stored;
    atomic_fetch_add(&e->shape->refs, 1);
    /* Only the level's m units and the configuration's nc are state; mark
     * is scratch every round sets before it reads it. */
    atomic_fetch_add(&e->lvlbuf->refs, 1);
    size_t k = src->n > 0 ? (size_t)src->n : 1;
    /* A kept copy holds c as one bit per unit of lvl when c is a
     * subsequence of lvl, as every walk keeps it (ints otherwise). */
    int bits = stored && s_c_in_lvl(src);
    e->c = NULL;
    e->cbits = NULL;
    e->mark = NULL;
    if (bits)
        e->cbits = calloc(src->m > 0 ? ((size_t)src->m + 7) / 8 : 1, 1);
    else
        e->c = malloc((stored && src->nc > 0 ? (size_t)src->nc : k) * sizeof *e->c);
    e->removed = malloc(k);
    e->mark = stored ? NULL : calloc(k, 1);
    e->clean_at = malloc((size_t)src->nlev * sizeof *e->clean_at);
    if ((!e->c && !e->cbits) || !e->removed || (!stored && !e->mark) || !e->clean_at) {
        wh_engine_destroy(&e);
        return NULL;
    }
    memcpy(e->clean_at, src->clean_at, (size_t)src->nlev * sizeof *e->clean_at);
    if (bits)
        s_c_to_bits(src, e->cbits);
    else if (src->nc > 0)
        s_c_copy(src, e->c);
    memcpy(e->removed, src->removed, k);
    if (!stored && e->phase != S_DONE && !e->err && s_build(e) < 0) {
        wh_engine_destroy(&e);
        return NULL;
    }
    return e;
}

wh_engine_t *wh_engine_clone(const wh_engine_t *src)
{
    return s_clone(src, src ? src->plan : 0, 0);
}

wh_engine_t *wh_engine_clone_plan(const wh_engine_t *src)
{
    return s_clone(src, 1, 0);
}

wh_engine_t *wh_engine_clone_stored(const wh_engine_t *src)
{
    return s_clone(src, src ? src->plan : 0, 1);
}

/* Builds the round of a stored copy, once (0 or the sticky error). */
static int s_built(wh_engine_t *e)
{
    if (e->trimmed) {
        size_t k = e->n > 0 ? (size_t)e->n : 1;
        int *c = malloc(k * sizeof *c);
        e->mark = e->mark ? e->mark : calloc(k, 1);
        if (!c || !e->mark) {
            free(c);
            return e->err = WH_ENOMEM;
        }
        s_c_copy(e, c);
        free(e->c);
        free(e->cbits);
        e->c = c;
        e->cbits = NULL;
        e->trimmed = 0;
    }
    if (e->unbuilt) {
        e->unbuilt = 0;
        if (e->phase != S_DONE && !e->err) {
            int rc = s_build(e);
            if (rc < 0)
                e->err = rc;
        }
    }
    return e->err;
}

void wh_engine_destroy(wh_engine_t **pe)
{
    if (!pe || !*pe)
        return;
    wh_engine_t *e = *pe;
    if (e->shape && atomic_fetch_sub(&e->shape->refs, 1) == 1) {
        free(e->shape->parent);
        free(e->shape->depth);
        free(e->shape);
    }
    if (e->lvlbuf && atomic_fetch_sub(&e->lvlbuf->refs, 1) == 1)
        free(e->lvlbuf);
    free(e->cbits);
    free(e->c);
    free(e->removed);
    free(e->mark);
    free(e->clean_at);
    free(e->round_buf);
    free(e->round.removed);
    free(e->round.kept);
    free(e);
    *pe = NULL;
}

const wh_round_t *wh_engine_round(wh_engine_t *e)
{
    if (!e || s_built(e) || e->phase == S_DONE)
        return NULL;
    return &e->round;
}

/* Accepts candidate w of the current round: it becomes the configuration. */
static void s_accept(wh_engine_t *e, int w)
{
    if (e->n > 0)
        memcpy(e->removed, e->round.removed[w], (size_t)e->n);
    e->accepts++;
    e->sweep_accepts++;
}

/* One step of the chunked walk: 0 with the next round built, 1 when the
 * level is finished, or a negative error. */
static int s_step_chunked(wh_engine_t *e, int winner)
{
    switch (e->phase) {
    case S_PRUNE:
        if (winner == 0) {
            s_accept(e, 0);
            return 1;
        }
        return s_chunks_next(e);
    case S_CHUNKS:
        if (winner >= 0) {
            int p = e->pass_k - 1 - (e->pass_next + winner);
            s_accept(e, winner);
            e->pass_gone += s_chunk_start(e->nc, e->pass_k, p + 1) -
                            s_chunk_start(e->nc, e->pass_k, p);
            e->pass_next += winner + 1;
        } else {
            e->pass_next += e->round.n_cand;
        }
        return s_pass_more(e) ? s_build(e) : s_chunks_next(e);
    default: /* S_SINGLE */
        if (winner >= 0) {
            int i = ((e->cursor - winner) % e->nc + e->nc) % e->nc;
            s_accept(e, winner);
            memmove(e->c + i, e->c + i + 1, (size_t)(e->nc - i - 1) * sizeof *e->c);
            e->nc--;
            e->cursor = i > 0 ? i - 1 : e->nc - 1;
            e->clean = 0;
        } else {
            e->cursor = ((e->cursor - e->round.n_cand) % e->nc + e->nc) % e->nc;
            e->clean += e->round.n_cand;
        }
        return e->nc == 0 || e->clean >= e->nc ? 1 : s_build(e);
    }
}

/* One step of the linear walk: 0 with the next round built, 1 when the
 * pass over the level is finished, or a negative error. */
static int s_step_linear(wh_engine_t *e, int winner)
{
    if (winner >= 0) {
        s_accept(e, winner);
        e->pass_gone++;
        e->cursor += winner + 1;
    } else {
        e->cursor += e->round.n_cand;
    }
    return e->cursor >= e->nc ? 1 : s_build(e);
}

int wh_engine_resolve(wh_engine_t *e, int winner)
{
    if (!e)
        return WH_EINVAL;
    if (s_built(e))
        return e->err;
    if (e->phase == S_DONE || winner < -1 || winner >= e->round.n_cand ||
        (e->plan && winner >= 0))
        return WH_EINVAL;
    e->rounds++;
    int rc;
    if (e->algo == WH_ALGO_LINEAR) {
        rc = s_step_linear(e, winner);
        if (rc == 1)
            rc = s_walk(e, G_LEVEL_END);
    } else if (e->walk == WH_WALK_CHUNKED) {
        rc = s_step_chunked(e, winner);
        if (rc == 1)
            rc = s_walk(e, G_LEVEL_END);
    } else if (e->phase == S_PRUNE) {
        if (winner == 0) {
            s_accept(e, 0);
            rc = s_walk(e, G_LEVEL_END);
        } else if (e->nc == 1) {
            /* ddmin never proposes the empty configuration: a level of one
             * unit can only shrink through the prune. */
            rc = s_walk(e, G_LEVEL_END);
        } else {
            e->phase = S_DDMIN;
            e->gran = 2;
            rc = s_build(e);
        }
    } else if (winner >= 0) {
        int n = e->gran;
        int piece = winner < n ? winner : winner - n;
        int lo = s_piece_start(e->nc, n, piece);
        int hi = s_piece_start(e->nc, n, piece + 1);
        s_accept(e, winner);
        if (winner < n) {
            /* Reduce to the piece: ddmin(c_i, 2). */
            memmove(e->c, e->c + lo, (size_t)(hi - lo) * sizeof *e->c);
            e->nc = hi - lo;
            e->gran = 2;
        } else {
            /* Reduce to the complement: ddmin(c \ c_i, max(n - 1, 2)). */
            memmove(e->c + lo, e->c + hi, (size_t)(e->nc - hi) * sizeof *e->c);
            e->nc -= hi - lo;
            e->gran = n - 1 > 2 ? n - 1 : 2;
        }
        rc = e->nc == 1 ? s_walk(e, G_LEVEL_END) : s_build(e);
    } else if (e->gran < e->nc) {
        e->gran = 2 * e->gran < e->nc ? 2 * e->gran : e->nc;
        rc = s_build(e);
    } else {
        rc = s_walk(e, G_LEVEL_END);
    }
    if (rc < 0)
        e->err = rc;
    return rc;
}

const uint8_t *wh_engine_removed(const wh_engine_t *e)
{
    return e->removed;
}

int wh_engine_done(const wh_engine_t *e)
{
    return e->phase == S_DONE;
}

int wh_engine_units(const wh_engine_t *e)
{
    return e->n;
}

int wh_engine_sweeps(const wh_engine_t *e)
{
    return e->sweeps;
}

int wh_engine_rounds(const wh_engine_t *e)
{
    return e->rounds;
}

int wh_engine_accepts(const wh_engine_t *e)
{
    return e->accepts;
}

const char *wh_algo_name(wh_algo_t a)
{
    return a == WH_ALGO_DD ? "dd" : a == WH_ALGO_LINEAR ? "linear" : "hdd";
}

int wh_algo_parse(const char *s, wh_algo_t *out)
{
    if (s && !strcmp(s, "hdd"))
        *out = WH_ALGO_HDD;
    else if (s && !strcmp(s, "dd"))
        *out = WH_ALGO_DD;
    else if (s && !strcmp(s, "linear"))
        *out = WH_ALGO_LINEAR;
    else
        return WH_EINVAL;
    return 0;
}

const char *wh_walk_name(wh_walk_t w)
{
    return w == WH_WALK_CLASSIC ? "classic" : "chunked";
}

int wh_walk_parse(const char *s, wh_walk_t *out)
{
    if (s && !strcmp(s, "chunked"))
        *out = WH_WALK_CHUNKED;
    else if (s && !strcmp(s, "classic"))
        *out = WH_WALK_CLASSIC;
    else
        return WH_EINVAL;
    return 0;
}

int wh_round_winner(const wh_verdict_t *v, int n, int *winner)
{
    for (int i = 0; i < n; i++) {
        if (v[i] == WH_V_NONE)
            return 0;
        if (v[i] == WH_V_PRESERVED) {
            *winner = i;
            return 1;
        }
    }
    *winner = -1;
    return 1;
}

/* ---- rounds left (for the progress line's ETA) ---- */

static int s_windows(int k)
{
    return k <= 0 ? 0 : (k + WH_ENGINE_WINDOW - 1) / WH_ENGINE_WINDOW;
}

/* Rounds of chunk passes over m units after one of size chunk ended
 * (gone: what that pass removed; fresh: the pass was the prune), then the
 * one-at-a-time stage, when nothing is removed: s_chunks_next's path. */
static int s_chunked_rest(int m, int chunk, int gone, int fresh)
{
    int r = 0;
    if (fresh || gone || chunk > S_CHUNK_STOP) {
        for (;;) {
            chunk = (chunk + 1) / 2;
            if (chunk <= 1)
                break;
            if (m > chunk) {
                r += s_windows((m + chunk - 1) / chunk);
                if (chunk <= S_CHUNK_STOP)
                    break;
            }
        }
    }
    return r + s_windows(m);
}

/* Classic ddmin rounds over m units from granularity gran on, when no
 * candidate is Preserved: gran doubles until it reaches m. */
static int s_ddmin_rest(int m, int gran)
{
    int r = 1;
    while (gran < m) {
        gran = gran * 2 < m ? gran * 2 : m;
        r++;
    }
    return r;
}

/* Rounds of a level of m alive units the walk comes to afresh. */
static int s_level_rounds(const wh_engine_t *e, int level, int m)
{
    if (m == 0)
        return 0;
    if (e->algo == WH_ALGO_LINEAR)
        return s_windows(m);
    if (e->walk == WH_WALK_CLASSIC)
        return (e->algo == WH_ALGO_HDD ? 1 : 0) + (m > 1 ? s_ddmin_rest(m, 2) : 0);
    if (e->clean_at[level] == e->accepts)
        return 0;
    if (e->clean_at[level] >= 0 || m == 1)
        return s_windows(m);
    return (level > 0 ? 1 : 0) + s_chunked_rest(m, m, 0, 1);
}

/* Rounds left in the current level, this round included. */
static int s_current_rounds(const wh_engine_t *e)
{
    if (e->algo == WH_ALGO_LINEAR)
        return s_windows(e->nc - e->cursor);
    if (e->walk == WH_WALK_CLASSIC)
        return e->phase == S_PRUNE ? 1 + (e->nc > 1 ? s_ddmin_rest(e->nc, 2) : 0)
                                   : s_ddmin_rest(e->nc, e->gran);
    switch (e->phase) {
    case S_PRUNE:
        return 1 + s_chunked_rest(e->nc, e->nc, 0, 1);
    case S_CHUNKS:
        return s_windows(e->pass_k - e->pass_next) +
               s_chunked_rest(e->nc - e->pass_gone, e->chunk, e->pass_gone, 0);
    default:
        return s_windows(e->nc - e->clean);
    }
}

int wh_engine_rounds_left(const wh_engine_t *e)
{
    if (!e || e->phase == S_DONE || e->err)
        return 0;
    int maxd = 0;
    for (int u = 0; u < e->n; u++)
        maxd = e->depth[u] > maxd ? e->depth[u] : maxd;
    int *alive = calloc((size_t)maxd + 1, sizeof *alive);
    if (!alive)
        return 0;
    for (int u = 0; u < e->n; u++)
        alive[e->depth[u]] += !e->removed[u];
    int r = s_current_rounds(e);
    int last = e->algo == WH_ALGO_DD ? 0 : maxd;
    for (int l = e->level + 1; l <= last && alive[l]; l++)
        r += s_level_rounds(e, l, alive[l]);
    /* A sweep that removed something is followed by one more: the chunked
     * walk revisits only the levels left before the last removal; the
     * others walk every level again. */
    if (e->sweep_accepts > 0) {
        for (int l = 0; l <= last && alive[l]; l++) {
            if (e->walk == WH_WALK_CHUNKED && e->algo == WH_ALGO_HDD)
                r += l < e->level && e->clean_at[l] != e->accepts ? s_windows(alive[l]) : 0;
            else
                r += s_level_rounds(e, l, alive[l]);
        }
    }
    free(alive);
    return r;
}
