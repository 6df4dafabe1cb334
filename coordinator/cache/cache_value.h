/*
 * cache_value — what a cache entry is, below both the cache's front
 * (cache.h) and its back ends (cache_be.h): binary keys and their hex form,
 * the key spaces, node names, the stored value "<Verdict> node=<ID>", what
 * a forget and the stats count, and the default folder. Pure functions of
 * their arguments (wh_cache_default_dir reads the environment); any thread.
 */
#ifndef WH_CACHE_VALUE_H
#define WH_CACHE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "wh_common.h"

#define WH_CACHE_KEY_BYTES 32

/* 1 when v may be stored (never None or InfraError). */
int wh_cache_storable(wh_verdict_t v);
/* Parses exactly 64 hex chars (no terminator needed): 0 or WH_EINVAL. */
int wh_cache_key_parse_n(const char *hex, uint8_t out[WH_CACHE_KEY_BYTES]);
/* 64 lower-case hex chars and a terminator. */
void wh_cache_key_hex(const uint8_t key[WH_CACHE_KEY_BYTES], char out[2 * WH_CACHE_KEY_BYTES + 1]);

/* Key spaces. A prediction (the front end rejected the candidate, nothing
 * was built) is stored apart from real verdicts, so one is never taken for
 * the other: Redis "whittle:v1:predicted:<key>", embedded DIR/predicted.log. */
typedef enum {
    WH_CACHE_VERDICTS = 0,
    WH_CACHE_PREDICTED = 1,
} wh_cache_ns_t;

/* Who produced a verdict: the node's key name (the base name of its
 * public key file, "NAME" of the ZAP user id "node:NAME"), or
 * WH_CACHE_NODE_LOCAL for the embedded reduce, insecure nodes and the
 * coordinator's own predictions. 1 to WH_CACHE_NODE_MAX characters of
 * [A-Za-z0-9._@+-]. */
#define WH_CACHE_NODE_LOCAL "local"
#define WH_CACHE_NODE_MAX 64
/* 1 when name is a valid node name. */
int wh_cache_node_ok(const char *name);
/* name made valid (NULL or "" -> "local", other characters -> '_',
 * truncated) into out. */
void wh_cache_node_clean(const char *name, char out[WH_CACHE_NODE_MAX + 1]);

/* A stored value: "<VerdictName> node=<ID>" (Redis value; an embedded log
 * line is "<key> <value>"). wh_cache_value_format writes it into out (at
 * most WH_CACHE_VALUE_MAX chars and a terminator) and returns its length;
 * node is cleaned first. wh_cache_value_parse reads n bytes of s: the
 * verdict, and the node into node ("" when the value has none: a value of
 * an older whittle, which still reads). Tokens after the verdict other
 * than node= are ignored. 0, or WH_EINVAL (no storable verdict). */
#define WH_CACHE_VALUE_MAX (20 + 6 + WH_CACHE_NODE_MAX)
int wh_cache_value_format(wh_verdict_t v, const char *node, char *out, size_t outsz);
int wh_cache_value_parse(const char *s, size_t n, wh_verdict_t *v,
                         char node[WH_CACHE_NODE_MAX + 1]);
/* The forget generation a value carries: its " gen=<N>" token (a Redis
 * value is "<VerdictName> node=<ID> gen=<N>" under the MAC when N > 0),
 * 0 when it has none. A value of a generation older than the store's
 * was stored before a forget or clear and is refused: a forgotten node's
 * values written back are not believed again. */
uint32_t wh_cache_value_gen(const char *s, size_t n);

/* What a forget did. generation: the generation after it (Redis's with a
 * Redis cache, else the embedded log's). */
typedef struct {
    long redis;       /* verdicts deleted from Redis */
    long embedded;    /* verdicts dropped from the embedded log */
    uint64_t generation;
} wh_cache_forgot_t;

/* What the cache holds, for `whittle cache stats`: one entry for the back
 * end and, with Redis, one for its embedded fallback. */
typedef struct {
    char where[320];            /* "embedded DIR", "memory", "redis://host:port/db" */
    long verdicts[WH_V_COUNT];  /* live verdicts by verdict */
    long predicted;             /* live predictions */
    long dropped;               /* forgotten verdicts still held (embedded) */
    long blobs;
    uint64_t bytes;             /* embedded: the logs' size; Redis: keys and values */
    uint64_t generation;
    long long hits, misses;     /* verdict lookups recorded (Redis); -1: not recorded */
    long unauthenticated;       /* Redis: values found without a valid MAC (not believed) */
    long stale;                 /* Redis: MAC-valid values of an older generation (not
                                   believed: stored before a forget, or written back) */
    long long rejected;         /* Redis: lookups that found one (counted as misses); -1 */
} wh_cache_stats_t;

/* The default folder: $WHITTLE_CACHE_DIR, $XDG_CACHE_HOME/whittle or
 * ~/.cache/whittle (malloc'ed; NULL when none can be named). The
 * coordinator keeps its snapshots under it too. */
char *wh_cache_default_dir(void);

#endif
