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
 *
 * Field "_index" holds the sequence number of every job's latest record
 * ("v1 <id>=<seq> ..."), with its own MAC over "whittle:v1:jobs:_index";
 * each put writes the record and the index in one HSET (atomic), and load
 * hands the front the number each record must carry (journal_be.h): a
 * MAC-valid older record written back over a newer one is refused.
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
#define S_INDEX "_index"
#define S_ID_LEN 16

/* One job's latest sequence number. */
typedef struct {
    char id[S_ID_LEN + 1];
    uint64_t seq;
} s_ix_t;

typedef struct {
    wh_redisc_t *cli;
    wh_mac_t *mac;
    char *desc;
    s_ix_t *ix;    /* the index as loaded and put since */
    size_t nix, capix;
    int have_index; /* load found a valid "_index" */
} s_redis_t;

static void s_free(s_redis_t *r)
{
    wh_redisc_destroy(&r->cli);
    wh_mac_destroy(&r->mac);
    free(r->desc);
    free(r->ix);
    free(r);
}

/* The index's entry of id, or NULL. */
static s_ix_t *s_ix_find(s_redis_t *r, const char *id)
{
    for (size_t i = 0; i < r->nix; i++)
        if (!strcmp(r->ix[i].id, id))
            return &r->ix[i];
    return NULL;
}

/* Sets id's number. 0 or WH_ENOMEM. */
static int s_ix_set(s_redis_t *r, const char *id, uint64_t seq)
{
    s_ix_t *x = s_ix_find(r, id);
    if (!x) {
        if (strlen(id) != S_ID_LEN)
            return 0;
        if (r->nix == r->capix) {
            size_t cap = r->capix ? 2 * r->capix : 64;
            s_ix_t *n = realloc(r->ix, cap * sizeof *n);
            if (!n)
                return WH_ENOMEM;
            r->ix = n;
            r->capix = cap;
        }
        x = &r->ix[r->nix++];
        memcpy(x->id, id, S_ID_LEN + 1);
    }
    x->seq = seq;
    return 0;
}

/* The index as a signed value (malloc'ed), or NULL. */
static char *s_ix_text(const s_redis_t *r)
{
    wh_buf_t b = {0};
    wh_buf_printf(&b, "v1");
    for (size_t i = 0; i < r->nix; i++)
        wh_buf_printf(&b, " %s=%llu", r->ix[i].id, (unsigned long long)r->ix[i].seq);
    char mac[WH_MAC_SUFFIX_LEN + 1];
    const char *k = S_HASH ":" S_INDEX;
    if (!b.buf || !wh_mac_sign(r->mac, k, strlen(k), b.buf, b.len, mac)) {
        free(b.buf);
        return NULL;
    }
    wh_buf_printf(&b, "%s", mac);
    return b.buf;
}

/* Reads a stored index value (MAC checked). 1 when valid, else 0 (a
 * warning said why). */
static int s_ix_load(s_redis_t *r, const redisReply *v)
{
    const char *k = S_HASH ":" S_INDEX;
    size_t body = 0;
    if (v->type != REDIS_REPLY_STRING ||
        !wh_mac_verify(r->mac, k, strlen(k), v->str, v->len, &body) || body < 2 || memcmp(v->str, "v1", 2)) {
        wh_warn("journal: its index in redis has no valid MAC; records with sequence numbers "
                "are refused");
        return 0;
    }
    char *text = strndup(v->str, body), *save = NULL;
    if (!text)
        return 0;
    for (char *tok = strtok_r(text + 2, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        s_ix_set(r, tok, strtoull(eq + 1, NULL, 10));
    }
    free(text);
    return 1;
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

static int s_put(void *be, const char *id, const char *record, uint64_t seq, char **err)
{
    s_redis_t *r = be;
    if (s_ix_set(r, id, seq)) {
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    char *ix = s_ix_text(r);
    char *k = s_mac_key(id);
    size_t n = strlen(record);
    char *signed_r = malloc(n + WH_MAC_SUFFIX_LEN + 1);
    if (!k || !signed_r || !ix) {
        free(k);
        free(signed_r);
        free(ix);
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    memcpy(signed_r, record, n);
    wh_mac_sign(r->mac, k, strlen(k), record, n, signed_r + n);
    /* The record and the index in one command: never one without the other. */
    const char *argv[] = {"HSET", S_HASH, id, signed_r, S_INDEX, ix};
    int rc = wh_redisc_command(r->cli, 6, argv, NULL, NULL, err);
    free(k);
    free(signed_r);
    free(ix);
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
    const s_ix_t *x = s_ix_find(r, id);
    int rc = fn(ctx, where, rec,
                !r->have_index ? WH_JOURNAL_SEQ_NO_INDEX : x ? (int64_t)x->seq : 0);
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
    s_redis_t *r = be;
    /* The index first: it says which record of each job is the latest. */
    for (size_t i = 0; rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements; i += 2)
        if (rep->element[i]->type == REDIS_REPLY_STRING && !strcmp(rep->element[i]->str, S_INDEX))
            r->have_index = s_ix_load(r, rep->element[i + 1]);
    for (size_t i = 0; rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements && !rc; i += 2)
        if (rep->element[i]->type != REDIS_REPLY_STRING || strcmp(rep->element[i]->str, S_INDEX))
            rc = s_visit(be, rep->element[i], rep->element[i + 1], fn, ctx);
    freeReplyObject(rep);
    return rc;
}

static int s_compact(void *be, const char *const *keep, int nkeep, const char *const *drop,
                     int ndrop, char **err)
{
    (void)keep;
    (void)nkeep;
    s_redis_t *r = be;
    for (int i = 0; i < ndrop; i++) {
        const char *argv[] = {"HDEL", S_HASH, drop[i]};
        int rc = wh_redisc_command(r->cli, 3, argv, NULL, NULL, err);
        if (rc)
            return rc;
        s_ix_t *x = s_ix_find(r, drop[i]);
        if (x)
            *x = r->ix[--r->nix];
    }
    if (!ndrop)
        return 0;
    char *ix = s_ix_text(r);
    if (!ix) {
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    const char *argv[] = {"HSET", S_HASH, S_INDEX, ix};
    int rc = wh_redisc_command(r->cli, 4, argv, NULL, NULL, err);
    free(ix);
    return rc;
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
