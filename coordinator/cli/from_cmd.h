/*
 * from_cmd — `whittle reduce --from-junit REPORT` / `--from-ctest
 * BUILD_DIR`: every failing test the report names is reduced as its own job
 * (fromreport.h), all on one embedded pool, cache and node (embedded.h) or
 * submitted to a cluster together; each gets its own run folder, and the
 * root-cause groups of the reduced tests (group.h) are printed at the end.
 * A failing test that no test file defines is named and skipped, and makes
 * the exit status non-zero.
 */
#ifndef WH_FROM_CMD_H
#define WH_FROM_CMD_H

#include <signal.h>
#include <stdint.h>

#include "job.h"

typedef struct {
    const char *junit;  /* --from-junit REPORT, or NULL */
    const char *ctest;  /* --from-ctest BUILD_DIR, or NULL */
    const volatile sig_atomic_t *interrupted;
    /* With --cluster: submits the jobs (JSON) and waits for them, printing
     * their results and groups; returns the worst exit status. NULL: the
     * embedded pool. */
    int (*cluster_run)(void *arg, char **jobs_json, int n);
    void *cluster_arg;
    uint64_t cache_max; /* --cache-max for the embedded cache; 0: none */
    int keep_work;      /* --keep-work: the embedded run's workspaces stay */
    int each;           /* --each: reduce every failing test, not one per group */
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
/* A run folder's fingerprint (its summary.json): *key its root-cause key
 * (batchgroup.h, NULL when it has none), *line the fingerprint as one line
 * (both malloc'ed, NULL when the folder has none). Returns its test's
 * statements before reducing, or -1. */
int wh_from_fp_key(const char *dir, char **key, char **line);
int wh_from_grouped(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o,
                    const wh_buf_t *missing);

#endif
