/*
 * from_cmd — `whittle reduce --from-junit REPORT` / `--from-ctest
 * BUILD_DIR`: the failing tests the report names (fromreport.h) are
 * grouped by root cause on their originals' first runs and one test per
 * group is reduced as a job (--each: every one), all on one embedded pool,
 * cache and node (embedded.h) or submitted to a cluster (from_cluster.c);
 * each reduction gets its own run folder, and the batch one report
 * (night.h: OUT/night.json and night.html, on the client for a cluster).
 * A failing test that no test file defines is named and skipped, and makes
 * the exit status non-zero.
 */
#ifndef WH_FROM_CMD_H
#define WH_FROM_CMD_H

#include <signal.h>
#include <stdint.h>

#include "job.h"
#include "priority.h"

/* What a cluster said of one job of a batch. */
typedef struct {
    int code;  /* its exit status (after this client's own check of the answer, if any) */
    char *run; /* the run's summary (night.h's run JSON), checked on receipt; NULL: none */
    char *skip; /* never submitted: why (the batch budget was spent), else NULL */
} wh_from_result_t;

/* How a batch's jobs go to a cluster. */
enum {
    WH_FROM_EACH = 0,    /* every one reduced, as submitted */
    WH_FROM_FIRST = 1,   /* first runs: fingerprint only; their ends are not printed and
                            not checked here (the plan says what they mean) */
    WH_FROM_GROUPED = 2, /* one reduction per group (the groups were printed before) */
};

typedef struct {
    const char *junit;  /* --from-junit REPORT, or NULL */
    const char *ctest;  /* --from-ctest BUILD_DIR, or NULL */
    const volatile sig_atomic_t *interrupted;
    /* With --cluster: submits the jobs (JSON) and waits for them, printing
     * their results (and, with WH_FROM_EACH, the groups of the run folders
     * it can read); res (n, or NULL) gets each job's end; mode: WH_FROM_*.
     * Returns the worst exit status. NULL: the embedded pool. */
    int (*cluster_run)(void *arg, char **jobs_json, int n, wh_from_result_t *res, int mode);
    void *cluster_arg;
    uint64_t cache_max; /* --cache-max for the embedded cache; 0: none */
    int keep_work;      /* --keep-work: the embedded run's workspaces stay */
    int each;           /* --each: reduce every failing test, not one per group */
    int own_out;        /* a cluster batch of `submit --group`: each job's "out" goes as
                           written (else the flags' --out for every job) */
    /* --batch-budget (spend.h; zero: none): the builds and time of the
     * whole batch (first runs and walks); when spent, the reductions
     * running stop with their best answers (partial) and those not
     * started are skipped; exit status WH_EXIT_PARTIAL. */
    wh_spend_t batch_budget;
} wh_from_opts_t;

/* tmpl: the flags' job (its --test is ignored, its --file may be a glob).
 * Returns the exit status: 0 when every failing test was reduced; the
 * worst job's status; 1 when a test was not found; 2 for a report that
 * cannot be read. */
int wh_from_cmd(const wh_job_t *tmpl, const wh_from_opts_t *o);

/* A failure a batch answers with its group's reduced test (from_group.c). */
typedef struct {
    const wh_job_t *job;
    size_t rep; /* the index of its group's job among the jobs reduced */
} wh_from_member_t;
typedef struct {
    const wh_from_member_t *v;
    size_t n;
    /* The batch before the reductions (from_group.c; NULL or 0 when
     * none): per job reduced, the date an earlier night first saw its
     * root cause (NULL: new), the jobs given in priority order; its first
     * run's folder (the fingerprint of a job that was skipped); the
     * builds the first runs spent and when they began (the batch budget
     * counts both). */
    const char *const *seen;
    const char *const *first_dir; /* per job reduced: its first run's folder, or NULL */
    int first_builds;
    uint64_t t0;
} wh_from_members_t;

/* Reduces jobs on the embedded pool, then prints the groups of the reduced
 * tests and the closing summary (with a line for each of mem's failures,
 * when given). Returns the worst exit status. */
int wh_from_embedded(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o,
                     const wh_buf_t *missing, const wh_from_members_t *mem);
/* Group first (from_group.c): every job's original run for its fingerprint
 * only, the failures grouped by root cause (batchgroup.h), then one
 * reduction per group (its smallest test) through wh_from_embedded, the
 * others answered by it. */
/* A run's fingerprint, from its summary (night.h's run JSON, from a
 * folder here or sent by a coordinator): *key its root-cause key
 * (batchgroup.h, NULL when it has none), *line the fingerprint as one line
 * (both malloc'ed, NULL when the run has none). Returns its test's
 * statements before reducing, or -1. wh_from_fp_key: the same of a run
 * folder on this machine. */
int wh_from_run_key(const char *run, char **key, char **line);
int wh_from_fp_key(const char *dir, char **key, char **line);

/* A batch's plan once its first runs are in (from_group.c), the same for
 * the embedded pool and a cluster: the failures grouped by root cause,
 * each group's smallest test reduced, and a failure whose first run gave
 * no fingerprint reduced on its own. */
typedef struct {
    size_t n, groups;
    size_t *rep;  /* per failure: its group's representative (rep[i] == i: it leads one) */
    char **line;  /* per failure: its fingerprint as one line, or NULL */
    int *has_fp;  /* per failure: its first run gave a summary */
    size_t *red;  /* the failures to reduce, nred of them, in batch order */
    size_t nred;
    size_t *slot; /* per reduced failure: its place in red */
    char **key;   /* per failure: its root-cause key (batchgroup.h), or NULL */
    int *size;    /* per failure: its test's statements, or -1 */
} wh_from_plan_t;
/* Makes the plan from the first runs' summaries (runs[i]: night.h's run
 * JSON of failure i's first run, NULL when it gave none) and prints the
 * groups ("Groups before reducing: ..."). 0 or WH_ENOMEM. */
int wh_from_plan_make(wh_from_plan_t *p, const wh_job_t *jobs, char *const *runs, size_t n);
void wh_from_plan_free(wh_from_plan_t *p);
/* The order a plan's reductions go in (priority.h): p->red sorted, larger
 * groups first, then newer root causes by the history in out (read, and
 * this night's keys added), then the smaller test; p->slot follows. With
 * seen (nred entries, may be NULL): each reduction's first-seen date in
 * hist, NULL new. The order printed ("Reducing in this order: ...").
 * 0, or WH_ENOMEM. */
int wh_from_plan_order(wh_from_plan_t *p, const wh_job_t *jobs, const char *out,
                       const char **seen, wh_seen_t *hist);
int wh_from_grouped(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o,
                    const wh_buf_t *missing);

/* The batch through o->cluster_run (from_cluster.c): grouped first as
 * wh_from_grouped (every first run a fingerprint-only job, one reduction
 * per group), or every job with o->each; tmpl: the flags' job (its --out
 * as typed goes to the coordinator; the night's report goes to the same
 * name here, or the default of a run here). Returns the worst status of
 * the reductions. */
int wh_from_cluster(const wh_job_t *jobs, size_t n, const wh_job_t *tmpl,
                    const wh_from_opts_t *o, const wh_buf_t *missing);

#endif
