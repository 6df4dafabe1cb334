/*
 * precheck_pool — front-end checks (precheck.h) on worker threads, so that
 * the poll thread never runs libclang (STYLE.md, "Daemons") and no
 * candidate goes unchecked for want of time on it.
 *
 * One pool per process, shared by its jobs (wh_precheck_pool_get): at most
 * WH_PRECHECK_POOL_MAX threads, min(2, online cores) by default. A job
 * (wh_precheck_job_t) has the test file's compile options and pristine
 * text; each worker thread owns a precheck handle of its own for each job it
 * has checked for (libclang is thread-safe per CXIndex, a handle is used by
 * one thread at a time), made on that worker from the job's options the
 * first time it takes the job's work (the handle given to
 * wh_precheck_job_new is the first worker's, so the original is not parsed
 * again for it). A worker whose handle cannot be set up, or whose check
 * fails in libclang, answers with a negative code: the owner then builds
 * unchecked (no prediction is better than a wrong one).
 *
 * Threads. The job's owner (the coordinator's poll thread) submits checks
 * and takes answers; workers never call back. An answer is signalled on the
 * job's fd (wh_precheck_job_fd: readable while answers wait), which the
 * owner's loop polls. Each job's queue is kept in tag order (the owner's
 * candidate ids: a round's candidates in canonical order before the
 * speculated ones), and workers serve the jobs in turn.
 *
 * TEST ONLY: WH_TEST_FRONTEND_DELAY_MS=N (read when the pool starts; unset
 * or 0 by default) holds every answer back N ms, so a test can make the
 * front end slower than any dispatch (tests/e2e/ub_race.sh).
 */
#ifndef WH_PRECHECK_POOL_H
#define WH_PRECHECK_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "precheck.h"

#define WH_PRECHECK_POOL_MAX 8

typedef struct wh_precheck_pool wh_precheck_pool_t;
typedef struct wh_precheck_job wh_precheck_job_t;

/* The process's pool, started by the first call (threads: the environment's
 * WHITTLE_PRECHECK_THREADS when set, 1..WH_PRECHECK_POOL_MAX, else
 * min(2, online cores)); each call takes a reference, dropped by
 * wh_precheck_pool_put. NULL when no thread can be started. Owner thread. */
wh_precheck_pool_t *wh_precheck_pool_get(void);
/* Drops a reference and NULLs *p; the last one stops and joins the threads
 * (every job of the pool must be destroyed before). */
void wh_precheck_pool_put(wh_precheck_pool_t **p);
/* Worker threads of the pool. */
int wh_precheck_pool_threads(const wh_precheck_pool_t *p);

/* A job: o and text copied. first (taken; may be NULL) is a handle set up
 * and enabled for the same options and text, given to the first worker.
 * NULL when out of memory (first is destroyed then). */
wh_precheck_job_t *wh_precheck_job_new(wh_precheck_pool_t *p, const wh_precheck_opts_t *o,
                                       const char *text, size_t len, wh_precheck_t *first);
/* Forgets the job: queued checks are dropped, answers not taken are freed;
 * a check running on a worker finishes there and its answer is dropped (the
 * worker frees what is left). *j NULLed. */
void wh_precheck_job_destroy(wh_precheck_job_t **j);
/* Readable while answers wait (an eventfd); the job owns it. */
int wh_precheck_job_fd(const wh_precheck_job_t *j);

/* Queues a check of text (taken, malloc'ed; freed with the answer) under
 * tag. 0 or WH_ENOMEM (text freed). */
int wh_precheck_job_submit(wh_precheck_job_t *j, uint64_t tag, char *text, size_t len);
/* Drops the queued check of tag, if it has not started; 1 when dropped. */
int wh_precheck_job_cancel(wh_precheck_job_t *j, uint64_t tag);

typedef struct {
    uint64_t tag;
    int rc;             /* wh_precheck_check: 1 error, 0 none, < 0 libclang failed */
    char *first;        /* the first counted error (rc 1), or NULL; the caller frees */
    int ub;             /* the UB guard from the same parse (wh_precheck_check_ub): 1, 0,
                         * or -1 when it cannot say */
    char *ub_first;     /* the first new guarded diagnostic (ub 1), or NULL; the caller frees */
    char *text;         /* the text submitted (the caller frees) */
    size_t len;
} wh_precheck_answer_t;
/* Takes the next answer: 1 and *a filled, 0 when none waits. */
int wh_precheck_job_take(wh_precheck_job_t *j, wh_precheck_answer_t *a);

/* Checks done, their total time (us of the workers' clocks), and checks
 * queued or running now. */
void wh_precheck_job_stats(const wh_precheck_job_t *j, int *checks, unsigned long long *us,
                           int *pending);

#endif
