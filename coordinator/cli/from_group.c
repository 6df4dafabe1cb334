/*
 * from_group — a batch grouped before it is reduced (from_cmd.h,
 * wh_from_grouped; issue 35). Every failing test's original runs once
 * (a fingerprint-only job: its own failure, checked, nothing reduced);
 * the failures are grouped by root cause (batchgroup.h); one reduction
 * per group, its smallest test first, and the other members get its
 * answer. A test whose first run failed (it passes alone, does not build)
 * is reduced on its own, where that failure is said as for any job.
 */
#include "from_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batchgroup.h"
#include "embedded.h"
#include "reduce.h"

typedef struct {
    size_t n;
    char **dir; /* per job: its first run's folder, when it took a fingerprint */
} s_first_t;

static void s_first_started(void *arg, size_t i, wh_reduction_t *r)
{
    (void)arg, (void)i, (void)r;
}

static void s_first_failed(void *arg, size_t i, int status, const char *err)
{
    (void)arg, (void)i, (void)status, (void)err; /* reduced alone: said there */
}

static void s_first_finished(void *arg, size_t i, wh_reduction_t *r)
{
    s_first_t *f = arg;
    if (wh_reduction_status(r, NULL) == 0 && wh_reduction_dir(r))
        f->dir[i] = strdup(wh_reduction_dir(r));
}

int wh_from_fp_key(const char *dir, char **key, char **line)
{
    *key = *line = NULL;
    char *p = dir ? wh_path_join(dir, "summary.json") : NULL;
    json_t *o = p ? json_load_file(p, 0, NULL) : NULL;
    free(p);
    json_t *fp = json_object_get(o, "fingerprint");
    if (json_is_object(fp)) {
        wh_fp_t f = {0};
        f.test = (char *)json_string_value(json_object_get(fp, "test"));
        f.kind = (char *)json_string_value(json_object_get(fp, "kind"));
        f.message = (char *)json_string_value(json_object_get(fp, "message"));
        f.location = (char *)json_string_value(json_object_get(fp, "location"));
        *key = wh_bg_key(&f, json_string_value(json_object_get(o, "file")));
        *line = wh_strdup_printf("%s | %s | %s", f.kind ? f.kind : "",
                                 f.location ? f.location : "", f.message ? f.message : "");
    }
    json_t *sb = json_object_get(o, "statements_before");
    int size = json_is_integer(sb) ? (int)json_integer_value(sb) : -1;
    json_decref(o);
    return size;
}

/* The first runs: every job, fingerprint only, under OUT/.first-runs (hidden: not a reduction). */
static int s_first_runs(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o, s_first_t *f)
{
    wh_job_t *fj = calloc(n, sizeof *fj);
    int rc = fj ? 0 : WH_ENOMEM;
    size_t made = 0;
    for (size_t i = 0; i < n && !rc; i++, made++) {
        if ((rc = wh_job_copy(&fj[i], &jobs[i])))
            break;
        fj[i].fingerprint_only = 1;
        char *out = wh_path_join(jobs[i].out ? jobs[i].out : "whittle-runs", ".first-runs");
        free(fj[i].out);
        fj[i].out = out;
        rc = out ? 0 : WH_ENOMEM;
    }
    if (rc) {
        for (size_t i = 0; i < made; i++)
            wh_job_clear(&fj[i]);
        free(fj);
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(rc));
        return 4;
    }
    printf("Grouping first: the original of each of the %zu failing tests runs once for its "
           "fingerprint (nothing reduced; --each reduces every one)\n", n);
    fflush(stdout);
    wh_embedded_opts_t eo = {jobs[0].jobs, jobs[0].cache, 1, o->interrupted, s_first_started,
                             s_first_failed, s_first_finished, f, NULL, o->cache_max,
                             o->keep_work};
    char *err = NULL;
    int code = wh_embedded_run(fj, n, &eo, &err);
    if (code)
        fprintf(stderr, "whittle: error: %s\n", err ? err : "cannot start the embedded pool");
    free(err);
    for (size_t i = 0; i < n; i++)
        wh_job_clear(&fj[i]);
    free(fj);
    return code;
}

int wh_from_grouped(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o,
                    const wh_buf_t *missing)
{
    s_first_t f = {n, calloc(n, sizeof(char *))};
    char **keys = calloc(n, sizeof *keys), **lines = calloc(n, sizeof *lines);
    int *size = calloc(n, sizeof *size);
    size_t *rep = calloc(n, sizeof *rep), *slot = calloc(n, sizeof *slot);
    wh_job_t *red = calloc(n, sizeof *red);
    wh_from_member_t *mem = calloc(n, sizeof *mem);
    int code = f.dir && keys && lines && size && rep && slot && red && mem ? 0 : 4;
    if (code)
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
    if (!code)
        code = s_first_runs(jobs, n, o, &f);
    if (!code && o->interrupted && *o->interrupted)
        code = 130;
    size_t nred = 0, nmem = 0;
    if (!code) {
        for (size_t i = 0; i < n; i++) {
            size[i] = -1;
            if (f.dir[i])
                size[i] = wh_from_fp_key(f.dir[i], &keys[i], &lines[i]);
        }
        /* a failure whose first run gave no fingerprint stays alone */
        size_t groups = wh_bg_group(keys, size, n, rep);
        for (size_t i = 0; i < n; i++)
            if (rep[i] == i || !f.dir[i]) {
                slot[i] = nred;
                red[nred++] = jobs[i]; /* a shallow copy, read only */
            }
        printf("Groups before reducing: %zu failing tests, %zu group%s, %zu reduction%s\n", n,
               groups, groups == 1 ? "" : "s", nred, nred == 1 ? "" : "s");
        size_t g = 0;
        for (size_t i = 0; i < n; i++) {
            if (rep[i] != i)
                continue;
            printf("group %zu: %s\n", ++g, lines[i] ? lines[i] : "(no fingerprint: alone)");
            for (size_t j = 0; j < n; j++)
                if (rep[j] == i)
                    printf("  %s%s\n", jobs[j].test, j == i ? " (reduced: the smallest test)" : "");
        }
        for (size_t i = 0; i < n; i++)
            if (rep[i] != i && f.dir[i])
                mem[nmem++] = (wh_from_member_t){&jobs[i], slot[rep[i]]};
        fflush(stdout);
        wh_from_members_t ms = {mem, nmem};
        code = wh_from_embedded(red, nred, o, missing, &ms);
    }
    for (size_t i = 0; i < n; i++) {
        free(f.dir ? f.dir[i] : NULL);
        free(keys ? keys[i] : NULL);
        free(lines ? lines[i] : NULL);
    }
    free(f.dir), free(keys), free(lines), free(size), free(rep), free(slot), free(red), free(mem);
    return code;
}
