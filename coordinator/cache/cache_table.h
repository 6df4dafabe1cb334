/*
 * cache_table — the in-memory tables of the embedded cache back end
 * (cache_embedded.c), private to the cache:
 *   - a verdict table: binary key -> verdict, the node that produced it and
 *     the Redis generation it was stored under; open addressing, so a
 *     forgotten verdict stays as a DROPPED slot that answers "miss";
 *   - a blob table: string key -> one-line string value.
 * No I/O here.
 */
#ifndef WH_CACHE_TABLE_H
#define WH_CACHE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "cache_be.h"

/* An occupied slot that answers "miss": open addressing cannot empty a
 * slot without breaking the probe chains behind it. */
#define WH_CTAB_DROPPED 0xff

typedef struct {
    uint8_t key[WH_CACHE_KEY_BYTES];
    uint8_t v;     /* WH_V_NONE = empty slot; WH_CTAB_DROPPED = forgotten */
    uint16_t node; /* the owner's index of the node name; 0: not recorded */
    uint32_t gen;  /* the Redis generation it was stored under (0: none) */
} wh_ctab_slot_t;

typedef struct {
    wh_ctab_slot_t *slots;
    size_t cap; /* power of two */
    size_t n;   /* occupied slots, dropped ones included */
} wh_ctab_t;

/* The slot holding a live verdict of key, or NULL (none, or dropped). */
const wh_ctab_slot_t *wh_ctab_get(const wh_ctab_t *t, const uint8_t key[WH_CACHE_KEY_BYTES]);
/* Sets key to v (a verdict or WH_CTAB_DROPPED) with its node and gen;
 * *changed tells whether that changed anything. 0 or WH_ENOMEM. */
int wh_ctab_set(wh_ctab_t *t, const uint8_t key[WH_CACHE_KEY_BYTES], int v, uint16_t node,
                uint32_t gen, int *changed);
void wh_ctab_free(wh_ctab_t *t);

typedef struct {
    char *key, *val;
} wh_btab_slot_t;

typedef struct {
    wh_btab_slot_t *slots;
    size_t cap, n;
} wh_btab_t;

/* The value of key, or NULL. */
const char *wh_btab_get(const wh_btab_t *t, const char *key);
/* Copies key and val in; *changed tells whether the value changed. 0 or
 * WH_ENOMEM. */
int wh_btab_set(wh_btab_t *t, const char *key, size_t klen, const char *val, size_t vlen,
                int *changed);
void wh_btab_free(wh_btab_t *t);

#endif
