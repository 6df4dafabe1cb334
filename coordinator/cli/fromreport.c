/*
 * fromreport — failing tests of a report as jobs; see fromreport.h.
 */
#define _GNU_SOURCE
#include "fromreport.h"

#include "fw_failing.h"
#include "junit_cases.h"
#include "testfind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void wh_failing_free(wh_failing_t *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name), free(v[i].classname), free(v[i].suite), free(v[i].output);
    free(v);
}

/* Appends a case; 0 or WH_ENOMEM. */
static int s_push(wh_failing_t **v, size_t *n, const char *name, const char *cls,
                  const char *suite, const char *output)
{
    wh_failing_t *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return WH_ENOMEM;
    *v = nv;
    wh_failing_t *f = &nv[(*n)++];
    f->name = strdup(name), f->classname = strdup(cls), f->suite = strdup(suite);
    f->output = output && *output ? strdup(output) : NULL;
    return f->name && f->classname && f->suite && (f->output || !output || !*output) ? 0
                                                                                    : WH_ENOMEM;
}

int wh_failing_from_junit(const char *report, wh_failing_t **v, size_t *n, char **err)
{
    *v = NULL, *n = 0;
    wh_junit_case_t *c = NULL;
    size_t nc = 0;
    int rc = wh_junit_cases_read(report, &c, &nc, err);
    for (size_t i = 0; !rc && i < nc; i++)
        if (wh_jc_failing(c[i].status))
            rc = s_push(v, n, c[i].name, c[i].classname, c[i].suite, c[i].output);
    wh_junit_cases_free(c, nc);
    if (rc == WH_ENOMEM && !*err)
        *err = strdup("out of memory");
    return rc;
}

/* 1 when a is older than b (modification times). */
static int s_older(const struct stat *a, const struct stat *b)
{
    if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
        return a->st_mtim.tv_sec < b->st_mtim.tv_sec;
    return a->st_mtim.tv_nsec < b->st_mtim.tv_nsec;
}

/* "N:name" lines into v. */
static int s_ctest_lines(char *text, wh_failing_t **v, size_t *n)
{
    int rc = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !rc;
         l = strtok_r(NULL, "\n", &save)) {
        l[strcspn(l, "\r")] = '\0';
        char *colon = strchr(l, ':');
        const char *name = colon ? colon + 1 : l;
        if (*name)
            rc = s_push(v, n, name, "", "", NULL);
    }
    return rc;
}

int wh_failing_from_ctest(const char *build_dir, wh_failing_t **v, size_t *n, char **err)
{
    *v = NULL, *n = 0;
    char *tmp = wh_path_join(build_dir, "Testing/Temporary");
    char *failed = wh_path_join(tmp, "LastTestsFailed.log"), *last = wh_path_join(tmp, "LastTest.log");
    struct stat sf, sl;
    int rc = 0;
    char *text = NULL;
    size_t len = 0;
    if (stat(last, &sl) != 0) {
        *err = wh_strdup_printf("no ctest run in '%s': %s is missing", build_dir, last);
        rc = WH_ENOTFOUND;
    } else if (stat(failed, &sf) != 0) {
        *err = wh_strdup_printf("the last ctest run in '%s' failed no test (%s is missing)",
                                build_dir, failed);
        rc = WH_ENOTFOUND;
    } else if (s_older(&sf, &sl)) {
        *err = wh_strdup_printf("%s is older than LastTest.log: it lists the failures of an "
                                "earlier ctest run (the last run failed no test?); not trusted",
                                failed);
        rc = WH_EINVAL;
    } else if ((rc = wh_read_file(failed, 1u << 20, &text, &len)) != 0) {
        *err = wh_strdup_printf("cannot read %s: %s", failed, wh_strerror(rc));
    } else if ((rc = s_ctest_lines(text, v, n)) != 0) {
        *err = strdup("out of memory");
    }
    free(text), free(tmp), free(failed), free(last);
    if (rc) {
        wh_failing_free(*v, *n);
        *v = NULL, *n = 0;
    }
    return rc;
}

/* 1 when jobs[0, n) has file + test already. */
static int s_seen(const wh_job_t *jobs, size_t n, const char *file, const char *test)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(jobs[i].file, file) && !strcmp(jobs[i].test, test))
            return 1;
    return 0;
}

/* The commands of one job. */
typedef struct {
    char *setup, *build, *run;
    const char *framework; /* NULL: the template's, or from the includes */
    /* The run is the CTest test's own command: how CTest judges it. */
    int whole_test, will_fail;
    char *pass_rx, *fail_rx;
} s_cmds_t;

static void s_cmds_clear(s_cmds_t *c)
{
    free(c->setup), free(c->build), free(c->run);
    free(c->pass_rx), free(c->fail_rx);
    memset(c, 0, sizeof *c);
}

/* The commands the template lacks, from the build: own (a function split
 * out of a program) runs the program's command, else ctest runs the test
 * (with the ctest preset, unless --framework or --run was given). */
static int s_cmds(const wh_job_t *tmpl, const wh_ctest_t *ct, const char *project,
                  const char *ctest_name, int own, s_cmds_t *c, char **err)
{
    memset(c, 0, sizeof *c);
    if (!ct || (tmpl->setup && tmpl->build && tmpl->run))
        return 0;
    int rc = wh_ctest_commands(ct, project, ctest_name, own, &c->setup, &c->build, &c->run, err);
    if (!rc && !own && !tmpl->run && !tmpl->framework)
        c->framework = "ctest";
    /* The program's own command, as CTest runs it: on the reference the
     * whole CTest test must pass (exit status, leaks, regexes). */
    if (!rc && own && !tmpl->run) {
        c->whole_test = 1;
        rc = wh_ctest_judge(ct, ctest_name, &c->will_fail, &c->pass_rx, &c->fail_rx);
        if (rc == WH_ENOMEM)
            *err = strdup("out of memory");
    }
    return rc;
}

/* tmpl for one test: its own file and test, the commands it lacks from c,
 * validated. */
static int s_job_for(const wh_job_t *tmpl, const char *project, const char *file,
                     const char *test, const s_cmds_t *c, wh_job_t *j, char **err)
{
    if (wh_job_copy(j, tmpl))
        return WH_ENOMEM;
    free(j->project), free(j->file), free(j->test);
    j->project = strdup(project);
    j->file = strdup(file);
    j->test = strdup(test);
    char **fields[] = {&j->setup, &j->build, &j->run};
    char *const from[] = {c->setup, c->build, c->run};
    for (size_t k = 0; k < 3; k++)
        if (!*fields[k] && from[k])
            *fields[k] = strdup(from[k]);
    if (!j->framework && c->framework)
        j->framework = strdup(c->framework);
    if (c->whole_test) {
        j->whole_test = 1;
        j->will_fail = c->will_fail;
        j->ctest_pass_regex = wh_strdup0(c->pass_rx);
        j->ctest_fail_regex = wh_strdup0(c->fail_rx);
    }
    int rc = wh_job_validate(j, err);
    if (!rc)
        wh_job_guess_includes(j);
    else
        wh_job_clear(j);
    return rc;
}

/* What the cases are turned into: the jobs so far and what was missed. */
typedef struct {
    const wh_job_t *tmpl;
    const char *project;
    const wh_ctest_t *ct;
    wh_job_t *out;
    size_t k, cap;
    wh_buf_t *missing;
} s_from_t;

/* Adds the job of file + test (once). */
static int s_add_job(s_from_t *st, const char *file, const char *test, const char *ctest_name,
                     int own, char **err)
{
    if (s_seen(st->out, st->k, file, test))
        return 0;
    if (st->k == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 8;
        wh_job_t *grown = realloc(st->out, cap * sizeof *grown);
        if (!grown)
            return WH_ENOMEM;
        st->out = grown, st->cap = cap;
    }
    s_cmds_t c;
    int rc = s_cmds(st->tmpl, st->ct, st->project, ctest_name, own, &c, err);
    if (!rc && !(rc = s_job_for(st->tmpl, st->project, file, test, &c, &st->out[st->k], err)))
        st->k++;
    s_cmds_clear(&c);
    return rc;
}

/* A case that is no function of the files: the failing functions its
 * output names, each its own job; 1 when it was split (even when some
 * functions were not found: they are named in missing), 0 when the output
 * names none. */
static int s_split(s_from_t *st, wh_testfind_t *f, const wh_failing_t *c, const char *prog,
                   int *rc, char **err)
{
    const char *fw = st->tmpl->framework;
    wh_fw_failing_t *fv = NULL;
    size_t fn = 0;
    const char *grammar = NULL;
    if ((fw && !strcmp(fw, "ctest")) || !c->output ||
        wh_fw_failing_parse(c->output, strlen(c->output), &fv, &fn, &grammar) || fn == 0)
        return 0;
    printf("failing test '%s' is the whole test program%s%s; its output (%s) names %zu failing "
           "function%s:", c->name, prog ? " " : "", prog ? prog : "", grammar, fn,
           fn == 1 ? "" : "s");
    for (size_t i = 0; i < fn; i++)
        printf("%s %s%s", i ? "," : "", fv[i].name,
               fv[i].died ? " (the program died while it ran)" : "");
    printf("\n");
    for (size_t i = 0; i < fn && !*rc; i++) {
        const char *file = NULL, *test = NULL;
        if (wh_testfind_case(f, fv[i].name, "", "", &file, &test))
            wh_buf_printf(st->missing, "failing function '%s' of test '%s' is defined in no file "
                                       "%s%s%s%s; skipped\n", fv[i].name, c->name,
                          st->tmpl->file ? st->tmpl->file : "of the test's program",
                          wh_testfind_hidden(f) ? " (" : "",
                          wh_testfind_hidden(f) ? wh_testfind_hidden(f) : "",
                          wh_testfind_hidden(f) ? ")" : "");
        else
            *rc = s_add_job(st, file, test, c->name, 1, err);
    }
    wh_fw_failing_free(fv, fn);
    return 1;
}

/* One failing case: a function of the files, or a program split. */
static int s_case(s_from_t *st, wh_testfind_t *f, const wh_failing_t *c, char **err)
{
    const char *file = NULL, *test = NULL;
    const char *prog = wh_testfind_program(f, c->name);
    const char *where = st->tmpl->file;
    if (!wh_testfind_case(f, c->name, c->classname, c->suite, &file, &test)) {
        if (prog && strcmp(prog, file))
            fprintf(stderr, "whittle: warning: failing test '%s' is named like the test program %s; "
                            "reducing the function %s of %s\n", c->name, prog, test, file);
        return s_add_job(st, file, test, c->name, 0, err);
    }
    int rc = 0;
    if (s_split(st, f, c, prog, &rc, err))
        return rc;
    if (prog)
        wh_buf_printf(st->missing, "failing test '%s' is the whole test program %s, not a "
                                   "function of it: reduce its failing function with --file %s "
                                   "--test NAME (the program's output names it); skipped\n",
                      c->name, prog, prog);
    else if (where && wh_testfind_hidden(f))
        wh_buf_printf(st->missing, "failing test '%s' is defined in no file matching '%s' (%s); "
                                   "skipped\n", c->name, where, wh_testfind_hidden(f));
    else if (where)
        wh_buf_printf(st->missing, "failing test '%s' is defined in no file matching '%s'; "
                                   "skipped\n", c->name, where);
    else if (wh_testfind_hidden(f))
        wh_buf_printf(st->missing, "failing test '%s' is defined in no source file of its test "
                                   "program (%s); skipped\n", c->name, wh_testfind_hidden(f));
    else
        wh_buf_printf(st->missing, "failing test '%s' is defined in no source file of its test "
                                   "program, and its output names no failing function; give "
                                   "--file; skipped\n", c->name);
    return 0;
}

/* The files of ctest test c, listed (NULL and a line in missing when none
 * is known or they cannot be parsed): those that spell its name or a
 * failing function its output names, found by a text search first. */
static wh_testfind_t *s_ctest_files(s_from_t *st, const wh_failing_t *c)
{
    const char *name = c->name;
    if (wh_ctest_not_run(st->ct, name)) {
        wh_buf_printf(st->missing, "failing test '%s' did not run: ctest found no executable "
                                   "for it (its target does not build: build it, then run "
                                   "ctest again); skipped\n", name);
        return NULL;
    }
    char **files = NULL, *err = NULL;
    size_t nf = 0;
    wh_ctest_sources(st->ct, st->project, name, &files, &nf);
    wh_fw_failing_t *fv = NULL;
    size_t fn = 0;
    if (c->output && wh_fw_failing_parse(c->output, strlen(c->output), &fv, &fn, NULL))
        fn = 0;
    const char **names = calloc(fn + 1, sizeof *names);
    size_t nn = 0;
    if (names) {
        names[nn++] = name;
        for (size_t i = 0; i < fn; i++)
            names[nn++] = fv[i].name;
    }
    wh_testfind_t *f = nf ? wh_testfind_open_list(st->tmpl, st->project,
                                                  (const char *const *)files, nf, names, nn,
                                                  &err)
                          : NULL;
    free(names);
    wh_fw_failing_free(fv, fn);
    if (!nf)
        wh_buf_printf(st->missing, "failing test '%s': the build names no source file of its "
                                   "program; give --file; skipped\n", name);
    else if (!f)
        wh_buf_printf(st->missing, "failing test '%s': %s; skipped\n", name,
                      err ? err : "cannot list its sources");
    for (size_t i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    free(err);
    return f;
}

int wh_from_jobs(const wh_job_t *tmpl, const wh_failing_t *v, size_t n, const wh_ctest_t *ct,
                 wh_job_t **jobs, size_t *njobs, wh_buf_t *missing, char **err)
{
    *jobs = NULL, *njobs = 0;
    if (!tmpl->file && !ct) {
        *err = strdup("missing --file (the test file, or a glob of test files, that defines "
                      "the report's tests)");
        return WH_EINVAL;
    }
    if (!tmpl->project || !wh_is_dir(tmpl->project)) {
        *err = tmpl->project ? wh_strdup_printf("project '%s' is not a folder", tmpl->project)
                             : strdup("missing --project");
        return WH_EINVAL;
    }
    char *project = wh_abspath(tmpl->project);
    s_from_t st = {tmpl, project, ct, NULL, 0, 0, missing};
    wh_testfind_t *shared = project && tmpl->file ? wh_testfind_open(tmpl, project, tmpl->file, err)
                                                  : NULL;
    int rc = project && (shared || !tmpl->file) ? 0 : *err ? WH_ENOTFOUND : WH_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        wh_testfind_t *own = shared ? NULL : s_ctest_files(&st, &v[i]);
        if (shared || own)
            rc = s_case(&st, shared ? shared : own, &v[i], err);
        wh_testfind_close(&own);
    }
    wh_testfind_close(&shared);
    free(project);
    if (rc) {
        for (size_t i = 0; i < st.k; i++)
            wh_job_clear(&st.out[i]);
        free(st.out);
        if (!*err)
            *err = strdup("out of memory");
        return rc;
    }
    *jobs = st.out, *njobs = st.k;
    return 0;
}
