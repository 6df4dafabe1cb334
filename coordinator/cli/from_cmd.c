/*
 * from_cmd — reducing every failing test of a report; see from_cmd.h.
 */
#define _GNU_SOURCE
#include "from_cmd.h"

#include "embedded.h"
#include "fromreport.h"
#include "group.h"

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

static void s_failed(void *arg, size_t i, const char *err)
{
    s_state_t *st = arg;
    fflush(stdout);
    fprintf(stderr, "whittle: error: %s: %s\n", st->jobs[i].test, err);
    s_worse(st, 1);
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
                             s_started, s_failed, s_finished, &st, s_tick, o->cache_max};
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

int wh_from_cmd(const wh_job_t *tmpl, const wh_from_opts_t *o)
{
    wh_failing_t *v = NULL;
    size_t n = 0, nj = 0;
    int code = s_failing(o, &v, &n);
    if (code || n == 0)
        return code;
    wh_job_t *jobs = NULL;
    wh_buf_t missing = WH_BUF_INIT;
    char *err = NULL;
    if (wh_from_jobs(tmpl, v, n, &jobs, &nj, &missing, &err)) {
        fprintf(stderr, "whittle: error: %s\n", err);
        free(err);
        wh_failing_free(v, n);
        return 2;
    }
    fflush(stdout);
    for (char *save = NULL, *l = missing.buf ? strtok_r(missing.buf, "\n", &save) : NULL; l;
         l = strtok_r(NULL, "\n", &save)) {
        char *prog = strchr(l, '\t');
        if (prog)
            *prog++ = '\0';
        if (prog && *prog)
            fprintf(stderr, "whittle: error: failing test '%s' is the whole test program %s, not a "
                            "function of it: reduce its failing function with --file %s --test NAME "
                            "(the program's output names it); skipped\n", l, prog, prog);
        else
            fprintf(stderr, "whittle: error: failing test '%s' is defined in no file matching '%s'; "
                            "skipped\n", l, tmpl->file);
    }
    if (nj)
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
