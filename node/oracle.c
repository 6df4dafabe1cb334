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

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The part of the console log handed to the report reader (its tail). */
#define S_CONSOLE_CAP ((size_t)1 << 20)
/* Characters of a message quoted in a one-line detail. */
#define S_DETAIL_MSG 160

void wh_fp_normalize_message(char *msg)
{
    if (!msg)
        return;
    char *w = msg;
    int pending_space = 0;
    for (const char *r = msg; *r; r++) {
        if (isspace((unsigned char)*r)) {
            pending_space = w != msg;
            continue;
        }
        if (pending_space)
            *w++ = ' ';
        pending_space = 0;
        *w++ = *r;
    }
    *w = '\0';
}

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

static int s_cancelled(const wh_eval_spec_t *s)
{
    return s->tick && s->tick(s->tick_arg);
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

    int rc = 0;
    char *path = NULL, *run = NULL, *suffix = NULL, *cmd = NULL, *console = NULL;
    char **env = NULL;
    size_t n_env = 0;

    /* 1. The candidate, with an mtime strictly after the previous one. */
    if (!(path = wh_path_join(s->root, s->test_file))) {
        rc = WH_ENOMEM;
        goto out;
    }
    struct stat st;
    int had = stat(path, &st) == 0;
    struct timespec before = had ? st.st_mtim : (struct timespec){0, 0};
    if ((rc = wh_write_file_inplace(path, content ? content : "", len)) != 0 ||
        (rc = s_bump_mtime(path, had ? &before : NULL)) != 0) {
        s_detail(out, "cannot write '%s': %s", path, wh_strerror(rc));
        goto out;
    }

    /* 2. No stale report, a fresh log. */
    if (unlink(s->report_path) < 0 && errno != ENOENT) {
        rc = -errno;
        s_detail(out, "cannot remove stale report '%s': %s", s->report_path, wh_strerror(rc));
        goto out;
    }
    {
        char *dir = strdup(s->report_path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash && slash != dir) {
            *slash = '\0';
            wh_mkdir_p(dir); /* best effort: a missing report is judged later */
        }
        free(dir);
    }
    if (s->log_path) {
        int fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }

    /* From here on every outcome is a verdict, not an error. */
    wh_run_result_t rr;

    /* 3. Build. */
    if (s->build_cmd && *s->build_cmd) {
        wh_run_opts_t bo = {s->build_cmd, s->root,        NULL,       s->build_timeout_ms,
                            s->log_path,  s->tick,        s->tick_arg};
        int r = wh_run(&bo, &rr);
        out->build_ms = r ? 0 : rr.ms;
        if (r) {
            out->verdict = WH_V_INFRA_ERROR;
            s_detail(out, "cannot start build: %s", wh_strerror(r));
            goto out;
        }
        if (rr.cancelled) {
            out->cancelled = 1;
            out->verdict = WH_V_INFRA_ERROR;
            s_detail(out, "cancelled during build");
            goto out;
        }
        if (rr.timed_out) {
            out->verdict = WH_V_INFRA_ERROR;
            s_detail(out, "build timed out after %u ms", s->build_timeout_ms);
            goto out;
        }
        if (rr.signaled) {
            /* The build's shell itself was killed from outside (the OOM
             * killer, an operator): nothing about the candidate. */
            out->verdict = WH_V_INFRA_ERROR;
            s_detail(out, "build killed by signal %d", rr.term_signal);
            goto out;
        }
        if (rr.exit_code != 0) {
            out->verdict = WH_V_BUILD_FAILED;
            s_detail(out, "build exited %d", rr.exit_code);
            goto out;
        }
    }
    out->build_ok = 1;
    if (s_cancelled(s)) {
        out->cancelled = 1;
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "cancelled before the test run");
        goto out;
    }

    /* 4. Run the one test. */
    run = wh_expand(s->run_cmd, s->test, s->report_path);
    suffix = s->fw->run_suffix ? wh_expand(s->fw->run_suffix, s->test, s->report_path) : NULL;
    if (!run || (s->fw->run_suffix && !suffix)) {
        rc = WH_ENOMEM;
        goto out;
    }
    cmd = suffix && *suffix ? wh_strdup_printf("%s %s", run, suffix) : strdup(run);
    for (const char *const *e = s->fw->env; e && *e; e++)
        n_env++;
    env = calloc(n_env + 3, sizeof *env);
    if (!cmd || !env) {
        rc = WH_ENOMEM;
        goto out;
    }
    env[0] = wh_strdup_printf("WHITTLE_TEST=%s", s->test);
    env[1] = wh_strdup_printf("WHITTLE_REPORT=%s", s->report_path);
    for (size_t i = 0; i < n_env; i++)
        env[2 + i] = wh_expand(s->fw->env[i], s->test, s->report_path);
    for (size_t i = 0; i < n_env + 2; i++)
        if (!env[i]) {
            rc = WH_ENOMEM;
            goto out;
        }
    off_t log_from = s_file_size(s->log_path);
    wh_run_opts_t to = {cmd,         s->root, (const char *const *)env, s->test_timeout_ms,
                        s->log_path, s->tick, s->tick_arg};
    int r = wh_run(&to, &rr);
    out->test_ms = r ? 0 : rr.ms;
    if (r) {
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "cannot start test: %s", wh_strerror(r));
        goto out;
    }
    if (rr.cancelled) {
        out->cancelled = 1;
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "cancelled during the test run");
        goto out;
    }
    if (rr.timed_out) {
        out->verdict = WH_V_INFRA_ERROR;
        s_detail(out, "test timed out after %u ms", s->test_timeout_ms);
        goto out;
    }
    /* The test command's exit code is deliberately not looked at: the
     * frameworks disagree about it (gtest exits 1 on a failure, cmocka
     * exits with the number of failed tests, ctest exits 8), wrapper
     * scripts mask it, and a test runner can exit 0 while having run
     * nothing. Only the report says which test ran and how it failed; the
     * exit code only decorates the detail when there is no report. */

    /* 5. Read the report. */
    size_t console_len = 0;
    console = s_read_console(s->log_path, log_from, &console_len);
    char *err = NULL;
    wh_fw_opts_t fo = {s->failure_regex, s->pass_regex, s->root};
    int rd = s->fw->read(s->report_path, console, console_len, s->test, &fo, &out->result, &err);
    if (rd) {
        char how[64];
        s_how(&rr, how, sizeof how);
        out->verdict = WH_V_INFRA_ERROR;
        if (rd == WH_EREPORT)
            s_detail(out, "no report at %s (test %s)", s->report_path, how);
        else
            s_detail(out, "unreadable report (test %s): %s", how, err ? err : wh_strerror(rd));
        free(err);
        wh_test_result_clear(&out->result);
        goto out;
    }
    free(err);
    wh_fp_normalize_message(out->result.fp.message);

    /* 6. Judge. */
    if (!ref) {
        out->verdict = WH_V_NONE;
        if (out->result.status == WH_TR_FAILED)
            s_detail(out, "baseline: %s at %s: %.*s", out->result.fp.kind ? out->result.fp.kind : "",
                     out->result.fp.location ? out->result.fp.location : "", S_DETAIL_MSG,
                     out->result.fp.message ? out->result.fp.message : "");
        else
            s_detail(out, "baseline: %s", s_status_name(out->result.status));
        goto out;
    }
    out->verdict = wh_oracle_judge(&out->result, ref, m);
    switch (out->verdict) {
    case WH_V_PRESERVED:
        s_detail(out, "same failure");
        break;
    case WH_V_DIFFERENT_FAILURE:
        s_detail(out, "different failure: %s at %s: %.*s",
                 out->result.fp.kind ? out->result.fp.kind : "",
                 out->result.fp.location ? out->result.fp.location : "", S_DETAIL_MSG,
                 out->result.fp.message ? out->result.fp.message : "");
        break;
    default:
        s_detail(out, "%s", s_status_name(out->result.status));
        break;
    }

out:
    if (env)
        for (size_t i = 0; i < n_env + 2; i++)
            free(env[i]);
    free(env);
    free(console);
    free(cmd);
    free(suffix);
    free(run);
    free(path);
    if (rc && !out->detail)
        s_detail(out, "%s", wh_strerror(rc));
    /* Only a workspace that could not be written is an error; everything
     * after that is an outcome. */
    if (rc && out->verdict == WH_V_NONE && !out->build_ok) {
        return rc;
    }
    if (rc) {
        out->verdict = WH_V_INFRA_ERROR;
        return 0;
    }
    return 0;
}
