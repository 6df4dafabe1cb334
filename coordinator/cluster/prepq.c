/*
 * prepq — the coordinator's preparation queue. See prepq.h.
 */
#define _GNU_SOURCE
#include "prepq.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

struct wh_prepq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    int wake_fd;
    /* a FIFO per level */
    wh_prepq_task_t *head[WH_PREPQ_LEVELS], *tail[WH_PREPQ_LEVELS];
    int queued[WH_PREPQ_LEVELS];
    int busy, max_busy;
    uint64_t done;
    int n_threads;
    pthread_t *th;
};

/* The first task of the first level that has one, taken off; under mu. */
static wh_prepq_task_t *s_pop(wh_prepq_t *q)
{
    for (int l = 0; l < WH_PREPQ_LEVELS; l++) {
        wh_prepq_task_t *t = q->head[l];
        if (!t)
            continue;
        q->head[l] = t->next;
        if (!q->head[l])
            q->tail[l] = NULL;
        t->next = NULL;
        q->queued[l]--;
        return t;
    }
    return NULL;
}

static void *s_main(void *arg)
{
    wh_prepq_t *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        wh_prepq_task_t *t = NULL;
        while (!q->stop && !(t = s_pop(q)))
            pthread_cond_wait(&q->cv, &q->mu);
        if (!t)
            break;
        t->state = WH_PREPQ_RUNNING;
        if (++q->busy > q->max_busy)
            q->max_busy = q->busy;
        uint64_t t0 = wh_now_ms();
        wh_info("preparation: %s of job %s started after %llu ms queued (%d of %d preparers "
                "busy, %d + %d waiting)", t->what, t->name,
                (unsigned long long)(t0 - t->queued_ms), q->busy, q->n_threads, q->queued[0],
                q->queued[1]);
        pthread_mutex_unlock(&q->mu);
        t->run(t);
        pthread_mutex_lock(&q->mu);
        q->busy--;
        q->done++;
        wh_info("preparation: %s of job %s done in %llu ms", t->what, t->name,
                (unsigned long long)(wh_now_ms() - t0));
        t->state = WH_PREPQ_DONE; /* the owner may free t from here on */
        wh_wake_signal(q->wake_fd); /* on failure the owner's poll timeout takes it up */
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

wh_prepq_t *wh_prepq_new(int threads, int wake_fd, char **err)
{
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    wh_prepq_t *q = calloc(1, sizeof *q);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    if (!q || !th) {
        free(q);
        free(th);
        *err = strdup("out of memory");
        return NULL;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->wake_fd = wake_fd;
    q->th = th;
    for (; q->n_threads < threads; q->n_threads++)
        if (pthread_create(&q->th[q->n_threads], NULL, s_main, q) != 0)
            break;
    if (!q->n_threads) {
        *err = strdup("cannot start a preparation thread");
        wh_prepq_destroy(&q);
        return NULL;
    }
    return q;
}

void wh_prepq_destroy(wh_prepq_t **qp)
{
    wh_prepq_t *q = *qp;
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    for (wh_prepq_task_t *t; (t = s_pop(q)) != NULL;)
        t->state = WH_PREPQ_IDLE;
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->n_threads; i++)
        pthread_join(q->th[i], NULL);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q->th);
    free(q);
    *qp = NULL;
}

void wh_prepq_push(wh_prepq_t *q, wh_prepq_task_t *t, int level)
{
    if (level < 0)
        level = 0;
    if (level >= WH_PREPQ_LEVELS)
        level = WH_PREPQ_LEVELS - 1;
    pthread_mutex_lock(&q->mu);
    t->state = WH_PREPQ_QUEUED;
    t->level = level;
    t->queued_ms = wh_now_ms();
    /* Behind the last task whose order is not above t's: at the tail
     * unless t was started out of order (jobs identified in one turn). */
    wh_prepq_task_t *prev = NULL;
    if (!q->tail[level] || q->tail[level]->order <= t->order)
        prev = q->tail[level];
    else
        for (wh_prepq_task_t *x = q->head[level]; x && x->order <= t->order; x = x->next)
            prev = x;
    t->next = prev ? prev->next : q->head[level];
    if (prev)
        prev->next = t;
    else
        q->head[level] = t;
    if (!t->next)
        q->tail[level] = t;
    q->queued[level]++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

wh_prepq_state_t wh_prepq_state(wh_prepq_t *q, const wh_prepq_task_t *t)
{
    pthread_mutex_lock(&q->mu);
    wh_prepq_state_t st = t->state;
    pthread_mutex_unlock(&q->mu);
    return st;
}

int wh_prepq_cancel(wh_prepq_t *q, wh_prepq_task_t *t)
{
    int taken = 0;
    pthread_mutex_lock(&q->mu);
    if (t->state == WH_PREPQ_QUEUED) {
        int l = t->level;
        wh_prepq_task_t *prev = NULL;
        for (wh_prepq_task_t *x = q->head[l]; x; prev = x, x = x->next) {
            if (x != t)
                continue;
            if (prev)
                prev->next = t->next;
            else
                q->head[l] = t->next;
            if (q->tail[l] == t)
                q->tail[l] = prev;
            q->queued[l]--;
            t->next = NULL;
            t->state = WH_PREPQ_IDLE;
            taken = 1;
            break;
        }
    }
    pthread_mutex_unlock(&q->mu);
    return taken;
}

int wh_prepq_ahead(wh_prepq_t *q, const wh_prepq_task_t *t)
{
    int n = -1;
    pthread_mutex_lock(&q->mu);
    if (t->state == WH_PREPQ_QUEUED) {
        n = 0;
        for (int l = 0; l < t->level; l++)
            n += q->queued[l];
        for (const wh_prepq_task_t *x = q->head[t->level]; x && x != t; x = x->next)
            n++;
    }
    pthread_mutex_unlock(&q->mu);
    return n;
}

void wh_prepq_stats(wh_prepq_t *q, wh_prepq_stats_t *st)
{
    pthread_mutex_lock(&q->mu);
    st->threads = q->n_threads;
    st->busy = q->busy;
    st->max_busy = q->max_busy;
    for (int l = 0; l < WH_PREPQ_LEVELS; l++)
        st->queued[l] = q->queued[l];
    st->done = q->done;
    pthread_mutex_unlock(&q->mu);
}
