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
#include <limits.h>
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

/* ---- message normalization ---- */

static int s_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int s_path_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '/' ||
           c == '+' || c == '~' || c == '@' || c == '%';
}

/* Decodes one XML entity at p ("&lt;", "&#60;", "&#x3c;") into b; returns
 * the bytes consumed, 0 when p is not an entity. */
static size_t s_entity(const char *p, wh_buf_t *b)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].name);
        if (strncmp(p, named[i].name, n) == 0) {
            wh_buf_append(b, &named[i].c, 1);
            return n;
        }
    }
    if (p[1] != '#')
        return 0;
    int hex = p[2] == 'x' || p[2] == 'X';
    const char *d = p + 2 + hex, *e = d;
    unsigned long cp = 0;
    while (hex ? isxdigit((unsigned char)*e) : isdigit((unsigned char)*e)) {
        cp = cp * (hex ? 16 : 10) +
             (unsigned long)(isdigit((unsigned char)*e) ? *e - '0' : (tolower((unsigned char)*e) - 'a' + 10));
        if (cp > 0x10FFFF)
            return 0;
        e++;
    }
    if (e == d || *e != ';' || cp == 0)
        return 0;
    unsigned char u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (unsigned char)(0xC0 | (cp >> 6)), u[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (unsigned char)(0xE0 | (cp >> 12)), u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)),
        u[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (unsigned char)(0xF0 | (cp >> 18)), u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F)),
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (unsigned char)(0x80 | (cp & 0x3F)),
        n = 4;
    wh_buf_append(b, u, n);
    return (size_t)(e + 1 - p);
}

/* Bytes of an ANSI escape sequence at p (CSI "ESC [ … final", OSC
 * "ESC ] … BEL|ESC \\", or a two-byte "ESC x"), 0 when none. */
static size_t s_ansi(const char *p)
{
    if (p[0] != '\033')
        return 0;
    if (p[1] == '[') {
        const char *q = p + 2;
        while (*q >= 0x20 && *q <= 0x3F)
            q++;
        return *q >= 0x40 && *q <= 0x7E ? (size_t)(q + 1 - p) : (size_t)(q - p);
    }
    if (p[1] == ']') {
        const char *q = p + 2;
        while (*q && *q != '\a' && !(q[0] == '\033' && q[1] == '\\'))
            q++;
        return (size_t)(q - p) + (*q == '\a' ? 1 : *q ? 2 : 0);
    }
    return p[1] ? 2 : 1;
}

/* "root/" (or root at a word end) at p: its length, else 0. */
static size_t s_root_at(const char *p, const char *root)
{
    if (!root || !*root)
        return 0;
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    if (rl < 2 || strncmp(p, root, rl) != 0)
        return 0;
    if (p[rl] == '/')
        return rl + 1;
    return s_path_char(p[rl]) ? 0 : rl;
}

/* A duration at p ("12 ms", "0.034s", "12.3 sec"): its length, else 0. */
static size_t s_duration(const char *p)
{
    static const char *const units[] = {"seconds", "second", "secs", "sec", "ms", "us", "ns",
                                        "\xc2\xb5s", "min", "s", NULL};
    const char *q = p;
    while (isdigit((unsigned char)*q))
        q++;
    if (q == p)
        return 0;
    if (*q == '.' && isdigit((unsigned char)q[1])) {
        q++;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if (*q == ' ')
        q++;
    for (const char *const *u = units; *u; u++) {
        size_t n = strlen(*u);
        if (strncmp(q, *u, n) == 0 && !s_word_char(q[n]))
            return (size_t)(q + n - p);
    }
    return 0;
}

/* In place: every run of white space in s becomes one space; leading and
 * trailing white space goes. */
static void s_squeeze_space(char *s)
{
    char *w = s;
    int pending_space = 0;
    for (const char *r = s; *r; r++) {
        if (isspace((unsigned char)*r)) {
            pending_space = w != s;
            continue;
        }
        if (pending_space)
            *w++ = ' ';
        pending_space = 0;
        *w++ = *r;
    }
    *w = '\0';
}

char *wh_fp_normalized(const char *msg, const char *root)
{
    wh_buf_t a = WH_BUF_INIT, b = WH_BUF_INIT;
    const char *m = msg ? msg : "";
    char real_root[PATH_MAX];
    const char *rr = root && realpath(root, real_root) && strcmp(real_root, root) ? real_root : NULL;
    int rc = wh_buf_puts(&a, "");
    /* 1. Entities and escape sequences: what the text says, not how it was
     * transported or coloured. */
    for (const char *p = m; *p && !rc;) {
        size_t n = 0;
        if (*p == '&' && (n = s_entity(p, &a)) != 0)
            p += n;
        else if ((n = s_ansi(p)) != 0)
            p += n;
        else
            rc = wh_buf_append(&a, p++, 1);
    }
    /* 2. Masks for what differs from run to run and from slot to slot. */
    rc = rc ? rc : wh_buf_puts(&b, "");
    for (const char *p = a.buf ? a.buf : ""; *p && !rc;) {
        char prev = p > a.buf ? p[-1] : ' ';
        size_t n;
        if ((n = s_root_at(p, root)) != 0 || (n = s_root_at(p, rr)) != 0) {
            if (!s_path_char(prev) || prev == '/') {
                p += n;
                continue;
            }
        }
        if (*p == '/' && !s_path_char(prev) &&
            (strncmp(p, "/tmp/", 5) == 0 || strncmp(p, "/var/tmp/", 9) == 0)) {
            const char *e = p, *last = p;
            while (s_path_char(*e)) {
                if (*e == '/')
                    last = e;
                e++;
            }
            p = last + 1;
            continue;
        }
        if (p[0] == '=' && p[1] == '=' && isdigit((unsigned char)p[2])) {
            const char *e = p + 2;
            while (isdigit((unsigned char)*e))
                e++;
            if (e[0] == '=' && e[1] == '=') {
                rc = wh_buf_puts(&b, "==PID==");
                p = e + 2;
                continue;
            }
        }
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && !s_word_char(prev)) {
            const char *e = p + 2;
            while (isxdigit((unsigned char)*e))
                e++;
            if (e - p - 2 >= 8) {
                rc = wh_buf_puts(&b, "0x\xe2\x80\xa6");
                p = e;
                continue;
            }
        }
        if (isdigit((unsigned char)*p) && !s_word_char(prev) && prev != '.' &&
            (n = s_duration(p)) != 0) {
            rc = wh_buf_puts(&b, "<time>");
            p += n;
            continue;
        }
        rc = wh_buf_append(&b, p++, 1);
    }
    wh_buf_free(&a);
    if (rc) {
        wh_buf_free(&b);
        return NULL;
    }
    /* 3. Whitespace. */
    char *out = wh_buf_detach(&b);
    s_squeeze_space(out);
    return out;
}

void wh_fp_normalize_message(char *msg)
{
    if (!msg)
        return;
    char *n = wh_fp_normalized(msg, NULL);
    if (n && strlen(n) <= strlen(msg)) {
        strcpy(msg, n);
        free(n);
        return;
    }
    free(n);
    s_squeeze_space(msg);
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
static int s_run_step(const wh_run_opts_t *o, const char *what, const char *during,
                      wh_run_result_t *rr, uint64_t *ms, wh_eval_result_t *out)
{
    int r = wh_run(o, rr);
    *ms = r ? 0 : rr->ms;
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
    char *san = NULL;
    char **env = NULL;
    size_t n_env = 0, n_extra = 0;
    wh_buf_t san_raw = WH_BUF_INIT;
    wh_fp_t san_fp = {0};

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
        if (s_run_step(&bo, "build", "build", &rr, &out->build_ms, out))
            goto out;
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
    /* Sanitizer reports go to "<root>.san.<pid>", beside the workspace like
     * the report, where a stale one can be removed before the run and the
     * new ones found after it; never into the console, where a harness's
     * own output could interleave with them. */
    {
        size_t rl = strlen(s->root);
        while (rl > 1 && s->root[rl - 1] == '/')
            rl--;
        san = wh_strdup_printf("%.*s.san", (int)rl, s->root);
    }
    n_extra = 4 + n_env;
    env = calloc(n_extra + 1, sizeof *env);
    if (!cmd || !env || !san) {
        rc = WH_ENOMEM;
        goto out;
    }
    wh_san_remove(san); /* best effort: a leftover is only misread if it stays */
    env[0] = wh_strdup_printf("WHITTLE_TEST=%s", s->test);
    env[1] = wh_strdup_printf("WHITTLE_REPORT=%s", s->report_path);
    env[2] = s_san_env("ASAN_OPTIONS",
                       "halt_on_error=1:abort_on_error=0:symbolize=1:detect_leaks=0", san);
    env[3] = s_san_env("UBSAN_OPTIONS",
                       "halt_on_error=1:abort_on_error=0:symbolize=1:print_stacktrace=1:"
                       "report_error_type=1",
                       san);
    for (size_t i = 0; i < n_env; i++)
        env[4 + i] = wh_expand(s->fw->env[i], s->test, s->report_path);
    for (size_t i = 0; i < n_extra; i++)
        if (!env[i]) {
            rc = WH_ENOMEM;
            goto out;
        }
    off_t log_from = s_file_size(s->log_path);
    wh_run_opts_t to = {cmd,         s->root, (const char *const *)env, s->test_timeout_ms,
                        s->log_path, s->tick, s->tick_arg};
    if (s_run_step(&to, "test", "the test run", &rr, &out->test_ms, out))
        goto out;
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

    /* 5b. How the test died, when it died: a sanitizer report overrides
     * the framework's (an aborting runtime usually kills the report
     * anyway); a signal without any report is a crash, not an
     * infrastructure error. */
    int sf = wh_san_collect(san, s->root, &san_fp, &san_raw);
    s_log_append(s->log_path, san_raw.buf, san_raw.len);
    wh_san_remove(san); /* kept in the console log; nothing left beside the workspace */
    if (sf == 0 && console) {
        /* A runtime that ignores log_path (gcc's UBSan inside ASan) reports
         * on stderr. */
        sf = wh_san_parse(console, console_len, s->root, &san_fp);
    }
    int sig = s_crash_signal(&rr);
    if (sf > 0) {
        if ((rc = s_set_failed(&out->result, s->test, san_fp.kind, san_fp.location,
                               san_fp.message)) != 0) {
            free(err);
            goto out;
        }
        rd = 0;
    } else if (rd && rd != WH_ENOMEM && sig) {
        if ((rc = s_set_crashed(&out->result, s->test, sig)) != 0) {
            free(err);
            goto out;
        }
        rd = 0;
    } else if (!rd && sig && wh_fw_reads_console(s->fw) &&
               out->result.status != WH_TR_FAILED) {
        /* A console reader saw no failure text, but the process died. */
        if ((rc = s_set_crashed(&out->result, s->test, sig)) != 0) {
            free(err);
            goto out;
        }
    }
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
    if (out->result.fp.message) {
        char *norm = wh_fp_normalized(out->result.fp.message, s->root);
        if (!norm) {
            rc = WH_ENOMEM;
            goto out;
        }
        free(out->result.fp.message);
        out->result.fp.message = norm;
    }

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
        for (size_t i = 0; i < n_extra; i++)
            free(env[i]);
    free(env);
    wh_fp_clear(&san_fp);
    wh_buf_free(&san_raw);
    free(san);
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
