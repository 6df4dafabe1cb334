/* prepq: the preparation queue's threads (real ones): at most N tasks run
 * at once, level 0 before level 1, a level in ascending order, a queued
 * task can be cancelled and says how many are ahead of it. Tasks block on
 * a gate the test opens, so what runs when is decided by the test, not by
 * timing; every wait has a deadline. */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

#include "prepq.h"
#include "wh_common.h"
#include "wh_test.h"

static pthread_mutex_t s_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_cv = PTHREAD_COND_INITIALIZER;
static int s_open, s_running, s_max_running, s_n_started;
static const char *s_started[16];

/* Records the start, then waits (at most 30 s) for the gate. */
static void s_run(wh_prepq_task_t *t)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&s_mu);
    if (s_n_started < 16)
        s_started[s_n_started++] = t->name;
    if (++s_running > s_max_running)
        s_max_running = s_running;
    pthread_cond_broadcast(&s_cv);
    while (!s_open && pthread_cond_timedwait(&s_cv, &s_mu, &until) == 0)
        ;
    s_running--;
    pthread_mutex_unlock(&s_mu);
}

static void s_task(wh_prepq_task_t *t, const char *name, uint64_t order)
{
    memset(t, 0, sizeof *t);
    t->run = s_run;
    t->what = "test";
    t->order = order;
    snprintf(t->name, sizeof t->name, "%s", name);
}

/* Waits (at most 30 s) until n tasks have started. */
static int s_wait_started(int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&s_mu);
    while (s_n_started < n && pthread_cond_timedwait(&s_cv, &s_mu, &until) == 0)
        ;
    int ok = s_n_started >= n;
    pthread_mutex_unlock(&s_mu);
    return ok;
}

/* Waits (at most 30 s) until t is done. */
static int s_wait_done(wh_prepq_t *q, const wh_prepq_task_t *t)
{
    uint64_t end = wh_now_ms() + 30000;
    while (wh_prepq_state(q, t) != WH_PREPQ_DONE && wh_now_ms() < end) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return wh_prepq_state(q, t) == WH_PREPQ_DONE;
}

static void test_order_and_bound(void)
{
    char *err = NULL;
    wh_prepq_t *q = wh_prepq_new(2, -1, &err);
    CHECK(q != NULL);
    if (!q)
        return;
    wh_prepq_task_t b0, b1, a, b, c, d, e;
    s_task(&b0, "b0", 1);
    s_task(&b1, "b1", 2);
    wh_prepq_push(q, &b0, 0);
    wh_prepq_push(q, &b1, 0);
    CHECK(s_wait_started(2)); /* both threads are held at the gate */
    s_task(&a, "a", 10);
    s_task(&b, "b", 30);
    s_task(&c, "c", 50);
    s_task(&d, "d", 20);
    s_task(&e, "e", 40);
    wh_prepq_push(q, &a, 1);
    wh_prepq_push(q, &b, 1);
    wh_prepq_push(q, &c, 0);
    wh_prepq_push(q, &d, 1); /* pushed out of order: it goes before b */
    wh_prepq_push(q, &e, 1);
    CHECK_EQ_INT(wh_prepq_state(q, &a), WH_PREPQ_QUEUED);
    CHECK_EQ_INT(wh_prepq_ahead(q, &c), 0);
    CHECK_EQ_INT(wh_prepq_ahead(q, &a), 1);
    CHECK_EQ_INT(wh_prepq_ahead(q, &d), 2);
    CHECK_EQ_INT(wh_prepq_ahead(q, &b), 3);
    CHECK_EQ_INT(wh_prepq_ahead(q, &e), 4);
    CHECK_EQ_INT(wh_prepq_ahead(q, &b0), -1); /* running */
    wh_prepq_stats_t st;
    wh_prepq_stats(q, &st);
    CHECK_EQ_INT(st.threads, 2);
    CHECK_EQ_INT(st.busy, 2);
    CHECK_EQ_INT(st.queued[0], 1);
    CHECK_EQ_INT(st.queued[1], 4);
    CHECK_EQ_INT(wh_prepq_cancel(q, &e), 1);
    CHECK_EQ_INT(wh_prepq_state(q, &e), WH_PREPQ_IDLE);
    CHECK_EQ_INT(wh_prepq_ahead(q, &e), -1);
    CHECK_EQ_INT(wh_prepq_cancel(q, &b0), 0); /* running: not taken off */
    pthread_mutex_lock(&s_mu);
    s_open = 1;
    pthread_cond_broadcast(&s_cv);
    pthread_mutex_unlock(&s_mu);
    CHECK(s_wait_done(q, &a) && s_wait_done(q, &b) && s_wait_done(q, &c) && s_wait_done(q, &d));
    CHECK(s_wait_done(q, &b0) && s_wait_done(q, &b1));
    CHECK_EQ_INT(s_n_started, 6);
    CHECK_EQ_STR(s_n_started > 2 ? s_started[2] : "", "c");
    CHECK_EQ_STR(s_n_started > 3 ? s_started[3] : "", "a");
    CHECK_EQ_STR(s_n_started > 4 ? s_started[4] : "", "d");
    CHECK_EQ_STR(s_n_started > 5 ? s_started[5] : "", "b");
    CHECK_EQ_INT(wh_prepq_state(q, &e), WH_PREPQ_IDLE); /* cancelled: never run */
    CHECK(s_max_running <= 2);
    wh_prepq_stats(q, &st);
    CHECK_EQ_INT(st.max_busy, 2);
    CHECK_EQ_INT(st.done, 6);
    CHECK_EQ_INT(wh_prepq_cancel(q, &a), 0); /* done */
    wh_prepq_destroy(&q);
    CHECK(q == NULL);
}

/* A queue destroyed while a task runs and another waits: destroy waits for
 * the running one; the waiting one ran (the thread took it first) or was
 * dropped (IDLE), never left queued. */
static void test_destroy_drops(void)
{
    char *err = NULL;
    s_open = 0;
    s_n_started = 0;
    wh_prepq_t *q = wh_prepq_new(1, -1, &err);
    CHECK(q != NULL);
    if (!q)
        return;
    wh_prepq_task_t h, w;
    s_task(&h, "h", 1);
    s_task(&w, "w", 2);
    wh_prepq_push(q, &h, 0);
    CHECK(s_wait_started(1));
    wh_prepq_push(q, &w, 0);
    pthread_mutex_lock(&s_mu);
    s_open = 1;
    pthread_cond_broadcast(&s_cv);
    pthread_mutex_unlock(&s_mu);
    wh_prepq_destroy(&q);
    CHECK(w.state == WH_PREPQ_IDLE || w.state == WH_PREPQ_DONE);
    CHECK(w.next == NULL);
    CHECK_EQ_INT(h.state, WH_PREPQ_DONE);
}

int main(void)
{
    RUN_TEST(test_order_and_bound);
    RUN_TEST(test_destroy_drops);
    TEST_MAIN_END();
}
