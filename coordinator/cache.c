/*
 * cache — the verdict cache behind a small ops table (struct wh_cache_ops)
 * with three back ends: memory (a hash table), embedded (the same table
 * backed by an append-only log file) and redis (hiredis, with the embedded
 * back end as its fallback).
 *
 * Redis key layout (copied into the README):
 *
 *     whittle:v1:verdict:<key>  ->  <VerdictName>
 *
 *   <key> is the 64-char lower-case hex cache key of wh_cache_key();
 *   <VerdictName> is one of Preserved, TestPassed, DifferentFailure,
 *   BuildFailed, TestMissing (InfraError and None are never stored). Plain
 *   string values written with SET and no expiry: a key is a content
 *   address, so its verdict never goes stale; use maxmemory with an LRU
 *   policy to bound the memory. The lookups of one round are one
 *   pipelined batch of MGETs (512 keys each). "v1" changes whenever the
 *   layout or the key derivation does, so old and new whittles can share
 *   one Redis without misreading each other.
 *
 *     whittle:v1:predicted:<key> ->  BuildFailed
 *
 *   Predictions (wh_cache_put_ns with WH_CACHE_PREDICTED): the front end
 *   rejected the candidate, no build ran. A key space of its own, so a
 *   real verdict is never confused with a prediction; same rules otherwise.
 *
 *   A verdict found wrong (wh_cache_drop) is deleted with DEL.
 *
 *     whittle:v1:blob:<name>    ->  <one-line text>
 *
 *   Small values beside the verdicts (wh_cache_put_blob), e.g.
 *   "fp:<job identity>" -> the job's baseline fingerprint as JSON. Also
 *   SET without expiry; at most 64 KiB each.
 *
 * Embedded store: DIR/verdicts.log, one "<64-hex-key> <VerdictName>\n"
 * line per verdict ("<key> Dropped" forgets a verdict found wrong), appended
 * with one write() on an O_APPEND descriptor so
 * that concurrent processes interleave whole lines. It is read at open and
 * its tail re-read when a lookup misses, so processes sharing a folder see
 * each other's verdicts. The last line for a key wins. A line is parsed
 * from its end (key, space, name), which makes a torn line left by a
 * crashed writer harmless: it is ignored, and so is its garbage when a
 * later line was appended right after it. The log is never compacted
 * (about 80 bytes per distinct verdict). Predictions live in
 * DIR/predicted.log, same format and rules, a table of their own. Blobs live beside it in
 * DIR/blobs.log ("<name> <value>\n" lines, same append and tail rules).
 *
 * Redis fallback: when Redis cannot be reached at open, or a command fails
 * mid-run (I/O error, 1 s timeout, error reply), the cache warns once per
 * outage and serves from the embedded back end, which receives every put
 * whether Redis is up or not, so it holds everything this process stored.
 * While down, it retries connecting at most every 5 s
 * ($WHITTLE_REDIS_RETRY_MS). When Redis answers again it is used again,
 * and the puts made while it was down (up to S_PENDING_MAX of them) are
 * written back in one pipelined batch. A Redis miss is also looked up in
 * the embedded table, so the answers never depend on whether Redis was
 * restarted empty.
 */
#define _GNU_SOURCE
#include "cache.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define S_KEY_BYTES 32
#define S_NS 2 /* key spaces: WH_CACHE_VERDICTS, WH_CACHE_PREDICTED */
static const char *const s_redis_prefix[S_NS] = {"whittle:v1:verdict:", "whittle:v1:predicted:"};
static const char *const s_log_name[S_NS] = {"verdicts.log", "predicted.log"};
#define S_REDIS_PREFIX_MAX (sizeof "whittle:v1:predicted:" - 1)
#define S_REDIS_TIMEOUT_MS 1000
#define S_REDIS_RETRY_MS 5000
#define S_MGET_CHUNK 512
#define S_PENDING_MAX 100000
#define S_LINE_TAIL 128 /* bytes of a log line kept for parsing its end */
#define S_BLOB_KEY_MAX 256
#define S_BLOB_VALUE_MAX (64u << 10)
#define S_REDIS_BLOB_PREFIX "whittle:v1:blob:"

/* Back ends get keys already parsed to binary. */
struct wh_cache_ops {
    /* out[i] = verdict or WH_V_NONE on a miss in key space ns; 0 or a
     * negative code. */
    int (*get_many)(void *be, int ns, const uint8_t (*keys)[S_KEY_BYTES], int n,
                    wh_verdict_t *out);
    /* v is storable (never None/InfraError); 0 or a negative code. */
    int (*put)(void *be, int ns, const uint8_t key[S_KEY_BYTES], wh_verdict_t v);
    /* Forgets key in the verdicts key space; 0 or a negative code. */
    int (*drop)(void *be, const uint8_t key[S_KEY_BYTES]);
    /* Blobs: 0 and *value (malloc'ed) on a hit, WH_ENOTFOUND on a miss. */
    int (*get_blob)(void *be, const char *key, char **value);
    int (*put_blob)(void *be, const char *key, const char *value);
    const char *(*describe)(const void *be);
    void (*close)(void *be);
};

struct wh_cache {
    const struct wh_cache_ops *ops;
    void *be;
};

static int s_storable(wh_verdict_t v)
{
    return v > WH_V_NONE && v < WH_V_COUNT && v != WH_V_INFRA_ERROR;
}

static int s_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses exactly 64 hex chars (no terminator needed). */
static int s_key_parse_n(const char *hex, uint8_t out[S_KEY_BYTES])
{
    for (int i = 0; i < S_KEY_BYTES; i++) {
        int hi = s_hexval((unsigned char)hex[2 * i]), lo = s_hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return WH_EINVAL;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

static int s_key_parse(const char *hex, uint8_t out[S_KEY_BYTES])
{
    if (!hex || strlen(hex) != 2 * S_KEY_BYTES)
        return WH_EINVAL;
    return s_key_parse_n(hex, out);
}

static void s_key_hex(const uint8_t key[S_KEY_BYTES], char out[2 * S_KEY_BYTES + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < S_KEY_BYTES; i++) {
        out[2 * i] = digits[key[i] >> 4];
        out[2 * i + 1] = digits[key[i] & 15];
    }
    out[2 * S_KEY_BYTES] = '\0';
}

/* ---- hash table: binary key -> verdict, open addressing ---- */

typedef struct {
    uint8_t key[S_KEY_BYTES];
    uint8_t v; /* WH_V_NONE = empty slot; S_DROPPED = a forgotten verdict */
} s_slot_t;

/* An occupied slot that answers "miss": open addressing cannot empty a
 * slot without breaking the probe chains behind it. */
#define S_DROPPED 0xff
#define S_DROPPED_NAME "Dropped"

typedef struct {
    s_slot_t *slots;
    size_t cap; /* power of two */
    size_t n;
} s_table_t;

static size_t s_hash(const uint8_t key[S_KEY_BYTES])
{
    /* Keys are SHA-256 digests, but mix anyway: a caller may hand in any hex. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < S_KEY_BYTES; i++)
        h = (h ^ key[i]) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

static s_slot_t *s_table_find(const s_table_t *t, const uint8_t key[S_KEY_BYTES])
{
    if (!t->cap)
        return NULL;
    size_t i = s_hash(key) & (t->cap - 1);
    for (;;) {
        s_slot_t *s = &t->slots[i];
        if (s->v == WH_V_NONE || memcmp(s->key, key, S_KEY_BYTES) == 0)
            return s;
        i = (i + 1) & (t->cap - 1);
    }
}

static wh_verdict_t s_table_get(const s_table_t *t, const uint8_t key[S_KEY_BYTES])
{
    s_slot_t *s = s_table_find(t, key);
    return s && s->v != S_DROPPED ? (wh_verdict_t)s->v : WH_V_NONE;
}

static int s_table_grow(s_table_t *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    s_slot_t *old = t->slots;
    size_t oldcap = t->cap;
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return WH_ENOMEM;
    }
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].v != WH_V_NONE)
            *s_table_find(t, old[i].key) = old[i];
    free(old);
    return 0;
}

/* Sets key to v (or S_DROPPED); *changed tells whether that changed
 * anything. */
static int s_table_set(s_table_t *t, const uint8_t key[S_KEY_BYTES], int v, int *changed)
{
    if ((t->n + 1) * 2 > t->cap) {
        int rc = s_table_grow(t);
        if (rc)
            return rc;
    }
    s_slot_t *s = s_table_find(t, key);
    *changed = s->v != (uint8_t)v;
    if (s->v == WH_V_NONE) {
        memcpy(s->key, key, S_KEY_BYTES);
        t->n++;
    }
    s->v = (uint8_t)v;
    return 0;
}

static void s_table_free(s_table_t *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* ---- blob table: string key -> one-line string value ---- */

typedef struct {
    char *key, *val;
} s_bslot_t;

typedef struct {
    s_bslot_t *slots;
    size_t cap, n;
} s_btable_t;

static size_t s_strhash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

static s_bslot_t *s_btable_find(const s_btable_t *t, const char *key)
{
    if (!t->cap)
        return NULL;
    size_t i = s_strhash(key) & (t->cap - 1);
    for (;;) {
        s_bslot_t *s = &t->slots[i];
        if (!s->key || strcmp(s->key, key) == 0)
            return s;
        i = (i + 1) & (t->cap - 1);
    }
}

static const char *s_btable_get(const s_btable_t *t, const char *key)
{
    s_bslot_t *s = s_btable_find(t, key);
    return s ? s->val : NULL;
}

/* Copies key and val in; *changed tells whether the value changed. */
static int s_btable_set(s_btable_t *t, const char *key, size_t klen, const char *val,
                        size_t vlen, int *changed)
{
    *changed = 0;
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        s_bslot_t *ns = calloc(cap, sizeof *ns), *old = t->slots;
        if (!ns)
            return WH_ENOMEM;
        size_t oldcap = t->cap;
        t->slots = ns;
        t->cap = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].key)
                *s_btable_find(t, old[i].key) = old[i];
        free(old);
    }
    char *k = strndup(key, klen), *v = strndup(val, vlen);
    if (!k || !v) {
        free(k);
        free(v);
        return WH_ENOMEM;
    }
    s_bslot_t *s = s_btable_find(t, k);
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

static void s_btable_free(s_btable_t *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->slots[i].key);
        free(t->slots[i].val);
    }
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* ---- memory and embedded back ends ---- */

/* One key space: its table and its log. */
typedef struct {
    s_table_t t;
    char *path;     /* DIR/verdicts.log or DIR/predicted.log; NULL for memory: */
    int fd;         /* O_RDWR | O_APPEND; -1 for memory: */
    off_t loaded;   /* the log has been parsed up to here (a line start) */
    char line[S_LINE_TAIL];
    size_t line_len;
} s_vlog_t;

typedef struct {
    s_vlog_t v[S_NS];
    /* Blobs: DIR/blobs.log, "<key> <value>\n" lines, same rules. */
    s_btable_t b;
    char *bpath;
    int bfd;
    off_t bloaded;
} s_emb_t;

/* Applies one log line, given its last bytes (up to S_LINE_TAIL): the
 * line's end must be "<64 hex> <VerdictName>"; anything before that is a
 * torn line's leftovers and is ignored. */
static void s_emb_apply_line(s_vlog_t *e, const char *s, size_t n)
{
    const char *sp = NULL;
    for (size_t i = n; i-- > 0;)
        if (s[i] == ' ') {
            sp = s + i;
            break;
        }
    if (!sp || (size_t)(sp - s) < 2 * S_KEY_BYTES)
        return;
    char name[32];
    size_t nl = (size_t)(s + n - sp - 1);
    if (nl == 0 || nl >= sizeof name)
        return;
    memcpy(name, sp + 1, nl);
    name[nl] = '\0';
    int v = strcmp(name, S_DROPPED_NAME) == 0 ? S_DROPPED : (int)wh_verdict_parse(name);
    uint8_t key[S_KEY_BYTES];
    if ((v != S_DROPPED && !s_storable((wh_verdict_t)v)) ||
        s_key_parse_n(sp - 2 * S_KEY_BYTES, key))
        return;
    int changed;
    (void)s_table_set(&e->t, key, v, &changed); /* ENOMEM: just a miss later */
}

/* Keeps the last S_LINE_TAIL bytes of the current line. */
static void s_emb_line_add(s_vlog_t *e, const char *p, size_t n)
{
    if (n >= S_LINE_TAIL) {
        memcpy(e->line, p + n - S_LINE_TAIL, S_LINE_TAIL);
        e->line_len = S_LINE_TAIL;
        return;
    }
    if (e->line_len + n > S_LINE_TAIL) {
        size_t drop = e->line_len + n - S_LINE_TAIL;
        memmove(e->line, e->line + drop, e->line_len - drop);
        e->line_len -= drop;
    }
    memcpy(e->line + e->line_len, p, n);
    e->line_len += n;
}

/* Reads the log from e->loaded to its end and applies every complete line.
 * A partial last line is left for the next call. */
static int s_emb_tail(s_vlog_t *e)
{
    if (e->fd < 0)
        return 0;
    struct stat st;
    if (fstat(e->fd, &st) < 0)
        return -errno;
    if (st.st_size <= e->loaded)
        return 0;
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return WH_ENOMEM;
    off_t off = e->loaded, line_start = e->loaded;
    e->line_len = 0;
    int rc = 0;
    for (;;) {
        ssize_t got = pread(e->fd, buf, CHUNK, off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (got == 0)
            break;
        const char *p = buf, *end = buf + got;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) {
                s_emb_line_add(e, p, (size_t)(end - p));
                break;
            }
            s_emb_line_add(e, p, (size_t)(nl - p));
            s_emb_apply_line(e, e->line, e->line_len);
            e->line_len = 0;
            line_start = off + (nl + 1 - buf);
            p = nl + 1;
        }
        off += got;
    }
    e->loaded = line_start;
    free(buf);
    return rc;
}

static int s_emb_get_many(void *be, int ns, const uint8_t (*keys)[S_KEY_BYTES], int n,
                          wh_verdict_t *out)
{
    s_vlog_t *e = &((s_emb_t *)be)->v[ns];
    int misses = 0;
    for (int i = 0; i < n; i++)
        if ((out[i] = s_table_get(&e->t, keys[i])) == WH_V_NONE)
            misses++;
    /* Another process may have appended what we miss. */
    if (misses && e->fd >= 0 && s_emb_tail(e) == 0)
        for (int i = 0; i < n; i++)
            if (out[i] == WH_V_NONE)
                out[i] = s_table_get(&e->t, keys[i]);
    return 0;
}

/* Sets key to v (a verdict or S_DROPPED) in one key space's log and
 * appends the line. */
static int s_emb_set(s_vlog_t *e, const uint8_t key[S_KEY_BYTES], int v)
{
    int changed = 0;
    int rc = s_table_set(&e->t, key, v, &changed);
    if (rc || !changed || e->fd < 0)
        return rc;
    char line[2 * S_KEY_BYTES + 32];
    s_key_hex(key, line);
    int len = snprintf(line + 2 * S_KEY_BYTES, sizeof line - 2 * S_KEY_BYTES, " %s\n",
                       v == S_DROPPED ? S_DROPPED_NAME : wh_verdict_name((wh_verdict_t)v));
    size_t n = 2 * S_KEY_BYTES + (size_t)len;
    /* One write per line: O_APPEND makes it land whole at the end even
     * with other writers. Retrying the rest of a short write would split
     * the line, so a short write is terminated instead and the (torn) line
     * is ignored by readers. */
    ssize_t w;
    do
        w = write(e->fd, line, n);
    while (w < 0 && errno == EINTR);
    if (w < 0)
        return -errno;
    if ((size_t)w != n) {
        if (write(e->fd, "\n", 1) < 0) {
            /* Nothing more to do: readers skip the torn line anyway. */
        }
        return WH_EIO;
    }
    return 0;
}

static int s_emb_put(void *be, int ns, const uint8_t key[S_KEY_BYTES], wh_verdict_t v)
{
    return s_emb_set(&((s_emb_t *)be)->v[ns], key, (int)v);
}

/* Only real verdicts are ever found wrong; predictions are never dropped
 * (they are not claims of a node). */
static int s_emb_drop(void *be, const uint8_t key[S_KEY_BYTES])
{
    s_vlog_t *e = &((s_emb_t *)be)->v[WH_CACHE_VERDICTS];
    /* Only a key this process knows needs a line; but another process may
     * have stored it since: read the tail first. */
    if (e->fd >= 0)
        (void)s_emb_tail(e);
    if (s_table_get(&e->t, key) == WH_V_NONE)
        return 0;
    return s_emb_set(e, key, S_DROPPED);
}

/* Applies one complete blob line "<key> <value>". A line garbled by a torn
 * write yields a key nobody asks for. */
static void s_emb_apply_blob(s_emb_t *e, const char *s, size_t n)
{
    const char *sp = memchr(s, ' ', n);
    if (!sp || sp == s || (size_t)(sp - s) > S_BLOB_KEY_MAX || memchr(s, '\0', n))
        return;
    int changed;
    (void)s_btable_set(&e->b, s, (size_t)(sp - s), sp + 1, n - (size_t)(sp + 1 - s), &changed);
}

/* Reads blobs.log from e->bloaded to its end (as s_emb_tail does for
 * verdicts); lines longer than any valid one are skipped. */
static int s_emb_btail(s_emb_t *e)
{
    if (e->bfd < 0)
        return 0;
    struct stat st;
    if (fstat(e->bfd, &st) < 0)
        return -errno;
    if (st.st_size <= e->bloaded)
        return 0;
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return WH_ENOMEM;
    wh_buf_t line = WH_BUF_INIT;
    int skipping = 0, rc = 0;
    off_t off = e->bloaded, line_start = e->bloaded;
    for (;;) {
        ssize_t got = pread(e->bfd, buf, CHUNK, off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (got == 0)
            break;
        const char *p = buf, *end = buf + got;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl : end) - p);
            if (!skipping && line.len + n > S_BLOB_KEY_MAX + 1 + S_BLOB_VALUE_MAX) {
                skipping = 1;
                wh_buf_reset(&line);
            }
            if (!skipping && wh_buf_append(&line, p, n)) {
                rc = WH_ENOMEM;
                goto out;
            }
            if (!nl)
                break;
            if (!skipping)
                s_emb_apply_blob(e, line.buf ? line.buf : "", line.len);
            skipping = 0;
            wh_buf_reset(&line);
            line_start = off + (nl + 1 - buf);
            p = nl + 1;
        }
        off += got;
    }
out:
    e->bloaded = line_start;
    wh_buf_free(&line);
    free(buf);
    return rc;
}

static int s_emb_get_blob(void *be, const char *key, char **value)
{
    s_emb_t *e = be;
    const char *v = s_btable_get(&e->b, key);
    if (!v && e->bfd >= 0 && s_emb_btail(e) == 0)
        v = s_btable_get(&e->b, key);
    if (!v)
        return WH_ENOTFOUND;
    *value = strdup(v);
    return *value ? 0 : WH_ENOMEM;
}

static int s_emb_put_blob(void *be, const char *key, const char *value)
{
    s_emb_t *e = be;
    int changed = 0;
    int rc = s_btable_set(&e->b, key, strlen(key), value, strlen(value), &changed);
    if (rc || !changed || e->bfd < 0)
        return rc;
    char *line = wh_strdup_printf("%s %s\n", key, value);
    if (!line)
        return WH_ENOMEM;
    size_t n = strlen(line);
    ssize_t w;
    do
        w = write(e->bfd, line, n); /* one write: see s_emb_put */
    while (w < 0 && errno == EINTR);
    free(line);
    if (w < 0)
        return -errno;
    if ((size_t)w != n) {
        if (write(e->bfd, "\n", 1) < 0) {
            /* Readers skip the torn line anyway. */
        }
        return WH_EIO;
    }
    return 0;
}

static const char *s_emb_describe(const void *be)
{
    const s_emb_t *e = be;
    return e->v[0].fd >= 0 ? "embedded" : "memory";
}

static void s_emb_close(void *be)
{
    s_emb_t *e = be;
    if (!e)
        return;
    for (int ns = 0; ns < S_NS; ns++) {
        if (e->v[ns].fd >= 0)
            close(e->v[ns].fd);
        free(e->v[ns].path);
        s_table_free(&e->v[ns].t);
    }
    if (e->bfd >= 0)
        close(e->bfd);
    free(e->bpath);
    s_btable_free(&e->b);
    free(e);
}

static const struct wh_cache_ops s_emb_ops = {
    s_emb_get_many, s_emb_put, s_emb_drop, s_emb_get_blob, s_emb_put_blob, s_emb_describe, s_emb_close,
};

static s_emb_t *s_mem_open(void)
{
    s_emb_t *e = calloc(1, sizeof *e);
    if (e)
        e->v[0].fd = e->v[1].fd = e->bfd = -1;
    return e;
}

/* Opens one of e's logs, DIR/name (creating it), into *path and *fd. 0, or
 * -1 with *err set. */
static int s_emb_open_log(const char *dir, const char *name, char **path, int *fd, char **err)
{
    *path = wh_path_join(dir, name);
    if (!*path) {
        *err = wh_strdup0("out of memory");
        return -1;
    }
    *fd = open(*path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) {
        *err = wh_strdup_printf("cannot open '%s': %s", *path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Reports a failed initial load of a log. */
static int s_emb_loaded(int rc, const char *path, char **err)
{
    if (rc)
        *err = wh_strdup_printf("cannot read '%s': %s", path, wh_strerror(rc));
    return rc ? -1 : 0;
}

/* Opens (creating the folder and the logs) and loads DIR/verdicts.log,
 * DIR/predicted.log and DIR/blobs.log. */
static s_emb_t *s_emb_open(const char *dir, char **err)
{
    s_emb_t *e = s_mem_open();
    if (!e) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    int rc = wh_mkdir_p(dir);
    if (rc) {
        *err = wh_strdup_printf("cannot create cache folder '%s': %s", dir, wh_strerror(rc));
        goto fail;
    }
    for (int ns = 0; ns < S_NS; ns++) {
        s_vlog_t *l = &e->v[ns];
        if (s_emb_open_log(dir, s_log_name[ns], &l->path, &l->fd, err) ||
            s_emb_loaded(s_emb_tail(l), l->path, err))
            goto fail;
    }
    if (s_emb_open_log(dir, "blobs.log", &e->bpath, &e->bfd, err) ||
        s_emb_loaded(s_emb_btail(e), e->bpath, err))
        goto fail;
    return e;
fail:
    s_emb_close(e);
    return NULL;
}

/* The default folder: $WHITTLE_CACHE_DIR, $XDG_CACHE_HOME/whittle or
 * ~/.cache/whittle. */
static char *s_default_dir(void)
{
    const char *d = getenv("WHITTLE_CACHE_DIR");
    if (d && *d)
        return strdup(d);
    d = getenv("XDG_CACHE_HOME");
    if (d && *d)
        return wh_path_join(d, "whittle");
    d = getenv("HOME");
    if (d && *d)
        return wh_path_join(d, ".cache/whittle");
    return NULL;
}

/* ---- redis back end ---- */

typedef struct {
    uint8_t key[S_KEY_BYTES];
    uint8_t v;
    uint8_t ns;
} s_pending_t;

typedef struct {
    char *url;             /* as given, with the password masked: safe to print */
    char *host;
    int port, db;
    char *user, *password; /* AUTH [user] password when password is set */
    redisContext *rc;      /* NULL while down */
    int down;              /* an outage was announced */
    uint64_t next_retry_ms;
    unsigned retry_ms;
    s_emb_t *emb;          /* fallback; receives every put */
    const struct wh_cache_ops *emb_ops;
    s_pending_t *pending;  /* puts (v None: drops) Redis missed while down */
    size_t n_pending, cap_pending;
    int pending_overflow;
} s_redis_t;

/* hiredis writes with write(2): a peer that died mid-batch would raise
 * SIGPIPE and kill the process. Block it around Redis I/O and swallow one
 * that our write caused, leaving the process's signal setup alone. */
typedef struct {
    sigset_t old;
    int was_pending;
} s_nopipe_t;

static void s_nopipe_begin(s_nopipe_t *p)
{
    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigemptyset(&pend);
    sigpending(&pend);
    p->was_pending = sigismember(&pend, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &set, &p->old);
}

static void s_nopipe_end(s_nopipe_t *p)
{
    if (!p->was_pending) {
        sigset_t set, pend;
        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        sigemptyset(&pend);
        sigpending(&pend);
        if (sigismember(&pend, SIGPIPE) == 1) {
            struct timespec zero = {0, 0};
            while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
    }
    pthread_sigmask(SIG_SETMASK, &p->old, NULL);
}

static const char *s_rc_err(const redisContext *c)
{
    return c->err && c->errstr[0] ? c->errstr : "connection lost";
}

/* 1 when rep is a non-error reply; else 0, or -2 when Redis refused our
 * credentials (NOAUTH, WRONGPASS, NOPERM: no retry will help), with why set.
 * Frees rep. */
static int s_reply_ok(redisContext *c, redisReply *rep, char *why, size_t why_sz)
{
    int ok = 1;
    if (!rep) {
        snprintf(why, why_sz, "%s", s_rc_err(c));
        return 0;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        const char *e = rep->str ? rep->str : "error reply";
        snprintf(why, why_sz, "%s", e);
        ok = !strncmp(e, "NOAUTH", 6) || !strncmp(e, "WRONGPASS", 9) || !strncmp(e, "NOPERM", 6) ||
                     strstr(e, "invalid password") || strstr(e, "invalid username-password")
                 ? -2
                 : 0;
    }
    freeReplyObject(rep);
    return ok;
}

/* AUTH [user] password (Redis 6 ACL users; just the password for
 * requirepass). 1 ok or nothing to do; 0 / -2 as s_reply_ok. */
static int s_redis_auth(const s_redis_t *r, redisContext *c, char *why, size_t why_sz)
{
    if (!r->password)
        return 1;
    redisReply *rep = r->user ? redisCommand(c, "AUTH %s %s", r->user, r->password)
                              : redisCommand(c, "AUTH %s", r->password);
    return s_reply_ok(c, rep, why, why_sz);
}

/* Connects, authenticates, selects the db and checks that Redis answers.
 * 0, or -1 (unreachable) / -2 (credentials refused) with *why (in the
 * caller's buffer) set. */
static int s_redis_connect(s_redis_t *r, char *why, size_t why_sz)
{
    struct timeval tv = {S_REDIS_TIMEOUT_MS / 1000, (S_REDIS_TIMEOUT_MS % 1000) * 1000};
    s_nopipe_t np;
    s_nopipe_begin(&np);
    redisContext *c = redisConnectWithTimeout(r->host, r->port, tv);
    int ok = 0;
    if (!c) {
        snprintf(why, why_sz, "out of memory");
    } else if (c->err) {
        snprintf(why, why_sz, "%s", s_rc_err(c));
    } else if (redisSetTimeout(c, tv) != REDIS_OK) {
        snprintf(why, why_sz, "%s", s_rc_err(c));
    } else {
        redisEnableKeepAlive(c);
        ok = s_redis_auth(r, c, why, why_sz);
        if (ok == 1) {
            redisReply *rep = r->db ? redisCommand(c, "SELECT %d", r->db) : redisCommand(c, "PING");
            ok = s_reply_ok(c, rep, why, why_sz);
        }
    }
    s_nopipe_end(&np);
    if (ok != 1) {
        if (c)
            redisFree(c);
        return ok == -2 ? -2 : -1;
    }
    r->rc = c;
    return 0;
}

/* Marks Redis down: drops the connection, warns once per outage. */
static void s_redis_down(s_redis_t *r, const char *why)
{
    if (r->rc) {
        redisFree(r->rc);
        r->rc = NULL;
    }
    if (!r->down)
        wh_warn("redis at %s unavailable (%s); using the embedded cache", r->url, why);
    r->down = 1;
    r->next_retry_ms = wh_now_ms() + r->retry_ms;
}

static int s_redis_flush_pending(s_redis_t *r);

/* While down, reconnects when the retry interval has passed. */
static void s_redis_maybe_retry(s_redis_t *r)
{
    if (r->rc || wh_now_ms() < r->next_retry_ms)
        return;
    char why[256];
    if (s_redis_connect(r, why, sizeof why)) {
        wh_debug("redis at %s still unavailable (%s)", r->url, why);
        r->next_retry_ms = wh_now_ms() + r->retry_ms;
        return;
    }
    if (r->down)
        wh_info("redis at %s is back; using it again", r->url);
    r->down = 0;
    s_redis_flush_pending(r);
}

/* Writes the Redis key of key in key space ns; returns its length. */
static size_t s_redis_key(char *dst, int ns, const uint8_t key[S_KEY_BYTES])
{
    size_t n = strlen(s_redis_prefix[ns]);
    memcpy(dst, s_redis_prefix[ns], n);
    s_key_hex(key, dst + n);
    return n + 2 * S_KEY_BYTES;
}

#define S_RKEY_SZ (S_REDIS_PREFIX_MAX + 2 * S_KEY_BYTES + 1)

/* Sends n SETs (DELs for items whose v is None) as one pipelined batch and reads the replies. 0, or -1
 * with why set (the connection is then unusable). */
static int s_redis_set_batch(s_redis_t *r, const s_pending_t *items, size_t n, char *why,
                             size_t why_sz)
{
    s_nopipe_t np;
    s_nopipe_begin(&np);
    int rc = 0;
    size_t sent = 0;
    for (; sent < n; sent++) {
        char k[S_RKEY_SZ];
        size_t kl = s_redis_key(k, items[sent].ns, items[sent].key);
        /* v None: a dropped verdict, deleted. */
        int del = items[sent].v == WH_V_NONE;
        const char *name = wh_verdict_name((wh_verdict_t)items[sent].v);
        const char *argv[3] = {del ? "DEL" : "SET", k, name};
        size_t argl[3] = {3, kl, strlen(name)};
        if (redisAppendCommandArgv(r->rc, del ? 2 : 3, argv, argl) != REDIS_OK) {
            snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            rc = -1;
            break;
        }
    }
    /* Read every reply that was queued, even after a failure, so the
     * context never holds a stale reply. */
    for (size_t i = 0; i < sent; i++) {
        void *vrep = NULL;
        if (redisGetReply(r->rc, &vrep) != REDIS_OK) {
            if (!rc)
                snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            rc = -1;
            break;
        }
        redisReply *rep = vrep;
        if (rep->type == REDIS_REPLY_ERROR && !rc) {
            snprintf(why, why_sz, "%s", rep->str ? rep->str : "error reply");
            rc = -1;
        }
        freeReplyObject(rep);
    }
    s_nopipe_end(&np);
    return rc;
}

static int s_redis_flush_pending(s_redis_t *r)
{
    if (!r->n_pending || !r->rc)
        return 0;
    char why[256];
    if (s_redis_set_batch(r, r->pending, r->n_pending, why, sizeof why)) {
        s_redis_down(r, why);
        return WH_EUNAVAIL;
    }
    wh_debug("wrote %zu verdicts stored during the redis outage back to %s", r->n_pending, r->url);
    if (r->pending_overflow)
        wh_info("more than %d verdicts were stored while redis was down; only the first were "
                "written back to it",
                S_PENDING_MAX);
    r->n_pending = 0;
    r->pending_overflow = 0;
    return 0;
}

static void s_redis_remember(s_redis_t *r, int ns, const uint8_t key[S_KEY_BYTES], wh_verdict_t v)
{
    if (r->n_pending == r->cap_pending) {
        if (r->cap_pending >= S_PENDING_MAX) {
            r->pending_overflow = 1;
            return;
        }
        size_t cap = r->cap_pending ? r->cap_pending * 2 : 256;
        if (cap > S_PENDING_MAX)
            cap = S_PENDING_MAX;
        s_pending_t *p = realloc(r->pending, cap * sizeof *p);
        if (!p)
            return; /* still in the embedded store; only the write-back is lost */
        r->pending = p;
        r->cap_pending = cap;
    }
    memcpy(r->pending[r->n_pending].key, key, S_KEY_BYTES);
    r->pending[r->n_pending].v = (uint8_t)v;
    r->pending[r->n_pending].ns = (uint8_t)ns;
    r->n_pending++;
}

/* MGET in pipelined chunks. 0, or -1 with why set. */
static int s_redis_mget(s_redis_t *r, int ns, const uint8_t (*keys)[S_KEY_BYTES], int n,
                        wh_verdict_t *out, char *why, size_t why_sz)
{
    int chunk = n < S_MGET_CHUNK ? n : S_MGET_CHUNK;
    char *kbuf = malloc((size_t)chunk * S_RKEY_SZ);
    const char **argv = malloc((size_t)(chunk + 1) * sizeof *argv);
    size_t *argl = malloc((size_t)(chunk + 1) * sizeof *argl);
    if (!kbuf || !argv || !argl) {
        free(kbuf);
        free(argv);
        free(argl);
        snprintf(why, why_sz, "out of memory");
        return WH_ENOMEM;
    }
    s_nopipe_t np;
    s_nopipe_begin(&np);
    int rc = 0, sent = 0;
    for (int base = 0; base < n; base += S_MGET_CHUNK) {
        int k = n - base < S_MGET_CHUNK ? n - base : S_MGET_CHUNK;
        argv[0] = "MGET";
        argl[0] = 4;
        for (int i = 0; i < k; i++) {
            char *dst = kbuf + (size_t)i * S_RKEY_SZ;
            argl[i + 1] = s_redis_key(dst, ns, keys[base + i]);
            argv[i + 1] = dst;
        }
        /* hiredis copies the arguments into its output buffer. */
        if (redisAppendCommandArgv(r->rc, k + 1, argv, argl) != REDIS_OK) {
            snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            rc = -1;
            break;
        }
        sent++;
    }
    for (int c = 0; c < sent; c++) {
        int base = c * S_MGET_CHUNK;
        int k = n - base < S_MGET_CHUNK ? n - base : S_MGET_CHUNK;
        void *vrep = NULL;
        if (redisGetReply(r->rc, &vrep) != REDIS_OK) {
            if (!rc)
                snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            rc = -1;
            break;
        }
        redisReply *rep = vrep;
        if (rep->type == REDIS_REPLY_ARRAY && rep->elements == (size_t)k) {
            for (int i = 0; i < k; i++) {
                redisReply *el = rep->element[i];
                wh_verdict_t v = WH_V_NONE;
                if (el->type == REDIS_REPLY_STRING && el->len < 32)
                    v = wh_verdict_parse(el->str);
                out[base + i] = s_storable(v) ? v : WH_V_NONE;
            }
        } else if (!rc) {
            snprintf(why, why_sz, "%s",
                     rep->type == REDIS_REPLY_ERROR && rep->str ? rep->str : "unexpected reply");
            rc = -1;
        }
        freeReplyObject(rep);
    }
    s_nopipe_end(&np);
    free(kbuf);
    free(argv);
    free(argl);
    return rc;
}

static int s_redis_get_many(void *be, int ns, const uint8_t (*keys)[S_KEY_BYTES], int n,
                            wh_verdict_t *out)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    if (r->rc) {
        char why[256];
        int rc = s_redis_mget(r, ns, keys, n, out, why, sizeof why);
        if (rc == 0) {
            /* Redis may have been restarted empty, or missed puts while
             * down: fill its misses from the embedded store. */
            int misses = 0;
            for (int i = 0; i < n; i++)
                misses += out[i] == WH_V_NONE;
            if (!misses)
                return 0;
            wh_verdict_t *local = malloc((size_t)n * sizeof *local);
            if (!local)
                return 0; /* misses stay misses */
            r->emb_ops->get_many(r->emb, ns, keys, n, local);
            for (int i = 0; i < n; i++)
                if (out[i] == WH_V_NONE)
                    out[i] = local[i];
            free(local);
            return 0;
        }
        if (rc == WH_ENOMEM)
            return rc;
        s_redis_down(r, why);
    }
    return r->emb_ops->get_many(r->emb, ns, keys, n, out);
}

static int s_redis_put(void *be, int ns, const uint8_t key[S_KEY_BYTES], wh_verdict_t v)
{
    s_redis_t *r = be;
    int erc = r->emb_ops->put(r->emb, ns, key, v);
    s_redis_maybe_retry(r);
    if (r->rc) {
        s_pending_t item;
        memcpy(item.key, key, S_KEY_BYTES);
        item.v = (uint8_t)v;
        item.ns = (uint8_t)ns;
        char why[256];
        if (s_redis_set_batch(r, &item, 1, why, sizeof why) == 0)
            return 0;
        s_redis_down(r, why);
    }
    s_redis_remember(r, ns, key, v);
    return erc;
}

static int s_redis_drop(void *be, const uint8_t key[S_KEY_BYTES])
{
    s_redis_t *r = be;
    int erc = r->emb_ops->drop(r->emb, key);
    s_redis_maybe_retry(r);
    if (r->rc) {
        s_pending_t item;
        memcpy(item.key, key, S_KEY_BYTES);
        item.ns = WH_CACHE_VERDICTS;
        item.v = WH_V_NONE;
        char why[256];
        if (s_redis_set_batch(r, &item, 1, why, sizeof why) == 0)
            return erc;
        s_redis_down(r, why);
    }
    s_redis_remember(r, WH_CACHE_VERDICTS, key, WH_V_NONE);
    return erc;
}

/* One command whose reply is read at once: GET or SET of a blob. Returns
 * the reply (caller frees) or NULL with why set. */
static redisReply *s_redis_blob_cmd(s_redis_t *r, int argc, const char **argv,
                                    const size_t *argl, char *why, size_t why_sz)
{
    s_nopipe_t np;
    s_nopipe_begin(&np);
    redisReply *rep = redisCommandArgv(r->rc, argc, argv, argl);
    s_nopipe_end(&np);
    if (!rep) {
        snprintf(why, why_sz, "%s", s_rc_err(r->rc));
        return NULL;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        snprintf(why, why_sz, "%s", rep->str ? rep->str : "error reply");
        freeReplyObject(rep);
        return NULL;
    }
    return rep;
}

static int s_redis_get_blob(void *be, const char *key, char **value)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    if (r->rc) {
        char *k = wh_strdup_printf(S_REDIS_BLOB_PREFIX "%s", key);
        if (!k)
            return WH_ENOMEM;
        const char *argv[2] = {"GET", k};
        size_t argl[2] = {3, strlen(k)};
        char why[256];
        redisReply *rep = s_redis_blob_cmd(r, 2, argv, argl, why, sizeof why);
        free(k);
        if (rep) {
            int rc = WH_ENOTFOUND;
            if (rep->type == REDIS_REPLY_STRING && rep->len <= S_BLOB_VALUE_MAX &&
                !memchr(rep->str, '\0', rep->len) && !memchr(rep->str, '\n', rep->len)) {
                *value = strndup(rep->str, rep->len);
                rc = *value ? 0 : WH_ENOMEM;
            }
            freeReplyObject(rep);
            if (rc != WH_ENOTFOUND)
                return rc;
            return r->emb_ops->get_blob(r->emb, key, value);
        }
        s_redis_down(r, why);
    }
    return r->emb_ops->get_blob(r->emb, key, value);
}

/* Blobs put while Redis is down stay in the embedded store only (they are
 * few, and this process still finds them there). */
static int s_redis_put_blob(void *be, const char *key, const char *value)
{
    s_redis_t *r = be;
    int erc = r->emb_ops->put_blob(r->emb, key, value);
    s_redis_maybe_retry(r);
    if (r->rc) {
        char *k = wh_strdup_printf(S_REDIS_BLOB_PREFIX "%s", key);
        if (!k)
            return WH_ENOMEM;
        const char *argv[3] = {"SET", k, value};
        size_t argl[3] = {3, strlen(k), strlen(value)};
        char why[256];
        redisReply *rep = s_redis_blob_cmd(r, 3, argv, argl, why, sizeof why);
        free(k);
        if (rep) {
            freeReplyObject(rep);
            return 0;
        }
        s_redis_down(r, why);
    }
    return erc;
}

static const char *s_redis_describe(const void *be)
{
    const s_redis_t *r = be;
    return r->rc ? "redis" : "redis(down, embedded)";
}

static void s_redis_close(void *be)
{
    s_redis_t *r = be;
    if (!r)
        return;
    if (r->rc)
        redisFree(r->rc);
    if (r->emb)
        r->emb_ops->close(r->emb);
    free(r->pending);
    free(r->url);
    free(r->host);
    free(r->user);
    if (r->password) {
        memset(r->password, 0, strlen(r->password));
        free(r->password);
    }
    free(r);
}

static const struct wh_cache_ops s_redis_ops = {
    s_redis_get_many, s_redis_put, s_redis_drop, s_redis_get_blob, s_redis_put_blob,
    s_redis_describe, s_redis_close,
};

/* Decodes %XX escapes of n bytes at s (so a password may hold ':', '@' or
 * '/'). NULL when out of memory or on a bad escape. */
static char *s_pct_decode(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%') {
            *o++ = s[i];
            continue;
        }
        if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) ||
            !isxdigit((unsigned char)s[i + 2])) {
            free(out);
            return NULL;
        }
        char hex[3] = {s[i + 1], s[i + 2], 0};
        unsigned v = (unsigned)strtoul(hex, NULL, 16);
        if (v == 0) {
            free(out);
            return NULL;
        }
        *o++ = (char)v;
        i += 2;
    }
    *o = 0;
    return out;
}

/* Splits "[user[:password]@]" off the URL: sets r->user/r->password (the
 * password may also come from $WHITTLE_REDIS_PASSWORD), and the masked
 * r->url. Returns the rest (host...) or NULL with *err set. */
static const char *s_redis_userinfo(s_redis_t *r, const char *url, char **err)
{
    const char *p = url + strlen("redis://");
    const char *at = NULL;
    for (const char *q = p; *q && *q != '/'; q++)
        if (*q == '@')
            at = q;
    const char *env = getenv("WHITTLE_REDIS_PASSWORD");
    if (!at) {
        r->url = strdup(url);
        if (env && *env)
            r->password = strdup(env);
        return p;
    }
    const char *colon = memchr(p, ':', (size_t)(at - p));
    const char *uend = colon ? colon : at;
    if (uend > p && !(r->user = s_pct_decode(p, (size_t)(uend - p))))
        goto bad;
    if (colon && !(r->password = s_pct_decode(colon + 1, (size_t)(at - colon - 1))))
        goto bad;
    if (r->password && !*r->password) {
        free(r->password);
        r->password = NULL;
    }
    if (!r->password && env && *env)
        r->password = strdup(env);
    if (!r->password) {
        *err = wh_strdup_printf("redis URL names user '%s' but no password (add :PASSWORD or set "
                                "WHITTLE_REDIS_PASSWORD)", r->user ? r->user : "");
        return NULL;
    }
    r->url = wh_strdup_printf("redis://%.*s%s@%s", (int)(uend - p), p, colon ? ":***" : "", at + 1);
    return at + 1;
bad:
    *err = wh_strdup_printf("bad user or password escape in redis URL 'redis://***@%s'", at + 1);
    return NULL;
}

/* Parses redis://[user[:password]@]host[:port][/db] (host may be [ipv6]).
 * 0 or WH_EINVAL with *err set (never showing the password). */
static int s_redis_parse(s_redis_t *r, const char *url, char **err)
{
    const char *p = s_redis_userinfo(r, url, err);
    const char *host, *hend;
    if (!p)
        return WH_EINVAL;
    if (*p == '[') {
        host = p + 1;
        hend = strchr(host, ']');
        if (!hend)
            goto bad;
        p = hend + 1;
    } else {
        host = p;
        hend = p + strcspn(p, ":/");
        p = hend;
    }
    if (hend == host)
        goto bad;
    r->port = 6379;
    r->db = 0;
    if (*p == ':') {
        char *e;
        errno = 0;
        long port = strtol(p + 1, &e, 10);
        if (e == p + 1 || errno || port < 1 || port > 65535)
            goto bad;
        r->port = (int)port;
        p = e;
    }
    if (*p == '/' && p[1]) {
        char *e;
        errno = 0;
        long db = strtol(p + 1, &e, 10);
        if (e == p + 1 || errno || db < 0 || db > INT_MAX || *e)
            goto bad;
        r->db = (int)db;
        p = e;
    } else if (*p == '/') {
        p++;
    }
    if (*p)
        goto bad;
    r->host = strndup(host, (size_t)(hend - host));
    if (!r->host) {
        *err = wh_strdup0("out of memory");
        return WH_ENOMEM;
    }
    return 0;
bad:
    *err = wh_strdup_printf("bad redis URL '%s' (expected redis://[user[:password]@]host:port[/db])",
                            r->url ? r->url : "redis://***");
    return WH_EINVAL;
}

static s_redis_t *s_redis_open(const char *url, char **err)
{
    s_redis_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    if (s_redis_parse(r, url, err))
        goto fail;
    if (!r->url) {
        *err = wh_strdup0("out of memory");
        goto fail;
    }
    r->retry_ms = S_REDIS_RETRY_MS;
    const char *env = getenv("WHITTLE_REDIS_RETRY_MS");
    if (env && *env) {
        char *e;
        unsigned long ms = strtoul(env, &e, 10);
        if (!*e && ms <= 24ul * 3600 * 1000)
            r->retry_ms = (unsigned)ms;
    }

    /* The fallback first: Redis may be down from the start. */
    r->emb_ops = &s_emb_ops;
    char *dir = s_default_dir();
    char *eerr = NULL;
    r->emb = dir ? s_emb_open(dir, &eerr) : NULL;
    if (!r->emb) {
        wh_warn("no embedded cache to fall back on (%s); keeping the fallback in memory",
                eerr ? eerr : "no cache folder: set WHITTLE_CACHE_DIR or HOME");
        r->emb = s_mem_open();
    }
    free(eerr);
    free(dir);
    if (!r->emb) {
        *err = wh_strdup0("out of memory");
        goto fail;
    }

    char why[256];
    int crc = s_redis_connect(r, why, sizeof why);
    if (crc == -2) {
        /* Wrong or missing credentials: a configuration error, not an
         * outage; falling back would hide it. */
        *err = wh_strdup_printf("redis at %s refused %s: %s", r->url,
                                r->password ? "the credentials" : "access without a password", why);
        goto fail;
    }
    if (crc)
        s_redis_down(r, why);
    return r;
fail:
    s_redis_close(r);
    return NULL;
}

/* ---- public API ---- */

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
        char *dir = s_default_dir();
        if (!dir) {
            *err = wh_strdup0("no cache folder: set WHITTLE_CACHE_DIR or HOME");
            goto fail;
        }
        c->ops = &s_emb_ops;
        c->be = s_emb_open(dir, err);
        free(dir);
    } else if (strncmp(spec, "dir:", 4) == 0 && spec[4]) {
        c->ops = &s_emb_ops;
        c->be = s_emb_open(spec + 4, err);
    } else if (strcmp(spec, "memory:") == 0) {
        c->ops = &s_emb_ops;
        c->be = s_mem_open();
        if (!c->be)
            *err = wh_strdup0("out of memory");
    } else if (strncmp(spec, "redis://", 8) == 0) {
        c->ops = &s_redis_ops;
        c->be = s_redis_open(spec, err);
    } else {
        *err = wh_strdup_printf("unknown cache '%s' (expected dir:PATH, memory: or "
                                "redis://host:port[/db])",
                                spec);
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
    if (ns < 0 || ns >= S_NS)
        return WH_EINVAL;
    if (n <= 0)
        return n < 0 ? WH_EINVAL : 0;
    uint8_t (*bin)[S_KEY_BYTES] = malloc((size_t)n * sizeof *bin);
    if (!bin)
        return WH_ENOMEM;
    for (int i = 0; i < n; i++) {
        out[i] = WH_V_NONE;
        if (s_key_parse(keys[i], bin[i])) {
            free(bin);
            return WH_EINVAL;
        }
    }
    int rc = c->ops->get_many(c->be, (int)ns, (const uint8_t(*)[S_KEY_BYTES])bin, n, out);
    free(bin);
    return rc;
}

int wh_cache_put_ns(wh_cache_t *c, wh_cache_ns_t ns, const char *key, wh_verdict_t v)
{
    uint8_t bin[S_KEY_BYTES];
    if (ns < 0 || ns >= S_NS)
        return WH_EINVAL;
    if (s_key_parse(key, bin))
        return WH_EINVAL;
    if (!s_storable(v))
        return 0;
    return c->ops->put(c->be, (int)ns, bin, v);
}

int wh_cache_drop(wh_cache_t *c, const char *key)
{
    uint8_t bin[S_KEY_BYTES];
    if (s_key_parse(key, bin))
        return WH_EINVAL;
    return c->ops->drop(c->be, bin);
}

/* Blob keys end up in a log line and a Redis key: printable, no spaces. */
static int s_blob_key_ok(const char *key)
{
    if (!key || !*key || strlen(key) > S_BLOB_KEY_MAX)
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
    if (strlen(value) > S_BLOB_VALUE_MAX)
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
