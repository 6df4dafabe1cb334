/*
 * mutate — mutants, their kill runs over --jobs slots, and the kill matrix.
 * See mutate.h. Each slot is a thread that takes the next mutant, copies
 * the project into its own workspace, applies the mutant, runs --setup and
 * then every test (--build before each, incremental) --repeat times.
 */
#include "mutate.h"

#include "cli.h"
#include "bench.h"
#include "farm.h"
#include "framework.h"
#include "mutagen.h"
#include "oracle.h"
#include "runner.h"
#include "tree.h"
#include "wh_common.h"
#include "workspace.h"

#include <glob.h>
#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *project, *sources, *tests_file, *setup, *build, *run, *framework, *out;
    unsigned ops;
    long max, repeat, jobs;
    int reduce;          /* --reduce: reduce every definite (mutant, test) kill */
    const char *cluster; /* --cluster: kill runs and reductions through a coordinator */
    const char *keys[8]; /* the cluster client's key options, passed on */
    int n_keys;
} s_opts_t;

typedef struct {
    char *file;          /* relative to the project */
    wh_mutant_t m;
    const char *status;  /* "killed", "survived", "build_failed", "infra_error" */
    unsigned char *fails; /* per test: failed runs out of repeat */
} s_mut_t;

typedef struct {
    const s_opts_t *o;
    const wh_framework_t *fw;
    char *root, *out;    /* absolute */
    char **tests;
    int n_tests;
    char *test_text;
    size_t test_len;
    s_mut_t *muts;
    size_t n, next;
    pthread_mutex_t mu;
    uint64_t probe_ms;   /* --cluster: the kill probes' wall time */
} s_ctx_t;

static int s_usage(const char *why, const char *what)
{
    fprintf(stderr, "whittle: error: %s%s%s%s\n", why, what ? " '" : "", what ? what : "", what ? "'" : "");
    return 2;
}

static int s_parse(int argc, char **argv, s_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->ops = WH_MUT_ALL, o->repeat = 1, o->jobs = 1, o->out = "bench-run";
    static const struct {
        const char *name;
        size_t off;
    } strs[] = {
        {"project", offsetof(s_opts_t, project)}, {"source", offsetof(s_opts_t, sources)},
        {"tests-file", offsetof(s_opts_t, tests_file)}, {"setup", offsetof(s_opts_t, setup)},
        {"build", offsetof(s_opts_t, build)}, {"run", offsetof(s_opts_t, run)},
        {"framework", offsetof(s_opts_t, framework)}, {"out", offsetof(s_opts_t, out)},
        {"cluster", offsetof(s_opts_t, cluster)},
    };
    char epilog[1024];
    snprintf(epilog, sizeof epilog, "\nframeworks: %s\n", wh_framework_names());
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "mutate", argc, argv);
    c.epilog = epilog;
    while ((rc = wh_cli_next(&c)) > 0) {
        const char *v = c.arg;
        int took = 0;
        for (size_t k = 0; k < sizeof strs / sizeof strs[0] && !took; k++)
            if ((took = wh_cli_is(&c, strs[k].name)))
                *(const char **)((char *)o + strs[k].off) = v;
        if (took)
            continue;
        if (wh_cli_is(&c, "reduce")) {
            o->reduce = 1;
        } else if (wh_cli_is(&c, "insecure") && o->n_keys < 7) {
            o->keys[o->n_keys++] = "--insecure";
        } else if (wh_cli_is(&c, "secret-key") && o->n_keys < 6) {
            o->keys[o->n_keys++] = "--secret-key";
            o->keys[o->n_keys++] = v;
        } else if (wh_cli_is(&c, "server-key") && o->n_keys < 6) {
            o->keys[o->n_keys++] = "--server-key";
            o->keys[o->n_keys++] = v;
        } else if (wh_cli_is(&c, "ops")) {
            if (!(o->ops = wh_mutagen_parse_ops(v)))
                return s_usage("unknown operator in --ops (ROR,AOR,LCR,IN,RV):", v);
        } else if (wh_cli_is(&c, "max")) {
            if (wh_parse_long(v, 1, 1000000, &o->max))
                return s_usage("bad --max", v);
        } else if (wh_cli_is(&c, "repeat")) {
            if (wh_parse_long(v, 1, 100, &o->repeat))
                return s_usage("bad --repeat (1..100)", v);
        } else if (wh_cli_is(&c, "jobs")) {
            if (wh_parse_long(v, 1, 256, &o->jobs))
                return s_usage("bad --jobs (1..256)", v);
        }
    }
    if (rc < 0)
        return c.exit ? c.exit : -1;
    if (!o->project || !o->sources || !o->tests_file || !o->run || !o->framework)
        return s_usage("mutate needs --project, --source, --tests-file, --run and --framework", NULL);
    return 0;
}

/* Every mutant of every --source file (sorted by path), capped at --max. */
static int s_collect(s_ctx_t *c)
{
    char *pat = wh_path_join(c->root, c->o->sources);
    glob_t g = {0};
    int rc = glob(pat, 0, NULL, &g);
    free(pat);
    if (rc != 0 || !g.gl_pathc) {
        globfree(&g);
        fprintf(stderr, "whittle: error: --source '%s' matches no file in the project\n", c->o->sources);
        return 2;
    }
    char *inc_src = wh_strdup_printf("-I%s/src", c->root), *inc_inc = wh_strdup_printf("-I%s/include", c->root);
    const char *args[] = {inc_src, inc_inc};
    rc = 0;
    for (size_t f = 0; f < g.gl_pathc && rc == 0; f++) {
        wh_mutant_list_t l = {0};
        char *err = NULL;
        if (wh_mutagen_scan(g.gl_pathv[f], c->o->ops, args, 2, &l, &err) < 0) {
            fprintf(stderr, "whittle: error: %s\n", err ? err : "out of memory");
            free(err);
            rc = 1;
        }
        for (size_t i = 0; i < l.n && rc == 0 && (!c->o->max || c->n < (size_t)c->o->max); i++) {
            s_mut_t *p = realloc(c->muts, (c->n + 1) * sizeof *p);
            if (!p) {
                fputs("whittle: error: out of memory collecting mutants\n", stderr);
                rc = 1;
                break;
            }
            c->muts = p;
            s_mut_t *m = memset(&c->muts[c->n++], 0, sizeof *m);
            m->file = strdup(g.gl_pathv[f] + strlen(c->root) + 1);
            m->m = l.v[i];
            l.v[i].before = l.v[i].after = NULL;
            m->fails = calloc((size_t)c->n_tests + 1, 1);
            if (!m->file || !m->fails) {
                fputs("whittle: error: out of memory collecting mutants\n", stderr);
                rc = 1;
            }
        }
        wh_mutant_list_free(&l);
    }
    free(inc_src), free(inc_inc);
    globfree(&g);
    return rc;
}

/* Runs every test repeat times in ws; fills fails (may be NULL). Returns
 * the status string of the mutant, or NULL when all ran. */
static const char *s_run_tests(s_ctx_t *c, const char *ws, unsigned char *fails, const char *tag)
{
    char *report = wh_strdup_printf("%s/%s.report", c->out, tag);
    char *log = wh_strdup_printf("%s/%s.log", c->out, tag);
    const char *status = NULL;
    for (int t = 0; t < c->n_tests && !status; t++)
        for (long r = 0; r < c->o->repeat && !status; r++) {
            wh_eval_spec_t s = {.root = ws, .test_file = c->o->tests_file, .build_cmd = c->o->build,
                                .run_cmd = c->o->run, .fw = c->fw, .test = c->tests[t],
                                .build_timeout_ms = 120000, .test_timeout_ms = 20000,
                                .report_path = report, .log_path = log};
            wh_eval_result_t res = {0};
            if (wh_evaluate(&s, c->test_text, c->test_len, NULL, WH_MATCH_FULL, &res) < 0)
                status = "infra_error";
            else if (!res.build_ok)
                status = "build_failed";
            else if (res.verdict == WH_V_INFRA_ERROR)
                status = "infra_error";
            else if (res.result.status == WH_TR_FAILED && fails)
                fails[t]++;
            else if (res.result.status == WH_TR_FAILED)
                status = c->tests[t]; /* the baseline failed this test */
            wh_eval_result_clear(&res);
        }
    free(report), free(log);
    return status;
}

/* A fresh workspace for slot, with mutant m applied (NULL: the original)
 * and --setup run. NULL with a status on failure. */
static char *s_workspace(s_ctx_t *c, int slot, const s_mut_t *m, const char **status)
{
    char *ws = wh_strdup_printf("%s/ws/slot%d", c->out, slot), *err = NULL;
    const char *excl[] = {c->out, NULL};
    wh_rm_rf(ws);
    *status = "infra_error";
    if (m) {
        wh_farm_mutant_t fm = {"mutant", m->m.op, m->file, m->m.off, m->m.len, m->m.after};
        if (wh_farm_mutant_copy(c->root, c->out, &fm, ws) < 0)
            goto fail;
    } else if (wh_workspace_copy(c->root, ws, excl, &err) < 0) {
        fprintf(stderr, "whittle: error: %s\n", err ? err : "cannot copy the project");
        goto fail;
    }
    if (c->o->setup && *c->o->setup) {
        char *log = wh_strdup_printf("%s/ws/slot%d.setup.log", c->out, slot);
        wh_run_opts_t ro = {.cmd = c->o->setup, .cwd = ws, .timeout_ms = 300000, .log_path = log};
        wh_run_result_t rr = {0};
        int rc = wh_run(&ro, &rr);
        free(log);
        if (rc < 0 || rr.signaled || rr.timed_out || rr.exit_code != 0) {
            *status = "build_failed";
            goto fail;
        }
    }
    free(err);
    *status = NULL;
    return ws;
fail:
    free(err);
    wh_rm_rf(ws);
    free(ws);
    return NULL;
}

static void *s_slot(void *arg)
{
    s_ctx_t *c = ((void **)arg)[0];
    int slot = (int)(long)((void **)arg)[1];
    for (;;) {
        pthread_mutex_lock(&c->mu);
        size_t i = c->next++;
        pthread_mutex_unlock(&c->mu);
        if (i >= c->n)
            break;
        s_mut_t *m = &c->muts[i];
        char *ws = s_workspace(c, slot, m, &m->status);
        if (ws) {
            char tag[64];
            snprintf(tag, sizeof tag, "ws/slot%d", slot);
            m->status = s_run_tests(c, ws, m->fails, tag);
            wh_rm_rf(ws);
            free(ws);
        }
        if (!m->status) {
            m->status = "survived";
            for (int t = 0; t < c->n_tests; t++)
                if (m->fails[t])
                    m->status = "killed";
        }
    }
    return NULL;
}

/* The kill runs on --jobs local slots. */
static void s_local_kills(s_ctx_t *c)
{
    pthread_t th[256];
    void *args[256][2];
    for (long s = 0; s < c->o->jobs; s++) {
        args[s][0] = c, args[s][1] = (void *)s;
        pthread_create(&th[s], NULL, s_slot, args[s]);
    }
    for (long s = 0; s < c->o->jobs; s++)
        pthread_join(th[s], NULL);
}

static const char *s_cell(const s_ctx_t *c, const s_mut_t *m, int t)
{
    return !m->fails[t] ? "survived" : m->fails[t] == c->o->repeat ? "definite" : "potential";
}

/* mutants.json and kills.csv (compiled mutants only) under --out. */
static int s_write(const s_ctx_t *c)
{
    json_t *arr = json_array();
    wh_buf_t csv = {0};
    wh_buf_printf(&csv, "mutant,test,verdict\n");
    for (size_t i = 0; i < c->n; i++) {
        const s_mut_t *m = &c->muts[i];
        char id[32];
        snprintf(id, sizeof id, "M%zu", i + 1);
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:i,s:s,s:s,s:s}", "id", id, "operator", m->m.op,
                                             "file", m->file, "line", (int)m->m.line, "before", m->m.before,
                                             "after", m->m.after, "status", m->status));
        if (strcmp(m->status, "killed") && strcmp(m->status, "survived"))
            continue;
        for (int t = 0; t < c->n_tests; t++)
            wh_buf_printf(&csv, "%s,%s,%s\n", id, c->tests[t], s_cell(c, m, t));
    }
    char *js = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *pj = wh_path_join(c->out, "mutants.json"), *pk = wh_path_join(c->out, "kills.csv");
    int rc = js && wh_write_file(pj, js, strlen(js)) == 0 && wh_write_file(pk, csv.buf, csv.len) == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "whittle: error: cannot write '%s'\n", pj);
    free(js), free(pj), free(pk);
    json_decref(arr);
    wh_buf_free(&csv);
    return rc;
}

static void s_summary(const s_ctx_t *c, uint64_t ms)
{
    size_t killed = 0, surv = 0, nobuild = 0, infra = 0, def = 0, pot = 0;
    for (size_t i = 0; i < c->n; i++) {
        const char *s = c->muts[i].status;
        killed += !strcmp(s, "killed"), surv += !strcmp(s, "survived");
        nobuild += !strcmp(s, "build_failed"), infra += !strcmp(s, "infra_error");
        for (int t = 0; t < c->n_tests && (!strcmp(s, "killed") || !strcmp(s, "survived")); t++)
            def += !strcmp(s_cell(c, &c->muts[i], t), "definite"), pot += !strcmp(s_cell(c, &c->muts[i], t), "potential");
    }
    printf("%zu mutants: %zu killed, %zu survived, %zu do not build, %zu infra errors; "
           "%zu definite and %zu potential kills over %d tests x %ld runs; %llu ms on ",
           c->n, killed, surv, nobuild, infra, def, pot, c->n_tests, c->o->repeat, (unsigned long long)ms);
    if (c->o->cluster)
        printf("cluster %s\n", c->o->cluster);
    else
        printf("%ld slots\n", c->o->jobs);
}

/* The farm's view of the mutants (ids[i] backs fm[i].id). */
static wh_farm_mutant_t *s_farm_mutants(const s_ctx_t *c, char (**ids)[32])
{
    wh_farm_mutant_t *fm = calloc(c->n + 1, sizeof *fm);
    *ids = calloc(c->n + 1, sizeof **ids);
    if (!fm || !*ids) {
        free(fm), free(*ids);
        *ids = NULL;
        return NULL;
    }
    for (size_t i = 0; i < c->n; i++) {
        const s_mut_t *m = &c->muts[i];
        snprintf((*ids)[i], sizeof (*ids)[i], "M%zu", i + 1);
        fm[i] = (wh_farm_mutant_t){(*ids)[i], m->m.op, m->file, m->m.off, m->m.len, m->m.after};
    }
    return fm;
}

static wh_farm_t s_farm(const s_ctx_t *c, const wh_farm_mutant_t *fm, const wh_farm_pair_t *pairs,
                        size_t np)
{
    return (wh_farm_t){.root = c->root, .out = c->out, .tests_file = c->o->tests_file,
                       .setup = c->o->setup, .build = c->o->build, .run = c->o->run,
                       .framework = c->o->framework, .cluster = c->o->cluster,
                       .cluster_keys = c->o->keys, .jobs = c->o->jobs, .repeat = c->o->repeat,
                       .hdd_done = c->o->cluster != NULL, .prior_ms = c->probe_ms,
                       .mutants = fm, .n_mutants = c->n, .pairs = pairs, .n_pairs = np};
}

/* --reduce: every definite kill (the test fails on every run) is reduced;
 * a potential kill is flaky, so no reduction could keep its failure. On a
 * cluster the default walks ran already, as the kill probes. */
static int s_reduce(const s_ctx_t *c)
{
    char (*ids)[32] = NULL;
    wh_farm_mutant_t *fm = s_farm_mutants(c, &ids);
    wh_farm_pair_t *pairs = calloc(c->n * (size_t)c->n_tests + 1, sizeof *pairs);
    size_t np = 0, potential = 0;
    if (!fm || !pairs) {
        free(fm), free(pairs), free(ids);
        fputs("whittle: error: out of memory planning the reductions\n", stderr);
        return 1;
    }
    for (size_t i = 0; i < c->n; i++) {
        const s_mut_t *m = &c->muts[i];
        for (int t = 0; t < c->n_tests && !strcmp(m->status, "killed"); t++) {
            if (m->fails[t] == c->o->repeat)
                pairs[np++] = (wh_farm_pair_t){i, c->tests[t]};
            else if (m->fails[t])
                potential++;
        }
    }
    if (potential)
        printf("%zu potential kills (flaky) are not reduced\n", potential);
    wh_farm_t f = s_farm(c, fm, pairs, np);
    uint64_t wall_ms;
    int rc = wh_farm_reduce(&f, &wall_ms);
    int brc = wh_bench_write(&f, wall_ms); /* 1: a fault was lost; -1: not written */
    rc = rc || brc != 0 ? 1 : 0;
    free(fm), free(pairs), free(ids);
    return rc;
}

/* --cluster: the kill runs as probe jobs through the coordinator (farm.h),
 * every (mutant, test) pair; fills each mutant's fails and status. */
static int s_cluster_kills(s_ctx_t *c)
{
    char (*ids)[32] = NULL;
    size_t np = c->n * (size_t)c->n_tests;
    wh_farm_mutant_t *fm = s_farm_mutants(c, &ids);
    wh_farm_pair_t *pairs = calloc(np + 1, sizeof *pairs);
    wh_farm_probe_t *pr = calloc(np + 1, sizeof *pr);
    int rc = fm && pairs && pr ? 0 : 1;
    for (size_t p = 0; rc == 0 && p < np; p++)
        pairs[p] = (wh_farm_pair_t){p / (size_t)c->n_tests, c->tests[p % (size_t)c->n_tests]};
    wh_farm_t f = s_farm(c, fm, pairs, np);
    uint64_t t0 = wh_now_ms();
    if (rc == 0)
        rc = wh_farm_probe(&f, pr);
    c->probe_ms = wh_now_ms() - t0;
    for (size_t p = 0; rc == 0 && p < np; p++) {
        s_mut_t *m = &c->muts[p / (size_t)c->n_tests];
        if (pr[p].status && (!m->status || !strcmp(pr[p].status, "build_failed")))
            m->status = pr[p].status;
        m->fails[p % (size_t)c->n_tests] = (unsigned char)pr[p].fails;
    }
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        s_mut_t *m = &c->muts[i];
        for (int t = 0; t < c->n_tests && !m->status; t++)
            if (m->fails[t])
                m->status = "killed";
        if (!m->status)
            m->status = "survived";
    }
    if (rc)
        fputs("whittle: error: the kill runs could not be sent to the cluster\n", stderr);
    free(fm), free(pairs), free(pr), free(ids);
    return rc;
}

static void s_ctx_free(s_ctx_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->muts[i].file), free(c->muts[i].m.before), free(c->muts[i].m.after), free(c->muts[i].fails);
    free(c->muts);
    for (int t = 0; t < c->n_tests; t++)
        free(c->tests[t]);
    free(c->tests), free(c->test_text), free(c->root), free(c->out);
    pthread_mutex_destroy(&c->mu);
}

/* Test names, test file text and the unmutated baseline (every test must
 * pass on every run). */
static int s_prepare(s_ctx_t *c)
{
    char *tf = wh_path_join(c->root, c->o->tests_file), *err = NULL;
    int rc = wh_read_file(tf, 16u << 20, &c->test_text, &c->test_len);
    char *inc_src = wh_strdup_printf("-I%s/src", c->root), *inc_inc = wh_strdup_printf("-I%s/include", c->root);
    const char *args[] = {inc_src, inc_inc};
    wh_tree_opts_t topts = {.args = args, .nargs = 2};
    if (rc == 0)
        rc = wh_tree_list(tf, &topts, &c->tests, &c->n_tests, &err);
    free(inc_src), free(inc_inc);
    free(tf);
    if (rc < 0 || !c->n_tests) {
        fprintf(stderr, "whittle: error: %s\n", err ? err : "--tests-file defines no test");
        free(err);
        return 2;
    }
    const char *st = NULL;
    char *ws = s_workspace(c, 0, NULL, &st);
    if (ws) {
        st = s_run_tests(c, ws, NULL, "baseline");
        wh_rm_rf(ws);
        free(ws);
    }
    if (st) {
        fprintf(stderr, "whittle: error: the unmutated project does not pass: %s\n", st);
        return 3;
    }
    return 0;
}

int wh_mutate_cmd(int argc, char **argv)
{
    s_opts_t o;
    int rc = s_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc; /* -1: --help or --version printed */
    s_ctx_t c = {.o = &o, .fw = wh_framework_find(o.framework)};
    pthread_mutex_init(&c.mu, NULL);
    if (!c.fw) {
        fprintf(stderr, "whittle: error: unknown framework '%s' (%s)\n", o.framework, wh_framework_names());
        rc = 2;
        goto out;
    }
    c.root = wh_is_dir(o.project) ? wh_abspath(o.project) : NULL;
    if (!c.root || wh_mkdir_p(o.out) < 0 || !(c.out = wh_abspath(o.out))) {
        fprintf(stderr, "whittle: error: no project folder '%s' or cannot create '%s'\n", o.project, o.out);
        rc = 2;
        goto out;
    }
    uint64_t t0 = wh_now_ms();
    if ((rc = s_prepare(&c)) || (rc = s_collect(&c)))
        goto out;
    if (o.cluster) {
        if ((rc = s_cluster_kills(&c)))
            goto out;
    } else {
        s_local_kills(&c);
    }
    rc = s_write(&c);
    s_summary(&c, wh_now_ms() - t0);
    if (rc == 0 && o.reduce)
        rc = s_reduce(&c);
out:
    s_ctx_free(&c);
    return rc;
}
