/*
 * reduce_results — the end of a job that succeeded: the reduced test
 * (line-true and compact) and reduced.diff, tree.json, the summary and the
 * final lines, in the run record (record.h). Part of the reduce module
 * (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_audit.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_fault.h"
#include "reduce_results.h"
#include "reduce_trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functext.h"
#include "render.h"
#include "udiff.h"

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
    s->candidates = r->walk.candidates;
    s->evaluated = r->walk.evaluated;
    s->predicted = r->walk.predicted;
    s->cached = r->walk.cached;
    s->extra = r->walk.extra;
    s->building_rounds = r->walk.building_rounds;
    s->prior = r->job.prior ? "slice" : "none";
    s->slice = r->walk.prior ? wh_prior_size(r->walk.prior) : -1;
    s->surprises[0] = r->walk.surprises[0];
    s->surprises[1] = r->walk.surprises[1];
    s->cancelled = r->walk.cancelled;
    s->verdicts = r->walk.verdicts;
    s->wall_ms = r->results.wall_ms;
    s->jobs = r->job.jobs;
    s->fp = &r->fp;
    s->flaky = r->flaky;
    s->speculated = r->walk.speculated;
    s->spec_used = r->walk.spec_used;
    s->spec_dropped = r->walk.spec_dropped;
    s->chain_waits = r->walk.deferred;
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
    red_fault_summary(r, s);
    s->ref_picked = r->job.ref_picked;
    s->ref_why = r->job.ref_why;
    s->infra_faults = r->infra_faults;
    s->out_slots = r->out_slots;
    s->n_out = r->n_out;
    red_verify_summary(r, s);
    red_trust_summary(r, s);
    s->dropped = r->dropped;
    s->partial = r->partial;
    red_claims_summary(r, s);
    red_cache_audit_summary(r, s);
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
    r->results.text = lines ? wh_function_text(r->tree->text, r->tree->text_len, r->tree->body_begin,
                                             r->tree->body_end, lines)
                           : NULL;
    /* a/ and b/ name the file in the project, for `patch -p1` there */
    char *an = wh_strdup_printf("a/%s", r->job.file), *bn = wh_strdup_printf("b/%s", r->job.file);
    size_t dlen = 0;
    r->results.diff = compact && an && bn ? wh_udiff(r->tree->text, r->tree->text_len, compact, clen, an,
                                             bn, 3, &dlen)
                                  : NULL;
    if (r->results.diff)
        wh_record_file(r->rec, "reduced.diff", r->results.diff, dlen);
    free(an);
    free(bn);
    free(r->results.lines);
    r->results.lines = lines; /* for a client's own check (reduce --verify-local) */
    r->results.lines_len = len;
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

void red_write_partial(wh_reduction_t *r)
{
    /* Every accepted configuration was judged Preserved, so the one the
     * walk holds when it stops is a smaller test that fails the same way,
     * only not minimal and not verified afresh: worth showing, under a name
     * (partial.diff) no one takes for the answer. */
    if (!r->rec || !r->tree)
        return;
    s_write_tree(r);
    const uint8_t *rem = r->engine ? wh_engine_removed(r->engine) : NULL;
    int any = 0;
    for (int i = 0; rem && i < r->tree->n && !any; i++)
        any = rem[i];
    size_t clen = 0, dlen = 0;
    /* nothing accepted: no diff (the compact text differs in blank runs only) */
    char *compact = any ? wh_render_compact(r->tree, rem, &clen) : NULL;
    char *an = wh_strdup_printf("a/%s", r->job.file), *bn = wh_strdup_printf("b/%s", r->job.file);
    char *diff = compact && an && bn ? wh_udiff(r->tree->text, r->tree->text_len, compact, clen,
                                                an, bn, 3, &dlen)
                                     : NULL;
    if (diff && dlen)
        wh_record_file(r->rec, "partial.diff", diff, dlen);
    free(diff);
    free(an);
    free(bn);
    free(compact);
}

void red_finish_fingerprint(wh_reduction_t *r)
{
    r->results.wall_ms = wh_now_ms() - r->t0;
    wh_summary_t s;
    s_fill_summary(r, &s);
    wh_record_summary(r->rec, &s);
    wh_record_log(r->rec, "fingerprint only: the original's failure taken for a batch's "
                          "grouping; nothing reduced");
    r->state = RED_DONE;
    r->status = 0;
    wh_pool_remove_job(r->pool, r->pool_id);
}

void red_finish(wh_reduction_t *r)
{
    red_store_answer(r);
    r->results.wall_ms = wh_now_ms() - r->t0;
    s_write_reduced(r);
    s_write_tree(r);
    wh_summary_t s;
    wh_precheck_summary_t pc;
    char *list = NULL;
    s_fill_summary(r, &s);
    char budget[64];
    wh_spend_format(&r->job.budget, budget, sizeof budget);
    s.budget = budget[0] ? budget : NULL;
    red_precheck_summary(r, &pc, &list);
    s.precheck = &pc;
    char *sanitizers = NULL;
    red_ubguard_summary(r, &s, &sanitizers);
    wh_record_summary(r->rec, &s);
    free(list);
    free(sanitizers);
    char *text = wh_record_fault_text(&s);
    const char *line = text ? text : "fault not checked";
    red_out(r, "Fault check: %s\n", line);
    wh_record_log(r->rec, "fault check: %s", line);
    char dropped[64] = "";
    if (r->dropped)
        snprintf(dropped, sizeof dropped, " (%d verdicts found wrong were dropped)", r->dropped);
    char claims[128] = "";
    int checked = red_claims_checked(r);
    if (checked)
        snprintf(claims, sizeof claims, "Claims: %d negative verdict%s judged again afresh, "
                 "%d refuted\n", checked, checked == 1 ? "" : "s", red_claims_refuted(r));
    /* Not verified (reduce_trust.c): its "Not verified:" line is in told. */
    char *vline = red_trust_lone(r) ? strdup("")
                  : wh_strdup_printf("Verified: %s%s\n",
                                     red_verify_reused(r)
                                         ? "by an earlier run of this same job and answer, with "
                                           "its claims and its fault check (nothing built again)"
                                         : "the reduced test fails the same way when built and "
                                           "run afresh",
                                     dropped);
    const char *told = red_verify_told(r);
    r->results.closing = wh_strdup_printf("%s%s%sFault check: %s\n", told ? told : "", vline ? vline : "",
                                  claims, line);
    free(vline);
    free(text);
    char *final = wh_record_final_line(&s);
    wh_record_log(r->rec, "Final: %s", final ? final : "(out of memory)");
    red_out(r, "Final: %s\n", final ? final : "(out of memory)");
    free(final);
    if (r->partial) {
        wh_record_log(r->rec, "partial: %s; the answer is the walk's best so far", r->partial);
        char *c = wh_strdup_printf("%sPartial: %s; the reduced test is the walk's best answer so "
                                   "far (verified afresh; its claims were not checked)\n",
                                   r->results.closing ? r->results.closing : "", r->partial);
        if (c) {
            free(r->results.closing);
            r->results.closing = c;
        }
        red_out(r, "Partial: %s; the reduced test is the walk's best answer so far\n", r->partial);
    }
    /* The front end's translation units (the precheck's, one per thread,
     * and the UB guard's) are no longer needed: they go before the page
     * is made, and the memory they held goes back to the system (it sat in
     * the libclang threads' malloc arenas), so the page's reading of
     * tree.json does not add to them (issue 36). A set-up still running is
     * left to wh_reduction_destroy: destroying it here would wait for it
     * on this thread, and wh_reduction_poll still asks it. */
    red_precheck_close(r, 0);
    if (!r->pc_pending)
        wh_precheck_destroy(&r->pc);
    if (!r->ub_pending)
        wh_ubguard_destroy(&r->ub);
    wh_mem_trim();
    red_write_page(r);
    r->state = RED_DONE;
    /* One node said everything: an answer, not a verified one; a partial
     * one (--budget) says so, unverified or not. */
    r->status = red_trust_lone(r) ? WH_EXIT_UNVERIFIED : r->partial ? WH_EXIT_PARTIAL : 0;
    wh_pool_remove_job(r->pool, r->pool_id);
}

void red_results_free(wh_reduction_t *r)
{
    free(r->results.text);
    free(r->results.diff);
    free(r->results.lines);
    free(r->results.closing);
}

const char *wh_reduction_lines(const wh_reduction_t *r, size_t *len)
{
    *len = r->results.lines ? r->results.lines_len : 0;
    return r->results.lines;
}

const char *wh_reduction_result_text(const wh_reduction_t *r)
{
    return r->results.text;
}

const char *wh_reduction_diff(const wh_reduction_t *r)
{
    return r->results.diff ? r->results.diff : "";
}

const char *wh_reduction_closing(const wh_reduction_t *r)
{
    return r->results.closing ? r->results.closing : "";
}
