/*
 * trail — who judged what, and the walk after each accepted step. See
 * trail.h.
 */
#define _GNU_SOURCE
#include "trail.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    wh_engine_t *engine;  /* the walk right after the accept */
    char key[65];
    char *judge, *node;   /* NULL: the start, or a cached verdict */
    int cand;
} s_step_t;

typedef struct {
    char key[65];
    char *slot, *node;
    int dropped;
} s_judged_t;

struct wh_trail {
    s_step_t *steps;
    int n, cap;
    s_judged_t *judged;
    int nj, capj;
};

static char *s_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int s_push_step(wh_trail_t *t, const wh_engine_t *e, const char *key, int cand)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        s_step_t *ns = realloc(t->steps, (size_t)cap * sizeof *ns);
        if (!ns)
            return WH_ENOMEM;
        t->steps = ns;
        t->cap = cap;
    }
    s_step_t *st = &t->steps[t->n];
    memset(st, 0, sizeof *st);
    st->engine = wh_engine_clone_stored(e);
    if (!st->engine)
        return WH_ENOMEM;
    snprintf(st->key, sizeof st->key, "%s", key ? key : "");
    st->cand = cand;
    t->n++;
    return 0;
}

wh_trail_t *wh_trail_new(const wh_engine_t *start)
{
    wh_trail_t *t = calloc(1, sizeof *t);
    if (t && s_push_step(t, start, NULL, 0) == 0)
        return t;
    wh_trail_destroy(&t);
    return NULL;
}

static void s_step_free(s_step_t *st)
{
    wh_engine_destroy(&st->engine);
    free(st->judge);
    free(st->node);
}

void wh_trail_destroy(wh_trail_t **tp)
{
    wh_trail_t *t = *tp;
    if (!t)
        return;
    for (int i = 0; i < t->n; i++)
        s_step_free(&t->steps[i]);
    for (int i = 0; i < t->nj; i++) {
        free(t->judged[i].slot);
        free(t->judged[i].node);
    }
    free(t->steps);
    free(t->judged);
    free(t);
    *tp = NULL;
}

int wh_trail_judged(wh_trail_t *t, const char *key, const char *slot, const char *node)
{
    if (t->nj == t->capj) {
        int cap = t->capj ? 2 * t->capj : 64;
        s_judged_t *nj = realloc(t->judged, (size_t)cap * sizeof *nj);
        if (!nj)
            return WH_ENOMEM;
        t->judged = nj;
        t->capj = cap;
    }
    s_judged_t *j = &t->judged[t->nj];
    memset(j, 0, sizeof *j);
    snprintf(j->key, sizeof j->key, "%s", key);
    j->slot = s_dup(slot);
    j->node = s_dup(node);
    t->nj++;
    return 0;
}

int wh_trail_judged_here(const wh_trail_t *t, const char *key)
{
    for (int i = t->nj; i-- > 0;)
        if (strcmp(t->judged[i].key, key) == 0)
            return 1;
    return 0;
}

int wh_trail_accept(wh_trail_t *t, const wh_engine_t *after, const char *key, int cand)
{
    int rc = s_push_step(t, after, key, cand);
    if (rc)
        return rc;
    s_step_t *st = &t->steps[t->n - 1];
    for (int i = t->nj; i-- > 0;) {
        if (strcmp(t->judged[i].key, key) == 0) {
            st->judge = s_dup(t->judged[i].slot);
            st->node = s_dup(t->judged[i].node);
            break;
        }
    }
    return 0;
}

int wh_trail_steps(const wh_trail_t *t)
{
    return t->n;
}

const uint8_t *wh_trail_removed(const wh_trail_t *t, int i)
{
    return wh_engine_removed(t->steps[i].engine);
}

const char *wh_trail_judge(const wh_trail_t *t, int i)
{
    return t->steps[i].judge;
}

int wh_trail_set_judge(wh_trail_t *t, const char *slot, const char *node)
{
    s_step_t *st = &t->steps[t->n - 1];
    char *j = s_dup(slot), *n = s_dup(node);
    if ((slot && !j) || (node && !n)) {
        free(j);
        free(n);
        return WH_ENOMEM;
    }
    free(st->judge);
    free(st->node);
    st->judge = j;
    st->node = n;
    return 0;
}

const char *wh_trail_judge_node(const wh_trail_t *t, int i)
{
    return t->steps[i].node;
}

int wh_trail_cand(const wh_trail_t *t, int i)
{
    return t->steps[i].cand;
}

static int s_drop_key(wh_trail_t *t, const char *key, const wh_trail_blame_t *how)
{
    int first = 1;
    for (int i = 0; i < t->nj; i++) {
        if (strcmp(t->judged[i].key, key) != 0)
            continue;
        first &= !t->judged[i].dropped;
        t->judged[i].dropped = 1;
    }
    /* A key judged in this run and already dropped counts once; a cached
     * one (never judged here) is dropped every time it is blamed, which
     * is harmless. */
    if (first && how->drop)
        how->drop(how->ctx, key);
    return first;
}

/* Drops every verdict of node (by_node) or of slot. */
static int s_drop_all_of(wh_trail_t *t, const char *who, int by_node,
                         const wh_trail_blame_t *how)
{
    int n = 0;
    for (int i = 0; i < t->nj; i++) {
        const char *w = by_node ? t->judged[i].node : t->judged[i].slot;
        if (w && strcmp(w, who) == 0 && !t->judged[i].dropped)
            n += s_drop_key(t, t->judged[i].key, how);
    }
    return n;
}

int wh_trail_blame(wh_trail_t *t, int good, const char *verifier_node,
                   const wh_trail_blame_t *how)
{
    int n = 0;
    for (int k = good + 1; k < t->n; k++) {
        s_step_t *st = &t->steps[k];
        if (st->node && verifier_node && strcmp(st->node, verifier_node) != 0) {
            n += s_drop_all_of(t, st->node, 1, how);
            if (how->exclude)
                how->exclude(how->ctx, st->node);
        } else if (st->judge) {
            n += s_drop_all_of(t, st->judge, 0, how);
        }
        n += s_drop_key(t, st->key, how);
    }
    return n;
}

int wh_trail_blame_judge(wh_trail_t *t, const char *key, const char *judge,
                         const char *judge_node, const char *verifier_node,
                         const wh_trail_blame_t *how)
{
    int n = 0;
    for (int i = t->nj; !judge_node && judge && i-- > 0;)
        if (t->judged[i].slot && strcmp(t->judged[i].slot, judge) == 0)
            judge_node = t->judged[i].node; /* the slot is gone: its node as noted */
    if (judge_node && verifier_node && strcmp(judge_node, verifier_node) != 0) {
        n += s_drop_all_of(t, judge_node, 1, how);
        if (how->exclude)
            how->exclude(how->ctx, judge_node);
    } else if (judge) {
        n += s_drop_all_of(t, judge, 0, how);
    }
    return n + (key ? s_drop_key(t, key, how) : 0);
}

int wh_trail_judged_any(const wh_trail_t *t)
{
    return t->nj > 0;
}

int wh_trail_other_node(const wh_trail_t *t, const char *node)
{
    if (!t->nj)
        return 1;
    for (int i = 0; i < t->nj; i++)
        if (!t->judged[i].node || strcmp(t->judged[i].node, node) != 0)
            return 1;
    return 0;
}

wh_engine_t *wh_trail_rewind(wh_trail_t *t, int good)
{
    if (good < 0 || good >= t->n)
        return NULL;
    for (int k = good + 1; k < t->n; k++)
        s_step_free(&t->steps[k]);
    t->n = good + 1;
    return wh_engine_clone(t->steps[good].engine);
}
