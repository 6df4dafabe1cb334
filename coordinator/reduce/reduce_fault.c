/*
 * reduce_fault — the fault check (thesis 8.1, second item): with a
 * reference, the version without the bug, the reduced test must pass
 * there, or the reduction kept the failure but lost the fault. A
 * reference --reference auto picked (refauto.h) must first pass the
 * original, else it shows nothing about the fault and the run goes on
 * without it. The check of the reduced test is queued by
 * red_start_refcheck (reduce_rounds.c). Part of the reduce module
 * (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_fault.h"
#include "reduce_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"

int red_fault_probe(wh_reduction_t *r)
{
    if (!r->job.ref_picked || !r->job.reference || r->fault.probe_id)
        return 0;
    r->fault.probe_id = ++r->next_eval;
    r->state = RED_REFPROBE;
    int rc = wh_pool_submit(r->pool, r->pool_id, r->fault.probe_id, r->tree->text,
                            r->tree->text_len, WH_TASK_ON_REFERENCE);
    if (rc) {
        red_fail(r, 4, wh_strdup_printf("cannot queue the original on the reference: %s",
                                        wh_strerror(rc)));
        return 1;
    }
    red_out(r, "Checking the original on the reference %s\n", r->job.ref_picked);
    return 1;
}

void red_after_claims(wh_reduction_t *r)
{
    if (r->job.reference && !r->fault.said)
        red_start_refcheck(r);
    else
        red_finish(r);
}

/* The original's run on the picked reference: it passes (the reference is
 * kept), or the job drops the reference and goes on unchecked. */
static void s_on_probe(wh_reduction_t *r, const wh_msg_t *m)
{
    const char *d = m->detail ? m->detail : "";
    char *how = NULL;
    if (m->code == WH_ESETUP)
        how = wh_strdup_printf("its setup fails there (%s)", d);
    else if (m->verdict == WH_V_BUILD_FAILED)
        how = strdup("the original does not build there");
    else if (m->verdict == WH_V_INFRA_ERROR || m->code)
        how = wh_strdup_printf("the original could not be run there (%s)", d);
    else if (m->test_status == 2)
        how = strdup("the original fails there too");
    else if (m->test_status != 1)
        how = strdup("no evidence that the original passes there");
    if (!how) {
        wh_record_log(r->rec, "reference %s: the original passes there", r->job.ref_picked);
        red_out(r, "Reference %s: the original passes there; the fault is checked\n",
                r->job.ref_picked);
        r->state = RED_ROUNDS;
        red_advance(r);
        return;
    }
    r->fault.unchecked = wh_strdup_printf("reference %s (--reference auto): %s",
                                          r->job.ref_picked, how);
    wh_record_log(r->rec, "%s; fault not checked", r->fault.unchecked ? r->fault.unchecked : how);
    red_out(r, "%s; fault not checked\n", r->fault.unchecked ? r->fault.unchecked : how);
    free(how);
    /* Without the reference, verdicts mean something else: another key. */
    wh_pool_drop_reference(r->pool, r->pool_id);
    free(r->job.reference);
    r->job.reference = NULL;
    r->job.keep_fault = 0;
    wh_job_identity(&r->job, r->snapshot, r->verdict_id);
    r->state = RED_ROUNDS;
    red_advance(r);
}

/* The reduced test's run on the reference: the fault kept, lost, or why
 * the check could not tell; then the job's record. */
static void s_on_check(wh_reduction_t *r, const wh_msg_t *m)
{
    const char *d = m->detail ? m->detail : "";
    if (m->code == WH_ESETUP)
        r->fault.said = wh_strdup_printf("unknown: setup failed on the reference (%s)", d);
    else if (m->verdict == WH_V_BUILD_FAILED)
        r->fault.said = strdup("unknown: the reduced test does not build on the reference");
    else if (m->verdict == WH_V_INFRA_ERROR || m->code)
        r->fault.said = wh_strdup_printf("unknown: %s", d);
    else if (m->test_status == 1)
        r->fault.said = strdup("kept");
    else if (m->test_status == 2)
        r->fault.said = strdup("lost");
    else
        r->fault.said = wh_baseline_reference_unknown(&r->job);
    r->fault.detail = wh_strdup_printf("%s | %s | %s", m->observed.test ? m->observed.test : "",
                                       m->observed.location ? m->observed.location : "",
                                       m->observed.message ? m->observed.message : "");
    red_finish(r);
}

int red_fault_take(wh_reduction_t *r, uint64_t id, const wh_msg_t *m)
{
    if (r->state == RED_REFPROBE && id == r->fault.probe_id) {
        s_on_probe(r, m);
        return 1;
    }
    if (r->state == RED_REFCHECK && id == r->refcheck_id) {
        s_on_check(r, m);
        return 1;
    }
    return 0;
}

int red_fault_is_ours(const wh_reduction_t *r, uint64_t id)
{
    return id == r->refcheck_id || id == r->fault.probe_id;
}

const char *red_fault_said(const wh_reduction_t *r)
{
    return r->fault.said;
}

const char *red_fault_detail(const wh_reduction_t *r)
{
    return r->fault.detail;
}

void red_fault_reused(wh_reduction_t *r, const char *said, const char *detail)
{
    free(r->fault.said);
    free(r->fault.detail);
    r->fault.said = strdup(said);
    r->fault.detail = detail ? strdup(detail) : NULL;
}

void red_fault_summary(const wh_reduction_t *r, wh_summary_t *s)
{
    s->fault = r->fault.said;
    s->fault_detail = r->fault.detail;
    s->ref_unchecked = r->fault.unchecked;
}

void red_fault_free(wh_reduction_t *r)
{
    free(r->fault.said);
    free(r->fault.detail);
    free(r->fault.unchecked);
}
