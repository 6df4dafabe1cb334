/*
 * cache_redis — the redis:// back end of the verdict cache (cache_be.h),
 * with the embedded back end as its fallback. The URL, the password
 * (URL, $WHITTLE_REDIS_PASSWORD, a password file), connecting, AUTH and
 * SELECT are the shared Redis client's (common/wh_redisc.h); the commands
 * below go through the hiredis context it hands out.
 *
 * Redis key layout (copied into doc/internals.md):
 *
 *     whittle:v1:verdict:<key>  ->  <VerdictName> node=<ID>[ gen=<G>] mac=<hex>
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
 *   Every verdict and prediction carries, under its MAC, the generation
 *   (whittle:v1:generation) it was stored under ("gen=G", absent for 0).
 *   A value of a generation older than the current one is refused like
 *   one without a valid MAC (a miss, counted in whittle:v1:rejected, a
 *   warning once): a forget bumps the generation first, then deletes the
 *   forgotten node's values and signs every other current value again
 *   under the new generation, so a forgotten node's values written back
 *   afterwards (they are MAC-valid: the coordinator signed them) are
 *   never believed again. A clear leaves nothing to sign again.
 *
 *     whittle:v1:blob:<name>    ->  <one-line text>
 *
 *   Small values beside the verdicts (wh_cache_put_blob), e.g.
 *   "fp:<job identity>" -> the job's baseline fingerprint as JSON. Also
 *   SET without expiry; at most 64 KiB each.
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
#include "cache_be.h"

#include <hiredis/hiredis.h>
#include <stdlib.h>
#include <string.h>

#include "wh_mac.h"
#include "wh_redisc.h"

static const char *const s_redis_prefix[WH_CACHE_NS] = {"whittle:v1:verdict:",
                                                        "whittle:v1:predicted:"};
#define S_REDIS_PREFIX_MAX (sizeof "whittle:v1:predicted:" - 1)
#define S_REDIS_RETRY_MS 5000
#define S_MGET_CHUNK 512
#define S_PENDING_MAX 100000
#define S_REDIS_BLOB_PREFIX "whittle:v1:blob:"
#define S_REDIS_GEN_KEY "whittle:v1:generation"
#define S_SCAN_COUNT "1000"
/* The most keys one SCAN page may hand over (COUNT is a hint: Redis may
 * return more); values beyond it are not signed again (refused later). */
#define S_SCAN_PAGE_MAX 4096
#define S_REDIS_HITS_KEY "whittle:v1:hits"
#define S_REDIS_MISSES_KEY "whittle:v1:misses"
#define S_REDIS_REJECTED_KEY "whittle:v1:rejected"
#define S_GEN_TOKEN_MAX (5 + 10) /* " gen=" and a uint32 */

/* ---- redis back end ---- */

typedef struct {
    uint8_t key[WH_CACHE_KEY_BYTES];
    uint8_t v;
    uint8_t ns;
    uint32_t gen;                     /* the generation it was stored under */
    char node[WH_CACHE_NODE_MAX + 1]; /* who produced it */
} s_pending_t;

typedef struct wh_cache_redis {
    wh_redisc_t *cli;      /* the URL, the credentials, the connection */
    const char *url;       /* cli's, with the password masked: safe to print */
    redisContext *rc;      /* cli's context; NULL while down */
    int down;              /* an outage was announced */
    uint32_t gen;          /* whittle:v1:generation as last read */
    int gen_known;         /* gen was read at least once */
    int gen_restore;       /* Redis answered a lower generation: write ours back */
    long long hits, misses; /* verdict lookups not yet added to Redis's counters */
    long long rejected;    /* values without a valid MAC found by lookups, not yet added */
    long long rejected_total; /* ... and in all, by this process */
    long long stale_total; /* values of an older generation found by this process */
    wh_mac_t *mac;         /* the cluster secret: signs and checks every value */
    uint64_t next_retry_ms;
    unsigned retry_ms;
    wh_cache_emb_t *emb;   /* fallback; receives every put */
    const struct wh_cache_ops *emb_ops;
    s_pending_t *pending;  /* puts (v None: drops) Redis missed while down */
    size_t n_pending, cap_pending;
    int pending_overflow;
} s_redis_t;

static const char *s_rc_err(const redisContext *c)
{
    return c->err && c->errstr[0] ? c->errstr : "connection lost";
}

/* Connects through the client (AUTH, SELECT, a PING for db 0). 0, or
 * WH_EUNAVAIL / WH_EAUTH (credentials refused) with wh_redisc_why() and,
 * when err is not NULL, *err set. */
static int s_redis_connect(s_redis_t *r, char **err)
{
    int rc = wh_redisc_connect(r->cli, err);
    r->rc = wh_redisc_context(r->cli);
    return rc;
}

/* Marks Redis down: drops the connection, warns once per outage. */
static void s_redis_down(s_redis_t *r, const char *why)
{
    wh_redisc_disconnect(r->cli);
    r->rc = NULL;
    if (!r->down)
        wh_warn("redis at %s unavailable (%s); using the embedded cache", r->url, why);
    r->down = 1;
    r->next_retry_ms = wh_now_ms() + r->retry_ms;
}

static int s_redis_flush_pending(s_redis_t *r);
static int s_redis_gen_read(s_redis_t *r, char *why, size_t why_sz);

/* While down, reconnects when the retry interval has passed. */
static void s_redis_maybe_retry(s_redis_t *r)
{
    if (r->rc || wh_now_ms() < r->next_retry_ms)
        return;
    if (s_redis_connect(r, NULL)) {
        wh_debug("redis at %s still unavailable (%s)", r->url, wh_redisc_why(r->cli));
        r->next_retry_ms = wh_now_ms() + r->retry_ms;
        return;
    }
    char why[256];
    if (s_redis_gen_read(r, why, sizeof why)) {
        s_redis_down(r, why);
        return;
    }
    if (r->down)
        wh_info("redis at %s is back; using it again", r->url);
    r->down = 0;
    s_redis_flush_pending(r);
}

/* Writes the Redis key of key in key space ns; returns its length. */
static size_t s_redis_key(char *dst, int ns, const uint8_t key[WH_CACHE_KEY_BYTES])
{
    size_t n = strlen(s_redis_prefix[ns]);
    memcpy(dst, s_redis_prefix[ns], n);
    wh_cache_key_hex(key, dst + n);
    return n + 2 * WH_CACHE_KEY_BYTES;
}

#define S_RKEY_SZ (S_REDIS_PREFIX_MAX + 2 * WH_CACHE_KEY_BYTES + 1)

/* Sends n SETs (DELs for items whose v is None) as one pipelined batch and reads the replies. 0, or -1
 * with why set (the connection is then unusable). */
static int s_redis_set_batch(s_redis_t *r, const s_pending_t *items, size_t n, char *why,
                             size_t why_sz)
{
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    int rc = 0;
    size_t sent = 0;
    for (; sent < n; sent++) {
        char k[S_RKEY_SZ];
        size_t kl = s_redis_key(k, items[sent].ns, items[sent].key);
        /* v None: a dropped verdict, deleted. */
        int del = items[sent].v == WH_V_NONE;
        char val[WH_CACHE_VALUE_MAX + S_GEN_TOKEN_MAX + WH_MAC_SUFFIX_LEN + 1];
        int vl = del ? 0 : wh_cache_value_format((wh_verdict_t)items[sent].v, items[sent].node,
                                                 val, WH_CACHE_VALUE_MAX + 1);
        if (!del && items[sent].gen)
            vl += snprintf(val + vl, S_GEN_TOKEN_MAX + 1, " gen=%u", items[sent].gen);
        if (!del)
            vl += (int)wh_mac_sign(r->mac, k, kl, val, (size_t)vl, val + vl);
        const char *argv[3] = {del ? "DEL" : "SET", k, val};
        size_t argl[3] = {3, kl, (size_t)vl};
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
    wh_redisc_nopipe_end(&np);
    return rc;
}

/* Keeps the pending puts stored under the current generation (and every
 * drop): a forget since then may have removed the others on purpose. */
static void s_redis_pending_filter(s_redis_t *r)
{
    size_t kept = 0;
    for (size_t i = 0; i < r->n_pending; i++)
        if (r->pending[i].v == WH_V_NONE || r->pending[i].gen == r->gen)
            r->pending[kept++] = r->pending[i];
    if (kept < r->n_pending)
        wh_info("%zu verdicts stored while redis was down are not written back to %s: its "
                "generation changed (a forget) since they were stored",
                r->n_pending - kept, r->url);
    r->n_pending = kept;
}

static int s_redis_flush_pending(s_redis_t *r)
{
    if (!r->n_pending || !r->rc)
        return 0;
    s_redis_pending_filter(r);
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

static void s_redis_remember(s_redis_t *r, int ns, const uint8_t key[WH_CACHE_KEY_BYTES],
                             wh_verdict_t v, const char *node)
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
    memcpy(r->pending[r->n_pending].key, key, WH_CACHE_KEY_BYTES);
    r->pending[r->n_pending].v = (uint8_t)v;
    r->pending[r->n_pending].ns = (uint8_t)ns;
    r->pending[r->n_pending].gen = r->gen;
    snprintf(r->pending[r->n_pending].node, sizeof r->pending[r->n_pending].node, "%s",
             node ? node : "");
    r->n_pending++;
}

/* Takes the generation Redis answered (a GET reply: nil is 0). */
static void s_redis_gen_take(s_redis_t *r, const redisReply *rep)
{
    uint32_t g = 0;
    if (rep->type == REDIS_REPLY_STRING) {
        unsigned long long v = strtoull(rep->str, NULL, 10);
        g = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    } else if (rep->type == REDIS_REPLY_INTEGER) {
        g = rep->integer < 0 ? 0 : rep->integer > UINT32_MAX ? UINT32_MAX : (uint32_t)rep->integer;
    }
    /* The generation never goes back while anyone remembers a later one
     * (Redis restarted empty, or flushed): else a fallback's verdicts of
     * before a forget would answer again. */
    uint32_t floor = wh_cache_emb_max_gen(r->emb);
    if (r->gen_known && r->gen > floor)
        floor = r->gen;
    if (g < floor) {
        g = floor;
        r->gen_restore = 1;
    }
    if (r->gen_known && g != r->gen)
        wh_info("redis at %s: generation %u -> %u (verdicts were forgotten); the embedded "
                "fallback answers only with verdicts stored since",
                r->url, r->gen, g);
    r->gen = g;
    r->gen_known = 1;
}

/* Reads the reply of a GET of the generation queued before. 0, or -1 with
 * why set. */
static int s_redis_gen_recv(s_redis_t *r, char *why, size_t why_sz)
{
    void *vrep = NULL;
    if (redisGetReply(r->rc, &vrep) != REDIS_OK) {
        snprintf(why, why_sz, "%s", s_rc_err(r->rc));
        return -1;
    }
    redisReply *rep = vrep;
    int rc = 0;
    if (rep->type == REDIS_REPLY_ERROR) {
        snprintf(why, why_sz, "%s", rep->str ? rep->str : "error reply");
        rc = -1;
    } else {
        s_redis_gen_take(r, rep);
    }
    freeReplyObject(rep);
    return rc;
}

/* Writes our generation back when Redis answered a lower one. 0, or -1
 * with why set. */
static int s_redis_gen_restore(s_redis_t *r, char *why, size_t why_sz)
{
    if (!r->gen_restore)
        return 0;
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    redisReply *rep = redisCommand(r->rc, "SET " S_REDIS_GEN_KEY " %u", r->gen);
    wh_redisc_nopipe_end(&np);
    int ok = rep && rep->type != REDIS_REPLY_ERROR;
    snprintf(why, why_sz, "%s", !rep ? s_rc_err(r->rc) : rep->str ? rep->str : "error reply");
    if (rep)
        freeReplyObject(rep);
    r->gen_restore = !ok;
    return ok ? 0 : -1;
}

/* Reads the generation now (one round trip). 0, or -1 with why set. */
static int s_redis_gen_read(s_redis_t *r, char *why, size_t why_sz)
{
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    int rc = redisAppendCommand(r->rc, "GET " S_REDIS_GEN_KEY) == REDIS_OK
                 ? s_redis_gen_recv(r, why, why_sz)
                 : (snprintf(why, why_sz, "%s", s_rc_err(r->rc)), -1);
    wh_redisc_nopipe_end(&np);
    return rc ? rc : s_redis_gen_restore(r, why, why_sz);
}

/* Parses a stored value of Redis key k: 0 with *v and node set when it
 * carries a valid MAC and a storable verdict of the current generation;
 * 1 when it is a string without a valid MAC (not believed: forged, or of
 * an older whittle); 2 when it is MAC-valid but of an older generation
 * (stored before a forget: not believed, *v and node set all the same);
 * -1 otherwise (nil, or authentic but unreadable). */
static int s_redis_parse(const s_redis_t *r, const char *k, size_t kl, const redisReply *el,
                         wh_verdict_t *v, char node[WH_CACHE_NODE_MAX + 1])
{
    size_t body = 0;
    if (el->type != REDIS_REPLY_STRING)
        return -1;
    if (el->len > WH_CACHE_VALUE_MAX + S_GEN_TOKEN_MAX + WH_MAC_SUFFIX_LEN ||
        !wh_mac_verify(r->mac, k, kl, el->str, el->len, &body))
        return 1;
    if (wh_cache_value_parse(el->str, body, v, node))
        return -1;
    return r->gen_known && wh_cache_value_gen(el->str, body) < r->gen ? 2 : 0;
}

/* Stores one MGET reply element's verdict in *out (a miss: None),
 * counting a value without a valid MAC as rejected. */
static void s_redis_value(s_redis_t *r, const char *k, size_t kl, const redisReply *el,
                          wh_verdict_t *out)
{
    char node[WH_CACHE_NODE_MAX + 1];
    int rc = s_redis_parse(r, k, kl, el, out, node);
    if (rc) {
        *out = WH_V_NONE;
        if (rc == 2) {
            r->rejected++;
            if (!r->stale_total++)
                wh_warn("redis at %s holds values of a generation before the last forget "
                        "(%.*s...: node %s); ignoring them (written back after a forget?)",
                        r->url, (int)(kl < 40 ? kl : 40), k, node[0] ? node : "?");
        } else if (rc > 0) {
            r->rejected++;
            if (!r->rejected_total++)
                wh_warn("redis at %s holds values without a valid MAC (%.*s...); ignoring them "
                        "(`whittle cache stats` counts them)",
                        r->url, (int)(kl < 40 ? kl : 40), k);
        }
    }
}

/* MGET in pipelined chunks, after a GET of the generation (so a forget is
 * noticed at the next lookup). 0, or -1 with why set. */
static int s_redis_mget(s_redis_t *r, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES], int n,
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
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    int rc = 0, sent = 0;
    if (redisAppendCommand(r->rc, "GET " S_REDIS_GEN_KEY) != REDIS_OK) {
        snprintf(why, why_sz, "%s", s_rc_err(r->rc));
        n = 0, rc = -1;
    }
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
    if (!rc && s_redis_gen_recv(r, why, why_sz))
        sent = 0, rc = -1;
    for (int c = 0; c < sent; c++) {
        int base = c * S_MGET_CHUNK;
        int k = n - base < S_MGET_CHUNK ? n - base : S_MGET_CHUNK;
        /* kbuf holds the keys of the last chunk only: rebuild this one's. */
        for (int i = 0; i < k; i++)
            argl[i + 1] = s_redis_key(kbuf + (size_t)i * S_RKEY_SZ, ns, keys[base + i]);
        void *vrep = NULL;
        if (redisGetReply(r->rc, &vrep) != REDIS_OK) {
            if (!rc)
                snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            rc = -1;
            break;
        }
        redisReply *rep = vrep;
        if (rep->type == REDIS_REPLY_ARRAY && rep->elements == (size_t)k) {
            for (int i = 0; i < k; i++)
                s_redis_value(r, kbuf + (size_t)i * S_RKEY_SZ, argl[i + 1], rep->element[i],
                              &out[base + i]);
        } else if (!rc) {
            snprintf(why, why_sz, "%s",
                     rep->type == REDIS_REPLY_ERROR && rep->str ? rep->str : "unexpected reply");
            rc = -1;
        }
        freeReplyObject(rep);
    }
    wh_redisc_nopipe_end(&np);
    free(kbuf);
    free(argv);
    free(argl);
    return rc;
}

/* Adds the lookups counted since the last time to whittle:v1:hits and
 * whittle:v1:misses: one pipelined round trip after each lookup batch (a
 * round's worth of candidates); a failure loses the counts, never a
 * verdict. */
static void s_redis_count_flush(s_redis_t *r)
{
    if (!r->rc || (!r->hits && !r->misses && !r->rejected))
        return;
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    int sent = redisAppendCommand(r->rc, "INCRBY " S_REDIS_HITS_KEY " %lld", r->hits) == REDIS_OK;
    sent += sent && redisAppendCommand(r->rc, "INCRBY " S_REDIS_MISSES_KEY " %lld", r->misses) ==
                        REDIS_OK;
    sent += sent == 2 && redisAppendCommand(r->rc, "INCRBY " S_REDIS_REJECTED_KEY " %lld",
                                            r->rejected) == REDIS_OK;
    for (int i = 0; i < sent; i++) {
        void *rep = NULL;
        if (redisGetReply(r->rc, &rep) != REDIS_OK)
            break;
        freeReplyObject(rep);
    }
    wh_redisc_nopipe_end(&np);
    r->hits = r->misses = r->rejected = 0;
}

/* Counts one batch of verdict lookups. */
static void s_redis_count(s_redis_t *r, int ns, const wh_verdict_t *out, int n)
{
    if (ns != WH_CACHE_VERDICTS) {
        s_redis_count_flush(r); /* rejected predictions */
        return;
    }
    for (int i = 0; i < n; i++)
        out[i] == WH_V_NONE ? r->misses++ : r->hits++;
    s_redis_count_flush(r);
}

/* Looks keys up in the embedded fallback: once the generation is known,
 * only verdicts stored under it answer (never one Redis forgot). */
static void s_redis_fallback(s_redis_t *r, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES],
                             int n, wh_verdict_t *out)
{
    if (r->gen_known)
        wh_cache_emb_get_gen(r->emb, ns, keys, n, out, r->gen);
    else
        r->emb_ops->get_many(r->emb, ns, keys, n, out);
}

static int s_redis_get_many(void *be, int ns, const uint8_t (*keys)[WH_CACHE_KEY_BYTES], int n,
                            wh_verdict_t *out)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    if (r->rc) {
        char why[256];
        int rc = s_redis_mget(r, ns, keys, n, out, why, sizeof why);
        if (rc == 0)
            rc = s_redis_gen_restore(r, why, sizeof why);
        if (rc == 0) {
            /* Redis may have been restarted empty, or missed puts while
             * down: fill its misses from the embedded store. */
            int misses = 0;
            for (int i = 0; i < n; i++)
                misses += out[i] == WH_V_NONE;
            if (!misses) {
                s_redis_count(r, ns, out, n);
                return 0;
            }
            wh_verdict_t *local = malloc((size_t)n * sizeof *local);
            if (!local)
                return 0; /* misses stay misses */
            s_redis_fallback(r, ns, keys, n, local);
            for (int i = 0; i < n; i++)
                if (out[i] == WH_V_NONE)
                    out[i] = local[i];
            free(local);
            s_redis_count(r, ns, out, n);
            return 0;
        }
        if (rc == WH_ENOMEM)
            return rc;
        s_redis_down(r, why);
    }
    s_redis_fallback(r, ns, keys, n, out);
    return 0;
}

/* One GET (a handful per run: the verify step and the claims check ask
 * who gave a cached verdict); a miss, or Redis down, asks the fallback. */
static int s_redis_get_node(void *be, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t *v,
                            char node[WH_CACHE_NODE_MAX + 1])
{
    s_redis_t *r = be;
    *v = WH_V_NONE;
    node[0] = '\0';
    s_redis_maybe_retry(r);
    if (r->rc) {
        char k[S_RKEY_SZ];
        size_t kl = s_redis_key(k, WH_CACHE_VERDICTS, key);
        wh_redisc_nopipe_t np;
        wh_redisc_nopipe_begin(&np);
        redisReply *rep = redisCommand(r->rc, "GET %b", k, kl);
        wh_redisc_nopipe_end(&np);
        if (!rep) {
            char why[256]; /* the reason lives in the context s_redis_down frees */
            snprintf(why, sizeof why, "%s", s_rc_err(r->rc));
            s_redis_down(r, why);
        } else {
            if (s_redis_parse(r, k, kl, rep, v, node)) {
                *v = WH_V_NONE;
                node[0] = '\0';
            }
            freeReplyObject(rep);
            if (*v != WH_V_NONE)
                return 0;
        }
    }
    wh_cache_emb_get_node_gen(r->emb, key, v, node, r->gen_known ? (int64_t)r->gen : -1);
    return 0;
}

static int s_redis_put(void *be, int ns, const uint8_t key[WH_CACHE_KEY_BYTES], wh_verdict_t v,
                       const char *node)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    int erc = wh_cache_emb_put_gen(r->emb, ns, key, v, node, r->gen);
    if (r->rc) {
        s_pending_t item;
        memcpy(item.key, key, WH_CACHE_KEY_BYTES);
        item.v = (uint8_t)v;
        item.ns = (uint8_t)ns;
        item.gen = r->gen;
        snprintf(item.node, sizeof item.node, "%s", node);
        char why[256];
        if (s_redis_set_batch(r, &item, 1, why, sizeof why) == 0)
            return 0;
        s_redis_down(r, why);
    }
    s_redis_remember(r, ns, key, v, node);
    return erc;
}

static int s_redis_drop(void *be, const uint8_t key[WH_CACHE_KEY_BYTES])
{
    s_redis_t *r = be;
    int erc = r->emb_ops->drop(r->emb, key);
    s_redis_maybe_retry(r);
    if (r->rc) {
        s_pending_t item;
        memcpy(item.key, key, WH_CACHE_KEY_BYTES);
        item.ns = WH_CACHE_VERDICTS;
        item.v = WH_V_NONE;
        item.gen = r->gen;
        char why[256];
        if (s_redis_set_batch(r, &item, 1, why, sizeof why) == 0)
            return erc;
        s_redis_down(r, why);
    }
    s_redis_remember(r, WH_CACHE_VERDICTS, key, WH_V_NONE, "");
    return erc;
}

/* Called with one SCAN page: keys (an array of strings) and their values
 * (the MGET reply, same length). 0, or -1 with why set. */
typedef int (*s_page_fn)(s_redis_t *r, const redisReply *keys, const redisReply *vals,
                         void *ctx, char *why, size_t why_sz);

/* MGETs one page of keys and hands it to fn. 0, or -1 with why set. */
static int s_redis_page(s_redis_t *r, const redisReply *keys, s_page_fn fn, void *ctx,
                        char *why, size_t why_sz)
{
    size_t n = keys->elements;
    const char **argv = malloc((n + 1) * sizeof *argv);
    size_t *argl = malloc((n + 1) * sizeof *argl);
    int rc = -1;
    snprintf(why, why_sz, "out of memory");
    if (argv && argl) {
        argv[0] = "MGET";
        argl[0] = 4;
        for (size_t i = 0; i < n; i++) {
            argv[i + 1] = keys->element[i]->str;
            argl[i + 1] = keys->element[i]->len;
        }
        redisReply *vals = redisCommandArgv(r->rc, (int)n + 1, argv, argl);
        if (!vals)
            snprintf(why, why_sz, "%s", s_rc_err(r->rc));
        else if (vals->type != REDIS_REPLY_ARRAY || vals->elements != n)
            snprintf(why, why_sz, "unexpected reply to MGET");
        else
            rc = fn(r, keys, vals, ctx, why, why_sz);
        if (vals)
            freeReplyObject(vals);
    }
    free(argv);
    free(argl);
    return rc;
}

/* SCANs every key that starts with prefix and hands the pages to fn. 0, or
 * -1 with why set. */
static int s_redis_scan(s_redis_t *r, const char *prefix, s_page_fn fn, void *ctx, char *why,
                        size_t why_sz)
{
    char cursor[32] = "0";
    do {
        redisReply *rep = redisCommand(r->rc, "SCAN %s MATCH %s* COUNT " S_SCAN_COUNT, cursor,
                                       prefix);
        if (!rep) {
            snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            return -1;
        }
        int ok = rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 &&
                 rep->element[0]->type == REDIS_REPLY_STRING &&
                 rep->element[0]->len < sizeof cursor &&
                 rep->element[1]->type == REDIS_REPLY_ARRAY;
        for (size_t i = 0; ok && i < rep->element[1]->elements; i++)
            ok = rep->element[1]->element[i]->type == REDIS_REPLY_STRING;
        int rc = ok ? 0 : -1;
        if (!ok)
            snprintf(why, why_sz, "unexpected reply to SCAN");
        else
            snprintf(cursor, sizeof cursor, "%s", rep->element[0]->str);
        if (ok && rep->element[1]->elements)
            rc = s_redis_page(r, rep->element[1], fn, ctx, why, why_sz);
        freeReplyObject(rep);
        if (rc)
            return rc;
    } while (strcmp(cursor, "0") != 0);
    return 0;
}

typedef struct {
    const char *node;  /* NULL: every key (clear) */
    int ns;            /* the key space scanned (forget) */
    long deleted;
    long resigned;     /* values signed again under the new generation */
    s_pending_t *sign; /* scratch for one page's values to sign again */
} s_forget_t;

/* Sorts one value of a forget's page: 1 to delete (the forgotten node's),
 * 3 to delete too (of a generation before the last one: never current
 * again), 2 to sign again under the new generation r->gen into *item, 0
 * to leave (no valid MAC: refused anyway; or current already). */
static int s_forget_sort(const s_redis_t *r, const s_forget_t *f, const redisReply *k,
                         const redisReply *v, s_pending_t *item)
{
    size_t body = 0;
    wh_verdict_t verdict;
    if (v->type != REDIS_REPLY_STRING ||
        v->len > WH_CACHE_VALUE_MAX + S_GEN_TOKEN_MAX + WH_MAC_SUFFIX_LEN ||
        !wh_mac_verify(r->mac, k->str, k->len, v->str, v->len, &body) ||
        wh_cache_value_parse(v->str, body, &verdict, item->node))
        return 0;
    uint32_t g = wh_cache_value_gen(v->str, body);
    if (f->ns == WH_CACHE_VERDICTS && !strcmp(item->node, f->node))
        return 1;
    if (g + 1 < r->gen)
        return 3;
    if (g >= r->gen || k->len != strlen(s_redis_prefix[f->ns]) + 2 * WH_CACHE_KEY_BYTES ||
        wh_cache_key_parse_n(k->str + strlen(s_redis_prefix[f->ns]), item->key))
        return 0;
    item->v = (uint8_t)verdict;
    item->ns = (uint8_t)f->ns;
    item->gen = r->gen;
    return 2;
}

/* DELs the keys of a page whose value names the node (one pipeline); with
 * f->node NULL every key (clear). A forget signs the page's other current
 * values again under the new generation (s_forget_sort). */
static int s_forget_page(s_redis_t *r, const redisReply *keys, const redisReply *vals, void *ctx,
                         char *why, size_t why_sz)
{
    s_forget_t *f = ctx;
    size_t sent = 0, nsign = 0;
    int rc = 0;
    for (size_t i = 0; i < keys->elements; i++) {
        int what = f->node ? s_forget_sort(r, f, keys->element[i], vals->element[i],
                                           &f->sign[nsign])
                           : 1;
        if (what == 2 && nsign < S_SCAN_PAGE_MAX)
            nsign++;
        if (what != 1 && what != 3)
            continue;
        f->deleted += what == 1;
        const char *argv[2] = {"DEL", keys->element[i]->str};
        size_t argl[2] = {3, keys->element[i]->len};
        if (redisAppendCommandArgv(r->rc, 2, argv, argl) != REDIS_OK) {
            snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            rc = -1;
            break;
        }
        sent++;
    }
    for (size_t i = 0; i < sent; i++) {
        void *vrep = NULL;
        if (redisGetReply(r->rc, &vrep) != REDIS_OK) {
            snprintf(why, why_sz, "%s", s_rc_err(r->rc));
            return -1;
        }
        freeReplyObject(vrep);
    }
    if (!rc && nsign) {
        rc = s_redis_set_batch(r, f->sign, nsign, why, why_sz);
        f->resigned += rc ? 0 : (long)nsign;
    }
    return rc;
}

/* Ends a forget or a clear: bumps the generation when the deletes went
 * through (rc 0), closes the section without pipelining, and takes the new
 * number (our own bump: no news to announce). 0, or WH_EUNAVAIL with the
 * cache marked down for why. */
static int s_redis_bump_gen(s_redis_t *r, int rc, wh_redisc_nopipe_t *np, char *why, size_t n)
{
    redisReply *rep = rc ? NULL : redisCommand(r->rc, "INCR " S_REDIS_GEN_KEY);
    wh_redisc_nopipe_end(np);
    int rrc = WH_EUNAVAIL;
    if (rep && rep->type == REDIS_REPLY_INTEGER) {
        r->gen_known = 0;
        s_redis_gen_take(r, rep);
        rrc = 0;
    } else if (!rc) {
        snprintf(why, n, "%s", rep && rep->type == REDIS_REPLY_ERROR ? rep->str : s_rc_err(r->rc));
    }
    if (rep)
        freeReplyObject(rep);
    if (rrc)
        s_redis_down(r, why);
    return rrc;
}

/* Redis first, so that the generation is bumped before the fallback is
 * touched: a process that looks up in between already ignores its old
 * fallback verdicts. The generation is bumped before anything else: from
 * then on every value not signed again under it is refused, so a forget
 * cut short (Redis lost mid-scan) loses cached verdicts, never believes
 * the forgotten node's. Then the node's values are deleted and every
 * other current verdict and prediction signed again under the new
 * generation (one SCAN, one pipeline per page). */
static int s_redis_forget(void *be, const char *node, wh_cache_forgot_t *out)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    char why[256];
    int rrc = WH_EUNAVAIL;
    if (r->rc) {
        wh_redisc_nopipe_t np;
        wh_redisc_nopipe_begin(&np);
        rrc = s_redis_bump_gen(r, 0, &np, why, sizeof why);
    }
    if (!rrc) {
        s_forget_t f = {node, WH_CACHE_VERDICTS, 0, 0, malloc(S_SCAN_PAGE_MAX * sizeof *f.sign)};
        wh_redisc_nopipe_t np;
        wh_redisc_nopipe_begin(&np);
        int rc = f.sign ? 0 : (snprintf(why, sizeof why, "out of memory"), -1);
        for (int ns = 0; ns < WH_CACHE_NS && !rc; ns++) {
            f.ns = ns;
            rc = s_redis_scan(r, s_redis_prefix[ns], s_forget_page, &f, why, sizeof why);
            if (ns == WH_CACHE_VERDICTS)
                out->redis = f.deleted;
        }
        wh_redisc_nopipe_end(&np);
        free(f.sign);
        wh_debug("forget %s: %ld values signed again under generation %u", node, f.resigned,
                 r->gen);
        if (rc) {
            s_redis_down(r, why);
            rrc = WH_EUNAVAIL;
        } else {
            out->generation = r->gen;
        }
    }
    uint64_t g = out->generation;
    int erc = r->emb_ops->forget(r->emb, node, out);
    if (!rrc)
        out->generation = g;
    return rrc ? rrc : erc;
}

wh_cache_emb_t *wh_cache_redis_fallback(wh_cache_redis_t *r)
{
    return r->emb;
}

typedef struct {
    wh_cache_stats_t *st;
    int ns; /* WH_CACHE_NS: blobs */
} s_tally_t;

/* Counts one SCAN page into the stats. */
static int s_tally_page(s_redis_t *r, const redisReply *keys, const redisReply *vals, void *ctx,
                        char *why, size_t why_sz)
{
    (void)why, (void)why_sz;
    s_tally_t *t = ctx;
    for (size_t i = 0; i < keys->elements; i++) {
        const redisReply *v = vals->element[i];
        wh_verdict_t verdict;
        char node[WH_CACHE_NODE_MAX + 1];
        if (v->type != REDIS_REPLY_STRING)
            continue; /* gone since the SCAN */
        t->st->bytes += keys->element[i]->len + v->len;
        size_t body = 0;
        if (!wh_mac_verify(r->mac, keys->element[i]->str, keys->element[i]->len, v->str, v->len,
                           &body))
            t->st->unauthenticated++;
        else if (t->ns == WH_CACHE_NS)
            t->st->blobs++;
        else if (wh_cache_value_parse(v->str, body, &verdict, node))
            continue;
        else if (wh_cache_value_gen(v->str, body) < r->gen)
            t->st->stale++;
        else if (t->ns == WH_CACHE_PREDICTED)
            t->st->predicted++;
        else
            t->st->verdicts[verdict]++;
    }
    return 0;
}

/* A counter key's value, or -1 when it cannot be read. */
static long long s_redis_counter(s_redis_t *r, const char *key)
{
    redisReply *rep = redisCommand(r->rc, "GET %s", key);
    long long v = !rep ? -1 : rep->type == REDIS_REPLY_STRING ? strtoll(rep->str, NULL, 10)
                            : rep->type == REDIS_REPLY_NIL    ? 0
                                                              : -1;
    if (rep)
        freeReplyObject(rep);
    return v;
}

/* st[0]: Redis (SCAN of the three key spaces), st[1]: the fallback. */
static int s_redis_stats(void *be, wh_cache_stats_t *st, int max)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    s_redis_count_flush(r);
    if (!r->rc || max < 2)
        return max < 1 ? 0 : wh_cache_emb_ops.stats(r->emb, st, 1) < 0 ? WH_EIO : WH_EUNAVAIL;
    memset(st, 0, sizeof *st);
    snprintf(st->where, sizeof st->where, "%s", r->url);
    static const char *const prefix[] = {"whittle:v1:verdict:", "whittle:v1:predicted:",
                                         S_REDIS_BLOB_PREFIX};
    char why[256];
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    int rc = s_redis_gen_read(r, why, sizeof why);
    for (int ns = 0; ns <= WH_CACHE_NS && !rc; ns++) {
        s_tally_t t = {st, ns};
        rc = s_redis_scan(r, prefix[ns], s_tally_page, &t, why, sizeof why);
    }
    st->hits = rc ? -1 : s_redis_counter(r, S_REDIS_HITS_KEY);
    st->misses = rc ? -1 : s_redis_counter(r, S_REDIS_MISSES_KEY);
    st->rejected = rc ? -1 : s_redis_counter(r, S_REDIS_REJECTED_KEY);
    wh_redisc_nopipe_end(&np);
    st->generation = r->gen;
    if (rc) {
        s_redis_down(r, why);
        return wh_cache_emb_ops.stats(r->emb, st, 1) < 0 ? WH_EIO : WH_EUNAVAIL;
    }
    int fb = wh_cache_emb_ops.stats(r->emb, st + 1, 1);
    return fb < 0 ? fb : 2;
}

/* Deletes every whittle:v1: verdict, prediction and blob, then bumps the
 * generation (never deleted: it must not go back); then the fallback. */
static int s_redis_clear(void *be, wh_cache_forgot_t *out)
{
    s_redis_t *r = be;
    s_redis_maybe_retry(r);
    static const char *const prefix[] = {"whittle:v1:verdict:", "whittle:v1:predicted:",
                                         S_REDIS_BLOB_PREFIX};
    char why[256] = "";
    int rrc = WH_EUNAVAIL;
    if (r->rc) {
        wh_redisc_nopipe_t np;
        wh_redisc_nopipe_begin(&np);
        int rc = 0;
        for (int i = 0; i < 3 && !rc; i++) {
            s_forget_t f = {NULL, 0, 0, 0, NULL};
            rc = s_redis_scan(r, prefix[i], s_forget_page, &f, why, sizeof why);
            if (i == 0)
                out->redis = f.deleted;
        }
        rrc = s_redis_bump_gen(r, rc, &np, why, sizeof why);
        r->n_pending = 0; /* nothing stored before a clear goes back */
    }
    uint64_t g = r->gen;
    int erc = r->emb_ops->clear(r->emb, out);
    if (!rrc)
        out->generation = g;
    return rrc ? rrc : erc;
}

/* One command whose reply is read at once: GET or SET of a blob. Returns
 * the reply (caller frees) or NULL with why set. */
static redisReply *s_redis_blob_cmd(s_redis_t *r, int argc, const char **argv,
                                    const size_t *argl, char *why, size_t why_sz)
{
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    redisReply *rep = redisCommandArgv(r->rc, argc, argv, argl);
    wh_redisc_nopipe_end(&np);
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
        if (!rep)
            free(k);
        if (rep) {
            int rc = WH_ENOTFOUND;
            size_t body = 0;
            int ok = rep->type == REDIS_REPLY_STRING &&
                     rep->len <= WH_CACHE_BLOB_VALUE_MAX + WH_MAC_SUFFIX_LEN &&
                     wh_mac_verify(r->mac, k, strlen(k), rep->str, rep->len, &body);
            if (rep->type == REDIS_REPLY_STRING && !ok) {
                r->rejected++;
                if (!r->rejected_total++)
                    wh_warn("redis at %s holds values without a valid MAC (%.40s); ignoring them "
                            "(`whittle cache stats` counts them)",
                            r->url, k);
            }
            if (ok && !memchr(rep->str, '\0', body) && !memchr(rep->str, '\n', body)) {
                *value = strndup(rep->str, body);
                rc = *value ? 0 : WH_ENOMEM;
            }
            free(k);
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
        size_t vl = strlen(value);
        char *signed_v = malloc(vl + WH_MAC_SUFFIX_LEN + 1);
        if (!signed_v) {
            free(k);
            return WH_ENOMEM;
        }
        memcpy(signed_v, value, vl);
        vl += wh_mac_sign(r->mac, k, strlen(k), value, vl, signed_v + vl);
        const char *argv[3] = {"SET", k, signed_v};
        size_t argl[3] = {3, strlen(k), vl};
        char why[256];
        redisReply *rep = s_redis_blob_cmd(r, 3, argv, argl, why, sizeof why);
        free(k);
        free(signed_v);
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
    s_redis_count_flush(r);
    wh_redisc_destroy(&r->cli); /* closes the connection, wipes the password */
    wh_mac_destroy(&r->mac);
    if (r->emb)
        r->emb_ops->close(r->emb);
    free(r->pending);
    free(r);
}

const struct wh_cache_ops wh_cache_redis_ops = {
    .get_many = s_redis_get_many,
    .get_node = s_redis_get_node,
    .put = s_redis_put,
    .drop = s_redis_drop,
    .forget = s_redis_forget,
    .stats = s_redis_stats,
    .clear = s_redis_clear,
    .get_blob = s_redis_get_blob,
    .put_blob = s_redis_put_blob,
    .describe = s_redis_describe,
    .close = s_redis_close,
};

wh_cache_redis_t *wh_cache_redis_open(const char *url, char **err)
{
    s_redis_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    /* No secret, no Redis: a value read back could not be believed. */
    r->mac = wh_mac_new_default("a redis:// cache", err);
    if (!r->mac)
        goto fail;
    r->cli = wh_redisc_new(url, NULL, err);
    if (!r->cli)
        goto fail;
    r->url = wh_redisc_url(r->cli);
    r->retry_ms = S_REDIS_RETRY_MS;
    const char *env = getenv("WHITTLE_REDIS_RETRY_MS");
    if (env && *env) {
        char *e;
        unsigned long ms = strtoul(env, &e, 10);
        if (!*e && ms <= 24ul * 3600 * 1000)
            r->retry_ms = (unsigned)ms;
    }

    /* The fallback first: Redis may be down from the start. */
    r->emb_ops = &wh_cache_emb_ops;
    char *dir = wh_cache_default_dir();
    char *eerr = NULL;
    r->emb = dir ? wh_cache_emb_open(dir, &eerr) : NULL;
    if (!r->emb) {
        wh_warn("no embedded cache to fall back on (%s); keeping the fallback in memory",
                eerr ? eerr : "no cache folder: set WHITTLE_CACHE_DIR or HOME");
        r->emb = wh_cache_mem_open();
    }
    free(eerr);
    free(dir);
    if (!r->emb) {
        *err = wh_strdup0("out of memory");
        goto fail;
    }

    char why[256];
    char *cerr = NULL;
    int crc = s_redis_connect(r, &cerr);
    if (crc == WH_EAUTH) {
        /* Wrong or missing credentials: a configuration error, not an
         * outage; falling back would hide it. */
        *err = cerr;
        goto fail;
    }
    free(cerr);
    if (crc)
        s_redis_down(r, wh_redisc_why(r->cli));
    else if (s_redis_gen_read(r, why, sizeof why))
        s_redis_down(r, why);
    return r;
fail:
    s_redis_close(r);
    return NULL;
}
