/*
 * cache_be — what the cache front (cache.c) and its back ends share, and
 * nothing else includes: the ops table every back end fills in, the binary
 * key helpers, and the constructors of the back ends:
 *   cache_embedded.c  memory: and the embedded log (DIR/verdicts.log ...)
 *   cache_redis.c     redis://, with the embedded back end as its fallback
 * Back ends get keys already parsed to binary (WH_CACHE_KEY_BYTES bytes).
 */
#ifndef WH_CACHE_BE_H
#define WH_CACHE_BE_H

#include <stdint.h>

#include "cache_value.h"

#define WH_CACHE_NS 2 /* key spaces: WH_CACHE_VERDICTS, WH_CACHE_PREDICTED */
#define WH_CACHE_BLOB_KEY_MAX 256
#define WH_CACHE_BLOB_VALUE_MAX (64u << 10)

struct wh_cache_ops {
    /* out[i] = verdict or WH_V_NONE on a miss in key space ns; 0 or a
     * negative code. */
    int (*get_many)(void *be, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES], int n,
                    wh_verdict_t *out);
    /* The verdict of key (verdicts key space) and the node that produced it
     * ("" when not recorded); *v = WH_V_NONE on a miss. 0 or a negative
     * code. */
    int (*get_node)(void *be, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t *v,
                    char node[WH_CACHE_NODE_MAX + 1]);
    /* v is storable (never None/InfraError), node a valid node name
     * (wh_cache_node_ok); 0 or a negative code. */
    int (*put)(void *be, int ns, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t v,
               const char *node);
    /* Forgets key in the verdicts key space; 0 or a negative code. */
    int (*drop)(void *be, const uint8_t key[WH_CACHE_KEY_BYTES]);
    /* Drops every verdict node produced and bumps the generation, adding
     * to *out's counts; 0 or a negative code. */
    int (*forget)(void *be, const char *node, wh_cache_forgot_t *out);
    /* Fills up to max entries of st (the back end, then its fallback);
     * returns how many, or a negative code. */
    int (*stats)(void *be, wh_cache_stats_t *st, int max);
    /* Removes every verdict, prediction and blob and bumps the generation,
     * adding to *out's counts; 0 or a negative code. */
    int (*clear)(void *be, wh_cache_forgot_t *out);
    /* Blobs: 0 and *value (malloc'ed) on a hit, WH_ENOTFOUND on a miss. */
    int (*get_blob)(void *be, const char *key, char **value);
    int (*put_blob)(void *be, const char *key, const char *value);
    const char *(*describe)(const void *be);
    void (*close)(void *be);
};

/* The memory and embedded back end (cache_embedded.c). */
typedef struct wh_cache_emb wh_cache_emb_t;
extern const struct wh_cache_ops wh_cache_emb_ops;
/* In memory only; NULL when out of memory. */
wh_cache_emb_t *wh_cache_mem_open(void);
/* Opens (creating the folder and the logs) and loads DIR's logs; NULL with
 * *err set. */
wh_cache_emb_t *wh_cache_emb_open(const char *dir, char **err);
/* What the Redis back end asks of its fallback: puts tagged with the Redis
 * generation they were stored under, and lookups that only answer with
 * verdicts of one generation (so a verdict Redis forgot is never answered
 * from the fallback, nor written back). */
int wh_cache_emb_put_gen(wh_cache_emb_t *e, int ns, const uint8_t key[WH_CACHE_KEY_BYTES],
                         wh_verdict_t v, const char *node, uint32_t gen);
void wh_cache_emb_get_gen(wh_cache_emb_t *e, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES],
                          int n, wh_verdict_t *out, uint32_t gen);
/* get_node of the embedded back end; gen >= 0: only a verdict stored under
 * that Redis generation answers. */
void wh_cache_emb_get_node_gen(wh_cache_emb_t *e, const uint8_t key[WH_CACHE_KEY_BYTES],
                               wh_verdict_t *v, char node[WH_CACHE_NODE_MAX + 1], int64_t gen);
/* Compacts e's logs when they grow past bytes (0: never). */
void wh_cache_emb_set_max(wh_cache_emb_t *e, uint64_t bytes);
/* The highest generation any of e's verdicts was stored under. */
uint32_t wh_cache_emb_max_gen(const wh_cache_emb_t *e);

/* The Redis back end (cache_redis.c), the cache's only file that includes
 * hiredis; it talks through the shared client of common/wh_redisc.h. */
typedef struct wh_cache_redis wh_cache_redis_t;
extern const struct wh_cache_ops wh_cache_redis_ops;
/* url is redis://[user[:password]@]host[:port][/db], the password found as
 * wh_redisc.h says; NULL with *err set (a bad URL, an unreadable password
 * file or refused credentials; an unreachable Redis is not an error: the
 * back end starts down, on its embedded fallback). */
wh_cache_redis_t *wh_cache_redis_open(const char *url, char **err);
/* The embedded fallback of a Redis back end. */
wh_cache_emb_t *wh_cache_redis_fallback(wh_cache_redis_t *r);

#endif
