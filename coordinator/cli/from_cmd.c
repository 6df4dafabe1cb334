/*
 * from_cmd — reducing every failing test of a report; see from_cmd.h.
 */
#define _GNU_SOURCE
#include "from_cmd.h"

#include "ctestinfo.h"
#include "embedded.h"
#include "fromreport.h"
#include "group.h"
#include "refauto.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const wh_job_t *jobs;
    size_t n;
    char **dirs; /* run folders of the reduced tests */
    size_t ndirs;
    int worst;
    uint64_t *shown; /* per job: when its last progress line was printed */
} s_state_t;

/* A job's progress, one line every S_PROGRESS_MS while it runs. */
#define S_PROGRESS_MS 10000

static void s_tick(void *arg, size_t i, wh_reduction_t *r)
{
    s_state_t *st = arg;
    uint64_t now = wh_now_ms();
    if (!st->shown || now - st->shown[i] < S_PROGRESS_MS)
        return;
    st->shown[i] = now;
    wh_buf_t b = WH_BUF_INIT;
    wh_reduction_progress(r, &b);
    printf("[%zu/%zu] %s\n", i + 1, st->n, b.buf ? b.buf : ""); /* names the test */
    fflush(stdout);
    wh_buf_free(&b);
}

static void s_worse(s_state_t *st, int code)
{
    if (code > st->worst)
        st->worst = code;
}

static void s_started(void *arg, size_t i, wh_reduction_t *r)
{
    s_state_t *st = arg;
    printf("[%zu/%zu] %s (%s): run folder %s\n", i + 1, st->n, st->jobs[i].test,
           st->jobs[i].file, wh_reduction_dir(r));
}

static void s_failed(void *arg, size_t i, int status, const char *err)
{
    s_state_t *st = arg;
    fflush(stdout);
    fprintf(stderr, "whittle: error: %s: %s\n", st->jobs[i].test, err);
    s_worse(st, status);
}

static void s_finished(void *arg, size_t i, wh_reduction_t *r)
{
    s_state_t *st = arg;
    const char *msg = NULL;
    int code = wh_reduction_status(r, &msg);
    if (code) {
        fflush(stdout);
        fprintf(stderr, "whittle: error: %s: %s (record: %s)\n", st->jobs[i].test,
                msg ? msg : "reduction failed", wh_reduction_dir(r));
        s_worse(st, code);
        return;
    }
    printf("[%zu/%zu] %s: reduced test (%s/reduced%s):\n%s", i + 1, st->n, st->jobs[i].test,
           wh_reduction_dir(r), wh_job_ext(&st->jobs[i]),
           wh_reduction_result_text(r) ? wh_reduction_result_text(r) : "");
    char **nd = realloc(st->dirs, (st->ndirs + 1) * sizeof *nd);
    if (nd && (nd[st->ndirs] = strdup(wh_reduction_dir(r))))
        st->ndirs++;
    if (nd)
        st->dirs = nd;
}

static int s_embedded(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o)
{
    s_state_t st = {jobs, n, NULL, 0, 0, NULL};
    st.shown = calloc(n, sizeof *st.shown);
    for (size_t i = 0; st.shown && i < n; i++)
        st.shown[i] = wh_now_ms();
    /* Per-candidate lines of several jobs would interleave: only with -v. */
    wh_embedded_opts_t eo = {jobs[0].jobs, jobs[0].cache, !jobs[0].verbose, o->interrupted,
                             s_started, s_failed, s_finished, &st, s_tick, o->cache_max,
                             o->keep_work};
    char *err = NULL;
    int code = wh_embedded_run(jobs, n, &eo, &err);
    if (code)
        fprintf(stderr, "whittle: error: %s\n", err ? err : "cannot start the embedded pool");
    free(err);
    if (st.ndirs)
        wh_group_print_dirs((const char *const *)st.dirs, st.ndirs, stdout);
    for (size_t i = 0; i < st.ndirs; i++)
        free(st.dirs[i]);
    free(st.dirs);
    free(st.shown);
    return code ? code : st.worst;
}

/* out: --out as typed (a cluster places it under its --runs folder). */
static int s_cluster(const wh_job_t *jobs, size_t n, const char *out, const wh_from_opts_t *o)
{
    char **js = calloc(n, sizeof *js);
    int code = js ? 0 : 4;
    for (size_t i = 0; js && i < n; i++) {
        wh_job_t sent = jobs[i]; /* a shallow copy, read only */
        sent.out = (char *)out;
        js[i] = wh_job_to_json(&sent);
        printf("[%zu/%zu] %s (%s): job %zu\n", i + 1, n, jobs[i].test, jobs[i].file, i);
    }
    if (js)
        code = o->cluster_run(o->cluster_arg, js, (int)n);
    for (size_t i = 0; js && i < n; i++)
        free(js[i]);
    free(js);
    return code;
}

/* The failing tests of the report. 0, or an exit status after the error. */
static int s_failing(const wh_from_opts_t *o, wh_failing_t **v, size_t *n)
{
    char *err = NULL;
    int rc = o->junit ? wh_failing_from_junit(o->junit, v, n, &err)
                      : wh_failing_from_ctest(o->ctest, v, n, &err);
    if (rc) {
        fprintf(stderr, "whittle: error: %s\n", err ? err : wh_strerror(rc));
        free(err);
        return 2;
    }
    printf("%s: %zu failing test%s\n", o->junit ? o->junit : o->ctest, *n, *n == 1 ? "" : "s");
    return 0;
}

/* What CMake and CTest recorded for the report: --from-ctest's folder, or
 * the build folder a JUnit report lies in. NULL when there is none; for
 * --from-ctest that is an error (exit 2 in *code) when the flags leave a
 * command or the test files to it. */
static wh_ctest_t *s_ctest(const wh_job_t *tmpl, const wh_from_opts_t *o, int *code)
{
    char *dir = NULL, *err = NULL;
    if (o->ctest) {
        dir = strdup(o->ctest);
    } else {
        char *rep = wh_abspath(o->junit), *slash = rep ? strrchr(rep, '/') : NULL;
        if (slash)
            *slash = '\0';
        dir = rep ? wh_ctest_find_build(rep) : NULL;
        free(rep);
    }
    wh_ctest_t *ct = dir ? wh_ctest_open(dir, &err) : NULL;
    int needed = !tmpl->file || !tmpl->setup || !tmpl->build || !tmpl->run;
    /* --from-junit without a build: the old rules (--file, --run) apply. */
    if (!ct && needed && o->ctest) {
        fprintf(stderr, "whittle: error: %s (give --file, --setup, --build and --run)\n", err);
        *code = 2;
    }
    free(err);
    free(dir);
    return ct;
}

/* --reference auto, the default, for every job of a report, as `whittle
 * reduce` does for its one (the jobs come validated with no reference: a
 * picked one is resolved, exported, by validating again). Each distinct
 * console line is printed once. 0, or an exit status with the error said. */
static int s_refauto(const wh_job_t *tmpl, wh_job_t *jobs, size_t n, int cluster)
{
    if (tmpl->reference && strcmp(tmpl->reference, "auto") != 0)
        return 0; /* none, or a folder or revision given */
    char *said = NULL;
    int code = 0;
    for (size_t i = 0; i < n && !code; i++) {
        char *line = NULL, *err = NULL;
        if (wh_refauto_apply(&jobs[i], cluster, &line)) {
            fprintf(stderr, "whittle: error: out of memory\n");
            code = 4;
        } else if (jobs[i].reference && wh_job_validate(&jobs[i], &err)) {
            fprintf(stderr, "whittle: error: %s: %s\n", jobs[i].test, err ? err : "invalid");
            code = 2;
        }
        if (!code && line && !tmpl->quiet && (!said || strcmp(said, line) != 0)) {
            printf("%s\n", line);
            free(said);
            said = line;
            line = NULL;
        }
        free(line);
        free(err);
    }
    free(said);
    return code;
}

int wh_from_cmd(const wh_job_t *tmpl, const wh_from_opts_t *o)
{
    wh_failing_t *v = NULL;
    size_t n = 0, nj = 0;
    int code = s_failing(o, &v, &n);
    if (code || n == 0)
        return code;
    wh_ctest_t *ct = s_ctest(tmpl, o, &code);
    if (code) {
        wh_failing_free(v, n);
        return code;
    }
    for (size_t i = 0; ct && o->ctest && i < n; i++)
        if (!v[i].output)
            v[i].output = wh_ctest_output(ct, v[i].name);
    wh_job_t *jobs = NULL;
    wh_buf_t missing = WH_BUF_INIT;
    char *err = NULL;
    int rc = wh_from_jobs(tmpl, v, n, ct, &jobs, &nj, &missing, &err);
    wh_ctest_close(&ct);
    if (rc) {
        fprintf(stderr, "whittle: error: %s\n", err);
        free(err);
        wh_buf_free(&missing);
        wh_failing_free(v, n);
        return 2;
    }
    fflush(stdout);
    for (char *save = NULL, *l = missing.buf ? strtok_r(missing.buf, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save))
        fprintf(stderr, "whittle: error: %s\n", l);
    if (nj)
        code = s_refauto(tmpl, jobs, nj, o->cluster_run != NULL);
    if (nj && !code)
        code = o->cluster_run ? s_cluster(jobs, nj, tmpl->out, o) : s_embedded(jobs, nj, o);
    if (!code && missing.len)
        code = 1;
    for (size_t i = 0; i < nj; i++)
        wh_job_clear(&jobs[i]);
    free(jobs);
    wh_buf_free(&missing);
    wh_failing_free(v, n);
    return code;
}
