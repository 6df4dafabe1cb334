/*
 * reduce_verdicts — the pool's callbacks for a job: each verdict taken by
 * what it was for (the baseline, the reference check, the verify step, a
 * speculation, a candidate of the current round), every answer in
 * judged.csv, and the pool's notes on infrastructure faults. It opens with
 * the fingerprint's persistence, which the baseline's verdict writes and
 * wh_reduction_start reads. Part of the reduce module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_audit.h"
#include "reduce_claims.h"
#include "reduce_verify.h"
#include "reduce_fault.h"
#include "reduce_trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "foreign.h"

/* ---- fingerprint persistence: the baseline is cached like a verdict, so a
 * rerun of the same job builds nothing at all ---- */

/* The fingerprint's JSON; with others (may be NULL), an "others" member
 * too: the cached fingerprint of a job carries them to its reruns. */
static char *s_fp_to_json(const wh_fp_t *fp, const char *others)
{
    wh_buf_t b = WH_BUF_INIT;
    wh_fp_json(&b, fp);
    if (others && b.len && b.buf[b.len - 1] == '}') {
        b.len--;
        wh_buf_puts(&b, ",\"others\":");
        wh_buf_json_str(&b, others);
        wh_buf_puts(&b, "}");
    }
    return wh_buf_detach(&b);
}

char *red_others_from_json(const char *s)
{
    json_t *o = json_loads(s, 0, NULL);
    const char *v = json_string_value(json_object_get(o, "others"));
    char *out = v ? strdup(v) : NULL;
    json_decref(o);
    return out;
}

/* The first line of obs that base does not hold (both sorted lines), as a
 * malloc'ed name; NULL when every one is there. */
static char *s_added(const char *base, const char *obs)
{
    for (const char *p = obs; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int found = 0;
        for (const char *q = base; q && *q && !found;) {
            const char *f = strchr(q, '\n');
            size_t m = f ? (size_t)(f - q) : strlen(q);
            found = m == n && !memcmp(p, q, n);
            q = f ? f + 1 : q + m;
        }
        if (!found)
            return strndup(p, n);
        p = e ? e + 1 : p + n;
    }
    return NULL;
}

int red_fp_from_json(const char *s, wh_fp_t *fp)
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

/* ---- verdicts ---- */

/* Stops with exit 3 because the original run's failure is not identified
 * (why), after showing the last lines of its output (the report the node
 * sent: the framework's, else the console log) on stderr and in run.log. */
static void s_show_tail(wh_reduction_t *r, const wh_msg_t *m, int n, const char *what)
{
    /* Paths into the workspace (gone when the run ends) as the project's. */
    char *text = wh_baseline_unworkspace((const char *)m->report, m->report_len);
    char *tail = text ? wh_baseline_tail(text, strlen(text), n) : NULL;
    free(text);
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
    red_fail(r, 3, why);
}

/* The last cap bytes of the file at path (malloc'ed, *len set), or NULL. */
static char *s_file_tail(const char *path, long cap, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    long size = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    if (size >= 0 && fseek(fp, size > cap ? size - cap : 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)(size > cap ? cap : size) + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)(size > cap ? cap : size), fp);
        buf[*len] = 0;
    }
    fclose(fp);
    return buf;
}

/* A failed setup's detail ends "(log: PATH)", a file in the slot's
 * workspace, which is removed when the run ends (embedded.h): its last
 * megabyte is kept as reports/setup.log, its last 30 lines are shown, and
 * the detail names that copy instead (malloc'ed). NULL when d names no log
 * this process can read (a cluster node's is on the node's machine). */
static char *s_keep_setup_log(wh_reduction_t *r, const char *d)
{
    const char *at = strstr(d, " (log: ");
    size_t dl = strlen(d);
    if (!at || !r->rec || dl < 1 || d[dl - 1] != ')')
        return NULL;
    char *path = strndup(at + 7, (size_t)(d + dl - 1 - (at + 7)));
    size_t len = 0;
    char *log = path ? s_file_tail(path, 1L << 20, &len) : NULL;
    char *out = NULL;
    if (log && wh_record_file(r->rec, "reports/setup.log", log, len) == 0) {
        char *tail = wh_baseline_tail(log, len, 30);
        if (tail && *tail && !r->quiet)
            fprintf(stderr, "Last lines of the setup's output (reports/setup.log):\n%s", tail);
        if (tail && *tail)
            wh_record_log(r->rec, "setup's output, last lines:\n%s", tail);
        free(tail);
        out = wh_strdup_printf("%.*s (log: %s/reports/setup.log)", (int)(at - d), d,
                               wh_record_dir(r->rec));
    }
    free(log);
    free(path);
    return out;
}

/* The original's run went wrong (setup, build, infrastructure, not found,
 * passing, skipped): the run stops. 1 when it did. */
static int s_baseline_failed(wh_reduction_t *r, const wh_msg_t *m)
{
    const char *d = m->detail ? m->detail : "";
    if (m->code == WH_ESETUP) {
        char *kept = s_keep_setup_log(r, d);
        red_fail(r, 3, wh_strdup_printf("setup failed for %s: %s", r->job.project, kept ? kept : d));
        free(kept);
        return 1;
    }
    if (m->code == WH_EBUILD) {
        /* The build log says why: its last 30 lines, then the error. */
        if (m->report_len)
            wh_record_file(r->rec, "reports/original.report", m->report, m->report_len);
        s_show_tail(r, m, 30, "build's output");
        /* The compiler's first error names the file that does not build,
         * which is often not the test file (a bug in the library). */
        char *text = wh_baseline_unworkspace((const char *)m->report, m->report_len);
        char *first = text ? wh_baseline_first_error(text) : NULL;
        if (first)
            red_fail(r, 3, wh_strdup_printf("original does not build (testing %s): %s",
                                            r->job.file, first));
        else
            red_fail(r, 3, wh_strdup_printf("original does not build: %s (%s)", r->job.file, d));
        free(first);
        free(text);
        return 1;
    }
    char *missing = m->code == WH_ETAINT ? wh_baseline_not_found(d) : NULL;
    if (missing) {
        red_fail(r, 4, wh_strdup_printf("command not found: %s (in --run); %s", missing, d));
        free(missing);
        return 1;
    }
    if (m->code == WH_ETAINT) {
        red_fail(r, 4, wh_strdup_printf("the original run could not be judged: %s", d));
        return 1;
    }
    if (m->code) {
        red_fail(r, 4, wh_strdup_printf("original run failed: %s", d));
        return 1;
    }
    if (m->report_len)
        wh_record_file(r->rec, "reports/original.report", m->report, m->report_len);
    if (m->verdict == WH_V_INFRA_ERROR) {
        if (strstr(d, "timed out"))
            red_fail(r, 3, wh_strdup_printf("original run of %s: %s", r->job.test, d));
        else
            s_refuse(r, m, wh_strdup_printf("report missing on the original run of %s: %s",
                                            r->job.test, d));
        return 1;
    }
    char *why = wh_baseline_refusal(&r->job, (int)m->test_status, &m->observed,
                                    (const char *)m->report, m->report_len);
    if (!why && m->test_status == 2 /* WH_TR_FAILED */ && r->tree)
        why = wh_foreign_refusal(&r->job, &m->observed, r->tree->text, r->tree->text_len,
                                 r->tree->body_begin);
    if (why) {
        s_refuse(r, m, why);
        return 1;
    }
    switch (m->test_status) {
    case 1:
        red_fail(r, 3, wh_strdup_printf("original test passes: %s in %s", r->job.test,
                                        r->job.file));
        return 1;
    case 3:
        red_fail(r, 3, wh_strdup_printf("original test is skipped: %s", r->job.test));
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
        red_fail(r, 3, wh_strdup_printf("original test is flaky: it failed the same way in "
                                        "%d of %d runs (%s); use --flaky-ok R to reduce it anyway",
                                        agree, runs, d));
        return 1;
    }
    if (agree < r->job.flaky_ok) {
        red_fail(r, 3, wh_strdup_printf("original test failed the same way in only %d of %d runs, "
                                        "below --flaky-ok %d (%s)", agree, runs,
                                        r->job.flaky_ok, d));
        return 1;
    }
    wh_record_log(r->rec, "original is flaky: %d of %d runs failed the same way (%s); "
                  "accepting candidates that preserve in at least %d", agree, runs, d,
                  r->job.flaky_ok);
    red_out(r, "Original is flaky: %d of %d runs failed the same way; --flaky-ok %d\n",
            agree, runs, r->job.flaky_ok);
    return 0;
}

char *red_fp_line(const wh_fp_t *fp)
{
    /* A crash has a kind (crash(SIGSEGV), a sanitizer's) and often no
     * location: an empty part read as a field missing from the line. */
    const char *part[] = {fp->test, fp->kind, fp->location, fp->message};
    wh_buf_t b = WH_BUF_INIT;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
        if (part[i] && *part[i])
            wh_buf_printf(&b, "%s%s", b.len ? " | " : "", part[i]);
    return b.buf ? wh_buf_detach(&b) : strdup("");
}

/* The walk's prior (prior.h) from the fingerprint's location; without one
 * (no location in the test body) the walk expects what the memo says. */
static void s_make_prior(wh_reduction_t *r)
{
    wh_prior_destroy(&r->prior);
    if (!r->job.prior) {
        wh_record_log(r->rec, "prior: none (--prior none): every removal no verdict speaks for "
                      "is expected not Preserved");
        return;
    }
    int seed = wh_prior_seed(r->tree, r->fp.location);
    r->prior = wh_prior_new(r->tree, seed);
    if (r->prior)
        wh_record_log(r->rec, "prior: the slice of the failing statement (unit %d, line %u) "
                      "holds %d of %d statements", seed, r->tree->units[seed].line,
                      wh_prior_size(r->prior), r->tree->n);
    else if (seed < 0)
        wh_record_log(r->rec, "prior: none (the failure's location %s is not a statement of "
                      "the test)", r->fp.location && *r->fp.location ? r->fp.location : "-");
    else
        wh_record_log(r->rec, "prior: none (%s)", wh_strerror(WH_ENOMEM));
}

/* Records the fingerprint (cache, run folder, pool) and starts the walk. */
void red_take_fingerprint(wh_reduction_t *r, const wh_fp_t *observed)
{
    wh_fp_copy(&r->fp, observed);
    char *js = s_fp_to_json(&r->fp, r->base_others);
    char fpkey[80];
    snprintf(fpkey, sizeof fpkey, "fp:%s", r->job_id);
    wh_cache_put_blob(r->cache, fpkey, js);
    wh_record_file(r->rec, "fingerprint.json", js, strlen(js));
    char *line = red_fp_line(&r->fp);
    red_out(r, "Fingerprint: %s\n", line ? line : "");
    free(line);
    free(js);
    wh_pool_set_ref(r->pool, r->pool_id, &r->fp);
    red_begin_walk(r);
}

/* A reference --reference auto picked must pass the original (the same
 * test file, on the picked version): else it shows nothing about the
 * fault, and the run goes on without it. */
void red_begin_walk(wh_reduction_t *r)
{
    red_flags_say(r); /* the tree's flags are final now */
    if (r->job.fingerprint_only) { /* a batch's grouping run: nothing more */
        red_finish_fingerprint(r);
        return;
    }
    s_make_prior(r); /* the fingerprint is known: observed, or from the cache */
    if (red_fault_probe(r))
        return; /* the original runs on a picked reference first */
    r->state = RED_ROUNDS;
    red_advance(r);
}

static void s_on_baseline(wh_reduction_t *r, const wh_msg_t *m)
{
    free(r->base_others);
    r->base_others = wh_strdup0(m->others);
    if (r->base_others && *r->base_others)
        wh_record_log(r->rec, "the original's run failed other functions too: %s (a candidate "
                      "that fails one more is a different failure)", r->base_others);
    if (s_baseline_failed(r, m) || s_baseline_flaky(r, m))
        return;
    if (red_exact_tree(r, m->compile.argc ? &m->compile : NULL, m->compile_root, &m->observed))
        return; /* failed, or parsing: wh_reduction_poll goes on */
    if (r->fe_wait) { /* the front end is still being set up: it goes on */
        if (wh_fp_copy(&r->pending_fp, &m->observed))
            red_fail(r, 4, NULL);
        r->fe_fp = 1;
        return;
    }
    red_take_fingerprint(r, &m->observed);
}

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
    while (k < r->nspec && r->spec[k].id != id)
        k++;
    if (k == r->nspec)
        return 0;
    /* A node taken out of the job (its verdicts were found wrong) may
     * still answer what it was judging: not believed. */
    if (m->verdict >= 1 && m->verdict < WH_V_COUNT && m->verdict != WH_V_INFRA_ERROR &&
        !s_msg_flaky(m) && !m->code && !red_trust_spec_ignored(r, worker)) {
        wh_cache_put_node(r->cache, WH_CACHE_VERDICTS, r->spec[k].key,
                          (wh_verdict_t)m->verdict, wh_pool_key_of(r->pool, worker));
        s_judged(r, r->spec[k].key, worker);
        if (r->spec[k].exact || r->spec[k].delta)
            wh_memo_put(r->memo, r->spec[k].exact, r->spec[k].delta, (wh_verdict_t)m->verdict);
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
    struct red_spec_done *d = red_spec_done_new(r);
    if (d) {
        memcpy(d->key, r->spec[k].key, 65);
        d->node = strdup(worker ? worker : "-");
        d->ms = (uint64_t)m->build_ms + m->test_ms;
        d->build_ms = m->build_ms;
        d->test_ms = m->test_ms;
        d->end_ms = wh_now_ms() - r->t0;
        d->pre = r->spec[k].pre;
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
        red_cand_t *c = &r->c[i];
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
            r->turn_ms = r->turn_ms ? (3 * r->turn_ms + turn) / 4 : turn;
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
            wh_memo_put(r->memo, c->exact, c->delta, c->v);
        if (c->audit_v)
            red_cache_audit_answer(r, c);
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
        .kind = id == r->baseline_id                          ? "original"
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
    char *added = in->verdict == WH_V_PRESERVED && r->base_others && in->others &&
                          r->job.whole_test && r->job.repeat <= 1 && id != r->baseline_id
                      ? s_added(r->base_others, in->others)
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
        if (r->state == RED_ROUNDS && r->c)
            red_advance(r);
        return;
    }
    s_note_judged(r, id, m, worker);
    if (r->state == RED_BASELINE && id == r->baseline_id) {
        red_trust_baseline(r, worker);
        s_on_baseline(r, m);
        return;
    }
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
        if (r->c)
            red_replan(r);
        else
            red_advance(r); /* the next chain may have waited for it */
        return;
    }
    if (!r->c)
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
    for (int i = 0; i < r->nc; i++) {
        red_cand_t *c = &r->c[i];
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
