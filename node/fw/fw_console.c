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
 *            on stderr; a sanitizer report or a shell's crash text; a run
 *            without any of them that exits 0 is a pass (WH_FW_EXIT0_PASSES:
 *            wh_evaluate decides, the reader says MISSING).
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
#include "userrx.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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
    const char *target_fn; /* NULL, or the function registered as target */
    int hit;
    size_t eo; /* where the match ended in the text */
    char *test, *file, *line, *message, *kind;
    char *whole;
} s_hit_t;

static void s_hit_free(s_hit_t *h)
{
    free(h->test), free(h->file), free(h->line), free(h->message), free(h->kind), free(h->whole);
    h->test = h->file = h->line = h->message = h->kind = h->whole = NULL;
    h->hit = 0;
}

/* 1 when a test group's value names the target: its name, or the function
 * a registration runs under that name (aws-c-common's AWS_TEST_CASE(name,
 * fn), whose harness prints fn). */
static int s_names_target(const char *test, const char *target, const char *target_fn)
{
    return strcmp(test, target) == 0 || (target_fn && strcmp(test, target_fn) == 0);
}

/* The first match whose test group names the target; a regex without a
 * test group (or a match where it did not take part) names the target. */
static int s_on_match(void *arg, const wh_urx_match_t *m)
{
    s_hit_t *h = arg;
    char *test = wh_urx_group(m, "test");
    if (test && !s_names_target(test, h->target, h->target_fn)) {
        free(test);
        return 0;
    }
    h->hit = 1;
    h->eo = m->eo;
    h->test = test;
    h->file = wh_urx_group(m, "file");
    h->line = wh_urx_group(m, "line");
    h->message = wh_urx_group(m, "message");
    h->kind = wh_urx_group(m, "kind");
    h->whole = strndup(m->text + m->so, m->eo - m->so);
    return h->whole ? 1 : WH_ENOMEM;
}

/* A match whose test group names another test: its text and that name. */
typedef struct {
    const char *target, *target_fn;
    char *match, *named;
} s_foreign_t;

static int s_on_foreign(void *arg, const wh_urx_match_t *m)
{
    s_foreign_t *f = arg;
    char *test = wh_urx_group(m, "test");
    if (!test || s_names_target(test, f->target, f->target_fn)) {
        free(test);
        return 0;
    }
    size_t n = m->eo - m->so;
    const char *nl = memchr(m->text + m->so, '\n', n);
    if (nl)
        n = (size_t)(nl - (m->text + m->so));
    f->match = strndup(m->text + m->so, n > 200 ? 200 : n);
    f->named = test;
    return f->match ? 1 : WH_ENOMEM;
}

int wh_fw_console_foreign(const char *regex, const char *test, const char *test_fn,
                          const char *text, size_t len, char **match, char **named)
{
    *match = *named = NULL;
    if (!regex || !*regex || !test)
        return 0;
    wh_urx_t *rx = wh_urx_new(regex, "regex", NULL);
    if (!rx)
        return 0;
    char *copy = s_console_copy(text ? text : "", text ? len : 0);
    if (!copy) {
        wh_urx_destroy(&rx);
        return WH_ENOMEM;
    }
    s_foreign_t f = {test, test_fn, NULL, NULL};
    int rc = wh_urx_each(rx, copy, text ? len : 0, s_on_foreign, &f);
    free(copy);
    wh_urx_destroy(&rx);
    if (rc == 1) {
        *match = f.match;
        *named = f.named;
        return 1;
    }
    free(f.match);
    free(f.named);
    return rc == WH_ENOMEM ? WH_ENOMEM : 0;
}

/* The regexes of a console job; any but fail may be NULL. */
typedef struct {
    wh_urx_t *fail, *pass, *cont;
} s_rxset_t;

static void s_rxset_free(s_rxset_t *x)
{
    wh_urx_destroy(&x->fail);
    wh_urx_destroy(&x->pass);
    wh_urx_destroy(&x->cont);
}

/* Compiles the job's regexes. 0, or WH_EINVAL with a one-line *err naming
 * the option, the regex and PCRE2's reason. */
static int s_rxset_compile(const wh_fw_opts_t *opts, s_rxset_t *x, char **err)
{
    memset(x, 0, sizeof *x);
    if (!opts || !opts->failure_regex || !*opts->failure_regex) {
        if (err)
            *err = strdup("the console framework needs --failure-regex");
        return WH_EINVAL;
    }
    const struct {
        const char *src, *what;
        wh_urx_t **dst;
    } all[] = {{opts->failure_regex, "--failure-regex", &x->fail},
               {opts->pass_regex, "--pass-regex", &x->pass},
               {opts->message_continuation, "--message-continuation", &x->cont}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (!all[i].src || !*all[i].src)
            continue;
        if (!(*all[i].dst = wh_urx_new(all[i].src, all[i].what, err))) {
            s_rxset_free(x);
            return WH_EINVAL;
        }
    }
    return 0;
}

static int s_console_check(const wh_fw_opts_t *opts, char **err)
{
    s_rxset_t x;
    int rc = s_rxset_compile(opts, &x, err);
    s_rxset_free(&x);
    return rc;
}

/* The lines after the match that ended at `at` which match cont, appended
 * to *msg one per line (at most WH_FWU_MSG_MAX_LINES in all): the values a
 * harness prints under its assertion line. A match that ended at a line's
 * end continues with the next line. 0 or a negative code. */
static int s_continue_message(const wh_urx_t *cont, const char *text, size_t len, size_t at,
                              char **msg)
{
    size_t i = at;
    if (!(i > 0 && text[i - 1] == '\n')) {
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            return 0;
        i = (size_t)(nl - text) + 1;
    }
    wh_buf_t b = WH_BUF_INIT;
    int rc = wh_buf_puts(&b, *msg ? *msg : "");
    for (int lines = 1; !rc && i < len && lines < WH_FWU_MSG_MAX_LINES; lines++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        int r = wh_urx_test(cont, text + i, e - i);
        if (r <= 0) {
            rc = r;
            break;
        }
        rc = wh_buf_puts(&b, "\n");
        rc = rc ? rc : wh_buf_append(&b, text + i, e - i);
        i = e + 1;
    }
    if (rc) {
        wh_buf_free(&b);
        return rc;
    }
    free(*msg);
    *msg = wh_buf_detach(&b);
    return *msg ? 0 : WH_ENOMEM;
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

/* The target's failure from a hit of the failure regex. 0 or a negative
 * code. */
static int s_set_hit(wh_test_result_t *out, const char *test, s_hit_t *h, const s_rxset_t *x,
                     const char *text, size_t len)
{
    char **msg = h->message ? &h->message : &h->whole;
    int rc = x->cont ? s_continue_message(x->cont, text, len, h->eo, msg) : 0;
    if (rc)
        return rc;
    char *loc = NULL;
    if (h->file && h->line)
        loc = wh_strdup_printf("%s:%s", s_basename(h->file), h->line);
    else if (h->file)
        loc = strdup(s_basename(h->file));
    else if (h->line)
        loc = wh_strdup_printf("line %s", h->line);
    rc = s_set(out, WH_TR_FAILED, test, h->kind && *h->kind ? h->kind : "assert", loc ? loc : "",
               *msg);
    free(loc);
    return rc;
}

/* Reads the console: the failure regex's first hit for the target is its
 * failure; else the pass regex's is a pass; else a crash in the text; else
 * MISSING (no failure seen, and no evidence of a pass). */
static int s_console_read(const char *report_path, const char *console, size_t console_len,
                          const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                          char **err)
{
    (void)report_path;
    wh_test_result_init(out, err);
    if (!test || !opts)
        return WH_EINVAL;
    s_rxset_t x;
    int rc = s_rxset_compile(opts, &x, err);
    if (rc)
        return rc;
    size_t len = console ? console_len : 0;
    char *text = s_console_copy(console ? console : "", len);
    s_hit_t h = {.target = test, .target_fn = opts->test_fn};
    if (!text) {
        rc = WH_ENOMEM;
        goto out;
    }
    if ((rc = wh_urx_each(x.fail, text, len, s_on_match, &h)) < 0)
        goto out;
    if (h.hit) {
        rc = s_set_hit(out, test, &h, &x, text, len);
        goto out;
    }
    if (x.pass) {
        if ((rc = wh_urx_each(x.pass, text, len, s_on_match, &h)) < 0)
            goto out;
        if (h.hit) {
            rc = s_set(out, WH_TR_PASSED, test, NULL, NULL, NULL);
            goto out;
        }
    }
    rc = 0;
    /* Neither: the harness may have died before reaching the target. */
    if (!s_text_crash(text, len, test, opts->root, out, &rc))
        out->status = WH_TR_MISSING;
out:
    s_hit_free(&h);
    free(text);
    s_rxset_free(&x);
    if (rc) {
        wh_test_result_clear(out);
        if (err && !*err)
            *err = strdup(rc == WH_EPARSE ? "a regex gave up on the output (match limit)"
                                          : wh_strerror(rc));
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
    wh_test_result_init(out, err);
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
            const char *fn = opts ? opts->test_fn : NULL;
            const char *who =
                func && !s_name_is(func, test) && !(fn && s_name_is(func, fn)) ? func : test;
            rc = loc && msg ? s_set(out, WH_TR_FAILED, who, "assert", loc, msg) : WH_ENOMEM;
            free(loc);
            free(file), free(line), free(func), free(msg);
            goto out;
        }
        free(file), free(line), free(func), free(msg);
        i = e + 1;
    }
    /* No failure in the text: whether it passed is the exit status's to
     * say (WH_FW_EXIT0_PASSES), which wh_evaluate sees and a reader does not. */
    if (!s_text_crash(c, len, test, opts ? opts->root : NULL, out, &rc))
        out->status = WH_TR_MISSING;
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
    {"plain", NULL, s_no_env, s_plain_read, NULL, WH_FW_READS_CONSOLE | WH_FW_EXIT0_PASSES},
};

const wh_framework_t *wh_fw_console_presets(size_t *n)
{
    if (n)
        *n = sizeof s_presets / sizeof s_presets[0];
    return s_presets;
}

int wh_fw_assert_in(const char *text, size_t len, char **loc, char **msg)
{
    *loc = *msg = NULL;
    for (size_t i = 0; text && i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n' && text[e] != '\0')
            e++;
        char *file = NULL, *line = NULL, *func = NULL, *m = NULL;
        if (s_assert_line(text + i, e - i, &file, &line, &func, &m)) {
            free(*loc), free(*msg);
            *loc = file && line ? wh_strdup_printf("%s:%s", s_basename(file), line) : strdup("");
            *msg = m, m = NULL;
        }
        free(file), free(line), free(func), free(m);
        i = e + 1;
    }
    if (*msg && !*loc) {
        free(*msg);
        *msg = NULL;
        return WH_ENOMEM;
    }
    return *msg != NULL;
}
