/*
 * fw_console — presets that read the test's console output instead of a
 * machine-readable report.
 *
 *   console  a homegrown harness: --failure-regex (and optionally
 *            --pass-regex) with named groups test, file, line, message (and
 *            kind) is matched against the captured stdout+stderr of the run
 *            command. The harness usually cannot select one test, so the
 *            whole binary runs and the target is picked out by name.
 *   plain    assert()/abort() programs: glibc's (and musl's) assertion line
 *            on stderr; a sanitizer report or a shell's crash text; a clean
 *            run is a pass.
 *
 * Regex dialect. POSIX extended regular expressions (regcomp with
 * REG_EXTENDED | REG_NEWLINE, so `.` and `[^…]` never cross a line and `^`
 * `$` anchor at every line) as glibc implements them: bracket classes like
 * [[:digit:]] work; \w \s \b are glibc extensions and not portable. Perl
 * syntax that POSIX lacks is translated before compiling: `(?<name>…)` and
 * `(?P<name>…)` become plain groups whose index is remembered under name, and
 * `(?:…)` becomes a plain (capturing, unnamed) group. Other `(?` constructs
 * (look-around, flags) are refused by check with a one-line error. Names
 * other than test, file, line, message and kind are accepted and ignored.
 *
 * Crash identity without a report (limits). A reader sees only text, never
 * the exit status: plain and console recognize a crash from a sanitizer
 * report in the console or from the crash line a shell prints when its
 * child dies ("Segmentation fault", "Aborted", … — only when the run command
 * is a shell line that does not exec the test). A test binary that the
 * shell execs directly and that dies silently leaves no text at all; then
 * wh_evaluate, which does see the signal, names the crash (crash(SIGSEGV)).
 *
 * The crash and sanitizer identity itself lives in sanitizer.c.
 */
#define _GNU_SOURCE
#include "framework.h"
#include "fw_util.h"
#include "sanitizer.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Matches examined per read (a regex that matches every empty string of a
 * megabyte of output must still end). */
#define S_MAX_MATCHES 100000

/* ---- regex with named groups ---- */

enum { S_G_TEST, S_G_FILE, S_G_LINE, S_G_MESSAGE, S_G_KIND, S_G_COUNT };
static const char *const s_group_names[S_G_COUNT] = {"test", "file", "line", "message", "kind"};

typedef struct {
    regex_t re;
    int compiled;
    int group[S_G_COUNT]; /* group index, or -1 */
    size_t nsub;
} s_rx_t;

/* Copies the ERE in src to a malloc'ed plain POSIX pattern, recording the
 * index of each known named group. On error returns NULL with *why set to a
 * static reason. */
static char *s_rx_translate(const char *src, int group[S_G_COUNT], const char **why)
{
    for (int g = 0; g < S_G_COUNT; g++)
        group[g] = -1;
    wh_buf_t b = WH_BUF_INIT;
    int idx = 0, rc = 0;
    *why = NULL;
    for (const char *p = src; *p && !rc && !*why;) {
        if (*p == '\\') {
            rc = wh_buf_append(&b, p, p[1] ? 2 : 1);
            p += p[1] ? 2 : 1;
        } else if (*p == '[') {
            /* A bracket expression: copied as is; `]` first is a literal,
             * [:class:] [.coll.] [=equiv=] are skipped whole. */
            const char *q = p + 1;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']') {
                if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
                    char close[3] = {q[1], ']', '\0'};
                    const char *e = strstr(q + 2, close);
                    q = e ? e + 2 : q + strlen(q);
                } else {
                    q++;
                }
            }
            if (!*q) {
                *why = "unterminated bracket expression";
                break;
            }
            q++;
            rc = wh_buf_append(&b, p, (size_t)(q - p));
            p = q;
        } else if (*p == '(') {
            idx++;
            if (p[1] != '?') {
                rc = wh_buf_append(&b, "(", 1);
                p++;
                continue;
            }
            const char *q = p + 2;
            if (*q == ':') {
                rc = wh_buf_append(&b, "(", 1);
                p = q + 1;
                continue;
            }
            if (*q == 'P')
                q++;
            if (*q != '<' || !(isalpha((unsigned char)q[1]) || q[1] == '_')) {
                *why = "unsupported (? group (only (?<name>…), (?P<name>…) and (?:…))";
                break;
            }
            const char *name = ++q;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            if (*q != '>') {
                *why = "unterminated group name";
                break;
            }
            size_t nl = (size_t)(q - name);
            for (int g = 0; g < S_G_COUNT; g++) {
                if (strlen(s_group_names[g]) == nl && memcmp(s_group_names[g], name, nl) == 0) {
                    if (group[g] >= 0)
                        *why = "group name used twice";
                    group[g] = idx;
                }
            }
            rc = wh_buf_append(&b, "(", 1);
            p = q + 1;
        } else {
            rc = wh_buf_append(&b, p, 1);
            p++;
        }
    }
    if (rc && !*why)
        *why = "out of memory";
    if (*why) {
        wh_buf_free(&b);
        return NULL;
    }
    return wh_buf_detach(&b);
}

/* Compiles src; on error returns WH_EINVAL and a one-line message naming
 * the option (what) and the regex. */
static int s_rx_compile(s_rx_t *rx, const char *src, const char *what, char **err)
{
    memset(rx, 0, sizeof *rx);
    const char *why = NULL;
    char *pat = s_rx_translate(src, rx->group, &why);
    if (!pat) {
        if (err)
            *err = wh_strdup_printf("bad %s '%s': %s", what, src, why);
        return WH_EINVAL;
    }
    int rc = regcomp(&rx->re, pat, REG_EXTENDED | REG_NEWLINE);
    free(pat);
    if (rc) {
        char msg[256];
        regerror(rc, &rx->re, msg, sizeof msg);
        if (err)
            *err = wh_strdup_printf("bad %s '%s': %s", what, src, msg);
        return WH_EINVAL;
    }
    rx->compiled = 1;
    rx->nsub = rx->re.re_nsub;
    return 0;
}

static void s_rx_free(s_rx_t *rx)
{
    if (rx->compiled)
        regfree(&rx->re);
    rx->compiled = 0;
}

/* The text of group g of a match at base, malloc'ed; NULL when the regex
 * has no such group or it did not take part in the match. */
static char *s_rx_group(const s_rx_t *rx, const regmatch_t *m, const char *base, int g)
{
    int i = rx->group[g];
    if (i < 0 || m[i].rm_so < 0)
        return NULL;
    return strndup(base + m[i].rm_so, (size_t)(m[i].rm_eo - m[i].rm_so));
}

/* Calls fn(arg, match, base) for each match of rx in text, in order, until
 * fn returns nonzero (which is returned). */
typedef int (*s_match_fn)(void *arg, const s_rx_t *rx, const regmatch_t *m, const char *base);

static int s_rx_each(const s_rx_t *rx, const char *text, size_t len, s_match_fn fn, void *arg)
{
    regmatch_t *m = calloc(rx->nsub + 1, sizeof *m);
    if (!m)
        return WH_ENOMEM;
    int ret = 0;
    size_t off = 0;
    for (int n = 0; off <= len && n < S_MAX_MATCHES && !ret; n++) {
        int flags = off > 0 && text[off - 1] != '\n' ? REG_NOTBOL : 0;
        if (regexec(&rx->re, text + off, rx->nsub + 1, m, flags) != 0)
            break;
        ret = fn(arg, rx, m, text + off);
        size_t adv = (size_t)m[0].rm_eo;
        if (m[0].rm_eo == m[0].rm_so)
            adv++;
        off += adv;
    }
    free(m);
    return ret;
}

/* ---- shared result helpers ---- */

static const char *s_basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int s_set(wh_test_result_t *out, wh_test_status_t st, const char *test, const char *kind,
                 const char *loc, const char *msg)
{
    out->status = st;
    out->fp.test = strdup(test ? test : "");
    if (st == WH_TR_FAILED) {
        out->fp.kind = strdup(kind ? kind : "assert");
        out->fp.location = strdup(loc ? loc : "");
        out->fp.message = strdup(msg ? msg : "");
        if (!out->fp.kind || !out->fp.location || !out->fp.message)
            return WH_ENOMEM;
    }
    return out->fp.test ? 0 : WH_ENOMEM;
}

/* A NUL-free copy of the console (a test may print NUL bytes). */
static char *s_console_copy(const char *console, size_t len)
{
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    if (len)
        memcpy(c, console, len);
    c[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (!c[i])
            c[i] = ' ';
    return c;
}

/* ---- console preset ---- */

typedef struct {
    const char *target;
    int hit;
    char *test, *file, *line, *message, *kind;
    char *whole;
} s_hit_t;

static void s_hit_free(s_hit_t *h)
{
    free(h->test), free(h->file), free(h->line), free(h->message), free(h->kind), free(h->whole);
    h->test = h->file = h->line = h->message = h->kind = h->whole = NULL;
}

/* The first match whose test group is the target; a regex without a test
 * group (or a match where it did not take part) names the target. */
static int s_on_match(void *arg, const s_rx_t *rx, const regmatch_t *m, const char *base)
{
    s_hit_t *h = arg;
    char *test = s_rx_group(rx, m, base, S_G_TEST);
    if (test && strcmp(test, h->target) != 0) {
        free(test);
        return 0;
    }
    h->hit = 1;
    h->test = test;
    h->file = s_rx_group(rx, m, base, S_G_FILE);
    h->line = s_rx_group(rx, m, base, S_G_LINE);
    h->message = s_rx_group(rx, m, base, S_G_MESSAGE);
    h->kind = s_rx_group(rx, m, base, S_G_KIND);
    h->whole = strndup(base + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
    return 1;
}

static int s_console_check(const wh_fw_opts_t *opts, char **err)
{
    if (!opts || !opts->failure_regex || !*opts->failure_regex) {
        if (err)
            *err = strdup("the console framework needs --failure-regex");
        return WH_EINVAL;
    }
    s_rx_t rx;
    int rc = s_rx_compile(&rx, opts->failure_regex, "--failure-regex", err);
    s_rx_free(&rx);
    if (!rc && opts->pass_regex && *opts->pass_regex) {
        rc = s_rx_compile(&rx, opts->pass_regex, "--pass-regex", err);
        s_rx_free(&rx);
    }
    return rc;
}

/* A crash seen in the text (a sanitizer report or a shell's crash line):
 * FAILED for the target with that identity. Returns 1 when one was seen. */
static int s_text_crash(const char *text, size_t len, const char *test, const char *root,
                        wh_test_result_t *out, int *rc)
{
    wh_fp_t san = {0};
    int p = wh_san_parse(text, len, root, &san);
    if (p < 0) {
        *rc = p;
        return 1;
    }
    if (p > 0) {
        *rc = s_set(out, WH_TR_FAILED, test, san.kind, san.location, san.message);
        wh_fp_clear(&san);
        return 1;
    }
    int sig = wh_crash_text(text, len);
    if (sig) {
        char *kind = wh_crash_kind(sig);
        *rc = kind ? s_set(out, WH_TR_FAILED, test, kind, "", "") : WH_ENOMEM;
        free(kind);
        return 1;
    }
    return 0;
}

static int s_console_read(const char *report_path, const char *console, size_t console_len,
                          const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                          char **err)
{
    (void)report_path;
    wh_fwu_result_init(out, err);
    if (!test || !opts)
        return WH_EINVAL;
    s_rx_t fail_rx, pass_rx;
    int have_pass = 0;
    int rc = s_rx_compile(&fail_rx, opts->failure_regex ? opts->failure_regex : "",
                          "--failure-regex", err);
    if (rc)
        return rc;
    if (opts->pass_regex && *opts->pass_regex) {
        if ((rc = s_rx_compile(&pass_rx, opts->pass_regex, "--pass-regex", err)) != 0) {
            s_rx_free(&fail_rx);
            return rc;
        }
        have_pass = 1;
    }
    char *text = s_console_copy(console ? console : "", console ? console_len : 0);
    size_t len = console ? console_len : 0;
    s_hit_t h = {.target = test};
    if (!text) {
        rc = WH_ENOMEM;
        goto out;
    }
    rc = s_rx_each(&fail_rx, text, len, s_on_match, &h);
    if (rc < 0)
        goto out;
    rc = 0;
    if (h.hit) {
        char *loc = NULL;
        if (h.file && h.line)
            loc = wh_strdup_printf("%s:%s", s_basename(h.file), h.line);
        else if (h.file)
            loc = strdup(s_basename(h.file));
        rc = s_set(out, WH_TR_FAILED, test, h.kind && *h.kind ? h.kind : "assert",
                   loc ? loc : "", h.message ? h.message : h.whole);
        free(loc);
        goto out;
    }
    if (have_pass) {
        s_hit_free(&h);
        rc = s_rx_each(&pass_rx, text, len, s_on_match, &h);
        if (rc < 0)
            goto out;
        rc = 0;
        if (h.hit) {
            rc = s_set(out, WH_TR_PASSED, test, NULL, NULL, NULL);
            goto out;
        }
    }
    /* Neither: the harness may have died before reaching the target. */
    if (!s_text_crash(text, len, test, opts->root, out, &rc))
        out->status = WH_TR_MISSING;
out:
    s_hit_free(&h);
    free(text);
    s_rx_free(&fail_rx);
    if (have_pass)
        s_rx_free(&pass_rx);
    if (rc) {
        wh_test_result_clear(out);
        if (err && !*err)
            *err = strdup(wh_strerror(rc));
    }
    return rc;
}

/* ---- plain preset ---- */

/* The function's name from __PRETTY_FUNCTION__: "test_x" in C, "void
 * ns::test_x(int)" in C++ → "ns::test_x". */
static char *s_func_name(const char *f, size_t n)
{
    const char *e = memchr(f, '(', n);
    if (!e)
        e = f + n;
    const char *s = e;
    while (s > f && s[-1] != ' ' && s[-1] != '*' && s[-1] != '&')
        s--;
    return strndup(s, (size_t)(e - s));
}

static int s_name_is(const char *name, const char *target)
{
    if (strcmp(name, target) == 0)
        return 1;
    size_t n = strlen(name), t = strlen(target);
    return n > t + 2 && strcmp(name + n - t, target) == 0 && name[n - t - 1] == ':' &&
           name[n - t - 2] == ':';
}

/* glibc: "prog: file.c:12: func: Assertion `x == 1' failed."
 * musl:  "Assertion failed: x == 1 (file.c: func: 12)"
 * Fills *file, *line, *func (any may stay NULL) and *msg. */
static int s_assert_line(const char *l, size_t n, char **file, char **line, char **func,
                         char **msg)
{
    static const char glibc[] = "Assertion `", tail[] = "' failed.";
    const char *a = memmem(l, n, glibc, sizeof glibc - 1);
    size_t tl = sizeof tail - 1;
    while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
        n--;
    if (a && n >= tl && memcmp(l + n - tl, tail, tl) == 0) {
        *msg = strndup(a, (size_t)(l + n - a));
        /* Before it: "prog: file:line: func: " (func may be missing). */
        const char *e = a;
        if (e - l >= 2 && e[-2] == ':' && e[-1] == ' ')
            e -= 2;
        const char *parts[4];
        size_t lens[4];
        int np = 0;
        const char *s = e;
        /* Split from the right on ": " into at most 3 parts. */
        while (np < 3) {
            const char *p = s;
            while (p - l >= 2 && !(p[-2] == ':' && p[-1] == ' '))
                p--;
            if (p - l < 2) {
                parts[np] = l;
                lens[np++] = (size_t)(s - l);
                break;
            }
            parts[np] = p;
            lens[np++] = (size_t)(s - p);
            s = p - 2;
        }
        /* parts[0] is func or "file:line"; whichever holds ":<digits>" at
         * its end is the location. */
        for (int i = 0; i < np; i++) {
            const char *c = memrchr(parts[i], ':', lens[i]);
            if (!c || c + 1 >= parts[i] + lens[i])
                continue;
            const char *d = c + 1;
            while (d < parts[i] + lens[i] && isdigit((unsigned char)*d))
                d++;
            if (d != parts[i] + lens[i])
                continue;
            *file = strndup(parts[i], (size_t)(c - parts[i]));
            *line = strndup(c + 1, (size_t)(d - c - 1));
            if (i > 0)
                *func = s_func_name(parts[0], lens[0]);
            break;
        }
        return 1;
    }
    static const char musl[] = "Assertion failed: ";
    if (n > sizeof musl && memcmp(l, musl, sizeof musl - 1) == 0 && l[n - 1] == ')') {
        const char *open = memrchr(l, '(', n);
        if (!open)
            return 0;
        const char *in = open + 1, *ie = l + n - 1;
        const char *c1 = memmem(in, (size_t)(ie - in), ": ", 2);
        const char *c2 = c1 ? memrchr(c1 + 2, ':', (size_t)(ie - c1 - 2)) : NULL;
        if (!c1 || !c2)
            return 0;
        *file = strndup(in, (size_t)(c1 - in));
        *func = s_func_name(c1 + 2, (size_t)(c2 - c1 - 2));
        const char *ln = c2 + 1;
        while (*ln == ' ')
            ln++;
        *line = strndup(ln, (size_t)(ie - ln));
        const char *me = open;
        while (me > l && me[-1] == ' ')
            me--;
        *msg = strndup(l, (size_t)(me - l));
        return 1;
    }
    return 0;
}

static int s_plain_read(const char *report_path, const char *console, size_t console_len,
                        const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                        char **err)
{
    (void)report_path;
    wh_fwu_result_init(out, err);
    if (!test)
        return WH_EINVAL;
    const char *c = console ? console : "";
    size_t len = console ? console_len : 0;
    int rc = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && c[e] != '\n' && c[e] != '\0')
            e++;
        char *file = NULL, *line = NULL, *func = NULL, *msg = NULL;
        if (s_assert_line(c + i, e - i, &file, &line, &func, &msg)) {
            char *loc = file && line ? wh_strdup_printf("%s:%s", s_basename(file), line)
                                     : strdup("");
            /* The target is the function the assertion fired in; any other
             * function is another failure (the oracle's test comparison
             * turns it into DifferentFailure). */
            const char *who = func && !s_name_is(func, test) ? func : test;
            rc = loc && msg ? s_set(out, WH_TR_FAILED, who, "assert", loc, msg) : WH_ENOMEM;
            free(loc);
            free(file), free(line), free(func), free(msg);
            goto out;
        }
        free(file), free(line), free(func), free(msg);
        i = e + 1;
    }
    if (!s_text_crash(c, len, test, opts ? opts->root : NULL, out, &rc))
        rc = s_set(out, WH_TR_PASSED, test, NULL, NULL, NULL);
out:
    if (rc) {
        wh_test_result_clear(out);
        if (err && !*err)
            *err = strdup(wh_strerror(rc));
    }
    return rc;
}

/* ---- the table ---- */

static const char *const s_no_env[] = {NULL};

static const wh_framework_t s_presets[] = {
    {"console", NULL, s_no_env, s_console_read, s_console_check, WH_FW_READS_CONSOLE},
    {"plain", NULL, s_no_env, s_plain_read, NULL, WH_FW_READS_CONSOLE},
};

const wh_framework_t *wh_fw_console_presets(size_t *n)
{
    if (n)
        *n = sizeof s_presets / sizeof s_presets[0];
    return s_presets;
}
