/*
 * embedded — reductions run inside the whittle process: one pool on an
 * inproc endpoint, one verdict cache, one node with N slots, and any number
 * of jobs sharing them, each with its own run folder. `whittle reduce` runs
 * one job this way; --from-junit / --from-ctest one per failing test.
 *
 * The node's workspaces are kept across runs in the cache folder
 * (workstore.h): a rerun of an unchanged project finds them set up. When
 * another run holds that folder, or keep_work is set (--keep-work, or
 * $WHITTLE_KEEP_WORK), they live in "work" of the first run folder that
 * needs a slot instead, removed on every way out (success, a refused
 * original, an error, an interrupt) unless keep_work is set.
 */
#ifndef WH_EMBEDDED_H
#define WH_EMBEDDED_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "reduce.h"
#include "spend.h"

typedef struct {
    int slots;          /* node slots */
    const char *cache;  /* cache spec (cache.h); NULL = embedded default */
    int quiet;          /* no per-candidate console lines (wh_reduction_new's quiet) */
    const volatile sig_atomic_t *interrupted; /* set: every job is aborted */
    /* Called once per job, in job order for the starts: started with the
     * reduction (its run folder is known), or failed with the exit status
     * and the one-line reason it could not start (wh_reduction_new's); then
     * finished when it is done (wh_reduction_status tells how). Any may be
     * NULL. */
    void (*started)(void *arg, size_t i, wh_reduction_t *r);
    void (*failed)(void *arg, size_t i, int status, const char *err);
    void (*finished)(void *arg, size_t i, wh_reduction_t *r);
    void *arg;
    /* Called on every turn of the loop (about 10 times a second) for each
     * job still running, on the loop's thread: the place to draw progress.
     * May be NULL. */
    void (*tick)(void *arg, size_t i, wh_reduction_t *r);
    uint64_t cache_max; /* --cache-max: compact the embedded cache past it; 0: never */
    int keep_work;      /* --keep-work: leave "work" in the run folder */
} wh_embedded_opts_t;

/* Runs jobs[0, n) to the end. Returns 0 when the pool, cache and node came
 * up (the jobs' outcomes went to the callbacks), else an exit status (4 the
 * pool or node, 2 the cache) with a one-line *err. */
int wh_embedded_run(const wh_job_t *jobs, size_t n, const wh_embedded_opts_t *o, char **err);

/* A batch's share of the run (`reduce --from-ctest`, `--from-junit`). */
typedef struct {
    /* At most this many jobs run at once (0: all from the start): the
     * next job, in job order, starts when one ends, so the order of jobs
     * is the order their reductions get slots (a batch's priorities). */
    size_t max_active;
    /* A batch's budget (`--batch-budget`; NULL or empty: none): the
     * builds every job of jobs spent (its walk's, wh_progress_t.built)
     * plus batch_builds spent before them, and the time since batch_t0
     * (monotonic ms; 0: this call's start). When spent, every job still
     * walking stops with its best answer (wh_reduction_spend_out) and
     * every job not started is not: skipped (below) with the reason. */
    const wh_spend_t *batch;
    int batch_builds;
    uint64_t batch_t0;
    void (*skipped)(void *arg, size_t i, const char *why);
    /* Called once when the batch budget is spent, with why. May be NULL. */
    void (*spent)(void *arg, const char *why);
} wh_embedded_batch_t;

/* As wh_embedded_run, the jobs started in order within b's limits (NULL:
 * none, as wh_embedded_run). The arg of b's callbacks is o->arg. */
int wh_embedded_run_batch(const wh_job_t *jobs, size_t n, const wh_embedded_opts_t *o,
                          const wh_embedded_batch_t *b, char **err);

#endif
