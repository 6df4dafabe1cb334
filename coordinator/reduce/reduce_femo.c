/*
 * reduce_femo — the front end's memo: what the front end said about a
 * candidate's text, by candidate key. One parse answers two questions (the
 * precheck's "does it compile" and the UB guard's "does it read an
 * indeterminate value"); the chains ask both again about the steps the
 * chain before them held (1736 UB checks for 172 candidates, before), and
 * the precheck's checks made ahead of a chain (reduce_predict.c) are only
 * worth something if their answers are found when the chain comes. Both
 * answers hold for the flags the front end was opened with: the memo is
 * emptied when it opens again. Part of the reduce module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"

#include <stdlib.h>
#include <string.h>

/* The slot of key: its entry, or the free slot where it belongs. Open
 * addressing over a power-of-two table. */
static struct red_femo *s_slot(struct red_femo *t, size_t cap, const char *key)
{
    char h16[17];
    memcpy(h16, key, 16);
    h16[16] = '\0';
    size_t i = (size_t)strtoull(h16, NULL, 16) & (cap - 1);
    while (t[i].key[0] && memcmp(t[i].key, key, 64) != 0)
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* Keeps the table at most half full: 0, or WH_ENOMEM (unchanged). */
static int s_grow(wh_reduction_t *r)
{
    if (2 * (r->fem_n + 1) <= r->fem_cap)
        return 0;
    size_t cap = r->fem_cap ? 2 * r->fem_cap : 256;
    struct red_femo *nt = calloc(cap, sizeof *nt);
    if (!nt)
        return WH_ENOMEM;
    for (size_t i = 0; i < r->fem_cap; i++)
        if (r->fem[i].key[0])
            *s_slot(nt, cap, r->fem[i].key) = r->fem[i];
    free(r->fem);
    r->fem = nt;
    r->fem_cap = cap;
    return 0;
}

struct red_femo *red_femo_find(wh_reduction_t *r, const char *key, int add)
{
    if (!key || strlen(key) != 64)
        return NULL;
    if (add && s_grow(r))
        add = 0; /* no room: found or not, nothing new */
    if (!r->fem_cap)
        return NULL;
    struct red_femo *e = s_slot(r->fem, r->fem_cap, key);
    if (e->key[0])
        return e;
    if (!add)
        return NULL;
    memcpy(e->key, key, 65);
    e->ub = -1;
    e->pass = 0;
    e->msg = NULL;
    r->fem_n++;
    return e;
}

void red_femo_clear(wh_reduction_t *r)
{
    for (size_t i = 0; i < r->fem_cap; i++)
        free(r->fem[i].msg);
    free(r->fem);
    r->fem = NULL;
    r->fem_cap = r->fem_n = 0;
}
