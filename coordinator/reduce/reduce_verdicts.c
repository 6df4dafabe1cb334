/*
 * reduce_verdicts — the pool's callbacks for a job: each verdict taken by
 * what it was for (the baseline, the reference check, the verify step, a
 * speculation, a candidate of the current round), every answer in
 * judged.csv, and the pool's notes on infrastructure faults. The
 * original's run is the baseline's (reduce_baseline.c). Part of the reduce
 * module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_audit.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_fault.h"
#include "reduce_trust.h"
#include "reduce_results.h"
#include "reduce_baseline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "foreign.h"

/* ---- verdicts ---- */

/* Notes who judged key, for the verify step. */
static void s_judged(wh_reduction_t *r, const char *key, const char *worker)
{
    if (wh_trail_judged(r->trail, key, worker, wh_pool_node_of(r->pool, worker)))
        red_fail(r, 4, NULL); /* out of memory */
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
    while (k < r->walk.nspec && r->walk.spec[k].id != id)
        k++;
    if (k == r->walk.nspec)
        return 0;
    /* A node taken out of the job (its verdicts were found wrong) may
     * still answer what it was judging: not believed. */
    if (m->verdict >= 1 && m->verdict < WH_V_COUNT && m->verdict != WH_V_INFRA_ERROR &&
        !s_msg_flaky(m) && !m->code && !red_trust_spec_ignored(r, worker)) {
        wh_cache_put_node(r->cache, WH_CACHE_VERDICTS, r->walk.spec[k].key,
                          (wh_verdict_t)m->verdict, wh_pool_key_of(r->pool, worker));
        s_judged(r, r->walk.spec[k].key, worker);
        if (r->walk.spec[k].exact || r->walk.spec[k].delta)
            wh_memo_put(r->walk.memo, r->walk.spec[k].exact, r->walk.spec[k].delta, (wh_verdict_t)m->verdict);
    }
    wh_record_log(r->rec, "           speculation e%04llu judged ahead: %s",
                  (unsigned long long)id, wh_verdict_name((wh_verdict_t)m->verdict));
    if (m->verdict == WH_V_INFRA_ERROR || m->code) {
        /* No verdict: not an evaluation, nothing to claim; the round
         * judges the candidate itself if it comes to it. */
        r->walk.spec[k] = r->walk.spec[--r->walk.nspec];
        return 1;
    }
    r->walk.extra++;
    r->walk.evaluated++;
    struct red_spec_done *d = red_spec_done_new(r);
    if (d) {
        memcpy(d->key, r->walk.spec[k].key, 65);
        d->node = strdup(worker ? worker : "-");
        d->ms = (uint64_t)m->build_ms + m->test_ms;
        d->build_ms = m->build_ms;
        d->test_ms = m->test_ms;
        d->end_ms = wh_now_ms() - r->t0;
        d->pre = r->walk.spec[k].pre;
        d->report = NULL;
        if (m->report_len) {
            d->report = wh_strdup_printf("e%04llu.report", (unsigned long long)id);
            char *name = wh_strdup_printf("reports/%s", d->report);
            wh_record_file(r->rec, name, m->report, m->report_len);
            free(name);
        }
    }
    r->walk.spec[k] = r->walk.spec[--r->walk.nspec];
    return 1;
}

/* A verdict for a candidate of the current round. */
static void s_on_candidate(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || !c->submitted || c->eval_id != id || c->v != WH_V_NONE)
            continue;
        if (m->code == WH_ETAINT) {
            /* No slot could judge it: an answer built on it would be a
             * guess. */
            red_fail(r, 4, wh_strdup_printf("infrastructure fault: candidate e%04llu could not be "
                                            "judged: %s", (unsigned long long)id,
                                            m->detail ? m->detail : ""));
            return;
        }
        c->v = m->verdict >= 1 && m->verdict < WH_V_COUNT ? (wh_verdict_t)m->verdict
                                                          : WH_V_INFRA_ERROR;
        c->evaluated = 1;
        c->node = strdup(worker ? worker : "-");
        c->ms = (uint64_t)m->build_ms + m->test_ms;
        if (c->disp_ms && m->verdict != WH_V_INFRA_ERROR) {
            uint64_t turn = wh_now_ms() - c->disp_ms;
            r->walk.turn_ms = r->walk.turn_ms ? (3 * r->walk.turn_ms + turn) / 4 : turn;
        }
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
        if (!flaky)
            wh_memo_put(r->walk.memo, c->exact, c->delta, c->v);
        if (c->audit_v)
            red_cache_audit_answer(r, c);
        return;
    }
}

/* judged.csv: every answer a slot gave, whatever it was for. */
static void s_note_judged(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    int ahead = 0;
    for (int k = 0; k < r->walk.nspec; k++)
        ahead |= r->walk.spec[k].id == id;
    wh_judged_row_t j = {
        .eval = id, .slot = worker ? worker : "-",
        .kind = red_baseline_is(r, id)                        ? "original"
              : red_fault_is_ours(r, id) ? "reference"
              : red_is_verify(r, id) ? "verify"
              : red_is_claim(r, id)  ? "claim"  : ahead               ? "ahead"
                                                                        : "candidate",
        /* A failed build's code (WH_EBUILD) goes with its verdict. */
        .verdict = m->code && m->code != WH_EBUILD ? "InfraError"
                   : m->verdict >= 1 && m->verdict < WH_V_COUNT
                       ? wh_verdict_name((wh_verdict_t)m->verdict)
                       : "fingerprinted", /* the original's run gives no verdict */
        .build_ms = m->build_ms, .test_ms = m->test_ms, .end_ms = wh_now_ms() - r->t0,
    };
    if (r->rec)
        wh_record_judged(r->rec, &j);
}

static void s_on_verdict_msg(wh_reduction_t *r, uint64_t id, const wh_msg_t *m,
                             const char *worker);

void red_on_verdict(void *ctx, uint64_t id, const wh_msg_t *in, const char *worker)
{
    wh_reduction_t *r = ctx;
    /* A run that preserved the test's failure but made another function
     * fail that the original's run did not is no Preserved: a failure was
     * added (a new report, another function now failing). For a job that
     * is a whole CTest test's function (whole_test: the CTest test is the
     * whole program), judged as CTest judges it; not with --repeat: the job
     * says its program is flaky, and a flaky other function fails some
     * runs and not others (mutate's test_flaky_discount, in a plain job,
     * turned claims over until the run gave up). */
    wh_msg_t copy;
    const wh_msg_t *m = in;
    char *added = in->verdict == WH_V_PRESERVED && r->job.whole_test && r->job.repeat <= 1
                      ? red_baseline_added(r, id, in->others)
                      : NULL;
    char *detail = NULL;
    if (added) {
        copy = *in;
        copy.verdict = WH_V_DIFFERENT_FAILURE;
        detail = wh_strdup_printf("the test's failure, but it adds one: %s now fails too", added);
        copy.detail = detail;
        m = &copy;
        wh_record_log(r->rec, "           e%04llu: %s", (unsigned long long)id,
                      detail ? detail : "a failure added");
    }
    s_on_verdict_msg(r, id, m, worker);
    free(added);
    free(detail);
}

static void s_on_verdict_msg(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    if (id && id == r->ub_refused) {
        r->ub_refused = 0; /* UBGuard at dispatch (reduce_ubguard.c): not judged */
        if (r->state == RED_ROUNDS && r->walk.c)
            red_advance(r);
        return;
    }
    s_note_judged(r, id, m, worker);
    if (red_baseline_take(r, id, m, worker))
        return; /* the original's run */
    if (red_fault_take(r, id, m))
        return; /* the original or the reduced test on the reference */
    if (r->state == RED_VERIFY && red_is_verify(r, id)) {
        red_on_verify(r, m, worker);
        return;
    }
    if ((r->state == RED_VERIFY || r->state == RED_CLAIMS || r->state == RED_ROUNDS) &&
        red_on_claim(r, id, m, worker))
        return; /* a check of the claims: early, beside the verify run, or after it */
    if (r->state != RED_ROUNDS)
        return;
    if (s_on_speculation(r, id, m, worker)) {
        if (r->walk.c)
            red_replan(r);
        else
            red_advance(r); /* the next chain may have waited for it */
        return;
    }
    if (!r->walk.c)
        return;
    s_on_candidate(r, id, m, worker);
    red_advance(r);
}

/* The pool's word on infrastructure faults (pool.h): run log, console,
 * the candidate's row, the summary. */
void red_on_note(void *ctx, uint64_t id, wh_pool_note_t what, const char *worker,
                 const char *detail)
{
    wh_reduction_t *r = ctx;
    if (what == WH_POOL_NOTE_OUT) {
        wh_record_log(r->rec, "slot %s taken out of rotation: %s", worker, detail);
        red_out(r, "Slot %s taken out of rotation: %s\n", worker, detail);
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
    red_out(r, "Infrastructure fault on %s: %s\n", worker, detail);
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
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
