/*
 * report — report.html from a run folder. See report.h.
 */
#define _GNU_SOURCE
#include "report.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "wh_common.h"

/* Caps on what is read from the folder: a page must stay a page. */
#define S_CAP_CSV (32u << 20)
#define S_CAP_DIFF (4u << 20)
#define S_CAP_LOG (8u << 20)
#define S_MAX_ROWS 200000

/* One row of candidates.csv or of judged.csv (eval and kind set). */
typedef struct {
    int id, sweep, level, kept, total, cached, predicted;
    char verdict[24];
    char node[96];
    char kind[16];
    uint64_t eval, ms, build_ms, test_ms, end_ms;
} s_row_t;

typedef struct {
    const char *dir;
    json_t *sum;      /* summary.json, or NULL: the run did not finish */
    json_t *tree;     /* tree.json, or NULL */
    s_row_t *rows;    /* candidates.csv */
    int nrows;
    s_row_t *marks;   /* the timeline's: judged.csv and the cached and predicted
                         candidates; without judged.csv, the candidates */
    int nmarks;
    int judged;       /* the marks come from judged.csv */
    char *diff;       /* reduced.diff, else partial.diff, or NULL */
    int partial;      /* diff is partial.diff: the run stopped part-way */
    json_t *job;      /* job.json, or NULL: names the test of a run that did
                         not get to write tree.json */
    char *log;        /* run.log, or NULL */
} s_run_t;

/* ---- escaping and small writers ---- */

static void s_esc_n(wh_buf_t *b, const char *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        switch (s[i]) {
        case '&': wh_buf_puts(b, "&amp;"); break;
        case '<': wh_buf_puts(b, "&lt;"); break;
        case '>': wh_buf_puts(b, "&gt;"); break;
        case '"': wh_buf_puts(b, "&quot;"); break;
        case '\'': wh_buf_puts(b, "&#39;"); break;
        case '\0': break;
        default: wh_buf_append(b, &s[i], 1);
        }
    }
}

static void s_esc(wh_buf_t *b, const char *s)
{
    if (s)
        s_esc_n(b, s, strlen(s));
}

void wh_report_esc(wh_buf_t *b, const char *s)
{
    s_esc(b, s);
}

static const char *s_jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long s_jint(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* A CSS class for a verdict name ("v-Preserved"); names are ours, but a
 * folder is outside input: anything else is "v-other". */
static const char *s_vclass(const char *v)
{
    static const char *const known[] = {"Preserved", "TestPassed", "DifferentFailure",
                                        "BuildFailed", "TestMissing", "InfraError",
                                        "UBGuard"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(v, known[i]))
            return known[i];
    /* the original's run failed with the fingerprint: the same colour */
    return !strcmp(v, "fingerprinted") ? "Preserved" : "other";
}

/* ---- reading the folder ---- */

static char *s_read(const char *dir, const char *name, size_t cap)
{
    char *p = wh_path_join(dir, name), *data = NULL;
    size_t len = 0;
    if (!p || wh_read_file(p, cap, &data, &len) != 0)
        data = NULL;
    free(p);
    return data;
}

static json_t *s_read_json(const char *dir, const char *name)
{
    char *p = wh_path_join(dir, name);
    json_t *j = p ? json_load_file(p, 0, NULL) : NULL;
    free(p);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Splits one CSV line in place: fields by ',', a field in quotes may hold
 * commas and doubled quotes. Returns the field count (at most max). */
static int s_csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        if (*p == '"') {
            char *w = ++p; /* w stays behind p: the quotes dropped */
            f[n++] = w;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                *w++ = *p++;
            }
            if (*p == '"')
                p++;
            char c = *p;
            *w = '\0';
            if (c != ',')
                break;
            p++;
            continue;
        }
        f[n++] = p;
        p += strcspn(p, ",");
        if (*p != ',')
            break;
        *p++ = '\0';
    }
    return n;
}

enum { C_ID, C_SWEEP, C_LEVEL, C_KEPT, C_TOTAL, C_VERDICT, C_CACHED, C_NODE, C_MS, C_PRED,
       C_BUILD, C_TEST, C_END, C_EVAL, C_KIND, C_SLOT, C_N };

/* The column of each field by header name (-1: absent): columns may be
 * added to the file without breaking the page. */
static void s_csv_columns(char *header, int *col)
{
    static const char *const names[C_N] = {"candidate", "sweep", "level", "kept", "total",
                                           "verdict", "cached", "node", "ms", "predicted",
                                           "build_ms", "test_ms", "end_ms", "eval", "kind",
                                           "slot"};
    char *f[64];
    int n = s_csv_split(header, f, 64);
    for (int c = 0; c < C_N; c++) {
        col[c] = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(f[i], names[c]))
                col[c] = i;
    }
}

static const char *s_field(char **f, int nf, const int *col, int c)
{
    return col[c] >= 0 && col[c] < nf ? f[col[c]] : "";
}

static void s_row_parse(s_row_t *r, char **f, int nf, const int *col)
{
    r->id = atoi(s_field(f, nf, col, C_ID));
    r->sweep = atoi(s_field(f, nf, col, C_SWEEP));
    r->level = atoi(s_field(f, nf, col, C_LEVEL));
    r->kept = atoi(s_field(f, nf, col, C_KEPT));
    r->total = atoi(s_field(f, nf, col, C_TOTAL));
    r->cached = atoi(s_field(f, nf, col, C_CACHED));
    r->predicted = atoi(s_field(f, nf, col, C_PRED));
    snprintf(r->verdict, sizeof r->verdict, "%s", s_field(f, nf, col, C_VERDICT));
    snprintf(r->node, sizeof r->node, "%s",
             col[C_NODE] >= 0 ? s_field(f, nf, col, C_NODE) : s_field(f, nf, col, C_SLOT));
    snprintf(r->kind, sizeof r->kind, "%s", s_field(f, nf, col, C_KIND));
    r->eval = strtoull(s_field(f, nf, col, C_EVAL), NULL, 10);
    r->ms = strtoull(s_field(f, nf, col, C_MS), NULL, 10);
    r->build_ms = strtoull(s_field(f, nf, col, C_BUILD), NULL, 10);
    r->test_ms = strtoull(s_field(f, nf, col, C_TEST), NULL, 10);
    r->end_ms = strtoull(s_field(f, nf, col, C_END), NULL, 10);
}

/* The rows of CSV file name (columns by header name); *n gets the count. */
static s_row_t *s_read_rows(const char *dir, const char *name, int *n)
{
    s_row_t *rows = NULL;
    *n = 0;
    char *csv = s_read(dir, name, S_CAP_CSV);
    if (!csv)
        return NULL;
    int col[C_N], cap = 0;
    char *save = NULL;
    char *line = strtok_r(csv, "\n", &save);
    if (line)
        s_csv_columns(line, col);
    while (line && (line = strtok_r(NULL, "\n", &save)) && *n < S_MAX_ROWS) {
        char *f[64];
        int nf = s_csv_split(line, f, 64);
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            s_row_t *nr = realloc(rows, (size_t)cap * sizeof *nr);
            if (!nr)
                break;
            rows = nr;
        }
        s_row_parse(&rows[(*n)++], f, nf, col);
    }
    free(csv);
    return rows;
}

/* The timeline's marks: every answer of a slot (judged.csv) and the
 * candidates no slot judged (cached, predicted); the candidates alone for
 * a folder without judged.csv. */
static void s_read_marks(s_run_t *run)
{
    int nj = 0;
    s_row_t *j = s_read_rows(run->dir, "judged.csv", &nj);
    if (!j) {
        run->marks = run->nrows ? malloc((size_t)run->nrows * sizeof *run->marks) : NULL;
        if (run->marks)
            memcpy(run->marks, run->rows, (size_t)run->nrows * sizeof *run->marks);
        run->nmarks = run->marks ? run->nrows : 0;
        return;
    }
    s_row_t *m = realloc(j, ((size_t)nj + (size_t)run->nrows + 1) * sizeof *m);
    if (!m) {
        free(j);
        return;
    }
    for (int i = 0; i < run->nrows; i++)
        if (run->rows[i].cached || run->rows[i].predicted)
            m[nj++] = run->rows[i];
    run->marks = m;
    run->nmarks = nj;
    run->judged = 1;
}

static void s_run_free(s_run_t *run)
{
    json_decref(run->sum);
    json_decref(run->tree);
    json_decref(run->job);
    free(run->rows);
    free(run->marks);
    free(run->diff);
    free(run->log);
}

/* ---- page sections ---- */

static const char s_css[] =
    ":root{--fg:#1f2328;--mute:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--card:#fff;"
    "--pres:#1a7f37;--pass:#8c959f;--diff:#8250df;--bf:#d4760a;--miss:#bf3989;--infra:#24292f;"
    "--build:#9cc3f5;--add:#dafbe1;--del:#ffebe9;--hunk:#ddf4ff}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:14px/1.5 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
    "color:var(--fg);background:var(--bg)}"
    "main{max-width:1200px;margin:0 auto;padding:24px 28px 48px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:0 0 12px}"
    "code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',"
    "monospace;font-size:12.5px}"
    ".sub{color:var(--mute);margin:0 0 14px;word-break:break-all}"
    ".pills{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 18px}"
    ".pill{border-radius:999px;padding:3px 12px;background:#fff;border:1px solid var(--line);"
    "font-weight:600}"
    ".ok{color:var(--pres);border-color:#4ac26b}.bad{color:#cf222e;border-color:#ff8182}"
    ".warn{color:#9a6700;border-color:#d4a72c}"
    "section{background:var(--card);border:1px solid var(--line);border-radius:10px;"
    "padding:16px 18px;margin:0 0 18px}"
    ".measures{display:grid;grid-template-columns:repeat(6,1fr);gap:10px}"
    ".m{border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:var(--bg)}"
    ".m .v{font-size:24px;font-weight:700}.m .n{font-weight:700;color:var(--mute)}"
    ".m .d{font-size:12px;color:var(--mute)}"
    ".grid2{display:grid;grid-template-columns:1fr 1fr;gap:18px;margin:0 0 18px}"
    "h1 .mono{font-size:19px}"
    ".grid2 section{margin:0}"
    "table.kv{border-collapse:collapse;width:100%}"
    "table.kv th{text-align:left;color:var(--mute);font-weight:600;padding:3px 12px 3px 0;"
    "vertical-align:top;white-space:nowrap}table.kv td{padding:3px 0;word-break:break-word}"
    ".vbar{display:flex;height:12px;border-radius:6px;overflow:hidden;margin:8px 0 6px}"
    ".legend{display:flex;flex-wrap:wrap;gap:12px;font-size:12px;color:var(--mute)}"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;"
    "vertical-align:-1px}"
    ".Preserved{background:var(--pres)}.TestPassed{background:var(--pass)}"
    ".DifferentFailure{background:var(--diff)}.BuildFailed{background:var(--bf)}"
    ".TestMissing{background:var(--miss)}.InfraError,.other{background:var(--infra)}"
    ".UBGuard{background:var(--diff);opacity:.6}"
    ".buildsw{background:var(--build)}"
    "svg .Preserved{fill:var(--pres)}svg .TestPassed{fill:var(--pass)}"
    "svg .DifferentFailure{fill:var(--diff)}svg .BuildFailed{fill:var(--bf)}"
    "svg .TestMissing{fill:var(--miss)}svg .InfraError,svg .other{fill:var(--infra)}"
    "svg .UBGuard{fill:var(--diff);opacity:.6}"
    "svg path{stroke:#fff;stroke-width:1}"
    "svg g.run rect{stroke:#24292f;stroke-width:1.5}"
    "table.diff{border-collapse:collapse;width:100%;font-family:ui-monospace,Menlo,Consolas,"
    "'DejaVu Sans Mono',monospace;font-size:12.5px}"
    "table.diff td{padding:0 8px;white-space:pre-wrap;word-break:break-all}"
    "table.diff td.ln{color:var(--mute);text-align:right;width:42px;user-select:none;"
    "white-space:nowrap}"
    "tr.add td{background:var(--add)}tr.del td{background:var(--del)}"
    "tr.hunk td{background:var(--hunk);color:var(--mute)}tr.meta td{color:var(--mute);"
    "font-weight:600}"
    "ol.tree{list-style:none;margin:0;padding:0}"
    "ol.tree li{display:flex;align-items:baseline;gap:8px;padding:3px 6px;border-radius:6px}"
    "ol.tree li:nth-child(odd){background:var(--bg)}"
    "ol.tree .ln{color:var(--mute);width:48px;flex:none;text-align:right}"
    "ol.tree .k{flex:none;font-size:11px;border:1px solid var(--line);border-radius:4px;"
    "padding:0 5px;color:var(--mute)}ol.tree .k.t{border-color:#8250df;color:#8250df}"
    "ol.tree code{flex:1;white-space:pre-wrap;word-break:break-word}"
    "ol.tree li.removed code{text-decoration:line-through;color:var(--mute)}"
    "ol.tree li.kept code{font-weight:700}"
    ".badge{flex:none;font-size:11.5px;border-radius:999px;padding:0 8px;color:#fff;"
    "background:var(--mute)}.badge.keep{background:var(--pres)}"
    "svg text{font:11px system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
    "fill:#59636e}svg .lane{fill:#f6f8fa}svg .grid{stroke:#d1d9e0}"
    "pre.log{background:var(--bg);padding:10px;border-radius:6px;overflow:auto;max-height:420px}"
    "footer{color:var(--mute);font-size:12px;text-align:center}";

/* Sweep colours for the tree's badges (cycled). */
static const char *const s_sweep_colour[] = {"#0969da", "#8250df", "#bf3989", "#d4760a",
                                             "#1a7f37", "#57606a"};

static void s_head(wh_buf_t *b, const s_run_t *run)
{
    const char *test = run->sum ? s_jstr(run->sum, "test") : s_jstr(run->tree, "test");
    if (!*test)
        test = s_jstr(run->job, "test");
    wh_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                   "<title>whittle: ");
    s_esc(b, *test ? test : "run");
    wh_buf_printf(b, "</title><style>%s</style></head><body><main>\n", s_css);
    wh_buf_puts(b, "<h1>whittle: <span class=\"mono\" id=\"test\">");
    s_esc(b, *test ? test : "(unknown test)");
    wh_buf_puts(b, "</span></h1>\n<p class=\"sub\">");
    if (run->sum) {
        s_esc(b, s_jstr(run->sum, "file"));
        wh_buf_puts(b, " in ");
        s_esc(b, s_jstr(run->sum, "project"));
        wh_buf_puts(b, " &middot; ");
        s_esc(b, s_jstr(run->sum, "algorithm"));
        wh_buf_puts(b, " (ddmin ");
        s_esc(b, s_jstr(run->sum, "ddmin"));
        wh_buf_puts(b, ") &middot; job ");
        s_esc(b, s_jstr(run->sum, "job_id"));
    }
    wh_buf_puts(b, "<br>run folder ");
    s_esc(b, run->dir);
    /* one of a batch's runs (reduce --from-ctest/--from-junit): night.h */
    char *night = wh_path_join(run->dir, "../night.html");
    if (night && access(night, R_OK) == 0)
        wh_buf_puts(b, "<br><a id=\"night\" href=\"../night.html\">the batch's report "
                       "(night.html): every failure, its group and answer</a>");
    free(night);
    wh_buf_puts(b, "</p>\n");
}

/* A partial answer (--budget spent): said first, in its own colour. */
static void s_partial_pill(wh_buf_t *b, const json_t *sum)
{
    wh_buf_printf(b, "<span class=\"pill warn\" id=\"partial-pill\">partial: ");
    s_esc(b, json_string_value(json_object_get(sum, "partial")));
    wh_buf_printf(b, "</span>");
}

/* The fault check in one word and its pill class. */
static void s_fault_pill(wh_buf_t *b, const json_t *sum)
{
    const json_t *f = json_object_get(sum, "fault");
    const char *st = f ? s_jstr(f, "status") : NULL;
    if (!st)
        wh_buf_puts(b, "<span class=\"pill warn\" id=\"fault-pill\">fault not checked</span>");
    else if (!strcmp(st, "kept"))
        wh_buf_puts(b, "<span class=\"pill ok\" id=\"fault-pill\">fault kept</span>");
    else if (!strcmp(st, "lost"))
        wh_buf_puts(b, "<span class=\"pill bad\" id=\"fault-pill\">FAULT LOST</span>");
    else
        wh_buf_puts(b, "<span class=\"pill warn\" id=\"fault-pill\">fault check undecided</span>");
}

static int s_lanes(const s_run_t *run, const char ***out);

/* Slots that answered something in this run (the timeline's lanes). */
static int s_slots_used(const s_run_t *run)
{
    const char **l = NULL;
    int nl = s_lanes(run, &l), n = 0;
    for (int k = 0; k < nl; k++)
        n += strcmp(l[k], "cache") && strcmp(l[k], "precheck");
    free(l);
    return n;
}

static void s_pills(wh_buf_t *b, const s_run_t *run)
{
    const json_t *s = run->sum;
    wh_buf_puts(b, "<div class=\"pills\">");
    if (!s) {
        wh_buf_printf(b, "<span class=\"pill bad\" id=\"status\">did not finish</span>"
                         "<span class=\"pill\">%d candidates recorded</span></div>\n",
                      run->nrows);
        return;
    }
    wh_buf_printf(b, "<span class=\"pill ok\" id=\"status\">%lld &rarr; %lld statements</span>",
                  s_jint(s, "statements_before"), s_jint(s, "statements_after"));
    /* Verified by the node that judged every candidate: its word twice. */
    int lone = json_is_true(json_object_get(s, "verified")) &&
               json_is_false(json_object_get(s, "second_opinion"));
    int unverified = json_is_string(json_object_get(s, "not_verified"));
    wh_buf_printf(b, "<span class=\"pill %s\" id=\"verified-pill\">%s</span>",
                  json_is_true(json_object_get(s, "verified")) && !lone ? "ok" : "warn",
                  unverified ? "not verified: the only node that judged verified it too"
                  : lone ? "verified afresh by the only node that judged: no second opinion"
                  : json_is_true(json_object_get(s, "verified")) ? "verified afresh"
                                                                 : "not verified afresh");
    if (json_is_string(json_object_get(s, "partial")))
        s_partial_pill(b, s);
    s_fault_pill(b, s);
    wh_buf_printf(b, "<span class=\"pill\">%lld candidates: %lld built, %lld cached, %lld "
                     "predicted</span>", s_jint(s, "candidates"), s_jint(s, "evaluated"),
                  s_jint(s, "cached"), s_jint(s, "predicted"));
    wh_buf_printf(b, "<span class=\"pill\">%lld sweeps, %lld rounds</span>", s_jint(s, "sweeps"),
                  s_jint(s, "rounds"));
    int n = s_slots_used(run);
    wh_buf_printf(b, "<span class=\"pill\" id=\"wall\">%.1f s, %d slot%s judged</span></div>\n",
                  (double)s_jint(s, "wall_ms") / 1000.0, n, n == 1 ? "" : "s");
}

/* The six measures of the thesis, section 5.6. */
static void s_measures(wh_buf_t *b, const json_t *s)
{
    static const struct {
        const char *key, *what;
        int pct;
    } m[] = {
        {"ARS", "statements removed", 0},
        {"PRS", "of all statements removed", 1},
        {"ATRS", "Tree statements removed", 0},
        {"PTRS", "of all statements: Tree, removed", 1},
        {"ANTRS", "NonTree statements removed", 0},
        {"PNTRS", "of all statements: NonTree, removed", 1},
    };
    wh_buf_puts(b, "<section id=\"measures\"><h2>Reduction measures (thesis, section 5.6)</h2>"
                   "<div class=\"measures\">");
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        const json_t *v = json_object_get(s, m[i].key);
        wh_buf_printf(b, "<div class=\"m\"><div class=\"n\">%s</div><div class=\"v\" id=\"m-%s\">",
                      m[i].key, m[i].key);
        if (m[i].pct && json_is_number(v))
            wh_buf_printf(b, "%.1f%%", json_number_value(v));
        else if (json_is_integer(v))
            wh_buf_printf(b, "%lld", (long long)json_integer_value(v));
        else
            wh_buf_puts(b, "&ndash;");
        wh_buf_printf(b, "</div><div class=\"d\">%s</div></div>", m[i].what);
    }
    wh_buf_printf(b, "</div><p class=\"sub\" style=\"margin:10px 0 0\">Statements %lld &rarr; "
                     "%lld: Tree %lld &rarr; %lld, NonTree %lld &rarr; %lld.</p></section>\n",
                  s_jint(s, "statements_before"), s_jint(s, "statements_after"),
                  s_jint(s, "tree_before"), s_jint(s, "tree_after"), s_jint(s, "nontree_before"),
                  s_jint(s, "nontree_after"));
}

static void s_kv(wh_buf_t *b, const char *id, const char *k, const char *v)
{
    wh_buf_printf(b, "<tr><th>%s</th><td class=\"mono\" id=\"%s\">", k, id);
    s_esc(b, v && *v ? v : "-");
    wh_buf_puts(b, "</td></tr>");
}

/* The fingerprint and the fault-kept check, side by side. */
static void s_identity(wh_buf_t *b, const json_t *s)
{
    const json_t *fp = json_object_get(s, "fingerprint"), *f = json_object_get(s, "fault");
    wh_buf_puts(b, "<div class=\"grid2\"><section id=\"fingerprint\"><h2>Fingerprint</h2>"
                   "<table class=\"kv\">");
    s_kv(b, "fp-test", "test", s_jstr(fp, "test"));
    s_kv(b, "fp-kind", "kind", s_jstr(fp, "kind"));
    s_kv(b, "fp-message", "message", s_jstr(fp, "message"));
    s_kv(b, "fp-location", "location", s_jstr(fp, "location"));
    wh_buf_puts(b, "</table></section>\n<section id=\"fault\"><h2>Fault-kept check</h2>"
                   "<table class=\"kv\">");
    const char *st = f ? s_jstr(f, "status") : NULL;
    /* --reference auto: what it picked (and why), or why none. */
    const json_t *a = json_object_get(s, "reference_auto");
    const char *dropped = json_string_value(json_object_get(a, "dropped"));
    char *none = a && !f && !dropped ? wh_strdup_printf("reference: none (%s)", s_jstr(a, "why"))
                                     : NULL;
    char *unchecked = f ? NULL : wh_record_unchecked_line(dropped ? dropped : none);
    s_kv(b, "fault-line", "result",
         f ? wh_record_fault_line(st, json_is_true(json_object_get(f, "keep_fault")))
           : unchecked ? unchecked : "fault not checked");
    free(unchecked);
    free(none);
    if (a) {
        const char *picked = json_string_value(json_object_get(a, "picked"));
        char *v = wh_strdup_printf("%s (%s)", picked ? picked : "none", s_jstr(a, "why"));
        s_kv(b, "fault-auto", "--reference auto", v ? v : "");
        free(v);
    }
    if (f) {
        s_kv(b, "fault-ref", "reference", s_jstr(f, "reference"));
        s_kv(b, "fault-on-ref", "on the reference", s_jstr(f, "on_reference"));
        s_kv(b, "fault-keep", "keep-fault",
             json_is_true(json_object_get(f, "keep_fault")) ? "yes: the walk refuses a removal "
                                                              "that loses the fault"
                                                            : "no (--no-keep-fault)");
    }
    char v[160];
    snprintf(v, sizeof v, "%s (%lld verify run%s, %lld verdict%s dropped as wrong)",
             json_is_true(json_object_get(s, "verified")) ? "yes, built and run afresh" : "no",
             s_jint(s, "verify_runs"), s_jint(s, "verify_runs") == 1 ? "" : "s",
             s_jint(s, "verdicts_dropped"), s_jint(s, "verdicts_dropped") == 1 ? "" : "s");
    s_kv(b, "verified", "verified", v);
    const char *nv = s_jstr(s, "not_verified");
    if (nv && *nv)
        s_kv(b, "not-verified", "not verified", nv);
    const char *by = s_jstr(s, "verified_by");
    if (by && *by) {
        char w[320];
        snprintf(w, sizeof w, "%s%s", by,
                 json_is_false(json_object_get(s, "second_opinion"))
                     ? " (its node judged every candidate built in this run: no second opinion)"
                     : "");
        s_kv(b, "verified-by", "verified by", w);
    }
    wh_buf_puts(b, "</table></section></div>\n");
}

/* The verdicts as one stacked bar with a legend. */
static void s_verdicts(wh_buf_t *b, const json_t *s)
{
    const json_t *vs = json_object_get(s, "verdicts");
    long long total = 0;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)vs, k, v) total += json_integer_value(v);
    wh_buf_puts(b, "<section id=\"verdicts\"><h2>Verdicts</h2><div class=\"vbar\">");
    json_object_foreach((json_t *)vs, k, v) {
        if (json_integer_value(v) > 0 && total > 0)
            wh_buf_printf(b, "<div class=\"%s\" style=\"width:%.2f%%\"></div>", s_vclass(k),
                          100.0 * (double)json_integer_value(v) / (double)total);
    }
    wh_buf_puts(b, "</div><div class=\"legend\">");
    json_object_foreach((json_t *)vs, k, v) {
        wh_buf_printf(b, "<span><span class=\"sw %s\"></span>", s_vclass(k));
        s_esc(b, k);
        wh_buf_printf(b, " <b id=\"v-%s\">%lld</b></span>", s_vclass(k),
                      (long long)json_integer_value(v));
    }
    wh_buf_puts(b, "</div></section>\n");
}

/* ---- the diff ---- */

static void s_diff_row(wh_buf_t *b, const char *cls, long o, long n, const char *s, size_t len)
{
    wh_buf_printf(b, "<tr class=\"%s\"><td class=\"ln\">", cls);
    if (o > 0)
        wh_buf_printf(b, "%ld", o);
    wh_buf_puts(b, "</td><td class=\"ln\">");
    if (n > 0)
        wh_buf_printf(b, "%ld", n);
    wh_buf_puts(b, "</td><td>");
    s_esc_n(b, s, len);
    wh_buf_puts(b, "</td></tr>\n");
}

/* Accepted candidates that removed something that stayed removed, from
 * tree.json's removed_by. */
static int s_accepted(const s_run_t *run)
{
    const json_t *units = json_object_get(run->tree, "units"), *u;
    int *seen = calloc(json_array_size(units) + 1, sizeof *seen), n = 0;
    size_t i;
    json_array_foreach(units, i, u) {
        int by = (int)s_jint(u, "removed_by"), k = 0;
        while (seen && by && k < n && seen[k] != by)
            k++;
        if (seen && by && k == n)
            seen[n++] = by;
    }
    free(seen);
    return n;
}

static void s_diff(wh_buf_t *b, const s_run_t *run)
{
    const char *diff = run->diff;
    if (run->partial) {
        int n = s_accepted(run);
        wh_buf_printf(b, "<section id=\"diff\"><h2>Diff of the test file so far "
                         "(partial.diff)</h2><p class=\"sub\" id=\"partial\"><b>Partial:</b> "
                         "the run stopped before it finished. This is the accepted "
                         "configuration when it stopped (%d accepted removal%s): it failed the "
                         "same way, but it is not minimal and was not verified afresh.</p>",
                      n, n == 1 ? "" : "s");
    } else {
        wh_buf_puts(b, "<section id=\"diff\"><h2>Diff of the test file (reduced.diff)</h2>");
    }
    if (!diff || !*diff) {
        wh_buf_puts(b, "<p class=\"sub\">No diff: nothing was removed, or the run did not get "
                       "that far.</p></section>\n");
        return;
    }
    wh_buf_puts(b, "<table class=\"diff\">\n");
    long o = 0, n = 0;
    for (const char *p = diff; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, "@@ ", 3)) {
            sscanf(p, "@@ -%ld%*[^+]+%ld", &o, &n);
            s_diff_row(b, "hunk", 0, 0, p, len);
        } else if (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4) || *p == '\\') {
            s_diff_row(b, "meta", 0, 0, p, len);
        } else if (*p == '-') {
            s_diff_row(b, "del", o++, 0, p, len);
        } else if (*p == '+') {
            s_diff_row(b, "add", 0, n++, p, len);
        } else {
            s_diff_row(b, "ctx", o++, n++, p, len);
        }
        p = nl ? nl + 1 : p + len;
    }
    wh_buf_puts(b, "</table></section>\n");
}

/* ---- the statement tree ---- */

static int s_sweep_of(const s_run_t *run, int cand)
{
    if (cand >= 1 && cand <= run->nrows && run->rows[cand - 1].id == cand)
        return run->rows[cand - 1].sweep; /* rows are numbered 1.. in order */
    for (int i = 0; i < run->nrows; i++)
        if (run->rows[i].id == cand)
            return run->rows[i].sweep;
    return 0;
}

static void s_unit(wh_buf_t *b, const s_run_t *run, const json_t *u)
{
    int by = (int)s_jint(u, "removed_by"), sweep = by ? s_sweep_of(run, by) : 0;
    int lvl = (int)s_jint(u, "level"), tree = json_is_true(json_object_get(u, "tree"));
    wh_buf_printf(b, "<li class=\"unit %s\" style=\"padding-left:%dpx\" data-removed-by=\"%d\" "
                     "data-sweep=\"%d\"><span class=\"ln mono\">%lld</span>",
                  by ? "removed" : "kept", 6 + 22 * (lvl < 0 ? 0 : lvl > 40 ? 40 : lvl), by,
                  sweep, s_jint(u, "line"));
    wh_buf_printf(b, "<span class=\"k%s\">L%d %s ", tree ? " t" : "", lvl,
                  tree ? "Tree" : "NonTree");
    s_esc(b, s_jstr(u, "kind"));
    wh_buf_puts(b, "</span><code>");
    s_esc(b, s_jstr(u, "text"));
    wh_buf_puts(b, "</code>");
    if (by)
        wh_buf_printf(b, "<span class=\"badge\" style=\"background:%s\">removed in sweep %d "
                         "&middot; cand %d</span>",
                      s_sweep_colour[(sweep > 0 ? sweep - 1 : 5) % 6], sweep, by);
    else
        wh_buf_puts(b, "<span class=\"badge keep\">kept</span>");
    wh_buf_puts(b, "</li>\n");
}

static void s_tree(wh_buf_t *b, const s_run_t *run)
{
    const json_t *units = json_object_get(run->tree, "units");
    wh_buf_puts(b, "<section id=\"tree\"><h2>Statement tree: what each sweep removed</h2>");
    if (!json_is_array(units)) {
        wh_buf_puts(b, "<p class=\"sub\">No tree.json in the run folder.</p></section>\n");
        return;
    }
    int per[64] = {0}, kept = 0;
    size_t i;
    const json_t *u;
    json_array_foreach(units, i, u) {
        int by = (int)s_jint(u, "removed_by"), sw = by ? s_sweep_of(run, by) : 0;
        if (!by)
            kept++;
        else if (sw >= 0 && sw < 64)
            per[sw]++;
    }
    wh_buf_printf(b, "<p class=\"sub\" id=\"tree-summary\">%zu statements: %d kept", json_array_size(units),
                  kept);
    for (int s = 0; s < 64; s++)
        if (per[s])
            wh_buf_printf(b, "; sweep %d removed %d", s, per[s]);
    wh_buf_puts(b, ".</p><ol class=\"tree\">\n");
    json_array_foreach(units, i, u) s_unit(b, run, u);
    wh_buf_puts(b, "</ol></section>\n");
}

/* ---- the timeline ---- */

#define S_TL_W 1140     /* drawing width (the viewBox's) */
#define S_TL_LEFT 150   /* lane labels */
#define S_TL_LABEL 20   /* characters of a lane's name shown (all of it in its tooltip) */
#define S_TL_LANE 30

/* The lanes: every slot that judged a candidate, sorted, then "cache" and
 * "precheck" when some candidate was answered there. */
static int s_lanes(const s_run_t *run, const char ***out)
{
    const char **l = calloc((size_t)run->nmarks + 3, sizeof *l);
    int n = 0, cached = 0, pred = 0;
    for (int i = 0; l && i < run->nmarks; i++) {
        const s_row_t *r = &run->marks[i];
        if (r->cached) {
            cached = 1;
            continue;
        }
        if (r->predicted) {
            pred = 1;
            continue;
        }
        int k = 0;
        while (k < n && strcmp(l[k], r->node))
            k++;
        if (k == n)
            l[n++] = r->node;
    }
    for (int i = 1; l && i < n; i++) /* insertion sort: a handful of slots */
        for (int j = i; j > 0 && strcmp(l[j - 1], l[j]) > 0; j--) {
            const char *t = l[j];
            l[j] = l[j - 1];
            l[j - 1] = t;
        }
    if (l && cached)
        l[n++] = "cache";
    if (l && pred)
        l[n++] = "precheck";
    *out = l;
    return l ? n : 0;
}

static int s_lane_of(const s_row_t *r, const char **l, int n)
{
    const char *name = r->cached ? "cache" : r->predicted ? "precheck" : r->node;
    for (int k = 0; k < n; k++)
        if (!strcmp(l[k], name))
            return k;
    return 0;
}

/* A tick step: the smallest of a list of round steps (seconds, then
 * whole minutes) that gives at most 12 ticks. */
static uint64_t s_tick(uint64_t span)
{
    static const uint64_t steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
                                     10000, 15000, 30000, 60000, 120000, 300000, 600000,
                                     900000, 1800000, 3600000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span / steps[i] <= 12)
            return steps[i];
    return (span / 12 / 3600000 + 1) * 3600000;
}

static void s_axis(wh_buf_t *b, uint64_t tmax, double scale, int y0, int h)
{
    uint64_t step = s_tick(tmax);
    for (uint64_t t = 0; t <= tmax; t += step) {
        double x = S_TL_LEFT + (double)t * scale;
        wh_buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                         "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, x, y0, y0 + h,
                      x, y0 + h + 14);
        if (step >= 60000)
            wh_buf_printf(b, "%llu min</text>", (unsigned long long)(t / 60000));
        else if (step >= 1000)
            wh_buf_printf(b, "%llu s</text>", (unsigned long long)(t / 1000));
        else if (step >= 100)
            wh_buf_printf(b, "%.1f s</text>", (double)t / 1000.0);
        else
            wh_buf_printf(b, "%.2f s</text>", (double)t / 1000.0);
    }
}

/* The tooltip of a mark. */
static void s_mark_title(wh_buf_t *b, const s_row_t *r)
{
    wh_buf_puts(b, "<title>");
    if (r->kind[0]) {
        wh_buf_printf(b, "e%04llu &#183; ", (unsigned long long)r->eval);
        s_esc(b, r->kind);
    } else {
        wh_buf_printf(b, "cand %d &#183; sweep %d level %d &#183; keep %d/%d", r->id, r->sweep,
                      r->level, r->kept, r->total);
    }
    wh_buf_puts(b, " &#183; ");
    s_esc(b, r->verdict);
    if (!r->cached && !r->predicted)
        wh_buf_printf(b, " &#183; build %llu ms, run %llu ms", (unsigned long long)r->build_ms,
                      (unsigned long long)r->test_ms);
    wh_buf_puts(b, r->cached ? " &#183; from the cache" : r->predicted ? " &#183; predicted, not built" : "");
    wh_buf_puts(b, "</title>");
}

/* One mark: a slot's answer is its build (light) then its run, coloured by
 * verdict (outlined for the original, verify and reference runs); a cached
 * or predicted candidate is a diamond where its round was decided. */
static void s_cand_mark(wh_buf_t *b, const s_row_t *r, double scale, int y)
{
    double end = S_TL_LEFT + (double)r->end_ms * scale;
    const char *vc = s_vclass(r->verdict);
    int walk = !r->kind[0] || !strcmp(r->kind, "candidate") || !strcmp(r->kind, "ahead");
    wh_buf_printf(b, "<g class=\"cand %s%s\" data-cand=\"%d\" data-kind=\"",
                  r->cached ? "cached" : r->predicted ? "predicted" : "built", walk ? "" : " run",
                  r->id);
    s_esc(b, r->kind[0] ? r->kind : "candidate");
    wh_buf_puts(b, "\">");
    s_mark_title(b, r);
    if (r->cached || r->predicted) {
        wh_buf_printf(b, "<path class=\"%s\" d=\"M%.1f %d l7 8 l-7 8 l-7 -8 z\"/></g>", vc, end,
                      y + S_TL_LANE / 2 - 8);
        return;
    }
    uint64_t dur = r->build_ms + r->test_ms;
    double w = (double)dur * scale, x = end - w, bw = (double)r->build_ms * scale;
    if (w < 2)
        x = end - 2, w = 2, bw = bw < 1 ? bw : 1;
    wh_buf_printf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
                     "style=\"fill:var(--build)\"/>", x, y + 4, bw > 0 ? bw : 0, S_TL_LANE - 8);
    wh_buf_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                     "rx=\"2\"/></g>", vc, x + bw, y + 4, w - bw > 1 ? w - bw : 1, S_TL_LANE - 8);
}

/* Lane k at height y: its label (cut, all of it in the tooltip) and its
 * candidates (in[i]: the lane of row i). */
static void s_lane(wh_buf_t *b, const s_run_t *run, const char **lanes, const int *in, int k,
                   double scale, int y)
{
    wh_buf_puts(b, "<g class=\"slot\" data-slot=\"");
    s_esc(b, lanes[k]);
    wh_buf_printf(b, "\"><rect class=\"lane\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                     "opacity=\"%s\"/><text x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>",
                  S_TL_LEFT, y + 1, S_TL_W - S_TL_LEFT, S_TL_LANE - 2, k % 2 ? "0.5" : "1",
                  S_TL_LEFT - 8, y + S_TL_LANE / 2 + 4);
    s_esc(b, lanes[k]);
    wh_buf_puts(b, "</title>");
    size_t len = strlen(lanes[k]), cut = len > S_TL_LABEL ? S_TL_LABEL - 1 : len;
    while (cut < len && cut > 0 && ((unsigned char)lanes[k][cut] & 0xC0) == 0x80)
        cut--; /* not inside a UTF-8 sequence */
    s_esc_n(b, lanes[k], cut);
    wh_buf_puts(b, len > S_TL_LABEL ? "&#8230;</text>" : "</text>");
    for (int i = 0; i < run->nmarks; i++)
        if (in[i] == k)
            s_cand_mark(b, &run->marks[i], scale, y);
    wh_buf_puts(b, "</g>");
}

/* The stretches without candidates, shaded and named: before the first
 * (the original's run and the warm-up) and after the last (the verify
 * run, and the reference check). */
static void s_phases(wh_buf_t *b, const s_run_t *run, uint64_t tmax, double scale, int y0, int h)
{
    uint64_t first = tmax, last = 0;
    for (int i = 0; i < run->nmarks; i++) {
        const s_row_t *r = &run->marks[i];
        uint64_t d = r->build_ms + r->test_ms, st = r->end_ms > d ? r->end_ms - d : 0;
        first = st < first ? st : first;
        last = r->end_ms > last ? r->end_ms : last;
    }
    const struct {
        uint64_t from, to;
        const char *what;
    } ph[2] = {{0, first, run->judged ? "warm-up" : "original run, warm-up"},
               {last, tmax, run->judged ? "" : "verify"}};
    for (int k = 0; k < 2; k++) {
        double x = S_TL_LEFT + (double)ph[k].from * scale;
        double w = (double)(ph[k].to - ph[k].from) * scale;
        if (ph[k].to <= ph[k].from || w < 3)
            continue;
        wh_buf_printf(b, "<g class=\"phase\"><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                         "height=\"%d\" fill=\"#d0d7de\" fill-opacity=\"0.45\"/>", x, y0, w, h);
        if (w > 90 && *ph[k].what)
            wh_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                             "style=\"fill:#424a53;font-style:italic\">%s</text>",
                          x + w / 2, y0 + h / 2 + 4, ph[k].what);
        wh_buf_puts(b, "</g>");
    }
}

static void s_timeline(wh_buf_t *b, const s_run_t *run)
{
    wh_buf_puts(b, "<section id=\"timeline\"><h2>Timeline of candidates per slot</h2>");
    const char **lanes = NULL;
    int nl = s_lanes(run, &lanes);
    if (!nl) {
        wh_buf_puts(b, "<p class=\"sub\">No candidates were recorded.</p></section>\n");
        free(lanes);
        return;
    }
    uint64_t tmax = run->sum ? (uint64_t)s_jint(run->sum, "wall_ms") : 0;
    for (int i = 0; i < run->nmarks; i++)
        if (run->marks[i].end_ms > tmax)
            tmax = run->marks[i].end_ms;
    tmax = tmax ? tmax : 1;
    double scale = (double)(S_TL_W - S_TL_LEFT - 12) / (double)tmax;
    int h = nl * S_TL_LANE, top = 4;
    wh_buf_printf(b, "<svg id=\"timeline-svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
                     "role=\"img\" aria-label=\"candidates per slot over time\">",
                  S_TL_W, top + h + 22);
    s_axis(b, tmax, scale, top, h);
    int *in = calloc((size_t)run->nmarks + 1, sizeof *in);
    for (int i = 0; in && i < run->nmarks; i++)
        in[i] = s_lane_of(&run->marks[i], lanes, nl);
    for (int k = 0; in && k < nl; k++)
        s_lane(b, run, lanes, in, k, scale, top + k * S_TL_LANE);
    free(in);
    s_phases(b, run, tmax, scale, top, h); /* over the empty lanes */
    wh_buf_puts(b, "</svg><div class=\"legend\"><span><span class=\"sw buildsw\"></span>build"
                   "</span><span><span class=\"sw Preserved\"></span>run: Preserved</span>"
                   "<span><span class=\"sw TestPassed\"></span>TestPassed</span><span><span "
                   "class=\"sw DifferentFailure\"></span>DifferentFailure</span><span><span "
                   "class=\"sw BuildFailed\"></span>BuildFailed</span><span><span class=\"sw "
                   "InfraError\"></span>InfraError</span><span>&#9670; cached or predicted: "
                   "when its round was decided</span>");
    if (run->judged)
        wh_buf_puts(b, "<span><span class=\"sw\" style=\"border:1.5px solid #24292f\"></span>"
                       "the original, verify and reference runs</span>");
    wh_buf_puts(b, "</div>");
    wh_buf_printf(b, "<p class=\"sub\" style=\"margin:8px 0 0\">%d marks in %d lanes; a "
                     "bar ends when its verdict came and is as long as the slot's build and "
                     "test.", run->nmarks, nl);
    long long extra = run->sum ? s_jint(run->sum, "extra") : 0;
    if (extra > 0 && !run->judged)
        wh_buf_printf(b, " %lld more were judged in parallel (after a round's winner, or ahead "
                         "of their round) and are not drawn.", extra);
    wh_buf_puts(b, "</p></section>\n");
    free(lanes);
}

/* ---- a run that did not finish ---- */

static void s_log_tail(wh_buf_t *b, const char *log)
{
    wh_buf_puts(b, "<section id=\"log\"><h2>The end of run.log</h2>");
    if (!log) {
        wh_buf_puts(b, "<p class=\"sub\">No run.log.</p></section>\n");
        return;
    }
    size_t len = strlen(log);
    const char *p = log + len;
    for (int lines = 0; p > log && lines <= 40; p--)
        lines += p[-1] == '\n';
    wh_buf_puts(b, "<pre class=\"log\">");
    s_esc(b, p);
    wh_buf_puts(b, "</pre></section>\n");
}

char *wh_report_html(const char *dir, char **err)
{
    s_run_t run = {.dir = dir};
    run.sum = s_read_json(dir, "summary.json");
    run.tree = s_read_json(dir, "tree.json");
    run.diff = s_read(dir, "reduced.diff", S_CAP_DIFF);
    if (!run.diff && !run.sum && (run.diff = s_read(dir, "partial.diff", S_CAP_DIFF)))
        run.partial = 1;
    run.job = run.sum ? NULL : s_read_json(dir, "job.json");
    run.log = run.sum ? NULL : s_read(dir, "run.log", S_CAP_LOG);
    run.rows = s_read_rows(dir, "candidates.csv", &run.nrows);
    s_read_marks(&run);
    if (!run.sum && !run.log && !run.nrows) {
        *err = wh_strdup_printf("'%s' is not a run folder: no summary.json, run.log or "
                                "candidates.csv", dir);
        s_run_free(&run);
        return NULL;
    }
    wh_buf_t b = WH_BUF_INIT;
    s_head(&b, &run);
    s_pills(&b, &run);
    if (run.sum) {
        s_measures(&b, run.sum);
        s_identity(&b, run.sum);
        s_verdicts(&b, run.sum);
    } else {
        s_log_tail(&b, run.log);
    }
    s_diff(&b, &run);
    s_tree(&b, &run);
    s_timeline(&b, &run);
    wh_buf_puts(&b, "<footer>made by whittle from the run folder: summary.json, candidates.csv, "
                    "tree.json, reduced.diff</footer>\n</main></body></html>\n");
    s_run_free(&run);
    return wh_buf_detach(&b);
}

int wh_report_write(const char *dir, char **err)
{
    char *html = wh_report_html(dir, err);
    if (!html)
        return WH_ENOTFOUND;
    char *p = wh_path_join(dir, "report.html");
    int rc = p ? wh_write_file(p, html, strlen(html)) : WH_ENOMEM;
    if (rc)
        *err = wh_strdup_printf("cannot write '%s': %s", p ? p : "report.html", wh_strerror(rc));
    free(p);
    free(html);
    return rc;
}
