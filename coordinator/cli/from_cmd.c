/*
 * from_cmd — reducing every failing test of a report; see from_cmd.h.
 */
#define _GNU_SOURCE
#include "from_cmd.h"

#include "ctestinfo.h"
#include "embedded.h"
#include "fromreport.h"
#include "batchgroup.h"
#include "group.h"
#include "night.h"
#include "refauto.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

typedef struct {
    const wh_job_t *jobs;
    size_t n;
    const wh_from_members_t *mem; /* failures answered by their group's job, or NULL */
    char **rdir; /* per job: its run folder once it reduced its test, else NULL */
    char **why;  /* per job: why it was not reduced, else NULL */
    char **fdir; /* per job: the record of a job that was not reduced, else NULL */
    char **dirs; /* run folders of the reduced tests */
    size_t ndirs;
    int worst;
    uint64_t *shown; /* per job: when its last progress line was printed */
    char **end;      /* per job: its line of the closing summary */
    char **diff;     /* per job: its reduced test's diff, NULL when none */
    char **skip;     /* per job: why it was not started (the batch budget), else NULL */
} s_state_t;

/* The command that reduces job j by hand: its run folder's job.json
 * (every field, the whole CTest test's judgment too), else its own flags,
 * quoted for sh. */
static void s_by_hand(const wh_job_t *j, const char *dir, wh_buf_t *b)
{
    if (dir) {
        char *cfg = wh_path_join(dir, "job.json");
        wh_buf_puts(b, "whittle reduce --config ");
        wh_buf_sh_quote(b, cfg);
        free(cfg);
        return;
    }
    wh_buf_puts(b, "whittle reduce --project ");
    wh_buf_sh_quote(b, j->project);
    wh_buf_puts(b, " --file ");
    wh_buf_sh_quote(b, j->file);
    wh_buf_puts(b, " --test ");
    wh_buf_sh_quote(b, j->test);
    const char *const flags[] = {"--setup", "--build", "--run", "--framework"};
    const char *const vals[] = {j->setup, j->build, j->run, j->framework};
    for (size_t k = 0; k < 4; k++) {
        if (!vals[k])
            continue;
        wh_buf_printf(b, " %s ", flags[k]);
        wh_buf_sh_quote(b, vals[k]);
    }
    if (j->whole_test)
        wh_buf_puts(b, " (and, to judge the whole CTest test on the reference, a --config job "
                       "file with \"whole_test\": true and the test's will_fail and "
                       "ctest_*_regex)");
}

/* Job i's closing line: it failed with status code and msg. */
static void s_end_failed(s_state_t *st, size_t i, int code, const char *msg, const char *dir)
{
    wh_buf_t b = WH_BUF_INIT;
    if (st->why && !st->why[i])
        st->why[i] = wh_strdup_printf("exit %d: %s", code, msg ? msg : "reduction failed");
    if (st->fdir && !st->fdir[i] && dir)
        st->fdir[i] = strdup(dir);
    wh_buf_printf(&b, "not reduced (exit %d): %s", code, msg ? msg : "reduction failed");
    if (dir)
        wh_buf_printf(&b, " (record: %s)", dir);
    if (code != 130) {
        wh_buf_puts(&b, "; by hand: ");
        s_by_hand(&st->jobs[i], dir, &b);
    }
    if (st->end) {
        free(st->end[i]);
        st->end[i] = wh_buf_detach(&b);
    }
    wh_buf_free(&b);
}

/* Job i's closing line when it was reduced: sizes from its summary.json,
 * the fault check from its closing lines. */
static void s_end_reduced(s_state_t *st, size_t i, wh_reduction_t *r)
{
    if (!st->end)
        return;
    char *path = wh_path_join(wh_reduction_dir(r), "summary.json");
    json_t *sum = path ? json_load_file(path, 0, NULL) : NULL;
    free(path);
    const char *closing = wh_reduction_closing(r);
    const char *fault = strstr(closing, "Fault check: ");
    const char *nl = fault ? strchr(fault, '\n') : NULL;
    int flen = fault ? (int)(nl ? nl - fault - 13 : (long)strlen(fault + 13)) : 0;
    wh_buf_t b = WH_BUF_INIT;
    const char *by = json_string_value(json_object_get(sum, "verified_by"));
    const char *partial = json_string_value(json_object_get(sum, "partial"));
    wh_buf_printf(&b, "%s %lld -> %lld statements, verified%s; %.*s",
                  partial ? "partial (budget spent):" : "reduced",
                  (long long)json_integer_value(json_object_get(sum, "statements_before")),
                  (long long)json_integer_value(json_object_get(sum, "statements_after")),
                  by && !strncmp(by, "an earlier run", 14) ? " (by an earlier run of this job: "
                                                             "nothing built again)"
                                                           : "",
                  fault ? flen : 17, fault ? fault + 13 : "fault not checked");
    json_decref(sum);
    free(st->end[i]);
    st->end[i] = wh_buf_detach(&b);
    const char *d = wh_reduction_diff(r);
    st->diff[i] = d && *d ? strdup(d) : NULL;
}

/* What an exit status of `reduce --from-*` means. */
static const char *s_status_meaning(int code)
{
    switch (code) {
    case 0:
        return "every failing test was reduced";
    case 1:
        return "a failing test was skipped (named above, with why)";
    case 2:
        return "bad input";
    case 3:
        return "a failing test could not be reduced (its original does not fail the same way, "
               "does not build, or its failure could not be identified)";
    case 4:
        return "infrastructure trouble (no slot could judge, a folder could not be written)";
    case WH_EXIT_PARTIAL:
        return "a budget (--budget, --batch-budget) was spent: a reduced test is the walk's best "
               "so far, verified afresh, or a group was skipped";
    case 130:
        return "interrupted";
    default:
        return "see whittle reduce --help";
    }
}

/* The closing summary: a line per failing test (reduced, not reduced,
 * skipped), the diff of each reduced test, what the exit status means. */
static void s_closing(const s_state_t *st, const wh_buf_t *missing, int code)
{
    size_t skipped = 0;
    for (const char *p = missing->buf; p && *p; p++)
        skipped += *p == '\n';
    size_t all = st->n + skipped + (st->mem ? st->mem->n : 0);
    printf("Summary: %zu failing test%s\n", all, all == 1 ? "" : "s");
    for (size_t i = 0; i < st->n; i++)
        printf("  %s (%s): %s\n", st->jobs[i].test, st->jobs[i].file,
               st->end && st->end[i] ? st->end[i] : "not finished");
    for (size_t k = 0; st->mem && k < st->mem->n; k++) {
        const wh_from_member_t *m = &st->mem->v[k];
        const char *dir = st->rdir ? st->rdir[m->rep] : NULL;
        if (st->skip && st->skip[m->rep])
            printf("  %s (%s): grouped with %s, skipped with it: %s\n", m->job->test,
                   m->job->file, st->jobs[m->rep].test, st->skip[m->rep]);
        else if (dir)
            printf("  %s (%s): grouped with %s, whose reduced test answers it: %s/reduced%s\n",
                   m->job->test, m->job->file, st->jobs[m->rep].test, dir,
                   wh_job_ext(m->job));
        else
            printf("  %s (%s): grouped with %s, which was not reduced: reduce it alone with "
                   "--each\n", m->job->test, m->job->file, st->jobs[m->rep].test);
    }
    for (const char *p = missing->buf; p && *p;) {
        const char *e = strchr(p, '\n');
        int len = e ? (int)(e - p) : (int)strlen(p);
        printf("  skipped: %.*s\n", len, p);
        p = e ? e + 1 : p + len;
    }
    for (size_t i = 0; st->diff && i < st->n; i++)
        if (st->diff[i])
            printf("Diff of %s (patch -p1 in the project):\n%s", st->jobs[i].test, st->diff[i]);
    printf("Exit status %d: %s\n", code, s_status_meaning(code));
}

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
    wh_progress_t p;
    wh_reduction_status_now(r, &p);
    wh_progress_format(&p, &b);
    /* While the workspaces are set up, what runs: the configure and the
     * test's target (ctestinfo.h's set-up). */
    if (p.phase && !strncmp(p.phase, "setting up", 10) && st->jobs[i].setup)
        wh_buf_printf(&b, " | %s", st->jobs[i].setup);
    printf("[%zu/%zu] %s: %s\n", i + 1, st->n, st->jobs[i].test, b.buf ? b.buf : "");
    fflush(stdout);
    wh_buf_free(&b);
}

static void s_worse(s_state_t *st, int code)
{
    st->worst = wh_exit_worst(st->worst, code);
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
    s_end_failed(st, i, status, err, NULL);
}

static void s_finished(void *arg, size_t i, wh_reduction_t *r)
{
    s_state_t *st = arg;
    const char *msg = NULL;
    int code = wh_reduction_status(r, &msg);
    if (code && !wh_reduction_answered(r)) {
        fflush(stdout);
        fprintf(stderr, "whittle: error: %s: %s (record: %s)\n", st->jobs[i].test,
                msg ? msg : "reduction failed", wh_reduction_dir(r));
        s_worse(st, code);
        s_end_failed(st, i, code, msg, wh_reduction_dir(r));
        return;
    }
    s_worse(st, code); /* WH_EXIT_PARTIAL, or 0 */
    s_end_reduced(st, i, r);
    printf("[%zu/%zu] %s: reduced test (%s/reduced%s):\n%s", i + 1, st->n, st->jobs[i].test,
           wh_reduction_dir(r), wh_job_ext(&st->jobs[i]),
           wh_reduction_result_text(r) ? wh_reduction_result_text(r) : "");
    if (st->rdir)
        st->rdir[i] = strdup(wh_reduction_dir(r));
    char **nd = realloc(st->dirs, (st->ndirs + 1) * sizeof *nd);
    if (nd && (nd[st->ndirs] = strdup(wh_reduction_dir(r))))
        st->ndirs++;
    if (nd)
        st->dirs = nd;
}

/* The batch budget was spent before job i started (embedded.h). */
static void s_skipped(void *arg, size_t i, const char *why)
{
    s_state_t *st = arg;
    /* why: "batch budget builds=N spent: ..." */
    const char *rest = !strncmp(why, "batch budget ", 13) ? why + 13 : why;
    st->skip[i] = wh_strdup_printf("batch budget spent (%s)", rest);
    if (st->end) {
        free(st->end[i]);
        st->end[i] = wh_strdup_printf("skipped: %s", st->skip[i] ? st->skip[i] : why);
    }
    s_worse(st, WH_EXIT_PARTIAL);
}

static void s_spent(void *arg, const char *why)
{
    s_state_t *st = arg;
    printf("Batch budget: %s; the reductions running stop with their best answers so far, "
           "those not started are skipped\n", why);
    fflush(stdout);
    s_worse(st, WH_EXIT_PARTIAL);
}

/* Group g of the night, led by job i: its priority (the jobs came in
 * that order) and whether an earlier night saw its root cause; unknown
 * (--each, one failure) without the grouping before reducing. */
static void s_night_priority(const s_state_t *st, size_t i, wh_night_group_t *g)
{
    g->priority = 0;
    g->first_seen = NULL;
    if (!st->mem || !st->mem->seen)
        return;
    g->priority = (int)i + 1;
    g->first_seen = st->mem->seen[i];
}

/* night.json and night.html beside the run folders (night.h): the jobs
 * reduced here, the failures their groups' reductions answered, and the
 * skipped ones. */
static void s_night(const s_state_t *st, const wh_buf_t *missing)
{
    size_t nm = st->mem ? st->mem->n : 0, ns = 0;
    for (const char *p = missing->buf; p && *p; p++)
        ns += *p == '\n';
    size_t n = st->n, total = n + nm + ns;
    wh_night_row_t *rows = calloc(total ? total : 1, sizeof *rows);
    wh_night_group_t *groups = calloc(n ? n : 1, sizeof *groups);
    char **keys = calloc(n ? n : 1, sizeof *keys), **lines = calloc(n ? n : 1, sizeof *lines);
    size_t *rep = calloc(n ? n : 1, sizeof *rep), *gid = calloc(n ? n : 1, sizeof *gid);
    char **skip = calloc(ns ? ns : 1, sizeof *skip);
    size_t ng = 0;
    if (rows && groups && keys && lines && rep && gid && skip) {
        int size_unknown[1] = {-1};
        int *size = calloc(n ? n : 1, sizeof *size);
        const char *const *first = st->mem ? st->mem->first_dir : NULL;
        for (size_t i = 0; i < n; i++) {
            const char *d = st->rdir[i] ? st->rdir[i] : st->fdir[i];
            wh_from_fp_key(d ? d : first ? first[i] : NULL, &keys[i], &lines[i]);
            if (size)
                size[i] = -1;
        }
        wh_bg_group(keys, size ? size : size_unknown, n, rep);
        free(size);
        for (size_t i = 0; i < n; i++) {
            const wh_job_t *j = &st->jobs[i];
            if (rep[i] == i) {
                gid[i] = ng;
                groups[ng++] = (wh_night_group_t){lines[i], -1, 0, NULL};
                s_night_priority(st, i, &groups[ng - 1]);
            }
            size_t g = gid[rep[i]];
            const char *dir = st->rdir[i] ? st->rdir[i] : st->fdir[i];
            int partial = 0;
            if (st->rdir[i] && st->end && st->end[i])
                partial = !strncmp(st->end[i], "partial", 7);
            rows[i] = (wh_night_row_t){j->test, j->file, dir,
                                       st->rdir[i] ? (partial ? "partial" : "reduced")
                                       : st->skip[i] ? "skipped" : "failed",
                                       st->rdir[i] ? NULL : st->skip[i] ? st->skip[i] : st->why[i],
                                       (int)g + 1, !st->skip[i] || first, NULL};
            if (groups[g].rep < 0 && (st->rdir[i] || st->skip[i]))
                groups[g].rep = (int)i;
        }
        for (size_t k = 0; k < nm; k++) {
            const wh_from_member_t *m = &st->mem->v[k];
            rows[n + k] = (wh_night_row_t){m->job->test, m->job->file, NULL, "answered", NULL,
                                           (int)gid[rep[m->rep]] + 1, 1, NULL};
            if (st->skip[m->rep]) {
                rows[n + k].state = "skipped";
                rows[n + k].why = st->skip[m->rep];
            } else if (!st->rdir[m->rep]) {
                rows[n + k].why = "its group's test was not reduced: reduce it with --each";
            }
        }
        size_t k = 0;
        for (const char *p = missing->buf; p && *p && k < ns; k++) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            skip[k] = strndup(p, len);
            rows[n + nm + k] =
                (wh_night_row_t){"(not found)", NULL, NULL, "skipped", skip[k], 0, 0, NULL};
            p = e ? e + 1 : p + len;
        }
        char *err = NULL;
        const char *out = n ? st->jobs[0].out : NULL;
        if (out && wh_night_write(out, rows, total, groups, ng, &err) == 0)
            printf("Batch report: %s/night.html (and night.json)\n", out);
        else if (out) {
            fprintf(stderr, "whittle: warning: %s\n", err ? err : "cannot write the batch report");
        }
        free(err);
    }
    for (size_t i = 0; keys && lines && i < n; i++)
        free(keys[i]), free(lines[i]);
    for (size_t k = 0; skip && k < ns; k++)
        free(skip[k]);
    free(rows), free(groups), free(keys), free(lines), free(rep), free(gid), free(skip);
}

int wh_from_embedded(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o,
                     const wh_buf_t *missing, const wh_from_members_t *mem)
{
    s_state_t st = {jobs, n, mem, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL};
    st.rdir = calloc(n, sizeof *st.rdir);
    st.why = calloc(n, sizeof *st.why);
    st.fdir = calloc(n, sizeof *st.fdir);
    st.shown = calloc(n, sizeof *st.shown);
    st.end = calloc(n, sizeof *st.end);
    st.diff = calloc(n, sizeof *st.diff);
    st.skip = calloc(n, sizeof *st.skip);
    for (size_t i = 0; st.shown && i < n; i++)
        st.shown[i] = wh_now_ms();
    /* Per-candidate lines of several jobs would interleave: only with -v. */
    wh_embedded_opts_t eo = {jobs[0].jobs, jobs[0].cache, !jobs[0].verbose, o->interrupted,
                             s_started, s_failed, s_finished, &st, s_tick, o->cache_max,
                             o->keep_work};
    /* Grouped (its priorities) or on a batch budget: the jobs start in
     * their order as slots free up, not all at once. */
    const wh_spend_t *bb = &o->batch_budget;
    int budget = bb->builds || bb->ms;
    wh_embedded_batch_t batch = {mem || budget ? (size_t)jobs[0].jobs : 0, budget ? bb : NULL,
                                 mem ? mem->first_builds : 0, mem ? mem->t0 : 0, s_skipped,
                                 s_spent};
    char *err = st.skip ? NULL : strdup("out of memory");
    int code = st.skip ? wh_embedded_run_batch(jobs, n, &eo, &batch, &err) : 4;
    if (code)
        fprintf(stderr, "whittle: error: %s\n", err ? err : "cannot start the embedded pool");
    free(err);
    if (st.ndirs)
        wh_group_print_dirs((const char *const *)st.dirs, st.ndirs, stdout);
    code = code ? code : st.worst;
    if (!code && missing->len)
        code = 1;
    if (st.rdir && st.why && st.fdir && st.skip)
        s_night(&st, missing);
    s_closing(&st, missing, code);
    for (size_t i = 0; i < st.ndirs; i++)
        free(st.dirs[i]);
    for (size_t i = 0; i < n; i++) {
        free(st.end ? st.end[i] : NULL);
        free(st.diff ? st.diff[i] : NULL);
        free(st.rdir ? st.rdir[i] : NULL);
        free(st.why ? st.why[i] : NULL);
        free(st.fdir ? st.fdir[i] : NULL);
        free(st.skip ? st.skip[i] : NULL);
    }
    free(st.skip);
    free(st.rdir);
    free(st.why);
    free(st.fdir);
    free(st.end);
    free(st.diff);
    free(st.dirs);
    free(st.shown);
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
    /* A line is seen when it is printed, piped or not (| tee). */
    setvbuf(stdout, NULL, _IOLBF, 0);
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
    for (const char *l = missing.buf; l && *l;) {
        const char *e = strchr(l, '\n');
        int len = e ? (int)(e - l) : (int)strlen(l);
        fprintf(stderr, "whittle: error: %.*s\n", len, l);
        l += len + (e != NULL);
    }
    if (nj)
        code = s_refauto(tmpl, jobs, nj, o->cluster_run != NULL);
    if (nj && !code)
        code = o->cluster_run            ? wh_from_cluster(jobs, nj, tmpl, o, &missing)
               : o->each || nj < 2       ? wh_from_embedded(jobs, nj, o, &missing, NULL)
                                         : wh_from_grouped(jobs, nj, o, &missing);
    if (!code && missing.len)
        code = 1;
    for (size_t i = 0; i < nj; i++)
        wh_job_clear(&jobs[i]);
    free(jobs);
    wh_buf_free(&missing);
    wh_failing_free(v, n);
    return code;
}
