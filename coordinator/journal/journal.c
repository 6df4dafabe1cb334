/*
 * journal — the front: the record codec, the in-memory view (latest record
 * per job id) and the choice of back end (journal.h).
 */
#define _GNU_SOURCE
#include "journal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <time.h>

#include "cache_value.h"
#include "journal_be.h"

/* A finished job is kept this long (for a client that reattaches late). */
#define S_KEEP_FINISHED_S (24 * 3600)
/* The longest record accepted from a back end (a job JSON and a result). */
#define S_MAX_RECORD (1u << 20)

struct wh_journal {
    const wh_journal_ops_t *ops;
    void *be;
    wh_journal_entry_t *v; /* latest record per id, in first-seen order */
    int n, cap;
    char *load_err;        /* the first bad record met while loading */
    uint64_t seq;          /* the highest sequence number read or written */
};

static const char *const s_states[] = {"running", "done", "failed", "cancelled"};

const char *wh_journal_state_name(wh_journal_state_t st)
{
    return (unsigned)st < 4 ? s_states[st] : "?";
}

void wh_journal_entry_clear(wh_journal_entry_t *e)
{
    free(e->owner);
    free(e->job);
    free(e->result);
    free(e->run_dir);
    memset(e, 0, sizeof *e);
}

static int s_id_ok(const char *id)
{
    if (!id || strlen(id) != WH_JOURNAL_ID_LEN)
        return 0;
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

void wh_journal_new_id(char out[WH_JOURNAL_ID_LEN + 1])
{
    uint8_t b[WH_JOURNAL_ID_LEN / 2];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        uint64_t x = wh_wall_ms() ^ ((uint64_t)getpid() << 32) ^ wh_now_ms();
        memcpy(b, &x, sizeof b);
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

char *wh_journal_encode(const wh_journal_entry_t *e)
{
    json_error_t je;
    json_t *job = e->job ? json_loads(e->job, 0, &je) : NULL;
    json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:I, s:I}", "v", 1, "id", e->id,
                          "owner", e->owner ? e->owner : "", "state",
                          wh_journal_state_name(e->state), "code", e->code, "resumed", e->resumed,
                          "t", (json_int_t)e->t, "seq", (json_int_t)e->seq);
    if (!o || !job) {
        json_decref(o);
        json_decref(job);
        return NULL;
    }
    json_object_set_new(o, "job", job);
    if (e->result)
        json_object_set_new(o, "result", json_string(e->result));
    if (e->run_dir)
        json_object_set_new(o, "run", json_string(e->run_dir));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

static int s_bad(char **why, const char *msg, const char *field)
{
    *why = wh_strdup_printf(msg, field);
    return WH_EINVAL;
}

/* The optional string field k of o into *dst; 0 or WH_EINVAL. */
static int s_opt_str(json_t *o, const char *k, char **dst, char **why)
{
    json_t *v = json_object_get(o, k);
    if (!v)
        return 0;
    if (!json_is_string(v))
        return s_bad(why, "field '%s' is not a string", k);
    *dst = strdup(json_string_value(v));
    return 0;
}

int wh_journal_decode(const char *text, wh_journal_entry_t *e, char **why)
{
    memset(e, 0, sizeof *e);
    json_error_t je;
    json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!o || !json_is_object(o)) {
        *why = o ? strdup("not a JSON object") : wh_strdup_printf("not JSON (%s)", je.text);
        json_decref(o);
        return WH_EINVAL;
    }
    int rc = 0;
    json_t *v = json_object_get(o, "v"), *id = json_object_get(o, "id");
    json_t *st = json_object_get(o, "state"), *job = json_object_get(o, "job");
    json_t *code = json_object_get(o, "code"), *t = json_object_get(o, "t");
    json_t *res = json_object_get(o, "resumed"), *seq = json_object_get(o, "seq");
    if (!json_is_integer(v) || json_integer_value(v) != 1)
        rc = s_bad(why, "field '%s' is not 1 (the record version this coordinator reads)", "v");
    else if (!json_is_string(id) || !s_id_ok(json_string_value(id)))
        rc = s_bad(why, "field '%s' is not a job id (16 hex digits)", "id");
    else if (!json_is_object(job))
        rc = s_bad(why, "field '%s' is not a JSON object", "job");
    else if (!json_is_integer(code) || !json_is_integer(t) || !json_is_integer(res) ||
             json_integer_value(code) < 0 || json_integer_value(code) > 255 ||
             json_integer_value(res) < 0 || json_integer_value(res) > 1000000)
        rc = s_bad(why, "fields '%s', 't' and 'resumed' must be small whole numbers", "code");
    else if (seq && (!json_is_integer(seq) || json_integer_value(seq) < 0))
        rc = s_bad(why, "field '%s' is not a whole number", "seq");
    else {
        int k = -1;
        for (int i = 0; i < 4 && json_is_string(st); i++)
            if (!strcmp(json_string_value(st), s_states[i]))
                k = i;
        if (k < 0)
            rc = s_bad(why, "field '%s' is not running, done, failed or cancelled", "state");
        else {
            memcpy(e->id, json_string_value(id), WH_JOURNAL_ID_LEN + 1);
            e->state = (wh_journal_state_t)k;
            e->code = (int)json_integer_value(code);
            e->t = (int64_t)json_integer_value(t);
            e->resumed = (int)json_integer_value(res);
            e->seq = seq ? (uint64_t)json_integer_value(seq) : 0;
            e->job = json_dumps(job, JSON_COMPACT);
            rc = s_opt_str(o, "owner", &e->owner, why);
            rc = rc ? rc : s_opt_str(o, "result", &e->result, why);
            rc = rc ? rc : s_opt_str(o, "run", &e->run_dir, why);
            if (!rc && !e->owner)
                e->owner = strdup("");
        }
    }
    json_decref(o);
    if (rc)
        wh_journal_entry_clear(e);
    return rc;
}

static int s_index(const wh_journal_t *j, const char *id)
{
    for (int i = 0; i < j->n; i++)
        if (!strcmp(j->v[i].id, id))
            return i;
    return -1;
}

/* Makes a deep copy of e id's current record (replacing an older one). */
static int s_remember(wh_journal_t *j, const wh_journal_entry_t *e)
{
    wh_journal_entry_t c = *e;
    c.owner = strdup(e->owner ? e->owner : "");
    c.job = wh_strdup0(e->job);
    c.result = wh_strdup0(e->result);
    c.run_dir = wh_strdup0(e->run_dir);
    if (!c.owner || (e->job && !c.job) || (e->result && !c.result) ||
        (e->run_dir && !c.run_dir)) {
        wh_journal_entry_clear(&c);
        return WH_ENOMEM;
    }
    int i = s_index(j, e->id);
    if (i >= 0) {
        wh_journal_entry_clear(&j->v[i]);
        j->v[i] = c;
        return 0;
    }
    if (j->n == j->cap) {
        int nc = j->cap ? 2 * j->cap : 16;
        wh_journal_entry_t *nv = realloc(j->v, (size_t)nc * sizeof *nv);
        if (!nv) {
            wh_journal_entry_clear(&c);
            return WH_ENOMEM;
        }
        j->v = nv;
        j->cap = nc;
    }
    j->v[j->n++] = c;
    return 0;
}

/* Why record e (at where) is refused for its sequence number, or NULL:
 * not the number the back end's index holds (want), or older than the
 * job's record read before it. */
static char *s_stale(const wh_journal_t *j, const wh_journal_entry_t *e, int64_t want)
{
    const wh_journal_entry_t *prev = wh_journal_find(j, e->id);
    if (want >= 0 && e->seq != (uint64_t)want)
        return want ? wh_strdup_printf("its record has sequence number %llu, the journal's "
                                       "index %lld",
                                       (unsigned long long)e->seq, (long long)want)
                    : wh_strdup_printf("its record (sequence number %llu) is not in the "
                                       "journal's index",
                                       (unsigned long long)e->seq);
    if (want == WH_JOURNAL_SEQ_NO_INDEX && e->seq)
        return wh_strdup_printf("its record has sequence number %llu but the journal's index "
                                "is missing",
                                (unsigned long long)e->seq);
    if (prev && prev->seq > e->seq)
        return wh_strdup_printf("its record (sequence number %llu) comes after a newer one "
                                "(%llu)",
                                (unsigned long long)e->seq, (unsigned long long)prev->seq);
    return NULL;
}

static int s_visit(void *ctx, const char *where, const char *record, int64_t want)
{
    wh_journal_t *j = ctx;
    wh_journal_entry_t e;
    char *why = NULL;
    if (strlen(record) > S_MAX_RECORD || wh_journal_decode(record, &e, &why) != 0) {
        j->load_err = wh_strdup_printf("%s is not a job record: %s", where,
                                       why ? why : "longer than 1 MiB");
        free(why);
        return 1;
    }
    if (e.seq > j->seq)
        j->seq = e.seq;
    if ((why = s_stale(j, &e, want))) {
        /* An older record written back: never resumed, never answered. */
        wh_warn("journal %s: job %s (%s): %s: an older record written back; refused, not "
                "resumed",
                j->ops->describe(j->be), e.id, wh_journal_state_name(e.state), why);
        free(why);
        wh_journal_entry_clear(&e);
        return 0;
    }
    int rc = s_remember(j, &e);
    wh_journal_entry_clear(&e);
    return rc ? 1 : 0;
}

/* Drops finished jobs older than S_KEEP_FINISHED_S and leaves one record
 * per job in the back end. */
static int s_compact(wh_journal_t *j, char **err)
{
    int64_t now = (int64_t)time(NULL);
    const char **keep = calloc((size_t)j->n + 1, sizeof *keep);
    const char **drop = calloc((size_t)j->n + 1, sizeof *drop);
    char **recs = calloc((size_t)j->n + 1, sizeof *recs);
    int nk = 0, nd = 0, rc = keep && drop && recs ? 0 : WH_ENOMEM;
    for (int i = 0; !rc && i < j->n; i++) {
        wh_journal_entry_t *e = &j->v[i];
        if (e->state != WH_JOURNAL_RUNNING && now - e->t > S_KEEP_FINISHED_S) {
            drop[nd++] = e->id;
            continue;
        }
        recs[nk] = wh_journal_encode(e);
        keep[nk] = recs[nk];
        rc = recs[nk++] ? 0 : WH_ENOMEM;
    }
    if (!rc)
        rc = j->ops->compact(j->be, keep, nk, drop, nd, err);
    for (int i = 0; recs && i < nk; i++)
        free(recs[i]);
    free(recs);
    free(keep);
    /* forget the dropped ones here too, keeping the order */
    int w = 0;
    for (int i = 0; i < j->n; i++) {
        wh_journal_entry_t *e = &j->v[i];
        int gone = 0;
        for (int d = 0; !rc && d < nd && !gone; d++)
            gone = drop[d] == e->id;
        if (gone)
            wh_journal_entry_clear(e);
        else
            j->v[w++] = *e;
    }
    j->n = w;
    free(drop);
    return rc;
}

wh_journal_t *wh_journal_open(const char *where, char **err)
{
    wh_journal_t *j = calloc(1, sizeof *j);
    if (!j) {
        *err = strdup("out of memory");
        return NULL;
    }
    int redis = !strncmp(where, "redis://", 8);
    j->ops = redis ? &wh_journal_redis_ops : &wh_journal_file_ops;
    j->be = redis ? wh_journal_redis_open(where, err) : wh_journal_file_open(where, err);
    if (!j->be)
        goto fail;
    int rc = j->ops->load(j->be, s_visit, j, err);
    if (rc > 0) {
        *err = wh_strdup_printf("journal %s: %s; move it away or fix that record (or run with "
                                "--journal off)", j->ops->describe(j->be), j->load_err);
        goto fail;
    }
    if (rc < 0 || s_compact(j, err) != 0)
        goto fail;
    return j;
fail:
    wh_journal_close(&j);
    return NULL;
}

char *wh_journal_default_where(const char *cache_spec)
{
    if (cache_spec && !strncmp(cache_spec, "redis://", 8))
        return strdup(cache_spec);
    if (cache_spec && !strncmp(cache_spec, "dir:", 4) && cache_spec[4])
        return wh_path_join(cache_spec + 4, "journal");
    char *dir = wh_cache_default_dir(); /* the journal lives beside the verdicts */
    char *p = dir ? wh_path_join(dir, "journal") : NULL;
    free(dir);
    return p;
}

void wh_journal_close(wh_journal_t **jp)
{
    wh_journal_t *j = *jp;
    if (!j)
        return;
    if (j->be)
        j->ops->close(j->be);
    for (int i = 0; i < j->n; i++)
        wh_journal_entry_clear(&j->v[i]);
    free(j->v);
    free(j->load_err);
    free(j);
    *jp = NULL;
}

const char *wh_journal_describe(const wh_journal_t *j)
{
    return j->ops->describe(j->be);
}

int wh_journal_put(wh_journal_t *j, const wh_journal_entry_t *e)
{
    if (!s_id_ok(e->id))
        return WH_EINVAL;
    wh_journal_entry_t c = *e;
    c.t = (int64_t)time(NULL);
    c.seq = ++j->seq;
    /* e may point into the record it replaces: encode the copy kept */
    int rc = s_remember(j, &c);
    const wh_journal_entry_t *kept = rc ? NULL : wh_journal_find(j, c.id);
    char *rec = kept ? wh_journal_encode(kept) : NULL;
    if (!rc && !rec)
        rc = WH_EINVAL; /* the job is not JSON */
    char *err = NULL;
    if (!rc)
        rc = j->ops->put(j->be, c.id, rec, c.seq, &err);
    if (rc)
        wh_warn("journal %s: job %s not journaled (%s): it will not survive a restart",
                j->ops->describe(j->be), c.id, err ? err : wh_strerror(rc));
    free(err);
    free(rec);
    return rc;
}

int wh_journal_finish(wh_journal_t *j, const char *id, wh_journal_state_t st, int code,
                      const char *result)
{
    const wh_journal_entry_t *cur = wh_journal_find(j, id);
    if (!cur)
        return WH_ENOTFOUND;
    wh_journal_entry_t e = *cur;
    e.state = st;
    e.code = code;
    e.result = (char *)result;
    return wh_journal_put(j, &e);
}

int wh_journal_set_run(wh_journal_t *j, const char *id, const char *run_dir, int resumed)
{
    const wh_journal_entry_t *cur = wh_journal_find(j, id);
    if (!cur)
        return WH_ENOTFOUND;
    wh_journal_entry_t e = *cur;
    e.run_dir = (char *)run_dir;
    e.resumed = resumed;
    return wh_journal_put(j, &e);
}

const wh_journal_entry_t *wh_journal_find(const wh_journal_t *j, const char *id)
{
    int i = id ? s_index(j, id) : -1;
    return i >= 0 ? &j->v[i] : NULL;
}

int wh_journal_count(const wh_journal_t *j)
{
    return j->n;
}

const wh_journal_entry_t *wh_journal_at(const wh_journal_t *j, int i)
{
    return i >= 0 && i < j->n ? &j->v[i] : NULL;
}
