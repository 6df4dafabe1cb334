/*
 * Tests of node/junit_cases: listing every test case of a JUnit report with
 * its suite and status, on real reports (cmocka 1.1.5, googletest 1.12.1,
 * ctest 3.25; tests/data/reports) and the hand-written generic one (nested
 * testsuites, failure vs error, skipped), plus reports that are not usable.
 */
#define _GNU_SOURCE
#include "junit_cases.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_reports;

/* Reads the named sample; returns the rc. */
static int s_read(const char *sample, wh_junit_case_t **c, size_t *n, char **err)
{
    char *path = wh_path_join(s_reports, sample);
    int rc = wh_junit_cases_read(path, c, n, err);
    free(path);
    return rc;
}

/* "suite|classname|name|status|message" of case i. */
static char *s_row(const wh_junit_case_t *c)
{
    return wh_strdup_printf("%s|%s|%s|%s|%s", c->suite, c->classname, c->name,
                            wh_jc_status_name(c->status), c->message);
}

#define CHECK_ROW(c, want)          \
    do {                            \
        char *r_ = s_row(c);        \
        CHECK_EQ_STR(r_, want);     \
        free(r_);                   \
    } while (0)

/* Nested testsuites: the innermost suite's name; failure vs error;
 * skipped; the message attribute, else the text's first non-empty line. */
static void test_generic_nested(void)
{
    wh_junit_case_t *c = NULL;
    size_t n = 0;
    char *err = NULL;
    CHECK_EQ_INT(s_read("junit-generic.xml", &c, &n, &err), 0);
    CHECK_EQ_INT(n, 5);
    if (n == 5) {
        CHECK_ROW(&c[0], "outer|calc.Add|passes|passed|");
        CHECK_ROW(&c[1], "outer|calc.Add|overflow|failed|expected 4 but was   3");
        CHECK_ROW(&c[2], "outer|calc::Div|by_zero|error|division by zero in src/div.cpp:17");
        CHECK_ROW(&c[3], "outer||skipped_one|skipped|");
        CHECK_ROW(&c[4], "nested|n|deep|failed|deep.hpp:9: boom");
        int failing = 0;
        for (size_t i = 0; i < n; i++)
            failing += wh_jc_failing(c[i].status);
        CHECK_EQ_INT(failing, 3);
    }
    CHECK(err == NULL);
    wh_junit_cases_free(c, n);
}

/* cmocka: one group; a <skipped/> child; failures without a message
 * attribute take the CDATA's first line. */
static void test_cmocka_group(void)
{
    wh_junit_case_t *c = NULL;
    size_t n = 0;
    char *err = NULL;
    CHECK_EQ_INT(s_read("cmocka-1.1.5-group.xml", &c, &n, &err), 0);
    CHECK_EQ_INT(n, 6);
    if (n == 6) {
        CHECK_ROW(&c[0], "mygroup||test_ok|passed|");
        CHECK_ROW(&c[1], "mygroup||test_eq|failed|0x3 != 0x4");
        CHECK_ROW(&c[3], "mygroup||test_skip|skipped|");
        CHECK_ROW(&c[4], "mygroup||test_fail_msg|failed|cm.c:10: error: Failure!");
    }
    wh_junit_cases_free(c, n);
}

/* googletest: status="notrun" is skipped; the file attribute is kept. */
static void test_gtest_disabled(void)
{
    wh_junit_case_t *c = NULL;
    size_t n = 0;
    char *err = NULL;
    CHECK_EQ_INT(s_read("gtest-1.12.1-disabled.xml", &c, &n, &err), 0);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_ROW(&c[0], "Math|Math|DISABLED_Off|skipped|");
        CHECK_ROW(&c[1], "Math|Math|Ok|passed|");
        CHECK_EQ_STR(c[1].file, "gt2.cc");
    }
    wh_junit_cases_free(c, n);
}

/* ctest: a single <testsuite> root; an empty message attribute and no text
 * gives an empty message; the test's output is its <system-out>. */
static void test_ctest_single_suite(void)
{
    wh_junit_case_t *c = NULL;
    size_t n = 0;
    char *err = NULL;
    CHECK_EQ_INT(s_read("ctest-3.25-plain.xml", &c, &n, &err), 0);
    CHECK_EQ_INT(n, 1);
    if (n == 1)
        CHECK_ROW(&c[0], "(empty)|plain|plain|failed|");
    if (n == 1)
        CHECK_EQ_STR(c[0].output, "src/foo.c:42: assertion failed: x == 1\n");
    wh_junit_cases_free(c, n);
    /* A case without one has "". */
    CHECK_EQ_INT(s_read("junit-generic.xml", &c, &n, &err), 0);
    CHECK(n > 0 && !strcmp(c[0].output, ""));
    wh_junit_cases_free(c, n);
}

/* Reports that cannot be read say which file and why. */
static void test_unusable(void)
{
    wh_junit_case_t *c = NULL;
    size_t n = 7;
    char *err = NULL;
    CHECK_EQ_INT(s_read("malformed.xml", &c, &n, &err), WH_EPARSE);
    CHECK(c == NULL && n == 0);
    CHECK(err && strstr(err, "malformed.xml"));
    free(err), err = NULL;
    CHECK_EQ_INT(s_read("no-such-report.xml", &c, &n, &err), WH_EREPORT);
    CHECK(err && strstr(err, "no-such-report.xml"));
    free(err), err = NULL;
    CHECK_EQ_INT(s_read("cunit-2.1.3-all-Results.xml", &c, &n, &err), WH_EPARSE);
    CHECK_EQ_STR(err ? strstr(err, "is not a JUnit report") : NULL,
                 "is not a JUnit report (its root is <CUNIT_TEST_RUN_REPORT>, not <testsuites> "
                 "or <testsuite>)");
    free(err);
}

int main(void)
{
    s_reports = wh_path_join(getenv("WH_SOURCE_DIR") ? getenv("WH_SOURCE_DIR") : ".",
                             "tests/data/reports");
    RUN_TEST(test_generic_nested);
    RUN_TEST(test_cmocka_group);
    RUN_TEST(test_gtest_disabled);
    RUN_TEST(test_ctest_single_suite);
    RUN_TEST(test_unusable);
    free(s_reports);
    TEST_MAIN_END();
}
