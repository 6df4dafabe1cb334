/*
 * taint — infrastructure-fault classification. See taint.h.
 *
 * Why text and not only exit codes: a full disk or an OOM kill usually
 * reaches whittle second-hand. The compiler's write fails and make exits 2,
 * the kernel kills cc1 and gcc exits 1: exactly what a candidate that does
 * not compile looks like. The words the tools print are the only trace, and
 * they are stable (strerror texts, gcc's and clang's driver messages).
 */
#define _GNU_SOURCE
#include "taint.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Characters of a quoted output line in a reason. */
#define S_QUOTE_MAX 200

enum { S_SETUP = 1 << WH_STEP_SETUP, S_BUILD = 1 << WH_STEP_BUILD, S_TEST = 1 << WH_STEP_TEST };

static const struct {
    const char *text;
    wh_taint_t kind;
    int steps;
} s_patterns[] = {
    {"No space left on device", WH_TAINT_NO_SPACE, S_SETUP | S_BUILD | S_TEST},
    {"ENOSPC", WH_TAINT_NO_SPACE, S_SETUP | S_BUILD | S_TEST},
    {"Disk quota exceeded", WH_TAINT_QUOTA, S_SETUP | S_BUILD | S_TEST},
    {"EDQUOT", WH_TAINT_QUOTA, S_SETUP | S_BUILD | S_TEST},
    {"Killed signal terminated program", WH_TAINT_OOM, S_SETUP | S_BUILD},
    {"unable to execute command: Killed", WH_TAINT_OOM, S_SETUP | S_BUILD},
    {"internal compiler error: Killed", WH_TAINT_OOM, S_SETUP | S_BUILD},
    {"virtual memory exhausted", WH_TAINT_OOM, S_SETUP | S_BUILD},
    {"out of memory allocating", WH_TAINT_OOM, S_SETUP | S_BUILD},
    {"Cannot allocate memory", WH_TAINT_OOM, S_SETUP | S_BUILD},
    /* bwrap's own errors ("bwrap: Can't create file at ..."): the command
     * never ran. Another slot's file it masks can vanish between the mask
     * list and the mount (a report removed before its run); that says
     * nothing about the candidate, and is retried elsewhere. */
    {"bwrap: ", WH_TAINT_SANDBOX, S_SETUP | S_BUILD | S_TEST},
};

/* What a shell or a loader prints when a command cannot be run. */
static const char *const s_no_tool[] = {
    "not found", "Permission denied", "No such file or directory", "cannot execute",
    "error while loading shared libraries", NULL,
};

/* Signals that only ever come from outside a test that did not raise them. */
static const int s_outside_signals[] = {SIGKILL, SIGTERM, SIGHUP, SIGINT};

static const char *s_step_name(wh_step_t s)
{
    return s == WH_STEP_SETUP ? "setup" : s == WH_STEP_BUILD ? "build" : "test";
}

const char *wh_taint_name(wh_taint_t t)
{
    switch (t) {
    case WH_TAINT_NO_SPACE:
        return "no space";
    case WH_TAINT_QUOTA:
        return "disk quota";
    case WH_TAINT_OOM:
        return "out of memory";
    case WH_TAINT_SIGNAL:
        return "signal from outside";
    case WH_TAINT_NO_TOOL:
        return "missing tool";
    case WH_TAINT_STUCK:
        return "stuck process";
    case WH_TAINT_SANDBOX:
        return "sandbox did not start";
    case WH_TAINT_NONE:
        break;
    }
    return "none";
}

static int s_own(const wh_taint_step_t *st, const char *text)
{
    return st->step == WH_STEP_TEST && st->own && strstr(st->own, text);
}

/* The line of out holding offset at, quoted into why after prefix. */
static void s_quote_line(const wh_taint_step_t *st, const char *at, const char *prefix,
                         char *why, size_t n)
{
    const char *b = at, *e = at;
    while (b > st->out && b[-1] != '\n')
        b--;
    while (e < st->out + st->out_len && *e != '\n')
        e++;
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if (e - b <= S_QUOTE_MAX) {
        snprintf(why, n, "%s %s: `%.*s`", s_step_name(st->step), prefix, (int)(e - b), b);
        return;
    }
    /* A long line (a compiler's error on a workspace path): its start and
     * the part from the match on, where the reason is ("...: No space left
     * on device"), not just its first characters. */
    const int head = 60, tail = S_QUOTE_MAX - 60;
    const char *t0 = e - tail;
    if (at < t0)
        t0 = at > b + head ? at : b + head;
    const char *t1 = e - t0 > tail ? t0 + tail : e;
    snprintf(why, n, "%s %s: `%.*s...%.*s%s`", s_step_name(st->step), prefix, head, b,
             (int)(t1 - t0), t0, t1 < e ? "..." : "");
}

static const char *s_find(const wh_taint_step_t *st, const char *text)
{
    if (!st->out || !st->out_len)
        return NULL;
    return memmem(st->out, st->out_len, text, strlen(text));
}

/* A line a shell or make prints for a child killed by SIGKILL: "Killed"
 * alone (dash), "… 1234 Killed  ./t" (bash), "make: *** [x.o] Killed". */
static const char *s_killed_line(const wh_taint_step_t *st)
{
    const char *p = st->out, *end = st->out ? st->out + st->out_len : NULL;
    while (p && p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *b = p, *t = e;
        while (b < t && isspace((unsigned char)*b))
            b++;
        while (t > b && isspace((unsigned char)t[-1]))
            t--;
        for (const char *k = b; k + 6 <= t; k++) {
            if (memcmp(k, "Killed", 6) != 0 || (k + 6 < t && !isspace((unsigned char)k[6])))
                continue;
            if (k == b || (k[-1] == ' ' && k - 1 > b && k[-2] == ']') ||
                (k[-1] == ' ' && k - 1 > b && isdigit((unsigned char)k[-2])))
                return k;
        }
        p = e + 1;
    }
    return NULL;
}

static int s_outside_signal(int sig)
{
    for (size_t i = 0; i < sizeof s_outside_signals / sizeof s_outside_signals[0]; i++)
        if (s_outside_signals[i] == sig)
            return 1;
    return 0;
}

/* A signal whittle did not send that ended the step (or the child its
 * shell reported), 0 when none. */
static int s_signal(const wh_taint_step_t *st)
{
    const wh_run_result_t *r = st->run;
    if (!r || r->timed_out || r->cancelled)
        return 0;
    int sig = r->signaled ? r->term_signal : r->exit_code > 128 ? r->exit_code - 128 : 0;
    if (!sig)
        return 0;
    /* The build's or setup's own shell never dies of a crash signal: any
     * signal that ends it came from outside. */
    if (r->signaled && st->step != WH_STEP_TEST)
        return sig;
    if (!s_outside_signal(sig))
        return 0;
    char name[32];
    const char *abbrev = sigabbrev_np(sig);
    snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "?");
    return s_own(st, name) ? 0 : sig;
}

wh_taint_t wh_taint_classify(const wh_taint_step_t *st, char *why, size_t n)
{
    if (why && n)
        why[0] = '\0';
    if (!st || !why || !n)
        return WH_TAINT_NONE;
    for (size_t i = 0; i < sizeof s_patterns / sizeof s_patterns[0]; i++) {
        const char *at;
        if (!(s_patterns[i].steps & (1 << st->step)) || s_own(st, s_patterns[i].text) ||
            !(at = s_find(st, s_patterns[i].text)))
            continue;
        s_quote_line(st, at, "output", why, n);
        return s_patterns[i].kind;
    }
    const wh_run_result_t *r = st->run;
    if (r && r->group_lingered) {
        snprintf(why, n, "%s: a process of its group outlived SIGKILL (stuck in the kernel)",
                 s_step_name(st->step));
        return WH_TAINT_STUCK;
    }
    if (r && !r->signaled && !r->timed_out && !r->cancelled &&
        (r->exit_code == 126 || r->exit_code == 127)) {
        for (const char *const *t = s_no_tool; *t; t++) {
            const char *at;
            if (s_own(st, *t) || !(at = s_find(st, *t)))
                continue;
            char prefix[32];
            snprintf(prefix, sizeof prefix, "exited %d", r->exit_code);
            s_quote_line(st, at, prefix, why, n);
            return WH_TAINT_NO_TOOL;
        }
    }
    int sig = s_signal(st);
    if (sig) {
        const char *abbrev = sigabbrev_np(sig);
        snprintf(why, n, "%s %s SIG%s, which whittle did not send", s_step_name(st->step),
                 r->signaled ? "killed by" : "reported a child killed by", abbrev ? abbrev : "?");
        return WH_TAINT_SIGNAL;
    }
    const char *k = s_killed_line(st);
    if (k && !s_own(st, "SIGKILL")) {
        s_quote_line(st, k, "output", why, n);
        return WH_TAINT_SIGNAL;
    }
    return WH_TAINT_NONE;
}

wh_taint_t wh_taint_disk(const char *path, char *why, size_t n)
{
    if (why && n)
        why[0] = '\0';
    struct statvfs v;
    if (!path || statvfs(path, &v) < 0)
        return WH_TAINT_NONE;
    /* root may use the blocks reserved for it; others may not. */
    unsigned long long blocks = geteuid() == 0 ? v.f_bfree : v.f_bavail;
    unsigned long long bytes = blocks * (unsigned long long)v.f_frsize;
    if (bytes < WH_TAINT_MIN_FREE) {
        if (why && n)
            snprintf(why, n, "the file system of %s is full (%llu KiB free)", path, bytes >> 10);
        return WH_TAINT_NO_SPACE;
    }
    unsigned long long inodes = geteuid() == 0 ? v.f_ffree : v.f_favail;
    if (v.f_files > 0 && inodes == 0) {
        if (why && n)
            snprintf(why, n, "the file system of %s has no free inodes", path);
        return WH_TAINT_NO_SPACE;
    }
    return WH_TAINT_NONE;
}
