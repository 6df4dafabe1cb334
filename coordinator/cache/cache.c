/*
 * cache — the verdict cache's front: the public API of cache.h, spec
 * parsing, key checks and the key derivation. It hands binary keys to one
 * back end through the ops table of cache_be.h:
 *   memory: / dir:PATH / the default folder -> cache_embedded.c
 *   redis://...                             -> cache_redis.c
 */
#define _GNU_SOURCE
#include "cache.h"

#include "cache_be.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct wh_cache {
    const struct wh_cache_ops *ops;
    void *be;
};

static int s_key_parse(const char *hex, uint8_t out[WH_CACHE_KEY_BYTES])
{
    if (!hex || strlen(hex) != 2 * WH_CACHE_KEY_BYTES)
        return WH_EINVAL;
    return wh_cache_key_parse_n(hex, out);
}

/* ---- public API ---- */

int wh_cache_spec_check(const char *spec, char **err)
{
    if (!spec || !*spec || (strncmp(spec, "dir:", 4) == 0 && spec[4]) ||
        strcmp(spec, "memory:") == 0 || strncmp(spec, "redis://", 8) == 0)
        return 0;
    *err = wh_strdup_printf("unknown cache '%s' (expected dir:PATH, memory: or "
                            "redis://host:port[/db])",
                            spec);
    return WH_EINVAL;
}

wh_cache_t *wh_cache_open(const char *spec, char **err)
{
    char *dummy = NULL;
    if (!err)
        err = &dummy;
    *err = NULL;
    wh_cache_t *c = calloc(1, sizeof *c);
    if (!c) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    if (!spec || !*spec) {
        char *dir = wh_cache_default_dir();
        if (!dir) {
            *err = wh_strdup0("no cache folder: set WHITTLE_CACHE_DIR or HOME");
            goto fail;
        }
        c->ops = &wh_cache_emb_ops;
        c->be = wh_cache_emb_open(dir, err);
        free(dir);
    } else if (strncmp(spec, "dir:", 4) == 0 && spec[4]) {
        c->ops = &wh_cache_emb_ops;
        c->be = wh_cache_emb_open(spec + 4, err);
    } else if (strcmp(spec, "memory:") == 0) {
        c->ops = &wh_cache_emb_ops;
        c->be = wh_cache_mem_open();
        if (!c->be)
            *err = wh_strdup0("out of memory");
    } else if (strncmp(spec, "redis://", 8) == 0) {
        c->ops = &wh_cache_redis_ops;
        c->be = wh_cache_redis_open(spec, err);
    } else {
        wh_cache_spec_check(spec, err);
    }
    if (!c->be)
        goto fail;
    return c;
fail:
    free(c);
    if (err == &dummy)
        free(dummy);
    return NULL;
}

void wh_cache_close(wh_cache_t **cp)
{
    if (!cp || !*cp)
        return;
    wh_cache_t *c = *cp;
    c->ops->close(c->be);
    free(c);
    *cp = NULL;
}

int wh_cache_mget(wh_cache_t *c, const char *const *keys, int n, wh_verdict_t *out)
{
    return wh_cache_mget_ns(c, WH_CACHE_VERDICTS, keys, n, out);
}

int wh_cache_put(wh_cache_t *c, const char *key, wh_verdict_t v)
{
    return wh_cache_put_ns(c, WH_CACHE_VERDICTS, key, v);
}

int wh_cache_mget_ns(wh_cache_t *c, wh_cache_ns_t ns, const char *const *keys, int n,
                     wh_verdict_t *out)
{
    if (ns < 0 || ns >= WH_CACHE_NS)
        return WH_EINVAL;
    if (n <= 0)
        return n < 0 ? WH_EINVAL : 0;
    uint8_t (*bin)[WH_CACHE_KEY_BYTES] = malloc((size_t)n * sizeof *bin);
    if (!bin)
        return WH_ENOMEM;
    for (int i = 0; i < n; i++) {
        out[i] = WH_V_NONE;
        if (s_key_parse(keys[i], bin[i])) {
            free(bin);
            return WH_EINVAL;
        }
    }
    int rc = c->ops->get_many(c->be, (int)ns, (const uint8_t(*)[WH_CACHE_KEY_BYTES])bin, n, out);
    free(bin);
    return rc;
}

int wh_cache_get_node(wh_cache_t *c, const char *key, wh_verdict_t *v,
                      char node[WH_CACHE_NODE_MAX + 1])
{
    uint8_t bin[WH_CACHE_KEY_BYTES];
    *v = WH_V_NONE;
    node[0] = '\0';
    if (s_key_parse(key, bin))
        return WH_EINVAL;
    return c->ops->get_node(c->be, bin, v, node);
}

int wh_cache_put_ns(wh_cache_t *c, wh_cache_ns_t ns, const char *key, wh_verdict_t v)
{
    return wh_cache_put_node(c, ns, key, v, NULL);
}

int wh_cache_put_node(wh_cache_t *c, wh_cache_ns_t ns, const char *key, wh_verdict_t v,
                      const char *node)
{
    uint8_t bin[WH_CACHE_KEY_BYTES];
    if (ns < 0 || ns >= WH_CACHE_NS)
        return WH_EINVAL;
    if (s_key_parse(key, bin))
        return WH_EINVAL;
    if (!wh_cache_storable(v))
        return 0;
    char clean[WH_CACHE_NODE_MAX + 1];
    wh_cache_node_clean(node, clean);
    return c->ops->put(c->be, (int)ns, bin, v, clean);
}

int wh_cache_stats(wh_cache_t *c, wh_cache_stats_t st[2], int *n)
{
    *n = 0;
    int rc = c->ops->stats(c->be, st, 2);
    if (rc == WH_EUNAVAIL) {
        *n = 1;
        return rc;
    }
    if (rc < 0)
        return rc;
    *n = rc;
    return 0;
}

int wh_cache_clear(wh_cache_t *c, wh_cache_forgot_t *out)
{
    memset(out, 0, sizeof *out);
    return c->ops->clear(c->be, out);
}

void wh_cache_set_max(wh_cache_t *c, uint64_t bytes)
{
    if (c->ops == &wh_cache_emb_ops)
        wh_cache_emb_set_max(c->be, bytes);
    else if (c->ops == &wh_cache_redis_ops)
        wh_cache_emb_set_max(wh_cache_redis_fallback(c->be), bytes);
}

int wh_cache_parse_size(const char *s, uint64_t *bytes)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return WH_EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || *end || v > (UINT64_MAX >> shift))
        return WH_EINVAL;
    *bytes = (uint64_t)v << shift;
    return 0;
}

int wh_cache_forget_node(wh_cache_t *c, const char *node, wh_cache_forgot_t *out)
{
    memset(out, 0, sizeof *out);
    if (!wh_cache_node_ok(node))
        return WH_EINVAL;
    return c->ops->forget(c->be, node, out);
}

int wh_cache_drop(wh_cache_t *c, const char *key)
{
    uint8_t bin[WH_CACHE_KEY_BYTES];
    if (s_key_parse(key, bin))
        return WH_EINVAL;
    return c->ops->drop(c->be, bin);
}

/* Blob keys end up in a log line and a Redis key: printable, no spaces. */
static int s_blob_key_ok(const char *key)
{
    if (!key || !*key || strlen(key) > WH_CACHE_BLOB_KEY_MAX)
        return 0;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        if (*p <= ' ' || *p > '~')
            return 0;
    return 1;
}

int wh_cache_get_blob(wh_cache_t *c, const char *key, char **value)
{
    *value = NULL;
    if (!s_blob_key_ok(key))
        return WH_EINVAL;
    return c->ops->get_blob(c->be, key, value);
}

int wh_cache_put_blob(wh_cache_t *c, const char *key, const char *value)
{
    if (!s_blob_key_ok(key) || !value || strchr(value, '\n'))
        return WH_EINVAL;
    if (strlen(value) > WH_CACHE_BLOB_VALUE_MAX)
        return WH_ETOOBIG;
    return c->ops->put_blob(c->be, key, value);
}

const char *wh_cache_describe(const wh_cache_t *c)
{
    return c->ops->describe(c->be);
}

void wh_cache_key(const char *job_identity, const char *test_file, const void *content,
                  size_t len, char out[65])
{
    wh_sha256_t *h = wh_sha256_new();
    if (!h) {
        out[0] = '\0';
        return;
    }
    wh_sha256_field_str(h, "whittle-verdict-v1");
    wh_sha256_field_str(h, job_identity);
    wh_sha256_field_str(h, test_file);
    wh_sha256_field(h, content ? content : "", content ? len : 0);
    wh_sha256_final_hex(&h, out);
}

char *wh_cache_spec_masked(const char *spec)
{
    if (!spec)
        return NULL;
    if (strncmp(spec, "redis://", 8) != 0)
        return strdup(spec);
    const char *p = spec + 8, *at = NULL;
    for (const char *q = p; *q && *q != '/'; q++)
        if (*q == '@')
            at = q;
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (!colon)
        return strdup(spec);
    return wh_strdup_printf("redis://%.*s:***%s", (int)(colon - p), p, at);
}
