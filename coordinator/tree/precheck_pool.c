/*
 * precheck_pool — front-end checks on worker threads. See precheck_pool.h.
 *
 * One mutex guards the pool's job list and every job's queue, answers and
 * counters; a worker holds it only to take a check and to post its answer,
 * never while libclang runs. A job is freed by whoever drops its last
 * reference: the owner (wh_precheck_job_destroy) or the worker whose check
 * was running when the owner let go, so the owner never waits for libclang.
 */
#define _GNU_SOURCE
#include "precheck_pool.h"
#include "wh_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct s_req {
    wh_precheck_answer_t a;
    struct s_req *next;
} s_req_t;

struct wh_precheck_job {
    wh_precheck_pool_t *pool;
    char *file;
    char **args;
    int nargs;
    int clang_compiler;
    int ub_guard;
    char *text;
    size_t len;
    wh_precheck_t *first;                    /* the first worker's handle, until taken */
    wh_precheck_t *h[WH_PRECHECK_POOL_MAX];  /* h[w]: worker w's own (only w touches it) */
    int h_failed[WH_PRECHECK_POOL_MAX];      /* worker w could not set one up */
    s_req_t *queue;                          /* in tag order */
    s_req_t *done, *done_tail;               /* answers not taken */
    int queued, running, refs, dead;
    int checks;
    unsigned long long us;
    int fd;
    wh_precheck_job_t *next;                 /* the pool's list */
};

typedef struct {
    wh_precheck_pool_t *pool;
    int w;
} s_arg_t;

struct wh_precheck_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th[WH_PRECHECK_POOL_MAX];
    s_arg_t arg[WH_PRECHECK_POOL_MAX];
    int nth, stop, refs;
    wh_precheck_job_t *jobs, *cursor;        /* cursor: the job served next */
    long delay_ms;                           /* WH_TEST_FRONTEND_DELAY_MS (tests only) */
};

static pthread_mutex_t s_get_mu = PTHREAD_MUTEX_INITIALIZER;
static wh_precheck_pool_t *s_the_pool;

static unsigned long long s_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

static void s_req_free(s_req_t *q)
{
    if (!q)
        return;
    free(q->a.text);
    free(q->a.first);
    free(q->a.ub_first);
    free(q);
}

static void s_list_free(s_req_t *q)
{
    while (q) {
        s_req_t *n = q->next;
        s_req_free(q);
        q = n;
    }
}

/* Frees a job nobody refers to any more (no lock held). */
static void s_job_free(wh_precheck_job_t *j)
{
    for (int w = 0; w < WH_PRECHECK_POOL_MAX; w++)
        wh_precheck_destroy(&j->h[w]);
    wh_precheck_destroy(&j->first);
    s_list_free(j->queue);
    s_list_free(j->done);
    if (j->fd >= 0)
        close(j->fd);
    for (int i = 0; i < j->nargs; i++)
        free(j->args[i]);
    free(j->args);
    free(j->file);
    free(j->text);
    free(j);
}

/* The next job with a queued check, from the cursor on (lock held). */
static wh_precheck_job_t *s_next_job(wh_precheck_pool_t *p)
{
    wh_precheck_job_t *start = p->cursor ? p->cursor : p->jobs;
    for (wh_precheck_job_t *j = start; j; j = j->next)
        if (j->queue) {
            p->cursor = j->next;
            return j;
        }
    for (wh_precheck_job_t *j = p->jobs; j && j != start; j = j->next)
        if (j->queue) {
            p->cursor = j->next;
            return j;
        }
    return NULL;
}

/* Worker w's handle for job j, set up on first use (no lock held: only w
 * touches h[w]); NULL when it cannot be. */
static wh_precheck_t *s_handle(wh_precheck_job_t *j, int w)
{
    if (j->h[w] || j->h_failed[w])
        return j->h[w];
    wh_precheck_opts_t o = {j->file, (const char *const *)j->args, j->nargs, j->clang_compiler,
                            j->ub_guard, NULL, NULL};
    char *err = NULL;
    j->h[w] = wh_precheck_new(&o, j->text, j->len, &err);
    if (j->h[w] && !wh_precheck_enabled(j->h[w]))
        wh_precheck_destroy(&j->h[w]);
    j->h_failed[w] = !j->h[w];
    if (err)
        wh_warn("precheck worker: %s", err);
    free(err);
    return j->h[w];
}

/* Posts q's answer on j (lock held); drops it when the owner let go. 1
 * when j is to be freed (its last reference dropped). */
static int s_post(wh_precheck_job_t *j, s_req_t *q, unsigned long long us)
{
    j->running--;
    j->checks++;
    j->us += us;
    if (j->dead) {
        s_req_free(q);
    } else {
        q->next = NULL;
        if (j->done_tail)
            j->done_tail->next = q;
        else
            j->done = q;
        j->done_tail = q;
        int rc = wh_wake_signal(j->fd);
        if (rc)
            wh_warn("precheck worker: cannot signal an answer: %s", strerror(-rc));
    }
    return --j->refs == 0;
}

/* TEST ONLY (tests/e2e/ub_race.sh): WH_TEST_FRONTEND_DELAY_MS=N holds
 * every answer back N ms (at most 10 s) after its check, so a test can
 * make the front end's answers (the precheck's and, with it, the UB
 * guard's) slower than any dispatch. Unset or 0 (the default): no delay. */
static long s_test_delay_ms(void)
{
    const char *e = getenv("WH_TEST_FRONTEND_DELAY_MS");
    long ms = e && *e ? atol(e) : 0;
    return ms < 0 ? 0 : ms > 10000 ? 10000 : ms;
}

static void s_test_delay(const wh_precheck_pool_t *p)
{
    struct timespec ts = {p->delay_ms / 1000, (p->delay_ms % 1000) * 1000000L};
    while (p->delay_ms && nanosleep(&ts, &ts) != 0)
        ;
}

static void *s_worker(void *arg)
{
    wh_precheck_pool_t *p = ((s_arg_t *)arg)->pool;
    int w = ((s_arg_t *)arg)->w;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        wh_precheck_job_t *j = s_next_job(p);
        if (!j) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        s_req_t *q = j->queue;
        j->queue = q->next;
        j->queued--;
        j->running++;
        j->refs++;
        if (!j->h[w] && !j->h_failed[w] && j->first) {
            j->h[w] = j->first;
            j->first = NULL;
        }
        pthread_mutex_unlock(&p->mu);
        unsigned long long t0 = s_now_us();
        wh_precheck_t *h = s_handle(j, w);
        q->a.ub = -1;
        q->a.rc = h ? wh_precheck_check_ub(h, q->a.text, q->a.len, &q->a.first, &q->a.ub,
                                           &q->a.ub_first)
                    : WH_EPARSE;
        unsigned long long us = s_now_us() - t0;
        s_test_delay(p);
        pthread_mutex_lock(&p->mu);
        if (s_post(j, q, us)) {
            pthread_mutex_unlock(&p->mu);
            s_job_free(j);
            pthread_mutex_lock(&p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int s_thread_count(void)
{
    const char *e = getenv("WHITTLE_PRECHECK_THREADS");
    if (e && *e) {
        int n = atoi(e);
        return n < 1 ? 1 : n > WH_PRECHECK_POOL_MAX ? WH_PRECHECK_POOL_MAX : n;
    }
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 2 ? 2 : 1;
}

static void s_pool_stop(wh_precheck_pool_t *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nth; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static wh_precheck_pool_t *s_pool_start(void)
{
    wh_precheck_pool_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->delay_ms = s_test_delay_ms();
    int want = s_thread_count();
    for (int i = 0; i < want; i++) {
        p->arg[i] = (s_arg_t){p, i};
        if (pthread_create(&p->th[i], NULL, s_worker, &p->arg[i]) != 0)
            break;
        p->nth++;
    }
    if (!p->nth) {
        s_pool_stop(p);
        return NULL;
    }
    return p;
}

wh_precheck_pool_t *wh_precheck_pool_get(void)
{
    pthread_mutex_lock(&s_get_mu);
    if (!s_the_pool)
        s_the_pool = s_pool_start();
    if (s_the_pool)
        s_the_pool->refs++;
    wh_precheck_pool_t *p = s_the_pool;
    pthread_mutex_unlock(&s_get_mu);
    return p;
}

void wh_precheck_pool_put(wh_precheck_pool_t **pp)
{
    wh_precheck_pool_t *p = *pp;
    if (!p)
        return;
    *pp = NULL;
    pthread_mutex_lock(&s_get_mu);
    if (--p->refs == 0) {
        s_the_pool = NULL;
        s_pool_stop(p);
    }
    pthread_mutex_unlock(&s_get_mu);
}

int wh_precheck_pool_threads(const wh_precheck_pool_t *p)
{
    return p ? p->nth : 0;
}

wh_precheck_job_t *wh_precheck_job_new(wh_precheck_pool_t *p, const wh_precheck_opts_t *o,
                                       const char *text, size_t len, wh_precheck_t *first)
{
    wh_precheck_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        wh_precheck_destroy(&first);
        return NULL;
    }
    j->fd = wh_wake_open();
    j->first = first;
    j->pool = p;
    j->file = strdup(o->file);
    j->args = calloc((size_t)o->nargs + 1, sizeof *j->args);
    j->text = malloc(len + 1);
    int bad = j->fd < 0 || !j->file || !j->args || !j->text;
    for (int i = 0; !bad && i < o->nargs; i++) {
        bad = !(j->args[i] = strdup(o->args[i]));
        j->nargs = i + 1;
    }
    if (bad) {
        s_job_free(j);
        return NULL;
    }
    memcpy(j->text, text, len);
    j->text[len] = '\0';
    j->len = len;
    j->clang_compiler = o->clang_compiler;
    j->ub_guard = o->ub_guard;
    j->refs = 1;
    pthread_mutex_lock(&p->mu);
    j->next = p->jobs;
    p->jobs = j;
    pthread_mutex_unlock(&p->mu);
    return j;
}

void wh_precheck_job_destroy(wh_precheck_job_t **jp)
{
    wh_precheck_job_t *j = *jp;
    if (!j)
        return;
    *jp = NULL;
    wh_precheck_pool_t *p = j->pool;
    pthread_mutex_lock(&p->mu);
    for (wh_precheck_job_t **l = &p->jobs; *l; l = &(*l)->next)
        if (*l == j) {
            *l = j->next;
            break;
        }
    if (p->cursor == j)
        p->cursor = j->next;
    j->dead = 1;
    s_list_free(j->queue);
    j->queue = NULL;
    j->queued = 0;
    s_list_free(j->done);
    j->done = j->done_tail = NULL;
    int last = --j->refs == 0;
    pthread_mutex_unlock(&p->mu);
    if (last)
        s_job_free(j);
}

int wh_precheck_job_fd(const wh_precheck_job_t *j)
{
    return j->fd;
}

int wh_precheck_job_submit(wh_precheck_job_t *j, uint64_t tag, char *text, size_t len)
{
    s_req_t *q = calloc(1, sizeof *q);
    if (!q) {
        free(text);
        return WH_ENOMEM;
    }
    q->a.tag = tag;
    q->a.text = text;
    q->a.len = len;
    wh_precheck_pool_t *p = j->pool;
    pthread_mutex_lock(&p->mu);
    s_req_t **l = &j->queue;
    while (*l && (*l)->a.tag <= tag)
        l = &(*l)->next;
    q->next = *l;
    *l = q;
    j->queued++;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

int wh_precheck_job_cancel(wh_precheck_job_t *j, uint64_t tag)
{
    int dropped = 0;
    pthread_mutex_lock(&j->pool->mu);
    for (s_req_t **l = &j->queue; *l; l = &(*l)->next)
        if ((*l)->a.tag == tag) {
            s_req_t *q = *l;
            *l = q->next;
            j->queued--;
            s_req_free(q);
            dropped = 1;
            break;
        }
    pthread_mutex_unlock(&j->pool->mu);
    return dropped;
}

int wh_precheck_job_take(wh_precheck_job_t *j, wh_precheck_answer_t *a)
{
    pthread_mutex_lock(&j->pool->mu);
    s_req_t *q = j->done;
    if (q) {
        j->done = q->next;
        if (!j->done)
            j->done_tail = NULL;
    }
    if (!j->done)
        wh_wake_drain(j->fd); /* not readable again until the next answer */
    pthread_mutex_unlock(&j->pool->mu);
    if (!q)
        return 0;
    *a = q->a;
    free(q);
    return 1;
}

void wh_precheck_job_stats(const wh_precheck_job_t *j, int *checks, unsigned long long *us,
                           int *pending)
{
    if (!j) {
        *checks = 0;
        *us = 0;
        *pending = 0;
        return;
    }
    pthread_mutex_lock(&j->pool->mu);
    *checks = j->checks;
    *us = j->us;
    *pending = j->queued + j->running;
    pthread_mutex_unlock(&j->pool->mu);
}
