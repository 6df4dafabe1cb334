/*
 * reduce — one reduction job driven as events: the round engine produces
 * rounds, this module renders each candidate from the pristine text, answers
 * what it can from the verdict cache (and from identical candidates in the
 * same round), queues the rest on the pool, consumes verdicts in any order,
 * resolves each round in canonical order (cancelling what it no longer
 * needs), and writes the run record. Several reductions can share one pool
 * (the coordinator daemon); the embedded default runs one.
 *
 * Runs on the pool's thread. libclang parsing happens in wh_reduction_new,
 * and again, after the baseline, on a thread of its own (wh_reduction_poll);
 * the front-end checks of candidates run on the precheck's threads
 * (precheck_pool.h), their answers taken up through a watched fd.
 */
#ifndef WH_REDUCE_H
#define WH_REDUCE_H

#include "cache.h"
#include "job.h"
#include "pool.h"
#include "progress.h"

typedef struct wh_reduction wh_reduction_t;

/* Parses the test, hashes the project, opens the run folder, registers the
 * job with the pool and queues the baseline (or takes the fingerprint from
 * the cache). NULL and *err (one line) on failure, and *status (when not
 * NULL) the exit status it means, as README's table has it: 1 the test file
 * does not parse or does not define the test; 2 the project cannot be read;
 * 4 infrastructure trouble (the run folder under --out cannot be written,
 * out of memory). quiet: no console progress. */
wh_reduction_t *wh_reduction_new(const wh_job_t *job, wh_pool_t *pool, wh_cache_t *cache,
                                 int quiet, int *status, char **err);
void wh_reduction_destroy(wh_reduction_t **r);

/* The two halves of wh_reduction_new, for a daemon that must keep its poll
 * loop (and heartbeats) going: prepare does the slow part (libclang parse,
 * project hash, run folder) and touches no pool or cache, so it may run on
 * another thread; start registers with the pool and queues the baseline,
 * on the pool's thread. */
wh_reduction_t *wh_reduction_prepare(const wh_job_t *job, int quiet, int *status, char **err);
/* 0, or a negative code with *err (an exit status of 4: infrastructure). */
int wh_reduction_start(wh_reduction_t *r, wh_pool_t *pool, wh_cache_t *cache, char **err);

/* The front end's set-up (the precheck's preamble and the UB guard's
 * parse of the original: most of a job's libclang time), apart from the
 * rest of the preparation, so that a daemon can queue a job's original
 * run as soon as the job's identity is known and set the front end up
 * while it runs (the baseline's fingerprint waits for it: the walk needs
 * it, the original's run does not). */
typedef struct wh_frontend wh_frontend_t;
/* wh_reduction_prepare without the front end's set-up: *fe gets it (its
 * inputs copied, nothing done yet), or NULL when the job needs none
 * (--precheck off and --ub-guard off). */
wh_reduction_t *wh_reduction_identify(const wh_job_t *job, int quiet, wh_frontend_t **fe,
                                      int *status, char **err);
/* Does the set-up: libclang, on any thread, touching nothing but fe. */
void wh_frontend_run(wh_frontend_t *fe);
/* On the pool's thread, after wh_frontend_run: r takes the precheck and the
 * UB guard (or drops them when the tree was parsed again since, whose own
 * set-up runs then) and goes on with what waited for them; *fe is freed
 * and NULL. */
void wh_reduction_frontend_done(wh_reduction_t *r, wh_frontend_t **fe);
/* Frees a set-up that no reduction takes (its job ended); NULL is fine. */
void wh_frontend_destroy(wh_frontend_t **fe);

/* Runs what finished off the pool's thread: the statement tree parsed
 * again with the warm workspace's compile command after the baseline.
 * Call once per turn of the pool loop, on the pool's thread. */
void wh_reduction_poll(wh_reduction_t *r);

/* 1 when finished (successfully or not). */
int wh_reduction_done(const wh_reduction_t *r);
/* 0 on success; else the exit status, with a one-line message (none for
 * WH_EXIT_PARTIAL, which has an answer: wh_reduction_answered). */
int wh_reduction_status(const wh_reduction_t *r, const char **msg);
/* The worse of two exit statuses of a batch: any failure (1-4, 130) over
 * a partial answer, a partial answer over 0. */
static inline int wh_exit_worst(int a, int b)
{
    int ra = a == WH_EXIT_PARTIAL ? 1 : a ? a + 1 : 0, rb = b == WH_EXIT_PARTIAL ? 1 : b ? b + 1 : 0;
    return ra >= rb ? a : b;
}
/* 1 when the run ended with a reduced test (status 0 or WH_EXIT_PARTIAL). */
int wh_reduction_answered(const wh_reduction_t *r);
const char *wh_reduction_dir(const wh_reduction_t *r);
/* The reduced test function (compact), for the console. */
const char *wh_reduction_result_text(const wh_reduction_t *r);
/* The reduced test file, line-true (every statement on its original line:
 * reduced.lines.<ext>), and its length; NULL before the run is done. */
const char *wh_reduction_lines(const wh_reduction_t *r, size_t *len);
/* The unified diff of the test file, original to reduced (the run
 * folder's reduced.diff, for `patch -p1` in the project); "" before the
 * run is done or when nothing was removed. */
const char *wh_reduction_diff(const wh_reduction_t *r);
/* The closing lines of a successful run (verified; fault kept, lost or not
 * checked), for a client that does not see the console; "" before. */
const char *wh_reduction_closing(const wh_reduction_t *r);
/* "sweep 2 level 1: 34 candidates" — one line of progress. */
void wh_reduction_progress(const wh_reduction_t *r, wh_buf_t *b);
/* The status line's figures now (progress.h), for the console or a
 * remote client. */
void wh_reduction_status_now(const wh_reduction_t *r, wh_progress_t *p);
/* A budget beyond the job's own is spent (`--batch-budget`; why: one
 * line, "batch budget builds=40 spent: 40 builds of the batch"): the walk
 * stops with its best answer so far, verified and fault-checked as for
 * --budget (partial, WH_EXIT_PARTIAL); a job still running its original
 * stops as soon as its walk would begin (its answer: the original). A job
 * past its walk (verifying, done) goes on as it is. Pool thread only. */
void wh_reduction_spend_out(wh_reduction_t *r, const char *why);
/* Aborts: cancels everything, keeps the record written so far. */
void wh_reduction_abort(wh_reduction_t *r, const char *why);
const char *wh_reduction_job_id(const wh_reduction_t *r);
/* Candidates so far: all of them, and those the cache answered. */
void wh_reduction_counts(const wh_reduction_t *r, uint64_t *candidates, uint64_t *cached);

#endif
