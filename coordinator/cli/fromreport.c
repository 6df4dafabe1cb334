/*
 * fromreport — failing tests of a report as jobs; see fromreport.h.
 */
#define _GNU_SOURCE
#include "fromreport.h"

#include "junit_cases.h"
#include "testfind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void wh_failing_free(wh_failing_t *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name), free(v[i].classname), free(v[i].suite);
    free(v);
}

/* Appends a case; 0 or WH_ENOMEM. */
static int s_push(wh_failing_t **v, size_t *n, const char *name, const char *cls,
                  const char *suite)
{
    wh_failing_t *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return WH_ENOMEM;
    *v = nv;
    wh_failing_t *f = &nv[(*n)++];
    f->name = strdup(name), f->classname = strdup(cls), f->suite = strdup(suite);
    return f->name && f->classname && f->suite ? 0 : WH_ENOMEM;
}

int wh_failing_from_junit(const char *report, wh_failing_t **v, size_t *n, char **err)
{
    *v = NULL, *n = 0;
    wh_junit_case_t *c = NULL;
    size_t nc = 0;
    int rc = wh_junit_cases_read(report, &c, &nc, err);
    for (size_t i = 0; !rc && i < nc; i++)
        if (wh_jc_failing(c[i].status))
            rc = s_push(v, n, c[i].name, c[i].classname, c[i].suite);
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
            rc = s_push(v, n, name, "", "");
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

/* tmpl for one test: its own file and test, validated. */
static int s_job_for(const wh_job_t *tmpl, const char *project, const char *file,
                     const char *test, wh_job_t *j, char **err)
{
    if (wh_job_copy(j, tmpl))
        return WH_ENOMEM;
    free(j->project), free(j->file), free(j->test);
    j->project = strdup(project);
    j->file = strdup(file);
    j->test = strdup(test);
    int rc = wh_job_validate(j, err);
    if (!rc)
        wh_job_guess_includes(j);
    else
        wh_job_clear(j);
    return rc;
}

int wh_from_jobs(const wh_job_t *tmpl, const wh_failing_t *v, size_t n, wh_job_t **jobs,
                 size_t *njobs, wh_buf_t *missing, char **err)
{
    *jobs = NULL, *njobs = 0;
    if (!tmpl->file) {
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
    wh_testfind_t *f = project ? wh_testfind_open(tmpl, project, tmpl->file, err) : NULL;
    wh_job_t *out = calloc(n ? n : 1, sizeof *out);
    int rc = f && out ? 0 : *err ? WH_ENOTFOUND : WH_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *file = NULL, *test = NULL;
        const char *prog = wh_testfind_program(f, v[i].name);
        if (wh_testfind_case(f, v[i].name, v[i].classname, v[i].suite, &file, &test)) {
            wh_buf_printf(missing, "%s\t%s\n", v[i].name, prog ? prog : "");
            continue;
        }
        if (prog && strcmp(prog, file))
            fprintf(stderr, "whittle: warning: failing test '%s' is named like the test program %s; "
                            "reducing the function %s of %s\n", v[i].name, prog, test, file);
        if (!s_seen(out, k, file, test) && !(rc = s_job_for(tmpl, project, file, test, &out[k], err)))
            k++;
    }
    wh_testfind_close(&f);
    free(project);
    if (rc) {
        for (size_t i = 0; i < k; i++)
            wh_job_clear(&out[i]);
        free(out);
        if (!*err)
            *err = strdup("out of memory");
        return rc;
    }
    *jobs = out, *njobs = k;
    return 0;
}
