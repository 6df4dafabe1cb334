/*
 * cache — verdicts keyed by candidate content (DESIGN.md, "Cache key"),
 * behind a small ops table with two back ends:
 *   - embedded: an in-memory table backed by an append-only file
 *     (DIR/verdicts.log, one "key verdict" line each), so a rerun on one
 *     machine is answered from the cache; safe for several processes that
 *     append whole lines;
 *   - redis://host:port[/db]: a shared Redis through hiredis; lookups for a
 *     round are one pipelined batch. When Redis stops answering, the cache
 *     warns once and carries on with the embedded back end (same answers,
 *     nothing lost), retrying Redis now and then.
 * InfraError and None are never stored. Only the back end includes hiredis.
 * One owner thread per wh_cache_t.
 */
#ifndef WH_CACHE_H
#define WH_CACHE_H

#include "wh_common.h"

typedef struct wh_cache wh_cache_t;

/* spec: NULL or "" -> embedded in the default folder ($WHITTLE_CACHE_DIR,
 * else $XDG_CACHE_HOME/whittle, else ~/.cache/whittle); "dir:PATH" ->
 * embedded in PATH; "memory:" -> in memory only; "redis://..." -> Redis,
 * with the embedded default as the fallback. On error NULL and *err set. */
wh_cache_t *wh_cache_open(const char *spec, char **err);
void wh_cache_close(wh_cache_t **c);

/* Looks up n keys (64-hex strings); out[i] = WH_V_NONE on a miss. */
int wh_cache_mget(wh_cache_t *c, const char *const *keys, int n, wh_verdict_t *out);
/* Stores one verdict; InfraError/None are ignored (return 0). */
int wh_cache_put(wh_cache_t *c, const char *key, wh_verdict_t v);
/* "embedded", "memory", "redis" or "redis(down, embedded)". */
const char *wh_cache_describe(const wh_cache_t *c);

/* The cache key: sha256("whittle-verdict-v1" ‖ job identity ‖ test-file path
 * ‖ content), every field length-prefixed. */
void wh_cache_key(const char *job_identity, const char *test_file,
                  const void *content, size_t len, char out[65]);

#endif
