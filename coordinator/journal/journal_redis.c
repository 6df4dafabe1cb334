/*
 * journal_redis — the journal's Redis back end (journal_be.h): hash
 * whittle:v1:jobs, field = job id, value = the job's latest record, in the
 * database of the coordinator's redis:// cache URL. The URL, the password
 * (the URL's, else $WHITTLE_REDIS_PASSWORD, else the password file: as the
 * cache), AUTH, SELECT and reconnecting are the shared Redis client's
 * (common/wh_redisc.h). A lost connection is reopened on the next write; a
 * write that still fails is an error the front reports (the job runs on,
 * it just is not crash-safe).
 *
 * Each record carries " mac=<hex>" (wh_mac.h) over the key
 * "whittle:v1:jobs:<id>" and the record, under the cluster secret; a
 * record without a valid one is refused on load with a warning naming the
 * job, never resumed.
 */
#define _GNU_SOURCE
#include <hiredis/hiredis.h>
#include <stdlib.h>
#include <string.h>

#include "journal_be.h"
#include "wh_common.h"
#include "wh_mac.h"
#include "wh_redisc.h"

#define S_HASH "whittle:v1:jobs"

typedef struct {
    wh_redisc_t *cli;
    wh_mac_t *mac;
    char *desc;
} s_redis_t;

static void s_free(s_redis_t *r)
{
    wh_redisc_destroy(&r->cli);
    wh_mac_destroy(&r->mac);
    free(r->desc);
    free(r);
}

/* Prefixes *err (set by the client) with "journal: ". */
static void s_prefix(char **err)
{
    char *e = wh_strdup_printf("journal: %s", *err ? *err : "out of memory");
    free(*err);
    *err = e;
}

void *wh_journal_redis_open(const char *url, char **err)
{
    s_redis_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = strdup("out of memory");
        return NULL;
    }
    r->mac = wh_mac_new_default("a redis:// journal", err);
    r->cli = r->mac ? wh_redisc_new(url, NULL, err) : NULL;
    if (!r->cli || wh_redisc_connect(r->cli, err)) {
        s_prefix(err);
        s_free(r);
        return NULL;
    }
    r->desc = wh_strdup_printf("redis %s:%d/%d hash " S_HASH, wh_redisc_host(r->cli),
                               wh_redisc_port(r->cli), wh_redisc_db(r->cli));
    if (!r->desc) {
        *err = strdup("out of memory");
        s_free(r);
        return NULL;
    }
    return r;
}

/* The key a record's MAC covers: the hash and the field. */
static char *s_mac_key(const char *id)
{
    return wh_strdup_printf(S_HASH ":%s", id);
}

static int s_put(void *be, const char *id, const char *record, char **err)
{
    s_redis_t *r = be;
    char *k = s_mac_key(id);
    size_t n = strlen(record);
    char *signed_r = malloc(n + WH_MAC_SUFFIX_LEN + 1);
    if (!k || !signed_r) {
        free(k);
        free(signed_r);
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    memcpy(signed_r, record, n);
    wh_mac_sign(r->mac, k, strlen(k), record, n, signed_r + n);
    const char *argv[] = {"HSET", S_HASH, id, signed_r};
    int rc = wh_redisc_command(r->cli, 4, argv, NULL, NULL, err);
    free(k);
    free(signed_r);
    return rc;
}

/* Visits one stored field: a record with a valid MAC goes to fn without
 * it; one without is refused with a warning (the job is not resumed). */
static int s_visit(s_redis_t *r, const redisReply *f, const redisReply *v,
                   wh_journal_visit_fn fn, void *ctx)
{
    const char *id = f->type == REDIS_REPLY_STRING ? f->str : "?";
    char where[96];
    snprintf(where, sizeof where, "field %.40s", id);
    char *k = s_mac_key(id);
    size_t body = 0;
    if (!k)
        return WH_ENOMEM;
    int ok = v->type == REDIS_REPLY_STRING &&
             wh_mac_verify(r->mac, k, strlen(k), v->str, v->len, &body);
    free(k);
    if (!ok) {
        wh_warn("journal: job %.64s: its record in redis has no valid MAC; not resumed", id);
        return 0;
    }
    char *rec = strndup(v->str, body);
    if (!rec)
        return WH_ENOMEM;
    int rc = fn(ctx, where, rec);
    free(rec);
    return rc;
}

static int s_load(void *be, wh_journal_visit_fn fn, void *ctx, char **err)
{
    const char *argv[] = {"HGETALL", S_HASH};
    redisReply *rep = NULL;
    int rc = wh_redisc_command(((s_redis_t *)be)->cli, 2, argv, NULL, &rep, err);
    if (rc)
        return rc;
    for (size_t i = 0; rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements && !rc; i += 2)
        rc = s_visit(be, rep->element[i], rep->element[i + 1], fn, ctx);
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
        int rc = wh_redisc_command(((s_redis_t *)be)->cli, 3, argv, NULL, NULL, err);
        if (rc)
            return rc;
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
