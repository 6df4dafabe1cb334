/*
 * Tests of node/oracle: message normalization, fingerprint matching,
 * verdicts, and wh_evaluate end to end on a tiny make + cmocka project in a
 * temporary folder: every one of the six verdicts, a baseline, a build
 * timeout, a test timeout, a missing report, cancellation and the mtime
 * bump that makes back-to-back candidates rebuild.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "oracle.h"
#include "wh_common.h"
#include "wh_test.h"

static void test_normalize(void)
{
    char a[] = "  0x3 !=\t\n 0x4 \n error:   Failure!  ";
    wh_fp_normalize_message(a);
    CHECK_EQ_STR(a, "0x3 != 0x4 error: Failure!");
    char b[] = "";
    wh_fp_normalize_message(b);
    CHECK_EQ_STR(b, "");
    char c[] = " \n\t ";
    wh_fp_normalize_message(c);
    CHECK_EQ_STR(c, "");
    char d[] = "x";
    wh_fp_normalize_message(d);
    CHECK_EQ_STR(d, "x");
    wh_fp_normalize_message(NULL);
}

static void test_match_and_judge(void)
{
    wh_fp_t ref = {"t", "assert", "0x3 != 0x4", "a.c:7"};
    wh_fp_t same_ws = {"t", "assert", " 0x3  !=\n0x4 ", "a.c:7"};
    wh_fp_t other_loc = {"t", "assert", "0x3 != 0x4", "a.c:9"};
    wh_fp_t other_msg = {"t", "assert", "0x5 != 0x4", "a.c:7"};
    wh_fp_t other_kind = {"t", "crash(SIGSEGV)", "0x3 != 0x4", "a.c:7"};
    wh_fp_t other_test = {"u", "assert", "0x3 != 0x4", "a.c:7"};
    wh_fp_t nulls = {"t", "assert", NULL, NULL};
    wh_fp_t empties = {"t", "assert", "", ""};

    CHECK(wh_fp_match(&ref, &ref, WH_MATCH_FULL));
    CHECK(wh_fp_match(&ref, &same_ws, WH_MATCH_FULL));
    CHECK(!wh_fp_match(&ref, &other_loc, WH_MATCH_FULL));
    CHECK(wh_fp_match(&ref, &other_loc, WH_MATCH_MESSAGE));
    CHECK(!wh_fp_match(&ref, &other_msg, WH_MATCH_MESSAGE));
    CHECK(wh_fp_match(&ref, &other_msg, WH_MATCH_TYPE));
    CHECK(!wh_fp_match(&ref, &other_kind, WH_MATCH_TYPE));
    CHECK(!wh_fp_match(&ref, &other_test, WH_MATCH_TYPE));
    CHECK(wh_fp_match(&nulls, &empties, WH_MATCH_FULL));
    CHECK(!wh_fp_match(&ref, &nulls, WH_MATCH_MESSAGE));
    /* Word boundaries matter: "ab" is not "a b". */
    wh_fp_t ab = {"t", "assert", "ab", ""}, a_b = {"t", "assert", "a b", ""};
    CHECK(!wh_fp_match(&ab, &a_b, WH_MATCH_MESSAGE));
    CHECK(!wh_fp_match(&a_b, &ab, WH_MATCH_MESSAGE));
    wh_fp_t pre = {"t", "assert", "a", ""};
    CHECK(!wh_fp_match(&pre, &a_b, WH_MATCH_MESSAGE));
    CHECK(!wh_fp_match(&a_b, &pre, WH_MATCH_MESSAGE));

    wh_test_result_t r = {WH_TR_MISSING, {0}};
    CHECK_EQ_INT(wh_oracle_judge(&r, &ref, WH_MATCH_FULL), WH_V_TEST_MISSING);
    r.status = WH_TR_SKIPPED;
    CHECK_EQ_INT(wh_oracle_judge(&r, &ref, WH_MATCH_FULL), WH_V_TEST_MISSING);
    r.status = WH_TR_PASSED;
    CHECK_EQ_INT(wh_oracle_judge(&r, &ref, WH_MATCH_FULL), WH_V_TEST_PASSED);
    r.status = WH_TR_FAILED;
    r.fp = same_ws;
    CHECK_EQ_INT(wh_oracle_judge(&r, &ref, WH_MATCH_FULL), WH_V_PRESERVED);
    r.fp = other_loc;
    CHECK_EQ_INT(wh_oracle_judge(&r, &ref, WH_MATCH_FULL), WH_V_DIFFERENT_FAILURE);
    CHECK_EQ_INT(wh_oracle_judge(&r, &ref, WH_MATCH_MESSAGE), WH_V_PRESERVED);
}

/* ---- end to end ---- */

static char s_tmp[256];

static const char s_makefile[] = "t: t.c\n\tcc -o t t.c -lcmocka\n";

/* Line 14 holds the failing assert: a + b is 4, not 5. */
static const char s_test_c[] =
    "#include <stdarg.h>\n"                              /* 1 */
    "#include <stddef.h>\n"                              /* 2 */
    "#include <setjmp.h>\n"                              /* 3 */
    "#include <stdint.h>\n"                              /* 4 */
    "#include <unistd.h>\n"                              /* 5 */
    "#include <cmocka.h>\n"                              /* 6 */
    "static void test_other(void **s) { (void)s; }\n"    /* 7 */
    "static void test_target(void **s)\n"                /* 8 */
    "{\n"                                                /* 9 */
    "    (void)s;\n"                                     /* 10 */
    "    int a = 1;\n"                                   /* 11 */
    "    int b = 2;\n"                                   /* 12 */
    "    a += 1;\n"                                      /* 13 */
    "    assert_int_equal(a + b, 5);\n"                  /* 14 */
    "}\n"                                                /* 15 */
    "int main(void)\n"                                   /* 16 */
    "{\n"                                                /* 17 */
    "    const struct CMUnitTest tests[] = {\n"          /* 18 */
    "        cmocka_unit_test(test_other),\n"            /* 19 */
    "        cmocka_unit_test(test_target),\n"           /* 20 */
    "    };\n"                                           /* 21 */
    "    return cmocka_run_group_tests(tests, NULL, NULL);\n" /* 22 */
    "}\n";

/* s_test_c with every `from` replaced by `to`; malloc'ed. */
static char *s_variant(const char *from, const char *to)
{
    wh_buf_t b = WH_BUF_INIT;
    const char *p = s_test_c;
    size_t fl = strlen(from);
    int hits = 0;
    for (const char *q; (q = strstr(p, from)); p = q + fl, hits++) {
        wh_buf_append(&b, p, (size_t)(q - p));
        wh_buf_puts(&b, to);
    }
    wh_buf_puts(&b, p);
    CHECK(hits > 0);
    return wh_buf_detach(&b);
}

typedef struct {
    int calls, cancel_at;
} s_tick_t;

static int s_tick(void *arg)
{
    s_tick_t *t = arg;
    return ++t->calls >= t->cancel_at;
}

static wh_eval_spec_t s_spec(char *report, char *log)
{
    wh_eval_spec_t s = {
        .root = s_tmp,
        .test_file = "t.c",
        .build_cmd = "make",
        .run_cmd = "./t",
        .fw = wh_framework_find("cmocka"),
        .test = "test_target",
        .build_timeout_ms = 60000,
        .test_timeout_ms = 10000,
        .report_path = report,
        .log_path = log,
    };
    return s;
}

static wh_verdict_t s_eval(const wh_eval_spec_t *s, const char *content, const wh_fp_t *ref,
                           wh_match_t m, wh_eval_result_t *out)
{
    int rc = wh_evaluate(s, content, strlen(content), ref, m, out);
    CHECK_EQ_INT(rc, 0);
    CHECK(out->detail != NULL && !strchr(out->detail, '\n'));
    if (wh_test_failures)
        fprintf(stderr, "  verdict %s: %s\n", wh_verdict_name(out->verdict),
                out->detail ? out->detail : "(no detail)");
    return out->verdict;
}

static void test_evaluate(void)
{
    char *mk = wh_path_join(s_tmp, "Makefile");
    CHECK_EQ_INT(wh_write_file(mk, s_makefile, strlen(s_makefile)), 0);
    char *report = wh_path_join(s_tmp, "out/report.xml");
    char *log = wh_path_join(s_tmp, "console.log");
    wh_eval_spec_t s = s_spec(report, log);
    wh_eval_result_t r;

    /* Baseline: no verdict, the fingerprint in the result. */
    CHECK_EQ_INT(s_eval(&s, s_test_c, NULL, WH_MATCH_FULL, &r), WH_V_NONE);
    CHECK(r.build_ok);
    CHECK_EQ_INT(r.result.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.result.fp.test, "test_target");
    CHECK_EQ_STR(r.result.fp.kind, "assert");
    CHECK_EQ_STR(r.result.fp.location, "t.c:14");
    CHECK_EQ_STR(r.result.fp.message, "0x4 != 0x5");
    CHECK(wh_is_file(report));
    wh_fp_t ref;
    CHECK_EQ_INT(wh_fp_copy(&ref, &r.result.fp), 0);
    wh_eval_result_clear(&r);

    /* The console log holds the build and the test output. */
    char *text = NULL;
    CHECK_EQ_INT(wh_read_file(log, 1 << 20, &text, NULL), 0);
    CHECK(text && strstr(text, "cc -o t t.c"));
    free(text);

    /* Preserved: a statement removed, lines kept; the test binary exits
     * nonzero and that does not matter. */
    char *c = s_variant("    (void)s;\n    int a", "            \n    int a");
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    CHECK_EQ_STR(r.detail, "same failure");
    wh_eval_result_clear(&r);
    free(c);

    /* TestPassed, then straight back to the failing original: both must
     * rebuild although they are written within the same second. */
    c = s_variant("    assert_int_equal(a + b, 5);", "                               ");
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_TEST_PASSED);
    wh_eval_result_clear(&r);
    free(c);
    CHECK_EQ_INT(s_eval(&s, s_test_c, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    wh_eval_result_clear(&r);

    /* The test file's mtime only moves forward. */
    char *tc = wh_path_join(s_tmp, "t.c");
    struct stat st1, st2;
    CHECK_EQ_INT(stat(tc, &st1), 0);
    CHECK_EQ_INT(s_eval(&s, s_test_c, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    CHECK_EQ_INT(stat(tc, &st2), 0);
    CHECK(st2.st_mtim.tv_sec >= st1.st_mtim.tv_sec + 1);
    free(tc);

    /* DifferentFailure: same line, other values; same kind, so the
     * type-only mode calls it Preserved. */
    c = s_variant("a += 1;", "a += 5;");
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_DIFFERENT_FAILURE);
    CHECK_EQ_STR(r.result.fp.message, "0x8 != 0x5");
    CHECK(strstr(r.detail, "different failure") != NULL);
    wh_eval_result_clear(&r);
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_TYPE, &r), WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    free(c);

    /* BuildFailed. */
    c = s_variant("a += 1;", "a += ;");
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_BUILD_FAILED);
    CHECK(!r.build_ok);
    CHECK(strncmp(r.detail, "build exited", 12) == 0);
    CHECK(!wh_is_file(report));
    wh_eval_result_clear(&r);
    free(c);

    /* TestMissing: the test is no longer in the group. */
    c = s_variant("test_target", "test_renamed");
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_TEST_MISSING);
    CHECK_EQ_INT(r.result.status, WH_TR_MISSING);
    wh_eval_result_clear(&r);
    free(c);

    /* InfraError: the test hangs. */
    c = s_variant("    (void)s;\n    int a", "    sleep(100);\n    int a");
    s.test_timeout_ms = 1000;
    uint64_t t0 = wh_now_ms();
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_INFRA_ERROR);
    CHECK(wh_now_ms() - t0 < 20000);
    CHECK_EQ_STR(r.detail, "test timed out after 1000 ms");
    CHECK(!r.cancelled);
    wh_eval_result_clear(&r);

    /* Cancelled through the tick while the test hangs. */
    s.test_timeout_ms = 0;
    s_tick_t tk = {0, 5};
    s.tick = s_tick;
    s.tick_arg = &tk;
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_INFRA_ERROR);
    CHECK(r.cancelled);
    wh_eval_result_clear(&r);
    s.tick = NULL;
    s.test_timeout_ms = 10000;
    free(c);

    /* InfraError: the test ran but wrote no report; a report left by an
     * earlier candidate must not be read. */
    CHECK_EQ_INT(s_eval(&s, s_test_c, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    CHECK(wh_is_file(report));
    c = s_variant("return cmocka_run_group_tests(tests, NULL, NULL);", "(void)tests; return 1;");
    CHECK_EQ_INT(s_eval(&s, c, &ref, WH_MATCH_FULL, &r), WH_V_INFRA_ERROR);
    CHECK(strncmp(r.detail, "no report at ", 13) == 0);
    CHECK(strstr(r.detail, "exited 1") != NULL);
    wh_eval_result_clear(&r);
    /* Also in a baseline run. */
    CHECK_EQ_INT(s_eval(&s, c, NULL, WH_MATCH_FULL, &r), WH_V_INFRA_ERROR);
    wh_eval_result_clear(&r);
    free(c);

    /* InfraError: the build hangs. (The timeout goes back right after.) */
    s.build_cmd = "sleep 30";
    s.build_timeout_ms = 300;
    CHECK_EQ_INT(s_eval(&s, s_test_c, &ref, WH_MATCH_FULL, &r), WH_V_INFRA_ERROR);
    CHECK_EQ_STR(r.detail, "build timed out after 300 ms");
    wh_eval_result_clear(&r);
    s.build_timeout_ms = 60000;

    /* A baseline that does not build says so. */
    s.build_cmd = "exit 2";
    CHECK_EQ_INT(s_eval(&s, s_test_c, NULL, WH_MATCH_FULL, &r), WH_V_BUILD_FAILED);
    wh_eval_result_clear(&r);

    /* The environment the test sees. (The build timeout went back to the
     * generous default above: left at 300 ms, a loaded machine timed out
     * this real build, ./t was gone, and the next run got exit 127: the
     * flake this test had.) */
    s.build_cmd = "rm -f t; make";
    s.run_cmd = "printf '%s %s %s' \"$WHITTLE_TEST\" \"$WHITTLE_REPORT\" \"$CMOCKA_XML_FILE\" "
                "> env.txt; ./t";
    CHECK_EQ_INT(s_eval(&s, s_test_c, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    char *envf = wh_path_join(s_tmp, "env.txt");
    CHECK_EQ_INT(wh_read_file(envf, 4096, &text, NULL), 0);
    char *want = wh_strdup_printf("test_target %s %s", report, report);
    CHECK_EQ_STR(text, want);
    free(want);
    free(text);
    free(envf);

    /* No build step at all. */
    s.build_cmd = NULL;
    CHECK_EQ_INT(s_eval(&s, s_test_c, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    CHECK(r.build_ok);
    CHECK_EQ_INT(r.build_ms, 0);
    wh_eval_result_clear(&r);

    /* A workspace that cannot be written is an error, not a verdict. */
    s.root = "/nonexistent/whittle";
    CHECK(wh_evaluate(&s, "x", 1, &ref, WH_MATCH_FULL, &r) < 0);
    CHECK_EQ_INT(r.verdict, WH_V_NONE);
    wh_eval_result_clear(&r);

    wh_fp_clear(&ref);
    free(mk);
    free(report);
    free(log);
}

/* The gtest preset end to end: its suffix selects the one test and names
 * the report; a filter that matches nothing is TestMissing. */
static void test_evaluate_gtest(void)
{
    static const char g_cc[] = "#include <gtest/gtest.h>\n"
                               "TEST(Math, Target) {\n"
                               "  int a = 2;\n"
                               "  EXPECT_EQ(a + 2, 5);\n"
                               "}\n"
                               "TEST(Math, Other) { FAIL() << \"must not run\"; }\n";
    char *report = wh_path_join(s_tmp, "gtest-out/report.xml");
    wh_eval_spec_t s = {
        .root = s_tmp,
        .test_file = "g.cc",
        .build_cmd = "c++ -o g g.cc -lgtest -lgtest_main -pthread",
        .run_cmd = "./g",
        .fw = wh_framework_find("gtest"),
        .test = "Math.Target",
        .build_timeout_ms = 120000,
        .test_timeout_ms = 10000,
        .report_path = report,
    };
    wh_eval_result_t r;
    CHECK_EQ_INT(s_eval(&s, g_cc, NULL, WH_MATCH_FULL, &r), WH_V_NONE);
    CHECK_EQ_INT(r.result.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.result.fp.test, "Math.Target");
    CHECK_EQ_STR(r.result.fp.location, "g.cc:4");
    CHECK_EQ_STR(r.result.fp.message, "Expected equality of these values: a + 2 Which is: 4 5");
    wh_fp_t ref;
    CHECK_EQ_INT(wh_fp_copy(&ref, &r.result.fp), 0);
    wh_eval_result_clear(&r);

    s.build_cmd = NULL;
    CHECK_EQ_INT(s_eval(&s, g_cc, &ref, WH_MATCH_FULL, &r), WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    s.test = "Math.Nope";
    CHECK_EQ_INT(s_eval(&s, g_cc, &ref, WH_MATCH_FULL, &r), WH_V_TEST_MISSING);
    wh_eval_result_clear(&r);
    wh_fp_clear(&ref);
    free(report);
}

int main(void)
{
    RUN_TEST(test_normalize);
    RUN_TEST(test_match_and_judge);
    snprintf(s_tmp, sizeof s_tmp, "/tmp/wh-oracle-XXXXXX");
    if (!mkdtemp(s_tmp))
        return 1;
    RUN_TEST(test_evaluate);
    RUN_TEST(test_evaluate_gtest);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
