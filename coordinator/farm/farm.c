/*
 * farm — the reductions of a mutate run (see farm.h). Each reduction is a
 * child `whittle reduce` (this binary, /proc/self/exe), so a job is exactly
 * what a user would run by hand and its run folder is the ordinary record.
 */
#include "farm.h"

#include "runner.h"
#include "wh_common.h"
#include "workspace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One reduction: pair p with the default walk (linear 0) or the gold one. */
typedef struct {
    size_t pair;
    int linear;
    int probe;          /* a kill probe: --repeat, the outcome is parsed */
    int rc;             /* the child's exit status, -1 when it did not run */
} s_task_t;

typedef struct {
    const wh_farm_t *f;
    char *self;
    s_task_t *tasks;
    size_t n, next;
    pthread_mutex_t mu;
} s_ctx_t;

int wh_farm_mutant_copy(const char *root, const char *exclude, const wh_farm_mutant_t *m,
                        const char *dir)
{
    const char *excl[] = {exclude, NULL};
    char *err = NULL, *path = NULL, *text = NULL, *mut = NULL;
    size_t len = 0;
    wh_rm_rf(dir);
    int ok = wh_workspace_copy(root, dir, excl, &err) == 0;
    if (ok) {
        path = wh_path_join(dir, m->file);
        ok = path && wh_read_file(path, 16u << 20, &text, &len) == 0 && m->off + m->len <= len;
    }
    if (ok) {
        mut = wh_strdup_printf("%.*s%s%s", (int)m->off, text, m->after, text + m->off + m->len);
        ok = mut && wh_write_file(path, mut, strlen(mut)) == 0;
    }
    if (!ok)
        fprintf(stderr, "whittle: error: cannot write mutant %s of '%s' into '%s'%s%s\n", m->id,
                m->file, dir, err ? ": " : "", err ? err : "");
    free(err), free(path), free(text), free(mut);
    return ok ? 0 : -1;
}

/* Appends ' s' to b, single-quoted for sh -c. */
static void s_arg(wh_buf_t *b, const char *s)
{
    wh_buf_puts(b, " '");
    for (; *s; s++)
        if (*s == '\'')
            wh_buf_puts(b, "'\\''");
        else
            wh_buf_append(b, s, 1);
    wh_buf_puts(b, "'");
}

static void s_opt(wh_buf_t *b, const char *name, const char *v)
{
    if (!v || !*v)
        return;
    wh_buf_printf(b, " %s", name);
    s_arg(b, v);
}

/* The folder of pair p's reductions: reduce/<M>-<test>. */
char *wh_farm_pair_dir(const wh_farm_t *f, size_t p)
{
    const wh_farm_pair_t *pr = &f->pairs[p];
    return wh_strdup_printf("%s/reduce/%s-%s", f->out, f->mutants[pr->mutant].id, pr->test);
}

/* The `whittle reduce` command line of task t. */
static char *s_command(const s_ctx_t *c, const s_task_t *t, const char *dir)
{
    const wh_farm_t *f = c->f;
    const wh_farm_pair_t *p = &f->pairs[t->pair];
    char *proj = wh_strdup_printf("%s/projects/%s", f->out, f->mutants[p->mutant].id);
    /* A cluster keeps run folders under its --runs folder: a relative name
     * there (the run folder is linked into dir when the job is accepted). */
    const char *base = strrchr(f->out, '/') ? strrchr(f->out, '/') + 1 : f->out;
    char *out = f->cluster ? wh_strdup_printf("%s/%s/%s", base, strrchr(dir, '/') + 1,
                                              t->linear ? "linear" : "hdd")
                           : wh_strdup_printf("%s/%s", dir, t->linear ? "linear" : "hdd");
    wh_buf_t b = {0};
    s_arg(&b, c->self);
    wh_buf_puts(&b, " reduce");
    s_opt(&b, "--project", proj);
    s_opt(&b, "--file", f->tests_file);
    s_opt(&b, "--test", p->test);
    s_opt(&b, "--setup", f->setup);
    s_opt(&b, "--build", f->build);
    s_opt(&b, "--run", f->run);
    s_opt(&b, "--framework", f->framework);
    s_opt(&b, "--reference", f->root);
    s_opt(&b, "--out", out);
    if (t->linear)
        wh_buf_puts(&b, " --algorithm linear");
    if (t->probe && f->repeat > 1)
        wh_buf_printf(&b, " --repeat %ld", f->repeat);
    if (f->cluster) {
        s_opt(&b, "--cluster", f->cluster);
        for (const char *const *k = f->cluster_keys; k && *k; k++)
            s_arg(&b, *k);
    } else {
        wh_buf_puts(&b, " --jobs 1 --cache memory:");
    }
    free(proj), free(out);
    return wh_buf_detach(&b);
}

/* A cluster job's run folder (its console says "run folder PATH"), linked
 * as dir/<walk>/run so that the local layout holds. */
static void s_link_run(const char *dir, const char *walk, const char *log)
{
    char *text = NULL, *link = NULL, *sub = wh_strdup_printf("%s/%s", dir, walk);
    size_t len = 0;
    const char *at = wh_read_file(log, 4u << 20, &text, &len) == 0 ? strstr(text, "run folder /") : NULL;
    if (at && sub && wh_mkdir_p(sub) == 0) {
        at += strlen("run folder ");
        char *path = strndup(at, strcspn(at, "\n"));
        link = wh_path_join(sub, "run");
        unlink(link);
        if (!path || symlink(path, link) != 0)
            fprintf(stderr, "whittle: cannot link the run folder of %s into '%s'\n", dir, sub);
        free(path);
    }
    free(text), free(link), free(sub);
}

static void s_run_task(s_ctx_t *c, s_task_t *t)
{
    char *dir = wh_farm_pair_dir(c->f, t->pair);
    char *log = wh_strdup_printf("%s/%s.log", dir, t->linear ? "linear" : "hdd");
    char *cmd = s_command(c, t, dir);
    wh_mkdir_p(dir);
    wh_run_opts_t ro = {.cmd = cmd, .cwd = c->f->out, .log_path = log};
    wh_run_result_t rr = {0};
    t->rc = wh_run(&ro, &rr) < 0 || rr.signaled || rr.timed_out ? -1 : rr.exit_code;
    if (c->f->cluster)
        s_link_run(dir, t->linear ? "linear" : "hdd", log);
    if (t->rc != 0 && !t->probe)
        fprintf(stderr, "whittle: reduction of %s failed (exit %d); see %s\n",
                strrchr(dir, '/') + 1, t->rc, log);
    free(dir), free(log), free(cmd);
}

static void *s_worker(void *arg)
{
    s_ctx_t *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        size_t i = c->next++;
        pthread_mutex_unlock(&c->mu);
        if (i >= c->n)
            return NULL;
        s_run_task(c, &c->tasks[i]);
    }
}

/* The mutated copy of every mutant some pair needs. */
static int s_projects(const wh_farm_t *f)
{
    unsigned char *need = calloc(f->n_mutants + 1, 1);
    int rc = need ? 0 : -1;
    for (size_t p = 0; need && p < f->n_pairs; p++)
        need[f->pairs[p].mutant] = 1;
    for (size_t m = 0; rc == 0 && m < f->n_mutants; m++) {
        if (!need[m])
            continue;
        char *dir = wh_strdup_printf("%s/projects/%s", f->out, f->mutants[m].id);
        rc = wh_farm_mutant_copy(f->root, f->out, &f->mutants[m], dir);
        free(dir);
    }
    free(need);
    return rc;
}

/* Runs the tasks, `width` at a time. */
static void s_run_all(s_ctx_t *c, long width)
{
    pthread_t th[256];
    if (width > 256)
        width = 256;
    if (width > (long)c->n)
        width = (long)c->n;
    long started = 0;
    for (long s = 0; s < width; s++)
        if (pthread_create(&th[started], NULL, s_worker, c) == 0)
            started++;
    if (!started)
        s_worker(c);
    for (long s = 0; s < started; s++)
        pthread_join(th[s], NULL);
}

/* What a probe's console says about the test on the mutated project. */
static void s_parse_probe(const char *log, int rc, long repeat, wh_farm_probe_t *p)
{
    static const char flaky[] = "original test is flaky: it failed the same way in ";
    char *text = NULL;
    size_t len = 0;
    const char *t = wh_read_file(log, 4u << 20, &text, &len) == 0 ? text : "", *f;
    int agree = 0, runs = 0;
    *p = (wh_farm_probe_t){0, NULL};
    if (rc == 0)
        p->fails = (int)(repeat > 1 ? repeat : 1);
    else if (strstr(t, "original test passes"))
        p->fails = 0;
    else if ((f = strstr(t, flaky)) && sscanf(f + strlen(flaky), "%d of %d", &agree, &runs) == 2 &&
             agree > 0 && agree < runs)
        p->fails = agree;
    else if (strstr(t, "original does not build") || strstr(t, "setup failed"))
        p->status = "build_failed";
    else
        p->status = "infra_error";
    free(text);
}

/* Jobs at a time: --jobs here; a cluster queues and spreads the jobs
 * itself, so up to S_CLUSTER_WIDTH are submitted at once (no more than a
 * coordinator takes from one client key by default, --max-client-jobs). */
#define S_CLUSTER_WIDTH 32
static long s_width(const wh_farm_t *f, size_t n)
{
    if (!f->cluster)
        return f->jobs;
    return n < S_CLUSTER_WIDTH ? (long)n : S_CLUSTER_WIDTH;
}

/* Runs tasks `width` at a time, as children of this binary; copy: make
 * the mutated copies first. */
static int s_run_tasks(const wh_farm_t *f, s_task_t *tasks, size_t n, long width, int copy)
{
    if (copy && s_projects(f) < 0)
        return -1;
    s_ctx_t c = {.f = f, .tasks = tasks, .n = n};
    char buf[4096];
    ssize_t k = readlink("/proc/self/exe", buf, sizeof buf - 1);
    buf[k > 0 ? k : 0] = 0;
    c.self = wh_strdup0(k > 0 ? buf : "/proc/self/exe");
    if (!c.self)
        return -1;
    pthread_mutex_init(&c.mu, NULL);
    s_run_all(&c, width);
    pthread_mutex_destroy(&c.mu);
    free(c.self);
    return 0;
}

int wh_farm_probe(const wh_farm_t *f, wh_farm_probe_t *out)
{
    s_task_t *tasks = calloc(f->n_pairs + 1, sizeof *tasks);
    if (!tasks)
        return 1;
    for (size_t i = 0; i < f->n_pairs; i++)
        tasks[i] = (s_task_t){.pair = i, .probe = 1, .rc = -1};
    if (s_run_tasks(f, tasks, f->n_pairs, s_width(f, f->n_pairs), 1) < 0) {
        free(tasks);
        return 1;
    }
    for (size_t i = 0; i < f->n_pairs; i++) {
        char *dir = wh_farm_pair_dir(f, i), *log = wh_strdup_printf("%s/hdd.log", dir);
        s_parse_probe(log, tasks[i].rc, f->repeat, &out[i]);
        free(dir), free(log);
    }
    free(tasks);
    return 0;
}

int wh_farm_reduce(const wh_farm_t *f, uint64_t *wall_ms)
{
    *wall_ms = 0;
    if (!f->n_pairs) {
        printf("no killing pair to reduce\n");
        return 0;
    }
    /* The default walks first (unless the probes ran them), then the gold
     * walks, pair by pair. */
    size_t n = (f->hdd_done ? 1 : 2) * f->n_pairs;
    s_task_t *tasks = calloc(n, sizeof *tasks);
    if (!tasks) {
        fputs("whittle: error: out of memory planning the reductions\n", stderr);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        tasks[i] = (s_task_t){.pair = i % f->n_pairs, .linear = f->hdd_done || i >= f->n_pairs, .rc = -1};
    uint64_t t0 = wh_now_ms();
    int failed = s_run_tasks(f, tasks, n, s_width(f, n), !f->hdd_done) < 0;
    for (size_t i = 0; i < n; i++)
        failed += tasks[i].rc != 0;
    free(tasks);
    *wall_ms = wh_now_ms() - t0 + f->prior_ms;
    return failed ? 1 : 0;
}
