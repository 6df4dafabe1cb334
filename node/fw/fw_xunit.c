/*
 * fw_xunit — presets for four C xUnit frameworks whose reports are not
 * JUnit XML (or not only): Check, CUnit, Criterion and Unity. Each reader
 * finds the one target test in the framework's own report and turns its
 * first failure into a fingerprint; where the report is written only at the
 * end of the run (and so is lost when the runner dies), it falls back to
 * the console text, and only when that text names the target.
 *
 *   check      Check 0.15 XML log (CK_XML_LOG_FILE_NAME={report}). All
 *              tests run (Check selects suites and tcases, not tests); the
 *              target is the <test> whose <id> is the START_TEST name
 *              ("tcase::name" and "suite::name" also match). A failure's
 *              location is <fn>. An error (signal, early exit, timeout) is
 *              reported at Check's last checkpoint, not where it happened,
 *              so its location is "" and "Received signal 11 (...)" becomes
 *              kind crash(SIGSEGV). Console fallback: the lines
 *              "file.c:12:F:tcase:name:0: message" Check prints at the end.
 *   cunit      CUnit 2.1 automated mode, "<prefix>-Results.xml"
 *              (CUNIT_RUN_TEST_FAILURE records; not CUnit's JUnit writer).
 *              CUnit always appends "-Results.xml" to the prefix, so the
 *              user's runner calls CU_set_output_filename(getenv(
 *              "WHITTLE_REPORT")) and the reader moves "{report}-Results.xml"
 *              to {report} when only the former exists (the move also keeps
 *              a stale file from being read for the next candidate). A
 *              non-fatal CU_ASSERT writes one record per failure; the first
 *              is the identity. CUnit does not fork: a crash truncates the
 *              report, which is then malformed (InfraError).
 *   criterion  Criterion 2.4 --xml={report} with --filter=suite/name (the
 *              id "suite::name" or "name"). Filtered-out tests are listed as
 *              SKIPPED; a filter that matches nothing lists no target. The
 *              XML lists a test's failed assertions last-first, so the
 *              identity is the last entry of <failure>. A crash is
 *              <error type="crash"> with no signal and no location: kind
 *              "crash", message "The test crashed.". Console fallback: the
 *              "[----] file.c:12: ..." block before "[FAIL] suite::name: ...".
 *   unity      Unity's console grammar ("file.c:12:name:FAIL: message",
 *              "file.c:12:name:PASS", ":IGNORE", and the summary
 *              "N Tests N Failures N Ignored"); the console is the report
 *              (or {report}, when the run command redirects into it). With
 *              no line for the target and no summary, the runner died.
 *
 * Locations are "basename:line" like the other presets. Reading is
 * thread-safe; libxml2 is initialized once.
 */
#define _GNU_SOURCE
#include "framework.h"
#include "fw_util.h"
#include "sanitizer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/tree.h>

/* ---- text helpers ---- */

/* A location token that starts line l[0, n) (after blanks): returns its end
 * (> 0) and *loc, else 0. */
static size_t s_leading_location(const char *l, size_t n, char **loc)
{
    size_t start = 0, end = 0, k = 0;
    while (k < n && (l[k] == ' ' || l[k] == '\t'))
        k++;
    char *got = NULL;
    if (wh_fwu_find_location(l, n, &start, &end, &got) != 1)
        return 0;
    if (start != k) {
        free(got);
        return 0;
    }
    *loc = got;
    return end;
}

/* s[0, n) without leading/trailing blanks; malloc'ed. */
static char *s_trim_dup(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return strndup(s, n);
}

/* The next line of buf[0, len) from *pos: [*l, *l + *n) without '\n' or a
 * trailing '\r'. 0 at the end. */
static int s_next_line(const char *buf, size_t len, size_t *pos, const char **l, size_t *n)
{
    if (!buf || *pos >= len)
        return 0;
    size_t s = *pos, e = s;
    while (e < len && buf[e] != '\n')
        e++;
    *pos = e + 1;
    *l = buf + s;
    *n = e - s;
    if (*n && buf[e - 1] == '\r')
        (*n)--;
    return 1;
}

static int s_starts(const char *l, size_t n, const char *prefix)
{
    size_t p = strlen(prefix);
    return n >= p && memcmp(l, prefix, p) == 0;
}

/* name == test, or group + sep + name == test for sep in "::", ".", "/". */
static int s_name_matches(const char *test, const char *name, size_t name_len,
                          const char *group)
{
    size_t tl = strlen(test);
    if (tl == name_len && memcmp(test, name, name_len) == 0)
        return 1;
    if (!group || !*group)
        return 0;
    size_t gl = strlen(group);
    static const char *const seps[] = {"::", ".", "/"};
    for (size_t i = 0; i < sizeof seps / sizeof seps[0]; i++) {
        size_t sl = strlen(seps[i]);
        if (tl == gl + sl + name_len && memcmp(test, group, gl) == 0 &&
            memcmp(test + gl, seps[i], sl) == 0 && memcmp(test + gl + sl, name, name_len) == 0)
            return 1;
    }
    return 0;
}

/* ---- results ---- */

/* Sets a non-failed status. 0 or WH_ENOMEM. */
static int s_set_status(wh_test_result_t *out, const char *test, wh_test_status_t st)
{
    wh_test_result_clear(out);
    out->status = st;
    out->fp.test = strdup(test);
    return out->fp.test ? 0 : WH_ENOMEM;
}

/* Sets a failure; takes kind, msg and loc (any may be NULL after a failed
 * allocation, which gives WH_ENOMEM). */
static int s_set_failed(wh_test_result_t *out, const char *test, char *kind, char *msg,
                        char *loc)
{
    wh_test_result_clear(out);
    out->status = WH_TR_FAILED;
    out->fp.test = strdup(test);
    out->fp.kind = kind;
    out->fp.message = msg;
    out->fp.location = loc;
    if (!out->fp.test || !kind || !msg || !loc) {
        wh_test_result_clear(out);
        return WH_ENOMEM;
    }
    return 0;
}

/* ---- XML ---- */

/* The trimmed text of n's first child element called name; malloc'ed, ""
 * when there is none, NULL only when out of memory. */
static char *s_child_text(xmlNodePtr n, const char *name)
{
    xmlNodePtr c = wh_fwu_child(n, name);
    char *raw = c ? wh_fwu_xstr(xmlNodeGetContent(c)) : NULL;
    char *t = s_trim_dup(raw ? raw : "", raw ? strlen(raw) : 0);
    free(raw);
    return t;
}

/* Finds the target in console text: 1 with *out filled, 0 when it is not
 * there, -1 out of memory. */
typedef int (*s_console_fn)(const char *console, size_t len, const char *test,
                            wh_test_result_t *out);

/* The start of a reader whose report is written only at the end of the run
 * (check, criterion): resets out and loads the report into *doc. When the
 * load fails, the console is the fallback: when fb finds the target there,
 * the load error is dropped and 0 returned; otherwise the load error
 * stands. *doc is NULL unless the report is there to read (the caller frees
 * it); with *doc NULL the return value is the reader's. */
static int s_begin(const char *report_path, s_console_fn fb, const char *console, size_t len,
                   const char *test, wh_test_result_t *out, xmlDocPtr *doc, char **err)
{
    *doc = NULL;
    wh_test_result_init(out, err);
    if (!test)
        return WH_EINVAL;
    int rc = wh_fwu_load(report_path, doc, err);
    if (!rc)
        return 0;
    int c = console ? fb(console, len, test, out) : 0;
    if (c < 0)
        return wh_test_result_oom(out, err);
    if (c == 0)
        return rc;
    if (err) {
        free(*err);
        *err = NULL;
    }
    return 0;
}

/* ---- check ---- */

/* Kind, message and location of a Check failure or error. Takes msg. */
static int s_check_failed(wh_test_result_t *out, const char *test, int is_error, char *msg,
                          const char *fn)
{
    static const char after[] = "(after this point) ";
    if (msg && strncmp(msg, after, sizeof after - 1) == 0)
        memmove(msg, msg + sizeof after - 1, strlen(msg + sizeof after - 1) + 1);
    if (!is_error) {
        char *loc = NULL;
        if (!fn || wh_fwu_find_location(fn, strlen(fn), NULL, NULL, &loc) != 1)
            loc = strdup("");
        return s_set_failed(out, test, strdup("assert"), msg, loc);
    }
    /* Errors are reported at the last checkpoint ("after this point"),
     * which moves whenever a passing assert before it is removed: no
     * location. */
    char *kind = NULL;
    int sig = 0;
    if (msg && sscanf(msg, "Received signal %d", &sig) == 1)
        kind = wh_crash_kind(sig);
    else if (msg && strstr(msg, "timeout expired"))
        kind = strdup("timeout");
    else
        kind = strdup("error");
    return s_set_failed(out, test, kind, msg, strdup(""));
}

/* "file.c:12:F:tcase:name:0: message" lines (P, F, E). 1 found, 0 not,
 * -1 out of memory. */
static int s_check_console(const char *console, size_t len, const char *test,
                           wh_test_result_t *out)
{
    const char *l;
    size_t n, pos = 0;
    while (s_next_line(console, len, &pos, &l, &n)) {
        char *loc = NULL;
        size_t e = s_leading_location(l, n, &loc);
        if (!e)
            continue;
        if (e + 3 > n || l[e] != ':' || !strchr("PFE", l[e + 1]) || l[e + 2] != ':') {
            free(loc);
            continue;
        }
        char what = l[e + 1];
        const char *tc = l + e + 3, *end = l + n;
        const char *tce = memchr(tc, ':', (size_t)(end - tc));
        const char *nm = tce ? tce + 1 : NULL;
        const char *nme = nm ? memchr(nm, ':', (size_t)(end - nm)) : NULL;
        const char *it = nme ? nme + 1 : NULL;
        const char *ite = it;
        while (ite && ite < end && isdigit((unsigned char)*ite))
            ite++;
        if (!nme || ite == it || ite >= end || *ite != ':') {
            free(loc);
            continue;
        }
        char *tcase = strndup(tc, (size_t)(tce - tc));
        int m = tcase && s_name_matches(test, nm, (size_t)(nme - nm), tcase);
        free(tcase);
        if (!m) {
            free(loc);
            continue;
        }
        int rc;
        if (what == 'P') {
            rc = s_set_status(out, test, WH_TR_PASSED);
        } else {
            char *msg = s_trim_dup(ite + 1, (size_t)(end - ite - 1));
            rc = s_check_failed(out, test, what == 'E', msg, loc);
        }
        free(loc);
        return rc ? -1 : 1;
    }
    return 0;
}

static int s_read_check(const char *report_path, const char *console, size_t console_len,
                        const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                        char **err)
{
    (void)opts;
    xmlDocPtr doc;
    int rc = s_begin(report_path, s_check_console, console, console_len, test, out, &doc, err);
    if (!doc)
        return rc;
    /* <testsuites><suite><title/><test result=".."><fn/><id/><description/>
     * <message/></test>... A looped test has one <test> per iteration: the
     * first failing one wins. */
    xmlNodePtr hit = NULL;
    int hit_failed = 0;
    for (xmlNodePtr s = xmlDocGetRootElement(doc)->children; s && !hit_failed; s = s->next) {
        if (!wh_fwu_is_elem(s, "suite"))
            continue;
        char *title = s_child_text(s, "title");
        for (xmlNodePtr t = s->children; t && !hit_failed; t = t->next) {
            if (!wh_fwu_is_elem(t, "test"))
                continue;
            char *id = s_child_text(t, "id"), *tcase = s_child_text(t, "description");
            int m = id && (s_name_matches(test, id, strlen(id), tcase) ||
                           s_name_matches(test, id, strlen(id), title));
            if (m) {
                char *res = wh_fwu_prop(t, "result");
                int failed = res && strcmp(res, "success") != 0;
                free(res);
                if (!hit || failed)
                    hit = t;
                hit_failed = failed;
            }
            free(id);
            free(tcase);
        }
        free(title);
    }
    if (hit) {
        char *res = wh_fwu_prop(hit, "result");
        if (!res || strcmp(res, "success") == 0) {
            rc = s_set_status(out, test, WH_TR_PASSED);
        } else {
            char *fn = s_child_text(hit, "fn");
            rc = s_check_failed(out, test, strcmp(res, "failure") != 0,
                                s_child_text(hit, "message"), fn);
            free(fn);
        }
        free(res);
        if (rc)
            rc = wh_test_result_oom(out, err);
    }
    xmlFreeDoc(doc);
    return rc;
}

/* ---- cunit ---- */

/* CUnit appends "-Results.xml" to the prefix it is given; when only that
 * file exists, it becomes the report. */
static void s_cunit_adopt(const char *report_path)
{
    if (!report_path || !*report_path || access(report_path, F_OK) == 0)
        return;
    char *alt = wh_strdup_printf("%s-Results.xml", report_path);
    if (alt && access(alt, F_OK) == 0)
        (void)rename(alt, report_path);
    free(alt);
}

static int s_read_cunit(const char *report_path, const char *console, size_t console_len,
                        const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                        char **err)
{
    (void)opts, (void)console, (void)console_len;
    wh_test_result_init(out, err);
    if (!test)
        return WH_EINVAL;
    s_cunit_adopt(report_path);
    xmlDocPtr doc = NULL;
    int rc = wh_fwu_load(report_path, &doc, err);
    if (rc == WH_EPARSE && err && *err) {
        /* CUnit writes its report as it goes and does not fork: a truncated
         * file means the runner died in some test. */
        char *e = wh_strdup_printf("%s (the runner died before finishing it?)", *err);
        if (e) {
            free(*err);
            *err = e;
        }
    }
    if (rc)
        return rc;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    xmlNodePtr listing = wh_fwu_child(root, "CUNIT_RESULT_LISTING");
    if (!wh_fwu_is_elem(root, "CUNIT_TEST_RUN_REPORT") || !listing) {
        if (err)
            *err = wh_strdup_printf("'%s' is not a CUnit automated-mode report", report_path);
        xmlFreeDoc(doc);
        return WH_EPARSE;
    }
    /* <CUNIT_RUN_SUITE><CUNIT_RUN_SUITE_SUCCESS><SUITE_NAME/>
     * <CUNIT_RUN_TEST_RECORD><CUNIT_RUN_TEST_SUCCESS|FAILURE>... */
    xmlNodePtr fail = NULL;
    int passed = 0;
    for (xmlNodePtr rs = listing->children; rs && !fail; rs = rs->next) {
        if (!wh_fwu_is_elem(rs, "CUNIT_RUN_SUITE"))
            continue;
        for (xmlNodePtr su = rs->children; su && !fail; su = su->next) {
            if (su->type != XML_ELEMENT_NODE)
                continue;
            char *suite = s_child_text(su, "SUITE_NAME");
            for (xmlNodePtr rec = su->children; rec && !fail; rec = rec->next) {
                if (!wh_fwu_is_elem(rec, "CUNIT_RUN_TEST_RECORD"))
                    continue;
                for (xmlNodePtr r = rec->children; r; r = r->next) {
                    int is_fail = wh_fwu_is_elem(r, "CUNIT_RUN_TEST_FAILURE");
                    if (!is_fail && !wh_fwu_is_elem(r, "CUNIT_RUN_TEST_SUCCESS"))
                        continue;
                    char *name = s_child_text(r, "TEST_NAME");
                    if (name && s_name_matches(test, name, strlen(name), suite)) {
                        if (is_fail)
                            fail = r;
                        else
                            passed = 1;
                    }
                    free(name);
                    if (fail)
                        break;
                }
            }
            free(suite);
        }
    }
    if (fail) {
        char *file = s_child_text(fail, "FILE_NAME"), *line = s_child_text(fail, "LINE_NUMBER");
        char *loc = NULL;
        if (file && line && *file) {
            const char *base = strrchr(file, '/');
            loc = wh_strdup_printf("%s:%s", base ? base + 1 : file, line);
        } else {
            loc = strdup("");
        }
        free(file);
        free(line);
        rc = s_set_failed(out, test, strdup("assert"), s_child_text(fail, "CONDITION"), loc);
    } else if (passed) {
        rc = s_set_status(out, test, WH_TR_PASSED);
    }
    if (rc)
        rc = wh_test_result_oom(out, err);
    xmlFreeDoc(doc);
    return rc;
}

/* ---- criterion ---- */

/* The identity of a <failure>'s text: Criterion lists the assertions
 * last-first, one "file.c:12: message" entry each (continuation lines of a
 * multi-line message follow it), so the last entry is the first failure. */
static int s_criterion_failure(const char *text, wh_test_result_t *out, const char *test)
{
    size_t len = strlen(text), pos = 0, last = (size_t)-1;
    const char *l;
    size_t n;
    while (s_next_line(text, len, &pos, &l, &n)) {
        char *loc = NULL;
        if (s_leading_location(l, n, &loc))
            last = (size_t)(l - text);
        free(loc);
    }
    if (last == (size_t)-1) {
        char *m = s_trim_dup(text, len);
        return s_set_failed(out, test, strdup("assert"), m, strdup(""));
    }
    const char *s = text + last;
    char *loc = NULL;
    size_t e = s_leading_location(s, strcspn(s, "\n"), &loc);
    if (e < len - last && s[e] == ':')
        e++;
    return s_set_failed(out, test, strdup("assert"), s_trim_dup(s + e, strlen(s + e)), loc);
}

/* "[----] file.c:12: Assertion Failed" / "[----]   message" ... then
 * "[FAIL] suite::name: (0.00s)" or ": CRASH!"; "[PASS] suite::name" and
 * "[SKIP] suite::name: ..." in verbose mode. 1 found, 0 not, -1 no memory. */
static int s_criterion_console(const char *console, size_t len, const char *test,
                               wh_test_result_t *out)
{
    static const char mark[] = "[----]";
    const char *l;
    size_t n, pos = 0, block = 0;
    while (s_next_line(console, len, &pos, &l, &n)) {
        size_t here = (size_t)(l - console);
        int is_fail = s_starts(l, n, "[FAIL] "), is_pass = s_starts(l, n, "[PASS] "),
            is_skip = s_starts(l, n, "[SKIP] ");
        if (!is_fail && !is_pass && !is_skip) {
            if (s_starts(l, n, "[RUN ]") || s_starts(l, n, "[===="))
                block = pos;
            continue;
        }
        /* "suite::name" up to ": " or the end of the line. */
        const char *nm = l + 7, *end = l + n, *ne = nm;
        while (ne < end && !(ne[0] == ':' && (ne + 1 == end || ne[1] == ' ')))
            ne++;
        const char *sep = NULL;
        for (const char *p = nm; p + 1 < ne; p++)
            if (p[0] == ':' && p[1] == ':')
                sep = p;
        char *suite = sep ? strndup(nm, (size_t)(sep - nm)) : NULL;
        const char *bare = sep ? sep + 2 : nm;
        int m = s_name_matches(test, nm, (size_t)(ne - nm), NULL) ||
                (suite && s_name_matches(test, bare, (size_t)(ne - bare), suite));
        free(suite);
        if (!m) {
            block = pos;
            continue;
        }
        if (is_pass)
            return s_set_status(out, test, WH_TR_PASSED) ? -1 : 1;
        if (is_skip)
            return s_set_status(out, test, WH_TR_SKIPPED) ? -1 : 1;
        const char *rest = ne < end ? ne + 1 : end;
        while (rest < end && *rest == ' ')
            rest++;
        if ((size_t)(end - rest) >= 6 && memcmp(rest, "CRASH!", 6) == 0)
            return s_set_failed(out, test, strdup("crash"), strdup("The test crashed."),
                                strdup(""))
                       ? -1
                       : 1;
        /* The first "[----] file.c:12: ..." entry of the block is the first
         * failure; its message is the rest of that line unless it is the
         * generic "Assertion Failed", plus the "[----]   " lines after it. */
        const char *bl;
        size_t bn, bp = block;
        char *loc = NULL;
        wh_buf_t b = WH_BUF_INIT;
        int lines = 0;
        while (bp < here && s_next_line(console, here, &bp, &bl, &bn)) {
            if (!s_starts(bl, bn, mark))
                continue;
            const char *t = bl + sizeof mark - 1;
            size_t tn = bn - (sizeof mark - 1);
            char *l2 = NULL;
            size_t e = s_leading_location(t, tn, &l2);
            if (e) {
                if (loc) {
                    free(l2);
                    break;
                }
                loc = l2;
                if (e < tn && t[e] == ':')
                    e++;
                char *first = s_trim_dup(t + e, tn - e);
                if (first && *first && strcmp(first, "Assertion Failed") != 0) {
                    wh_buf_puts(&b, first);
                    lines++;
                }
                free(first);
                continue;
            }
            if (loc && lines < WH_FWU_MSG_MAX_LINES) {
                char *c = s_trim_dup(t, tn);
                if (c && *c) {
                    if (lines)
                        wh_buf_puts(&b, "\n");
                    wh_buf_puts(&b, c);
                    lines++;
                }
                free(c);
            }
        }
        char *msg = wh_buf_detach(&b);
        if (!msg)
            msg = strdup("");
        return s_set_failed(out, test, strdup("assert"), msg, loc ? loc : strdup("")) ? -1 : 1;
    }
    return 0;
}

static int s_read_criterion(const char *report_path, const char *console, size_t console_len,
                            const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                            char **err)
{
    (void)opts;
    xmlDocPtr doc;
    int rc =
        s_begin(report_path, s_criterion_console, console, console_len, test, out, &doc, err);
    if (!doc)
        return rc;
    xmlNodePtr tc = NULL;
    for (xmlNodePtr su = xmlDocGetRootElement(doc)->children; su && !tc; su = su->next) {
        if (!wh_fwu_is_elem(su, "testsuite"))
            continue;
        char *suite = wh_fwu_prop(su, "name");
        for (xmlNodePtr c = su->children; c && !tc; c = c->next) {
            if (!wh_fwu_is_elem(c, "testcase"))
                continue;
            char *name = wh_fwu_prop(c, "name");
            if (name && s_name_matches(test, name, strlen(name), suite))
                tc = c;
            free(name);
        }
        free(suite);
    }
    if (tc) {
        xmlNodePtr fail = wh_fwu_child(tc, "failure"), error = wh_fwu_child(tc, "error");
        char *status = wh_fwu_prop(tc, "status");
        if (error) {
            char *type = wh_fwu_prop(error, "type"), *msg = wh_fwu_prop(error, "message");
            int crash = type && strcmp(type, "crash") == 0;
            rc = s_set_failed(out, test, strdup(crash ? "crash" : type ? type : "error"),
                              msg ? msg : strdup(""), strdup(""));
            free(type);
        } else if (fail) {
            char *text = wh_fwu_xstr(xmlNodeGetContent(fail));
            rc = text ? s_criterion_failure(text, out, test) : WH_ENOMEM;
            free(text);
        } else if (wh_fwu_child(tc, "skipped") || (status && strcmp(status, "SKIPPED") == 0)) {
            rc = s_set_status(out, test, WH_TR_SKIPPED);
        } else if (status && (strcmp(status, "FAILED") == 0 || strcmp(status, "ERRORED") == 0)) {
            /* Failed without saying how (e.g. a nonzero exit of the test). */
            rc = s_set_failed(out, test, strdup(status[0] == 'F' ? "assert" : "error"),
                              strdup(""), strdup(""));
        } else {
            rc = s_set_status(out, test, WH_TR_PASSED);
        }
        free(status);
        if (rc)
            rc = wh_test_result_oom(out, err);
    }
    xmlFreeDoc(doc);
    return rc;
}

/* ---- unity ---- */

/* Scans Unity console text. 1 with *out filled when the target's line is
 * there, 0 when not (*summary says whether the run's summary line was),
 * -1 out of memory. */
static int s_unity_scan(const char *text, size_t len, const char *test, wh_test_result_t *out,
                        int *summary)
{
    const char *l;
    size_t n, pos = 0;
    *summary = 0;
    while (s_next_line(text, len, &pos, &l, &n)) {
        int a, b, c;
        char w1[16], w2[16], w3[16];
        if (n < 200) {
            char line[256];
            memcpy(line, l, n);
            line[n] = '\0';
            if (sscanf(line, "%d %15s %d %15s %d %15s", &a, w1, &b, w2, &c, w3) == 6 &&
                strcmp(w1, "Tests") == 0 && strcmp(w2, "Failures") == 0 &&
                strcmp(w3, "Ignored") == 0)
                *summary = 1;
        }
        char *loc = NULL;
        size_t e = s_leading_location(l, n, &loc);
        if (!e)
            continue;
        const char *nm = l + e + 1, *end = l + n;
        const char *ne = e < n && l[e] == ':' ? memchr(nm, ':', (size_t)(end - nm)) : NULL;
        if (!ne || !s_name_matches(test, nm, (size_t)(ne - nm), NULL)) {
            free(loc);
            continue;
        }
        const char *st = ne + 1;
        size_t sn = (size_t)(end - st);
        int rc;
        if (sn >= 4 && memcmp(st, "PASS", 4) == 0) {
            free(loc);
            rc = s_set_status(out, test, WH_TR_PASSED);
        } else if (sn >= 6 && memcmp(st, "IGNORE", 6) == 0) {
            free(loc);
            rc = s_set_status(out, test, WH_TR_SKIPPED);
        } else if (sn >= 4 && memcmp(st, "FAIL", 4) == 0) {
            const char *m = st + 4;
            if (m < end && *m == ':')
                m++;
            char *msg = s_trim_dup(m, (size_t)(end - m));
            if (msg && !*msg) {
                free(msg);
                msg = strdup("FAIL");
            }
            rc = s_set_failed(out, test, strdup("assert"), msg, loc);
        } else {
            free(loc);
            continue;
        }
        return rc ? -1 : 1;
    }
    return 0;
}

static int s_read_unity(const char *report_path, const char *console, size_t console_len,
                        const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                        char **err)
{
    (void)opts;
    wh_test_result_init(out, err);
    if (!test)
        return WH_EINVAL;
    int summary = 0;
    int f = console ? s_unity_scan(console, console_len, test, out, &summary) : 0;
    if (f == 0 && !summary && report_path && *report_path) {
        /* The run command may redirect Unity's output into {report}. */
        char *buf = NULL;
        size_t len = 0;
        if (wh_read_file(report_path, WH_FWU_REPORT_CAP, &buf, &len) == 0)
            f = s_unity_scan(buf, len, test, out, &summary);
        free(buf);
    }
    if (f < 0)
        return wh_test_result_oom(out, err);
    if (f == 0 && !summary) {
        /* Neither the target's line nor the summary: the runner died (a
         * crash in the target, or before it) or is not a Unity runner. */
        if (err)
            *err = strdup("no Unity summary line and no result for the test (did the runner die?)");
        return WH_EREPORT;
    }
    return 0;
}

static const char *const s_check_env[] = {"CK_XML_LOG_FILE_NAME={report}", NULL};
static const char *const s_no_env[] = {NULL};

/* Criterion filters on "suite/name" globs: "suite::name" becomes
 * "suite/name" and a bare "name" becomes "*\/name". */
#define S_CRITERION_SUFFIX                                                                 \
    "--filter=\"$(printf '%s' '{test}' | sed 's,::,/,;/\\//!s,^,*/,')\" --xml='{report}'"

static const wh_framework_t s_presets[] = {
    {"check", NULL, s_check_env, s_read_check, NULL, 0},
    {"cunit", NULL, s_no_env, s_read_cunit, NULL, 0},
    {"criterion", S_CRITERION_SUFFIX, s_no_env, s_read_criterion, NULL, 0},
    {"unity", NULL, s_no_env, s_read_unity, NULL, 0},
};

const wh_framework_t *wh_fw_xunit_presets(size_t *n)
{
    if (n)
        *n = sizeof s_presets / sizeof s_presets[0];
    return s_presets;
}
