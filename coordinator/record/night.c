/* One report for a batch of failures (night.h). */
#include "night.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "wh_common.h"

/* What one run folder says, for the page and the JSON. */
typedef struct {
    json_t *sum;    /* summary.json, or NULL */
    char *reduced;  /* reduced.<ext>, or NULL */
    char *diff;     /* reduced.diff, or NULL */
} s_folder_t;

static char *s_read(const char *dir, const char *name, size_t cap)
{
    char *p = wh_path_join(dir, name), *text = NULL;
    size_t len = 0;
    if (p && wh_read_file(p, cap, &text, &len) != 0)
        text = NULL;
    free(p);
    return text;
}

/* "reduced.c" for a test file "tests/t.c" (NULL: "reduced"). */
static void s_reduced_name(const char *file, char *name, size_t size)
{
    const char *slash = file ? strrchr(file, '/') : NULL, *dot = file ? strrchr(file, '.') : NULL;
    int ext = dot && (!slash || dot > slash) && strlen(dot) < 16;
    snprintf(name, size, "reduced%s", ext ? dot : "");
}

static void s_folder(const char *dir, const char *file, s_folder_t *f)
{
    memset(f, 0, sizeof *f);
    if (!dir)
        return;
    char *p = wh_path_join(dir, "summary.json");
    f->sum = p ? json_load_file(p, 0, NULL) : NULL;
    free(p);
    char name[64];
    s_reduced_name(file, name, sizeof name);
    f->reduced = s_read(dir, name, 1u << 20);
    f->diff = s_read(dir, "reduced.diff", 1u << 20);
}

static char *s_str_dup(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? strdup(v) : NULL;
}

/* The same from a run summary a peer sent (checked on receipt). */
static void s_folder_sent(const char *run, s_folder_t *f)
{
    memset(f, 0, sizeof *f);
    json_t *o = json_loads(run, 0, NULL);
    json_t *sum = json_object_get(o, "summary");
    f->sum = json_is_object(sum) ? json_incref(sum) : NULL;
    f->reduced = s_str_dup(o, "reduced");
    f->diff = s_str_dup(o, "diff");
    json_decref(o);
}

/* The caps of a run summary's parts, read from its folder: summary.json,
 * the reduced test, its diff (the whole is checked against
 * WH_NIGHT_RUN_MAX once written, escaping included). */
#define S_PART_MAX (256u << 10)

char *wh_night_run_json(const char *dir)
{
    char *sum_text = dir ? s_read(dir, "summary.json", S_PART_MAX) : NULL;
    json_t *sum = sum_text ? json_loads(sum_text, 0, NULL) : NULL;
    free(sum_text);
    if (!json_is_object(sum)) {
        json_decref(sum);
        return NULL;
    }
    const char *slash = strrchr(dir, '/');
    char name[64];
    s_reduced_name(json_string_value(json_object_get(sum, "file")), name, sizeof name);
    char *reduced = s_read(dir, name, S_PART_MAX), *diff = s_read(dir, "reduced.diff", S_PART_MAX);
    json_t *o = json_object();
    json_object_set_new(o, "run", json_string(slash && slash[1] ? slash + 1 : dir));
    json_object_set_new(o, "dir", json_string(dir));
    json_object_set_new(o, "summary", sum);
    json_object_set_new(o, "reduced", reduced ? json_string(reduced) : json_null());
    json_object_set_new(o, "diff", diff ? json_string(diff) : json_null());
    json_object_set_new(o, "cut", json_false());
    char *text = json_dumps(o, JSON_COMPACT);
    if (text && strlen(text) > WH_NIGHT_RUN_MAX) { /* the counts matter more than the text */
        free(text);
        json_object_set_new(o, "reduced", json_null());
        json_object_set_new(o, "diff", json_null());
        json_object_set_new(o, "cut", json_true());
        text = json_dumps(o, JSON_COMPACT);
        if (text && strlen(text) > WH_NIGHT_RUN_MAX) {
            free(text);
            text = NULL;
        }
    }
    json_decref(o);
    free(reduced);
    free(diff);
    return text;
}

/* One check of wh_night_run_check: field k of o is of the wanted type
 * (absent or null allowed when opt). */
static int s_want(const json_t *o, const char *k, int type, int opt, const char *where,
                  char **err)
{
    const json_t *v = json_object_get(o, k);
    if ((!v || json_is_null(v)) && opt)
        return 0;
    int ok = v && (type == JSON_INTEGER ? json_is_integer(v) && json_integer_value(v) >= 0
                   : type == JSON_TRUE  ? json_is_boolean(v)
                                        : json_typeof(v) == (json_type)type);
    if (ok && type == JSON_STRING && json_string_length(v) > S_PART_MAX)
        ok = 0;
    if (ok)
        return 0;
    static const char *const what[] = {[JSON_OBJECT] = "an object", [JSON_STRING] = "a string",
                                       [JSON_INTEGER] = "a whole number >= 0",
                                       [JSON_TRUE] = "true or false"};
    *err = wh_strdup_printf("the run summary is malformed: '%s%s' is not %s%s", where, k,
                            what[type], type == JSON_STRING ? " of at most 256 KiB" : "");
    return WH_EPROTO;
}

int wh_night_run_check(const char *text, size_t len, char **err)
{
    if (!text || len > WH_NIGHT_RUN_MAX) {
        *err = wh_strdup_printf("the run summary is %zu bytes (cap %u)", len,
                                (unsigned)WH_NIGHT_RUN_MAX);
        return WH_EPROTO;
    }
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        *err = o ? strdup("the run summary is malformed: not a JSON object")
                 : wh_strdup_printf("the run summary is malformed: %s (byte %d)", je.text,
                                    je.position);
        json_decref(o);
        return WH_EPROTO;
    }
    const json_t *sum = json_object_get(o, "summary"), *fp = json_object_get(sum, "fingerprint");
    int rc = s_want(o, "run", JSON_STRING, 0, "", err);
    rc = rc ? rc : s_want(o, "dir", JSON_STRING, 1, "", err);
    rc = rc ? rc : s_want(o, "summary", JSON_OBJECT, 0, "", err);
    rc = rc ? rc : s_want(o, "reduced", JSON_STRING, 1, "", err);
    rc = rc ? rc : s_want(o, "diff", JSON_STRING, 1, "", err);
    rc = rc ? rc : s_want(o, "cut", JSON_TRUE, 1, "", err);
    static const char *const counts[] = {"statements_before", "statements_after", "evaluated"};
    for (size_t k = 0; !rc && k < sizeof counts / sizeof *counts; k++)
        rc = s_want(sum, counts[k], JSON_INTEGER, 1, "summary.", err);
    /* partial: false, or why the walk stopped (record.c) */
    const json_t *pa = json_object_get(sum, "partial");
    if (!rc && pa && !json_is_false(pa) && !json_is_null(pa))
        rc = s_want(sum, "partial", JSON_STRING, 1, "summary.", err);
    rc = rc ? rc : s_want(sum, "verified", JSON_TRUE, 1, "summary.", err);
    rc = rc ? rc : s_want(sum, "fingerprint", JSON_OBJECT, 1, "summary.", err);
    static const char *const fpk[] = {"test", "kind", "message", "location"};
    for (size_t k = 0; !rc && fp && k < sizeof fpk / sizeof *fpk; k++)
        rc = s_want(fp, fpk[k], JSON_STRING, 1, "summary.fingerprint.", err);
    const char *run = json_string_value(json_object_get(o, "run"));
    if (!rc && (!*run || strchr(run, '/') || !strcmp(run, ".") || !strcmp(run, ".."))) {
        *err = strdup("the run summary is malformed: 'run' is not a folder name");
        rc = WH_EPROTO;
    }
    json_decref(o);
    return rc;
}

static void s_folder_free(s_folder_t *f)
{
    json_decref(f->sum);
    free(f->reduced);
    free(f->diff);
}

static long long s_int(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static json_t *s_str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Builds a row spent: its first run and its walk (0 when it had none). */
static long long s_builds(const wh_night_row_t *r, const s_folder_t *f)
{
    return r->first_builds + (f->sum ? s_int(f->sum, "evaluated") : 0);
}

static json_t *s_json(const wh_night_row_t *rows, size_t n, const wh_night_group_t *groups,
                      size_t ng, const s_folder_t *f)
{
    json_t *o = json_object(), *ga = json_array(), *ra = json_array();
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_object();
        json_object_set_new(r, "test", json_string(rows[i].test));
        json_object_set_new(r, "file", s_str_or_null(rows[i].file));
        json_object_set_new(r, "group", json_integer(rows[i].group));
        json_object_set_new(r, "state", json_string(rows[i].state));
        json_object_set_new(r, "why", s_str_or_null(rows[i].why));
        json_object_set_new(r, "run", s_str_or_null(rows[i].dir));
        json_object_set_new(r, "builds", json_integer(s_builds(&rows[i], &f[i])));
        total += s_builds(&rows[i], &f[i]);
        json_array_append_new(ra, r);
    }
    for (size_t g = 0; g < ng; g++) {
        json_t *o2 = json_object(), *mem = json_array();
        int rep = groups[g].rep;
        for (size_t i = 0; i < n; i++)
            if (rows[i].group == (int)g + 1)
                json_array_append_new(mem, json_string(rows[i].test));
        json_object_set_new(o2, "group", json_integer((json_int_t)g + 1));
        json_object_set_new(o2, "key", s_str_or_null(groups[g].key));
        json_object_set_new(o2, "members", mem);
        json_object_set_new(o2, "priority", groups[g].priority ? json_integer(groups[g].priority)
                                                                : json_null());
        json_object_set_new(o2, "new", !groups[g].priority ? json_null()
                                       : json_boolean(groups[g].first_seen == NULL));
        json_object_set_new(o2, "first_seen", s_str_or_null(groups[g].first_seen));
        json_object_set_new(o2, "representative",
                            rep >= 0 ? json_string(rows[rep].test) : json_null());
        json_object_set_new(o2, "state", rep >= 0 ? json_string(rows[rep].state) : json_null());
        json_object_set_new(o2, "run", rep >= 0 ? s_str_or_null(rows[rep].dir) : json_null());
        const json_t *sum = rep >= 0 ? f[rep].sum : NULL;
        json_object_set_new(o2, "statements_before",
                            sum ? json_integer(s_int(sum, "statements_before")) : json_null());
        json_object_set_new(o2, "statements_after",
                            sum ? json_integer(s_int(sum, "statements_after")) : json_null());
        json_object_set_new(o2, "reduced", rep >= 0 ? s_str_or_null(f[rep].reduced) : json_null());
        json_object_set_new(o2, "diff", rep >= 0 ? s_str_or_null(f[rep].diff) : json_null());
        json_array_append_new(ga, o2);
    }
    json_object_set_new(o, "failures", json_integer((json_int_t)n));
    json_object_set_new(o, "groups", ga);
    json_object_set_new(o, "tests", ra);
    json_object_set_new(o, "builds", json_integer(total));
    return o;
}

static const char s_css[] =
    "body{font:14px system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;"
    "background:#f6f8fa;margin:0}main{max-width:1100px;margin:0 auto;padding:24px}"
    "h1{font-size:22px;margin:0 0 4px}.sub{color:#59636e;margin:0 0 16px}"
    "section{background:#fff;border:1px solid #d1d9e0;border-radius:8px;padding:14px 16px;"
    "margin:0 0 14px}h2{font-size:16px;margin:0 0 8px}.mono,pre{font-family:ui-monospace,"
    "SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}pre{background:#f6f8fa;"
    "padding:8px 10px;border-radius:6px;overflow:auto}table{border-collapse:collapse;width:100%}"
    "td,th{border-bottom:1px solid #d1d9e0;padding:4px 8px;text-align:left;vertical-align:top}"
    ".st{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;color:#fff}"
    ".reduced{background:#1a7f37}.answered{background:#0969da}.partial{background:#d4760a}"
    ".failed{background:#cf222e}.unverified{background:#9a6700}.skipped{background:#8c959f}"
    ".key{color:#59636e}"
    ".add{background:#dafbe1}.del{background:#ffebe9}.hunk{background:#ddf4ff}";

static void s_diff(wh_buf_t *b, const char *diff)
{
    wh_buf_puts(b, "<pre class=\"diff\">");
    for (const char *p = diff; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *cls = *p == '@' ? "hunk" : *p == '+' && strncmp(p, "+++", 3) ? "add"
                        : *p == '-' && strncmp(p, "---", 3)               ? "del" : NULL;
        char *line = strndup(p, len);
        if (cls)
            wh_buf_printf(b, "<span class=\"%s\">", cls);
        wh_report_esc(b, line);
        wh_buf_puts(b, cls ? "</span>\n" : "\n");
        free(line);
        p = e ? e + 1 : p + len;
    }
    wh_buf_puts(b, "</pre>\n");
}

/* The test's function in a reduced file: from the line that names it
 * with a '(' to the first line that is "}" alone (C's usual layout), or
 * NULL when it cannot be told (the page then shows the whole file). */
static char *s_function(const char *text, const char *test)
{
    const char *bare = strrchr(test, '.');
    bare = bare ? bare + 1 : test;
    size_t bl = strlen(bare);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *hit = strstr(line, bare);
        int named = hit && (!nl || hit < nl) && hit[bl] == '(' &&
                    (hit == line || hit[-1] == ' ' || hit[-1] == '*');
        char last = nl ? (nl > line ? nl[-1] : '\0') : line[strlen(line) - 1];
        if (named && last != ';') { /* a definition, not a declaration or a call */
            const char *end = strstr(line, "\n}\n");
            return end ? strndup(line, (size_t)(end - line) + 3) : NULL;
        }
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

static char *s_html(const wh_night_row_t *rows, size_t n, const wh_night_group_t *groups,
                    size_t ng, const s_folder_t *f)
{
    wh_buf_t b = WH_BUF_INIT;
    long long total = 0;
    int reductions = 0;
    for (size_t i = 0; i < n; i++) {
        total += s_builds(&rows[i], &f[i]);
        reductions += rows[i].dir != NULL;
    }
    wh_buf_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                      "<title>whittle: %zu failures, %zu groups</title><style>%s</style></head>"
                      "<body><main>\n<h1 id=\"title\">whittle: %zu failing tests, %zu root "
                      "cause%s</h1>\n<p class=\"sub\" id=\"counts\">%d reduction%s, %lld builds "
                      "in all</p>\n", n, ng, s_css, n, ng, ng == 1 ? "" : "s", reductions,
                  reductions == 1 ? "" : "s", total);
    for (size_t g = 0; g < ng; g++) {
        int rep = groups[g].rep;
        wh_buf_printf(&b, "<section class=\"group\" id=\"group-%zu\"><h2>Group %zu", g + 1, g + 1);
        if (rep >= 0) {
            wh_buf_puts(&b, ": <span class=\"mono\">");
            wh_report_esc(&b, rows[rep].test);
            wh_buf_printf(&b, "</span> <span class=\"st %s\">%s</span>", rows[rep].state,
                          rows[rep].state);
            if (f[rep].sum)
                wh_buf_printf(&b, " %lld &rarr; %lld statements",
                              s_int(f[rep].sum, "statements_before"),
                              s_int(f[rep].sum, "statements_after"));
        }
        if (groups[g].priority)
            wh_buf_printf(&b, " <span class=\"key\" id=\"priority-%zu\">priority %d, %s%s</span>",
                          g + 1, groups[g].priority, groups[g].first_seen ? "first seen " : "new",
                          groups[g].first_seen ? groups[g].first_seen : "");
        wh_buf_puts(&b, "</h2>\n<p class=\"key mono\">");
        wh_report_esc(&b, groups[g].key ? groups[g].key : "(no fingerprint)");
        wh_buf_puts(&b, "</p>\n<table><tr><th>test</th><th>state</th><th>builds</th>"
                        "<th></th></tr>\n");
        for (size_t i = 0; i < n; i++) {
            if (rows[i].group != (int)g + 1)
                continue;
            wh_buf_puts(&b, "<tr><td class=\"mono\">");
            wh_report_esc(&b, rows[i].test);
            wh_buf_printf(&b, "</td><td><span class=\"st %s\">%s</span></td><td>%lld</td><td>",
                          rows[i].state, rows[i].state, s_builds(&rows[i], &f[i]));
            if (rows[i].why)
                wh_report_esc(&b, rows[i].why);
            else if (rows[i].dir && rows[i].run) {
                wh_buf_puts(&b, "its run folder on the coordinator: <span class=\"mono\">");
                wh_report_esc(&b, rows[i].dir);
                wh_buf_puts(&b, "</span>");
            } else if (rows[i].dir) {
                char *rel = strrchr(rows[i].dir, '/');
                wh_buf_puts(&b, "<a href=\"");
                wh_report_esc(&b, rel ? rel + 1 : rows[i].dir);
                wh_buf_puts(&b, "/report.html\">its report</a>");
            }
            wh_buf_puts(&b, "</td></tr>\n");
        }
        wh_buf_puts(&b, "</table>\n");
        if (rep >= 0 && f[rep].reduced) {
            char *fn = s_function(f[rep].reduced, rows[rep].test);
            wh_buf_puts(&b, "<h3>Reduced test</h3><pre class=\"code\">");
            wh_report_esc(&b, fn ? fn : f[rep].reduced);
            wh_buf_puts(&b, "</pre>\n");
            free(fn);
        }
        if (rep >= 0 && f[rep].diff && *f[rep].diff) {
            wh_buf_puts(&b, "<h3>Diff (patch -p1 in the project)</h3>\n");
            s_diff(&b, f[rep].diff);
        }
        wh_buf_puts(&b, "</section>\n");
    }
    int skipped = 0;
    for (size_t i = 0; i < n; i++)
        skipped += rows[i].group == 0;
    if (skipped) {
        wh_buf_puts(&b, "<section id=\"skipped\"><h2>Skipped</h2><table>\n");
        for (size_t i = 0; i < n; i++) {
            if (rows[i].group)
                continue;
            wh_buf_puts(&b, "<tr><td class=\"mono\">");
            wh_report_esc(&b, rows[i].test);
            wh_buf_puts(&b, "</td><td><span class=\"st skipped\">skipped</span></td><td>");
            wh_report_esc(&b, rows[i].why ? rows[i].why : "");
            wh_buf_puts(&b, "</td></tr>\n");
        }
        wh_buf_puts(&b, "</table></section>\n");
    }
    wh_buf_puts(&b, "</main></body></html>\n");
    return wh_buf_detach(&b);
}

int wh_night_write(const char *out, const wh_night_row_t *rows, size_t n,
                   const wh_night_group_t *groups, size_t ngroups, char **err)
{
    s_folder_t *f = calloc(n ? n : 1, sizeof *f);
    if (!f)
        return WH_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].run)
            s_folder_sent(rows[i].run, &f[i]);
        else
            s_folder(rows[i].dir, rows[i].file, &f[i]);
    }
    json_t *js = s_json(rows, n, groups, ngroups, f);
    char *jtext = js ? json_dumps(js, JSON_INDENT(2)) : NULL;
    char *html = s_html(rows, n, groups, ngroups, f);
    char *jp = wh_path_join(out, "night.json"), *hp = wh_path_join(out, "night.html");
    int rc = !jtext || !html || !jp || !hp ? WH_ENOMEM : 0;
    if (!rc)
        rc = wh_write_file(jp, jtext, strlen(jtext));
    if (!rc)
        rc = wh_write_file(hp, html, strlen(html));
    if (rc)
        *err = wh_strdup_printf("cannot write %s: %s", hp ? hp : out, wh_strerror(rc));
    for (size_t i = 0; !rc && i < n; i++) {
        char *e = NULL;
        if (rows[i].dir && !rows[i].run && wh_report_write(rows[i].dir, &e) != 0)
            free(e); /* its page stays as it was, without the link */
    }
    json_decref(js);
    free(jtext), free(html), free(jp), free(hp);
    for (size_t i = 0; i < n; i++)
        s_folder_free(&f[i]);
    free(f);
    return rc;
}
