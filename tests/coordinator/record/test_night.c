/*
 * test_night — a run summary for a client on another machine (night.h):
 * wh_night_run_json takes a run folder's summary.json, reduced test and
 * diff into one object of at most WH_NIGHT_RUN_MAX bytes (the texts left
 * out, "cut", when longer); wh_night_run_check refuses what a peer may
 * send wrongly with a line naming the field; and the batch report written
 * from sent summaries holds their groups, reduced tests and diffs and
 * never opens the coordinator's folder it names.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "night.h"
#include "wh_common.h"
#include "wh_test.h"

static char s_dir[64];

static void s_put(const char *dir, const char *name, const char *text)
{
    char *p = wh_path_join(dir, name);
    CHECK(wh_write_file(p, text, strlen(text)) == 0);
    free(p);
}

static const char s_sum[] =
    "{\"test\":\"test_a\",\"file\":\"tests/t.c\",\"statements_before\":7,\"statements_after\":2,"
    "\"evaluated\":11,\"partial\":false,\"verified\":true,\"fingerprint\":{\"test\":\"test_a\","
    "\"kind\":\"assert\",\"message\":\"1 != 2\",\"location\":\"h.c:4\"}}";

static void test_run_json_from_folder(void)
{
    char *run = wh_path_join(s_dir, "test_a-20260101-000000");
    CHECK(mkdir(run, 0755) == 0);
    s_put(run, "summary.json", s_sum);
    s_put(run, "reduced.c", "void test_a(void)\n{\n    check(1);\n}\n");
    s_put(run, "reduced.diff", "--- a/tests/t.c\n+++ b/tests/t.c\n");
    char *js = wh_night_run_json(run);
    CHECK(js != NULL);
    char *err = NULL;
    CHECK_EQ_INT(wh_night_run_check(js, strlen(js), &err), 0);
    CHECK(err == NULL);
    CHECK(strstr(js, "\"run\":\"test_a-20260101-000000\"") != NULL);
    CHECK(strstr(js, "\"reduced\":\"void test_a(void)\\n{\\n    check(1);\\n}\\n\"") != NULL);
    CHECK(strstr(js, "\"cut\":false") != NULL);
    CHECK(strstr(js, "\"location\":\"h.c:4\"") != NULL);
    free(js);

    /* A reduced test too long for one message: the counts go, the texts not. */
    size_t big = 300u << 10;
    char *text = malloc(big + 1);
    memset(text, '\x01', big); /* escaped as \u0001: six bytes each */
    text[big] = '\0';
    s_put(run, "reduced.c", text);
    s_put(run, "reduced.diff", text);
    free(text);
    js = wh_night_run_json(run); /* each part over its own cap: left out when read */
    CHECK(js && strlen(js) <= WH_NIGHT_RUN_MAX);
    CHECK(js && strstr(js, "\"reduced\":null") != NULL);
    free(js);
    text = malloc((200u << 10) + 1);
    memset(text, '\x01', 200u << 10);
    text[200u << 10] = '\0';
    s_put(run, "reduced.c", text);
    free(text);
    js = wh_night_run_json(run); /* 200 KiB escaped six-fold: cut */
    CHECK(js && strlen(js) <= WH_NIGHT_RUN_MAX);
    CHECK(js && strstr(js, "\"cut\":true") && strstr(js, "\"statements_before\":7"));
    free(js);

    /* No summary.json: no summary. */
    CHECK(wh_night_run_json(s_dir) == NULL);
    free(run);
}

static void s_bad(const char *text, const char *want)
{
    char *err = NULL;
    CHECK_EQ_INT(wh_night_run_check(text, strlen(text), &err), WH_EPROTO);
    CHECK(err && strstr(err, want));
    if (err && !strstr(err, want))
        fprintf(stderr, "  got: %s\n", err);
    CHECK(err && !strchr(err, '\n'));
    free(err);
}

static void test_check_refuses(void)
{
    s_bad("", "malformed");
    s_bad("{\"run\":", "malformed");
    s_bad("[1]", "not a JSON object");
    s_bad("{\"summary\":{}}", "'run' is not a string");
    s_bad("{\"run\":\"../x\",\"summary\":{}}", "'run' is not a folder name");
    s_bad("{\"run\":\"..\",\"summary\":{}}", "'run' is not a folder name");
    s_bad("{\"run\":\"r\",\"summary\":3}", "'summary' is not an object");
    s_bad("{\"run\":\"r\",\"summary\":{},\"reduced\":5}", "'reduced' is not a string");
    s_bad("{\"run\":\"r\",\"summary\":{\"statements_before\":-1}}",
          "'summary.statements_before' is not a whole number");
    s_bad("{\"run\":\"r\",\"summary\":{\"evaluated\":\"9\"}}", "'summary.evaluated'");
    s_bad("{\"run\":\"r\",\"summary\":{\"partial\":1}}", "'summary.partial' is not a string");
    s_bad("{\"run\":\"r\",\"summary\":{\"partial\":true}}", "'summary.partial' is not a string");
    s_bad("{\"run\":\"r\",\"summary\":{\"fingerprint\":{\"kind\":[]}}}",
          "'summary.fingerprint.kind' is not a string");
    s_bad("{\"run\":\"r\",\"run\":\"s\",\"summary\":{}}", "malformed");
    char *err = NULL;
    /* a partial run says why its walk stopped (record.c): accepted */
    static const char part[] = "{\"run\":\"r\",\"summary\":{\"partial\":\"builds=3 spent: 3 builds\"}}";
    CHECK_EQ_INT(wh_night_run_check(part, sizeof part - 1, &err), 0);
    free(err);
    err = NULL;
    CHECK_EQ_INT(wh_night_run_check("{}", WH_NIGHT_RUN_MAX + 1, &err), WH_EPROTO);
    CHECK(err && strstr(err, "cap"));
    free(err);
    err = NULL;
    const char ok[] = "{\"run\":\"r\",\"summary\":{\"fingerprint\":null},\"reduced\":null}";
    CHECK_EQ_INT(wh_night_run_check(ok, strlen(ok), &err), 0);
}

static void test_report_from_sent_runs(void)
{
    char *run = wh_strdup_printf("{\"run\":\"test_a-1\",\"dir\":\"/coord/runs/test_a-1\","
                                 "\"summary\":%s,\"reduced\":\"void test_a(void)\\n{\\n}\\n\","
                                 "\"diff\":\"-    gone();\\n\"}", s_sum);
    wh_night_row_t rows[2] = {
        {"test_a", "tests/t.c", "/coord/runs/test_a-1", "reduced", NULL, 1, 1, run},
        {"test_b", "tests/t.c", NULL, "answered", NULL, 1, 1, NULL},
    };
    wh_night_group_t g = {"assert | h.c:4 | N != N", 0, 0, NULL};
    char *out = wh_path_join(s_dir, "out"), *err = NULL;
    CHECK(mkdir(out, 0755) == 0);
    CHECK_EQ_INT(wh_night_write(out, rows, 2, &g, 1, &err), 0);
    char *jp = wh_path_join(out, "night.json"), *hp = wh_path_join(out, "night.html");
    char *js = NULL, *html = NULL;
    size_t len;
    CHECK(wh_read_file(jp, 1u << 20, &js, &len) == 0);
    CHECK(wh_read_file(hp, 1u << 20, &html, &len) == 0);
    CHECK(js && strstr(js, "\"statements_after\": 2"));
    CHECK(js && strstr(js, "\"diff\": \"-    gone();\\n\""));
    CHECK(js && strstr(js, "\"builds\": 13")); /* 11 walked + 1 first run each */
    CHECK(html && strstr(html, "its run folder on the coordinator"));
    CHECK(html && strstr(html, "void test_a(void)"));
    CHECK(access("/coord", F_OK) != 0); /* never made, never opened */
    free(js), free(html), free(jp), free(hp), free(out), free(run);
}

int main(void)
{
    snprintf(s_dir, sizeof s_dir, "/tmp/wh_night_XXXXXX");
    CHECK(mkdtemp(s_dir) != NULL);
    RUN_TEST(test_run_json_from_folder);
    RUN_TEST(test_check_refuses);
    RUN_TEST(test_report_from_sent_runs);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
