/*
 * cache_embedded — the memory: and embedded back ends of the verdict cache
 * (cache_be.h): an in-memory hash table per key space, backed for the
 * embedded one by an append-only log.
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
 */
#define _GNU_SOURCE
#include "cache_be.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const s_log_name[WH_CACHE_NS] = {"verdicts.log", "predicted.log"};
#define S_LINE_TAIL 128 /* bytes of a log line kept for parsing its end */

/* ---- hash table: binary key -> verdict, open addressing ---- */

typedef struct {
    uint8_t key[WH_CACHE_KEY_BYTES];
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

static size_t s_hash(const uint8_t key[WH_CACHE_KEY_BYTES])
{
    /* Keys are SHA-256 digests, but mix anyway: a caller may hand in any hex. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < WH_CACHE_KEY_BYTES; i++)
        h = (h ^ key[i]) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

static s_slot_t *s_table_find(const s_table_t *t, const uint8_t key[WH_CACHE_KEY_BYTES])
{
    if (!t->cap)
        return NULL;
    size_t i = s_hash(key) & (t->cap - 1);
    for (;;) {
        s_slot_t *s = &t->slots[i];
        if (s->v == WH_V_NONE || memcmp(s->key, key, WH_CACHE_KEY_BYTES) == 0)
            return s;
        i = (i + 1) & (t->cap - 1);
    }
}

static wh_verdict_t s_table_get(const s_table_t *t, const uint8_t key[WH_CACHE_KEY_BYTES])
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
static int s_table_set(s_table_t *t, const uint8_t key[WH_CACHE_KEY_BYTES], int v, int *changed)
{
    if ((t->n + 1) * 2 > t->cap) {
        int rc = s_table_grow(t);
        if (rc)
            return rc;
    }
    s_slot_t *s = s_table_find(t, key);
    *changed = s->v != (uint8_t)v;
    if (s->v == WH_V_NONE) {
        memcpy(s->key, key, WH_CACHE_KEY_BYTES);
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

typedef struct wh_cache_emb {
    s_vlog_t v[WH_CACHE_NS];
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
    if (!sp || (size_t)(sp - s) < 2 * WH_CACHE_KEY_BYTES)
        return;
    char name[32];
    size_t nl = (size_t)(s + n - sp - 1);
    if (nl == 0 || nl >= sizeof name)
        return;
    memcpy(name, sp + 1, nl);
    name[nl] = '\0';
    int v = strcmp(name, S_DROPPED_NAME) == 0 ? S_DROPPED : (int)wh_verdict_parse(name);
    uint8_t key[WH_CACHE_KEY_BYTES];
    if ((v != S_DROPPED && !wh_cache_storable((wh_verdict_t)v)) ||
        wh_cache_key_parse_n(sp - 2 * WH_CACHE_KEY_BYTES, key))
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

static int s_emb_get_many(void *be, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES], int n,
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
static int s_emb_set(s_vlog_t *e, const uint8_t key[WH_CACHE_KEY_BYTES], int v)
{
    int changed = 0;
    int rc = s_table_set(&e->t, key, v, &changed);
    if (rc || !changed || e->fd < 0)
        return rc;
    char line[2 * WH_CACHE_KEY_BYTES + 32];
    wh_cache_key_hex(key, line);
    int len = snprintf(line + 2 * WH_CACHE_KEY_BYTES, sizeof line - 2 * WH_CACHE_KEY_BYTES, " %s\n",
                       v == S_DROPPED ? S_DROPPED_NAME : wh_verdict_name((wh_verdict_t)v));
    size_t n = 2 * WH_CACHE_KEY_BYTES + (size_t)len;
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

static int s_emb_put(void *be, int ns, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t v)
{
    return s_emb_set(&((s_emb_t *)be)->v[ns], key, (int)v);
}

/* Only real verdicts are ever found wrong; predictions are never dropped
 * (they are not claims of a node). */
static int s_emb_drop(void *be, const uint8_t key[WH_CACHE_KEY_BYTES])
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
    if (!sp || sp == s || (size_t)(sp - s) > WH_CACHE_BLOB_KEY_MAX || memchr(s, '\0', n))
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
            if (!skipping && line.len + n > WH_CACHE_BLOB_KEY_MAX + 1 + WH_CACHE_BLOB_VALUE_MAX) {
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
    for (int ns = 0; ns < WH_CACHE_NS; ns++) {
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

const struct wh_cache_ops wh_cache_emb_ops = {
    s_emb_get_many, s_emb_put, s_emb_drop, s_emb_get_blob, s_emb_put_blob, s_emb_describe, s_emb_close,
};

wh_cache_emb_t *wh_cache_mem_open(void)
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
wh_cache_emb_t *wh_cache_emb_open(const char *dir, char **err)
{
    s_emb_t *e = wh_cache_mem_open();
    if (!e) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    int rc = wh_mkdir_p(dir);
    if (rc) {
        *err = wh_strdup_printf("cannot create cache folder '%s': %s", dir, wh_strerror(rc));
        goto fail;
    }
    for (int ns = 0; ns < WH_CACHE_NS; ns++) {
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
