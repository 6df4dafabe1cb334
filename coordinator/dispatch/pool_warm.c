/*
 * pool_warm — the pool's eager warm-up: idle slots prepare the jobs they
 * are cold for (WARM), their reports (WARMED), which slots are warm for
 * which jobs. Part of the pool (pool_int.h).
 */
#define _GNU_SOURCE
#include "pool_int.h"

#include <stdlib.h>
#include <string.h>

int pl_is_warm(const s_slot_t *s, const char *job_id)
{
    for (int i = 0; i < s->nwarm; i++)
        if (strcmp(s->warm[i], job_id) == 0)
            return 1;
    return 0;
}

int pl_node_warm(const wh_pool_t *p, const s_slot_t *s, const char *job_id)
{
    for (const s_slot_t *o = p->slots; o; o = o->next)
        if (o->node_id && s->node_id && strcmp(o->node_id, s->node_id) == 0 &&
            pl_is_warm(o, job_id))
            return 1;
    return 0;
}

void pl_mark_warm(s_slot_t *s, const char *job_id)
{
    if (pl_is_warm(s, job_id))
        return;
    char **w = realloc(s->warm, (size_t)(s->nwarm + 1) * sizeof *w);
    if (!w)
        return;
    s->warm = w;
    s->warm[s->nwarm] = strdup(job_id);
    if (s->warm[s->nwarm])
        s->nwarm++;
}

/* ---- eager warm-up ---- */

int pl_in_list(char *const *list, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], id) == 0)
            return 1;
    return 0;
}

/* A job that leaves takes its failed preparations with it: the same job
 * submitted again (after a setup that failed once) is tried afresh. */
void pl_forget_cold(wh_pool_t *p, const char *job_id)
{
    for (s_slot_t *s = p->slots; s; s = s->next)
        for (int i = 0; i < s->ncold; i++)
            if (strcmp(s->cold[i], job_id) == 0) {
                free(s->cold[i]);
                s->cold[i--] = s->cold[--s->ncold];
            }
}

/* 1 when slot s may take job j's candidates: its workspace for j is warm,
 * or no slot's is (then it prepares on the way, as before warm-up). */
int pl_may_serve(const wh_pool_t *p, const s_slot_t *s, const s_job_t *j)
{
    /* An older slot that cannot be warmed prepares on the way, as always. */
    if (!s->warms || pl_is_warm(s, j->spec.job_id))
        return 1;
    for (const s_slot_t *o = p->slots; o; o = o->next)
        if (!o->out_why && pl_is_warm(o, j->spec.job_id))
            return 0;
    return 1;
}

/* Sends WARM to idle slot s for the first job with work (queued or running
 * candidates) that s is cold for and has not failed to prepare. 1 when
 * sent. */
int pl_warm_idle(wh_pool_t *p, s_slot_t *s)
{
    for (s_job_t *j = p->jobs; j; j = j->next) {
        const char *id = j->spec.job_id;
        if (!s->warms || (!j->head && !j->running) || pl_is_warm(s, id) ||
            pl_in_list(s->cold, s->ncold, id))
            continue;
        wh_msg_t m = {0};
        m.type = WH_MSG_WARM;
        m.job = j->spec;
        if (pl_send(p, s, &m) != 0 || !(s->warming = strdup(id)))
            return 0;
        wh_info("warm job %.12s on %s", id, s->name);
        return 1;
    }
    return 0;
}

/* A slot's WARMED: a workspace of the job was prepared (counted), or the
 * WARM is over (final: the slot is free again, warm or cold for the job). */
void pl_on_warmed(wh_pool_t *p, s_slot_t *s, const wh_msg_t *m)
{
    const char *id = m->job.job_id;
    s_job_t *j = id ? pl_find_job(p, id) : NULL;
    if (m->final && s->warming && (!id || strcmp(s->warming, id) == 0)) {
        free(s->warming);
        s->warming = NULL;
    }
    if (!j)
        return;
    wh_pool_warm_t *w = &j->warm;
    if (!m->final) {
        w->setups += (int)m->setups;
        w->clones += m->cloned != 0;
        w->failed += m->code != 0 && m->code != WH_ECANCEL;
        if (m->setups && m->warm_ms - m->clone_ms > w->setup_ms)
            w->setup_ms = m->warm_ms - m->clone_ms;
        if (m->cloned && m->clone_ms > w->clone_ms)
            w->clone_ms = m->clone_ms;
    }
    if (m->code == 0 && !m->on_reference) {
        pl_mark_warm(s, id);
        if (!w->first_warm_ms)
            w->first_warm_ms = wh_now_ms() - j->added_ms + 1;
    } else if (m->final && m->code != WH_ECANCEL && !pl_in_list(s->cold, s->ncold, id)) {
        wh_warn("slot %s could not prepare job %.12s: %s", s->name, id,
                m->detail ? m->detail : wh_strerror(m->code));
        char **c = realloc(s->cold, (size_t)(s->ncold + 1) * sizeof *c);
        if (c && (c[s->ncold] = strdup(id)) != NULL)
            s->ncold++;
        if (c)
            s->cold = c;
    }
}

/* The job is going away: slots preparing it stop (CANCEL of candidate 0). */
void pl_warm_cancel(wh_pool_t *p, const s_job_t *j)
{
    for (s_slot_t *s = p->slots; s; s = s->next) {
        if (!s->warming || strcmp(s->warming, j->spec.job_id) != 0)
            continue;
        wh_msg_t c = {0};
        c.type = WH_MSG_CANCEL;
        c.job.job_id = s->warming;
        c.cand_id = 0;
        pl_send(p, s, &c);
    }
}

int wh_pool_warm_stats(const wh_pool_t *p, const char *job_id, wh_pool_warm_t *out)
{
    memset(out, 0, sizeof *out);
    const s_job_t *j = pl_find_job((wh_pool_t *)p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    *out = j->warm;
    return 0;
}

