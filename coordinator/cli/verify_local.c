/*
 * verify_local — the client's own check of a cluster's answer
 * (verify_local.h).
 */
#define _GNU_SOURCE
#include "verify_local.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework.h"
#include "oracle.h"
#include "runner.h"
#include "scratch.h"
#include "workspace.h"

/* A setup that gives no timeout of its own may take this long. */
#define S_SETUP_MS (3600u * 1000u)

/* One local workspace: a copy of a project, set up. */
typedef struct {
    char *root, *report, *log;
} s_ws_t;

static void s_ws_clear(s_ws_t *w)
{
    free(w->root);
    free(w->report);
    free(w->log);
    memset(w, 0, sizeof *w);
}

static const char *s_status_name(wh_test_status_t s)
{
    return s == WH_TR_PASSED ? "it passes" : s == WH_TR_FAILED ? "it fails"
           : s == WH_TR_SKIPPED ? "it is skipped" : "the test is not in its report";
}

static int s_tick(void *arg)
{
    return *(volatile sig_atomic_t *)arg != 0;
}

/* Copies project into base/name and runs the job's setup there (with a
 * TMPDIR and HOME of its own, as on a node). 0, or 4 with *said. */
static int s_prepare(const wh_job_t *j, const char *project, const char *base, const char *name,
                     volatile sig_atomic_t *stop, s_ws_t *w, char **said)
{
    w->root = wh_path_join(base, name);
    w->report = wh_strdup_printf("%s/%s.report", base, name);
    w->log = wh_strdup_printf("%s/%s.console.log", base, name);
    /* The embedded default's run folders, when they are in the project. */
    char *runs = wh_path_join(project, "whittle-runs");
    const char *excl[] = {runs, NULL};
    char *err = NULL;
    int rc = w->root && w->report && w->log && runs ? 0 : WH_ENOMEM;
    if (!rc && (rc = wh_workspace_copy(project, w->root, excl, &err)) != 0)
        *said = wh_strdup_printf("--verify-local: cannot copy %s: %s", project,
                                 err ? err : wh_strerror(rc));
    free(err);
    free(runs);
    if (rc || !j->setup || !*j->setup)
        return rc ? 4 : 0;
    wh_scratch_t sc;
    if ((rc = wh_scratch_prepare(&sc, w->root, NULL)) != 0) {
        *said = wh_strdup_printf("--verify-local: cannot make a TMPDIR beside %s: %s", w->root,
                                 wh_strerror(rc));
        return 4;
    }
    char *log = wh_strdup_printf("%s.setup.log", w->root);
    wh_run_opts_t o = {0};
    o.cmd = j->setup;
    o.cwd = w->root;
    o.timeout_ms = j->setup_timeout_ms ? j->setup_timeout_ms : S_SETUP_MS;
    o.log_path = log;
    o.tick = s_tick;
    o.tick_arg = (void *)stop;
    o.scratch_env = sc.env;
    wh_run_result_t x = {0};
    rc = log ? wh_run(&o, &x) : WH_ENOMEM;
    wh_scratch_clear(&sc);
    if (rc || x.cancelled || x.timed_out || x.signaled || x.exit_code)
        *said = rc ? wh_strdup_printf("--verify-local: the setup could not start in %s: %s",
                                      w->root, wh_strerror(rc))
                : x.cancelled ? strdup("--verify-local: interrupted during the setup")
                              : wh_strdup_printf("--verify-local: the setup failed here (%s %d; "
                                                 "log: %s)",
                                                 x.timed_out  ? "timed out after ms"
                                                 : x.signaled ? "killed by signal"
                                                              : "exited",
                                                 x.timed_out  ? (int)o.timeout_ms
                                                 : x.signaled ? x.term_signal
                                                              : x.exit_code,
                                                 log);
    free(log);
    return *said ? 4 : 0;
}

/* Writes content into w's test file, builds and runs the test, judged
 * against ref (NULL: no verdict, the result only). 0, or 4 with *said. */
static int s_run(const wh_job_t *j, const wh_framework_t *fw, const s_ws_t *w,
                 const char *content, size_t len, const wh_fp_t *ref, const wh_whole_t *whole,
                 volatile sig_atomic_t *stop, wh_eval_result_t *out, char **said)
{
    wh_scratch_t sc;
    int rc = wh_scratch_prepare(&sc, w->root, NULL);
    if (rc) {
        *said = wh_strdup_printf("--verify-local: cannot make a TMPDIR beside %s: %s", w->root,
                                 wh_strerror(rc));
        return 4;
    }
    wh_eval_spec_t es = {0};
    es.root = w->root;
    es.test_file = j->file;
    es.build_cmd = j->build;
    es.run_cmd = j->run;
    es.fw = fw;
    es.test = j->test;
    es.build_timeout_ms = j->build_timeout_ms;
    es.test_timeout_ms = j->test_timeout_ms;
    es.report_path = w->report;
    es.log_path = w->log;
    es.failure_regex = j->failure_regex;
    es.pass_regex = j->pass_regex;
    es.message_continuation = j->message_continuation;
    es.pass_on_exit0 = j->pass_on_exit0;
    es.whole = whole;
    es.test_fn = j->test_fn;
    es.tick = s_tick;
    es.tick_arg = (void *)stop;
    es.scratch_env = sc.env;
    rc = wh_evaluate(&es, content, len, ref, (wh_match_t)j->match, out);
    wh_scratch_clear(&sc);
    if (rc)
        *said = wh_strdup_printf("--verify-local: cannot write %s in %s: %s", j->file, w->root,
                                 wh_strerror(rc));
    else if (out->cancelled)
        *said = strdup("--verify-local: interrupted");
    return *said ? 4 : 0;
}

/* The original's fingerprint, taken here. 0, 3 (it does not fail here)
 * or 4, with *said on failure. */
static int s_original(const wh_job_t *j, const wh_framework_t *fw, const s_ws_t *w,
                      volatile sig_atomic_t *stop, wh_eval_result_t *orig, char **said)
{
    char *path = wh_path_join(j->project, j->file), *text = NULL;
    size_t tlen = 0;
    int rc = path ? wh_read_file(path, 64u << 20, &text, &tlen) : WH_ENOMEM;
    if (rc)
        *said = wh_strdup_printf("--verify-local: cannot read %s: %s", path ? path : j->file,
                                 wh_strerror(rc));
    else if ((rc = s_run(j, fw, w, text, tlen, NULL, NULL, stop, orig, said)) == 0 &&
             (orig->verdict != WH_V_NONE || orig->result.status != WH_TR_FAILED)) {
        *said = wh_strdup_printf("--verify-local: the original test does not fail here (%s%s%s), "
                                 "so this machine cannot judge the answer",
                                 orig->verdict != WH_V_NONE ? wh_verdict_name(orig->verdict)
                                                            : s_status_name(orig->result.status),
                                 orig->detail ? ": " : "", orig->detail ? orig->detail : "");
        rc = 3;
    }
    free(path);
    free(text);
    return rc ? (rc == 3 ? 3 : 4) : 0;
}

/* The reduced test on the reference must pass: the fault is kept. */
static int s_on_reference(const wh_job_t *j, const wh_framework_t *fw, const char *base,
                          const char *reduced, size_t len, volatile sig_atomic_t *stop,
                          char **said)
{
    s_ws_t w = {0};
    wh_eval_result_t r = {0};
    int rc = s_prepare(j, j->reference, base, "reference", stop, &w, said);
    if (!rc)
    {
        /* A whole CTest test must pass there as CTest judges it. */
        wh_whole_t whole = {j->will_fail, j->ctest_pass_regex, j->ctest_fail_regex};
        rc = s_run(j, fw, &w, reduced, len, NULL, j->whole_test ? &whole : NULL, stop, &r, said);
    }
    if (!rc && (r.verdict != WH_V_NONE || r.result.status != WH_TR_PASSED)) {
        *said = wh_strdup_printf("--verify-local: the reduced test does not pass on the reference "
                                 "%s here (%s): the fault is not shown kept",
                                 j->reference,
                                 r.verdict != WH_V_NONE ? wh_verdict_name(r.verdict)
                                                        : s_status_name(r.result.status));
        rc = 3;
    }
    wh_eval_result_clear(&r);
    s_ws_clear(&w);
    return rc;
}

int wh_verify_local(const wh_job_t *j, const char *reduced, size_t len,
                    volatile sig_atomic_t *stop, char **said)
{
    *said = NULL;
    const wh_framework_t *fw = wh_framework_find(j->framework ? j->framework : "junit");
    if (!fw) {
        *said = wh_strdup_printf("--verify-local: unknown framework '%s'", j->framework);
        return 4;
    }
    const char *tmp = getenv("TMPDIR");
    char *base = wh_strdup_printf("%s/whittle-verify.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!base || !mkdtemp(base)) {
        *said = wh_strdup_printf("--verify-local: cannot make a folder under %s",
                                 tmp && *tmp ? tmp : "/tmp");
        free(base);
        return 4;
    }
    s_ws_t w = {0};
    wh_eval_result_t orig = {0}, red = {0};
    int rc = s_prepare(j, j->project, base, "project", stop, &w, said);
    if (!rc)
        rc = s_original(j, fw, &w, stop, &orig, said);
    if (!rc)
        rc = s_run(j, fw, &w, reduced, len, &orig.result.fp, NULL, stop, &red, said);
    if (!rc && red.verdict != WH_V_PRESERVED) {
        *said = wh_strdup_printf("--verify-local: the reduced test does not fail the same way on "
                                 "this machine: %s%s%s (the original fails with \"%s\" at %s)",
                                 wh_verdict_name(red.verdict), red.detail ? ": " : "",
                                 red.detail ? red.detail : "",
                                 orig.result.fp.message ? orig.result.fp.message : "",
                                 orig.result.fp.location ? orig.result.fp.location : "?");
        rc = 3;
    }
    int on_ref = !rc && j->reference && wh_is_dir(j->reference);
    if (on_ref)
        rc = s_on_reference(j, fw, base, reduced, len, stop, said);
    if (!rc)
        *said = wh_strdup_printf("Verified locally: the reduced test fails the same way on this "
                                 "machine (\"%s\" at %s)%s",
                                 orig.result.fp.message ? orig.result.fp.message : "",
                                 orig.result.fp.location ? orig.result.fp.location : "?",
                                 on_ref ? " and passes on the reference"
                                 : j->reference ? "; the reference is not a folder here: not checked"
                                                : "");
    wh_eval_result_clear(&orig);
    wh_eval_result_clear(&red);
    s_ws_clear(&w);
    wh_rm_rf(base);
    free(base);
    return rc;
}
