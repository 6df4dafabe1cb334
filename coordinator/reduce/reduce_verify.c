/*
 * reduce_verify — the verify step (DESIGN.md, "Trust"): the answer is not a
 * claim. The reduced test is built and run afresh; when it does not fail
 * the same way, older steps of the trail are judged, newest first, the
 * wrong verdicts found through trail.h are dropped, and the walk resumes
 * from the last step that holds. Part of the reduce module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_fault.h"
#include "reduce_trust.h"
#include "reduce_results.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#include <jansson.h>

void red_tell(wh_reduction_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    red_out(r, "%s", line);
    char *all = wh_strdup_printf("%s%s", r->verify.told ? r->verify.told : "", line);
    if (all) {
        free(r->verify.told);
        r->verify.told = all;
    }
    free(line);
}

/* Verify attempts lost to infrastructure before the run gives up, and
 * restarts after wrong verdicts before it refuses to report. */
#define S_VERIFY_TRIES 3
#define S_MAX_RESTARTS 3

/* Builds and runs trail step `step` afresh: on a slot other than the one
 * that judged it (or that slot in a new workspace), never from the cache,
 * K times with --repeat K. The newest step is the reduced test; older ones
 * are re-judged, newest first, when it fails the check. */
/* "answer:<the verdict key of the answer's text>": where a run that
 * verified an answer of this job (its identity is in the key) keeps what
 * verify, the claims check and the fault check said of it. */
static void s_answer_key(const wh_reduction_t *r, const char *txt, size_t len, char out[80])
{
    char key[65];
    wh_cache_key(r->verdict_id, r->job.file, txt, len, key);
    snprintf(out, 80, "answer:%s", key);
}

void red_store_answer(wh_reduction_t *r)
{
    if (!r->verify.verified || red_trust_lone(r) || red_claims_refuted(r) || r->dropped ||
        r->verify.reused || r->partial)
        return; /* a partial answer (--budget) had no claims check to reuse */
    size_t len = 0;
    char *txt = wh_render(r->tree, wh_engine_removed(r->engine), &len);
    json_t *o = json_object();
    if (!txt || !o) {
        free(txt);
        json_decref(o);
        return;
    }
    char key[80];
    s_answer_key(r, txt, len, key);
    json_object_set_new(o, "run", json_string(wh_record_dir(r->rec)));
    json_object_set_new(o, "verified_by", json_string(r->verify.by ? r->verify.by : ""));
    json_object_set_new(o, "claims", json_integer(red_claims_checked(r)));
    if (red_fault_said(r))
        json_object_set_new(o, "fault", json_string(red_fault_said(r)));
    if (red_fault_detail(r))
        json_object_set_new(o, "fault_detail", json_string(red_fault_detail(r)));
    char *js = json_dumps(o, JSON_COMPACT);
    if (js)
        wh_cache_put_blob(r->cache, key, js);
    free(js);
    json_decref(o);
    free(txt);
}

/* The answer txt was verified, its claims confirmed and its fault checked
 * by an earlier run of this very job (same identity: project, commands,
 * test; same text): that run's findings stand, nothing is built again.
 * 1 when they were taken and the run finished; 0 when there are none (or
 * they do not cover what this job asks: a reference without a fault). */
static int s_reuse_answer(wh_reduction_t *r, const char *txt, size_t len)
{
    char key[80], *js = NULL;
    s_answer_key(r, txt, len, key);
    if (wh_cache_get_blob(r->cache, key, &js) != 0 || !js)
        return 0;
    json_t *o = json_loads(js, 0, NULL);
    free(js);
    const char *run = json_string_value(json_object_get(o, "run"));
    const char *fault = json_string_value(json_object_get(o, "fault"));
    const char *detail = json_string_value(json_object_get(o, "fault_detail"));
    json_int_t claims = json_integer_value(json_object_get(o, "claims"));
    if (!o || !run || (r->job.reference && !fault)) {
        json_decref(o);
        return 0;
    }
    red_drop_claims(r); /* early checks still out: moot */
    r->verify.reused = 1;
    r->verify.verified = 1;
    r->verify.second_opinion = 1;
    free(r->verify.by);
    r->verify.by = wh_strdup_printf("an earlier run of this job (%s)", run);
    red_claims_reused(r, (int)claims);
    if (r->job.reference && fault)
        red_fault_reused(r, fault, detail);
    wh_record_log(r->rec, "verify: this answer of this job (same project, commands and test) was "
                  "verified, its %lld claims confirmed%s by an earlier run, %s: taken, nothing "
                  "built again", (long long)claims, fault ? " and its fault checked" : "", run);
    red_out(r, "Verified: by an earlier run of this same job and answer (%s), with its %lld "
            "claims and its fault check; nothing built again\n", run, (long long)claims);
    json_decref(o);
    red_finish(r);
    return 1;
}

void red_start_verify(wh_reduction_t *r, int step)
{
    size_t len = 0;
    char *txt = wh_render(r->tree, wh_trail_removed(r->trail, step), &len);
    if (txt && step == wh_trail_steps(r->trail) - 1 && !r->verify.restarts && s_reuse_answer(r, txt, len)) {
        free(txt);
        return;
    }
    /* The original, said not to fail the same way by refuter0: asked of
     * another node than that one. */
    const char *judge = step == 0 && r->verify.refuter0 ? r->verify.refuter0 : wh_trail_judge(r->trail, step);
    int last = step == wh_trail_steps(r->trail) - 1;
    if (!last) /* the answer was refuted: its claims are moot */
        red_drop_claims(r);
    r->verify.step = step;
    r->verify.id = ++r->next_eval;
    r->state = RED_VERIFY;
    int rc = txt ? wh_pool_submit_verify(r->pool, r->pool_id, r->verify.id, txt, len, judge)
                 : WH_ENOMEM;
    free(txt);
    if (rc) {
        red_fail(r, 4, wh_strdup_printf("cannot queue the verify run: %s", wh_strerror(rc)));
        return;
    }
    if (last && red_queue_claims(r) < 0)
        return;
    int cand = wh_trail_cand(r->trail, step);
    char what[64];
    if (cand)
        snprintf(what, sizeof what, "cand_%03d's configuration", cand);
    else
        snprintf(what, sizeof what, "the original test");
    wh_record_log(r->rec, "verify: building and running %s afresh (judged by %s)", what,
                  judge ? judge : cand ? "the cache" : "the baseline");
    if (step == wh_trail_steps(r->trail) - 1)
        red_out(r, "Verifying: building and running the reduced test afresh%s\n",
                r->job.repeat > 1 ? " (--repeat)" : "");
}

/* The reduced test was verified: on to the fault check, or done. */
static void s_verified(wh_reduction_t *r, const char *worker, const wh_msg_t *m)
{
    r->verify.verified = 1;
    int runs = m->runs ? (int)m->runs : 1;
    wh_record_log(r->rec, "verify: the reduced test fails the same way afresh on %s (%d run%s)",
                  worker, runs, runs == 1 ? "" : "s");
    red_out(r, "Verified: the reduced test fails the same way when built and run afresh "
            "(%d run%s, slot %s)\n", runs, runs == 1 ? "" : "s", worker);
    free(r->verify.by);
    r->verify.by = worker ? strdup(worker) : NULL;
    const char *vnode = worker ? wh_pool_node_of(r->pool, worker) : NULL;
    r->verify.second_opinion = red_trust_verified(r, vnode);
    red_start_claims(r);
}

static void s_drop_verdict(void *ctx, const char *key)
{
    wh_reduction_t *r = ctx;
    wh_cache_drop(r->cache, key);
    wh_record_log(r->rec, "%s: dropped verdict %s from the cache", r->verify.blame_by, key);
}

static void s_exclude_node(void *ctx, const char *node)
{
    wh_reduction_t *r = ctx;
    if (wh_pool_node_excluded(r->pool, r->pool_id, node))
        return; /* said already */
    wh_pool_exclude_node(r->pool, r->pool_id, node);
    wh_record_log(r->rec, "%s: node %s gave wrong verdicts; it is out of this job", r->verify.blame_by,
                  node);
    red_tell(r, "%c%s: node %s gave wrong verdicts; it is out of this job\n",
             r->verify.blame_by[0] - 'a' + 'A', r->verify.blame_by + 1, node);
}

wh_trail_blame_t red_blame(wh_reduction_t *r, const char *by)
{
    r->verify.blame_by = by;
    return (wh_trail_blame_t){s_drop_verdict, s_exclude_node, r};
}

/* Steps after `good` were accepted on wrong verdicts (step good was just
 * verified): drop them (and their judges' other verdicts) from every cache
 * and resume the walk as it was right after step good. */
static void s_resume_from(wh_reduction_t *r, int good)
{
    /* The judges are blamed against the slot that refuted the newest wrong
     * step, not the one that confirmed step good. */
    wh_trail_blame_t how = red_blame(r, "verify");
    int n = wh_trail_blame(r->trail, good, wh_pool_node_of(r->pool, r->verify.refuter), &how);
    r->dropped += n;
    char from[32] = "the original";
    if (wh_trail_cand(r->trail, good))
        snprintf(from, sizeof from, "cand_%03d", wh_trail_cand(r->trail, good));
    wh_record_log(r->rec, "verify: %d verdict%s dropped as wrong; the reduction continues from %s",
                  n, n == 1 ? "" : "s", from);
    red_out(r, "Verify: the reduced test does not fail the same way afresh; %d verdict%s dropped, "
            "continuing from the last verified configuration\n", n, n == 1 ? "" : "s");
    red_resume_walk(r, good);
}

void red_resume_walk(wh_reduction_t *r, int good)
{
    red_drop_claims(r);
    if (++r->verify.restarts > S_MAX_RESTARTS) {
        red_fail(r, 3, wh_strdup_printf("the reduced test of %s could not be verified: wrong "
                                        "verdicts were found %d times", r->job.test,
                                        r->verify.restarts));
        return;
    }
    wh_engine_destroy(&r->engine);
    r->engine = wh_trail_rewind(r->trail, good);
    if (!r->engine) {
        red_fail(r, 4, NULL); /* out of memory */
        return;
    }
    r->verify.verified = 0;
    r->verify.tries = 0;
    r->walk.last_sweep = r->walk.last_level = -1;
    /* The walk is back at step good's state: its next chain starts at the
     * round's first candidate, and the expectations forget the dropped
     * verdicts with the rest (they only ever cost builds, but a verdict
     * found wrong should not steer anything). */
    r->walk.chain_start = 0;
    wh_memo_clear(r->walk.memo);
    red_spec_done_clear(r); /* no step judged before is claimed under its slot's name */
    r->state = RED_ROUNDS;
    red_advance(r);
}

/* 1 when a live slot of the job's pool is on another node than worker's. */
static int s_other_node(wh_reduction_t *r, const char *worker)
{
    const char *wn = worker ? wh_pool_node_of(r->pool, worker) : NULL;
    return wn && wh_pool_other_node(r->pool, r->pool_id, wn);
}

/* Another node saw the original fail the same way afresh, as the baseline
 * did: the slot that said otherwise (refuter0) gave the wrong verdicts, and
 * every refutation of a later step on the way down may have been its too.
 * Its node's verdicts go, it leaves the job, the walk resumes from the
 * newest step another node judged or the original. */
static void s_refuter0_lied(wh_reduction_t *r, const char *worker)
{
    const char *liar = wh_pool_node_of(r->pool, r->verify.refuter0);
    wh_record_log(r->rec, "verify: the original fails the same way afresh on %s: %s was wrong",
                  worker, r->verify.refuter0);
    wh_trail_blame_t how = red_blame(r, "verify");
    int n = liar ? wh_trail_blame_judge(r->trail, NULL, r->verify.refuter0, liar,
                                        wh_pool_node_of(r->pool, worker), &how)
                 : 0;
    r->dropped += n;
    free(r->verify.refuter0);
    r->verify.refuter0 = NULL;
    red_resume_walk(r, 0);
}

void red_on_verify(wh_reduction_t *r, const wh_msg_t *m, const char *worker)
{
    int step = r->verify.step;
    const char *d = m->detail ? m->detail : "";
    r->verify.runs++;
    if (m->report_len) {
        char *name = wh_strdup_printf("reports/verify-%d.report", r->verify.runs);
        wh_record_file(r->rec, name, m->report, m->report_len);
        free(name);
    }
    /* A build failure is a verdict (code WH_EBUILD); anything else with a
     * code is the infrastructure's, and the run is tried again. */
    if ((m->code && m->code != WH_EBUILD) || m->verdict == WH_V_INFRA_ERROR ||
        m->verdict == WH_V_NONE || m->verdict >= WH_V_COUNT) {
        wh_record_log(r->rec, "verify: no verdict from %s: %s", worker, d);
        if (++r->verify.tries >= S_VERIFY_TRIES)
            red_fail(r, 4, wh_strdup_printf("cannot verify the reduced test: %s", d));
        else
            red_start_verify(r, step);
        return;
    }
    r->verify.tries = 0;
    if (m->verdict == WH_V_PRESERVED && step < wh_trail_steps(r->trail) - 1)
        wh_record_log(r->rec, "verify: %s fails the same way afresh on %s: verified",
                      step ? "the configuration" : "the original", worker);
    if (m->verdict == WH_V_PRESERVED && step == 0 && r->verify.refuter0) {
        s_refuter0_lied(r, worker);
        return;
    }
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
    free(r->verify.refuter);
    r->verify.refuter = strdup(worker ? worker : "-");
    if (step == 0 && !r->verify.refuter0 && s_other_node(r, worker)) {
        /* The baseline saw it fail the same way: one of two slots is wrong;
         * another node decides. */
        r->verify.refuter0 = strdup(worker ? worker : "-");
        wh_record_log(r->rec, "verify: the original does not fail the same way on %s; asking "
                      "another node", worker);
        red_start_verify(r, 0);
        return;
    }
    if (step == 0 && !r->verify.refuter0 && red_trust_lone_refuter(r, worker, m))
        return; /* one node said both: it is named, its verdicts dropped */
    if (step == 0) {
        red_fail(r, 3, wh_strdup_printf("the original test %s does not fail the same way when "
                                        "built and run afresh (%s: %s); is it flaky? try --repeat K",
                                        r->job.test, wh_verdict_name((wh_verdict_t)m->verdict), d));
        return;
    }
    red_start_verify(r, step - 1);
}

int red_is_verify(const wh_reduction_t *r, uint64_t id)
{
    return id == r->verify.id;
}

const char *red_verify_told(const wh_reduction_t *r)
{
    return r->verify.told;
}

const char *red_verify_by(const wh_reduction_t *r)
{
    return r->verify.by;
}

int red_verify_reused(const wh_reduction_t *r)
{
    return r->verify.reused;
}

int red_verify_restarts(const wh_reduction_t *r)
{
    return r->verify.restarts;
}

void red_verify_summary(const wh_reduction_t *r, wh_summary_t *s)
{
    s->verified = r->verify.verified;
    s->verify_runs = r->verify.runs;
    s->restarts = r->verify.restarts;
    s->verified_by = r->verify.by;
    s->second_opinion = r->verify.second_opinion;
}

void red_verify_free(wh_reduction_t *r)
{
    free(r->verify.by);
    free(r->verify.told);
    free(r->verify.refuter0);
    free(r->verify.refuter);
}
