/*
 * reduce — one reduction job driven by verdict events. See reduce.h.
 *
 * A map for a first reading (the sections below, in this order):
 *  - fingerprint persistence: the baseline's identity cached like a verdict;
 *  - front-end prediction: precheck.h asked about a round's candidates before
 *    any build (predicted BuildFailed, its own cache key space, audit);
 *  - rounds: the engine's round keyed, deduplicated, looked up in the cache,
 *    speculation adopted, the rest queued (rendered by the pool at dispatch);
 *  - exact compile flags: the tree parsed again with the warm workspace's
 *    compile command once the baseline has returned it (treejob.h);
 *  - the verify step: the reduced test judged afresh; wrong verdicts found
 *    through trail.h, dropped, and the walk resumed;
 *  - verdicts: the pool's callback (baseline, reference check, candidates,
 *    speculations, infrastructure notes);
 *  - results and lifecycle: the run record (record.h) and the public API.
 * The life of a job: prepare (parse) -> start (baseline) -> rounds until the
 * engine is done -> verify -> reference check (with a reference) -> finish.
 */
#define _GNU_SOURCE
#include "reduce.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "foreign.h"
#include "functext.h"
#include "identity.h"
#include "engine.h"
#include "precheck.h"
#include "progress.h"
#include "record.h"
#include "report.h"
#include "udiff.h"
#include "render.h"
#include "trail.h"
#include "tree.h"
#include "treejob.h"
#include "workspace.h"

typedef struct {
    char key[65];
    int rep;            /* first identical candidate of this round */
    wh_verdict_t v;
    int from_cache;     /* answered by the verdict cache */
    int submitted;
    int evaluated;      /* judged by a node */
    uint64_t eval_id;
    char *node;
    uint64_t ms;
    uint64_t build_ms, test_ms, end_ms; /* the slot's times; its verdict came end_ms into the run */
    char *report;
    char *detail;
    int runs, agreeing;
    char *infra;        /* infrastructure faults met before its verdict ("slot: why | ...") */
    int pre;            /* S_PRE_*: what the front end said */
    char *pre_msg;      /* its first counted error */
    int predicted;      /* the verdict is a prediction: 1 now, 2 from the prediction cache */
} s_cand_t;

enum { S_PRE_NONE = 0, S_PRE_PASS, S_PRE_FAIL };

enum { S_BASELINE, S_ROUNDS, S_DONE, S_FAILED, S_REFCHECK, S_VERIFY };

/* Verify attempts lost to infrastructure before the run gives up, and
 * restarts after wrong verdicts before it refuses to report. */
#define S_VERIFY_TRIES 3
#define S_MAX_RESTARTS 3

/* Built candidates whose times the ETA's median is taken over. */
#define S_MS_RING 256

struct wh_reduction {
    wh_job_t job;
    wh_pool_t *pool;
    wh_cache_t *cache;
    wh_tree_t *tree;
    wh_engine_t *engine;
    wh_record_t *rec;
    int quiet;
    char snapshot[65];
    char job_id[65];
    char pool_id[80];       /* the job in the pool: job_id, made unique when an
                               identical job (same identity, e.g. hdd and dd) runs */
    wh_fp_t fp;
    int state;
    int status;
    wh_treejob_t *treejob;  /* the exact tree, parsing after the baseline */
    wh_fp_t pending_fp;     /* the baseline's fingerprint, taken when it is done */
    char *error;
    uint64_t next_eval;
    uint64_t baseline_id;
    uint64_t refcheck_id;
    char *fault;            /* "kept", "lost", or why the check could not tell */
    char *fault_detail;
    int flaky;              /* candidates whose runs disagreed (never cached) */
    /* speculation: candidates of the predicted next round, in flight */
    struct s_spec {
        char key[65];
        uint64_t id;
    } *spec;
    int nspec, capspec;
    /* speculations judged before the walk came to their round: the slot
     * that judged each, its report and time, for the record if claimed */
    struct s_spec_done {
        char key[65];
        char *node, *report;
        uint64_t ms, build_ms, test_ms, end_ms;
    } *spec_done;
    int ndone, capdone;
    int speculated, spec_used;
    /* the verify step: the accepted steps, who judged what */
    wh_trail_t *trail;
    uint64_t verify_id;
    int verify_step;        /* trail step being verified */
    int verify_tries;       /* infrastructure failures on this step */
    int verify_runs;        /* verify tasks judged */
    int verified;           /* the final configuration was verified afresh */
    int dropped;            /* verdicts dropped as wrong */
    int restarts;           /* walks resumed after wrong verdicts */
    char *refuter;          /* slot whose verify run last refuted a step */
    /* current round */
    const wh_round_t *round;
    s_cand_t *c;
    int nc;
    /* queued candidates of the round: eval id eval_base + k is c[evidx[k]] */
    uint64_t eval_base;
    int *evidx, nev;
    int last_sweep, last_level;
    /* front-end prediction (DESIGN.md, "Predicted verdicts") */
    wh_precheck_t *pc;
    char *pc_off;           /* why prediction is off for this job, or NULL */
    const char *pc_flags;   /* where its compile arguments came from */
    int audit_built, audit_bf, audit_bf_predicted, audit_pred_built;
    uint64_t pc_deadline;   /* checks of this round stop here (wh_now_ms) */
    int pc_unchecked;       /* candidates left unchecked by the time budget */
    json_t *disagreements;  /* audit: [{candidate, kind, verdict, error}] */
    int pc_pending;         /* its setup runs; the baseline's fingerprint waits */
    /* counters */
    int candidates, evaluated, cached, extra, cancelled, predicted;
    int building_rounds; /* rounds with a canonical candidate really judged */
    uint64_t ms_ring[S_MS_RING]; /* times of the last built candidates, for the ETA */
    int n_ms;
    int verdicts[WH_V_COUNT];
    uint64_t t0, wall_ms;
    char *result_text;
    char *diff;             /* the test file, original to reduced (reduced.diff) */
    /* tainted answers: retried elsewhere, never verdicts (pool.h) */
    int infra_faults;
    char **out_slots;       /* slots taken out of rotation during this job */
    int n_out;
    char *closing;          /* the verify and fault-check lines, for a remote client */
};

static void s_out(wh_reduction_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_out(wh_reduction_t *r, const char *fmt, ...)
{
    if (r->quiet)
        return;
    wh_progress_erase();
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void s_clear_round(wh_reduction_t *r)
{
    for (int i = 0; i < r->nc; i++) {
        free(r->c[i].node);
        free(r->c[i].report);
        free(r->c[i].detail);
        free(r->c[i].infra);
        free(r->c[i].pre_msg);
    }
    free(r->c);
    r->c = NULL;
    r->nc = 0;
    free(r->evidx);
    r->evidx = NULL;
    r->nev = 0;
    r->round = NULL;
}

/* report.html from what the run folder holds now; a page that cannot be
 * written is named in run.log, and the run goes on. */
static void s_write_page(wh_reduction_t *r)
{
    char *err = NULL;
    if (r->rec && wh_report_write(wh_record_dir(r->rec), &err))
        wh_record_log(r->rec, "report.html not written: %s", err ? err : "out of memory");
    free(err);
}

static void s_fail(wh_reduction_t *r, int status, char *msg)
{
    if (r->state == S_DONE || r->state == S_FAILED) {
        free(msg);
        return;
    }
    r->state = S_FAILED;
    r->status = status;
    r->error = msg ? msg : strdup("out of memory");
    if (r->rec)
        wh_record_log(r->rec, "error: %s", r->error);
    s_write_page(r);
    wh_pool_remove_job(r->pool, r->pool_id);
}

/* Stops with exit 3 because the original run's failure is not identified
 * (why), after showing the last lines of its output (the report the node
 * sent: the framework's, else the console log) on stderr and in run.log. */
static void s_show_tail(wh_reduction_t *r, const wh_msg_t *m, int n, const char *what)
{
    char *tail = wh_baseline_tail((const char *)m->report, m->report_len, n);
    if (tail && *tail) {
        if (!r->quiet)
            fprintf(stderr, "Last lines of the original %s (reports/original.report):\n%s", what,
                    tail);
        if (r->rec)
            wh_record_log(r->rec, "original %s, last lines:\n%s", what, tail);
    }
    free(tail);
}

static void s_refuse(wh_reduction_t *r, const wh_msg_t *m, char *why)
{
    s_show_tail(r, m, 20, "run's output");
    s_fail(r, 3, why);
}

/* ---- fingerprint persistence: the baseline is cached like a verdict, so a
 * rerun of the same job builds nothing at all ---- */

static char *s_fp_to_json(const wh_fp_t *fp)
{
    wh_buf_t b = WH_BUF_INIT;
    wh_fp_json(&b, fp);
    return wh_buf_detach(&b);
}

static int s_fp_from_json(const char *s, wh_fp_t *fp)
{
    json_t *o = json_loads(s, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return WH_EPARSE;
    }
    const char *t = json_string_value(json_object_get(o, "test"));
    const char *k = json_string_value(json_object_get(o, "kind"));
    const char *m = json_string_value(json_object_get(o, "message"));
    const char *l = json_string_value(json_object_get(o, "location"));
    fp->test = wh_strdup0(t);
    fp->kind = wh_strdup0(k);
    fp->message = wh_strdup0(m);
    fp->location = wh_strdup0(l);
    json_decref(o);
    return 0;
}

/* ---- front-end prediction (DESIGN.md, "Predicted verdicts") ---- */

/* The checks run on the poll thread: measured here, a check costs about
 * 3-7 ms for the C fixtures and 23 ms of CPU for the GoogleTest one (see
 * precheck.c), so a round's checks take well under a second. On a slow or
 * overloaded machine this budget keeps heartbeats going (slots give up on
 * a coordinator silent for 3 s): once a round's checks have taken it, the
 * round's remaining candidates are built unchecked, which only costs
 * builds, never the answer. */
#define S_PRECHECK_BUDGET_MS 1000

static int s_is_werror(const char *a)
{
    return strncmp(a, "-Werror", 7) == 0 || strcmp(a, "-pedantic-errors") == 0;
}

/* Says in the log and on the console how the precheck stands. */
static void s_precheck_say(wh_reduction_t *r)
{
    free(r->pc_off);
    r->pc_off = NULL;
    if (!r->pc)
        r->pc_off = strdup("out of memory");
    else if (!wh_precheck_enabled(r->pc))
        r->pc_off = strdup(wh_precheck_why(r->pc) ? wh_precheck_why(r->pc) : "not ready");
    if (r->pc_off) {
        wh_record_log(r->rec, "precheck: off for this job: %s", r->pc_off);
        s_out(r, "Precheck off: %s\n", r->pc_off);
    } else {
        wh_record_log(r->rec, "precheck: %s, compile arguments from %s%s%s",
                      wh_precheck_mode_name((wh_precheck_mode_t)r->job.precheck), r->pc_flags,
                      wh_precheck_ignored(r->pc)[0] ? "; warnings ignored (they fire on the "
                                                       "original): " : "",
                      wh_precheck_ignored(r->pc));
    }
}

/* Opens the precheck with the flags the tree in use was parsed with, again
 * whenever the tree is parsed again (the warm workspace's exact command).
 * Only the file's own command (the workspace's, or its entry in a
 * compile_commands.json) is exact; flags borrowed or guessed keep no -Werror
 * (a warning then never counts). Prediction is off (and the run log says
 * why) when the original has a front-end error with these flags. async:
 * the setup runs on a thread of its own; s_precheck_say when it is ready. */
static void s_precheck_open(wh_reduction_t *r, int async)
{
    if (r->job.precheck == WH_PRECHECK_OFF)
        return;
    wh_precheck_destroy(&r->pc);
    const wh_tree_t *t = r->tree;
    const char **args = calloc((size_t)t->cc_nargs + 1, sizeof *args);
    int n = 0;
    for (int i = 0; args && i < t->cc_nargs; i++)
        if (t->cc_exact || !s_is_werror(t->cc_args[i]))
            args[n++] = t->cc_args[i];
    r->pc_flags = t->cc_exact ? "the file's own compile command"
                              : "the statement tree's flags (no compile command for the file; "
                                "-Werror not assumed)";
    char *path = wh_path_join(r->job.project, r->job.file);
    wh_precheck_opts_t o = {path, args, n, t->cc_clang};
    char *err = NULL;
    if (args && path && async)
        r->pc = wh_precheck_start(&o, t->text, t->text_len);
    else if (args && path)
        r->pc = wh_precheck_new(&o, t->text, t->text_len, &err);
    free(path);
    free(args);
    if (async && r->pc)
        return;
    s_precheck_say(r);
    if (err) { /* libclang could not parse at all: say that, not "out of memory" */
        free(r->pc_off);
        r->pc_off = err;
        wh_record_log(r->rec, "precheck: %s", err);
    }
}

/* Asks the front end about one candidate; 0 when prediction just broke
 * down (it is off from then on, and the log says why). */
static int s_precheck_one(wh_reduction_t *r, int i)
{
    s_cand_t *c = &r->c[i];
    char *msg = NULL;
    /* Rendered for the check and dropped: a round holds no texts (the
     * pool renders again at dispatch). */
    size_t len = 0;
    char *text = wh_render(r->tree, r->round->removed[i], &len);
    int rc = text ? wh_precheck_check(r->pc, text, len, &msg) : WH_ENOMEM;
    free(text);
    if (rc < 0) {
        if (!r->pc_off) {
            r->pc_off = strdup(wh_precheck_why(r->pc) ? wh_precheck_why(r->pc) : "libclang failed");
            wh_record_log(r->rec, "precheck: off from here: %s", r->pc_off);
        }
        return 0;
    }
    c->pre = rc ? S_PRE_FAIL : S_PRE_PASS;
    c->pre_msg = msg;
    return 1;
}

/* One batched lookup in key space ns of the round's representatives (only
 * those still without a verdict when open_only); hit() takes each verdict
 * found. 0 or WH_ENOMEM. */
static int s_mget_reps(wh_reduction_t *r, wh_cache_ns_t ns, int open_only,
                       void (*hit)(s_cand_t *c, wh_verdict_t v))
{
    const char **keys = calloc((size_t)r->nc, sizeof *keys);
    wh_verdict_t *got = calloc((size_t)r->nc, sizeof *got);
    int *kidx = calloc((size_t)r->nc, sizeof *kidx);
    int nk = 0, rc = keys && got && kidx ? 0 : WH_ENOMEM;
    for (int i = 0; !rc && i < r->nc; i++)
        if (r->c[i].rep == i && (!open_only || r->c[i].v == WH_V_NONE)) {
            keys[nk] = r->c[i].key;
            kidx[nk++] = i;
        }
    if (nk)
        wh_cache_mget_ns(r->cache, ns, keys, nk, got); /* a miss is WH_V_NONE */
    for (int k = 0; k < nk; k++)
        if (got[k] != WH_V_NONE)
            hit(&r->c[kidx[k]], got[k]);
    free(keys);
    free(got);
    free(kidx);
    return rc;
}

/* A prediction found: BuildFailed, predicted before. */
static void s_hit_predicted(s_cand_t *c, wh_verdict_t v)
{
    if (v != WH_V_BUILD_FAILED)
        return;
    c->v = WH_V_BUILD_FAILED;
    c->pre = S_PRE_FAIL;
    c->predicted = 2;
}

/* on: the round's misses found in the prediction key space are BuildFailed,
 * predicted before. */
static void s_lookup_predicted(wh_reduction_t *r)
{
    (void)s_mget_reps(r, WH_CACHE_PREDICTED, 1, s_hit_predicted);
}

/* The round's candidates that still need a build. on: a candidate the
 * front end rejects is BuildFailed, predicted, never built (and kept in the
 * prediction key space); audit: every candidate to be built is checked,
 * and s_audit compares with its real verdict. */
static void s_precheck_round(wh_reduction_t *r)
{
    if (!wh_precheck_enabled(r->pc))
        return;
    int on = r->job.precheck == WH_PRECHECK_ON, late = 0;
    r->pc_deadline = wh_now_ms() + S_PRECHECK_BUDGET_MS;
    if (on)
        s_lookup_predicted(r);
    for (int i = 0; i < r->nc; i++) {
        s_cand_t *c = &r->c[i];
        if (c->rep != i || !(c->v == WH_V_NONE || (!on && c->evaluated)))
            continue;
        if (wh_now_ms() > r->pc_deadline) {
            late++;
            continue;
        }
        if (!s_precheck_one(r, i))
            return;
        if (on && c->pre == S_PRE_FAIL) {
            c->v = WH_V_BUILD_FAILED;
            c->predicted = 1;
            wh_cache_put_ns(r->cache, WH_CACHE_PREDICTED, c->key, WH_V_BUILD_FAILED);
        }
    }
    if (late) {
        r->pc_unchecked += late;
        wh_record_log(r->rec, "precheck: the round's %d ms are spent; %d candidates go unchecked",
                      S_PRECHECK_BUDGET_MS, late);
    }
}

/* audit: compares a built candidate's verdict with its prediction. Either
 * way of disagreeing is a bug of the precheck, logged and counted. */
static void s_audit(wh_reduction_t *r, const s_cand_t *c, int id)
{
    if (r->job.precheck != WH_PRECHECK_AUDIT || c->pre == S_PRE_NONE || !c->evaluated ||
        c->v == WH_V_INFRA_ERROR || c->v == WH_V_NONE)
        return;
    int bf = c->v == WH_V_BUILD_FAILED, said = c->pre == S_PRE_FAIL;
    r->audit_built++;
    r->audit_bf += bf;
    r->audit_bf_predicted += bf && said;
    r->audit_pred_built += said && !bf;
    if (bf == said)
        return;
    char who[32];
    if (id)
        snprintf(who, sizeof who, "cand_%03d", id);
    else
        snprintf(who, sizeof who, "an extra candidate");
    const char *kind = said ? "predicted failure that built" : "build failed, not predicted";
    wh_record_log(r->rec, "precheck disagreement: %s: %s (verdict %s%s%s), key %s", who, kind,
                  wh_verdict_name(c->v), said ? "; front end: " : "",
                  said && c->pre_msg ? c->pre_msg : "", c->key);
    s_out(r, "Precheck disagreement: %s: %s\n", who, kind);
    if (!r->disagreements)
        r->disagreements = json_array();
    json_t *d = json_object();
    json_object_set_new(d, "candidate", id ? json_integer(id) : json_null());
    json_object_set_new(d, "kind", json_string(kind));
    json_object_set_new(d, "verdict", json_string(wh_verdict_name(c->v)));
    json_object_set_new(d, "error", c->pre_msg ? json_string(c->pre_msg) : json_null());
    json_object_set_new(d, "key", json_string(c->key));
    json_array_append_new(r->disagreements, d);
}

/* The precheck's figures for the summary; *list (malloc'ed JSON text or
 * NULL) holds the disagreements until the summary is written. */
static void s_precheck_summary(wh_reduction_t *r, wh_precheck_summary_t *p, char **list)
{
    unsigned long long us = 0, setup_us = 0;
    memset(p, 0, sizeof *p);
    wh_precheck_stats(r->pc, &p->checks, &us, &setup_us);
    p->mode = wh_precheck_mode_name((wh_precheck_mode_t)r->job.precheck);
    p->enabled = wh_precheck_enabled(r->pc);
    p->off_because = r->pc_off;
    p->flags = r->pc_flags;
    p->unchecked = r->pc_unchecked;
    p->check_ms = (double)us / 1000.0;
    p->setup_ms = (double)setup_us / 1000.0;
    p->audit = r->job.precheck == WH_PRECHECK_AUDIT;
    p->built = r->audit_built;
    p->build_failed = r->audit_bf;
    p->build_failed_predicted = r->audit_bf_predicted;
    p->predicted_but_built = r->audit_pred_built;
    p->disagreements = r->disagreements ? (int)json_array_size(r->disagreements) : 0;
    *list = r->disagreements ? json_dumps(r->disagreements, JSON_COMPACT) : NULL;
    p->list_json = *list;
    if (p->audit)
        s_out(r, "Precheck audit: %d of %d BuildFailed predicted, %d disagreements\n",
              p->build_failed_predicted, p->build_failed, p->disagreements);
}

/* ---- rounds ---- */

/* What a candidate removes beyond the accepted configuration, for run.log:
 * one statement by its line and head, more as unit id ranges (pre-order, so
 * a block and its body are one range) with the first line. Short whatever
 * the size of the file. */
static char *s_describe_removed(wh_reduction_t *r, const uint8_t *cand)
{
    const uint8_t *cur = wh_engine_removed(r->engine);
    const wh_tree_t *t = r->tree;
    wh_buf_t b = WH_BUF_INIT;
    int tops = 0, first = -1, ranges = 0;
    for (int i = 0; i < t->n; i++) {
        if (!cand[i] || cur[i])
            continue;
        int p = t->units[i].parent;
        if (p < 0 || !cand[p] || cur[p]) {
            tops++;
            if (first < 0)
                first = i;
        }
        if (i > 0 && cand[i - 1] && !cur[i - 1])
            continue; /* extends the current range */
        int j = i;
        while (j + 1 < t->n && cand[j + 1] && !cur[j + 1])
            j++;
        if (ranges++ < 16) {
            if (j > i)
                wh_buf_printf(&b, "%s#%d-%d", ranges > 1 ? "," : "", i, j);
            else
                wh_buf_printf(&b, "%s#%d", ranges > 1 ? "," : "", i);
        }
    }
    if (!tops) {
        wh_buf_free(&b);
        return strdup("nothing");
    }
    if (ranges > 16)
        wh_buf_printf(&b, ",... (%d ranges)", ranges);
    char *ids = wh_buf_detach(&b);
    char *out;
    if (tops == 1) {
        char *head = wh_tree_unit_head(t, first, 48);
        out = wh_strdup_printf("L%u `%s` (%s)", t->units[first].line, head ? head : "?",
                               ids ? ids : "");
        free(head);
    } else {
        out = wh_strdup_printf("%d statements from L%u: %s", tops, t->units[first].line,
                               ids ? ids : "");
    }
    free(ids);
    return out;
}

/* The first 16 hex digits of a cache key (a sha256) as a hash. */
static size_t s_key_hash(const char *key)
{
    uint64_t h = 0;
    for (int i = 0; i < 16 && key[i]; i++) {
        char ch = key[i];
        h = h << 4 | (uint64_t)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
    }
    return (size_t)h;
}

/* Keys every candidate of the round and marks the first of identical
 * candidates as their representative (a hash set over the keys, so a round
 * of thousands costs no pairwise compares). Each text is freed as soon as
 * it is keyed: a miss is rendered again when it is queued, so a round never
 * holds all its texts at once. */
static int s_key_round(wh_reduction_t *r)
{
    const wh_round_t *rd = r->round;
    size_t cap = 16;
    while (cap < 2 * (size_t)r->nc)
        cap <<= 1;
    int *set = malloc(cap * sizeof *set);
    if (!set)
        return WH_ENOMEM;
    for (size_t k = 0; k < cap; k++)
        set[k] = -1;
    for (int i = 0; i < r->nc; i++) {
        s_cand_t *c = &r->c[i];
        size_t len = 0;
        char *txt = wh_render(r->tree, rd->removed[i], &len);
        if (!txt) {
            free(set);
            return WH_ENOMEM;
        }
        wh_cache_key(r->job_id, r->job.file, txt, len, c->key);
        free(txt);
        size_t h = s_key_hash(c->key);
        size_t k = h & (cap - 1);
        while (set[k] >= 0 && strcmp(r->c[set[k]].key, c->key) != 0)
            k = (k + 1) & (cap - 1);
        if (set[k] < 0)
            set[k] = i;
        c->rep = set[k];
    }
    free(set);
    return 0;
}

/* A verdict found (InfraError is never cached, but never taken either). */
static void s_hit_verdict(s_cand_t *c, wh_verdict_t v)
{
    if (v == WH_V_INFRA_ERROR)
        return;
    c->v = v;
    c->from_cache = 1;
}

/* One batched cache lookup for the round's representatives. */
static int s_lookup_round(wh_reduction_t *r)
{
    return s_mget_reps(r, WH_CACHE_VERDICTS, 0, s_hit_verdict);
}

static void s_spec_done_clear(wh_reduction_t *r)
{
    for (int k = 0; k < r->ndone; k++) {
        free(r->spec_done[k].node);
        free(r->spec_done[k].report);
    }
    r->ndone = 0;
}

/* A verdict a speculation of this run brought in is this round's own
 * evaluation, not a cache hit: count it once, where it belongs. */
static void s_claim_spec_done(wh_reduction_t *r)
{
    for (int i = 0; i < r->nc && r->ndone; i++) {
        s_cand_t *c = &r->c[i];
        if (c->rep != i || !c->from_cache)
            continue;
        for (int k = 0; k < r->ndone; k++) {
            struct s_spec_done *d = &r->spec_done[k];
            if (strcmp(d->key, c->key) == 0) {
                c->from_cache = 0;
                c->evaluated = 1;
                c->node = d->node;
                c->report = d->report;
                c->ms = d->ms;
                c->build_ms = d->build_ms;
                c->test_ms = d->test_ms;
                c->end_ms = d->end_ms;
                r->extra--;
                r->evaluated--;
                r->spec_used++;
                *d = r->spec_done[--r->ndone];
                break;
            }
        }
    }
    s_spec_done_clear(r); /* the rest were judged for nothing (they stay "extra") */
}

/* Already running as a speculation: adopt it. 1 when adopted. */
static int s_adopt_spec(wh_reduction_t *r, s_cand_t *c)
{
    for (int k = 0; k < r->nspec; k++) {
        if (strcmp(r->spec[k].key, c->key) == 0) {
            c->eval_id = r->spec[k].id;
            c->submitted = 1;
            r->spec[k] = r->spec[--r->nspec];
            r->spec_used++;
            return 1;
        }
    }
    return 0;
}

/* The pool's render function: the text of a queued candidate of the
 * current round, made when a slot takes it (wh_pool_submit_lazy). NULL for
 * an id the round no longer holds. */
static char *s_render_cand(void *ctx, uint64_t id, size_t *len)
{
    wh_reduction_t *r = ctx;
    if (!r->round || id < r->eval_base || id - r->eval_base >= (uint64_t)r->nev)
        return NULL;
    int i = r->evidx[id - r->eval_base];
    return wh_render(r->tree, r->round->removed[i], len);
}

static int s_prepare_round(wh_reduction_t *r)
{
    r->nc = r->round->n_cand;
    r->c = calloc((size_t)r->nc, sizeof *r->c);
    r->evidx = malloc((size_t)r->nc * sizeof *r->evidx);
    if (!r->c || !r->evidx)
        return WH_ENOMEM;
    r->eval_base = r->next_eval + 1;
    r->nev = 0;
    int rc = s_key_round(r);
    if (!rc)
        rc = s_lookup_round(r);
    if (rc)
        return rc;
    s_claim_spec_done(r);
    s_precheck_round(r);
    /* Queue the misses in canonical order: a single slot then judges
     * exactly what the sequential algorithm would. */
    for (int i = 0; i < r->nc; i++) {
        s_cand_t *c = &r->c[i];
        if (c->rep != i || c->v != WH_V_NONE || s_adopt_spec(r, c))
            continue;
        c->eval_id = ++r->next_eval;
        c->submitted = 1;
        r->evidx[r->nev++] = i;
        rc = wh_pool_submit_lazy(r->pool, r->pool_id, c->eval_id);
        if (rc)
            return rc;
    }
    return 0;
}

/* on: 1 when the front end rejects a speculated candidate, which is then
 * not built; the prediction waits in its key space for the round. */
static int s_spec_predicted(wh_reduction_t *r, const char *key, const char *txt, size_t len)
{
    if (r->job.precheck != WH_PRECHECK_ON || !wh_precheck_enabled(r->pc) ||
        wh_now_ms() > r->pc_deadline)
        return 0;
    wh_verdict_t v = WH_V_NONE;
    wh_cache_mget_ns(r->cache, WH_CACHE_PREDICTED, &key, 1, &v);
    if (v == WH_V_BUILD_FAILED)
        return 1;
    if (wh_precheck_check(r->pc, txt, len, NULL) != 1)
        return 0;
    wh_cache_put_ns(r->cache, WH_CACHE_PREDICTED, key, WH_V_BUILD_FAILED);
    return 1;
}

static void s_cancel_spec(wh_reduction_t *r)
{
    for (int k = 0; k < r->nspec; k++)
        wh_pool_cancel(r->pool, r->pool_id, r->spec[k].id);
    r->nspec = 0;
}

/* Speculation (DESIGN.md, "later"): most ddmin rounds end without a winner,
 * and then the next round is known in advance. Queue its candidates behind
 * the current round's, so that slots the round leaves idle judge them. Their
 * verdicts go to the cache and, if the walk comes to that round, the
 * running evaluations are adopted; they never decide anything by
 * themselves, so the answer is unchanged. */
static void s_speculate(wh_reduction_t *r)
{
    wh_engine_t *next = wh_engine_clone(r->engine);
    if (!next)
        return;
    const wh_round_t *rd = NULL;
    if (wh_engine_resolve(next, -1) == 0)
        rd = wh_engine_round(next);
    for (int i = 0; rd && i < rd->n_cand && r->nspec < 256; i++) {
        size_t len = 0;
        char *txt = wh_render(r->tree, rd->removed[i], &len);
        if (!txt)
            break;
        char key[65];
        wh_cache_key(r->job_id, r->job.file, txt, len, key);
        int known = 0;
        for (int k = 0; k < r->nc && !known; k++)
            known = strcmp(r->c[k].key, key) == 0;
        for (int k = 0; k < r->nspec && !known; k++)
            known = strcmp(r->spec[k].key, key) == 0;
        wh_verdict_t v = WH_V_NONE;
        const char *kp = key;
        if (!known)
            wh_cache_mget(r->cache, &kp, 1, &v);
        if (!known && v == WH_V_NONE && s_spec_predicted(r, key, txt, len)) {
            free(txt);
            continue;
        }
        if (!known && v == WH_V_NONE) {
            if (r->nspec == r->capspec) {
                int cap = r->capspec ? 2 * r->capspec : 16;
                struct s_spec *ns = realloc(r->spec, (size_t)cap * sizeof *ns);
                if (!ns) {
                    free(txt);
                    break;
                }
                r->spec = ns;
                r->capspec = cap;
            }
            uint64_t id = ++r->next_eval;
            if (wh_pool_submit(r->pool, r->pool_id, id, txt, len, 0) == 0) {
                memcpy(r->spec[r->nspec].key, key, 65);
                r->spec[r->nspec].id = id;
                r->nspec++;
                r->speculated++;
            }
        }
        free(txt);
    }
    wh_engine_destroy(&next);
}

static void s_header(wh_reduction_t *r)
{
    const wh_round_t *rd = r->round;
    if (rd->sweep != r->last_sweep || rd->level != r->last_level) {
        r->last_sweep = rd->sweep;
        r->last_level = rd->level;
        s_out(r, "Sweep %d, level %d: %d statements\n", rd->sweep, rd->level, rd->total);
        wh_record_log(r->rec, "Sweep %d, level %d: %d statements", rd->sweep, rd->level,
                      rd->total);
    }
}

/* Keeps a built candidate's time for the ETA's median. */
static void s_note_ms(wh_reduction_t *r, uint64_t ms)
{
    r->ms_ring[r->n_ms++ % S_MS_RING] = ms;
}

/* Records the canonical candidates 0..upto (inclusive) and the extras. */
static void s_record_round(wh_reduction_t *r, int winner)
{
    const wh_round_t *rd = r->round;
    int upto = winner >= 0 ? winner : r->nc - 1;
    int built = 0;
    uint64_t now = wh_now_ms() - r->t0;
    for (int i = 0; i < r->nc; i++) {
        s_cand_t *c = &r->c[i];
        s_cand_t *rep = &r->c[c->rep];
        if (i > upto) {
            if (c->rep == i && c->evaluated) {
                s_audit(r, c, 0);
                r->extra++;
                r->evaluated++;
                s_note_ms(r, c->ms);
                wh_record_log(r->rec, "           extra: a candidate after the winner was judged "
                              "in parallel: %s (cached for later)", wh_verdict_name(c->v));
            } else if (c->rep == i && c->submitted && c->v == WH_V_NONE) {
                r->cancelled++;
            }
            continue;
        }
        int id = ++r->candidates;
        int cached = c->rep != i || c->from_cache;
        int predicted = !cached && rep->predicted;
        if (c->rep == i)
            s_audit(r, c, id);
        if (cached)
            r->cached++;
        else if (predicted)
            r->predicted++;
        else {
            r->evaluated++;
            s_note_ms(r, rep->ms);
            built = 1;
        }
        r->verdicts[rep->v]++;
        char *removed = s_describe_removed(r, rd->removed[i]);
        char note[128] = "";
        if (c->rep != i)
            snprintf(note, sizeof note, "same candidate as an earlier one in this round");
        else if (c->from_cache)
            snprintf(note, sizeof note, "cache");
        else if (predicted)
            snprintf(note, sizeof note, "predicted, not built%s: %s",
                     rep->predicted == 2 ? " (from the prediction cache)" : "",
                     rep->pre_msg ? rep->pre_msg : "the front end rejected it before");
        wh_cand_row_t row = {
            .id = id, .sweep = rd->sweep, .level = rd->level, .kept = rd->kept[i],
            .total = rd->total, .verdict = rep->v, .cached = cached,
            .node = cached ? "-" : predicted ? "precheck" : rep->node,
            .ms = cached || predicted ? 0 : rep->ms,
            .removed = removed, .note = note[0] ? note : (rep->detail && !cached ? rep->detail : NULL),
            .report = cached ? NULL : rep->report,
            .runs = cached ? 0 : rep->runs, .agreeing = cached ? 0 : rep->agreeing,
            .key = rep->key, .infra = cached ? NULL : rep->infra,
            .predicted = predicted,
            .precheck = rep->pre == S_PRE_FAIL ? "fail" : rep->pre == S_PRE_PASS ? "pass" : "-",
            .build_ms = cached || predicted ? 0 : rep->build_ms,
            .test_ms = cached || predicted ? 0 : rep->test_ms,
            .end_ms = cached || predicted || !rep->end_ms ? now : rep->end_ms,
        };
        wh_record_candidate(r->rec, &row);
        if (r->job.verbose)
            s_out(r, "[cand_%03d] keep %d/%d -> %s%s\n", id, rd->kept[i], rd->total,
                  wh_verdict_name(rep->v), cached ? "  (cached)" : predicted ? "  (predicted)" : "");
        free(removed);
    }
    r->building_rounds += built;
}

static void s_finish(wh_reduction_t *r);
static void s_start_verify(wh_reduction_t *r, int step);

/* The fault-kept check (thesis 8.1, second item): the reduced test must
 * pass on the version without the bug. */
static void s_start_refcheck(wh_reduction_t *r)
{
    size_t len = 0;
    char *txt = wh_render(r->tree, wh_engine_removed(r->engine), &len);
    r->refcheck_id = ++r->next_eval;
    r->state = S_REFCHECK;
    int rc = txt ? wh_pool_submit(r->pool, r->pool_id, r->refcheck_id, txt, len,
                                  WH_TASK_ON_REFERENCE)
                 : WH_ENOMEM;
    free(txt);
    if (rc)
        s_fail(r, 4, wh_strdup_printf("cannot queue the reference check: %s", wh_strerror(rc)));
    s_out(r, "Checking the reduced test on the reference %s\n", r->job.reference);
}

/* Takes the engine's next round and queues it; 0 when the walk is over
 * (the run then finishes or goes on to the reference check). */
static int s_next_round(wh_reduction_t *r)
{
    r->round = wh_engine_round(r->engine);
    if (!r->round) {
        s_cancel_spec(r);
        s_start_verify(r, wh_trail_steps(r->trail) - 1);
        return 0;
    }
    s_header(r);
    int rc = s_prepare_round(r);
    if (rc) {
        s_fail(r, 1, wh_strdup_printf("cannot prepare a round: %s", wh_strerror(rc)));
        return 0;
    }
    s_cancel_spec(r);
    if (r->job.speculate)
        s_speculate(r);
    return 1;
}

/* Runs the walk as far as the verdicts at hand allow. */
static void s_advance(wh_reduction_t *r)
{
    while (r->state == S_ROUNDS) {
        if (!r->round && !s_next_round(r))
            return;
        wh_verdict_t *v = calloc(r->nc > 0 ? (size_t)r->nc : 1u, sizeof *v);
        if (!v) {
            s_fail(r, 1, NULL);
            return;
        }
        for (int i = 0; i < r->nc; i++)
            v[i] = r->c[r->c[i].rep].v;
        int winner = -1;
        int ready = wh_round_winner(v, r->nc, &winner);
        free(v);
        if (!ready)
            return;
        /* Cancel what the round no longer needs. */
        for (int i = 0; i < r->nc; i++)
            if (r->c[i].rep == i && r->c[i].submitted && r->c[i].v == WH_V_NONE)
                wh_pool_cancel(r->pool, r->pool_id, r->c[i].eval_id);
        s_record_round(r, winner);
        if (winner >= 0)
            wh_record_log(r->rec, "           accepted cand_%03d", r->candidates);
        char key[65];
        snprintf(key, sizeof key, "%s", winner >= 0 ? r->c[r->c[winner].rep].key : "");
        s_clear_round(r);
        wh_engine_resolve(r->engine, winner);
        if (winner >= 0 && wh_trail_accept(r->trail, r->engine, key, r->candidates)) {
            s_fail(r, 1, NULL);
            return;
        }
    }
}

/* ---- exact compile flags (DESIGN.md "Statement tree"): after the
 * baseline, the tree is parsed again with the test file's compile command
 * from the warm workspace, unless the user gave -p or `--` ---- */

static wh_engine_t *s_engine_for(const wh_tree_t *t, wh_algo_t algo, wh_walk_t walk)
{
    int *parent = malloc(sizeof(int) * (size_t)(t->n ? t->n : 1));
    for (int i = 0; parent && i < t->n; i++)
        parent[i] = t->units[i].parent;
    wh_engine_t *e = parent ? wh_engine_new(t->n, parent, algo, walk) : NULL;
    free(parent);
    return e;
}

/* Takes tree t (and a new engine for it) in place of the guessed one. */
static int s_use_tree(wh_reduction_t *r, wh_tree_t *t, const char *how)
{
    wh_engine_t *e = s_engine_for(t, r->job.algo, r->job.walk);
    /* The walk starts over on the new tree: so does the verify trail. */
    wh_trail_t *trail = e ? wh_trail_new(e) : NULL;
    if (!trail) {
        wh_engine_destroy(&e);
        wh_tree_destroy(&t);
        return WH_ENOMEM;
    }
    if (t->n != r->tree->n) {
        s_out(r, "Statement tree %s: %d statements (the header guess saw %d)\n", how, t->n,
              r->tree->n);
    }
    wh_record_log(r->rec, "statement tree %s: %d statements (the header guess saw %d)", how, t->n,
                  r->tree->n);
    wh_engine_destroy(&r->engine);
    wh_trail_destroy(&r->trail);
    wh_tree_destroy(&r->tree);
    r->engine = e;
    r->trail = trail;
    r->tree = t;
    return 0;
}

/* After s_use_tree: the precheck follows the new tree's flags. async: the
 * setup runs off this thread and the baseline's fingerprint waits for it
 * (wh_reduction_poll); 1 when it does. */
static int s_precheck_follow(wh_reduction_t *r, int async)
{
    if (r->job.precheck == WH_PRECHECK_OFF)
        return 0;
    s_precheck_open(r, async);
    if (async && r->pc) {
        r->pc_pending = 1;
        return 1;
    }
    return 0;
}

static void s_take_fingerprint(wh_reduction_t *r, const wh_fp_t *observed);

/* Says so when the tree in use was parsed with errors allowed. */
static void s_warn_diag(wh_reduction_t *r)
{
    if (!r->tree->diag)
        return;
    s_out(r, "Warning: %s (--allow-parse-errors: the statement tree may be incomplete)\n",
          r->tree->diag);
    wh_record_log(r->rec, "parse errors allowed: %s", r->tree->diag);
}

/* Starts parsing the test with cmd (moved to the project) off this thread. */
static int s_start_treejob(wh_reduction_t *r, const wh_compile_cmd_t *cmd)
{
    char *path = wh_path_join(r->job.project, r->job.file);
    wh_tree_opts_t to = {NULL, NULL, 0, cmd, r->job.allow_parse_errors};
    r->treejob = path ? wh_treejob_start(path, r->job.test, &to) : NULL;
    free(path);
    return r->treejob ? 0 : WH_ENOMEM;
}

/* After a fresh baseline: cmd is the compile command the workspace at ws
 * recorded (NULL: none). It is cached with the fingerprint ("cc:<job>").
 * With a command, the tree is parsed on a thread of its own (treejob.h)
 * and the baseline's fingerprint waits in pending_fp for
 * wh_reduction_poll. Returns 0 to go on now, 1 when parsing, -1 when the
 * reduction failed (exit 1). */
static int s_exact_tree(wh_reduction_t *r, const wh_compile_cmd_t *cmd, const char *ws,
                        const wh_fp_t *observed)
{
    if (wh_job_flags_explicit(&r->job))
        return 0;
    wh_compile_cmd_t moved = {0};
    if (cmd && ws && (wh_compile_cmd_copy(&moved, cmd) ||
                      wh_compile_cmd_rebase(&moved, ws, r->job.project))) {
        s_fail(r, 1, NULL);
        wh_compile_cmd_clear(&moved);
        return -1;
    }
    char key[80], *js = wh_compile_cmd_to_json(&moved);
    snprintf(key, sizeof key, "cc:%s", r->job_id);
    if (js) {
        wh_cache_put_blob(r->cache, key, js);
        wh_record_file(r->rec, "compile_command.json", js, strlen(js));
    }
    free(js);
    int rc = 0;
    if (moved.argc) {
        if (s_start_treejob(r, &moved) || wh_fp_copy(&r->pending_fp, observed)) {
            s_fail(r, 1, strdup("cannot start parsing the test with the workspace's compile "
                                "command"));
            rc = -1;
        } else {
            rc = 1;
        }
    } else if (r->tree->diag && !r->job.allow_parse_errors) {
        s_fail(r, 1, wh_strdup_printf("%s; the statement tree may be incomplete and the workspace "
                                      "recorded no compile command for %s: give -p BUILD_DIR (a "
                                      "compile_commands.json), -- -I... flags, or "
                                      "--allow-parse-errors", r->tree->diag, r->job.file));
        rc = -1;
    }
    if (rc == 0)
        s_warn_diag(r);
    wh_compile_cmd_clear(&moved);
    return rc;
}

/* The exact tree is parsed: take it, then the pending fingerprint. */
static void s_exact_tree_done(wh_reduction_t *r)
{
    wh_tree_t *t = NULL;
    char *err = NULL;
    int rc = wh_treejob_finish(&r->treejob, &t, &err);
    if (r->state != S_BASELINE) { /* aborted meanwhile */
        wh_tree_destroy(&t);
        free(err);
        return;
    }
    if (rc == 0 && (t->text_len != r->tree->text_len ||
                    memcmp(t->text, r->tree->text, t->text_len) != 0)) {
        err = wh_strdup_printf("%s changed while whittle was running", r->job.file);
        rc = WH_EINVAL;
    }
    if (rc == 0) {
        rc = s_use_tree(r, t, "with the workspace's compile command");
        t = NULL;
    }
    wh_tree_destroy(&t);
    if (rc) {
        s_fail(r, 1, wh_strdup_printf("%s (parsed with the compile command that the warm "
                                      "workspace recorded)", err ? err : wh_strerror(rc)));
        free(err);
        return;
    }
    s_warn_diag(r);
    if (s_precheck_follow(r, 1))
        return;
    s_take_fingerprint(r, &r->pending_fp);
    wh_fp_clear(&r->pending_fp);
}

void wh_reduction_poll(wh_reduction_t *r)
{
    if (r->treejob && wh_treejob_done(r->treejob))
        s_exact_tree_done(r);
    if (r->pc_pending && wh_precheck_ready(r->pc)) {
        r->pc_pending = 0;
        s_precheck_say(r);
        if (r->state == S_BASELINE) {
            s_take_fingerprint(r, &r->pending_fp);
            wh_fp_clear(&r->pending_fp);
        }
    }
}

/* A cached fingerprint is used only with the cached compile command, and
 * only when the tree parses with it now (a header it named may have lived
 * in a workspace that is gone); otherwise the original runs again. This
 * parse runs on the calling thread: a rerun answered from the cache must
 * finish inside wh_reduction_start, as it always has (two jobs that differ
 * only in their walk share one job id and must not overlap). */
static int s_cached_flags_ok(wh_reduction_t *r)
{
    if (wh_job_flags_explicit(&r->job))
        return 1;
    char key[80], *js = NULL;
    snprintf(key, sizeof key, "cc:%s", r->job_id);
    wh_compile_cmd_t cmd;
    if (wh_cache_get_blob(r->cache, key, &js) != 0 || !js || wh_compile_cmd_from_json(js, &cmd)) {
        free(js);
        return 0;
    }
    free(js);
    if (cmd.argc == 0)
        return !r->tree->diag || r->job.allow_parse_errors;
    char *path = wh_path_join(r->job.project, r->job.file), *err = NULL;
    wh_tree_opts_t to = {NULL, NULL, 0, &cmd, r->job.allow_parse_errors};
    wh_tree_t *t = NULL;
    int rc = path ? wh_tree_load(path, r->job.test, &to, &t, &err) : WH_ENOMEM;
    free(path);
    if (rc == 0 && (t->text_len != r->tree->text_len ||
                    memcmp(t->text, r->tree->text, t->text_len) != 0))
        rc = WH_EINVAL;
    if (rc == 0) {
        rc = s_use_tree(r, t, "with the cached compile command");
        if (rc == 0)
            s_precheck_follow(r, 0);
        t = NULL;
    } else {
        wh_record_log(r->rec, "cached compile command does not parse now (%s); running the "
                      "original again", err ? err : wh_strerror(rc));
    }
    wh_tree_destroy(&t);
    free(err);
    wh_compile_cmd_clear(&cmd);
    return rc == 0;
}

/* ---- the verify step (DESIGN.md, "Trust"): the answer is not a claim ---- */

/* Builds and runs trail step `step` afresh: on a slot other than the one
 * that judged it (or that slot in a new workspace), never from the cache,
 * K times with --repeat K. The newest step is the reduced test; older ones
 * are re-judged, newest first, when it fails the check. */
static void s_start_verify(wh_reduction_t *r, int step)
{
    size_t len = 0;
    char *txt = wh_render(r->tree, wh_trail_removed(r->trail, step), &len);
    const char *judge = wh_trail_judge(r->trail, step);
    r->verify_step = step;
    r->verify_id = ++r->next_eval;
    r->state = S_VERIFY;
    int rc = txt ? wh_pool_submit_verify(r->pool, r->pool_id, r->verify_id, txt, len, judge)
                 : WH_ENOMEM;
    free(txt);
    if (rc) {
        s_fail(r, 4, wh_strdup_printf("cannot queue the verify run: %s", wh_strerror(rc)));
        return;
    }
    int cand = wh_trail_cand(r->trail, step);
    char what[64];
    if (cand)
        snprintf(what, sizeof what, "cand_%03d's configuration", cand);
    else
        snprintf(what, sizeof what, "the original test");
    wh_record_log(r->rec, "verify: building and running %s afresh (judged by %s)", what,
                  judge ? judge : cand ? "the cache" : "the baseline");
    if (step == wh_trail_steps(r->trail) - 1)
        s_out(r, "Verifying: building and running the reduced test afresh%s\n",
              r->job.repeat > 1 ? " (--repeat)" : "");
}

/* The reduced test was verified: on to the fault check, or done. */
static void s_verified(wh_reduction_t *r, const char *worker, const wh_msg_t *m)
{
    r->verified = 1;
    int runs = m->runs ? (int)m->runs : 1;
    wh_record_log(r->rec, "verify: the reduced test fails the same way afresh on %s (%d run%s)",
                  worker, runs, runs == 1 ? "" : "s");
    s_out(r, "Verified: the reduced test fails the same way when built and run afresh "
          "(%d run%s, slot %s)\n", runs, runs == 1 ? "" : "s", worker);
    if (r->job.reference && !r->fault)
        s_start_refcheck(r);
    else
        s_finish(r);
}

static void s_drop_verdict(void *ctx, const char *key)
{
    wh_reduction_t *r = ctx;
    wh_cache_drop(r->cache, key);
    wh_record_log(r->rec, "verify: dropped verdict %s from the cache", key);
}

static void s_exclude_node(void *ctx, const char *node)
{
    wh_reduction_t *r = ctx;
    wh_pool_exclude_node(r->pool, r->pool_id, node);
    wh_record_log(r->rec, "verify: node %s gave wrong verdicts; it is out of this job", node);
    s_out(r, "Verify: node %s gave wrong verdicts; it is out of this job\n", node);
}

/* Steps after `good` were accepted on wrong verdicts (step good was just
 * verified): drop them (and their judges' other verdicts) from every cache
 * and resume the walk as it was right after step good. */
static void s_resume_from(wh_reduction_t *r, int good)
{
    if (++r->restarts > S_MAX_RESTARTS) {
        s_fail(r, 3, wh_strdup_printf("the reduced test of %s could not be verified: wrong "
                                      "verdicts were found %d times", r->job.test,
                                      r->restarts));
        return;
    }
    /* The judges are blamed against the slot that refuted the newest wrong
     * step, not the one that confirmed step good. */
    wh_trail_blame_t how = {s_drop_verdict, s_exclude_node, r};
    int n = wh_trail_blame(r->trail, good, wh_pool_node_of(r->pool, r->refuter), &how);
    r->dropped += n;
    wh_engine_destroy(&r->engine);
    r->engine = wh_trail_rewind(r->trail, good);
    if (!r->engine) {
        s_fail(r, 1, NULL);
        return;
    }
    char from[32] = "the original";
    if (wh_trail_cand(r->trail, good))
        snprintf(from, sizeof from, "cand_%03d", wh_trail_cand(r->trail, good));
    wh_record_log(r->rec, "verify: %d verdict%s dropped as wrong; the reduction continues from %s",
                  n, n == 1 ? "" : "s", from);
    s_out(r, "Verify: the reduced test does not fail the same way afresh; %d verdict%s dropped, "
          "continuing from the last verified configuration\n", n, n == 1 ? "" : "s");
    r->verify_tries = 0;
    r->last_sweep = r->last_level = -1;
    r->state = S_ROUNDS;
    s_advance(r);
}

static void s_on_verify(wh_reduction_t *r, const wh_msg_t *m, const char *worker)
{
    int step = r->verify_step;
    const char *d = m->detail ? m->detail : "";
    r->verify_runs++;
    if (m->report_len) {
        char *name = wh_strdup_printf("reports/verify-%d.report", r->verify_runs);
        wh_record_file(r->rec, name, m->report, m->report_len);
        free(name);
    }
    /* A build failure is a verdict (code WH_EBUILD); anything else with a
     * code is the infrastructure's, and the run is tried again. */
    if ((m->code && m->code != WH_EBUILD) || m->verdict == WH_V_INFRA_ERROR ||
        m->verdict == WH_V_NONE || m->verdict >= WH_V_COUNT) {
        wh_record_log(r->rec, "verify: no verdict from %s: %s", worker, d);
        if (++r->verify_tries >= S_VERIFY_TRIES)
            s_fail(r, 4, wh_strdup_printf("cannot verify the reduced test: %s", d));
        else
            s_start_verify(r, step);
        return;
    }
    r->verify_tries = 0;
    if (m->verdict == WH_V_PRESERVED && step < wh_trail_steps(r->trail) - 1)
        wh_record_log(r->rec, "verify: %s fails the same way afresh on %s: verified",
                      step ? "the configuration" : "the original", worker);
    if (m->verdict == WH_V_PRESERVED) {
        if (step == wh_trail_steps(r->trail) - 1)
            s_verified(r, worker, m);
        else
            s_resume_from(r, step);
        return;
    }
    wh_record_log(r->rec, "verify: %s afresh on %s: %s (%s)",
                  step ? "the configuration" : "the original",
                  worker, wh_verdict_name((wh_verdict_t)m->verdict), d);
    free(r->refuter);
    r->refuter = strdup(worker ? worker : "-");
    if (step == 0) {
        s_fail(r, 3, wh_strdup_printf("the original test %s does not fail the same way when "
                                      "built and run afresh (%s: %s); is it flaky? try --repeat K",
                                      r->job.test, wh_verdict_name((wh_verdict_t)m->verdict), d));
        return;
    }
    s_start_verify(r, step - 1);
}

/* ---- verdicts ---- */

/* The original's run went wrong (setup, build, infrastructure, not found,
 * passing, skipped): the run stops. 1 when it did. */
static int s_baseline_failed(wh_reduction_t *r, const wh_msg_t *m)
{
    const char *d = m->detail ? m->detail : "";
    if (m->code == WH_ESETUP) {
        s_fail(r, 3, wh_strdup_printf("setup failed for %s: %s", r->job.project, d));
        return 1;
    }
    if (m->code == WH_EBUILD) {
        /* The build log says why: its last 30 lines, then the error. */
        if (m->report_len)
            wh_record_file(r->rec, "reports/original.report", m->report, m->report_len);
        s_show_tail(r, m, 30, "build's output");
        s_fail(r, 3, wh_strdup_printf("original does not build: %s (%s)", r->job.file, d));
        return 1;
    }
    char *missing = m->code == WH_ETAINT ? wh_baseline_not_found(d) : NULL;
    if (missing) {
        s_fail(r, 4, wh_strdup_printf("command not found: %s (in --run); %s", missing, d));
        free(missing);
        return 1;
    }
    if (m->code == WH_ETAINT) {
        s_fail(r, 4, wh_strdup_printf("the original run could not be judged: %s", d));
        return 1;
    }
    if (m->code) {
        s_fail(r, 4, wh_strdup_printf("original run failed: %s", d));
        return 1;
    }
    if (m->report_len)
        wh_record_file(r->rec, "reports/original.report", m->report, m->report_len);
    if (m->verdict == WH_V_INFRA_ERROR) {
        if (strstr(d, "timed out"))
            s_fail(r, 3, wh_strdup_printf("original run of %s: %s", r->job.test, d));
        else
            s_refuse(r, m, wh_strdup_printf("report missing on the original run of %s: %s",
                                            r->job.test, d));
        return 1;
    }
    char *why = wh_baseline_refusal(&r->job, (int)m->test_status, &m->observed);
    if (!why && m->test_status == 2 /* WH_TR_FAILED */ && r->tree)
        why = wh_foreign_refusal(&r->job, &m->observed, r->tree->text, r->tree->text_len,
                                 r->tree->body_begin);
    if (why) {
        s_refuse(r, m, why);
        return 1;
    }
    switch (m->test_status) {
    case 1:
        s_fail(r, 3, wh_strdup_printf("original test passes: %s in %s", r->job.test,
                                      r->job.file));
        return 1;
    case 3:
        s_fail(r, 3, wh_strdup_printf("original test is skipped: %s", r->job.test));
        return 1;
    default:
        return 0;
    }
}

/* With --repeat: an original whose runs disagree stops the run unless
 * --flaky-ok allows it. 1 when the run stopped. */
static int s_baseline_flaky(wh_reduction_t *r, const wh_msg_t *m)
{
    const char *d = m->detail ? m->detail : "";
    int runs = m->runs ? (int)m->runs : 1;
    int agree = m->agreeing_runs ? (int)m->agreeing_runs : 1;
    if (runs <= 1 || agree >= runs)
        return 0;
    if (!r->job.flaky_ok) {
        s_fail(r, 3, wh_strdup_printf("original test is flaky: it failed the same way in "
                                      "%d of %d runs (%s); use --flaky-ok R to reduce it anyway",
                                      agree, runs, d));
        return 1;
    }
    if (agree < r->job.flaky_ok) {
        s_fail(r, 3, wh_strdup_printf("original test failed the same way in only %d of %d runs, "
                                      "below --flaky-ok %d (%s)", agree, runs,
                                      r->job.flaky_ok, d));
        return 1;
    }
    wh_record_log(r->rec, "original is flaky: %d of %d runs failed the same way (%s); "
                  "accepting candidates that preserve in at least %d", agree, runs, d,
                  r->job.flaky_ok);
    s_out(r, "Original is flaky: %d of %d runs failed the same way; --flaky-ok %d\n",
          agree, runs, r->job.flaky_ok);
    return 0;
}

/* Records the fingerprint (cache, run folder, pool) and starts the walk. */
static void s_take_fingerprint(wh_reduction_t *r, const wh_fp_t *observed)
{
    wh_fp_copy(&r->fp, observed);
    char *js = s_fp_to_json(&r->fp);
    char fpkey[80];
    snprintf(fpkey, sizeof fpkey, "fp:%s", r->job_id);
    wh_cache_put_blob(r->cache, fpkey, js);
    wh_record_file(r->rec, "fingerprint.json", js, strlen(js));
    s_out(r, "Fingerprint: %s | %s | %s\n", r->fp.test ? r->fp.test : "",
          r->fp.location ? r->fp.location : "", r->fp.message ? r->fp.message : "");
    free(js);
    wh_pool_set_ref(r->pool, r->pool_id, &r->fp);
    r->state = S_ROUNDS;
    s_advance(r);
}

static void s_on_baseline(wh_reduction_t *r, const wh_msg_t *m)
{
    if (s_baseline_failed(r, m) || s_baseline_flaky(r, m))
        return;
    if (s_exact_tree(r, m->compile.argc ? &m->compile : NULL, m->compile_root, &m->observed))
        return; /* failed, or parsing: wh_reduction_poll goes on */
    s_take_fingerprint(r, &m->observed);
}

static void s_on_refcheck(wh_reduction_t *r, const wh_msg_t *m)
{
    const char *d = m->detail ? m->detail : "";
    if (m->code == WH_ESETUP)
        r->fault = wh_strdup_printf("unknown: setup failed on the reference (%s)", d);
    else if (m->verdict == WH_V_BUILD_FAILED)
        r->fault = strdup("unknown: the reduced test does not build on the reference");
    else if (m->verdict == WH_V_INFRA_ERROR || m->code)
        r->fault = wh_strdup_printf("unknown: %s", d);
    else if (m->test_status == 1)
        r->fault = strdup("kept");
    else if (m->test_status == 2)
        r->fault = strdup("lost");
    else
        r->fault = wh_baseline_reference_unknown(&r->job);
    r->fault_detail = wh_strdup_printf("%s | %s | %s", m->observed.test ? m->observed.test : "",
                                       m->observed.location ? m->observed.location : "",
                                       m->observed.message ? m->observed.message : "");
    s_finish(r);
}

/* Notes who judged key, for the verify step. */
static void s_judged(wh_reduction_t *r, const char *key, const char *worker)
{
    if (wh_trail_judged(r->trail, key, worker, wh_pool_node_of(r->pool, worker)))
        s_fail(r, 1, NULL);
}

/* A message whose repeated runs disagreed: flaky, never cached. */
static int s_msg_flaky(const wh_msg_t *m)
{
    return m->runs > 1 && m->agreeing_runs > 0 && m->agreeing_runs < m->runs;
}

/* A speculation finished before the walk came to it: its verdict only goes
 * to the cache (never InfraError, never a flaky one). 1 when id was one. */
static int s_on_speculation(wh_reduction_t *r, uint64_t id, const wh_msg_t *m,
                            const char *worker)
{
    int k = 0;
    while (k < r->nspec && r->spec[k].id != id)
        k++;
    if (k == r->nspec)
        return 0;
    if (m->verdict >= 1 && m->verdict < WH_V_COUNT && m->verdict != WH_V_INFRA_ERROR &&
        !s_msg_flaky(m) && !m->code) {
        wh_cache_put_node(r->cache, WH_CACHE_VERDICTS, r->spec[k].key,
                          (wh_verdict_t)m->verdict, wh_pool_key_of(r->pool, worker));
        s_judged(r, r->spec[k].key, worker);
    }
    wh_record_log(r->rec, "           speculation e%04llu judged ahead: %s",
                  (unsigned long long)id, wh_verdict_name((wh_verdict_t)m->verdict));
    if (m->verdict == WH_V_INFRA_ERROR || m->code) {
        /* No verdict: not an evaluation, nothing to claim; the round
         * judges the candidate itself if it comes to it. */
        r->spec[k] = r->spec[--r->nspec];
        return 1;
    }
    r->extra++;
    r->evaluated++;
    if (r->ndone == r->capdone) {
        int cap = r->capdone ? 2 * r->capdone : 16;
        struct s_spec_done *nd = realloc(r->spec_done, (size_t)cap * sizeof *nd);
        if (nd) {
            r->spec_done = nd;
            r->capdone = cap;
        }
    }
    if (r->ndone < r->capdone) {
        struct s_spec_done *d = &r->spec_done[r->ndone++];
        memcpy(d->key, r->spec[k].key, 65);
        d->node = strdup(worker ? worker : "-");
        d->ms = (uint64_t)m->build_ms + m->test_ms;
        d->build_ms = m->build_ms;
        d->test_ms = m->test_ms;
        d->end_ms = wh_now_ms() - r->t0;
        d->report = NULL;
        if (m->report_len) {
            d->report = wh_strdup_printf("e%04llu.report", (unsigned long long)id);
            char *name = wh_strdup_printf("reports/%s", d->report);
            wh_record_file(r->rec, name, m->report, m->report_len);
            free(name);
        }
    }
    r->spec[k] = r->spec[--r->nspec];
    return 1;
}

/* A verdict for a candidate of the current round. */
static void s_on_candidate(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    for (int i = 0; i < r->nc; i++) {
        s_cand_t *c = &r->c[i];
        if (c->rep != i || !c->submitted || c->eval_id != id || c->v != WH_V_NONE)
            continue;
        if (m->code == WH_ETAINT) {
            /* No slot could judge it: an answer built on it would be a
             * guess. */
            s_fail(r, 4, wh_strdup_printf("infrastructure fault: candidate e%04llu could not be "
                                          "judged: %s", (unsigned long long)id,
                                          m->detail ? m->detail : ""));
            return;
        }
        c->v = m->verdict >= 1 && m->verdict < WH_V_COUNT ? (wh_verdict_t)m->verdict
                                                          : WH_V_INFRA_ERROR;
        c->evaluated = 1;
        c->node = strdup(worker ? worker : "-");
        c->ms = (uint64_t)m->build_ms + m->test_ms;
        c->build_ms = m->build_ms;
        c->test_ms = m->test_ms;
        c->end_ms = wh_now_ms() - r->t0;
        c->detail = wh_strdup0(m->detail);
        c->runs = (int)m->runs;
        c->agreeing = (int)m->agreeing_runs;
        if (m->report_len) {
            c->report = wh_strdup_printf("e%04llu.report", (unsigned long long)id);
            char *name = wh_strdup_printf("reports/%s", c->report);
            wh_record_file(r->rec, name, m->report, m->report_len);
            free(name);
        }
        /* InfraError is never cached: a retry may succeed. Neither is a
         * candidate whose repeated runs disagreed: flaky. */
        int flaky = s_msg_flaky(m);
        r->flaky += flaky;
        if (c->v != WH_V_INFRA_ERROR && !flaky)
            wh_cache_put_node(r->cache, WH_CACHE_VERDICTS, c->key, c->v,
                              wh_pool_key_of(r->pool, worker));
        if (c->v != WH_V_INFRA_ERROR)
            s_judged(r, c->key, worker);
        return;
    }
}

/* judged.csv: every answer a slot gave, whatever it was for. */
static void s_note_judged(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    int ahead = 0;
    for (int k = 0; k < r->nspec; k++)
        ahead |= r->spec[k].id == id;
    wh_judged_row_t j = {
        .eval = id, .slot = worker ? worker : "-",
        .kind = id == r->baseline_id ? "original" : id == r->refcheck_id ? "reference"
              : id == r->verify_id   ? "verify"   : ahead               ? "ahead"
                                                                        : "candidate",
        .verdict = m->code ? "InfraError"
                   : m->verdict >= 1 && m->verdict < WH_V_COUNT
                       ? wh_verdict_name((wh_verdict_t)m->verdict)
                       : "fingerprinted", /* the original's run gives no verdict */
        .build_ms = m->build_ms, .test_ms = m->test_ms, .end_ms = wh_now_ms() - r->t0,
    };
    if (r->rec)
        wh_record_judged(r->rec, &j);
}

static void s_on_verdict(void *ctx, uint64_t id, const wh_msg_t *m, const char *worker)
{
    wh_reduction_t *r = ctx;
    s_note_judged(r, id, m, worker);
    if (r->state == S_BASELINE && id == r->baseline_id) {
        s_on_baseline(r, m);
        return;
    }
    if (r->state == S_REFCHECK && id == r->refcheck_id) {
        s_on_refcheck(r, m);
        return;
    }
    if (r->state == S_VERIFY && id == r->verify_id) {
        s_on_verify(r, m, worker);
        return;
    }
    if (r->state != S_ROUNDS || !r->c)
        return;
    if (s_on_speculation(r, id, m, worker))
        return;
    s_on_candidate(r, id, m, worker);
    s_advance(r);
}

/* The pool's word on infrastructure faults (pool.h): run log, console,
 * the candidate's row, the summary. */
static void s_on_note(void *ctx, uint64_t id, wh_pool_note_t what, const char *worker,
                      const char *detail)
{
    wh_reduction_t *r = ctx;
    if (what == WH_POOL_NOTE_OUT) {
        wh_record_log(r->rec, "slot %s taken out of rotation: %s", worker, detail);
        s_out(r, "Slot %s taken out of rotation: %s\n", worker, detail);
        char **o = realloc(r->out_slots, (size_t)(r->n_out + 1) * sizeof *o);
        if (o && (o[r->n_out] = strdup(worker)) != NULL)
            r->n_out++;
        if (o)
            r->out_slots = o;
        return;
    }
    r->infra_faults++;
    wh_record_log(r->rec, "           infra: e%04llu on %s: %s (not a verdict)",
                  (unsigned long long)id, worker, detail);
    s_out(r, "Infrastructure fault on %s: %s\n", worker, detail);
    for (int i = 0; i < r->nc; i++) {
        s_cand_t *c = &r->c[i];
        if (c->rep != i || !c->submitted || c->eval_id != id)
            continue;
        char *n = wh_strdup_printf("%s%s%s: %s", c->infra ? c->infra : "", c->infra ? " | " : "",
                                   worker, detail);
        if (n) {
            free(c->infra);
            c->infra = n;
        }
    }
}

/* ---- results ---- */

/* Statement counts of the original and of the accepted configuration. */
static void s_count_units(const wh_reduction_t *r, wh_summary_t *s)
{
    const uint8_t *rem = wh_engine_removed(r->engine);
    const wh_tree_t *t = r->tree;
    s->before = t->n;
    for (int i = 0; i < t->n; i++) {
        int is_tree = t->units[i].is_tree;
        s->tree_before += is_tree;
        s->nontree_before += !is_tree;
        if (!rem[i]) {
            s->tree_after += is_tree;
            s->nontree_after += !is_tree;
        }
    }
    s->after = s->tree_after + s->nontree_after;
    s->removed = rem;
}

static void s_fill_summary(const wh_reduction_t *r, wh_summary_t *s)
{
    memset(s, 0, sizeof *s);
    s_count_units(r, s);
    s->test = r->tree->test;
    s->file = r->job.file;
    s->project = r->job.project;
    s->algorithm = wh_algo_name(r->job.algo);
    s->ddmin = r->job.algo == WH_ALGO_LINEAR ? "none"
               : wh_walk_name(r->job.algo == WH_ALGO_DD ? WH_WALK_CLASSIC : r->job.walk);
    s->job_id = r->job_id;
    s->cache = wh_cache_describe(r->cache);
    s->sweeps = wh_engine_sweeps(r->engine);
    s->rounds = wh_engine_rounds(r->engine);
    s->candidates = r->candidates;
    s->evaluated = r->evaluated;
    s->predicted = r->predicted;
    s->cached = r->cached;
    s->extra = r->extra;
    s->building_rounds = r->building_rounds;
    s->cancelled = r->cancelled;
    s->verdicts = r->verdicts;
    s->wall_ms = r->wall_ms;
    s->jobs = r->job.jobs;
    s->fp = &r->fp;
    s->flaky = r->flaky;
    s->speculated = r->speculated;
    s->spec_used = r->spec_used;
    wh_pool_warm_t w;
    if (r->pool && wh_pool_warm_stats(r->pool, r->pool_id, &w) == 0) {
        s->warm_known = 1;
        s->warm_setups = w.setups;
        s->warm_clones = w.clones;
        s->warm_failed = w.failed;
        s->warm_setup_ms = w.setup_ms;
        s->warm_clone_ms = w.clone_ms;
        s->warm_first_ms = w.first_warm_ms;
    }
    s->repeat = r->job.repeat;
    s->reference = r->job.reference;
    s->keep_fault = r->job.keep_fault;
    s->fault = r->fault;
    s->fault_detail = r->fault_detail;
    s->infra_faults = r->infra_faults;
    s->out_slots = r->out_slots;
    s->n_out = r->n_out;
    s->verified = r->verified;
    s->verify_runs = r->verify_runs;
    s->dropped = r->dropped;
    s->restarts = r->restarts;
}

/* Writes the reduced test (line-true and compact) and keeps the function's
 * text for the console. */
static void s_write_reduced(wh_reduction_t *r)
{
    const uint8_t *rem = wh_engine_removed(r->engine);
    size_t len = 0, clen = 0;
    char *lines = wh_render(r->tree, rem, &len);
    char *compact = wh_render_compact(r->tree, rem, &clen);
    wh_record_reduced(r->rec, wh_job_ext(&r->job), lines, len, compact, clen);
    r->result_text = lines ? wh_function_text(r->tree->text, r->tree->text_len, r->tree->body_begin,
                                             r->tree->body_end, lines)
                           : NULL;
    /* a/ and b/ name the file in the project, for `patch -p1` there */
    char *an = wh_strdup_printf("a/%s", r->job.file), *bn = wh_strdup_printf("b/%s", r->job.file);
    size_t dlen = 0;
    r->diff = compact && an && bn ? wh_udiff(r->tree->text, r->tree->text_len, compact, clen, an,
                                             bn, 3, &dlen)
                                  : NULL;
    if (r->diff)
        wh_record_file(r->rec, "reduced.diff", r->diff, dlen);
    free(an);
    free(bn);
    free(lines);
    free(compact);
}

/* tree.json: every unit, and the accepted candidate after which it (or a
 * unit around it) stayed removed, from the trail's steps. */
static void s_write_tree(wh_reduction_t *r)
{
    const wh_tree_t *t = r->tree;
    int n = t ? t->n : 0, steps = r->trail ? wh_trail_steps(r->trail) : 0;
    wh_record_unit_t *u = calloc((size_t)(n ? n : 1), sizeof *u);
    uint8_t *gone = calloc((size_t)(n ? n : 1), 1);
    char **heads = calloc((size_t)(n ? n : 1), sizeof *heads);
    for (int s = 1; u && gone && heads && s < steps; s++) {
        const uint8_t *rem = wh_trail_removed(r->trail, s);
        for (int i = 0; i < n; i++) {
            int p = t->units[i].parent;
            gone[i] = rem[i] || (p >= 0 && gone[p]); /* pre-order: the parent is done */
            u[i].removed_by = !gone[i] ? 0 : u[i].removed_by ? u[i].removed_by
                                                             : wh_trail_cand(r->trail, s);
        }
    }
    for (int i = 0; u && heads && i < n; i++) {
        const wh_unit_t *w = &t->units[i];
        heads[i] = wh_tree_unit_head(t, i, 160);
        u[i].parent = w->parent;
        u[i].level = w->level;
        u[i].is_tree = w->is_tree;
        u[i].kind = wh_tree_kind_name(w->kind);
        u[i].line = w->line;
        u[i].head = heads[i];
    }
    if (u && gone && heads)
        wh_record_tree(r->rec, t ? t->test : NULL, u, n);
    for (int i = 0; heads && i < n; i++)
        free(heads[i]);
    free(heads);
    free(gone);
    free(u);
}

static void s_finish(wh_reduction_t *r)
{
    r->wall_ms = wh_now_ms() - r->t0;
    s_write_reduced(r);
    s_write_tree(r);
    wh_summary_t s;
    wh_precheck_summary_t pc;
    char *list = NULL;
    s_fill_summary(r, &s);
    s_precheck_summary(r, &pc, &list);
    s.precheck = &pc;
    wh_record_summary(r->rec, &s);
    free(list);
    const char *line = wh_record_fault_line(r->job.reference ? r->fault : NULL, r->job.keep_fault);
    s_out(r, "Fault check: %s\n", line);
    wh_record_log(r->rec, "fault check: %s", line);
    char dropped[64] = "";
    if (r->dropped)
        snprintf(dropped, sizeof dropped, " (%d verdicts found wrong were dropped)", r->dropped);
    r->closing = wh_strdup_printf("Verified: the reduced test fails the same way when built and "
                                  "run afresh%s\nFault check: %s\n", dropped, line);
    char *final = wh_record_final_line(&s);
    wh_record_log(r->rec, "Final: %s", final ? final : "(out of memory)");
    s_out(r, "Final: %s\n", final ? final : "(out of memory)");
    free(final);
    s_write_page(r);
    r->state = S_DONE;
    r->status = 0;
    wh_pool_remove_job(r->pool, r->pool_id);
}

/* ---- lifecycle ---- */

wh_reduction_t *wh_reduction_new(const wh_job_t *job, wh_pool_t *pool, wh_cache_t *cache,
                                 int quiet, char **err)
{
    wh_reduction_t *r = wh_reduction_prepare(job, quiet, err);
    if (r && wh_reduction_start(r, pool, cache, err))
        wh_reduction_destroy(&r);
    return r;
}

wh_reduction_t *wh_reduction_prepare(const wh_job_t *job, int quiet, char **err)
{
    wh_reduction_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = strdup("out of memory");
        return NULL;
    }
    r->t0 = wh_now_ms();
    r->quiet = quiet;
    r->last_sweep = r->last_level = -1;
    /* a private copy of the job */
    if (wh_job_copy(&r->job, job)) {
        *err = strdup("out of memory");
        free(r);
        return NULL;
    }

    char *path = wh_path_join(r->job.project, r->job.file);
    /* Without the user's flags this parse uses the header guess: the tree
     * is parsed again after the baseline with the warm workspace's compile
     * command (s_exact_tree), so a header the guess misses is judged then;
     * any other error stops here. */
    wh_tree_opts_t to = {r->job.compdb, (const char *const *)r->job.args, r->job.nargs, NULL,
                         r->job.allow_parse_errors          ? WH_TREE_ALLOW_ERRORS
                         : !wh_job_flags_explicit(&r->job) ? WH_TREE_ALLOW_MISSING_HEADERS
                                                           : 0};
    int rc = wh_tree_load(path, r->job.test, &to, &r->tree, err);
    free(path);
    if (rc)
        goto fail;
    r->engine = s_engine_for(r->tree, r->job.algo, r->job.walk);
    r->trail = r->engine ? wh_trail_new(r->engine) : NULL;
    if (!r->engine || !r->trail) {
        *err = strdup("cannot create the reduction engine");
        goto fail;
    }
    wh_identity_basis_t basis;
    rc = wh_identity_snapshot(r->job.project, r->job.file, r->job.out, r->job.ignore,
                              r->job.nignore, r->snapshot, &basis, err);
    if (rc)
        goto fail;
    wh_job_identity(&r->job, r->snapshot, r->job_id);
    r->rec = wh_record_open(r->job.out, r->tree->test, err);
    if (!r->rec)
        goto fail;
    char *name = wh_strdup_printf("original%s", wh_job_ext(&r->job));
    wh_record_file(r->rec, name, r->tree->text, r->tree->text_len);
    free(name);
    char *jj = wh_job_to_json(&r->job);
    if (jj) {
        wh_record_file(r->rec, "job.json", jj, strlen(jj));
        free(jj);
    }
    wh_record_log(r->rec, "whittle: reducing %s in %s (project %s), algorithm %s, job %s",
                  r->tree->test, r->job.file, r->job.project,
                  wh_algo_name(r->job.algo), r->job_id);
    wh_record_log(r->rec, "job identity: %s%s, snapshot %s",
                  basis == WH_IDENTITY_GIT ? "the project's tracked git files"
                                           : "every project file but outputs and build folders",
                  r->job.nignore ? " minus --ignore globs" : "", r->snapshot);
    s_precheck_open(r, 0);

    return r;
fail:
    wh_reduction_destroy(&r);
    return NULL;
}

int wh_reduction_start(wh_reduction_t *r, wh_pool_t *pool, wh_cache_t *cache, char **err)
{
    int rc;
    wh_job_spec_t spec = {0};
    spec.job_id = r->pool_id;
    spec.snapshot_id = r->snapshot;
    spec.project = r->job.project;
    spec.test_file = r->job.file;
    spec.test = r->job.test;
    spec.setup_cmd = r->job.setup;
    spec.build_cmd = r->job.build;
    spec.run_cmd = r->job.run;
    spec.framework = r->job.framework;
    spec.build_timeout_ms = r->job.build_timeout_ms;
    spec.test_timeout_ms = r->job.test_timeout_ms;
    spec.setup_timeout_ms = r->job.setup_timeout_ms;
    spec.match = (uint32_t)r->job.match;
    spec.failure_regex = r->job.failure_regex;
    spec.pass_regex = r->job.pass_regex;
    spec.message_continuation = r->job.message_continuation;
    spec.pass_on_exit0 = r->job.pass_on_exit0;
    spec.repeat = (uint32_t)r->job.repeat;
    spec.flaky_ok = (uint32_t)r->job.flaky_ok;
    spec.reference = r->job.reference;
    /* A snapshot: nodes check it out themselves (the paths above are ours). */
    spec.git_url = r->job.git_url;
    spec.git_rev = r->job.git_rev;
    spec.git_subdir = r->job.git_subdir;
    spec.git_reference = r->job.git_reference;
    spec.git_patch = r->job.git_patch;
    spec.git_patch_len = r->job.git_patch_len;
    spec.keep_fault = r->job.keep_fault;
    char *ex[1] = {r->job.out};
    spec.exclude = ex;
    spec.n_exclude = 1;
    /* The job identity leaves out what does not change a verdict (the
     * algorithm, for one), so two running reductions may share it: they
     * share the cache, not the pool's queue. */
    snprintf(r->pool_id, sizeof r->pool_id, "%s", r->job_id);
    for (int k = 2; (rc = wh_pool_add_job(pool, &spec, s_on_verdict, r)) == WH_EINVAL && k < 1000;
         k++) {
        snprintf(r->pool_id, sizeof r->pool_id, "%s~%d", r->job_id, k);
        spec.job_id = r->pool_id;
    }
    if (rc) {
        *err = wh_strdup_printf("cannot register job %s: %s", r->job_id, wh_strerror(rc));
        return rc;
    }
    wh_pool_set_note(pool, r->job_id, s_on_note);
    wh_pool_set_render(pool, r->pool_id, s_render_cand);
    r->pool = pool;
    r->cache = cache;

    /* The fingerprint of this exact job may be known already. */
    char fpkey[80];
    snprintf(fpkey, sizeof fpkey, "fp:%s", r->job_id);
    char *cached_fp = NULL;
    if (wh_cache_get_blob(cache, fpkey, &cached_fp) == 0 && cached_fp &&
        s_fp_from_json(cached_fp, &r->fp) == 0 && wh_baseline_fp_usable(&r->job, &r->fp) &&
        s_cached_flags_ok(r)) {
        wh_record_file(r->rec, "fingerprint.json", cached_fp, strlen(cached_fp));
        wh_record_log(r->rec, "fingerprint from the cache: %s", cached_fp);
        s_out(r, "Fingerprint (cached): %s | %s | %s\n", r->fp.test ? r->fp.test : "",
              r->fp.location ? r->fp.location : "", r->fp.message ? r->fp.message : "");
        free(cached_fp);
        wh_pool_set_ref(pool, r->pool_id, &r->fp);
        r->state = S_ROUNDS;
        s_advance(r);
        return 0;
    }
    free(cached_fp);
    wh_fp_clear(&r->fp); /* none, or one that identifies nothing: run the original */
    r->state = S_BASELINE;
    r->baseline_id = ++r->next_eval;
    rc = wh_pool_submit(pool, r->pool_id, r->baseline_id, r->tree->text, r->tree->text_len,
                        WH_TASK_BASELINE);
    if (rc) {
        *err = wh_strdup_printf("cannot queue the original run: %s", wh_strerror(rc));
        wh_pool_remove_job(pool, r->pool_id);
        r->pool = NULL;
        return rc;
    }
    return 0;
}

void wh_reduction_destroy(wh_reduction_t **rp)
{
    wh_reduction_t *r = *rp;
    if (!r)
        return;
    if (r->state != S_DONE && r->state != S_FAILED && r->pool)
        wh_pool_remove_job(r->pool, r->pool_id);
    s_clear_round(r);
    if (r->treejob) {
        wh_tree_t *t = NULL;
        char *err = NULL;
        wh_treejob_finish(&r->treejob, &t, &err);
        wh_tree_destroy(&t);
        free(err);
    }
    wh_fp_clear(&r->pending_fp);
    wh_engine_destroy(&r->engine);
    wh_trail_destroy(&r->trail);
    wh_tree_destroy(&r->tree);
    wh_record_close(&r->rec);
    wh_fp_clear(&r->fp);
    wh_job_clear(&r->job);
    free(r->error);
    free(r->result_text);
    free(r->diff);
    free(r->closing);
    free(r->fault);
    free(r->fault_detail);
    free(r->refuter);
    free(r->spec);
    s_spec_done_clear(r);
    free(r->spec_done);
    for (int i = 0; i < r->n_out; i++)
        free(r->out_slots[i]);
    free(r->out_slots);
    wh_precheck_destroy(&r->pc);
    free(r->pc_off);
    json_decref(r->disagreements);
    free(r);
    *rp = NULL;
}

int wh_reduction_done(const wh_reduction_t *r)
{
    return r->state == S_DONE || r->state == S_FAILED;
}


int wh_reduction_status(const wh_reduction_t *r, const char **msg)
{
    if (msg)
        *msg = r->error;
    return r->status;
}

const char *wh_reduction_dir(const wh_reduction_t *r)
{
    return r->rec ? wh_record_dir(r->rec) : NULL;
}

const char *wh_reduction_result_text(const wh_reduction_t *r)
{
    return r->result_text;
}

const char *wh_reduction_diff(const wh_reduction_t *r)
{
    return r->diff ? r->diff : "";
}

const char *wh_reduction_closing(const wh_reduction_t *r)
{
    return r->closing ? r->closing : "";
}

const char *wh_reduction_job_id(const wh_reduction_t *r)
{
    return r->job_id;
}

void wh_reduction_counts(const wh_reduction_t *r, uint64_t *candidates, uint64_t *cached)
{
    *candidates = (uint64_t)r->candidates;
    *cached = (uint64_t)r->cached;
}

void wh_reduction_progress(const wh_reduction_t *r, wh_buf_t *b)
{
    static const char *const st[] = {"fingerprinting", "reducing", "done", "failed",
                                     "checking the fault on the reference",
                                     "verifying the reduced test afresh"};
    wh_buf_printf(b, "%s %s: %s, sweep %d level %d, %d candidates (%d evaluated, %d predicted, "
                  "%d cached)", r->tree ? r->tree->test : "?", r->job.file, st[r->state],
                  r->last_sweep < 0 ? 0 : r->last_sweep, r->last_level < 0 ? 0 : r->last_level,
                  r->candidates, r->evaluated, r->predicted, r->cached);
}

void wh_reduction_status_now(const wh_reduction_t *r, wh_progress_t *p)
{
    memset(p, 0, sizeof *p);
    static const char *const phase[] = {"fingerprinting the original", NULL, "done", "failed",
                                        "checking the fault on the reference",
                                        "verifying the reduced test"};
    p->phase = phase[r->state];
    const wh_round_t *rd = r->round;
    p->sweep = rd ? rd->sweep : r->last_sweep < 0 ? 0 : r->last_sweep;
    p->level = rd ? rd->level : r->last_level < 0 ? 0 : r->last_level;
    if (r->engine) {
        p->units = wh_engine_units(r->engine);
        const uint8_t *rem = wh_engine_removed(r->engine);
        for (int u = 0; u < p->units; u++)
            p->units_left += !rem[u];
        p->round = wh_engine_rounds(r->engine) + !wh_engine_done(r->engine);
        p->rounds_left = wh_engine_rounds_left(r->engine);
    }
    p->built = r->evaluated;
    p->predicted = r->predicted;
    p->cached = r->cached;
    int n = r->n_ms < S_MS_RING ? r->n_ms : S_MS_RING;
    uint64_t v[S_MS_RING];
    memcpy(v, r->ms_ring, (size_t)n * sizeof *v);
    p->median_ms = wh_progress_median(v, n);
}

void wh_reduction_abort(wh_reduction_t *r, const char *why)
{
    s_fail(r, 130, wh_strdup_printf("%s", why));
}
