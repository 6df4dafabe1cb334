/*
 * prior — a backward slice of the failing statement as the walk's prior
 * (see prior.h).
 */
#define _GNU_SOURCE
#include "prior.h"

#include <stdlib.h>
#include <string.h>

struct wh_prior {
    int n, nvars;
    uint8_t *slice;  /* n: 1 in the slice */
    int *uses_at;    /* nvars + 1: the units referencing variable v are */
    int *uses;       /*   uses[uses_at[v] .. uses_at[v+1]) */
    int *decl;       /* nvars: the unit declaring variable v, -1 none */
    int unused_fails; /* -Werror with unused-variable warnings: a kept
                       * variable no kept unit reads does not build */
    const wh_flow_t *flow;
    int size;
};

/* Whether a (alen bytes) and b name files of the same name: a report's
 * location is relative to wherever its test ran ("tests/x.c", "../x.c"). */
static int s_same_file(const char *a, size_t alen, const char *b)
{
    const char *ab = memrchr(a, '/', alen), *bb = strrchr(b, '/');
    ab = ab ? ab + 1 : a;
    bb = bb ? bb + 1 : b;
    size_t an = alen - (size_t)(ab - a);
    return an > 0 && strlen(bb) == an && memcmp(ab, bb, an) == 0;
}

int wh_prior_seed(const wh_tree_t *t, const char *location)
{
    if (!t || !location || !t->path)
        return -1;
    /* "line N": a console harness's line without a file (fw_console.c),
     * its assert macro's __LINE__ in the test file */
    int bare = strncmp(location, "line ", 5) == 0;
    const char *colon = bare ? location + 4 : strrchr(location, ':');
    if (!colon || colon == location)
        return -1;
    char *end = NULL;
    long line = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || line < 1 ||
        (!bare && !s_same_file(location, (size_t)(colon - location), t->path)))
        return -1;
    size_t ls = 0;
    for (long l = 1; l < line && ls < t->text_len; ls++)
        if (t->text[ls] == '\n')
            l++;
    if (ls >= t->text_len)
        return -1;
    const char *nl = memchr(t->text + ls, '\n', t->text_len - ls);
    size_t le = nl ? (size_t)(nl - t->text) : t->text_len;
    int seed = -1;
    for (int u = 0; u < t->n; u++)
        if (t->units[u].begin < le && t->units[u].end > ls)
            seed = u;
    return seed;
}

/* One past unit u's subtree (units are in pre-order). */
static int s_subtree_end(const wh_tree_t *t, int u)
{
    int v = u + 1;
    while (v < t->n && t->units[v].level > t->units[u].level)
        v++;
    return v;
}

typedef struct {
    const wh_tree_t *t;
    const wh_flow_t *f;
    uint8_t *slice, *vars;
    int *before;  /* n + 1: units of the slice before each, as a pass began */
    int changed;
} s_walk_t;

/* Unit u's reads join the slice's variables. */
static void s_reads(s_walk_t *w, int u)
{
    for (int k = w->f->first[u]; k < w->f->first[u + 1]; k++)
        if ((w->f->how[k] & WH_REF_READ) && !w->vars[w->f->var[k]]) {
            w->vars[w->f->var[k]] = 1;
            w->changed = 1;
        }
}

/* Unit u and its enclosing units join the slice, with their reads. */
static void s_join(s_walk_t *w, int u)
{
    for (int a = u; a >= 0; a = w->t->units[a].parent) {
        if (!w->slice[a]) {
            w->slice[a] = 1;
            w->changed = 1;
        }
        s_reads(w, a);
    }
}

static int s_writes_slice(const s_walk_t *w, int u)
{
    for (int k = w->f->first[u]; k < w->f->first[u + 1]; k++)
        if ((w->f->how[k] & WH_REF_WRITE) && w->vars[w->f->var[k]])
            return 1;
    return 0;
}

/* 1 when a unit in [from, to) was in the slice as the pass began (units
 * joining during a pass are seen by the next one). */
static int s_any_in(const s_walk_t *w, int from, int to)
{
    return w->before[to] > w->before[from];
}

static int s_is_loop(wh_stmt_kind_t k)
{
    return k == WH_STMT_FOR || k == WH_STMT_WHILE || k == WH_STMT_DO || k == WH_STMT_SWITCH ||
           k == WH_STMT_RANGE_FOR;
}

/* 1 when jump unit u (not in the slice) steers a unit of the slice. */
static int s_jump_steers(const s_walk_t *w, int u)
{
    const wh_tree_t *t = w->t;
    if (w->f->jump[u] & WH_JUMP_FN)
        if (s_any_in(w, s_subtree_end(t, u), t->n))
            return 1;
    if (!(w->f->jump[u] & WH_JUMP_LOOP))
        return 0;
    int l = u;
    while (l >= 0 && !s_is_loop(t->units[l].kind))
        l = t->units[l].parent;
    if (l < 0)
        return 0;
    return s_any_in(w, l + 1, s_subtree_end(t, l));
}

static void s_slice(const wh_tree_t *t, int seed, uint8_t *slice, uint8_t *vars, int *before)
{
    s_walk_t w = {.t = t, .f = t->flow, .slice = slice, .vars = vars, .before = before};
    s_join(&w, seed);
    while (w.changed) {
        w.changed = 0;
        for (int u = 0; u < t->n; u++)
            before[u + 1] = before[u] + slice[u];
        for (int u = 0; u < t->n; u++)
            if (!slice[u] && (s_writes_slice(&w, u) || (w.f->jump[u] && s_jump_steers(&w, u))))
                s_join(&w, u);
    }
}

static int s_uses(wh_prior_t *p, const wh_flow_t *f, int n)
{
    p->uses_at = calloc((size_t)p->nvars + 2, sizeof *p->uses_at);
    p->uses = malloc((size_t)(f->first[n] ? f->first[n] : 1) * sizeof *p->uses);
    p->decl = malloc((size_t)(p->nvars ? p->nvars : 1) * sizeof *p->decl);
    if (!p->uses_at || !p->uses || !p->decl)
        return -1;
    for (int v = 0; v < p->nvars; v++)
        p->decl[v] = -1;
    for (int k = 0; k < f->first[n]; k++)
        p->uses_at[f->var[k] + 2]++;
    for (int v = 0; v < p->nvars; v++)
        p->uses_at[v + 2] += p->uses_at[v + 1];
    for (int u = 0; u < n; u++)
        for (int k = f->first[u]; k < f->first[u + 1]; k++) {
            int v = f->var[k];
            if ((f->how[k] & WH_REF_DECL) && p->decl[v] < 0)
                p->decl[v] = u;
            p->uses[p->uses_at[v + 1]++] = u;
        }
    return 0;
}

/* 1 when t's compile arguments make an unused variable an error. */
static int s_unused_fails(const wh_tree_t *t)
{
    int werror = 0, warn = 0;
    for (int i = 0; i < t->cc_nargs; i++) {
        const char *a = t->cc_args[i];
        if (strcmp(a, "-Werror") == 0)
            werror = 1;
        else if (strcmp(a, "-Wno-error") == 0)
            werror = 0;
        else if (strcmp(a, "-Werror=unused-variable") == 0 || strcmp(a, "-Werror=unused") == 0)
            werror = warn = 1;
        if (strcmp(a, "-Wall") == 0 || strcmp(a, "-Wunused") == 0 ||
            strcmp(a, "-Wunused-variable") == 0 || strcmp(a, "-Weverything") == 0)
            warn = 1;
        else if (strcmp(a, "-Wno-unused-variable") == 0 || strcmp(a, "-Wno-unused") == 0)
            warn = 0;
    }
    return werror && warn;
}

wh_prior_t *wh_prior_new(const wh_tree_t *t, int seed)
{
    if (!t || !t->flow || seed < 0 || seed >= t->n)
        return NULL;
    wh_prior_t *p = calloc(1, sizeof *p);
    uint8_t *vars = calloc((size_t)t->flow->nvars + 1, 1);
    int *before = calloc((size_t)t->n + 1, sizeof *before);
    if (!p || !vars || !before || !(p->slice = calloc((size_t)t->n, 1)))
        goto fail;
    p->n = t->n;
    p->nvars = t->flow->nvars;
    p->flow = t->flow;
    s_slice(t, seed, p->slice, vars, before);
    free(before);
    before = NULL;
    if (s_uses(p, t->flow, t->n) < 0)
        goto fail;
    for (int u = 0; u < t->n; u++)
        p->size += p->slice[u];
    p->unused_fails = s_unused_fails(t);
    free(vars);
    return p;
fail:
    free(vars);
    free(before);
    wh_prior_destroy(&p);
    return NULL;
}

void wh_prior_destroy(wh_prior_t **pp)
{
    if (!pp || !*pp)
        return;
    free((*pp)->slice);
    free((*pp)->uses_at);
    free((*pp)->uses);
    free((*pp)->decl);
    free(*pp);
    *pp = NULL;
}

int wh_prior_expect(const wh_prior_t *p, const uint8_t *removed, const uint8_t *base)
{
    if (!p)
        return 0;
    const wh_flow_t *f = p->flow;
    for (int u = 0; u < p->n; u++)
        if (removed[u] && !base[u] && p->slice[u])
            return 0;
    /* Each variable the removal names is looked at once: its uses kept. */
    uint8_t *seen = calloc((size_t)p->nvars + 1, 1);
    if (!seen)
        return 0; /* no memory: the default expectation */
    int ok = 1;
    for (int u = 0; u < p->n && ok; u++) {
        if (!removed[u] || base[u])
            continue;
        for (int k = f->first[u]; k < f->first[u + 1] && ok; k++) {
            int v = f->var[k], d = p->decl[v], kept = 0;
            if (seen[v])
                continue;
            seen[v] = 1;
            for (int j = p->uses_at[v]; j < p->uses_at[v + 1] && !kept; j++)
                kept = p->uses[j] != d && !removed[p->uses[j]];
            if (d >= 0 && removed[d] && kept)
                ok = 0; /* a kept use of what it no longer declares */
            else if (d >= 0 && !removed[d] && !kept && p->unused_fails)
                ok = 0; /* a kept declaration no kept unit names */
        }
    }
    free(seen);
    return ok;
}

int wh_prior_in_slice(const wh_prior_t *p, int u)
{
    return p && u >= 0 && u < p->n && p->slice[u];
}

int wh_prior_size(const wh_prior_t *p)
{
    return p ? p->size : 0;
}
