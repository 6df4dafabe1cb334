/*
 * reduce_baseline — the baseline phase of a job: the original's run (or
 * its fingerprint from the cache, so a rerun of the same job builds
 * nothing at all), the checks that its failure is identified and not
 * flaky (baseline.h), the fingerprint recorded, and the walk begun. The
 * original's other failing functions are kept here: a candidate that
 * fails one more is a different failure. The fingerprint waits for the
 * front end's set-up (fe_wait, pending_fp in reduce_int.h: shared with
 * reduce_frontend.c and reduce_flags.c). Part of the reduce module
 * (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_baseline.h"
#include "reduce_fault.h"
#include "reduce_results.h"
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
    wh_prior_destroy(&r->walk.prior);
    if (!r->job.prior) {
        wh_record_log(r->rec, "prior: none (--prior none): every removal no verdict speaks for "
                      "is expected not Preserved");
        return;
    }
    int seed = wh_prior_seed(r->tree, r->fp.location);
    r->walk.prior = wh_prior_new(r->tree, seed);
    if (r->walk.prior)
        wh_record_log(r->rec, "prior: the slice of the failing statement (unit %d, line %u) "
                      "holds %d of %d statements", seed, r->tree->units[seed].line,
                      wh_prior_size(r->walk.prior), r->tree->n);
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
    char *js = s_fp_to_json(&r->fp, r->baseline.others);
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
    free(r->baseline.others);
    r->baseline.others = wh_strdup0(m->others);
    if (r->baseline.others && *r->baseline.others)
        wh_record_log(r->rec, "the original's run failed other functions too: %s (a candidate "
                      "that fails one more is a different failure)", r->baseline.others);
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

int red_baseline_start(wh_reduction_t *r, char **err)
{
    char fpkey[80];
    snprintf(fpkey, sizeof fpkey, "fp:%s", r->job_id);
    char *cached_fp = NULL;
    if (wh_cache_get_blob(r->cache, fpkey, &cached_fp) == 0 && cached_fp &&
        red_fp_from_json(cached_fp, &r->fp) == 0 && wh_baseline_fp_usable(&r->job, &r->fp) &&
        red_cached_flags_ok(r)) {
        wh_record_file(r->rec, "fingerprint.json", cached_fp, strlen(cached_fp));
        r->baseline.others = red_others_from_json(cached_fp);
        wh_record_log(r->rec, "fingerprint from the cache: %s", cached_fp);
        char *line = red_fp_line(&r->fp);
        red_out(r, "Fingerprint (cached): %s\n", line ? line : "");
        free(line);
        free(cached_fp);
        wh_pool_set_ref(r->pool, r->pool_id, &r->fp);
        if (r->fe_wait)
            r->fe_walk = 1; /* wh_reduction_frontend_done begins it */
        else
            red_begin_walk(r);
        return 0;
    }
    free(cached_fp);
    wh_fp_clear(&r->fp); /* none, or one that identifies nothing: run the original */
    r->state = RED_BASELINE;
    r->baseline.id = ++r->next_eval;
    int rc = wh_pool_submit(r->pool, r->pool_id, r->baseline.id, r->tree->text,
                            r->tree->text_len, WH_TASK_BASELINE);
    if (rc)
        *err = wh_strdup_printf("cannot queue the original run: %s", wh_strerror(rc));
    return rc;
}


int red_baseline_take(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker)
{
    if (r->state != RED_BASELINE || id != r->baseline.id)
        return 0;
    red_trust_baseline(r, worker);
    s_on_baseline(r, m);
    return 1;
}

int red_baseline_is(const wh_reduction_t *r, uint64_t id)
{
    return id == r->baseline.id;
}

char *red_baseline_added(const wh_reduction_t *r, uint64_t id, const char *others)
{
    if (!r->baseline.others || !others || id == r->baseline.id)
        return NULL;
    return s_added(r->baseline.others, others);
}

void red_baseline_free(wh_reduction_t *r)
{
    free(r->baseline.others);
}
