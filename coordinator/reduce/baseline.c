/*
 * baseline — is the original failure identified? See baseline.h.
 */
#define _GNU_SOURCE
#include "baseline.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "framework.h"

static int s_empty(const char *s)
{
    return !s || !*s;
}

static int s_is(const wh_job_t *j, const char *fw)
{
    return j->framework && strcmp(j->framework, fw) == 0;
}

int wh_baseline_fp_usable(const wh_job_t *j, const wh_fp_t *fp)
{
    if (!fp || (s_empty(fp->kind) && s_empty(fp->location) && s_empty(fp->message)))
        return 0;
    int bare_crash = fp->kind && strncmp(fp->kind, "crash", 5) == 0 && s_empty(fp->location) &&
                     s_empty(fp->message);
    return !bare_crash || s_is(j, "plain");
}

/* What a console job's regex (opt names it) did with the original run's
 * output: "--failure-regex 'RE' matched nothing in the original run's
 * output", or, when it matched only other tests' lines, the first of them
 * and the test it named. *foreign is set when it matched. NULL when out of
 * memory. */
static char *s_rx_said(const wh_job_t *j, const char *opt, const char *re, const char *out,
                       size_t out_len, int *foreign)
{
    const char *test = j->test ? j->test : "";
    char *match = NULL, *named = NULL;
    *foreign = wh_fw_console_foreign(re, test, j->test_fn, out, out_len, &match, &named) == 1;
    char *said;
    if (*foreign) {
        char *nor = j->test_fn ? wh_strdup_printf(" (nor %s)", j->test_fn) : strdup("");
        said = nor ? wh_strdup_printf("%s '%s' matched '%s', whose test group names %s, not %s%s",
                                      opt, re ? re : "", match, named, test, nor)
                   : NULL;
        free(nor);
    } else {
        said = wh_strdup_printf("%s '%s' matched nothing in the original run's output", opt,
                                re ? re : "");
    }
    free(match);
    free(named);
    return said;
}

/* The console preset's refusal: what its regexes did, then what to try
 * (ended: the crash the run ended in, or NULL). */
static char *s_console_refusal(const wh_job_t *j, const char *ended, const char *out,
                               size_t out_len)
{
    int foreign = 0, pass_foreign = 0;
    char *fail = s_rx_said(j, "--failure-regex", j->failure_regex, out, out_len, &foreign);
    char *pass = j->pass_regex && !ended
                     ? s_rx_said(j, "--pass-regex", j->pass_regex, out, out_len, &pass_foreign)
                     : NULL;
    char *why = NULL;
    const char *test = j->test ? j->test : "";
    const char *fix = foreign || pass_foreign
                          ? "fix the regex's test group against the output above, so that the "
                            "test's own line names it"
                          : "fix the regex against the output above";
    if (fail && ended)
        why = wh_strdup_printf("the failure of %s is not identified: %s%s%s; %s, or use "
                               "--framework plain to reduce on the crash alone",
                               test, fail, foreign ? "; the run ended in " : ", which ended in ",
                               ended, fix);
    else if (fail && (pass || !j->pass_regex))
        why = wh_strdup_printf(
            "the failure of %s is not identified: %s%s%s; %s (PCRE2, applied line by line "
            "unless it sets (?s) or (?m))",
            test, fail,
            !pass ? "" : pass_foreign ? ", and " : " and --pass-regex did not match either",
            pass && pass_foreign ? pass : "", fix);
    free(fail);
    free(pass);
    return why;
}

char *wh_baseline_refusal(const wh_job_t *j, int status, const wh_fp_t *fp, const char *out,
                          size_t out_len)
{
    const char *test = j->test ? j->test : "";
    if (status == WH_TR_FAILED) {
        if (wh_baseline_fp_usable(j, fp))
            return NULL;
        if (fp && !s_empty(fp->kind) && strncmp(fp->kind, "crash", 5) == 0) {
            if (s_is(j, "console"))
                return s_console_refusal(j, fp->kind, out, out_len);
            return wh_strdup_printf(
                "the failure of %s is not identified: the original run ended in %s before the %s "
                "framework reported anything; use --framework plain to reduce on the crash alone, "
                "or --framework console with a --failure-regex for its output",
                test, fp->kind, j->framework ? j->framework : "");
        }
        return wh_strdup_printf("the failure of %s is not identified: the original run failed "
                                "with no kind, location or message; see the output above",
                                test);
    }
    if (status != WH_TR_MISSING)
        return NULL;
    if (s_is(j, "console"))
        return s_console_refusal(j, NULL, out, out_len);
    if (s_is(j, "plain"))
        return wh_strdup_printf(
            "the failure of %s is not identified: the original run shows no assertion, crash or "
            "sanitizer report and exited non-zero; use --framework console with a "
            "--failure-regex for its output",
            test);
    return wh_strdup_printf("test '%s' not found in the report of the original run; check the "
                            "name and that --run runs it (--framework %s)",
                            test, j->framework ? j->framework : "");
}

char *wh_baseline_tail(const char *text, size_t len, int n)
{
    wh_buf_t b = WH_BUF_INIT;
    if (wh_buf_puts(&b, ""))
        return NULL;
    if (!text)
        len = 0;
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    size_t start = len;
    for (int lines = 0; start > 0; start--) {
        if (text[start - 1] == '\n' && ++lines == n)
            break;
    }
    int rc = 0;
    for (size_t i = start; i < len && !rc;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        size_t k = e;
        if (k > i && text[k - 1] == '\r')
            k--;
        rc = wh_buf_printf(&b, "  | %.*s\n", (int)(k - i), text + i);
        i = e + 1;
    }
    if (rc) {
        wh_buf_free(&b);
        return NULL;
    }
    return wh_buf_detach(&b);
}

/* The length of the workspace part of a path whose "/slot-" or "/golden/"
 * component starts at at (text[0] .. at): from the path's first '/' through
 * the slot's '/', when the component before is a 64-hex key; 0 when not. */
static size_t s_ws_prefix(const char *text, const char *at, const char *end, size_t *start)
{
    const char *k = at;
    int hex = 0;
    while (k > text && isxdigit((unsigned char)k[-1]) && hex < 65)
        k--, hex++;
    if (hex != 64 || k == text || k[-1] != '/')
        return 0;
    const char *p = k - 1;
    while (p > text && !strchr(" \t\n'\"(<=`", p[-1]))
        p--;
    p = memchr(p, '/', (size_t)(k - p)); /* after an option's "-I", say */
    if (!p)
        return 0;
    const char *slash = memchr(at + 1, '/', (size_t)(end - at - 1));
    if (!slash)
        return 0;
    *start = (size_t)(p - text);
    return (size_t)(slash + 1 - p);
}

char *wh_baseline_unworkspace(const char *text, size_t len)
{
    wh_buf_t b = WH_BUF_INIT;
    if (wh_buf_puts(&b, ""))
        return NULL;
    const char *end = text ? text + len : NULL;
    size_t done = 0;
    for (size_t i = 0; text && i < len; i++) {
        if (text[i] != '/' || (strncmp(text + i, "/slot-", 6) != 0 &&
                               strncmp(text + i, "/golden/", 8) != 0))
            continue;
        size_t start = 0, n = s_ws_prefix(text, text + i, end, &start);
        if (!n || start < done)
            continue;
        if (wh_buf_printf(&b, "%.*s", (int)(start - done), text + done))
            goto oom;
        done = start + n;
        i = done - 1;
    }
    if (text && wh_buf_printf(&b, "%.*s", (int)(len - done), text + done))
        goto oom;
    return wh_buf_detach(&b);
oom:
    wh_buf_free(&b);
    return NULL;
}

char *wh_baseline_first_error(const char *text)
{
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        const char *e = memmem(l, n, ": error:", 8);
        if (!e)
            e = memmem(l, n, ": fatal error:", 14);
        if (e && e > l) {
            while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
                n--;
            while (n && (*l == ' ' || *l == '\t'))
                l++, n--;
            return wh_strdup_printf("%.*s", (int)n, l);
        }
        l = nl ? nl + 1 : NULL;
    }
    return NULL;
}

char *wh_baseline_reference_unknown(const wh_job_t *j)
{
    if (s_is(j, "console") || s_is(j, "plain"))
        return wh_strdup_printf(
            "unknown: the reference run showed no failure but no evidence of a pass either "
            "(%s)",
            s_is(j, "plain") ? "it exited non-zero"
                             : "--pass-regex did not match; with --pass-on-exit0 exit status 0 counts");
    return strdup("unknown: the test is not in the reference's report");
}

char *wh_baseline_not_found(const char *detail)
{
    const char *x = detail ? strstr(detail, "test exited 127") : NULL;
    const char *p = x ? strstr(x, ": not found") : NULL;
    if (!p)
        return NULL;
    const char *b = p;
    while (b > x && b[-1] != ' ' && b[-1] != '`' && b[-1] != '\n')
        b--;
    return b < p ? strndup(b, (size_t)(p - b)) : NULL;
}
