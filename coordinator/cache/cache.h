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

#include "cache_value.h"
#include "wh_common.h"

typedef struct wh_cache wh_cache_t;

/* spec: NULL or "" -> embedded in the default folder ($WHITTLE_CACHE_DIR,
 * else $XDG_CACHE_HOME/whittle, else ~/.cache/whittle); "dir:PATH" ->
 * embedded in PATH; "memory:" -> in memory only; "redis://..." -> Redis,
 * with the embedded default as the fallback. On error NULL and *err set. */
wh_cache_t *wh_cache_open(const char *spec, char **err);
void wh_cache_close(wh_cache_t **c);
/* 0 when spec names a kind of cache wh_cache_open knows (it may still
 * fail to open); else WH_EINVAL and *err (malloc'ed), said before any
 * work is done. */
int wh_cache_spec_check(const char *spec, char **err);

/* Looks up n keys (64-hex strings); out[i] = WH_V_NONE on a miss. Returns
 * 0, or WH_EINVAL when a key is not 64 hex chars (out all WH_V_NONE), or
 * WH_ENOMEM. A Redis outage is not an error: the embedded fallback answers.
 * With Redis, the n lookups are one pipelined round trip. */
int wh_cache_mget(wh_cache_t *c, const char *const *keys, int n, wh_verdict_t *out);
/* Stores one verdict; InfraError/None are ignored (return 0). Returns
 * WH_EINVAL for a bad key, or the error of the embedded log's append when
 * Redis did not take the verdict either (the verdict is still answered by
 * this handle from memory). */
int wh_cache_put(wh_cache_t *c, const char *key, wh_verdict_t v);

/* wh_cache_mget / wh_cache_put in key space ns (the plain ones use
 * WH_CACHE_VERDICTS). WH_EINVAL for an unknown ns. */
int wh_cache_mget_ns(wh_cache_t *c, wh_cache_ns_t ns, const char *const *keys, int n,
                     wh_verdict_t *out);
int wh_cache_put_ns(wh_cache_t *c, wh_cache_ns_t ns, const char *key, wh_verdict_t v);

/* The verdict of key in WH_CACHE_VERDICTS and the node that produced it
 * (its key name, WH_CACHE_NODE_LOCAL, or "" when not recorded); *v =
 * WH_V_NONE on a miss. 0, WH_EINVAL for a bad key. */
int wh_cache_get_node(wh_cache_t *c, const char *key, wh_verdict_t *v,
                      char node[WH_CACHE_NODE_MAX + 1]);

/* wh_cache_put_ns recording the node that produced v (NULL: local). The
 * plain puts record WH_CACHE_NODE_LOCAL. */
int wh_cache_put_node(wh_cache_t *c, wh_cache_ns_t ns, const char *key, wh_verdict_t v,
                      const char *node);

/* Drops every verdict node produced, everywhere: Redis (SCAN, DEL) and the
 * embedded log (a "Dropped" line each), then bumps the generation (Redis
 * key whittle:v1:generation, an "@generation N" line in the log). A Redis
 * back end answers a Redis miss from its embedded fallback only with
 * verdicts stored under the current generation, so a forgotten verdict
 * never comes back from a fallback that still holds it. 0, WH_EINVAL (bad
 * node name), WH_EUNAVAIL (Redis down: nothing forgotten there) or another
 * negative code; *out is filled in either case. */
int wh_cache_forget_node(wh_cache_t *c, const char *node, wh_cache_forgot_t *out);

/* Fills st[0] (and st[1] for Redis's fallback) and sets *n. 0, or a
 * negative code (WH_EUNAVAIL: Redis down, only the fallback in st[0]). */
int wh_cache_stats(wh_cache_t *c, wh_cache_stats_t st[2], int *n);
/* Removes every verdict, prediction and blob, everywhere (Redis: SCAN and
 * DEL of whittle:v1:*, the generation kept and bumped; embedded: the logs
 * rewritten empty under the lock), so nothing forgotten comes back from
 * a fallback. 0, WH_EUNAVAIL (Redis down: only the fallback cleared) or
 * another negative code; *out counts the verdicts removed. */
int wh_cache_clear(wh_cache_t *c, wh_cache_forgot_t *out);
/* --cache-max: the embedded logs (a Redis cache's fallback too) are
 * compacted, atomically under the folder's lock, keeping the latest
 * verdict per key, whenever they grow past bytes (0: never, the default). */
void wh_cache_set_max(wh_cache_t *c, uint64_t bytes);
/* Parses a size like 100K, 64M, 2G or 4096 (bytes). 0 or WH_EINVAL. */
int wh_cache_parse_size(const char *s, uint64_t *bytes);

/* Forgets the verdict of key everywhere it is stored (a verdict found
 * wrong: the verify step of reduce.c). Embedded: a "<key> Dropped" line in
 * the log, so other processes and later runs forget it too; Redis: DEL
 * (queued for write-back while Redis is down). 0, WH_EINVAL for a bad key,
 * or the error of the embedded log's append. */
int wh_cache_drop(wh_cache_t *c, const char *key);
/* "embedded", "memory", "redis" or "redis(down, embedded)". While Redis is
 * down the cache retries it at most every 5 s; $WHITTLE_REDIS_RETRY_MS
 * (read at open) changes that interval. Connect and command timeouts are
 * 1 s. Redis key layout: see the top of cache.c. */
const char *wh_cache_describe(const wh_cache_t *c);
/* spec with any password in a redis:// URL replaced by "***" (malloc'ed;
 * NULL for NULL): what may be printed or written to a run record. */
char *wh_cache_spec_masked(const char *spec);

/* The cache key: sha256("whittle-verdict-v1" ‖ job identity ‖ test-file path
 * ‖ content), every field length-prefixed (wh_sha256_field; a NULL string
 * hashes as ""). out gets 64 lower-case hex chars, or "" when out of
 * memory (which every cache call then rejects as WH_EINVAL). */
void wh_cache_key(const char *job_identity, const char *test_file,
                  const void *content, size_t len, char out[65]);

/* Small text values beside the verdicts (the baseline fingerprint of a job,
 * keyed "fp:<job identity>"), so a rerun of a job needs no build at all.
 * value must be one line of at most 64 KiB. get: 0 and *value (malloc'ed)
 * on a hit, WH_ENOTFOUND on a miss. Same back ends, same fallback. */
int wh_cache_get_blob(wh_cache_t *c, const char *key, char **value);
int wh_cache_put_blob(wh_cache_t *c, const char *key, const char *value);

#endif
