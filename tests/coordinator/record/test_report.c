/*
 * test_report — coordinator/report.c on run folders written here: every
 * section is present with the exact figures of the folder, everything from
 * the user's files is HTML-escaped, the page loads nothing from outside,
 * a run that stopped part-way gets its log's end, and a folder that is no
 * run folder is refused with its name.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "record.h"
#include "report.h"
#include "wh_common.h"
#include "wh_test.h"

static char s_dir[64];

static void s_put(const char *name, const char *text)
{
    char *p = wh_path_join(s_dir, name);
    CHECK(wh_write_file(p, text, strlen(text)) == 0);
    free(p);
}

/* Occurrences of needle in hay. */
static int s_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static const char s_summary[] =
    "{\"test\":\"test_<script>alert(1)</script>\",\"file\":\"tests/t&t.c\",\"project\":\"/p\","
    "\"algorithm\":\"hdd\",\"ddmin\":\"chunked\",\"job_id\":\"abc\",\"statements_before\":7,"
    "\"statements_after\":4,\"tree_before\":1,\"tree_after\":1,\"nontree_before\":6,"
    "\"nontree_after\":3,\"sweeps\":3,\"rounds\":9,\"candidates\":4,\"evaluated\":2,"
    "\"predicted\":1,\"cached\":1,\"verdicts\":{\"Preserved\":1,\"TestPassed\":1,"
    "\"DifferentFailure\":0,\"BuildFailed\":2,\"TestMissing\":0,\"InfraError\":0},"
    "\"wall_ms\":2000,\"jobs\":2,\"fingerprint\":{\"test\":\"t\",\"kind\":\"assert\","
    "\"message\":\"\\\"a<b\\\" != 'c&d'\",\"location\":\"t.c:19\"},\"verified\":true,"
    "\"verify_runs\":1,\"verdicts_dropped\":0,\"fault\":{\"reference\":\"HEAD~1\","
    "\"keep_fault\":true,\"status\":\"kept\",\"fault_kept\":true,\"on_reference\":\"passed\"},"
    "\"ARS\":3,\"PRS\":42.857142857142854,\"ATRS\":0,\"PTRS\":0.0,\"ANTRS\":3,"
    "\"PNTRS\":42.857142857142854}";

static const char s_csv[] =
    "candidate,sweep,level,kept,total,verdict,cached,node,ms,report,runs,key,infra,predicted,"
    "precheck,build_ms,test_ms,end_ms\n"
    "1,1,0,2,5,TestPassed,0,n<1>/0,131,e1.report,0/1,k1,,0,pass,116,15,826\n"
    "2,1,0,3,5,BuildFailed,0,precheck,0,,,k2,,1,fail,0,0,826\n"
    "3,1,0,4,5,Preserved,0,n<1>/1,161,e3.report,1/1,k3,\"a, \"\"b\"\" | c\",0,pass,143,18,900\n"
    "4,2,0,3,4,BuildFailed,1,-,0,,,k4,,0,-,0,0,950\n";

static const char s_tree[] =
    "{\"test\":\"t\",\"units\":["
    "{\"parent\":-1,\"level\":0,\"tree\":false,\"kind\":\"decl\",\"line\":14,"
    "\"text\":\"int a = b < c && d > e;\",\"removed_by\":0},"
    "{\"parent\":-1,\"level\":0,\"tree\":true,\"kind\":\"for\",\"line\":15,"
    "\"text\":\"for (;;) {\",\"removed_by\":0},"
    "{\"parent\":1,\"level\":1,\"tree\":false,\"kind\":\"expr\",\"line\":16,"
    "\"text\":\"x(\\\"</code><b>\\\");\",\"removed_by\":3},"
    "{\"parent\":-1,\"level\":0,\"tree\":false,\"kind\":\"expr\",\"line\":18,"
    "\"text\":\"y();\",\"removed_by\":4}]}";

static const char s_diffs[] = "--- a/t&t.c\n+++ b/t&t.c\n@@ -15,3 +15,2 @@\n for (;;) {\n"
                              "-    x(\"</code><b>\");\n }\n";

static void test_sections_and_figures(void)
{
    s_put("summary.json", s_summary);
    s_put("candidates.csv", s_csv);
    s_put("tree.json", s_tree);
    s_put("reduced.diff", s_diffs);
    char *err = NULL;
    char *h = wh_report_html(s_dir, &err);
    CHECK(h != NULL);
    if (!h)
        return;
    static const char *const ids[] = {"id=\"measures\"", "id=\"fingerprint\"", "id=\"fault\"",
                                      "id=\"verdicts\"", "id=\"diff\"", "id=\"tree\"",
                                      "id=\"timeline\"", "<svg id=\"timeline-svg\""};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        CHECK_EQ_INT(s_count(h, ids[i]), 1);
    CHECK_EQ_INT(s_count(h, "id=\"m-ARS\">3<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"m-PRS\">42.9%<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"m-ATRS\">0<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"m-PTRS\">0.0%<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"m-ANTRS\">3<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"m-PNTRS\">42.9%<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"fault-pill\">fault kept<"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"fault-line\">fault kept: the reduced test passes on the "
                            "reference<"), 1);
    /* lanes: two slots, the cache and the precheck; the quoted CSV field
     * with a comma did not shift the columns after it */
    CHECK_EQ_INT(s_count(h, "<g class=\"slot\""), 4);
    CHECK_EQ_INT(s_count(h, "data-slot=\"n&lt;1&gt;/0\""), 1);
    CHECK_EQ_INT(s_count(h, "data-slot=\"cache\""), 1);
    CHECK_EQ_INT(s_count(h, "data-slot=\"precheck\""), 1);
    CHECK_EQ_INT(s_count(h, "<g class=\"cand built\""), 2);
    CHECK_EQ_INT(s_count(h, "<g class=\"cand cached\""), 1);
    CHECK_EQ_INT(s_count(h, "<g class=\"cand predicted\""), 1);
    CHECK_EQ_INT(s_count(h, "build 143 ms, run 18 ms"), 1);
    CHECK_EQ_INT(s_count(h, "id=\"wall\">2.0 s, 2 slots judged<"), 1);
    /* the axis of the 2000 ms run: 0 s to 2 s by 200 ms */
    CHECK_EQ_INT(s_count(h, "<line class=\"grid\""), 11);
    CHECK_EQ_INT(s_count(h, ">0.2 s</text>") + s_count(h, ">2.0 s</text>"), 2);
    /* shaded before the first candidate (started 695 ms in) and after the
     * last verdict (950 ms) up to the run's 2000 ms */
    CHECK_EQ_INT(s_count(h, "<g class=\"phase\">"), 2);
    CHECK_EQ_INT(s_count(h, ">original run, warm-up</text>"), 1);
    CHECK_EQ_INT(s_count(h, ">verify</text>"), 1);
    /* the tree: sweeps from the candidates' rows */
    CHECK_EQ_INT(s_count(h, "data-removed-by=\"3\" data-sweep=\"1\""), 1);
    CHECK_EQ_INT(s_count(h, "data-removed-by=\"4\" data-sweep=\"2\""), 1);
    CHECK_EQ_INT(s_count(h, "class=\"unit kept\""), 2);
    CHECK_EQ_INT(s_count(h, "4 statements: 2 kept; sweep 1 removed 1; sweep 2 removed 1."), 1);
    /* the diff: one removed row, line numbers from the hunk */
    CHECK_EQ_INT(s_count(h, "<tr class=\"del\"><td class=\"ln\">16</td><td class=\"ln\"></td>"), 1);
    CHECK_EQ_INT(s_count(h, "<tr class=\"ctx\"><td class=\"ln\">17</td><td class=\"ln\">16</td>"), 1);
    free(h);
    free(err);
}

static void test_escaping_and_self_contained(void)
{
    char *err = NULL;
    char *h = wh_report_html(s_dir, &err);
    CHECK(h != NULL);
    if (!h)
        return;
    /* nothing of the user's becomes markup */
    CHECK_EQ_INT(s_count(h, "<script"), 0);
    CHECK_EQ_INT(s_count(h, "test_&lt;script&gt;alert(1)&lt;/script&gt;"), 2); /* title, h1 */
    CHECK_EQ_INT(s_count(h, "&quot;a&lt;b&quot; != &#39;c&amp;d&#39;"), 1);
    CHECK_EQ_INT(s_count(h, "x(&quot;&lt;/code&gt;&lt;b&gt;&quot;);"), 2); /* tree, diff */
    CHECK_EQ_INT(s_count(h, "<b>\""), 0);
    CHECK_EQ_INT(s_count(h, "int a = b &lt; c &amp;&amp; d &gt; e;"), 1);
    CHECK_EQ_INT(s_count(h, "tests/t&amp;t.c"), 1);
    /* self-contained: no scripts, links, images or fonts from anywhere */
    CHECK_EQ_INT(s_count(h, "http://") + s_count(h, "https://"), 0);
    CHECK_EQ_INT(s_count(h, "<link") + s_count(h, "<img") + s_count(h, "@import") +
                     s_count(h, "url("), 0);
    free(h);
    free(err);
}

/* With judged.csv the lanes hold every answer of a slot: the original,
 * the walk's candidates, those judged ahead, the verify run. */
static void test_judged_timeline(void)
{
    s_put("judged.csv", "eval,kind,slot,verdict,build_ms,test_ms,end_ms\n"
                        "1,original,n<1>/0,InfraError,300,20,600\n"
                        "2,candidate,n<1>/0,TestPassed,116,15,826\n"
                        "3,candidate,n<1>/1,Preserved,143,18,900\n"
                        "7,ahead,\"n<1>/1\",BuildFailed,40,0,940\n"
                        "9,verify,n<1>/1,Preserved,150,17,1200\n");
    char *err = NULL;
    char *h = wh_report_html(s_dir, &err);
    CHECK(h != NULL);
    if (!h)
        return;
    CHECK_EQ_INT(s_count(h, "<g class=\"slot\""), 4);
    CHECK_EQ_INT(s_count(h, "data-slot=\"n&lt;1&gt;/1\""), 1);
    CHECK_EQ_INT(s_count(h, "<g class=\"cand "), 7); /* 5 answers, 1 cached, 1 predicted */
    CHECK_EQ_INT(s_count(h, "<g class=\"cand built run\""), 2);
    CHECK_EQ_INT(s_count(h, "data-kind=\"ahead\""), 1);
    CHECK_EQ_INT(s_count(h, "e0009 &#183; verify &#183; Preserved &#183; build 150 ms, run 17 ms"), 1);
    /* before the original (started 280 ms in): warm-up; the verify is drawn */
    CHECK_EQ_INT(s_count(h, ">warm-up</text>"), 1);
    CHECK_EQ_INT(s_count(h, ">verify</text>"), 0);
    free(h);
    free(err);
}

static void test_unfinished_run(void)
{
    char *p = wh_path_join(s_dir, "summary.json");
    unlink(p);
    free(p);
    p = wh_path_join(s_dir, "reduced.diff");
    unlink(p);
    free(p);
    s_put("run.log", "whittle: reducing t\nerror: build <failed> & stopped\n");
    char *err = NULL;
    CHECK(wh_report_write(s_dir, &err) == 0);
    char *h = NULL;
    size_t len = 0;
    p = wh_path_join(s_dir, "report.html");
    CHECK(wh_read_file(p, 1 << 20, &h, &len) == 0);
    free(p);
    if (h) {
        CHECK_EQ_INT(s_count(h, "id=\"status\">did not finish<"), 1);
        CHECK_EQ_INT(s_count(h, "error: build &lt;failed&gt; &amp; stopped"), 1);
        CHECK_EQ_INT(s_count(h, "id=\"measures\""), 0);
        CHECK_EQ_INT(s_count(h, "<g class=\"slot\""), 4);
    }
    free(h);
    free(err);
}

/* tree.json is written a unit at a time (issue 36: the whole document in
 * jansson was a 5000-statement run's memory peak); it must be the text
 * jansson writes for the whole document, byte for byte. */
static void s_same_as_jansson(const char *js)
{
    json_t *doc = json_loads(js, 0, NULL);
    CHECK(doc != NULL);
    char *again = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    CHECK(again && strcmp(again, js) == 0);
    free(again);
    json_decref(doc);
}

/* tree.json keeps a head that is not UTF-8 (a Latin-1 file, a head cut
 * inside a character) with '?' for the bad bytes, instead of dropping it. */
static void test_tree_json_text(void)
{
    char *err = NULL, *out = wh_path_join(s_dir, "runs");
    wh_record_t *r = wh_record_open(out, "t", &err);
    CHECK(r != NULL);
    if (!r)
        return;
    wh_record_unit_t u[3] = {
        {.parent = -1, .kind = "expr", .line = 3, .head = "puts(\"caf\xe9\");"},
        {.parent = -1, .kind = "expr", .line = 4, .head = "x(\"\xe2\x82...", .removed_by = 2},
        {.parent = -1, .kind = "decl", .line = 5, .head = "int \xc3\xbc = 1;"},
    };
    wh_record_tree(r, "t", u, 3);
    char *p = wh_path_join(wh_record_dir(r), "tree.json"), *js = NULL;
    size_t len = 0;
    CHECK(wh_read_file(p, 1 << 16, &js, &len) == 0);
    if (js) {
        CHECK_EQ_INT(s_count(js, "\"text\": \"puts(\\\"caf?\\\");\""), 1);
        CHECK_EQ_INT(s_count(js, "\"text\": \"x(\\\"??...\""), 1);
        CHECK_EQ_INT(s_count(js, "\"text\": \"int \\u00fc = 1;\"") +
                         s_count(js, "\"text\": \"int \xc3\xbc = 1;\""), 1);
        CHECK_EQ_INT(s_count(js, "\"removed_by\": 2"), 1);
        s_same_as_jansson(js);
    }
    free(js);
    /* No units: the same document as jansson's too. */
    wh_record_tree(r, "t \"q\"", u, 0);
    js = NULL;
    CHECK(wh_read_file(p, 1 << 16, &js, &len) == 0);
    if (js) {
        CHECK(strstr(js, "\"units\": []") != NULL);
        s_same_as_jansson(js);
    }
    free(js);
    free(p);
    free(out);
    wh_record_close(&r);
}

static void test_not_a_run_folder(void)
{
    char *err = NULL;
    char *h = wh_report_html("/nonexistent/run", &err);
    CHECK(h == NULL);
    CHECK_EQ_STR(err, "'/nonexistent/run' is not a run folder: no summary.json, run.log or "
                      "candidates.csv");
    free(err);
}

int main(void)
{
    snprintf(s_dir, sizeof s_dir, "/tmp/wh_report_XXXXXX");
    CHECK(mkdtemp(s_dir) != NULL);
    RUN_TEST(test_sections_and_figures);
    RUN_TEST(test_escaping_and_self_contained);
    RUN_TEST(test_judged_timeline);
    RUN_TEST(test_unfinished_run);
    RUN_TEST(test_tree_json_text);
    RUN_TEST(test_not_a_run_folder);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
