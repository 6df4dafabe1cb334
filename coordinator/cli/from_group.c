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
#include "night.h"
#include "priority.h"
#include "reduce.h"

typedef struct {
    size_t n;
    char **dir; /* per job: its first run's folder, when it took a fingerprint */
    int builds; /* the first runs' builds (the batch budget counts them) */
} s_first_t;

/* A first run builds and runs its original once: one build of the batch
 * (counted when it starts, whatever it finds). */
static void s_first_started(void *arg, size_t i, wh_reduction_t *r)
{
    s_first_t *f = arg;
    (void)i, (void)r;
    f->builds++;
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

int wh_from_run_key(const char *run, char **key, char **line)
{
    *key = *line = NULL;
    json_t *o = run ? json_loads(run, 0, NULL) : NULL;
    json_t *sum = json_object_get(o, "summary");
    json_t *fp = json_object_get(sum, "fingerprint");
    if (json_is_object(fp)) {
        wh_fp_t f = {0};
        f.test = (char *)json_string_value(json_object_get(fp, "test"));
        f.kind = (char *)json_string_value(json_object_get(fp, "kind"));
        f.message = (char *)json_string_value(json_object_get(fp, "message"));
        f.location = (char *)json_string_value(json_object_get(fp, "location"));
        *key = wh_bg_key(&f, json_string_value(json_object_get(sum, "file")));
        *line = wh_strdup_printf("%s | %s | %s", f.kind ? f.kind : "",
                                 f.location ? f.location : "", f.message ? f.message : "");
    }
    json_t *sb = json_object_get(sum, "statements_before");
    int size = json_is_integer(sb) ? (int)json_integer_value(sb) : -1;
    json_decref(o);
    return size;
}

int wh_from_fp_key(const char *dir, char **key, char **line)
{
    char *run = dir ? wh_night_run_json(dir) : NULL;
    int size = wh_from_run_key(run, key, line);
    free(run);
    return size;
}

int wh_from_plan_make(wh_from_plan_t *p, const wh_job_t *jobs, char *const *runs, size_t n)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    char **keys = p->key = calloc(n, sizeof *keys);
    int *size = p->size = calloc(n, sizeof *size);
    p->line = calloc(n, sizeof *p->line);
    p->rep = calloc(n, sizeof *p->rep);
    p->red = calloc(n, sizeof *p->red);
    p->slot = calloc(n, sizeof *p->slot);
    p->has_fp = calloc(n, sizeof *p->has_fp);
    if (!keys || !size || !p->line || !p->rep || !p->red || !p->slot || !p->has_fp) {
        wh_from_plan_free(p);
        return WH_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        size[i] = -1;
        p->slot[i] = (size_t)-1; /* not reduced: answered */
        p->has_fp[i] = runs[i] != NULL;
        if (runs[i])
            size[i] = wh_from_run_key(runs[i], &keys[i], &p->line[i]);
    }
    /* a failure whose first run gave no fingerprint stays alone */
    p->groups = wh_bg_group(keys, size, n, p->rep);
    for (size_t i = 0; i < n; i++)
        if (p->rep[i] == i || !p->has_fp[i]) {
            p->slot[i] = p->nred;
            p->red[p->nred++] = i;
        }
    printf("Groups before reducing: %zu failing tests, %zu group%s, %zu reduction%s\n", n,
           p->groups, p->groups == 1 ? "" : "s", p->nred, p->nred == 1 ? "" : "s");
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (p->rep[i] != i)
            continue;
        printf("group %zu: %s\n", ++g, p->line[i] ? p->line[i] : "(no fingerprint: alone)");
        for (size_t j = 0; j < n; j++)
            if (p->rep[j] == i)
                printf("  %s%s\n", jobs[j].test, j == i ? " (reduced: the smallest test)" : "");
    }
    fflush(stdout);
    return 0;
}

void wh_from_plan_free(wh_from_plan_t *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->line ? p->line[i] : NULL);
        free(p->key ? p->key[i] : NULL);
    }
    free(p->line), free(p->rep), free(p->red), free(p->slot), free(p->has_fp);
    free(p->key), free(p->size);
    memset(p, 0, sizeof *p);
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

int wh_from_plan_order(wh_from_plan_t *p, const wh_job_t *jobs, const char *out,
                       const char **seen, wh_seen_t *hist)
{
    size_t n = p->n, nred = p->nred;
    char *warn = NULL, now[32];
    if (out && wh_seen_load(out, hist, &warn) != 0) { /* no out: no history */
        fflush(stdout);
        fprintf(stderr, "whittle: warning: %s\n", warn ? warn : "cannot read the history");
    }
    free(warn);
    wh_prio_item_t *it = calloc(nred ? nred : 1, sizeof *it);
    size_t *order = calloc(nred ? nred : 1, sizeof *order);
    size_t *ored = calloc(nred ? nred : 1, sizeof *ored);
    if (!it || !order || !ored) {
        free(it), free(order), free(ored);
        return WH_ENOMEM;
    }
    for (size_t k = 0; k < nred; k++) {
        size_t i = p->red[k];
        it[k].members = 0;
        for (size_t j = 0; j < n; j++)
            it[k].members += p->rep[j] == i;
        it[k].members = it[k].members ? it[k].members : 1;
        it[k].first_seen = wh_seen_get(hist, p->key[i]);
        it[k].size = p->size[i];
    }
    wh_prio_order(it, nred, order);
    wh_buf_t b = WH_BUF_INIT;
    wh_buf_puts(&b, "Reducing in this order:");
    for (size_t k = 0; k < nred; k++) {
        const wh_prio_item_t *x = &it[order[k]];
        ored[k] = p->red[order[k]];
        if (seen)
            seen[k] = x->first_seen;
        wh_buf_printf(&b, "%s %zu. %s (%zu failure%s, %s%s)", k ? "," : "", k + 1,
                      jobs[ored[k]].test, x->members, x->members == 1 ? "" : "s",
                      x->first_seen ? "first seen " : "new", x->first_seen ? x->first_seen : "");
    }
    printf("%s\n", b.buf ? b.buf : "Reducing in this order:");
    fflush(stdout);
    wh_buf_free(&b);
    for (size_t k = 0; k < nred; k++) {
        p->red[k] = ored[k];
        p->slot[ored[k]] = k;
    }
    /* this night's root causes, for the next nights (seen[] points into
     * hist: the dates are copied first) */
    wh_seen_t add = {0};
    wh_seen_now(now);
    for (size_t i = 0; i < n; i++)
        if (p->key[i] && wh_seen_add(&add, p->key[i], now))
            break;
    if (out && (wh_mkdir_p(out) != 0 || wh_seen_save(out, &add) != 0)) {
        fflush(stdout);
        fprintf(stderr, "whittle: warning: cannot write %s/%s: the next night sees every "
                        "failure as new\n", out, WH_SEEN_FILE);
    }
    wh_seen_clear(&add);
    free(it), free(order), free(ored);
    return 0;
}

int wh_from_grouped(const wh_job_t *jobs, size_t n, const wh_from_opts_t *o,
                    const wh_buf_t *missing)
{
    uint64_t t0 = wh_now_ms();
    wh_seen_t hist = {0};
    const char **seen = calloc(n, sizeof *seen), **fdir = calloc(n, sizeof *fdir);
    s_first_t f = {n, calloc(n, sizeof(char *)), 0};
    char **runs = calloc(n, sizeof *runs);
    wh_job_t *red = calloc(n, sizeof *red);
    wh_from_member_t *mem = calloc(n, sizeof *mem);
    int code = f.dir && runs && red && mem && seen && fdir ? 0 : 4;
    if (code)
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
    if (!code)
        code = s_first_runs(jobs, n, o, &f);
    if (!code && o->interrupted && *o->interrupted)
        code = 130;
    wh_from_plan_t p = {0};
    for (size_t i = 0; !code && i < n; i++)
        runs[i] = f.dir[i] ? wh_night_run_json(f.dir[i]) : NULL;
    if (!code && wh_from_plan_make(&p, jobs, runs, n)) {
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
        code = 4;
    }
    if (!code) {
        size_t nmem = 0;
        if (wh_from_plan_order(&p, jobs, jobs[0].out ? jobs[0].out : "whittle-runs", seen,
                               &hist) != 0) {
            fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
            code = 4;
        }
        for (size_t k = 0; k < p.nred; k++) { /* in priority order */
            red[k] = jobs[p.red[k]]; /* a shallow copy, read only */
            fdir[k] = f.dir[p.red[k]];
        }
        for (size_t i = 0; i < n; i++)
            if (p.rep[i] != i && p.has_fp[i])
                mem[nmem++] = (wh_from_member_t){&jobs[i], p.slot[p.rep[i]]};
        wh_from_members_t ms = {mem, nmem, seen, fdir, f.builds, t0};
        if (!code)
            code = wh_from_embedded(red, p.nred, o, missing, &ms);
    }
    wh_from_plan_free(&p);
    for (size_t i = 0; i < n; i++) {
        free(f.dir ? f.dir[i] : NULL);
        free(runs ? runs[i] : NULL);
    }
    free(f.dir), free(runs), free(red), free(mem);
    free(seen), free(fdir);
    wh_seen_clear(&hist);
    return code;
}
