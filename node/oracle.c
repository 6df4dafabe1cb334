/*
 * oracle — fingerprint matching, verdicts, and the evaluation of one
 * candidate in a warm workspace (thesis section 3.5; DESIGN.md "Oracle and
 * verdicts").
 *
 * The order inside wh_evaluate matters: the stale report is removed before
 * anything runs, so that a report left by an earlier candidate can never be
 * read as this candidate's result; and the test file's mtime is moved
 * strictly forward, so that make or ninja always rebuild it even on file
 * systems (or tools) with one-second timestamp granularity.
 */
#define _GNU_SOURCE
#include "oracle.h"
#include "fw_failing.h"
#include "fw_segment.h"
#include "junit_cases.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The part of the console log handed to the report reader (its tail). */
#define S_CONSOLE_CAP ((size_t)1 << 20)
/* Characters of a message quoted in a one-line detail. */
#define S_DETAIL_MSG 160


static int s_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* a == b after both were normalized, without copying either. */
static int s_eq_ws(const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    for (;;) {
        while (isspace((unsigned char)*a))
            a++;
        while (isspace((unsigned char)*b))
            b++;
        /* Both at a word: compare the words. */
        while (*a && *b && !isspace((unsigned char)*a) && !isspace((unsigned char)*b)) {
            if (*a != *b)
                return 0;
            a++, b++;
        }
        int ea = !*a || isspace((unsigned char)*a);
        int eb = !*b || isspace((unsigned char)*b);
        if (!ea || !eb)
            return 0;
        while (isspace((unsigned char)*a))
            a++;
        while (isspace((unsigned char)*b))
            b++;
        if (!*a || !*b)
            return !*a && !*b;
    }
}

int wh_fp_match(const wh_fp_t *ref, const wh_fp_t *obs, wh_match_t m)
{
    if (!ref || !obs)
        return 0;
    if (!s_eq(ref->test, obs->test) || !s_eq(ref->kind, obs->kind))
        return 0;
    switch (m) {
    case WH_MATCH_FULL:
        return s_eq(ref->location, obs->location) && s_eq_ws(ref->message, obs->message);
    case WH_MATCH_MESSAGE:
        return s_eq_ws(ref->message, obs->message);
    case WH_MATCH_TYPE:
        return 1;
    }
    return 0;
}

wh_verdict_t wh_oracle_judge(const wh_test_result_t *r, const wh_fp_t *ref, wh_match_t m)
{
    if (!r)
        return WH_V_INFRA_ERROR;
    switch (r->status) {
    case WH_TR_MISSING:
    case WH_TR_SKIPPED:
        /* A skipped test did not run: like a missing one, it says nothing
         * about the failure. */
        return WH_V_TEST_MISSING;
    case WH_TR_PASSED:
        return WH_V_TEST_PASSED;
    case WH_TR_FAILED:
        return wh_fp_match(ref, &r->fp, m) ? WH_V_PRESERVED : WH_V_DIFFERENT_FAILURE;
    }
    return WH_V_INFRA_ERROR;
}

void wh_eval_result_clear(wh_eval_result_t *r)
{
    if (!r)
        return;
    wh_test_result_clear(&r->result);
    free(r->detail);
    free(r->whole_fail);
    free(r->others);
    memset(r, 0, sizeof *r);
    r->result.status = WH_TR_MISSING;
}

/* ---- evaluation ---- */

/* Sets path's mtime to max(now, before + 1 s). */
static int s_bump_mtime(const char *path, const struct timespec *before)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct timespec t = now;
    if (before) {
        struct timespec min = {before->tv_sec + 1, before->tv_nsec};
        if (min.tv_sec > t.tv_sec || (min.tv_sec == t.tv_sec && min.tv_nsec > t.tv_nsec))
            t = min;
    }
    struct timespec ts[2] = {now, t};
    return utimensat(AT_FDCWD, path, ts, 0) < 0 ? -errno : 0;
}

static off_t s_file_size(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 ? st.st_size : 0;
}

/* The log from offset `from` on, at most its last S_CONSOLE_CAP bytes. */
static char *s_read_console(const char *path, off_t from, size_t *len)
{
    *len = 0;
    if (!path)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && st.st_size > from) {
        off_t start = st.st_size - from > (off_t)S_CONSOLE_CAP ? st.st_size - (off_t)S_CONSOLE_CAP
                                                              : from;
        size_t want = (size_t)(st.st_size - start);
        buf = malloc(want + 1);
        size_t got = 0;
        while (buf && got < want) {
            ssize_t n = pread(fd, buf + got, want - got, start + (off_t)got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        if (buf) {
            buf[got] = '\0';
            *len = got;
        }
    }
    close(fd);
    return buf;
}

static void s_detail(wh_eval_result_t *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void s_detail(wh_eval_result_t *out, const char *fmt, ...)
{
    wh_buf_t b = WH_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int rc = wh_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    free(out->detail);
    out->detail = rc ? NULL : wh_buf_detach(&b);
    if (rc)
        wh_buf_free(&b);
    /* One line, whatever a message contained. */
    for (char *p = out->detail; p && *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

static const char *s_status_name(wh_test_status_t s)
{
    switch (s) {
    case WH_TR_MISSING:
        return "test not in report";
    case WH_TR_PASSED:
        return "test passed";
    case WH_TR_FAILED:
        return "test failed";
    case WH_TR_SKIPPED:
        return "test skipped";
    }
    return "?";
}

/* How a finished run ended, for details: "exited 1", "killed by signal 9". */
static void s_how(const wh_run_result_t *r, char *buf, size_t n)
{
    if (r->signaled)
        snprintf(buf, n, "killed by signal %d", r->term_signal);
    else
        snprintf(buf, n, "exited %d", r->exit_code);
}

/* A signal the test died of: its own (the shell exec'ed it), or one a shell
 * reported as 128+N for the signals that mean a crash. Read only to name a
 * crash when there is no report, never to judge a result. */
static int s_crash_signal(const wh_run_result_t *r)
{
    if (r->signaled)
        return r->term_signal;
    int sig = r->exit_code - 128;
    switch (sig) {
    case SIGSEGV:
    case SIGABRT:
    case SIGBUS:
    case SIGFPE:
    case SIGILL:
    case SIGTRAP:
    case SIGSYS:
        return sig;
    default:
        return 0;
    }
}

/* "NAME=<options>" for a sanitizer runtime: whittle's defaults, or, when
 * the user's environment already sets NAME, theirs with only log_path and
 * halt_on_error forced (later options win in the runtimes' parser). */
static char *s_san_env(const char *name, const char *defaults, const char *log)
{
    const char *user = getenv(name);
    /* The runtimes split options at ':' and blanks; quote a path with them. */
    int quote = strpbrk(log, ": \t") != NULL;
    const char *q = quote ? "\"" : "";
    if (user && *user)
        return wh_strdup_printf("%s=%s:log_path=%s%s%s:halt_on_error=1", name, user, q, log, q);
    return wh_strdup_printf("%s=log_path=%s%s%s:%s", name, q, log, q, defaults);
}

/* Appends text to the console log, so the run record shows it. */
static void s_log_append(const char *path, const char *text, size_t len)
{
    if (!path || !len)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    for (size_t off = 0; off < len;) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
}

/* Replaces r with a FAILED result for test with the given identity. */
static int s_set_failed(wh_test_result_t *r, const char *test, const char *kind,
                        const char *location, const char *message)
{
    wh_test_result_clear(r);
    r->status = WH_TR_FAILED;
    r->fp.test = strdup(test);
    r->fp.kind = strdup(kind);
    r->fp.location = strdup(location ? location : "");
    r->fp.message = strdup(message ? message : "");
    return r->fp.test && r->fp.kind && r->fp.location && r->fp.message ? 0 : WH_ENOMEM;
}

/* FAILED with kind crash(SIG…) for sig, no location and no message. 0 or
 * WH_ENOMEM. */
static int s_set_crashed(wh_test_result_t *r, const char *test, int sig)
{
    char *kind = wh_crash_kind(sig);
    int rc = kind ? s_set_failed(r, test, kind, "", "") : WH_ENOMEM;
    free(kind);
    return rc;
}

static int s_cancelled(const wh_eval_spec_t *s)
{
    return s->tick && s->tick(s->tick_arg);
}

/* Runs one step of an evaluation (what: "build" or "test"; during: what the
 * detail of a cancel calls it) and sets *ms to its time (0 when it did not
 * start). Returns 1 when the step did not end on its own (it could not
 * start, was cancelled or timed out), with out holding that InfraError;
 * 0 when rr holds how the finished command ended. */
/* The workspace root as the commands see it (the stable path when they run
 * in a mount namespace): paths in reports and consoles are under it. */
static const char *s_seen(const wh_eval_spec_t *s)
{
    return s->mount_at ? s->mount_at : s->root;
}

static int s_run_step(const wh_run_opts_t *o, const char *what, const char *during,
                      wh_run_result_t *rr, uint64_t *ms, wh_eval_result_t *out)
{
    int is_test = strcmp(what, "test") == 0;
    if (is_test)
        out->test_log_from = (long long)s_file_size(o->log_path);
    int r = wh_run(o, rr);
    *ms = r ? 0 : rr->ms;
    if (!r) {
        *(is_test ? &out->test_run : &out->build_run) = *rr;
        *(is_test ? &out->test_ran : &out->build_ran) = 1;
    }
    if (r) {
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "cannot start %s: %s", what, wh_strerror(r));
        return 1;
    }
    if (rr->cancelled) {
        out->cancelled = 1;
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "cancelled during %s", during);
        return 1;
    }
    if (rr->timed_out) {
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "%s timed out after %u ms", what, o->timeout_ms);
        return 1;
    }
    if (rr->group_lingered) {
        /* Something of the step outlived its kill (stuck in the kernel):
         * what it still writes could change the next outcome. */
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "a process of the %s outlived its kill", what);
        return 1;
    }
    return 0;
}

/* Step 1: the candidate into the workspace, with an mtime strictly after
 * the previous one. 0, or a negative code with out->detail. */
static int s_write_candidate(const wh_eval_spec_t *s, const char *content, size_t len,
                             wh_eval_result_t *out)
{
    char *path = wh_path_join(s->root, s->test_file);
    if (!path)
        return WH_ENOMEM;
    struct stat st;
    int had = stat(path, &st) == 0;
    struct timespec before = had ? st.st_mtim : (struct timespec){0, 0};
    int rc = wh_write_file_inplace(path, content ? content : "", len);
    if (!rc)
        rc = s_bump_mtime(path, had ? &before : NULL);
    if (rc)
        s_detail(out, "cannot write '%s': %s", path, wh_strerror(rc));
    free(path);
    return rc;
}

/* Step 2: no stale report (its folder made), a fresh log. 0, or a
 * negative code with out->detail. */
static int s_fresh_outputs(const wh_eval_spec_t *s, wh_eval_result_t *out)
{
    if (unlink(s->report_path) < 0 && errno != ENOENT) {
        int rc = -errno;
        s_detail(out, "cannot remove stale report '%s': %s", s->report_path, wh_strerror(rc));
        return rc;
    }
    char *dir = strdup(s->report_path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash && slash != dir) {
        *slash = '\0';
        wh_mkdir_p(dir); /* best effort: a missing report is judged later */
    }
    free(dir);
    if (s->log_path) {
        int fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }
    return 0;
}

/* Step 3: the incremental build. Returns 1 when the evaluation ends here
 * (out holds BuildFailed or InfraError), 0 when the test may run. */
static int s_build(const wh_eval_spec_t *s, wh_eval_result_t *out)
{
    wh_run_result_t rr;
    if (s->build_cmd && *s->build_cmd) {
        /* {test} and $WHITTLE_TEST name the target here as in the run. */
        char *cmd = wh_expand(s->build_cmd, s->test, s->report_path);
        char *test_env = wh_strdup_printf("WHITTLE_TEST=%s", s->test ? s->test : "");
        const char *env[] = {test_env, NULL};
        wh_run_opts_t bo = {cmd,         s->root, env,         s->build_timeout_ms,
                            s->log_path, s->tick, s->tick_arg, s->mount_at,
                            s->runas,    s->scratch_env};
        int stop = 1;
        if (cmd && test_env)
            stop = s_run_step(&bo, "build", "build", &rr, &out->build_ms, out);
        else
            out->verdict = WH_V_INFRA_ERROR;
        free(cmd);
        free(test_env);
        if (stop)
            return 1;
        if (rr.signaled) {
            /* The build's shell itself was killed from outside (the OOM
             * killer, an operator): nothing about the candidate. */
            out->verdict = WH_V_INFRA_ERROR;
            s_detail(out, "build killed by signal %d", rr.term_signal);
            return 1;
        }
        if (rr.exit_code != 0) {
            out->verdict = WH_V_BUILD_FAILED;
            s_detail(out, "build exited %d", rr.exit_code);
            return 1;
        }
    }
    out->build_ok = 1;
    if (s_cancelled(s)) {
        out->cancelled = 1;
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "cancelled before the test run");
        return 1;
    }
    return 0;
}

/* What one test run needs: its command line, its extra environment and
 * the sanitizer log prefix. */
typedef struct {
    char *cmd;
    char **env;   /* n_env entries, NULL-terminated */
    size_t n_env;
    char *san;    /* "<root>.san": the runtimes append .PID */
} s_testrun_t;

static void s_testrun_free(s_testrun_t *t)
{
    for (size_t i = 0; t->env && i < t->n_env; i++)
        free(t->env[i]);
    free(t->env);
    free(t->cmd);
    free(t->san);
    memset(t, 0, sizeof *t);
}

/* The run command with the preset's suffix, and the environment:
 * WHITTLE_TEST, WHITTLE_REPORT, the sanitizer options and the preset's
 * entries. 0 or WH_ENOMEM. */
static int s_testrun_make(const wh_eval_spec_t *s, s_testrun_t *t)
{
    memset(t, 0, sizeof *t);
    char *run = wh_expand(s->run_cmd, s->test, s->report_path);
    char *suffix = s->fw->run_suffix ? wh_expand(s->fw->run_suffix, s->test, s->report_path) : NULL;
    if (run && (!s->fw->run_suffix || suffix))
        t->cmd = suffix && *suffix ? wh_strdup_printf("%s %s", run, suffix) : strdup(run);
    free(run);
    free(suffix);
    /* Sanitizer reports go to "<root>.san.<pid>", beside the workspace like
     * the report, where a stale one can be removed before the run and the
     * new ones found after it; never into the console, where a harness's
     * own output could interleave with them. */
    size_t rl = strlen(s->root);
    while (rl > 1 && s->root[rl - 1] == '/')
        rl--;
    t->san = wh_strdup_printf("%.*s.san", (int)rl, s->root);
    /* A whole CTest test runs as CTest runs it: the harness's console
     * output, not its report, and ASan's leak checker on. */
    const char *const *fw_env = s->fw->env;
    if (s->whole && wh_fw_console_env(s->fw))
        fw_env = wh_fw_console_env(s->fw);
    size_t n_fw = 0;
    for (const char *const *e = fw_env; e && *e; e++)
        n_fw++;
    t->n_env = 4 + n_fw;
    t->env = calloc(t->n_env + 1, sizeof *t->env);
    if (!t->cmd || !t->san || !t->env)
        return WH_ENOMEM;
    t->env[0] = wh_strdup_printf("WHITTLE_TEST=%s", s->test);
    t->env[1] = wh_strdup_printf("WHITTLE_REPORT=%s", s->report_path);
    t->env[2] = s_san_env("ASAN_OPTIONS",
                          s->whole ? "halt_on_error=1:abort_on_error=0:symbolize=1:detect_leaks=1"
                                   : "halt_on_error=1:abort_on_error=0:symbolize=1:detect_leaks=0",
                          t->san);
    t->env[3] = s_san_env("UBSAN_OPTIONS",
                          "halt_on_error=1:abort_on_error=0:symbolize=1:print_stacktrace=1:"
                          "report_error_type=1",
                          t->san);
    for (size_t i = 0; i < n_fw; i++)
        t->env[4 + i] = wh_expand(fw_env[i], s->test, s->report_path);
    for (size_t i = 0; i < t->n_env; i++)
        if (!t->env[i])
            return WH_ENOMEM;
    return 0;
}

/* 1 when a console reader saw neither a failure nor a pass and the
 * harness's evidence of a pass is its exit status (the preset's, or the
 * job's --pass-on-exit0): a process that exited 0 passed. */
static int s_passes_on_exit(const wh_eval_spec_t *s, const wh_run_result_t *rr,
                            const wh_test_result_t *res)
{
    if (res->status != WH_TR_MISSING || !wh_fw_reads_console(s->fw))
        return 0;
    if (!s->pass_on_exit0 && !(s->fw->flags & WH_FW_EXIT0_PASSES))
        return 0;
    return !rr->signaled && rr->exit_code == 0;
}

static int s_set_passed(wh_test_result_t *r, const char *test)
{
    wh_test_result_clear(r);
    r->status = WH_TR_PASSED;
    r->fp.test = strdup(test);
    return r->fp.test ? 0 : WH_ENOMEM;
}

/* The console of a second run of the test with the preset's console
 * output (wh_fw_console_env): cmocka writes its XML report when the group
 * ends, so a program that died wrote none and printed nothing. Appended
 * to the log after a header line; its sanitizer logs are removed. NULL
 * when the preset has no console output or the run did not end on its
 * own. */
static char *s_console_rerun(const wh_eval_spec_t *s, const s_testrun_t *t, size_t *len)
{
    const char *const *cenv = wh_fw_console_env(s->fw);
    *len = 0;
    if (!cenv)
        return NULL;
    const char *env[16];
    size_t k = 0;
    for (size_t i = 0; i < 4 && i < t->n_env; i++)
        env[k++] = t->env[i];
    for (size_t i = 0; cenv[i] && k < 15; i++)
        env[k++] = cenv[i];
    env[k] = NULL;
    static const char head[] = "\n[whittle: the test died before its report was written; run "
                               "again with the harness's console output]\n";
    s_log_append(s->log_path, head, sizeof head - 1);
    off_t from = s_file_size(s->log_path);
    wh_run_opts_t to = {t->cmd,       s->root, env,         s->test_timeout_ms,
                        s->log_path, s->tick, s->tick_arg, s->mount_at,
                        s->runas,    s->scratch_env};
    wh_run_result_t rr;
    int rc = wh_run(&to, &rr);
    wh_san_remove(t->san);
    if (rc || rr.cancelled || rr.timed_out || rr.group_lingered)
        return NULL;
    return s_read_console(s->log_path, from, len);
}

static int s_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* names[0, n) but test, sorted, each once, a line each; "" when none. */
static char *s_join_others(char **names, size_t n, const char *test)
{
    qsort(names, n, sizeof *names, s_cmp_str);
    wh_buf_t b = WH_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (wh_seg_name_is(names[i], test) || (i && !strcmp(names[i], names[i - 1])))
            continue;
        wh_buf_printf(&b, "%s%s", b.len ? "\n" : "", names[i]);
    }
    return wh_buf_detach(&b);
}

/* The other failing functions a console output names (fw_failing.h: its
 * grammar's failures, and a function the program died in). */
static char *s_others_console(const char *text, size_t len, const char *test)
{
    wh_fw_failing_t *v = NULL;
    size_t n = 0;
    if (wh_fw_failing_parse(text ? text : "", text ? len : 0, &v, &n, NULL))
        return NULL;
    char **names = calloc(n + 1, sizeof *names);
    for (size_t i = 0; names && i < n; i++)
        names[i] = v[i].name;
    char *j = names ? s_join_others(names, n, test) : NULL;
    free(names);
    wh_fw_failing_free(v, n);
    return j;
}

/* The other failing cases of a JUnit-shaped report; NULL when it cannot be
 * read. */
static char *s_others_report(const char *path, const char *test)
{
    wh_junit_case_t *c = NULL;
    size_t n = 0;
    char *err = NULL;
    if (wh_junit_cases_read(path, &c, &n, &err)) {
        free(err);
        return NULL;
    }
    char **names = calloc(n + 1, sizeof *names);
    size_t k = 0;
    for (size_t i = 0; names && i < n; i++)
        if (wh_jc_failing(c[i].status))
            names[k++] = c[i].name;
    char *j = names ? s_join_others(names, k, test) : NULL;
    free(names);
    wh_junit_cases_free(c, n);
    return j;
}

/* A death (a sanitizer report, a signal) belongs to the function running
 * when it came (fw_segment.h). When that is another function than s->test,
 * res becomes what s->test's own part of the console says (failed, passed,
 * skipped, or missing when it never started), *rd 0, and 1 is returned;
 * 0 when the death is s->test's own or no function can be told. Negative
 * on allocation failure. */
static int s_blame_other(const wh_eval_spec_t *s, const s_testrun_t *t, const char *console,
                         size_t console_len, const char *kind, int *rd, wh_test_result_t *res,
                         char **others)
{
    char *again = NULL;
    const char *text = console;
    size_t len = console_len;
    if (!wh_seg_any(console, console_len) && *rd == WH_EREPORT) {
        again = s_console_rerun(s, t, &len);
        text = again;
    }
    char *open = text ? wh_seg_open(text, len) : NULL;
    int rc = 0;
    if (text && wh_seg_any(text, len) && !*others)
        *others = s_others_console(text, len, s->test);
    if (open && !wh_seg_name_is(open, s->test)) {
        char note[512];
        int n = snprintf(note, sizeof note,
                         "\n[whittle: %s came while %s ran: that function's failure, not %s's]\n",
                         kind, open, s->test);
        s_log_append(s->log_path, note, n > 0 && (size_t)n < sizeof note ? (size_t)n : 0);
        if (*rd == WH_EREPORT || res->status != WH_TR_FAILED) {
            wh_seg_t g;
            wh_seg_find(text, len, s->test, &g);
            if (g.state == WH_SEG_FAILED)
                rc = wh_fw_segment_result(text + g.start, g.end - g.start, s->test, res);
            else if (g.state == WH_SEG_PASSED)
                rc = s_set_passed(res, s->test);
            else if (g.state == WH_SEG_SKIPPED) {
                wh_test_result_clear(res);
                res->status = WH_TR_SKIPPED;
            } else
                wh_test_result_clear(res); /* never started: missing */
        }
        *rd = 0;
        rc = rc ? rc : 1;
    }
    free(open);
    free(again);
    return rc;
}

/* Step 5b: how the test died, when it died. The death belongs to the
 * function running when it came (s_blame_other); when that is the test, a
 * sanitizer report overrides the framework's result (an aborting runtime
 * usually kills the report anyway); a signal without any report is a
 * crash, not an infrastructure error; a console reader that saw no failure
 * text while the process died reports the crash. A leak report at exit,
 * after the report was read and with no function running, is the whole
 * program's (whole.h), not the test's. *rd is the reader's code, set to 0
 * when the crash replaces a missing report; *san the first sanitizer
 * report's kind (malloc'ed), or NULL. 0 or WH_ENOMEM. */
static int s_apply_crash(const wh_eval_spec_t *s, const s_testrun_t *t, const wh_run_result_t *rr,
                         const char *console, size_t console_len, int *rd, wh_test_result_t *res,
                         char **san, char **others)
{
    wh_buf_t san_raw = WH_BUF_INIT;
    wh_fp_t san_fp = {0};
    int sf = wh_san_collect(t->san, s_seen(s), &san_fp, &san_raw);
    s_log_append(s->log_path, san_raw.buf, san_raw.len);
    wh_buf_free(&san_raw);
    wh_san_remove(t->san); /* kept in the console log; nothing left beside the workspace */
    if (sf == 0 && console) {
        /* A runtime that ignores log_path (gcc's UBSan inside ASan) reports
         * on stderr. */
        sf = wh_san_parse(console, console_len, s_seen(s), &san_fp);
    }
    int sig = s_crash_signal(rr);
    int rc = 0;
    if (sf > 0 && san_fp.kind && !(*san = strdup(san_fp.kind))) {
        wh_fp_clear(&san_fp);
        return WH_ENOMEM;
    }
    if (sf > 0 && !sig && !*rd && san_fp.kind && !strncmp(san_fp.kind, "sanitizer(lsan", 14)) {
        char *open = wh_seg_open(console, console_len);
        int at_exit = !open;
        free(open);
        if (at_exit) {
            wh_fp_clear(&san_fp);
            return 0;
        }
    }
    if (sf > 0 || sig) {
        char *kind = sf > 0 ? strdup(san_fp.kind ? san_fp.kind : "a sanitizer report")
                            : wh_crash_kind(sig);
        rc = kind ? s_blame_other(s, t, console, console_len, kind, rd, res, others) : WH_ENOMEM;
        free(kind);
        if (rc) {
            wh_fp_clear(&san_fp);
            return rc < 0 ? rc : 0;
        }
    }
    char *aloc = NULL, *amsg = NULL;
    if (sf > 0) {
        rc = s_set_failed(res, s->test, san_fp.kind, san_fp.location, san_fp.message);
        *rd = 0;
    } else if (sig == SIGABRT && (*rd || res->status != WH_TR_FAILED) &&
               wh_fw_assert_in(console, console_len, &aloc, &amsg) == 1) {
        /* assert() aborted the program while the test ran: its line is the
         * failure (as the plain preset reads it), not a bare SIGABRT. */
        rc = s_set_failed(res, s->test, "assert", aloc, amsg);
        *rd = 0;
    } else if (*rd && *rd != WH_ENOMEM && sig) {
        rc = s_set_crashed(res, s->test, sig);
        *rd = 0;
    } else if (!*rd && sig && wh_fw_reads_console(s->fw) && res->status != WH_TR_FAILED) {
        rc = s_set_crashed(res, s->test, sig);
    }
    free(aloc), free(amsg);
    wh_fp_clear(&san_fp);
    return rc;
}

/* The file part of a "file.c:12" location (basename), in out. */
static void s_loc_file(const char *loc, char *out, size_t cap)
{
    const char *colon = loc ? strrchr(loc, ':') : NULL;
    size_t n = colon ? (size_t)(colon - loc) : 0;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), loc ? loc : "");
}

/* A failure at a helper's line outside the test file (a project's own
 * assertion function: every failing check fails at "assertions.c:64:
 * Failure!") is told apart by what the helper printed on the lines before,
 * in the test's own part of the output (fw_segment.h): the last line that
 * names a line of the test file becomes the location (the call site), and
 * its text goes before the message ("want 10, got 4 | Failure!"). cmocka's
 * report holds none of it: its console output is run again for it (as for
 * a death). 0 or WH_ENOMEM. */
static int s_helper_site(const wh_eval_spec_t *s, const s_testrun_t *t, const char *console,
                         size_t console_len, wh_test_result_t *res)
{
    char want[256], got[256];
    const char *slash = strrchr(s->test_file, '/');
    snprintf(want, sizeof want, "%s", slash ? slash + 1 : s->test_file);
    s_loc_file(res->fp.location, got, sizeof got);
    if (res->status != WH_TR_FAILED || !res->fp.location || !*res->fp.location ||
        !strcmp(got, want) || !res->fp.kind || strcmp(res->fp.kind, "assert"))
        return 0;
    char *again = NULL;
    const char *text = console;
    size_t len = console_len;
    if (!wh_seg_any(console, console_len)) {
        again = s_console_rerun(s, t, &len);
        text = again;
    }
    wh_seg_t g;
    wh_seg_find(text, len, s->test, &g);
    int rc = 0;
    const char *best = NULL;
    size_t best_len = 0;
    char *best_loc = NULL;
    for (size_t p = g.start; text && g.state != WH_SEG_NONE && p < g.end;) {
        const char *nl = memchr(text + p, '\n', g.end - p);
        size_t e = nl ? (size_t)(nl - text) : g.end;
        size_t ls = 0, le = 0;
        char *loc = NULL;
        /* cmocka prints a helper's fail_msg()/print_error() as "[  ERROR   ]
         * --- text"; its other bracket lines are its own. */
        static const char err_mark[] = "[  ERROR   ] --- ";
        size_t off = e - p >= sizeof err_mark - 1 && !memcmp(text + p, err_mark, sizeof err_mark - 1)
                         ? sizeof err_mark - 1
                         : 0;
        if ((off || text[p] != '[') &&
            wh_fw_find_location(text + p + off, e - p - off, &ls, &le, &loc) > 0) {
            char f[256];
            s_loc_file(loc, f, sizeof f);
            if (!strcmp(f, want)) {
                free(best_loc);
                best_loc = loc, loc = NULL;
                best = text + p + off + le;
                best_len = e - p - off - le;
                /* "(path/t.c:464) what": the closing parenthesis goes too */
                if (best_len && *best == ')')
                    best++, best_len--;
            }
        }
        free(loc);
        p = e + 1;
    }
    if (best_loc) {
        while (best_len && (*best == ':' || *best == ' '))
            best++, best_len--;
        char *msg = wh_strdup_printf("%.*s | %s", (int)best_len, best,
                                     res->fp.message ? res->fp.message : "");
        if (msg) {
            wh_fp_normalize_message(msg);
            free(res->fp.message);
            free(res->fp.location);
            res->fp.message = msg;
            res->fp.location = best_loc;
            best_loc = NULL;
        } else {
            rc = WH_ENOMEM;
        }
    }
    free(best_loc);
    free(again);
    return rc;
}

/* Steps 4 and 5: runs the test and reads its result into out->result.
 * Returns 1 when the evaluation ends here (out holds an InfraError), 0 when
 * the result may be judged, negative on allocation failure. */
static int s_run_and_read(const wh_eval_spec_t *s, wh_eval_result_t *out)
{
    s_testrun_t t;
    int rc = s_testrun_make(s, &t);
    char *console = NULL, *err = NULL, *san = NULL;
    if (rc)
        goto out;
    wh_san_remove(t.san); /* best effort: a leftover is only misread if it stays */
    off_t log_from = s_file_size(s->log_path);
    wh_run_opts_t to = {t.cmd,       s->root, (const char *const *)t.env, s->test_timeout_ms,
                        s->log_path, s->tick, s->tick_arg, s->mount_at, s->runas,
                        s->scratch_env};
    wh_run_result_t rr;
    if (s_run_step(&to, "test", "the test run", &rr, &out->test_ms, out)) {
        rc = 1;
        goto out;
    }
    /* The test command's exit code is deliberately not looked at: the
     * frameworks disagree about it (gtest exits 1 on a failure, cmocka
     * exits with the number of failed tests, ctest exits 8), wrapper
     * scripts mask it, and a test runner can exit 0 while having run
     * nothing. Only the report says which test ran and how it failed; the
     * exit code only decorates the detail when there is no report, and is
     * a console harness's evidence of a pass when the job says so
     * (s_passes_on_exit). */
    size_t console_len = 0;
    console = s_read_console(s->log_path, log_from, &console_len);
    wh_fw_opts_t fo = {s->failure_regex, s->pass_regex, s_seen(s), s->message_continuation,
                       s->test_fn};
    /* A whole CTest test ran with the harness's console output: the test's
     * own result is its part of it. */
    int rd = s->whole && wh_fw_console_env(s->fw)
                 ? wh_whole_read(console, console_len, s->test, &out->result)
                 : s->fw->read(s->report_path, console, console_len, s->test, &fo, &out->result,
                               &err);
    if ((rc = s_apply_crash(s, &t, &rr, console, console_len, &rd, &out->result, &san,
                            &out->others)) != 0)
        goto out;
    /* The program's other failures: its report's, else its output's. */
    if (!rd && !out->others)
        out->others = wh_is_file(s->report_path) ? s_others_report(s->report_path, s->test)
                                                 : s_others_console(console, console_len, s->test);
    if (!rd && (rc = s_helper_site(s, &t, console, console_len, &out->result)) != 0)
        goto out;
    if (s->whole && !rd) {
        int oom = 0;
        out->whole_fail = wh_whole_judge(s->whole, &rr, console, console_len, san, &oom);
        if (oom) {
            rc = WH_ENOMEM;
            goto out;
        }
        if (out->whole_fail && out->result.status != WH_TR_FAILED &&
            (rc = s_set_failed(&out->result, s->test, "whole-test", "", out->whole_fail)) != 0)
            goto out;
    }
    if (rd) {
        char how[64];
        s_how(&rr, how, sizeof how);
        out->verdict = WH_V_INFRA_ERROR;
        if (rd == WH_EREPORT)
            s_detail(out, "no report at %s (test %s)", s->report_path, how);
        else
            s_detail(out, "unreadable report (test %s): %s", how, err ? err : wh_strerror(rd));
        wh_test_result_clear(&out->result);
        rc = 1;
        goto out;
    }
    if (s_passes_on_exit(s, &rr, &out->result) &&
        (rc = s_set_passed(&out->result, s->test)) != 0)
        goto out;
    if (out->result.fp.message) {
        char *norm = wh_fp_normalized(out->result.fp.message, s_seen(s));
        if (!norm) {
            rc = WH_ENOMEM;
            goto out;
        }
        free(out->result.fp.message);
        out->result.fp.message = norm;
    }
out:
    free(err);
    free(console);
    free(san);
    s_testrun_free(&t);
    return rc;
}

/* Step 6: the verdict against ref (none for a baseline) and its detail. */
static void s_judge(const wh_fp_t *ref, wh_match_t m, wh_eval_result_t *out)
{
    const wh_fp_t *fp = &out->result.fp;
    if (!ref) {
        out->verdict = WH_V_NONE;
        if (out->result.status == WH_TR_FAILED)
            s_detail(out, "baseline: %s at %s: %.*s", fp->kind ? fp->kind : "",
                     fp->location ? fp->location : "", S_DETAIL_MSG, fp->message ? fp->message : "");
        else
            s_detail(out, "baseline: %s", s_status_name(out->result.status));
        return;
    }
    out->verdict = wh_oracle_judge(&out->result, ref, m);
    switch (out->verdict) {
    case WH_V_PRESERVED:
        s_detail(out, "same failure");
        break;
    case WH_V_DIFFERENT_FAILURE:
        s_detail(out, "different failure: %s at %s: %.*s", fp->kind ? fp->kind : "",
                 fp->location ? fp->location : "", S_DETAIL_MSG, fp->message ? fp->message : "");
        break;
    default:
        s_detail(out, "%s", s_status_name(out->result.status));
        break;
    }
}

int wh_evaluate(const wh_eval_spec_t *s, const char *content, size_t len, const wh_fp_t *ref,
                wh_match_t m, wh_eval_result_t *out)
{
    if (!out)
        return WH_EINVAL;
    memset(out, 0, sizeof *out);
    out->result.status = WH_TR_MISSING;
    if (!s || !s->root || !s->test_file || !s->run_cmd || !s->fw || !s->test ||
        !s->report_path || (!content && len))
        return WH_EINVAL;
    /* Only a workspace that could not be written is an error; everything
     * after that is an outcome. */
    int rc = s_write_candidate(s, content, len, out);
    if (!rc)
        rc = s_fresh_outputs(s, out);
    if (rc) {
        if (!out->detail)
            s_detail(out, "%s", wh_strerror(rc));
        return rc;
    }
    if (s_build(s, out))
        return 0;
    rc = s_run_and_read(s, out);
    if (rc > 0)
        return 0;
    if (rc < 0) {
        out->verdict = WH_V_INFRA_ERROR;
        if (!out->detail)
            s_detail(out, "%s", wh_strerror(rc));
        return 0;
    }
    s_judge(ref, m, out);
    return 0;
}
