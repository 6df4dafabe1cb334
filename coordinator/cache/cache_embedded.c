/*
 * cache_embedded — the memory: and embedded back ends of the verdict cache
 * (cache_be.h): an in-memory table per key space (cache_table.h), backed
 * for the embedded one by append-only logs in a folder (cache_log.h).
 *
 * DIR/verdicts.log holds one line per verdict,
 *     "<64-hex-key> <VerdictName> node=<ID>[ gen=<G>]\n"
 * (the value of wh_cache_value_format, plus the Redis generation it was
 * stored under when a Redis back end stored it; lines of older whittles,
 * "<key> <VerdictName>", still read, with no node). "<key> Dropped"
 * forgets a verdict (found wrong, or its node forgotten); "@generation N"
 * records the log's generation, bumped by every forget and clear. The log
 * is read at open and its new lines at every lookup (a stat and an fstat
 * when nothing is new), so processes sharing a folder see each other's
 * verdicts and drops. The last line for a key wins. A line is parsed from
 * its end (key, space, value), which makes a torn line left by a crashed
 * writer harmless: it is ignored, and so is its garbage when a later line
 * was appended right after it. Predictions live in DIR/predicted.log, same
 * format and rules, a table of their own. Blobs live in DIR/blobs.log
 * ("<name> <value>\n" lines, same rules). DIR/lock is the folder's lock.
 *
 * Compaction (wh_cache_set_max): when the logs together grow past the cap
 * (or past 1.5 times their size after the last compaction, when the live
 * verdicts alone exceed the cap), each is rewritten under the exclusive
 * lock with the latest line per key, no Dropped lines, and the generation
 * first; other processes notice the new file and read it afresh.
 */
#define _GNU_SOURCE
#include "cache_log.h"
#include "cache_table.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S_NLOG (WH_CACHE_NS + 1) /* the key spaces' logs, then blobs.log */
#define S_BLOBS WH_CACHE_NS
static const char *const s_log_name[S_NLOG] = {"verdicts.log", "predicted.log", "blobs.log"};
#define S_LINE_TAIL 256 /* bytes of a verdict line kept for parsing its end */
#define S_DROPPED_NAME "Dropped"
#define S_GEN_TAG "@generation"

typedef struct wh_cache_emb s_emb_t;

/* Who reads one log: the back end and the log's index. */
typedef struct {
    s_emb_t *e;
    int i;
} s_reader_t;

struct wh_cache_emb {
    wh_ctab_t t[WH_CACHE_NS];
    wh_btab_t b;
    wh_cache_log_t log[S_NLOG];
    s_reader_t rd[S_NLOG];
    int persistent;     /* the logs are open (embedded); 0: memory: */
    int lockfd;         /* DIR/lock; -1 for memory: */
    char *dir;
    char **node;        /* interned node names; node[0] = "" (not recorded) */
    int nnode;
    uint64_t gen;       /* the log's generation: bumped by forget and clear */
    uint32_t max_rgen;  /* the highest Redis generation a verdict was stored under */
    uint64_t max_bytes; /* compaction cap; 0: none */
    uint64_t compacted; /* the logs' size after the last compaction here */
    int warned_max;
};

/* The index of node name (n bytes) in e->node, added when new; 0 for an
 * empty name, or when out of memory or indexes. */
static uint16_t s_node_index(s_emb_t *e, const char *name, size_t n)
{
    if (!n)
        return 0;
    for (int i = 1; i < e->nnode; i++)
        if (strlen(e->node[i]) == n && memcmp(e->node[i], name, n) == 0)
            return (uint16_t)i;
    if (e->nnode == 0) {
        if (!(e->node = calloc(1, sizeof *e->node)) || !(e->node[0] = strdup("")))
            return 0;
        e->nnode = 1;
    }
    if (e->nnode > UINT16_MAX)
        return 0;
    char **grown = realloc(e->node, (size_t)(e->nnode + 1) * sizeof *grown);
    if (!grown)
        return 0;
    e->node = grown;
    if (!(e->node[e->nnode] = strndup(name, n)))
        return 0;
    return (uint16_t)e->nnode++;
}

static const char *s_node_name(const s_emb_t *e, uint16_t i)
{
    return i && i < e->nnode ? e->node[i] : "";
}

/* The start of the last space-separated token of s[0..n), and its length. */
static const char *s_last_token(const char *s, size_t n, size_t *len)
{
    size_t i = n;
    while (i > 0 && s[i - 1] != ' ')
        i--;
    *len = n - i;
    return s + i;
}

/* "@generation N" at the end of a line: sets e->gen. 1 when it was one. */
static int s_emb_apply_gen(s_emb_t *e, const char *s, size_t n)
{
    size_t tl, gl = strlen(S_GEN_TAG);
    const char *tok = s_last_token(s, n, &tl);
    size_t before = (size_t)(tok - s);
    if (!tl || before < gl + 1 || memcmp(tok - 1 - gl, S_GEN_TAG, gl) != 0)
        return 0;
    uint64_t g = 0;
    for (size_t i = 0; i < tl; i++) {
        if (tok[i] < '0' || tok[i] > '9' || g > UINT64_MAX / 10 - 1)
            return 1;
        g = g * 10 + (uint64_t)(tok[i] - '0');
    }
    if (g > e->gen)
        e->gen = g;
    return 1;
}

/* Applies one log line of key space ns, given its last bytes (up to
 * S_LINE_TAIL): the line's end must be "<64 hex> <VerdictName>[ node=ID]
 * [ gen=G]" (or "<64 hex> Dropped"); anything before that is a torn line's
 * leftovers and is ignored. */
static void s_emb_apply_line(s_emb_t *e, int ns, const char *s, size_t n)
{
    if (ns == WH_CACHE_VERDICTS && s_emb_apply_gen(e, s, n))
        return;
    size_t end = n, tl;
    uint64_t gen = 0;
    const char *tok = s_last_token(s, end, &tl);
    /* Tokens after the verdict: node=ID (the value) and gen=G (ours). */
    while (tl > 4 && tok > s && (!strncmp(tok, "gen=", 4) || !strncmp(tok, "node=", 5))) {
        if (tok[0] == 'g')
            gen = strtoull(tok + 4, NULL, 10);
        end = (size_t)(tok - s) - 1;
        tok = s_last_token(s, end, &tl);
    }
    size_t kpos = (size_t)(tok - s);
    uint8_t key[WH_CACHE_KEY_BYTES];
    if (kpos < 2 * WH_CACHE_KEY_BYTES + 1 ||
        wh_cache_key_parse_n(tok - 1 - 2 * WH_CACHE_KEY_BYTES, key))
        return;
    int v;
    char node[WH_CACHE_NODE_MAX + 1] = "";
    if (tl == strlen(S_DROPPED_NAME) && !memcmp(tok, S_DROPPED_NAME, tl)) {
        v = WH_CTAB_DROPPED;
    } else {
        wh_verdict_t pv;
        if (wh_cache_value_parse(tok, n - kpos, &pv, node))
            return;
        v = (int)pv;
    }
    int changed;
    uint16_t ni = s_node_index(e, node, strlen(node));
    gen = gen > UINT32_MAX ? UINT32_MAX : gen;
    if (gen > e->max_rgen)
        e->max_rgen = (uint32_t)gen;
    (void)wh_ctab_set(&e->t[ns], key, v, ni, (uint32_t)gen, &changed); /* ENOMEM: a miss */
}

/* Applies one complete blob line "<key> <value>". A line garbled by a torn
 * write yields a key nobody asks for. */
static void s_emb_apply_blob(s_emb_t *e, const char *s, size_t n)
{
    const char *sp = memchr(s, ' ', n);
    if (!sp || sp == s || (size_t)(sp - s) > WH_CACHE_BLOB_KEY_MAX || memchr(s, '\0', n))
        return;
    int changed;
    (void)wh_btab_set(&e->b, s, (size_t)(sp - s), sp + 1, n - (size_t)(sp + 1 - s), &changed);
}

/* ---- reading the logs ---- */

static void s_on_reset(void *ctx)
{
    s_reader_t *rd = ctx;
    if (rd->i == S_BLOBS)
        wh_btab_free(&rd->e->b);
    else
        wh_ctab_free(&rd->e->t[rd->i]);
}

static void s_on_line(void *ctx, const char *s, size_t n)
{
    s_reader_t *rd = ctx;
    if (rd->i == S_BLOBS)
        s_emb_apply_blob(rd->e, s, n);
    else
        s_emb_apply_line(rd->e, rd->i, s, n);
}

static const wh_cache_log_fn_t s_log_fn = {s_on_reset, s_on_line};

/* Reads what other processes appended to log i (nothing for memory:). */
static int s_emb_read(s_emb_t *e, int i)
{
    return e->persistent ? wh_cache_log_read(&e->log[i]) : 0;
}

/* Looks keys up; with gen >= 0 only verdicts stored under that Redis
 * generation answer. The log's new lines are read first. */
static void s_emb_lookup(s_emb_t *e, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES], int n,
                         wh_verdict_t *out, int64_t gen)
{
    (void)s_emb_read(e, ns); /* an unreadable log: answer from memory */
    for (int i = 0; i < n; i++) {
        const wh_ctab_slot_t *s = wh_ctab_get(&e->t[ns], keys[i]);
        out[i] = s && (gen < 0 || s->gen == (uint64_t)gen) ? (wh_verdict_t)s->v : WH_V_NONE;
    }
}

static int s_emb_get_many(void *be, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES], int n,
                          wh_verdict_t *out)
{
    s_emb_lookup(be, ns, keys, n, out, -1);
    return 0;
}

void wh_cache_emb_get_node_gen(wh_cache_emb_t *e, const uint8_t key[WH_CACHE_KEY_BYTES],
                               wh_verdict_t *v, char node[WH_CACHE_NODE_MAX + 1], int64_t gen)
{
    (void)s_emb_read(e, WH_CACHE_VERDICTS);
    const wh_ctab_slot_t *s = wh_ctab_get(&e->t[WH_CACHE_VERDICTS], key);
    int hit = s && (gen < 0 || s->gen == (uint64_t)gen) && s->v > WH_V_NONE && s->v < WH_V_COUNT;
    *v = hit ? (wh_verdict_t)s->v : WH_V_NONE;
    snprintf(node, WH_CACHE_NODE_MAX + 1, "%s", hit ? s_node_name(e, s->node) : "");
}

static int s_emb_get_node(void *be, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t *v,
                          char node[WH_CACHE_NODE_MAX + 1])
{
    wh_cache_emb_get_node_gen(be, key, v, node, -1);
    return 0;
}

uint32_t wh_cache_emb_max_gen(const wh_cache_emb_t *e)
{
    return e->max_rgen;
}

void wh_cache_emb_get_gen(wh_cache_emb_t *e, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES],
                          int n, wh_verdict_t *out, uint32_t gen)
{
    s_emb_lookup(e, ns, keys, n, out, (int64_t)gen);
}

/* ---- writing ---- */

/* One verdict line into buf (at least S_LINE_TAIL bytes); its length. */
static size_t s_verdict_line(char *buf, size_t sz, const uint8_t key[WH_CACHE_KEY_BYTES], int v,
                             const char *node, uint32_t gen)
{
    wh_cache_key_hex(key, buf);
    size_t n = 2 * WH_CACHE_KEY_BYTES;
    buf[n++] = ' ';
    if (v == WH_CTAB_DROPPED)
        n += (size_t)snprintf(buf + n, sz - n, "%s", S_DROPPED_NAME);
    else
        n += (size_t)wh_cache_value_format((wh_verdict_t)v, node, buf + n, sz - n);
    if (gen)
        n += (size_t)snprintf(buf + n, sz - n, " gen=%u", gen);
    buf[n++] = '\n';
    return n;
}

static int s_emb_maybe_compact(s_emb_t *e);

/* Appends a line to log i and compacts when the logs outgrew the cap. */
static int s_emb_append(s_emb_t *e, int i, const char *line, size_t n)
{
    int rc = wh_cache_log_append(&e->log[i], line, n);
    return rc ? rc : s_emb_maybe_compact(e);
}

/* Sets key to v (a verdict or WH_CTAB_DROPPED) in key space ns, with the
 * node that produced it and the Redis generation, and appends the line. */
static int s_emb_set(s_emb_t *e, int ns, const uint8_t key[WH_CACHE_KEY_BYTES], int v,
                     const char *node, uint32_t gen)
{
    int changed = 0;
    if (v == WH_CTAB_DROPPED)
        node = "", gen = 0;
    uint16_t ni = s_node_index(e, node, strlen(node));
    if (gen > e->max_rgen)
        e->max_rgen = gen;
    int rc = wh_ctab_set(&e->t[ns], key, v, ni, gen, &changed);
    if (rc || !changed || !e->persistent)
        return rc;
    char line[S_LINE_TAIL];
    return s_emb_append(e, ns, line, s_verdict_line(line, sizeof line, key, v, node, gen));
}

static int s_emb_put(void *be, int ns, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t v,
                     const char *node)
{
    return s_emb_set(be, ns, key, (int)v, node, 0);
}

int wh_cache_emb_put_gen(wh_cache_emb_t *e, int ns, const uint8_t key[WH_CACHE_KEY_BYTES],
                         wh_verdict_t v, const char *node, uint32_t gen)
{
    return s_emb_set(e, ns, key, (int)v, node, gen);
}

/* Only real verdicts are ever found wrong; predictions are never dropped
 * (they are not claims of a node). */
static int s_emb_drop(void *be, const uint8_t key[WH_CACHE_KEY_BYTES])
{
    s_emb_t *e = be;
    /* Only a key this process knows needs a line; but another process may
     * have stored it since: read the log first. */
    (void)s_emb_read(e, WH_CACHE_VERDICTS);
    if (!wh_ctab_get(&e->t[WH_CACHE_VERDICTS], key))
        return 0;
    return s_emb_set(e, WH_CACHE_VERDICTS, key, WH_CTAB_DROPPED, "", 0);
}

/* Bumps the log's generation: an "@generation N" line. */
static int s_emb_bump(s_emb_t *e)
{
    e->gen++;
    if (!e->persistent)
        return 0;
    char line[64];
    int n = snprintf(line, sizeof line, S_GEN_TAG " %llu\n", (unsigned long long)e->gen);
    return s_emb_append(e, WH_CACHE_VERDICTS, line, (size_t)n);
}

/* Drops every verdict node produced (a "Dropped" line each), then bumps
 * the generation. */
static int s_emb_forget(void *be, const char *node, wh_cache_forgot_t *out)
{
    s_emb_t *e = be;
    wh_ctab_t *t = &e->t[WH_CACHE_VERDICTS];
    int rc = s_emb_read(e, WH_CACHE_VERDICTS);
    if (rc)
        return rc;
    /* The keys first: an append that finds the log replaced by another
     * process resets the table. */
    uint16_t ni = s_node_index(e, node, strlen(node));
    uint8_t(*keys)[WH_CACHE_KEY_BYTES] = ni && t->n ? malloc(t->n * sizeof *keys) : NULL;
    size_t nk = 0;
    if (ni && t->n && !keys)
        return WH_ENOMEM;
    for (size_t i = 0; keys && i < t->cap; i++)
        if (t->slots[i].node == ni && t->slots[i].v != WH_V_NONE &&
            t->slots[i].v != WH_CTAB_DROPPED)
            memcpy(keys[nk++], t->slots[i].key, WH_CACHE_KEY_BYTES);
    for (size_t i = 0; i < nk && !rc; i++)
        if (!(rc = s_emb_set(e, WH_CACHE_VERDICTS, keys[i], WH_CTAB_DROPPED, "", 0)))
            out->embedded++;
    free(keys);
    if (!rc)
        rc = s_emb_bump(e);
    out->generation = e->gen;
    return rc;
}

/* ---- blobs ---- */

static int s_emb_get_blob(void *be, const char *key, char **value)
{
    s_emb_t *e = be;
    (void)s_emb_read(e, S_BLOBS);
    const char *v = wh_btab_get(&e->b, key);
    if (!v)
        return WH_ENOTFOUND;
    *value = strdup(v);
    return *value ? 0 : WH_ENOMEM;
}

static int s_emb_put_blob(void *be, const char *key, const char *value)
{
    s_emb_t *e = be;
    int changed = 0;
    int rc = wh_btab_set(&e->b, key, strlen(key), value, strlen(value), &changed);
    if (rc || !changed || !e->persistent)
        return rc;
    char *line = wh_strdup_printf("%s %s\n", key, value);
    if (!line)
        return WH_ENOMEM;
    rc = s_emb_append(e, S_BLOBS, line, strlen(line));
    free(line);
    return rc;
}

/* ---- compaction, stats, clear ---- */

static uint64_t s_emb_bytes(const s_emb_t *e)
{
    uint64_t n = 0;
    for (int i = 0; e->persistent && i < S_NLOG; i++)
        n += (uint64_t)wh_cache_log_size(&e->log[i]);
    return n;
}

/* Writes log rd->i from the tables: the generation first, then the latest
 * line of every live key (no Dropped lines). */
static int s_fill(void *ctx, FILE *f)
{
    s_reader_t *rd = ctx;
    s_emb_t *e = rd->e;
    if (rd->i == S_BLOBS) {
        for (size_t i = 0; i < e->b.cap; i++)
            if (e->b.slots[i].key)
                fprintf(f, "%s %s\n", e->b.slots[i].key, e->b.slots[i].val);
        return ferror(f) ? WH_EIO : 0;
    }
    if (rd->i == WH_CACHE_VERDICTS && e->gen)
        fprintf(f, S_GEN_TAG " %llu\n", (unsigned long long)e->gen);
    const wh_ctab_t *t = &e->t[rd->i];
    for (size_t i = 0; i < t->cap; i++) {
        const wh_ctab_slot_t *s = &t->slots[i];
        if (s->v == WH_V_NONE || s->v == WH_CTAB_DROPPED)
            continue;
        char line[S_LINE_TAIL];
        size_t n = s_verdict_line(line, sizeof line, s->key, s->v, s_node_name(e, s->node), s->gen);
        fwrite(line, 1, n, f);
    }
    return ferror(f) ? WH_EIO : 0;
}

/* Under the exclusive lock: reads every log to its end, then rewrites each
 * from the tables (emptied first when clear). */
static int s_emb_rewrite(s_emb_t *e, int clear)
{
    int rc = wh_cache_lock(e->lockfd, 1);
    if (rc)
        return rc;
    for (int i = 0; i < S_NLOG && !rc; i++)
        rc = wh_cache_log_read(&e->log[i]);
    if (!rc && clear) {
        for (int i = 0; i < S_NLOG; i++)
            s_on_reset(&e->rd[i]);
        e->gen++;
    }
    for (int i = 0; i < S_NLOG && !rc; i++)
        rc = wh_cache_log_rewrite(&e->log[i], s_fill, &e->rd[i]);
    wh_cache_unlock(e->lockfd);
    return rc;
}

static int s_emb_maybe_compact(s_emb_t *e)
{
    uint64_t now = e->max_bytes ? s_emb_bytes(e) : 0;
    if (!e->max_bytes || now <= e->max_bytes || now <= e->compacted + e->compacted / 2)
        return 0;
    int rc = s_emb_rewrite(e, 0);
    if (rc)
        return rc;
    e->compacted = s_emb_bytes(e);
    wh_info("compacted the embedded cache in %s: %llu -> %llu bytes", e->dir,
            (unsigned long long)now, (unsigned long long)e->compacted);
    if (e->compacted > e->max_bytes && !e->warned_max) {
        e->warned_max = 1;
        wh_warn("the live verdicts of the embedded cache in %s take %llu bytes, more than "
                "--cache-max %llu: compacted again at 1.5 times that",
                e->dir, (unsigned long long)e->compacted, (unsigned long long)e->max_bytes);
    }
    return 0;
}

void wh_cache_emb_set_max(wh_cache_emb_t *e, uint64_t bytes)
{
    e->max_bytes = bytes;
    e->compacted = 0;
    (void)s_emb_maybe_compact(e); /* a log already past the cap */
}

static void s_emb_where(const s_emb_t *e, char *out, size_t sz)
{
    if (e->persistent)
        snprintf(out, sz, "embedded %s", e->dir);
    else
        snprintf(out, sz, "memory");
}

static int s_emb_stats(void *be, wh_cache_stats_t *st, int max)
{
    s_emb_t *e = be;
    if (max < 1)
        return 0;
    memset(st, 0, sizeof *st);
    int rc = 0;
    for (int i = 0; i < S_NLOG && !rc; i++)
        rc = s_emb_read(e, i);
    if (rc)
        return rc;
    s_emb_where(e, st->where, sizeof st->where);
    for (int ns = 0; ns < WH_CACHE_NS; ns++)
        for (size_t i = 0; i < e->t[ns].cap; i++) {
            int v = e->t[ns].slots[i].v;
            if (v == WH_CTAB_DROPPED)
                st->dropped++;
            else if (v != WH_V_NONE && ns == WH_CACHE_VERDICTS)
                st->verdicts[v]++;
            else if (v != WH_V_NONE)
                st->predicted++;
        }
    st->blobs = (long)e->b.n;
    st->bytes = s_emb_bytes(e);
    st->generation = e->gen;
    st->hits = st->misses = -1; /* not recorded */
    return 1;
}

static int s_emb_clear(void *be, wh_cache_forgot_t *out)
{
    s_emb_t *e = be;
    wh_cache_stats_t st;
    int rc = s_emb_stats(e, &st, 1);
    if (rc < 0)
        return rc;
    for (int v = 0; v < WH_V_COUNT; v++)
        out->embedded += st.verdicts[v];
    if (e->persistent) {
        rc = s_emb_rewrite(e, 1);
    } else {
        for (int i = 0; i < S_NLOG; i++)
            s_on_reset(&e->rd[i]);
        e->gen++;
        rc = 0;
    }
    out->generation = e->gen;
    return rc;
}

/* ---- open, close ---- */

static const char *s_emb_describe(const void *be)
{
    const s_emb_t *e = be;
    return e->persistent ? "embedded" : "memory";
}

static void s_emb_close(void *be)
{
    s_emb_t *e = be;
    if (!e)
        return;
    for (int i = 0; i < S_NLOG; i++)
        wh_cache_log_close(&e->log[i]);
    for (int ns = 0; ns < WH_CACHE_NS; ns++)
        wh_ctab_free(&e->t[ns]);
    wh_btab_free(&e->b);
    for (int i = 0; i < e->nnode; i++)
        free(e->node[i]);
    free(e->node);
    if (e->lockfd >= 0)
        close(e->lockfd);
    free(e->dir);
    free(e);
}

const struct wh_cache_ops wh_cache_emb_ops = {
    .get_many = s_emb_get_many,
    .get_node = s_emb_get_node,
    .put = s_emb_put,
    .drop = s_emb_drop,
    .forget = s_emb_forget,
    .get_blob = s_emb_get_blob,
    .put_blob = s_emb_put_blob,
    .stats = s_emb_stats,
    .clear = s_emb_clear,
    .describe = s_emb_describe,
    .close = s_emb_close,
};

wh_cache_emb_t *wh_cache_mem_open(void)
{
    s_emb_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->lockfd = -1;
    for (int i = 0; i < S_NLOG; i++) {
        e->log[i].fd = -1;
        e->rd[i] = (s_reader_t){e, i};
    }
    return e;
}

/* Opens (creating the folder, the lock and the logs) and reads
 * DIR/verdicts.log, DIR/predicted.log and DIR/blobs.log. */
wh_cache_emb_t *wh_cache_emb_open(const char *dir, char **err)
{
    s_emb_t *e = wh_cache_mem_open();
    if (!e || !(e->dir = strdup(dir))) {
        *err = wh_strdup0("out of memory");
        s_emb_close(e);
        return NULL;
    }
    int rc = wh_mkdir_p(dir);
    if (rc) {
        *err = wh_strdup_printf("cannot create cache folder '%s': %s", dir, wh_strerror(rc));
        goto fail;
    }
    if ((e->lockfd = wh_cache_lock_open(dir, err)) < 0)
        goto fail;
    e->persistent = 1;
    for (int i = 0; i < S_NLOG; i++) {
        size_t cap = i == S_BLOBS ? WH_CACHE_BLOB_KEY_MAX + 1 + WH_CACHE_BLOB_VALUE_MAX
                                  : S_LINE_TAIL;
        if (wh_cache_log_open(&e->log[i], dir, s_log_name[i], e->lockfd, cap, i != S_BLOBS,
                              &s_log_fn, &e->rd[i], err))
            goto fail;
    }
    return e;
fail:
    s_emb_close(e);
    return NULL;
}
