/*
 * client — following jobs on a coordinator, reattaching after it restarts
 * (client.h).
 */
#define _GNU_SOURCE
#include "client.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "auth.h"
#include "night.h"
#include "progress.h"
#include "reduce.h"
#include "wire.h"

/* What the client knows of one job. */
typedef struct {
    char id[WH_JOURNAL_ID_LEN + 1]; /* "" until the coordinator names it */
    int journaled;
    int done;
} s_track_t;

static void s_send(void *sock, wh_msg_type_t type, const char *id, uint64_t tag, const char *json)
{
    wh_msg_t m = {0};
    m.type = type;
    m.cand_id = tag;
    m.job.job_id = (char *)id;
    m.json = (char *)json;
    wh_wire_send(sock, &m, ZMQ_DONTWAIT);
}

int wh_client_upload(const wh_client_t *c, const char *sha, const uint8_t *data, size_t len,
                     char **err)
{
    uint64_t off = 0;
    int tries = 0;
    while (!(c->stop && *c->stop)) {
        size_t k = len - off < WH_WIRE_MAX_CHUNK ? (size_t)(len - off) : WH_WIRE_MAX_CHUNK;
        wh_msg_t m = {0};
        m.type = WH_MSG_BLOB_PUT;
        m.blob_sha = (char *)sha;
        m.blob_off = off;
        m.blob_total = len;
        m.content = (uint8_t *)data + off;
        m.content_len = k;
        if (wh_wire_send(c->sock, &m, 0) != 0) {
            *err = wh_strdup_printf("cannot send the tar snapshot to %s", c->endpoint);
            return 4;
        }
        /* the answer: the bytes held now */
        uint64_t t0 = wh_now_ms();
        int got = 0;
        while (!got && wh_now_ms() - t0 < WH_CLIENT_SILENT_MS && !(c->stop && *c->stop)) {
            const char *refused = wh_auth_refused(c->mon);
            if (refused) {
                *err = strdup(refused);
                return 2;
            }
            zmq_pollitem_t it = {c->sock, 0, ZMQ_POLLIN, 0};
            if (zmq_poll(&it, 1, 200) <= 0)
                continue;
            wh_msg_t r = {0};
            if (wh_wire_recv(c->sock, &r, ZMQ_DONTWAIT) != 0) {
                wh_msg_clear(&r);
                continue;
            }
            if (r.type == WH_MSG_BYE && r.refused) {
                *err = strdup(r.detail ? r.detail : "the coordinator refused this key");
                wh_msg_clear(&r);
                return 2;
            }
            if (r.type == WH_MSG_BLOB && r.blob_sha && !strcmp(r.blob_sha, sha)) {
                got = 1;
                if (r.code) {
                    *err = wh_strdup_printf("the coordinator refused the tar snapshot: %s",
                                            r.detail ? r.detail : wh_strerror(r.code));
                    wh_msg_clear(&r);
                    return 2;
                }
                off = r.blob_off;
            }
            wh_msg_clear(&r);
        }
        if (!got) {
            if (c->stop && *c->stop)
                break;
            if (++tries >= 3) {
                *err = wh_strdup_printf("coordinator at %s did not answer the tar snapshot's "
                                        "upload within %d s", c->endpoint,
                                        WH_CLIENT_SILENT_MS / 1000);
                return 4;
            }
            continue;
        }
        tries = 0;
        if (off >= len)
            return 0;
    }
    *err = strdup("interrupted");
    return 130;
}

int wh_client_check_size(char *const *jobs_json, int n, char **err)
{
    for (int i = 0; jobs_json && i < n; i++) {
        size_t len = jobs_json[i] ? strlen(jobs_json[i]) : 0;
        if (len <= WH_WIRE_MAX_STRING)
            continue;
        /* The job's JSON keys are its options' names: name the biggest. */
        json_t *o = json_loads(jobs_json[i], 0, NULL);
        const char *key, *big = NULL;
        size_t big_len = 0;
        json_t *v;
        json_object_foreach(o, key, v) {
            size_t l = json_is_string(v) ? json_string_length(v) : 0;
            if (l > big_len)
                big = key, big_len = l;
        }
        if (big && big_len > WH_WIRE_MAX_STRING / 2)
            *err = wh_strdup_printf("job %d: --%s is %zu bytes; a job travels to the "
                                    "coordinator in one message of at most %u bytes (the job "
                                    "is %zu); put the command in a script in the project and "
                                    "give its path",
                                    i, big, big_len, (unsigned)WH_WIRE_MAX_STRING, len);
        else
            *err = wh_strdup_printf("job %d is %zu bytes; a job travels to the coordinator in "
                                    "one message of at most %u bytes",
                                    i, len, (unsigned)WH_WIRE_MAX_STRING);
        json_decref(o);
        return WH_ETOOBIG;
    }
    return 0;
}

/* Draws a running job's status line from the coordinator; in plain mode a
 * line whenever the sweep or level changes (else every period). */
static void s_remote_status(uint64_t tag, const char *status)
{
    static char last[128];
    const char *cut = strstr(status, " round ");
    size_t k = cut ? (size_t)(cut - status) : strlen(status);
    char head[128];
    snprintf(head, sizeof head, "%llu %.*s", (unsigned long long)tag, (int)k, status);
    int changed = strcmp(head, last) != 0;
    snprintf(last, sizeof last, "%s", head);
    char *line = wh_strdup_printf("[job %llu] %s", (unsigned long long)tag, status);
    if (line)
        wh_progress_update_line(line, changed);
    free(line);
}

/* The run summary of a final PROGRESS, checked (night.h), or NULL; one
 * line says why one that came is not used. */
static const char *s_summary(const wh_client_t *c, const wh_msg_t *m)
{
    char *err = NULL;
    if (m->summary && wh_night_run_check(m->summary, m->summary_len, &err) == 0)
        return m->summary;
    if (m->summary || m->summary_bad) {
        wh_progress_erase();
        fprintf(stderr, "whittle: error: job %llu: coordinator at %s: %s; the batch leaves the "
                "run's summary out\n", (unsigned long long)m->cand_id, c->endpoint,
                err ? err : m->summary_bad);
    }
    free(err);
    return NULL;
}

/* Takes in one PROGRESS; returns 1 when it ended its job. */
static int s_on_progress(const wh_client_t *c, s_track_t *t, int n, const wh_msg_t *m,
                         int *worst)
{
    if (m->cand_id >= (uint64_t)n || t[m->cand_id].done)
        return 0;
    s_track_t *k = &t[m->cand_id];
    if (m->job.job_id && strlen(m->job.job_id) == WH_JOURNAL_ID_LEN)
        memcpy(k->id, m->job.job_id, sizeof k->id);
    k->journaled |= m->journaled;
    if (!m->final) {
        if (m->status) {
            s_remote_status(m->cand_id, m->status);
        } else if (m->detail && !c->quiet) {
            wh_progress_erase();
            printf("[job %llu] %s\n", (unsigned long long)m->cand_id, m->detail);
        }
        return 0;
    }
    wh_progress_erase();
    k->done = 1;
    int code = m->code;
    if (m->code && m->code != WH_EXIT_UNVERIFIED && m->code != WH_EXIT_PARTIAL) {
        if (!c->quiet_ends)
            fprintf(stderr, "whittle: error: job %llu: %s\n", (unsigned long long)m->cand_id,
                    m->detail ? m->detail : "");
    } else {
        /* An answer; not verified (one node said everything) is an answer
         * too, which on_result may verify on this machine. */
        if (!c->quiet_ends)
            printf("%s", m->detail ? m->detail : "");
        if (c->on_result)
            code = c->on_result(c->ctx, (int)m->cand_id, code, m->detail, m->content,
                                m->content_len);
    }
    *worst = wh_exit_worst(*worst, code);
    if (c->on_end)
        c->on_end(c->ctx, (int)m->cand_id, code, s_summary(c, m));
    return 1;
}

/* The coordinator stayed away: one true line per unfinished job. */
static int s_give_up(const wh_client_t *c, const s_track_t *t, int n)
{
    wh_progress_erase();
    for (int i = 0; i < n; i++) {
        const s_track_t *k = &t[i];
        if (k->done)
            continue;
        if (!k->id[0])
            fprintf(stderr, "whittle: error: job %d: coordinator at %s lost before it accepted the "
                    "job; submit it again\n", i, c->endpoint);
        else if (k->journaled)
            fprintf(stderr, "whittle: error: job %d: coordinator at %s did not come back within "
                    "%d s; job %s is journaled there and resumes when the coordinator restarts "
                    "(follow it: whittle watch --cluster %s %s)\n", i, c->endpoint,
                    WH_CLIENT_REATTACH_MS / 1000, k->id, c->endpoint, k->id);
        else
            fprintf(stderr, "whittle: error: job %d: coordinator at %s did not come back within "
                    "%d s; job %s was not journaled (the coordinator runs with --journal off), "
                    "so a restart loses it\n", i, c->endpoint, WH_CLIENT_REATTACH_MS / 1000, k->id);
    }
    return 4;
}

/* Lost mode: asks again for every unfinished job we can name. */
static void s_reattach(const wh_client_t *c, s_track_t *t, int n, int announce)
{
    for (int i = 0; i < n; i++) {
        if (t[i].done || !t[i].id[0])
            continue;
        if (announce) {
            wh_progress_erase();
            fprintf(stderr, "whittle: coordinator lost, reattaching to job %s...\n", t[i].id);
        }
        s_send(c->sock, WH_MSG_WATCH, t[i].id, (uint64_t)i, NULL);
    }
}

int wh_client_wait(const wh_client_t *c, char *const *jobs_json, const char *const *ids, int n)
{
    s_track_t *t = calloc((size_t)(n ? n : 1), sizeof *t);
    if (!t)
        return 4;
    for (int i = 0; i < n; i++) {
        if (jobs_json && jobs_json[i]) {
            s_send(c->sock, WH_MSG_SUBMIT, NULL, (uint64_t)i, jobs_json[i]);
        } else {
            snprintf(t[i].id, sizeof t[i].id, "%s", ids[i]);
            t[i].journaled = 1; /* a job one watches by id was journaled, or it is refused */
            s_send(c->sock, WH_MSG_WATCH, t[i].id, (uint64_t)i, NULL);
        }
    }
    int left = n, worst = 0;
    uint64_t last = wh_now_ms(), lost_at = 0, asked = 0;
    while (left > 0 && !*c->stop) {
        zmq_pollitem_t it = {c->sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 500) > 0) {
            wh_msg_t m = {0};
            if (wh_wire_recv(c->sock, &m, ZMQ_DONTWAIT) == 0) {
                last = wh_now_ms();
                lost_at = 0;
                if (m.type == WH_MSG_PROGRESS)
                    left -= s_on_progress(c, t, n, &m, &worst);
                if (m.type == WH_MSG_BYE && m.refused) {
                    wh_progress_erase();
                    fprintf(stderr, "whittle: error: cluster '%s': %s\n", c->endpoint,
                            m.detail ? m.detail : wh_auth_refusal_why(WH_AUTH_ROLE_REFUSED));
                    wh_msg_clear(&m);
                    worst = 2;
                    break;
                }
                fflush(stdout);
            }
            wh_msg_clear(&m);
        }
        const char *refused = wh_auth_refused(c->mon);
        if (refused) {
            fprintf(stderr, "whittle: error: cluster '%s': %s\n", c->endpoint, refused);
            worst = 2;
            break;
        }
        uint64_t now = wh_now_ms();
        if (!lost_at && now - last > WH_CLIENT_SILENT_MS) {
            lost_at = asked = now;
            s_reattach(c, t, n, 1);
        } else if (lost_at && now - asked >= 2000) {
            asked = now;
            s_reattach(c, t, n, 0);
        }
        if (lost_at && now - lost_at > WH_CLIENT_REATTACH_MS) {
            worst = s_give_up(c, t, n);
            break;
        }
    }
    free(t);
    return worst;
}

int wh_client_cancel(const wh_client_t *c, const char *id)
{
    s_send(c->sock, WH_MSG_CANCEL, id, 0, NULL);
    uint64_t t0 = wh_now_ms();
    while (wh_now_ms() - t0 < 5000 && !*c->stop) {
        zmq_pollitem_t it = {c->sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 200) <= 0)
            continue;
        wh_msg_t m = {0};
        int got = wh_wire_recv(c->sock, &m, ZMQ_DONTWAIT) == 0 && m.type == WH_MSG_PROGRESS &&
                  m.final;
        if (m.type == WH_MSG_BYE && m.refused) {
            fprintf(stderr, "whittle: error: cluster '%s': %s\n", c->endpoint,
                    m.detail ? m.detail : wh_auth_refusal_why(WH_AUTH_ROLE_REFUSED));
            wh_msg_clear(&m);
            return 2;
        }
        int code = m.code;
        if (got && code)
            fprintf(stderr, "whittle: error: %s\n", m.detail ? m.detail : "refused");
        else if (got)
            printf("%s\n", m.detail ? m.detail : "cancelled");
        wh_msg_clear(&m);
        if (got)
            return code;
    }
    const char *refused = wh_auth_refused(c->mon);
    fprintf(stderr, "whittle: error: cluster '%s': %s\n", c->endpoint,
            refused ? refused : "no answer to the cancel within 5 s");
    return refused ? 2 : 4;
}
