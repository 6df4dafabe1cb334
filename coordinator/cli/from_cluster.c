/*
 * from_cluster — a batch of failing tests (`reduce --from-ctest` /
 * `--from-junit`) through a cluster (from_cmd.h, wh_from_cluster; issue
 * 35), grouped before it is reduced as on the embedded pool: every
 * failure's original runs once as a fingerprint-only job, the failures
 * are grouped by the same plan (from_group.c, wh_from_plan_make), one
 * reduction per group (its smallest test) is submitted, the others are
 * answered by it; --each submits every failure. The client may be on
 * another machine than the coordinator: what the grouping and the night's
 * report need comes in each job's final message (night.h's run summary,
 * checked on receipt), never from the coordinator's run folders. The
 * report goes to the client's own --out (default as for a run here).
 */
#define _GNU_SOURCE
#include "from_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batchgroup.h"
#include "night.h"
#include "reduce.h"

/* Submits jobs[idx[k]] for k < m (fingerprint only for a batch's first
 * runs, under OUT/.first-runs on the coordinator) and waits; res[k] gets
 * each one's end. Returns the worst exit status. */
static int s_submit(const wh_job_t *jobs, const size_t *idx, size_t m, const char *out,
                    const wh_from_opts_t *o, int mode, wh_from_result_t *res)
{
    char **js = calloc(m ? m : 1, sizeof *js);
    int code = js ? 0 : 4;
    for (size_t k = 0; !code && k < m; k++) {
        wh_job_t sent = jobs[idx[k]]; /* a shallow copy, read only */
        const char *base = o->own_out ? sent.out : out;
        char *first = mode == WH_FROM_FIRST && base ? wh_path_join(base, ".first-runs") : NULL;
        sent.out = (char *)(mode != WH_FROM_FIRST ? base : first ? first : ".first-runs");
        sent.fingerprint_only = mode == WH_FROM_FIRST;
        if (!(js[k] = wh_job_to_json(&sent)))
            code = 4;
        else if (mode != WH_FROM_FIRST)
            printf("[%zu/%zu] %s (%s): job %zu\n", k + 1, m, sent.test, sent.file, k);
        free(first);
    }
    if (code)
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
    else
        code = o->cluster_run(o->cluster_arg, js, (int)m, res, mode);
    for (size_t k = 0; js && k < m; k++)
        free(js[k]);
    free(js);
    return code;
}

static void s_results_free(wh_from_result_t *res, size_t m)
{
    for (size_t k = 0; res && k < m; k++)
        free(res[k].run), free(res[k].skip);
    free(res);
}

/* A whole number of a run summary's summary.json, or 0. */
static int s_run_spent(const char *run)
{
    json_t *o = run ? json_loads(run, 0, NULL) : NULL;
    json_t *v = json_object_get(json_object_get(o, "summary"), "evaluated");
    int n = json_is_integer(v) && json_integer_value(v) > 0 ? (int)json_integer_value(v) : 0;
    json_decref(o);
    return n;
}

/* --batch-budget through a cluster. The coordinator knows no batch, so
 * this client keeps its account: the plan's reductions go one at a time,
 * in priority order, each with what is left of the batch as its own
 * --budget (the smaller of the two), and what each spent (its walk's
 * builds, from its run summary) is taken off; once the batch is spent,
 * the rest are not submitted (res[k].skip says why). Each job's walk
 * still spreads over every slot; the batch's jobs no longer run side by
 * side. spent: the first runs' builds (one each). Returns the worst
 * status, WH_EXIT_PARTIAL at least when one was skipped. */
static int s_submit_budgeted(const wh_job_t *jobs, const wh_from_plan_t *p, const char *out,
                             const wh_from_opts_t *o, int spent, uint64_t t0,
                             wh_from_result_t *res)
{
    const wh_spend_t *bb = &o->batch_budget;
    int worst = 0;
    for (size_t k = 0; k < p->nred && !(o->interrupted && *o->interrupted); k++) {
        char why[200];
        uint64_t el = wh_now_ms() - t0;
        if (wh_spend_batch_over(bb, spent, el, why, sizeof why)) {
            const char *rest = !strncmp(why, "batch budget ", 13) ? why + 13 : why;
            res[k].skip = wh_strdup_printf("batch budget spent (%s)", rest);
            res[k].code = WH_EXIT_PARTIAL;
            printf("[%zu/%zu] %s (%s): skipped: %s\n", k + 1, p->nred, jobs[p->red[k]].test,
                   jobs[p->red[k]].file, res[k].skip);
            worst = wh_exit_worst(worst, WH_EXIT_PARTIAL);
            continue;
        }
        wh_job_t j = jobs[p->red[k]]; /* a shallow copy, read only */
        if (bb->builds && (!j.budget.builds || bb->builds - spent < j.budget.builds))
            j.budget.builds = bb->builds - spent;
        if (bb->ms && (!j.budget.ms || bb->ms - el < j.budget.ms))
            j.budget.ms = bb->ms - el;
        printf("[%zu/%zu] %s: on what is left of the batch budget\n", k + 1, p->nred, j.test);
        size_t one = 0;
        int code = s_submit(&j, &one, 1, out, o, WH_FROM_GROUPED, &res[k]);
        worst = wh_exit_worst(worst, code);
        spent += s_run_spent(res[k].run);
    }
    fflush(stdout);
    return worst;
}

/* The folder the client writes the night's report to: --out as typed,
 * else the default of a run on this machine; never inside the project
 * (NULL then, with the reason said). Malloc'ed. */
static char *s_local_out(const wh_job_t *tmpl)
{
    wh_job_t j = {0};
    j.project = tmpl->project;
    j.out = tmpl->out ? strdup(tmpl->out) : NULL;
    char *why = NULL, *err = NULL;
    if (wh_job_default_out(&j, &why, &err)) {
        fprintf(stderr, "whittle: warning: the batch report is not written: %s\n",
                err ? err : "out of memory");
        free(err);
        free(j.out);
        return NULL;
    }
    free(why);
    char *abs = j.out ? wh_abspath(j.out) : NULL, *proj = wh_abspath(tmpl->project);
    size_t pl = proj ? strlen(proj) : 0;
    if (abs && proj && !strncmp(abs, proj, pl) && (abs[pl] == '/' || !abs[pl])) {
        fprintf(stderr, "whittle: warning: the batch report is not written: --out '%s' lies "
                "inside project '%s' on this machine, which whittle never writes to\n",
                j.out, proj);
        free(abs);
        abs = NULL;
    }
    free(proj);
    free(j.out);
    return abs;
}

/* A reduced failure's state in the report, and why when it has no answer. */
static const char *s_state(const wh_from_result_t *e, char **why)
{
    int code = e->code;
    *why = NULL;
    if (e->skip) {
        *why = strdup(e->skip);
        return "skipped";
    }
    if (code == 0)
        return "reduced";
    if (code == WH_EXIT_PARTIAL)
        return "partial";
    if (code == WH_EXIT_UNVERIFIED) {
        *why = strdup("not verified: one node judged every candidate and verified the answer "
                      "itself, and this client did not check it");
        return "unverified";
    }
    *why = wh_strdup_printf("exit %d: not reduced (its job's error is above)", code);
    return "failed";
}

/* A run's field as a string, malloc'ed, or NULL. */
static char *s_run_str(const char *run, const char *k)
{
    json_t *o = run ? json_loads(run, 0, NULL) : NULL;
    const char *v = json_string_value(json_object_get(o, k));
    char *r = v ? strdup(v) : NULL;
    json_decref(o);
    return r;
}

/* night.json and night.html in out: failure i is reduced when slot[i] <
 * nred (res[slot[i]] its end), else answered by its group's (rep[i])
 * reduction; lines[r] the group of representative r's key; plus the
 * skipped ones. Prints where the report is. */
static void s_night(const wh_job_t *jobs, size_t n, const size_t *rep, const size_t *slot,
                    size_t nred, char *const *lines, const wh_from_result_t *res,
                    const wh_buf_t *missing, const char *out)
{
    size_t ns = 0;
    for (const char *p = missing->buf; p && *p; p++)
        ns += *p == '\n';
    wh_night_row_t *rows = calloc(n + ns + 1, sizeof *rows);
    wh_night_group_t *groups = calloc(n + 1, sizeof *groups);
    size_t *gid = calloc(n + 1, sizeof *gid);
    char **why = calloc(n + ns + 1, sizeof *why), **dir = calloc(n + 1, sizeof *dir);
    size_t ng = 0, k = 0;
    if (!rows || !groups || !gid || !why || !dir)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (rep[i] == i) {
            gid[i] = ng;
            groups[ng++] = (wh_night_group_t){lines[i], -1, 0, NULL};
        }
    for (size_t i = 0; i < n; i++) {
        size_t g = gid[rep[i]];
        wh_night_row_t *r = &rows[i];
        *r = (wh_night_row_t){jobs[i].test, jobs[i].file, NULL, "answered", NULL, (int)g + 1, 1,
                              NULL};
        if (slot[i] < nred) {
            const wh_from_result_t *e = &res[slot[i]];
            r->state = s_state(e, &why[i]);
            r->why = why[i];
            r->run = e->run;
            r->dir = dir[i] = s_run_str(e->run, "dir");
            if ((e->run || e->skip) && groups[g].rep < 0 && rep[i] == i)
                groups[g].rep = (int)i;
        } else if (slot[rep[i]] < nred && res[slot[rep[i]]].skip) {
            r->state = "skipped";
            r->why = res[slot[rep[i]]].skip;
        } else if (slot[rep[i]] >= nred || res[slot[rep[i]]].code != 0) {
            r->why = "its group's test has no verified answer: reduce it with --each";
        }
    }
    for (const char *p = missing->buf; p && *p && k < ns; k++) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        why[n + k] = strndup(p, len);
        rows[n + k] = (wh_night_row_t){"(not found)", NULL, NULL, "skipped", why[n + k], 0, 0,
                                       NULL};
        p = e ? e + 1 : p + len;
    }
    char *err = NULL;
    if (out && wh_mkdir_p(out) == 0 && wh_night_write(out, rows, n + k, groups, ng, &err) == 0)
        printf("Batch report: %s/night.html (and night.json)\n", out);
    else if (out)
        fprintf(stderr, "whittle: warning: %s\n", err ? err : "cannot write the batch report");
    free(err);
out:
    for (size_t i = 0; why && i < n + ns; i++)
        free(why[i]);
    for (size_t i = 0; dir && i < n; i++)
        free(dir[i]);
    free(rows), free(groups), free(gid), free(why), free(dir);
}

/* The members' closing lines: each answered by its group's reduction. */
static void s_members(const wh_job_t *jobs, size_t n, const wh_from_plan_t *p,
                      const wh_from_result_t *res)
{
    for (size_t i = 0; i < n; i++) {
        if (p->slot[i] < p->nred)
            continue;
        const wh_from_result_t *e = &res[p->slot[p->rep[i]]];
        char *run = e->code == 0 ? s_run_str(e->run, "run") : NULL;
        if (e->skip)
            printf("  %s (%s): grouped with %s, skipped with it: %s\n", jobs[i].test,
                   jobs[i].file, jobs[p->rep[i]].test, e->skip);
        else if (e->code == 0)
            printf("  %s (%s): grouped with %s, whose reduced test answers it%s%s%s\n",
                   jobs[i].test, jobs[i].file, jobs[p->rep[i]].test,
                   run ? ": run " : "", run ? run : "", run ? " on the coordinator" : "");
        else
            printf("  %s (%s): grouped with %s, which has no verified answer: reduce it alone "
                   "with --each\n", jobs[i].test, jobs[i].file, jobs[p->rep[i]].test);
        free(run);
    }
}

/* --each, or one failure: every one submitted; the report groups them by
 * their runs' fingerprints afterwards, as the embedded path does. */
static int s_each(const wh_job_t *jobs, size_t n, const wh_job_t *tmpl, const wh_from_opts_t *o,
                  const wh_buf_t *missing, const char *out)
{
    size_t *idx = calloc(n, sizeof *idx), *rep = calloc(n, sizeof *rep);
    wh_from_result_t *res = calloc(n, sizeof *res);
    char **keys = calloc(n, sizeof *keys), **lines = calloc(n, sizeof *lines);
    int *size = calloc(n, sizeof *size);
    int code = idx && rep && res && keys && lines && size ? 0 : 4;
    for (size_t i = 0; !code && i < n; i++)
        idx[i] = i;
    wh_from_plan_t all = {.n = n, .red = idx, .nred = n}; /* each its own reduction */
    if (!code && (o->batch_budget.builds || o->batch_budget.ms))
        code = s_submit_budgeted(jobs, &all, tmpl->out, o, 0, wh_now_ms(), res);
    else if (!code)
        code = s_submit(jobs, idx, n, tmpl->out, o, WH_FROM_EACH, res);
    else
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
    if (idx && rep && res && keys && lines && size && !(o->interrupted && *o->interrupted)) {
        for (size_t i = 0; i < n; i++) {
            wh_from_run_key(res[i].run, &keys[i], &lines[i]);
            size[i] = -1;
        }
        wh_bg_group(keys, size, n, rep);
        s_night(jobs, n, rep, idx, n, lines, res, missing, out);
    }
    for (size_t i = 0; keys && lines && i < n; i++)
        free(keys[i]), free(lines[i]);
    s_results_free(res, n);
    free(idx), free(rep), free(keys), free(lines), free(size);
    return code;
}

int wh_from_cluster(const wh_job_t *jobs, size_t n, const wh_job_t *tmpl,
                    const wh_from_opts_t *o, const wh_buf_t *missing)
{
    uint64_t t0 = wh_now_ms(); /* the batch's start, for --batch-budget time= */
    char *out = s_local_out(tmpl);
    if (o->each || n < 2) {
        int code = s_each(jobs, n, tmpl, o, missing, out);
        free(out);
        return code;
    }
    size_t *idx = calloc(n, sizeof *idx);
    wh_from_result_t *first = calloc(n, sizeof *first), *res = NULL;
    char **runs = calloc(n, sizeof *runs);
    wh_from_plan_t p = {0};
    int code = idx && first && runs ? 0 : 4;
    for (size_t i = 0; !code && i < n; i++)
        idx[i] = i;
    if (!code) {
        printf("Grouping first: the original of each of the %zu failing tests runs once on the "
               "cluster for its fingerprint (nothing reduced; --each reduces every one)\n", n);
        fflush(stdout);
        s_submit(jobs, idx, n, tmpl->out, o, WH_FROM_FIRST, first);
        if (o->interrupted && *o->interrupted)
            code = 130;
    }
    /* a failing first run (passes alone, does not build) gives no fingerprint:
     * its test is reduced on its own, which says why */
    for (size_t i = 0; !code && i < n; i++)
        runs[i] = first[i].code == 0 ? first[i].run : NULL;
    if (!code && wh_from_plan_make(&p, jobs, runs, n))
        code = 4;
    wh_seen_t hist = {0};
    if (!code && wh_from_plan_order(&p, jobs, out, NULL, &hist))
        code = 4; /* submitted in priority order: the coordinator starts them first come */
    wh_seen_clear(&hist);
    if (!code && !(res = calloc(p.nred, sizeof *res)))
        code = 4;
    if (code == 4)
        fprintf(stderr, "whittle: error: %s\n", wh_strerror(WH_ENOMEM));
    if (!code) {
        code = o->batch_budget.builds || o->batch_budget.ms
                   ? s_submit_budgeted(jobs, &p, tmpl->out, o, (int)n, t0, res)
                   : s_submit(jobs, p.red, p.nred, tmpl->out, o, WH_FROM_GROUPED, res);
        if (!(o->interrupted && *o->interrupted)) {
            s_members(jobs, n, &p, res);
            s_night(jobs, n, p.rep, p.slot, p.nred, p.line, res, missing, out);
        }
    }
    s_results_free(res, res ? p.nred : 0);
    wh_from_plan_free(&p);
    s_results_free(first, n);
    free(idx), free(runs), free(out);
    return code;
}
