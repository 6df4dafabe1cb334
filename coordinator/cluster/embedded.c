/*
 * embedded — jobs on an in-process pool, cache and node; see embedded.h.
 */
#define _GNU_SOURCE
#include "embedded.h"
#include "workstore.h"

#include "cache.h"
#include "pool.h"
#include "worker.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

typedef struct {
    const wh_embedded_opts_t *o;
    const wh_embedded_batch_t *b; /* never NULL (all zero: no limits) */
    const wh_job_t *jobs;
    wh_pool_t *pool;
    wh_cache_t *cache;
    wh_reduction_t **r;  /* NULL: did not start, or finished and reported */
    size_t n, left;      /* left: started and not reported yet */
    size_t next;         /* the next job to start, in job order */
    int all_ok;
    int done_builds;     /* walk builds of the jobs reported */
    char *spent;         /* the batch budget is spent: why; NULL before */
    uint64_t t0;         /* the batch's start (batch_t0, or this run's) */
} s_run_t;

/* The builds a job spent, for the batch budget: its walk's. */
static int s_built(const wh_reduction_t *r)
{
    wh_progress_t p;
    memset(&p, 0, sizeof p);
    wh_reduction_status_now(r, &p);
    return p.built;
}

/* Starts the next jobs, in job order, while there is room (max_active);
 * once the batch budget is spent, the jobs not started are skipped.
 * Returns 1 when some job that started needs a slot. */
static int s_start(s_run_t *s)
{
    int need = 0;
    while (s->next < s->n) {
        size_t i = s->next;
        if (s->spent) {
            s->next++;
            s->all_ok = 0;
            if (s->b->skipped)
                s->b->skipped(s->o->arg, i, s->spent);
            continue;
        }
        if (s->b->max_active && s->left >= s->b->max_active)
            break;
        s->next++;
        char *err = NULL;
        int status = 4;
        s->r[i] = wh_reduction_new(&s->jobs[i], s->pool, s->cache, s->o->quiet, &status, &err);
        if (!s->r[i]) {
            s->all_ok = 0;
            if (s->o->failed)
                s->o->failed(s->o->arg, i, status, err ? err : "cannot start the job");
            free(err);
            continue;
        }
        s->left++;
        if (s->o->started)
            s->o->started(s->o->arg, i, s->r[i]);
    }
    for (size_t i = 0; i < s->n; i++)
        need |= s->r[i] && !wh_reduction_done(s->r[i]);
    return need;
}

/* Reports and forgets the jobs that are done. */
static void s_reap(s_run_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!s->r[i])
            continue;
        wh_reduction_poll(s->r[i]);
        if (!wh_reduction_done(s->r[i]))
            continue;
        if (wh_reduction_status(s->r[i], NULL))
            s->all_ok = 0;
        s->done_builds += s_built(s->r[i]);
        if (s->o->finished)
            s->o->finished(s->o->arg, i, s->r[i]);
        wh_reduction_destroy(&s->r[i]);
        s->left--;
    }
}

/* The batch budget: spent by the builds of every job so far (and those
 * before them) or by the time since the batch began, it stops every job
 * still walking (each verifies its best answer) and s_start skips the
 * rest. */
static void s_batch(s_run_t *s)
{
    const wh_spend_t *b = s->b->batch;
    if (s->spent || !b || (!b->builds && !b->ms))
        return;
    int builds = s->b->batch_builds + s->done_builds;
    for (size_t i = 0; i < s->n; i++)
        if (s->r[i])
            builds += s_built(s->r[i]);
    char why[160];
    if (!wh_spend_batch_over(b, builds, wh_now_ms() - s->t0, why, sizeof why))
        return;
    s->spent = strdup(why);
    if (!s->spent)
        return; /* out of memory: the jobs go on within their own budgets */
    if (s->b->spent)
        s->b->spent(s->o->arg, why);
    for (size_t i = 0; i < s->n; i++)
        if (s->r[i] && !wh_reduction_done(s->r[i]))
            wh_reduction_spend_out(s->r[i], why);
}

/* The node's work folder: "work" in the first run folder still running. */
static char *s_workdir(const s_run_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->r[i] && !wh_reduction_done(s->r[i]))
            return wh_path_join(wh_reduction_dir(s->r[i]), "work");
    return NULL;
}

static int s_loop(s_run_t *s, void *zctx, wh_pool_t *pool, char **err)
{
    /* The kept workspaces (workstore.h), unless --keep-work asks for them
     * in the run folder or another run holds them. */
    int lock = -1;
    int kept = !s->o->keep_work && !getenv("WHITTLE_KEEP_WORK");
    char *workdir = kept ? wh_workstore_open(&lock) : NULL;
    kept = workdir != NULL;
    if (!workdir)
        workdir = s_workdir(s);
    wh_node_opts_t no = {0};
    no.endpoint = wh_pool_endpoint(pool);
    no.node_id = "local";
    no.slots = s->o->slots;
    no.workdir = workdir;
    no.max_disk = kept ? wh_workstore_max() : 0;
    wh_node_t *node = wh_node_start(zctx, &no, err);
    int code = node ? 0 : 4;
    while (node && (s->left || s->next < s->n)) {
        if (s->o->interrupted && *s->o->interrupted) {
            for (size_t i = 0; i < s->n; i++)
                if (s->r[i] && !wh_reduction_done(s->r[i]))
                    wh_reduction_abort(s->r[i], "interrupted");
            s->all_ok = 0;
            break;
        }
        wh_pool_poll(pool, 100);
        s_reap(s);
        s_batch(s);
        s_start(s);
        for (size_t i = 0; s->o->tick && i < s->n; i++)
            if (s->r[i] && !wh_reduction_done(s->r[i]))
                s->o->tick(s->o->arg, i, s->r[i]);
    }
    /* The slots' threads are joined (their builds killed) by now, so nothing
     * writes under workdir any more: it goes whatever the outcome, since a
     * refused or interrupted run's workspaces are as useless as a finished
     * one's and weigh as much. */
    wh_node_stop(&node);
    if (workdir && !kept && !s->o->keep_work && !getenv("WHITTLE_KEEP_WORK"))
        wh_rm_rf(workdir);
    if (lock >= 0)
        close(lock);
    free(workdir);
    return code;
}

int wh_embedded_run(const wh_job_t *jobs, size_t n, const wh_embedded_opts_t *o, char **err)
{
    return wh_embedded_run_batch(jobs, n, o, NULL, err);
}

int wh_embedded_run_batch(const wh_job_t *jobs, size_t n, const wh_embedded_opts_t *o,
                          const wh_embedded_batch_t *b, char **err)
{
    static const wh_embedded_batch_t none;
    b = b ? b : &none;
    s_run_t s = {o, b, jobs, NULL, NULL, calloc(n ? n : 1, sizeof(wh_reduction_t *)), n, 0, 0, 1,
                 0, NULL, b->batch_t0 ? b->batch_t0 : wh_now_ms()};
    void *zctx = zmq_ctx_new();
    char ep[128];
    snprintf(ep, sizeof ep, "inproc://whittle-%d", (int)getpid());
    wh_pool_t *pool = s.r && zctx ? wh_pool_new(zctx, ep, 1000, err) : NULL;
    if (pool)
        wh_pool_local_slots(pool); /* the slots are this process's threads */
    wh_cache_t *cache = NULL;
    int code = pool ? 0 : 4;
    if (pool && !(cache = wh_cache_open(o->cache, err)))
        code = 2;
    else if (cache && o->cache_max)
        wh_cache_set_max(cache, o->cache_max);
    s.pool = pool;
    s.cache = cache;
    int began = !code;
    if (!code) {
        s_batch(&s); /* spent before these jobs (a batch's first runs) */
        int need = s_start(&s);
        /* jobs the cache answered make room for the next ones */
        while (!need && s.next < n && !(o->interrupted && *o->interrupted)) {
            s_reap(&s);
            s_batch(&s);
            need = s_start(&s);
        }
        if (need)
            code = s_loop(&s, zctx, pool, err);
    }
    s_reap(&s); /* the jobs the cache answered, or all of them after a failure */
    /* never started: interrupted, or no node (a pool or cache that did not
     * open is err, said once by the caller, as before any job began) */
    for (; began && s.next < n && s.r; s.next++)
        if (o->failed)
            o->failed(o->arg, s.next, code ? code : 130,
                      code ? "not started: the embedded node did not come up"
                           : "interrupted before it started");
    for (size_t i = 0; i < n && s.r; i++)
        wh_reduction_destroy(&s.r[i]);
    free(s.r);
    free(s.spent);
    wh_cache_close(&cache);
    wh_pool_destroy(&pool);
    if (zctx)
        zmq_ctx_term(zctx);
    return code;
}
