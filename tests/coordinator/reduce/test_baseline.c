/*
 * Tests of coordinator/baseline: which original-run identities whittle
 * refuses to reduce on, what it says, and the output tail it shows.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "framework.h"
#include "wh_test.h"

static wh_job_t s_job(const char *fw, const char *re)
{
    wh_job_t j;
    wh_job_init(&j);
    j.test = strdup("test_a");
    j.framework = strdup(fw);
    if (re)
        j.failure_regex = strdup(re);
    return j;
}

static void test_refusal(void)
{
    wh_fp_t crash = {"test_a", "crash(SIGABRT)", "", ""};
    wh_fp_t assert_fp = {"test_a", "assert", "expected 5, got 4", "t.c:20"};
    wh_fp_t cmocka_crash = {"test_a", "crash(SIGSEGV)", "Test failed with exception: Segmentation fault(11)", ""};
    wh_fp_t empty = {"test_a", "", "", ""};

    wh_job_t c = s_job("console", "NOMATCH(?<message>.*)$");
    char *why = wh_baseline_refusal(&c, WH_TR_FAILED, &crash, NULL, 0);
    CHECK_EQ_STR(why, "the failure of test_a is not identified: --failure-regex 'NOMATCH(?<message>.*)$' "
                      "matched nothing in the original run's output, which ended in crash(SIGABRT); fix "
                      "the regex against the output above, or use --framework plain to reduce on the "
                      "crash alone");
    free(why);
    CHECK(!wh_baseline_fp_usable(&c, &crash));
    CHECK(wh_baseline_fp_usable(&c, &assert_fp));
    CHECK(wh_baseline_refusal(&c, WH_TR_FAILED, &assert_fp, NULL, 0) == NULL);
    why = wh_baseline_refusal(&c, WH_TR_MISSING, NULL, NULL, 0);
    CHECK(why && strstr(why, "--failure-regex 'NOMATCH(?<message>.*)$' matched nothing") &&
          !strstr(why, "--pass-regex"));
    free(why);
    /* Passes and skips have their own messages. */
    CHECK(wh_baseline_refusal(&c, WH_TR_PASSED, NULL, NULL, 0) == NULL);
    CHECK(wh_baseline_refusal(&c, WH_TR_SKIPPED, NULL, NULL, 0) == NULL);
    why = wh_baseline_refusal(&c, WH_TR_FAILED, &empty, NULL, 0);
    CHECK(why && strstr(why, "no kind, location or message"));
    free(why);
    wh_job_clear(&c);

    /* plain asked for the crash identity: accepted. */
    wh_job_t p = s_job("plain", NULL);
    CHECK(wh_baseline_refusal(&p, WH_TR_FAILED, &crash, NULL, 0) == NULL);
    why = wh_baseline_refusal(&p, WH_TR_MISSING, NULL, NULL, 0);
    CHECK(why && strstr(why, "no assertion, crash or sanitizer report"));
    free(why);
    wh_job_clear(&p);

    /* A report preset: its own crash report identifies; the fallback does not. */
    wh_job_t g = s_job("gtest", NULL);
    CHECK(wh_baseline_refusal(&g, WH_TR_FAILED, &cmocka_crash, NULL, 0) == NULL);
    why = wh_baseline_refusal(&g, WH_TR_FAILED, &crash, NULL, 0);
    CHECK(why && strstr(why, "ended in crash(SIGABRT) before the gtest framework reported anything"));
    free(why);
    why = wh_baseline_refusal(&g, WH_TR_MISSING, NULL, NULL, 0);
    CHECK(why && strstr(why, "test 'test_a' not found in the report of the original run"));
    free(why);
    wh_job_clear(&g);
}

/* A console regex that matched, but only another test's line, is never
 * said to have matched nothing (issue 33 item 7): the error names the line
 * and the test its test group named. */
static void test_refusal_foreign(void)
{
    wh_job_t c = s_job("console", "^(?<test>\\w+) FAILED: (?<message>.*)$");
    c.test_fn = strdup("s_test_a_fn");
    const char *out = "make: nothing to be done\ns_test_b_fn FAILED: want 1\nbye\n";
    char *why = wh_baseline_refusal(&c, WH_TR_MISSING, NULL, out, strlen(out));
    CHECK_EQ_STR(why, "the failure of test_a is not identified: --failure-regex "
                      "'^(?<test>\\w+) FAILED: (?<message>.*)$' matched 's_test_b_fn FAILED: want 1', "
                      "whose test group names s_test_b_fn, not test_a (nor s_test_a_fn); fix the "
                      "regex's test group against the output above, so that the test's own line "
                      "names it (PCRE2, applied line by line unless it sets (?s) or (?m))");
    free(why);
    /* The pass regex too. */
    c.pass_regex = strdup("^PASS (?<test>\\w+)$");
    const char *out2 = "PASS s_test_b_fn\n";
    why = wh_baseline_refusal(&c, WH_TR_MISSING, NULL, out2, strlen(out2));
    CHECK(why && strstr(why, "matched nothing in the original run's output, and --pass-regex "
                             "'^PASS (?<test>\\w+)$' matched 'PASS s_test_b_fn', whose test "
                             "group names s_test_b_fn, not test_a (nor s_test_a_fn); fix the "
                             "regex's test group"));
    free(why);
    /* A crash after another test's failure line. */
    wh_fp_t crash = {"test_a", "crash(SIGSEGV)", "", ""};
    why = wh_baseline_refusal(&c, WH_TR_FAILED, &crash, out, strlen(out));
    CHECK(why && strstr(why, "not test_a (nor s_test_a_fn); the run ended in crash(SIGSEGV); "
                             "fix the regex's test group") &&
          !strstr(why, "matched nothing"));
    free(why);
    /* Output where nothing matches: "matched nothing", as before. */
    why = wh_baseline_refusal(&c, WH_TR_MISSING, NULL, "bye\n", 4);
    CHECK(why && strstr(why, "matched nothing in the original run's output and --pass-regex did "
                             "not match either; fix the regex against the output above"));
    free(why);
    wh_job_clear(&c);
}

static void test_tail(void)
{
    const char *in = "a\nb\r\nc\nd\n\n";
    char *t = wh_baseline_tail(in, strlen(in), 2);
    CHECK_EQ_STR(t, "  | c\n  | d\n");
    free(t);
    t = wh_baseline_tail("only", 4, 20);
    CHECK_EQ_STR(t, "  | only\n");
    free(t);
    t = wh_baseline_tail(NULL, 0, 20);
    CHECK_EQ_STR(t, "");
    free(t);
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 1; i <= 30; i++)
        wh_buf_printf(&b, "line %d\n", i);
    t = wh_baseline_tail(b.buf, b.len, 20);
    CHECK(t && strncmp(t, "  | line 11\n", 12) == 0 && strstr(t, "  | line 30\n"));
    CHECK(t && !strstr(t, "line 10\n"));
    free(t);
    wh_buf_free(&b);
}

/* A CMake build's output names the workspace's absolute paths; what is
 * shown names the project's (the workspace is gone when the run ends). */
static void test_unworkspace(void)
{
    const char *key = "7b5701079ce0b82be0eaff39285f3ecea26820df52493f8679cbaee34b1eeafa";
    char *in = wh_strdup_printf(
        "[1/2] Building C object CMakeFiles/cj.dir/cJSON.c.o\n"
        "/tmp/r/work/ws/%s/slot-1/cJSON.c:12:5: error: expected ';' before 'return'\n"
        "cc -I/tmp/r/work/ws/%s/golden/src -c x.c\n"
        "/home/u/notakey/slot-1/a.c: kept\n", key, key);
    char *out = wh_baseline_unworkspace(in, strlen(in));
    CHECK_EQ_STR(out, "[1/2] Building C object CMakeFiles/cj.dir/cJSON.c.o\n"
                      "cJSON.c:12:5: error: expected ';' before 'return'\n"
                      "cc -Isrc -c x.c\n"
                      "/home/u/notakey/slot-1/a.c: kept\n");
    char *first = wh_baseline_first_error(out);
    CHECK_EQ_STR(first, "cJSON.c:12:5: error: expected ';' before 'return'");
    free(first);
    CHECK(wh_baseline_first_error("make: *** [all] Error 1\nno errors here\n") == NULL);
    first = wh_baseline_first_error("  t.c:1: fatal error: x.h: No such file\r\n");
    CHECK_EQ_STR(first, "t.c:1: fatal error: x.h: No such file");
    free(first);
    free(out);
    free(in);
}

static void test_not_found(void)
{
    char *n = wh_baseline_not_found("infrastructure fault (missing tool): test exited 127: "
                                    "`sh: 1: ./test_nope: not found`");
    CHECK_EQ_STR(n ? n : "(null)", "./test_nope");
    free(n);
    n = wh_baseline_not_found("fault: test exited 127: `sh: 1: my-runner: not found`");
    CHECK_EQ_STR(n ? n : "(null)", "my-runner");
    free(n);
    CHECK(wh_baseline_not_found("test exited 1: `sh: 1: x: not found`") == NULL);
    CHECK(wh_baseline_not_found("test exited 127: no shell line") == NULL);
    CHECK(wh_baseline_not_found("build exited 127: `/bin/sh: 1: cc-x: not found`") == NULL);
    CHECK(wh_baseline_not_found(NULL) == NULL);
}

int main(void)
{
    RUN_TEST(test_refusal);
    RUN_TEST(test_refusal_foreign);
    RUN_TEST(test_tail);
    RUN_TEST(test_not_found);
    RUN_TEST(test_unworkspace);
    TEST_MAIN_END();
}
