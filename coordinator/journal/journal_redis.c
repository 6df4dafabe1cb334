/*
 * journal_redis — the journal's Redis back end (journal_be.h): hash
 * whittle:v1:jobs, field = job id, value = the job's latest record, in the
 * database of the coordinator's redis:// cache URL (same AUTH). A lost
 * connection is reopened on the next write; a write that still fails is
 * an error the front reports (the job runs on, it just is not crash-safe).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <hiredis/hiredis.h>
#include <stdlib.h>
#include <string.h>

#include "journal_be.h"
#include "wh_common.h"

#define S_HASH "whittle:v1:jobs"

typedef struct {
    char *host, *user, *password;
    int port, db;
    char *desc;
    redisContext *rc;
} s_redis_t;

/* %XX escapes of a URL's user info. */
static char *s_pct_decode(const char *s, size_t n)
{
    char *o = malloc(n + 1), *w = o;
    for (size_t i = 0; o && i < n; i++) {
        unsigned x;
        if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
            isxdigit((unsigned char)s[i + 2]) && sscanf(s + i + 1, "%2x", &x) == 1) {
            *w++ = (char)x;
            i += 2;
        } else {
            *w++ = s[i];
        }
    }
    if (o)
        *w = '\0';
    return o;
}

/* redis://[user[:password]@]host[:port][/db] */
static int s_parse(s_redis_t *r, const char *url, char **err)
{
    const char *p = url + strlen("redis://");
    const char *at = strrchr(p, '@');
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (colon) {
            r->user = colon > p ? s_pct_decode(p, (size_t)(colon - p)) : NULL;
            r->password = s_pct_decode(colon + 1, (size_t)(at - colon - 1));
        } else {
            r->password = s_pct_decode(p, (size_t)(at - p)); /* redis://password@host */
        }
        p = at + 1;
    }
    size_t hl = strcspn(p, ":/");
    r->host = hl ? strndup(p, hl) : NULL;
    r->port = 6379;
    p += hl;
    long v = 0;
    char num[16];
    if (*p == ':') {
        size_t nl = strcspn(p + 1, "/");
        snprintf(num, sizeof num, "%.*s", (int)(nl < 15 ? nl : 15), p + 1);
        if (nl >= 15 || wh_parse_long(num, 1, 65535, &v))
            goto bad;
        r->port = (int)v;
        p += 1 + nl;
    }
    if (*p == '/' && p[1]) {
        if (wh_parse_long(p + 1, 0, 1000000, &v))
            goto bad;
        r->db = (int)v;
    }
    if (!r->host)
        goto bad;
    r->desc = wh_strdup_printf("redis %s:%d/%d hash " S_HASH, r->host, r->port, r->db);
    return 0;
bad:
    *err = strdup("journal: bad Redis URL (want redis://[user[:password]@]host[:port][/db])");
    return WH_EINVAL;
}

static redisReply *s_cmd(s_redis_t *r, int argc, const char **argv)
{
    return redisCommandArgv(r->rc, argc, argv, NULL);
}

/* Connects, authenticates and selects the database. 0 or WH_EUNAVAIL. */
static int s_connect(s_redis_t *r, char **err)
{
    if (r->rc)
        redisFree(r->rc);
    struct timeval tv = {1, 0};
    r->rc = redisConnectWithTimeout(r->host, r->port, tv);
    const char *why = !r->rc ? "out of memory" : r->rc->err ? r->rc->errstr : NULL;
    if (!why) {
        redisSetTimeout(r->rc, tv);
        char db[16];
        snprintf(db, sizeof db, "%d", r->db);
        const char *auth[] = {"AUTH", r->user ? r->user : r->password, r->password};
        const char *sel[] = {"SELECT", db};
        redisReply *a = r->password ? s_cmd(r, r->user ? 3 : 2, auth) : NULL;
        if (r->password && (!a || a->type == REDIS_REPLY_ERROR))
            why = a ? "AUTH refused" : r->rc->errstr;
        freeReplyObject(a);
        redisReply *s = why ? NULL : s_cmd(r, 2, sel);
        if (!why && (!s || s->type == REDIS_REPLY_ERROR))
            why = s ? "SELECT refused" : r->rc->errstr;
        freeReplyObject(s);
    }
    if (!why)
        return 0;
    if (err)
        *err = wh_strdup_printf("journal: cannot use Redis at %s:%d: %s", r->host, r->port, why);
    if (r->rc)
        redisFree(r->rc);
    r->rc = NULL;
    return WH_EUNAVAIL;
}

static void s_free(s_redis_t *r)
{
    if (r->rc)
        redisFree(r->rc);
    free(r->host);
    free(r->user);
    free(r->password);
    free(r->desc);
    free(r);
}

void *wh_journal_redis_open(const char *url, char **err)
{
    s_redis_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = strdup("out of memory");
        return NULL;
    }
    if (s_parse(r, url, err) || s_connect(r, err)) {
        s_free(r);
        return NULL;
    }
    return r;
}

/* One command, reconnecting once when the connection is gone. */
static redisReply *s_retry(s_redis_t *r, int argc, const char **argv, char **err)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!r->rc && s_connect(r, attempt ? err : NULL))
            continue;
        redisReply *rep = s_cmd(r, argc, argv);
        if (rep && rep->type != REDIS_REPLY_ERROR)
            return rep;
        if (rep) {
            *err = wh_strdup_printf("Redis refused %s: %s", argv[0], rep->str);
            freeReplyObject(rep);
            return NULL;
        }
        redisFree(r->rc);
        r->rc = NULL;
    }
    if (!*err)
        *err = wh_strdup_printf("Redis at %s:%d does not answer", r->host, r->port);
    return NULL;
}

static int s_put(void *be, const char *id, const char *record, char **err)
{
    const char *argv[] = {"HSET", S_HASH, id, record};
    redisReply *rep = s_retry(be, 4, argv, err);
    freeReplyObject(rep);
    return rep ? 0 : WH_EUNAVAIL;
}

static int s_load(void *be, wh_journal_visit_fn fn, void *ctx, char **err)
{
    const char *argv[] = {"HGETALL", S_HASH};
    redisReply *rep = s_retry(be, 2, argv, err);
    if (!rep)
        return WH_EUNAVAIL;
    int rc = 0;
    for (size_t i = 0; rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements && !rc; i += 2) {
        char where[96];
        snprintf(where, sizeof where, "field %.40s", rep->element[i]->str ? rep->element[i]->str : "?");
        rc = fn(ctx, where, rep->element[i + 1]->str ? rep->element[i + 1]->str : "");
    }
    freeReplyObject(rep);
    return rc;
}

static int s_compact(void *be, const char *const *keep, int nkeep, const char *const *drop,
                     int ndrop, char **err)
{
    (void)keep;
    (void)nkeep;
    for (int i = 0; i < ndrop; i++) {
        const char *argv[] = {"HDEL", S_HASH, drop[i]};
        redisReply *rep = s_retry(be, 3, argv, err);
        if (!rep)
            return WH_EUNAVAIL;
        freeReplyObject(rep);
    }
    return 0;
}

static const char *s_describe(const void *be)
{
    return ((const s_redis_t *)be)->desc;
}

static void s_close(void *be)
{
    s_free(be);
}

const wh_journal_ops_t wh_journal_redis_ops = {s_put, s_load, s_compact, s_describe, s_close};
