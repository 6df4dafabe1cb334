/*
 * framework — the presets and their report readers.
 *
 * All four presets read JUnit-shaped XML with libxml2; they differ in how a
 * test is selected on the command line and in where the failure's message
 * and location sit in the report:
 *
 *   junit   any JUnit XML; message attribute, else the element text's first
 *           non-empty line; location = first "file.c:N" in text or message.
 *   cmocka  cmocka 1.1.x: <failure><![CDATA[<assert text>\nfile.c:N: error:
 *           Failure!]]></failure>; a caught signal is "Test failed with
 *           exception: Segmentation fault(11)" and becomes kind crash(SIGSEGV).
 *           The whole group runs (cmocka has no per-test filter by env).
 *   gtest   message attribute "path/file.cc:N\n<text>" (first line is the
 *           location, "unknown file" for exceptions); notrun/skipped cases
 *           are SKIPPED; a filter that matches nothing gives no testcase.
 *   ctest   ctest 3.25 writes <failure message=""/> and the test's output in
 *           <system-out>; the location and message come from that output,
 *           and a crash or timeout reason from ctest's console summary line
 *           ("  4 - name (SEGFAULT)"), which the XML does not carry.
 *
 * Locations are "basename:line": workspaces live at different absolute
 * paths on different slots, and the same failure must fingerprint the same
 * in all of them.
 *
 * Reading is thread-safe: libxml2 is initialized once (in fw_util.c) and
 * each read parses its own document.
 */
#define _GNU_SOURCE
#include "framework.h"
#include "fw_util.h"
#include "junit_cases.h"
#include "normalize.h"
#include "sanitizer.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

void wh_test_result_clear(wh_test_result_t *r)
{
    if (!r)
        return;
    wh_fp_clear(&r->fp);
    r->status = WH_TR_MISSING;
}

void wh_test_result_init(wh_test_result_t *out, char **err)
{
    if (err)
        *err = NULL;
    memset(out, 0, sizeof *out);
    out->status = WH_TR_MISSING;
}

int wh_test_result_oom(wh_test_result_t *out, char **err)
{
    wh_test_result_clear(out);
    if (err && !*err)
        *err = strdup("out of memory");
    return WH_ENOMEM;
}

char *wh_expand(const char *tmpl, const char *test, const char *report)
{
    if (!tmpl)
        return NULL;
    wh_buf_t b = WH_BUF_INIT;
    int rc = 0;
    for (const char *p = tmpl; *p && !rc;) {
        if (strncmp(p, "{test}", 6) == 0) {
            rc = wh_buf_puts(&b, test ? test : "");
            p += 6;
        } else if (strncmp(p, "{report}", 8) == 0) {
            rc = wh_buf_puts(&b, report ? report : "");
            p += 8;
        } else {
            rc = wh_buf_append(&b, p, 1);
            p++;
        }
    }
    if (rc) {
        wh_buf_free(&b);
        return NULL;
    }
    return wh_buf_detach(&b);
}

/* ---- per-preset failure readers ---- */

/* Fills kind, message and location of a failed case; fp->test is set by the
 * caller. Returns 0 or WH_ENOMEM. */
typedef int (*s_fail_fn)(xmlNodePtr tc, xmlNodePtr fail, const char *console,
                         size_t console_len, const char *test, wh_fp_t *fp);

static const char *s_fail_kind(xmlNodePtr fail)
{
    return wh_fwu_is_elem(fail, "error") ? "error" : "assert";
}

static int s_fail_junit(xmlNodePtr tc, xmlNodePtr fail, const char *console, size_t console_len,
                        const char *test, wh_fp_t *fp)
{
    (void)tc, (void)console, (void)console_len, (void)test;
    char *text = wh_fwu_xstr(xmlNodeGetContent(fail));
    char *msg = wh_fwu_prop(fail, "message");
    if (!msg || !*msg) {
        free(msg);
        msg = wh_fwu_first_line(text);
    }
    fp->kind = strdup(s_fail_kind(fail));
    fp->message = msg;
    char *loc = NULL;
    if (!(text && wh_fwu_find_location(text, strlen(text), NULL, NULL, &loc) > 0) &&
        !(msg && wh_fwu_find_location(msg, strlen(msg), NULL, NULL, &loc) > 0))
        loc = strdup("");
    fp->location = loc;
    free(text);
    return fp->kind && fp->message && fp->location ? 0 : WH_ENOMEM;
}

/* cmocka's own "error: Failure!" says nothing about a failure: drops it
 * from text (in place); when nothing else is left, "Failure!". 0 or
 * WH_ENOMEM (text freed). */
static int s_cmocka_boiler(char **text)
{
    char *boiler = strstr(*text, "error: Failure!");
    if (!boiler)
        return 0;
    memmove(boiler, boiler + 15, strlen(boiler + 15) + 1);
    wh_fp_normalize_message(*text);
    if (!(*text)[0]) {
        free(*text);
        *text = strdup("Failure!");
    }
    return *text ? 0 : WH_ENOMEM;
}

/* cmocka's "Test failed with exception: Segmentation fault(11)" → 11. */
static int s_cmocka_signal(const char *text)
{
    const char *p = strstr(text, "Test failed with exception:");
    if (!p)
        return 0;
    const char *open = strrchr(p, '(');
    if (!open || !isdigit((unsigned char)open[1]))
        return -1;
    return atoi(open + 1);
}

static int s_fail_cmocka(xmlNodePtr tc, xmlNodePtr fail, const char *console,
                         size_t console_len, const char *test, wh_fp_t *fp)
{
    (void)tc, (void)console, (void)console_len, (void)test;
    char *text = wh_fwu_xstr(xmlNodeGetContent(fail));
    if (!text)
        text = strdup("");
    if (!text)
        return WH_ENOMEM;
    int sig = s_cmocka_signal(text);
    size_t start = 0, end = 0;
    char *loc = NULL;
    if (sig) {
        fp->kind = wh_crash_kind(sig);
        fp->location = strdup("");
        fp->message = text;
        text = NULL;
    } else if (wh_fwu_find_location(text, strlen(text), &start, &end, &loc) > 0) {
        /* Drop "path/file.c:12" and the ": " after it; what is left is the
         * assert's own text plus cmocka's "error: Failure!". */
        size_t n = strlen(text);
        if (end < n && text[end] == ':')
            end++;
        while (end < n && text[end] == ' ')
            end++;
        memmove(text + start, text + end, n - end + 1);
        /* When the assert printed its values, they are the message. */
        if (s_cmocka_boiler(&text))
            return WH_ENOMEM;
        fp->kind = strdup(s_fail_kind(fail));
        fp->location = loc;
        fp->message = text;
        text = NULL;
    } else {
        fp->kind = strdup(s_fail_kind(fail));
        fp->location = strdup("");
        fp->message = text;
        text = NULL;
    }
    free(text);
    return fp->kind && fp->message && fp->location ? 0 : WH_ENOMEM;
}

static int s_fail_gtest(xmlNodePtr tc, xmlNodePtr fail, const char *console, size_t console_len,
                        const char *test, wh_fp_t *fp)
{
    (void)tc, (void)console, (void)console_len, (void)test;
    char *msg = wh_fwu_prop(fail, "message");
    if (!msg)
        msg = wh_fwu_xstr(xmlNodeGetContent(fail));
    if (!msg)
        msg = strdup("");
    if (!msg)
        return WH_ENOMEM;
    /* gtest: "<file>:<line>\n<text>", or "unknown file\n<text>". */
    size_t nl = strcspn(msg, "\n");
    char *loc = NULL;
    size_t end = 0;
    int has_loc = wh_fwu_find_location(msg, nl, NULL, &end, &loc) > 0;
    if (has_loc || (nl == 12 && strncmp(msg, "unknown file", 12) == 0)) {
        size_t skip = msg[nl] ? nl + 1 : nl;
        memmove(msg, msg + skip, strlen(msg + skip) + 1);
    }
    fp->location = has_loc ? loc : strdup("");
    /* An escaped exception is a different kind of failure than an assert:
     * it is what the fingerprint's type-only mode falls back to. */
    const char *kind = s_fail_kind(fail);
    if (strncmp(msg, "C++ exception", 13) == 0 || strncmp(msg, "Unknown C++ exception", 21) == 0)
        kind = "exception";
    fp->kind = strdup(kind);
    fp->message = msg;
    return fp->kind && fp->message && fp->location ? 0 : WH_ENOMEM;
}

/* ctest's console summary "  4 - name (REASON)" for test; malloc'ed reason
 * or NULL. */
static char *s_ctest_reason(const char *console, size_t len, const char *test)
{
    if (!console)
        return NULL;
    size_t tl = strlen(test);
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && console[e] != '\n')
            e++;
        const char *p = console + i, *q = console + e;
        while (p < q && (*p == ' ' || *p == '\t'))
            p++;
        const char *d = p;
        while (d < q && isdigit((unsigned char)*d))
            d++;
        if (d > p && q - d > (ptrdiff_t)(tl + 5) && strncmp(d, " - ", 3) == 0 &&
            strncmp(d + 3, test, tl) == 0 && strncmp(d + 3 + tl, " (", 2) == 0 && q[-1] == ')') {
            const char *r = d + 3 + tl + 2;
            return strndup(r, (size_t)(q - 1 - r));
        }
        i = e + 1;
    }
    return NULL;
}

static char *s_ctest_kind(const char *reason)
{
    static const struct {
        const char *reason, *kind;
    } map[] = {
        {"SEGFAULT", "crash(SIGSEGV)"},  {"Subprocess aborted", "crash(SIGABRT)"},
        {"ILLEGAL", "crash(SIGILL)"},    {"BUS", "crash(SIGBUS)"},
        {"NUMERICAL", "crash(SIGFPE)"},  {"Timeout", "timeout"},
        {"Failed", "assert"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(reason, map[i].reason) == 0)
            return strdup(map[i].kind);
    return wh_strdup_printf("failed(%s)", reason);
}

/* From a test's console output: the message starting at the first
 * location, up to a blank line, a framework marker line ("[ ... ]") or the
 * next location. cmocka's "[  ERROR   ] --- <text>" line just before its
 * "[   LINE   ] --- file:line" line is part of the message. */
static int s_console_failure(const char *out, char **loc, char **msg)
{
    size_t n = strlen(out), start = 0, end = 0;
    if (wh_fwu_find_location(out, n, &start, &end, loc) <= 0)
        return 0;
    wh_buf_t b = WH_BUF_INIT;
    size_t ls = start;
    while (ls > 0 && out[ls - 1] != '\n')
        ls--;
    static const char cm_err[] = "[  ERROR   ] --- ";
    if (ls > 0) {
        size_t ps = ls - 1;
        while (ps > 0 && out[ps - 1] != '\n')
            ps--;
        if (strncmp(out + ps, cm_err, sizeof cm_err - 1) == 0) {
            size_t p0 = ps + sizeof cm_err - 1;
            wh_buf_append(&b, out + p0, ls - 1 - p0);
            wh_buf_puts(&b, "\n");
        }
    }
    size_t p = end;
    if (p < n && out[p] == ':')
        p++;
    size_t le = p;
    while (le < n && out[le] != '\n')
        le++;
    wh_buf_append(&b, out + p, le - p);
    int lines = 1;
    while (le < n && lines < WH_FWU_MSG_MAX_LINES) {
        size_t s = le + 1, e = s;
        while (e < n && out[e] != '\n')
            e++;
        size_t k = s;
        while (k < e && (out[k] == ' ' || out[k] == '\t' || out[k] == '\r'))
            k++;
        if (k == e || out[k] == '[' || wh_fwu_find_location(out + s, e - s, NULL, NULL, NULL))
            break;
        wh_buf_puts(&b, "\n");
        wh_buf_append(&b, out + s, e - s);
        le = e;
        lines++;
    }
    *msg = wh_buf_detach(&b);
    return *msg != NULL;
}

int wh_fw_find_location(const char *s, size_t n, size_t *start, size_t *end, char **loc)
{
    return wh_fwu_find_location(s, n, start, end, loc);
}

const char *const *wh_fw_console_env(const wh_framework_t *fw)
{
    static const char *const cmocka[] = {"CMOCKA_MESSAGE_OUTPUT=stdout", NULL};
    return fw && !strcmp(fw->name, "cmocka") ? cmocka : NULL;
}

int wh_fw_segment_result(const char *seg, size_t len, const char *test, wh_test_result_t *out)
{
    wh_test_result_clear(out);
    out->status = WH_TR_FAILED;
    char *text = strndup(seg ? seg : "", seg ? len : 0);
    char *loc = NULL, *msg = NULL;
    if (!text)
        return WH_ENOMEM;
    if (s_console_failure(text, &loc, &msg)) {
        if (s_cmocka_boiler(&msg))
            msg = NULL;
    } else {
        loc = strdup("");
        msg = strdup("Failed");
    }
    free(text);
    out->fp.test = strdup(test);
    out->fp.kind = strdup("assert");
    out->fp.location = loc;
    out->fp.message = msg;
    if (!out->fp.test || !out->fp.kind || !loc || !msg) {
        wh_test_result_clear(out);
        return WH_ENOMEM;
    }
    return 0;
}

static int s_fail_ctest(xmlNodePtr tc, xmlNodePtr fail, const char *console, size_t console_len,
                        const char *test, wh_fp_t *fp)
{
    char *out = wh_fwu_xstr(xmlNodeGetContent(wh_fwu_child(tc, "system-out")));
    char *reason = s_ctest_reason(console, console_len, test);
    char *loc = NULL, *msg = NULL;
    if (out && s_console_failure(out, &loc, &msg)) {
        fp->location = loc;
        fp->message = msg;
    } else {
        char *attr = wh_fwu_prop(fail, "message");
        fp->location = strdup("");
        if (attr && *attr)
            fp->message = attr;
        else {
            free(attr);
            fp->message = strdup(reason && strcmp(reason, "Failed") != 0 ? reason : "Failed");
        }
    }
    fp->kind = reason ? s_ctest_kind(reason) : strdup(s_fail_kind(fail));
    free(reason);
    free(out);
    return fp->kind && fp->message && fp->location ? 0 : WH_ENOMEM;
}

static int s_read_with(s_fail_fn on_fail, const char *report_path, const char *console,
                       size_t console_len, const char *test, wh_test_result_t *out, char **err)
{
    wh_test_result_init(out, err);
    if (!test)
        return WH_EINVAL;
    xmlDocPtr doc = NULL;
    int rc = wh_fwu_load(report_path, &doc, err);
    if (rc)
        return rc;
    xmlNodePtr tc = wh_fwu_junit_find(xmlDocGetRootElement(doc), test);
    if (tc) {
        xmlNodePtr fail = NULL;
        int st = wh_fwu_junit_status(tc, &fail);
        out->status = st == WH_JC_SKIPPED ? WH_TR_SKIPPED
                      : wh_jc_failing(st) ? WH_TR_FAILED
                                          : WH_TR_PASSED;
        if (out->status == WH_TR_FAILED) {
            rc = on_fail(tc, fail, console, console ? console_len : 0, test, &out->fp);
        }
        if (!rc && !(out->fp.test = strdup(test)))
            rc = WH_ENOMEM;
        if (rc)
            rc = wh_test_result_oom(out, err);
    }
    xmlFreeDoc(doc);
    return rc;
}

#define S_READER(name, fn)                                                                 \
    static int name(const char *report_path, const char *console, size_t console_len,     \
                    const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,     \
                    char **err)                                                            \
    {                                                                                      \
        (void)opts;                                                                        \
        return s_read_with(fn, report_path, console, console_len, test, out, err);         \
    }
S_READER(s_read_junit, s_fail_junit)
S_READER(s_read_cmocka, s_fail_cmocka)
S_READER(s_read_gtest, s_fail_gtest)
S_READER(s_read_ctest, s_fail_ctest)

static const char *const s_cmocka_env[] = {"CMOCKA_MESSAGE_OUTPUT=xml",
                                           "CMOCKA_XML_FILE={report}", NULL};
static const char *const s_no_env[] = {NULL};

static const wh_framework_t s_presets[] = {
    {"junit", NULL, s_no_env, s_read_junit, NULL, 0},
    {"cmocka", NULL, s_cmocka_env, s_read_cmocka, NULL, 0},
    /* {report} is quoted: a run folder may lie under a path with spaces. */
    {"gtest", "--gtest_filter='{test}' --gtest_output='xml:{report}'", s_no_env, s_read_gtest, NULL, 0},
    {"ctest", "-R '^{test}$' --output-junit '{report}'", s_no_env, s_read_ctest, NULL, 0},
};

typedef const wh_framework_t *(*s_provider_fn)(size_t *n);

static char s_names[512];

static void s_build_names(void)
{
    wh_buf_t b = WH_BUF_INIT;
    for (size_t i = 0; i < sizeof s_presets / sizeof s_presets[0]; i++)
        wh_buf_printf(&b, "%s%s", i ? ", " : "", s_presets[i].name);
    s_provider_fn providers[] = {wh_fw_xunit_presets, wh_fw_console_presets};
    for (size_t p = 0; p < sizeof providers / sizeof providers[0]; p++) {
        if (!providers[p])
            continue;
        size_t n = 0;
        const wh_framework_t *t = providers[p](&n);
        for (size_t i = 0; t && i < n; i++)
            wh_buf_printf(&b, ", %s", t[i].name);
    }
    snprintf(s_names, sizeof s_names, "%s", b.buf ? b.buf : "");
    wh_buf_free(&b);
}

static const wh_framework_t *s_find_in(const wh_framework_t *t, size_t n, const char *name)
{
    for (size_t i = 0; t && i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

const wh_framework_t *wh_framework_find(const char *name)
{
    if (!name)
        return NULL;
    const wh_framework_t *f = s_find_in(s_presets, sizeof s_presets / sizeof s_presets[0], name);
    s_provider_fn providers[] = {wh_fw_xunit_presets, wh_fw_console_presets};
    for (size_t p = 0; !f && p < sizeof providers / sizeof providers[0]; p++) {
        if (!providers[p])
            continue;
        size_t n = 0;
        const wh_framework_t *t = providers[p](&n);
        f = s_find_in(t, n, name);
    }
    return f;
}

int wh_fw_reads_console(const wh_framework_t *fw)
{
    return fw && (fw->flags & WH_FW_READS_CONSOLE);
}

const char *wh_framework_names(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, s_build_names);
    return s_names;
}
