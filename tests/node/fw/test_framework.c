/*
 * Tests of node/framework: the presets' commands and environment, and each
 * report reader on real reports written by cmocka 1.1.5, googletest 1.12.1
 * and ctest 3.25 (tests/data/reports, see its README), plus a hand-written
 * generic JUnit file, a malformed one and a missing one.
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "framework.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_reports;

static char *s_report(const char *name)
{
    return wh_path_join(s_reports, name);
}

/* Reads test from the named sample with preset fw; returns the read rc. */
static int s_read(const char *fw, const char *sample, const char *console_sample,
                  const char *test, wh_test_result_t *out)
{
    const wh_framework_t *f = wh_framework_find(fw);
    CHECK(f != NULL);
    if (!f)
        return -1;
    char *path = s_report(sample), *console = NULL, *err = NULL;
    size_t clen = 0;
    if (console_sample) {
        char *cp = s_report(console_sample);
        CHECK_EQ_INT(wh_read_file(cp, 1 << 20, &console, &clen), 0);
        free(cp);
    }
    int rc = f->read(path, console, clen, test, NULL, out, &err);
    if (rc)
        CHECK(err != NULL && !strchr(err, '\n'));
    else
        CHECK(err == NULL);
    free(err);
    free(console);
    free(path);
    return rc;
}

static void test_presets(void)
{
    /* The built-in four come first; presets from other files follow. */
    CHECK(strncmp(wh_framework_names(), "junit, cmocka, gtest, ctest", 27) == 0);
    CHECK(wh_framework_find("nope") == NULL);
    CHECK(wh_framework_find(NULL) == NULL);
    const char *names[] = {"junit", "cmocka", "gtest", "ctest"};
    for (int i = 0; i < 4; i++) {
        const wh_framework_t *f = wh_framework_find(names[i]);
        CHECK(f && strcmp(f->name, names[i]) == 0 && f->read && f->env);
    }
    CHECK(wh_framework_find("junit")->run_suffix == NULL);
    CHECK(wh_framework_find("cmocka")->run_suffix == NULL);

    const wh_framework_t *g = wh_framework_find("gtest");
    char *s = wh_expand(g->run_suffix, "Math.Eq", "/r/report.xml");
    CHECK_EQ_STR(s, "--gtest_filter='Math.Eq' --gtest_output='xml:/r/report.xml'");
    free(s);
    const wh_framework_t *c = wh_framework_find("ctest");
    s = wh_expand(c->run_suffix, "gt_eq", "/r/j.xml");
    CHECK_EQ_STR(s, "-R '^gt_eq$' --output-junit '/r/j.xml'");
    free(s);

    const wh_framework_t *cm = wh_framework_find("cmocka");
    int n = 0, saw_out = 0, saw_file = 0;
    for (const char *const *e = cm->env; *e; e++, n++) {
        char *x = wh_expand(*e, "test_eq", "/r/cm.xml");
        saw_out |= strcmp(x, "CMOCKA_MESSAGE_OUTPUT=xml") == 0;
        saw_file |= strcmp(x, "CMOCKA_XML_FILE=/r/cm.xml") == 0;
        free(x);
    }
    CHECK_EQ_INT(n, 2);
    CHECK(saw_out && saw_file);

    s = wh_expand("{test}-{report}-{test}{x}", "T", "R");
    CHECK_EQ_STR(s, "T-R-T{x}");
    free(s);
    s = wh_expand("", "T", "R");
    CHECK_EQ_STR(s, "");
    free(s);
    CHECK(wh_expand(NULL, "T", "R") == NULL);
}

static void test_cmocka(void)
{
    wh_test_result_t r;
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-group.xml", NULL, "test_eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "test_eq");
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.location, "cm.c:7");
    CHECK_EQ_STR(r.fp.message, "0x3 != 0x4");
    wh_test_result_clear(&r);

    /* fail_msg's text goes to stderr only; the report has the location. */
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-group.xml", NULL, "test_fail_msg", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "cm.c:10");
    CHECK_EQ_STR(r.fp.message, "Failure!");
    wh_test_result_clear(&r);

    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-group.xml", NULL, "test_ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-group.xml", NULL, "test_skip", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-group.xml", NULL, "test_gone", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    CHECK(r.fp.test == NULL);
    wh_test_result_clear(&r);
    /* group.test names the test too. */
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-group.xml", NULL, "mygroup.test_str", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "cm.c:11");
    CHECK_EQ_STR(r.fp.message, "\"abc\" != \"abd\"");
    CHECK_EQ_STR(r.fp.test, "mygroup.test_str");
    wh_test_result_clear(&r);

    /* A signal cmocka caught. */
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-crash.xml", NULL, "test_segv", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "crash(SIGSEGV)");
    CHECK_EQ_STR(r.fp.location, "");
    CHECK_EQ_STR(r.fp.message, "Test failed with exception: Segmentation fault(11)");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cmocka", "cmocka-1.1.5-crash.xml", NULL, "test_after", &r), 0);
    CHECK_EQ_STR(r.fp.location, "cm2.c:8");
    wh_test_result_clear(&r);
}

static void test_gtest(void)
{
    wh_test_result_t r;
    /* Two failures in one test: the first is the identity. */
    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-MathEq.xml", NULL, "Math.Eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "Math.Eq");
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.location, "gt.cc:4");
    CHECK_EQ_STR(r.fp.message, "Expected equality of these values:\n  a\n    Which is: 3\n  4");
    wh_test_result_clear(&r);

    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-Math.xml", NULL, "Math.Throws", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "exception");
    CHECK_EQ_STR(r.fp.location, "");
    CHECK_EQ_STR(r.fp.message,
                 "C++ exception with description \"boom\" thrown in the test body.");
    wh_test_result_clear(&r);

    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-Math.xml", NULL, "Math.Ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-MathSkip.xml", NULL, "Math.Skip", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    /* A filter that matched nothing: exit 0, no testcase. */
    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-MathNope.xml", NULL, "Math.Nope", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* Filtered out of this run. */
    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-MathEq.xml", NULL, "Other.Str", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* DISABLED_: status="notrun". */
    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-disabled.xml", NULL, "Math.DISABLED_Off", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    /* The bare name is not the suite-qualified one. */
    CHECK_EQ_INT(s_read("gtest", "gtest-1.12.1-MathEq.xml", NULL, "Other.Eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
}

static void test_ctest(void)
{
    wh_test_result_t r;
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-gt_eq.xml", NULL, "gt_eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.location, "gt.cc:4");
    CHECK_EQ_STR(r.fp.message,
                 " Failure\nExpected equality of these values:\n  a\n    Which is: 3\n  4");
    wh_test_result_clear(&r);

    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-plain.xml", NULL, "plain", &r), 0);
    CHECK_EQ_STR(r.fp.location, "foo.c:42");
    CHECK_EQ_STR(r.fp.message, " assertion failed: x == 1");
    wh_test_result_clear(&r);

    /* cmocka under ctest: the ERROR line before the LINE line. */
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-cm_all.xml", NULL, "cm_all", &r), 0);
    CHECK_EQ_STR(r.fp.location, "cm.c:7");
    CHECK_EQ_STR(r.fp.message, "0x3 != 0x4\n error: Failure!");
    wh_test_result_clear(&r);

    /* A crash: the reason is only on ctest's console. */
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-crash.xml", "ctest-3.25-crash.console.txt", "crash",
                        &r),
                 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "crash(SIGSEGV)");
    CHECK_EQ_STR(r.fp.location, "");
    CHECK_EQ_STR(r.fp.message, "SEGFAULT");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-abrt.xml", "ctest-3.25-abrt.console.txt", "abrt",
                        &r),
                 0);
    CHECK_EQ_STR(r.fp.kind, "crash(SIGABRT)");
    wh_test_result_clear(&r);
    /* Without the console: a plain failure, message "Failed". */
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-crash.xml", NULL, "crash", &r), 0);
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.message, "Failed");
    wh_test_result_clear(&r);

    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-gt_ok.xml", NULL, "gt_ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-skipme.xml", NULL, "skipme", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("ctest", "ctest-3.25-nope.xml", NULL, "nope", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
}

static void test_junit(void)
{
    wh_test_result_t r;
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "calc.Add.overflow", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.message, "expected 4 but was   3");
    CHECK_EQ_STR(r.fp.location, "test_add.c:42");
    CHECK_EQ_STR(r.fp.test, "calc.Add.overflow");
    wh_test_result_clear(&r);
    /* Plain name and "::" work too. */
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "overflow", &r), 0);
    CHECK_EQ_STR(r.fp.location, "test_add.c:42");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "calc::Div::by_zero", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "error");
    CHECK_EQ_STR(r.fp.message, "division by zero in src/div.cpp:17");
    CHECK_EQ_STR(r.fp.location, "div.cpp:17");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "calc.Add.passes", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "skipped_one", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    /* Nested suites; no message attribute: the text's first line. */
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "n.deep", &r), 0);
    CHECK_EQ_STR(r.fp.message, "deep.hpp:9: boom");
    CHECK_EQ_STR(r.fp.location, "deep.hpp:9");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("junit", "junit-generic.xml", NULL, "calc.Add", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);

    /* The generic reader also reads the frameworks' files. */
    CHECK_EQ_INT(s_read("junit", "gtest-1.12.1-MathEq.xml", NULL, "Math.Eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "gt.cc:4");
    wh_test_result_clear(&r);
}

static void test_bad_reports(void)
{
    const char *fws[] = {"junit", "cmocka", "gtest", "ctest"};
    for (int i = 0; i < 4; i++) {
        wh_test_result_t r;
        CHECK_EQ_INT(s_read(fws[i], "malformed.xml", NULL, "a", &r), WH_EPARSE);
        CHECK_EQ_INT(r.status, WH_TR_MISSING);
        CHECK_EQ_INT(s_read(fws[i], "does-not-exist.xml", NULL, "a", &r), WH_EREPORT);
        CHECK_EQ_INT(r.status, WH_TR_MISSING);
    }
    /* An empty file (created, never written) and a file that is not XML. */
    char tmp[] = "/tmp/wh-fw-XXXXXX";
    CHECK(mkdtemp(tmp) != NULL);
    char *empty = wh_path_join(tmp, "empty.xml"), *text = wh_path_join(tmp, "text.xml");
    CHECK_EQ_INT(wh_write_file(empty, "", 0), 0);
    CHECK_EQ_INT(wh_write_file(text, "PASS\n", 5), 0);
    const wh_framework_t *f = wh_framework_find("junit");
    wh_test_result_t r;
    char *err = NULL;
    CHECK_EQ_INT(f->read(empty, NULL, 0, "a", NULL, &r, &err), WH_EREPORT);
    CHECK(err && strstr(err, empty));
    free(err);
    err = NULL;
    CHECK_EQ_INT(f->read(text, NULL, 0, "a", NULL, &r, &err), WH_EPARSE);
    CHECK(err && strstr(err, text));
    free(err);
    err = NULL;
    CHECK_EQ_INT(f->read(NULL, NULL, 0, "a", NULL, &r, &err), WH_EREPORT);
    free(err);
    free(empty);
    free(text);
    wh_rm_rf(tmp);
}

int main(void)
{
    const char *src = getenv("WH_SOURCE_DIR");
    s_reports = wh_path_join(src ? src : ".", "tests/data/reports");
    RUN_TEST(test_presets);
    RUN_TEST(test_cmocka);
    RUN_TEST(test_gtest);
    RUN_TEST(test_ctest);
    RUN_TEST(test_junit);
    RUN_TEST(test_bad_reports);
    free(s_reports);
    TEST_MAIN_END();
}
