/*
 * cache_table — the in-memory verdict and blob tables of the embedded
 * cache back end (cache_table.h): open addressing, FNV-1a mixed.
 */
#define _GNU_SOURCE
#include "cache_table.h"

#include <stdlib.h>
#include <string.h>

/* ---- verdict table ---- */

static size_t s_hash(const uint8_t key[WH_CACHE_KEY_BYTES])
{
    /* Keys are SHA-256 digests, but mix anyway: a caller may hand in any hex. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < WH_CACHE_KEY_BYTES; i++)
        h = (h ^ key[i]) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

static wh_ctab_slot_t *s_ctab_find(const wh_ctab_t *t, const uint8_t key[WH_CACHE_KEY_BYTES])
{
    if (!t->cap)
        return NULL;
    size_t i = s_hash(key) & (t->cap - 1);
    for (;;) {
        wh_ctab_slot_t *s = &t->slots[i];
        if (s->v == WH_V_NONE || memcmp(s->key, key, WH_CACHE_KEY_BYTES) == 0)
            return s;
        i = (i + 1) & (t->cap - 1);
    }
}

const wh_ctab_slot_t *wh_ctab_get(const wh_ctab_t *t, const uint8_t key[WH_CACHE_KEY_BYTES])
{
    const wh_ctab_slot_t *s = s_ctab_find(t, key);
    return s && s->v != WH_V_NONE && s->v != WH_CTAB_DROPPED ? s : NULL;
}

static int s_ctab_grow(wh_ctab_t *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    wh_ctab_slot_t *old = t->slots;
    size_t oldcap = t->cap;
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return WH_ENOMEM;
    }
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].v != WH_V_NONE)
            *s_ctab_find(t, old[i].key) = old[i];
    free(old);
    return 0;
}

int wh_ctab_set(wh_ctab_t *t, const uint8_t key[WH_CACHE_KEY_BYTES], int v, uint16_t node,
                uint32_t gen, int *changed)
{
    if ((t->n + 1) * 2 > t->cap) {
        int rc = s_ctab_grow(t);
        if (rc)
            return rc;
    }
    wh_ctab_slot_t *s = s_ctab_find(t, key);
    *changed = s->v != (uint8_t)v || s->node != node || s->gen != gen;
    if (s->v == WH_V_NONE) {
        memcpy(s->key, key, WH_CACHE_KEY_BYTES);
        t->n++;
    }
    s->v = (uint8_t)v;
    s->node = node;
    s->gen = gen;
    return 0;
}

void wh_ctab_free(wh_ctab_t *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* ---- blob table ---- */

static size_t s_strhash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

static wh_btab_slot_t *s_btab_find(const wh_btab_t *t, const char *key)
{
    if (!t->cap)
        return NULL;
    size_t i = s_strhash(key) & (t->cap - 1);
    for (;;) {
        wh_btab_slot_t *s = &t->slots[i];
        if (!s->key || strcmp(s->key, key) == 0)
            return s;
        i = (i + 1) & (t->cap - 1);
    }
}

const char *wh_btab_get(const wh_btab_t *t, const char *key)
{
    wh_btab_slot_t *s = s_btab_find(t, key);
    return s ? s->val : NULL;
}

int wh_btab_set(wh_btab_t *t, const char *key, size_t klen, const char *val, size_t vlen,
                int *changed)
{
    *changed = 0;
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        wh_btab_slot_t *ns = calloc(cap, sizeof *ns), *old = t->slots;
        if (!ns)
            return WH_ENOMEM;
        size_t oldcap = t->cap;
        t->slots = ns;
        t->cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].key)
                *s_btab_find(t, old[i].key) = old[i];
        free(old);
    }
    char *k = strndup(key, klen), *v = strndup(val, vlen);
    if (!k || !v) {
        free(k);
        free(v);
        return WH_ENOMEM;
    }
    wh_btab_slot_t *s = s_btab_find(t, k);
    if (s->key) {
        *changed = strcmp(s->val, v) != 0;
        free(k);
        free(s->val);
        s->val = v;
    } else {
        *changed = 1;
        s->key = k;
        s->val = v;
        t->n++;
    }
    return 0;
}

void wh_btab_free(wh_btab_t *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->slots[i].key);
        free(t->slots[i].val);
    }
    free(t->slots);
    memset(t, 0, sizeof *t);
}

