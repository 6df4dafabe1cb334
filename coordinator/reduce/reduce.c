/*
 * reduce — one reduction job driven by verdict events. See reduce.h.
 *
 * The life of a job, and the module's file for each step (what they share
 * is in reduce_int.h):
 *  - prepare (here): the test parsed (with the user's flags, else the
 *    header guess), the project hashed, the run folder opened;
 *  - start (here): the job registered with the pool, and the baseline
 *    queued, or its fingerprint found in the cache (reduce_verdicts.c keeps
 *    it there like a verdict; reduce_flags.c says whether the cached
 *    compile command still parses);
 *  - the baseline's verdict (reduce_verdicts.c): the original judged; the
 *    tree parsed again with the warm workspace's compile command
 *    (reduce_flags.c, taken up by wh_reduction_poll here);
 *  - rounds until the engine is done (reduce_rounds.c): each round keyed,
 *    deduplicated, looked up in the cache, its candidates put to the front
 *    end (reduce_predict.c), speculation adopted, the rest queued; the
 *    pool's verdicts come in through reduce_verdicts.c;
 *  - verify (reduce_verify.c): the reduced test judged afresh; wrong
 *    verdicts found through trail.h, dropped, and the walk resumed;
 *  - reference check, with a reference (queued in reduce_rounds.c, judged
 *    in reduce_verdicts.c);
 *  - finish (reduce_results.c): the run record (record.h).
 * This file holds the public API and what every step uses: console output
 * and failure.
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_fault.h"
#include "reduce_trust.h"
#include "reduce_results.h"
#include "reduce_baseline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "identity.h"
#include "includer.h"
#include "progress.h"
#include "report.h"

/* A test the file does not define: the defined test it most likely meant
 * (wh_suggest, as for a mistyped option) goes at the end of *err. The file
 * parsed well enough for the name to be looked up, so listing its tests
 * with the same options works too; when it does not, *err stays. */
static void s_suggest_test(const char *path, const char *test, const wh_tree_opts_t *to,
                           char **err)
{
    char **names = NULL, *lerr = NULL;
    int n = 0;
    if (!*err || !strstr(*err, " not found in ") || wh_tree_list(path, to, &names, &n, &lerr)) {
        free(lerr);
        return;
    }
    const char *near = wh_suggest(test, (const char *const *)names, (size_t)n);
    char *more = near ? wh_strdup_printf("%s (did you mean '%s'?)", *err, near) : NULL;
    if (more) {
        free(*err);
        *err = more;
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

void red_out(wh_reduction_t *r, const char *fmt, ...)
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

/* report.html from what the run folder holds now; a page that cannot be
 * written is named in run.log, and the run goes on. */
void red_write_page(wh_reduction_t *r)
{
    char *err = NULL;
    if (r->rec && wh_report_write(wh_record_dir(r->rec), &err))
        wh_record_log(r->rec, "report.html not written: %s", err ? err : "out of memory");
    free(err);
}

void red_fail(wh_reduction_t *r, int status, char *msg)
{
    if (r->state == RED_DONE || r->state == RED_FAILED) {
        free(msg);
        return;
    }
    r->state = RED_FAILED;
    r->status = status;
    r->error = msg ? msg : strdup("out of memory");
    if (r->rec)
        wh_record_log(r->rec, "error: %s", r->error);
    red_write_partial(r);
    red_write_page(r);
    wh_pool_remove_job(r->pool, r->pool_id);
}

/* ---- lifecycle ---- */

wh_reduction_t *wh_reduction_new(const wh_job_t *job, wh_pool_t *pool, wh_cache_t *cache,
                                 int quiet, int *status, char **err)
{
    wh_reduction_t *r = wh_reduction_prepare(job, quiet, status, err);
    if (r && wh_reduction_start(r, pool, cache, err)) {
        wh_reduction_destroy(&r);
        if (status)
            *status = 4;
    }
    return r;
}

wh_reduction_t *wh_reduction_prepare(const wh_job_t *job, int quiet, int *status, char **err)
{
    return red_prepare(job, quiet, NULL, status, err);
}

wh_reduction_t *wh_reduction_identify(const wh_job_t *job, int quiet, wh_frontend_t **fe,
                                      int *status, char **err)
{
    *fe = NULL;
    return red_prepare(job, quiet, fe, status, err);
}

wh_reduction_t *red_prepare(const wh_job_t *job, int quiet, wh_frontend_t **fe, int *status,
                            char **err)
{
    int st_;
    if (!status)
        status = &st_;
    *status = 4; /* out of memory, the engine, the run folder */
    wh_reduction_t *r = calloc(1, sizeof *r);
    if (!r) {
        *err = strdup("out of memory");
        return NULL;
    }
    r->t0 = wh_now_ms();
    r->wake_fd = -1;
    r->quiet = quiet;
    r->walk.last_sweep = r->walk.last_level = -1;
    /* a private copy of the job */
    if (wh_job_copy(&r->job, job)) {
        *err = strdup("out of memory");
        free(r);
        return NULL;
    }

    char *path = wh_path_join(r->job.project, r->job.file);
    /* Without the user's flags this parse uses the header guess: the tree
     * is parsed again after the baseline with the warm workspace's compile
     * command (red_exact_tree), so a header the guess misses is judged then;
     * any other error stops here. */
    wh_tree_opts_t to = {r->job.compdb, (const char *const *)r->job.args, r->job.nargs, NULL,
                         r->job.allow_parse_errors          ? WH_TREE_ALLOW_ERRORS
                         : !wh_job_flags_explicit(&r->job) ? WH_TREE_ALLOW_MISSING_HEADERS
                                                           : 0,
                         r->job.project};
    int rc = wh_tree_load(path, r->job.test, &to, &r->tree, err);
    if (rc == WH_ENOTFOUND)
        s_suggest_test(path, r->job.test, &to, err);
    if (rc == WH_EPARSE)
        wh_includer_advise(r->job.project, r->job.file,
                           wh_includer_applied((const char *const *)r->job.args, r->job.nargs),
                           err);
    free(path);
    if (rc) {
        *status = 1; /* does not parse, or does not define the test */
        goto fail;
    }
    /* The test by the name its framework prints (utest's "set.name" for
     * --test utest_run_set_name, gtest's "Suite.Name" for --test Name): the
     * oracle looks for that name in the output, and the job's identity is
     * the same however the user spelled it. */
    if (strcmp(r->tree->test, r->job.test) != 0) {
        char *resolved = strdup(r->tree->test);
        if (!resolved) {
            *err = strdup("out of memory");
            goto fail;
        }
        free(r->job.test);
        r->job.test = resolved;
    }
    /* The function it registers, which a harness may print instead
     * (console and plain readers take it as the test's own). */
    free(r->job.test_fn);
    r->job.test_fn = NULL;
    if (r->tree->fn && !(r->job.test_fn = strdup(r->tree->fn))) {
        *err = strdup("out of memory");
        goto fail;
    }
    r->engine = red_engine_for(r->tree, r->job.algo, r->job.walk);
    r->trail = r->engine ? wh_trail_new(r->engine) : NULL;
    r->walk.memo = wh_memo_new();
    if (!r->engine || !r->trail || !r->walk.memo) {
        *err = strdup("cannot create the reduction engine");
        goto fail;
    }
    wh_identity_basis_t basis = WH_IDENTITY_TREE;
    /* A tar snapshot is its bytes: the identity is their sha256, the hash
     * the client sent and the coordinator checked (jobsnap.h). */
    if (r->job.tar_sha)
        rc = snprintf(r->snapshot, sizeof r->snapshot, "%s", r->job.tar_sha) != 64;
    else
        rc = wh_identity_snapshot(r->job.project, r->job.file, r->job.out, r->job.ignore,
                                  r->job.nignore, r->snapshot, &basis, err);
    if (rc) {
        *status = rc == -ENOMEM ? 4 : 2; /* the project cannot be read */
        goto fail;
    }
    wh_job_identity(&r->job, r->snapshot, r->job_id);
    memcpy(r->verdict_id, r->job_id, sizeof r->verdict_id);
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
                  r->job.tar_sha ? "the sha256 of the tar snapshot the client sent"
                  : basis == WH_IDENTITY_GIT ? "the project's tracked git files"
                                             : "every project file but outputs and build folders",
                  r->job.nignore ? " minus --ignore globs" : "", r->snapshot);
    if (!fe) {
        red_precheck_open(r, 0);
        red_ubguard_open(r, 0);
    } else if (red_frontend_plan(r, fe)) {
        *err = strdup("out of memory");
        goto fail;
    }

    *status = 0;
    return r;
fail:
    wh_reduction_destroy(&r);
    return NULL;
}

void red_wake(void *ctx)
{
    const wh_reduction_t *r = ctx;
    wh_wake_signal(r->wake_fd); /* on failure the poll timeout takes it up */
}

/* Once no thread writes it (all joined), or before the pool goes. */
static void s_wake_close(wh_reduction_t *r)
{
    wh_pool_wake_close(r->pool, r->wake_fd);
    r->wake_fd = -1;
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
    spec.whole_test = r->job.whole_test;
    spec.will_fail = r->job.will_fail;
    spec.ctest_pass_regex = r->job.ctest_pass_regex;
    spec.ctest_fail_regex = r->job.ctest_fail_regex;
    spec.test_fn = r->job.test_fn;
    spec.repeat = (uint32_t)r->job.repeat;
    spec.flaky_ok = (uint32_t)r->job.flaky_ok;
    spec.reference = r->job.reference;
    /* A snapshot: nodes check it out themselves (the paths above are ours). */
    spec.git_url = r->job.git_url;
    spec.git_rev = r->job.git_rev;
    spec.git_subdir = r->job.git_subdir;
    spec.git_reference = r->job.git_reference;
    spec.tenant = r->job.tenant;
    spec.tar_sha = r->job.tar_sha;
    spec.tar_size = r->job.tar_size;
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
    for (int k = 2; (rc = wh_pool_add_job(pool, &spec, red_on_verdict, r)) == WH_EINVAL && k < 1000;
         k++) {
        snprintf(r->pool_id, sizeof r->pool_id, "%s~%d", r->job_id, k);
        spec.job_id = r->pool_id;
    }
    if (rc) {
        *err = wh_strdup_printf("cannot register job %s: %s", r->job_id, wh_strerror(rc));
        return rc;
    }
    wh_pool_set_note(pool, r->job_id, red_on_note);
    wh_pool_set_render(pool, r->pool_id, red_render_cand);
    wh_pool_set_hold(pool, r->pool_id, red_hold_cand);
    r->pool = pool;
    r->cache = cache;
    /* -1: its setups are taken up at the poll timeout, as before */
    r->wake_fd = wh_pool_wake_open(pool);

    /* The fingerprint of this exact job may be known already; else the
     * original runs (reduce_baseline.c). */
    rc = red_baseline_start(r, err);
    if (rc) {
        wh_pool_remove_job(pool, r->pool_id);
        s_wake_close(r); /* no thread of the job's setup runs yet */
        r->pool = NULL;
        return rc;
    }
    return 0;
}

void wh_reduction_poll(wh_reduction_t *r)
{
    if (r->treejob && wh_treejob_done(r->treejob))
        red_exact_tree_done(r);
    if (r->ub_pending && wh_ubguard_ready(r->ub)) {
        r->ub_pending = 0;
        red_ubguard_say(r);
        if (r->state == RED_BASELINE && !r->pc_pending) {
            red_take_fingerprint(r, &r->pending_fp);
            wh_fp_clear(&r->pending_fp);
        }
    }
    if (r->pc_pending && wh_precheck_ready(r->pc)) {
        r->pc_pending = 0;
        red_precheck_say(r);
        if (r->state == RED_BASELINE && !r->ub_pending) {
            red_take_fingerprint(r, &r->pending_fp);
            wh_fp_clear(&r->pending_fp);
        }
    }
    red_precheck_take(r); /* the pool's watcher takes them first */
    /* --budget time=: spent while every slot builds (no verdict to look) */
    if (r->state == RED_ROUNDS && r->job.budget.ms && wh_now_ms() - r->t0 >= r->job.budget.ms)
        red_advance(r);
    if (r->state == RED_ROUNDS && !r->walk.round && r->walk.defer_until) {
        if (wh_now_ms() >= r->walk.defer_until)
            red_advance(r); /* the next chain's wait ran out */
        else
            wh_pool_wake_at(r->pool, r->walk.defer_until); /* asked again: the pool keeps one time */
    }
}

void wh_reduction_destroy(wh_reduction_t **rp)
{
    wh_reduction_t *r = *rp;
    if (!r)
        return;
    if (r->state != RED_DONE && r->state != RED_FAILED && r->pool)
        wh_pool_remove_job(r->pool, r->pool_id);
    red_precheck_close(r, 1);
    red_clear_round(r);
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
    red_claims_free(r);
    red_verify_free(r);
    free(r->partial);
    wh_tree_destroy(&r->tree);
    wh_record_close(&r->rec);
    wh_fp_clear(&r->fp);
    wh_job_clear(&r->job);
    free(r->error);
    red_results_free(r);
    red_baseline_free(r);
    red_trust_free(r);
    red_fault_free(r);
    free(r->walk.spec);
    wh_memo_destroy(&r->walk.memo);
    wh_prior_destroy(&r->walk.prior);
    red_spec_done_clear(r);
    free(r->walk.spec_done);
    for (int i = 0; i < r->n_out; i++)
        free(r->out_slots[i]);
    free(r->out_slots);
    wh_precheck_destroy(&r->pc);
    red_frontend_untwin(r);
    free(r->walk.eta_cands);
    free(r->pc_off);
    wh_ubguard_destroy(&r->ub);
    free(r->ub_off);
    red_ubguard_free(r);
    json_decref(r->disagreements);
    s_wake_close(r); /* every thread that writes it is joined */
    free(r);
    *rp = NULL;
}

int wh_reduction_done(const wh_reduction_t *r)
{
    return r->state == RED_DONE || r->state == RED_FAILED;
}


int wh_reduction_status(const wh_reduction_t *r, const char **msg)
{
    if (msg)
        *msg = r->error;
    return r->status;
}

int wh_reduction_answered(const wh_reduction_t *r)
{
    return r->state == RED_DONE && (r->status == 0 || r->status == WH_EXIT_PARTIAL);
}

const char *wh_reduction_dir(const wh_reduction_t *r)
{
    return r->rec ? wh_record_dir(r->rec) : NULL;
}

const char *wh_reduction_job_id(const wh_reduction_t *r)
{
    return r->job_id;
}

void wh_reduction_counts(const wh_reduction_t *r, uint64_t *candidates, uint64_t *cached)
{
    *candidates = (uint64_t)r->walk.candidates;
    *cached = (uint64_t)r->walk.cached;
}

void wh_reduction_progress(const wh_reduction_t *r, wh_buf_t *b)
{
    static const char *const st[] = {"fingerprinting", "reducing", "done", "failed",
                                     "checking the fault on the reference",
                                     "verifying the reduced test afresh",
                                     "checking the original on the reference",
                                     "checking the claims afresh"};
    _Static_assert(sizeof st / sizeof *st == RED_CLAIMS + 1, "a name per state");
    wh_buf_printf(b, "%s %s: %s, sweep %d level %d, %d candidates (%d evaluated, %d predicted, "
                  "%d cached)", r->tree ? r->tree->test : "?", r->job.file, st[r->state],
                  r->walk.last_sweep < 0 ? 0 : r->walk.last_sweep, r->walk.last_level < 0 ? 0 : r->walk.last_level,
                  r->walk.candidates, r->walk.evaluated, r->walk.predicted, r->walk.cached);
}

/* The most rounds a plan looks ahead (a plan of more is as good as "long"). */
#define S_ETA_MAX_ROUNDS 4096

/* Makes the ETA's plan again when the walk has moved: a copy of the engine
 * resolved with no winner until it is done, each round's candidates kept. */
static void s_eta_plan(wh_reduction_t *r)
{
    int rounds = wh_engine_rounds(r->engine);
    if (r->walk.eta_engine == r->engine && r->walk.eta_rounds == rounds &&
        r->walk.eta_restarts == red_verify_restarts(r))
        return;
    wh_engine_t *e = wh_engine_clone_plan(r->engine);
    if (!e)
        return;
    int n = 0, sweep = -1;
    r->walk.eta_last_sweep = 0;
    for (const wh_round_t *rd; n < S_ETA_MAX_ROUNDS && (rd = wh_engine_round(e)); n++) {
        r->walk.eta_last_sweep = rd->sweep == sweep ? r->walk.eta_last_sweep + 1 : 1;
        sweep = rd->sweep;
        if (n == r->walk.eta_cap) {
            int cap = r->walk.eta_cap ? 2 * r->walk.eta_cap : 64;
            int *c = realloc(r->walk.eta_cands, (size_t)cap * sizeof *c);
            if (!c)
                break;
            r->walk.eta_cands = c;
            r->walk.eta_cap = cap;
        }
        r->walk.eta_cands[n] = rd->n_cand;
        if (wh_engine_resolve(e, -1) != 0)
            break;
    }
    wh_engine_destroy(&e);
    r->walk.eta_n = n;
    r->walk.eta_engine = r->engine;
    r->walk.eta_rounds = rounds;
    r->walk.eta_restarts = red_verify_restarts(r);
}

/* The ETA (progress.h): the plan on the slots the job has. */
static uint64_t s_eta(wh_reduction_t *r, uint64_t median_ms, int units_left)
{
    if (!r->engine || wh_engine_done(r->engine) || !median_ms)
        return 0;
    s_eta_plan(r);
    wh_pool_stats_t st = {0};
    if (r->pool)
        wh_pool_stats(r->pool, &st);
    int jobs = st.jobs > 1 ? st.jobs : 1;
    int built = r->walk.candidates - r->walk.cached - r->walk.predicted;
    wh_progress_plan_t pl = {
        .cands = r->walk.eta_cands, .rounds = r->walk.eta_n,
        .built = r->walk.candidates ? (double)built / r->walk.candidates : 1.0,
        .slots = st.slots / jobs > 1 ? st.slots / jobs : 1, .median_ms = median_ms,
        .units_left = units_left, .last_sweep = r->walk.eta_last_sweep,
        .win_rate = r->walk.eta_nwins ? __builtin_popcount(r->walk.eta_wins) / (double)r->walk.eta_nwins : 0,
    };
    uint64_t now = wh_now_ms();
    if (r->walk.eta_waves >= 1 && r->walk.eta_last > r->walk.eta_t0) {
        pl.wave_ms = (uint64_t)((double)(r->walk.eta_last - r->walk.eta_t0) / r->walk.eta_waves);
        pl.into_ms = now - r->walk.eta_last;
    }
    return wh_progress_eta(&pl);
}

void wh_reduction_status_now(const wh_reduction_t *r, wh_progress_t *p)
{
    memset(p, 0, sizeof *p);
    static const char *const phase[] = {"fingerprinting the original", NULL, "done", "failed",
                                        "checking the fault on the reference",
                                        "verifying the reduced test",
                                        "checking the original on the reference",
                                        "checking the claims"};
    _Static_assert(sizeof phase / sizeof *phase == RED_CLAIMS + 1, "a phase per state");
    p->phase = phase[r->state];
    if (r->state == RED_BASELINE && r->fe_wait && (r->fe_fp || r->fe_walk)) {
        p->phase = "setting up the front end (precheck, UB guard); the original has run";
    } else if (r->state == RED_BASELINE && r->pool) {
        /* Before the original's run: its workspaces are set up first. */
        wh_pool_stats_t st = {0};
        wh_pool_stats(r->pool, &st);
        if (st.warming > 0)
            p->phase = "setting up the workspaces (configure, build the test's target)";
    }
    const wh_round_t *rd = r->walk.round;
    p->sweep = rd ? rd->sweep : r->walk.last_sweep < 0 ? 0 : r->walk.last_sweep;
    p->level = rd ? rd->level : r->walk.last_level < 0 ? 0 : r->walk.last_level;
    if (r->engine) {
        p->units = wh_engine_units(r->engine);
        const uint8_t *rem = wh_engine_removed(r->engine);
        for (int u = 0; u < p->units; u++)
            p->units_left += !rem[u];
        p->round = wh_engine_rounds(r->engine) + !wh_engine_done(r->engine);
        p->rounds_left = wh_engine_rounds_left(r->engine);
    }
    p->built = r->walk.evaluated;
    p->predicted = r->walk.predicted;
    p->cached = r->walk.cached;
    int n = r->walk.n_ms < RED_MS_RING ? r->walk.n_ms : RED_MS_RING;
    uint64_t v[RED_MS_RING];
    memcpy(v, r->walk.ms_ring, (size_t)n * sizeof *v);
    p->median_ms = wh_progress_median(v, n);
    if (!p->phase) /* the plan is a cache of the walk's state, kept in r */
        p->eta_ms = s_eta((wh_reduction_t *)r, p->median_ms, p->units_left);
}

void wh_reduction_abort(wh_reduction_t *r, const char *why)
{
    red_fail(r, 130, wh_strdup_printf("%s", why));
}
