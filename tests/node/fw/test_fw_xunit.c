/*
 * Tests of node/fw_xunit: the check, cunit, criterion and unity presets on
 * reports and console text written by the frameworks installed on the build
 * image (Debian 12: Check 0.15.2, CUnit 2.1-3, Criterion 2.4.1), from the
 * programs saved next to them (tests/data/reports/<fw>-<version>-src.c):
 *
 *   check-0.15.2-*.xml       CK_XML_LOG_FILE_NAME=<file> ./ck (fork mode);
 *                            -case-other with CK_RUN_CASE=other; -nofork with
 *                            CK_FORK=no, where the segfault cuts the log short.
 *   cunit-2.1.3-*.xml        WHITTLE_REPORT=<prefix> ./cu (automated mode);
 *                            -crash with CRASH=1 (truncated by the segfault).
 *   criterion-2.4.1-*.xml    ./crit --xml=<file> [--filter=...].
 *   *.console.txt            the same runs' stdout+stderr.
 *
 * Unity is not installed: unity-handwritten*.console.txt follow the console
 * grammar of Unity's documentation, typed by hand.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "framework.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_reports;

/* Reads test with preset fw from the named report and console samples
 * (either may be NULL); returns the reader's rc. */
static int s_read(const char *fw, const char *sample, const char *console_sample,
                  const char *test, wh_test_result_t *out)
{
    const wh_framework_t *f = wh_framework_find(fw);
    CHECK(f != NULL);
    if (!f) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    char *path = sample ? wh_path_join(s_reports, sample) : strdup("/nonexistent/report.xml");
    char *console = NULL, *err = NULL;
    size_t clen = 0;
    if (console_sample) {
        char *cp = wh_path_join(s_reports, console_sample);
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

/* Checks a failed result's fingerprint. */
static void s_check_fail(const wh_test_result_t *r, const char *test, const char *kind,
                         const char *msg, const char *loc)
{
    CHECK_EQ_INT(r->status, WH_TR_FAILED);
    CHECK_EQ_STR(r->fp.test, test);
    CHECK_EQ_STR(r->fp.kind, kind);
    CHECK_EQ_STR(r->fp.message, msg);
    CHECK_EQ_STR(r->fp.location, loc);
}

static void test_presets(void)
{
    const char *names[] = {"check", "cunit", "criterion", "unity"};
    for (int i = 0; i < 4; i++) {
        const wh_framework_t *f = wh_framework_find(names[i]);
        CHECK(f && strcmp(f->name, names[i]) == 0 && f->read && f->env);
        CHECK(strstr(wh_framework_names(), names[i]) != NULL);
    }
    size_t n = 0;
    CHECK(wh_fw_xunit_presets(&n) != NULL);
    CHECK_EQ_INT(n, 4);
    const wh_framework_t *ck = wh_framework_find("check");
    char *e = wh_expand(ck->env[0], "test_eq", "/r/ck.xml");
    CHECK_EQ_STR(e, "CK_XML_LOG_FILE_NAME=/r/ck.xml");
    CHECK(ck->env[1] == NULL);
    free(e);
    CHECK(wh_framework_find("cunit")->run_suffix == NULL);
    CHECK(wh_framework_find("unity")->run_suffix == NULL);
}

/* The criterion suffix goes through /bin/sh: "suite::name" must become the
 * filter "suite/name" and a bare "name" the glob "*\/name". */
static void test_criterion_suffix(void)
{
    const wh_framework_t *cr = wh_framework_find("criterion");
    const char *ids[][2] = {{"math::eq", "--filter=math/eq --xml=/r/c.xml"},
                            {"eq", "--filter=*/eq --xml=/r/c.xml"},
                            {"math/eq", "--filter=math/eq --xml=/r/c.xml"}};
    for (int i = 0; i < 3; i++) {
        char *s = wh_expand(cr->run_suffix, ids[i][0], "/r/c.xml");
        char *cmd = wh_strdup_printf("set -f; echo %s", s);
        FILE *p = popen(cmd, "r");
        char line[256] = "";
        CHECK(p && fgets(line, sizeof line, p));
        if (p)
            pclose(p);
        line[strcspn(line, "\n")] = '\0';
        CHECK_EQ_STR(line, ids[i][1]);
        free(cmd);
        free(s);
    }
}

static void test_check(void)
{
    wh_test_result_t r;
    CHECK_EQ_INT(s_read("check", "check-0.15.2-all.xml", NULL, "test_eq", &r), 0);
    s_check_fail(&r, "test_eq", "assert", "Assertion '1 + 1 == 3' failed: 1 + 1 == 2, 3 == 3",
                 "ck.c:5");
    wh_test_result_clear(&r);
    /* tcase-qualified id */
    CHECK_EQ_INT(s_read("check", "check-0.15.2-all.xml", NULL, "core::test_eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "core::test_eq");
    wh_test_result_clear(&r);
    /* A crash in fork mode is an error at the last checkpoint. */
    CHECK_EQ_INT(s_read("check", "check-0.15.2-all.xml", NULL, "test_crash", &r), 0);
    s_check_fail(&r, "test_crash", "crash(SIGSEGV)", "Received signal 11 (Segmentation fault)",
                 "");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("check", "check-0.15.2-all.xml", NULL, "test_ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    CHECK_EQ_STR(r.fp.test, "test_ok");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("check", "check-0.15.2-all.xml", NULL, "test_nope", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* CK_RUN_CASE=other: tests of other tcases are absent, not skipped. */
    CHECK_EQ_INT(s_read("check", "check-0.15.2-case-other.xml", NULL, "test_eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("check", "check-0.15.2-case-other.xml", NULL, "test_nonfatal", &r), 0);
    s_check_fail(&r, "test_nonfatal", "assert", "first 1", "ck.c:7");
    wh_test_result_clear(&r);
    /* CK_FORK=no: the segfault truncates the log and Check prints nothing
     * about the crashing test: no usable report. */
    CHECK_EQ_INT(s_read("check", "check-0.15.2-nofork.xml", "check-0.15.2-nofork.console.txt",
                        "test_crash", &r),
                 WH_EPARSE);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
}

static void test_check_console(void)
{
    /* No report at all: the console names the target, same fingerprint as
     * the XML gives. */
    wh_test_result_t r;
    CHECK_EQ_INT(s_read("check", NULL, "check-0.15.2-all.console.txt", "test_crash", &r), 0);
    s_check_fail(&r, "test_crash", "crash(SIGSEGV)", "Received signal 11 (Segmentation fault)",
                 "");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("check", NULL, "check-0.15.2-all.console.txt", "test_eq", &r), 0);
    s_check_fail(&r, "test_eq", "assert", "Assertion '1 + 1 == 3' failed: 1 + 1 == 2, 3 == 3",
                 "ck.c:5");
    wh_test_result_clear(&r);
    /* The console does not name test_ok (CK_NORMAL prints failures only). */
    CHECK_EQ_INT(s_read("check", NULL, "check-0.15.2-all.console.txt", "test_ok", &r),
                 WH_EREPORT);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("check", NULL, NULL, "test_eq", &r), WH_EREPORT);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("check", "malformed.xml", NULL, "test_eq", &r), WH_EPARSE);
    wh_test_result_clear(&r);
}

static void test_cunit(void)
{
    wh_test_result_t r;
    /* Non-fatal CU_ASSERTs: two records for test_eq, the first wins. */
    CHECK_EQ_INT(s_read("cunit", "cunit-2.1.3-all-Results.xml", NULL, "test_eq", &r), 0);
    s_check_fail(&r, "test_eq", "assert", "CU_ASSERT_EQUAL(1 + 1,3)", "cu.c:8");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cunit", "cunit-2.1.3-all-Results.xml", NULL, "math::test_fatal", &r),
                 0);
    s_check_fail(&r, "math::test_fatal", "assert", "CU_ASSERT_EQUAL_FATAL(2,5)", "cu.c:11");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cunit", "cunit-2.1.3-all-Results.xml", NULL, "test_ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cunit", "cunit-2.1.3-all-Results.xml", NULL, "other::test_ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* A crash truncates the report: malformed, whatever the test. */
    CHECK_EQ_INT(s_read("cunit", "cunit-2.1.3-crash-Results.xml", NULL, "test_crash", &r),
                 WH_EPARSE);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("cunit", NULL, NULL, "test_eq", &r), WH_EREPORT);
    wh_test_result_clear(&r);
    /* A JUnit file is not a CUnit report. */
    CHECK_EQ_INT(s_read("cunit", "junit-generic.xml", NULL, "test_eq", &r), WH_EPARSE);
    wh_test_result_clear(&r);
}

/* CUnit writes "<prefix>-Results.xml": with the prefix as the report path,
 * the reader adopts that file as the report (and it is gone afterwards, so
 * that the next run cannot read it again). */
static void test_cunit_adopt(void)
{
    char dir[] = "/tmp/wh-fwx.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *src = wh_path_join(s_reports, "cunit-2.1.3-all-Results.xml");
    char *report = wh_path_join(dir, "slot0.report");
    char *alt = wh_strdup_printf("%s-Results.xml", report);
    char *buf = NULL;
    size_t len = 0;
    CHECK_EQ_INT(wh_read_file(src, 1 << 20, &buf, &len), 0);
    CHECK_EQ_INT(wh_write_file(alt, buf, len), 0);
    const wh_framework_t *f = wh_framework_find("cunit");
    wh_test_result_t r;
    char *err = NULL;
    CHECK_EQ_INT(f->read(report, NULL, 0, "test_eq", NULL, &r, &err), 0);
    CHECK(err == NULL);
    s_check_fail(&r, "test_eq", "assert", "CU_ASSERT_EQUAL(1 + 1,3)", "cu.c:8");
    wh_test_result_clear(&r);
    CHECK(access(report, F_OK) == 0);
    CHECK(access(alt, F_OK) != 0);
    unlink(report);
    rmdir(dir);
    free(buf);
    free(alt);
    free(report);
    free(src);
}

static void test_criterion(void)
{
    wh_test_result_t r;
    const char *all = "criterion-2.4.1-all.xml";
    CHECK_EQ_INT(s_read("criterion", all, NULL, "math::eq", &r), 0);
    s_check_fail(&r, "math::eq", "assert", "sum is 2", "crit.c:4");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", all, NULL, "eq", &r), 0);
    s_check_fail(&r, "eq", "assert", "sum is 2", "crit.c:4");
    wh_test_result_clear(&r);
    /* Non-fatal expects: the XML lists them last-first; the first one
     * evaluated is the identity. */
    CHECK_EQ_INT(s_read("criterion", all, NULL, "math::nonfatal", &r), 0);
    s_check_fail(&r, "math::nonfatal", "assert", "The expression (1) == (2) is false.",
                 "crit.c:5");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", all, NULL, "ord::three", &r), 0);
    s_check_fail(&r, "ord::three", "assert", "first", "crit.c:10");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", all, NULL, "math::crash", &r), 0);
    s_check_fail(&r, "math::crash", "crash", "The test crashed.", "");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", all, NULL, "math::ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", all, NULL, "math::skipme", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", all, NULL, "math::disabled", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    /* Same name, other suite. */
    CHECK_EQ_INT(s_read("criterion", all, NULL, "other::eq", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* --filter=math/eq: the target failed, the rest are listed as skipped. */
    CHECK_EQ_INT(s_read("criterion", "criterion-2.4.1-filter-eq.xml", NULL, "math::eq", &r), 0);
    s_check_fail(&r, "math::eq", "assert", "sum is 2", "crit.c:4");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", "criterion-2.4.1-filter-eq.xml", NULL, "math::ok", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    /* A filter that matches nothing: exit 0, and no such test. */
    CHECK_EQ_INT(s_read("criterion", "criterion-2.4.1-filter-nope.xml", NULL, "math::nope", &r),
                 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", "malformed.xml", NULL, "math::eq", &r), WH_EPARSE);
    wh_test_result_clear(&r);
}

/* No report (the runner died before writing it): the console gives the
 * same fingerprints as the XML. */
static void test_criterion_console(void)
{
    const char *con = "criterion-2.4.1-all.console.txt";
    struct {
        const char *test, *kind, *msg, *loc;
    } want[] = {
        {"math::eq", "assert", "sum is 2", "crit.c:4"},
        {"nonfatal", "assert", "The expression (1) == (2) is false.", "crit.c:5"},
        {"ord::three", "assert", "first", "crit.c:10"},
        {"math::crash", "crash", "The test crashed.", ""},
        {"ord::abrt", "crash", "The test crashed.", ""},
        {"other::plain", "assert", "The expression 0 is false.", "crit.c:9"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        wh_test_result_t r;
        CHECK_EQ_INT(s_read("criterion", NULL, con, want[i].test, &r), 0);
        s_check_fail(&r, want[i].test, want[i].kind, want[i].msg, want[i].loc);
        wh_test_result_clear(&r);
    }
    wh_test_result_t r;
    /* Passing tests are named only in verbose mode. */
    CHECK_EQ_INT(s_read("criterion", NULL, con, "math::ok", &r), WH_EREPORT);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", NULL, "criterion-2.4.1-verbose-ok.console.txt", "math::ok",
                        &r),
                 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("criterion", NULL, "criterion-2.4.1-verbose-ok.console.txt", "math::eq",
                        &r),
                 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
}

static void test_unity(void)
{
    const char *con = "unity-handwritten.console.txt";
    wh_test_result_t r;
    CHECK_EQ_INT(
        s_read("unity", NULL, con, "test_FindFunction_ShouldReturnTheIndexForItemsInList", &r), 0);
    s_check_fail(&r, "test_FindFunction_ShouldReturnTheIndexForItemsInList", "assert",
                 "Expected 1 Was 0", "TestProductionCode.c:30");
    wh_test_result_clear(&r);
    const char *t2 = "test_FunctionWhichReturnsLocalVariable_ShouldReturnTheCurrentCounterValue";
    CHECK_EQ_INT(s_read("unity", NULL, con, t2, &r), 0);
    s_check_fail(&r, t2, "assert", "Expected 0x5A5A Was 0x1234. counter after reset",
                 "TestProductionCode.c:45");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("unity", NULL, con, "test_StringsMatch", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("unity", NULL, con,
                        "test_FunctionWhichReturnsLocalVariable_ShouldReturnCurrentCounter_"
                        "ButFailsBecauseThisTestIsActuallyFlawed",
                        &r),
                 0);
    CHECK_EQ_INT(r.status, WH_TR_SKIPPED);
    wh_test_result_clear(&r);
    /* A prefix of a name is not the name. */
    CHECK_EQ_INT(s_read("unity", NULL, con, "test_StringsMatc", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* No summary and no line for the target: the runner died. */
    CHECK_EQ_INT(s_read("unity", NULL, "unity-handwritten-died.console.txt", "test_StringsMatch",
                        &r),
                 WH_EREPORT);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("unity", NULL, NULL, "test_StringsMatch", &r), WH_EREPORT);
    wh_test_result_clear(&r);
    /* The run command redirected the console into {report}. */
    CHECK_EQ_INT(s_read("unity", con, NULL, "test_StringsMatch", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
}

int main(void)
{
    const char *src = getenv("WH_SOURCE_DIR");
    s_reports = wh_path_join(src ? src : "..", "tests/data/reports");
    RUN_TEST(test_presets);
    RUN_TEST(test_criterion_suffix);
    RUN_TEST(test_check);
    RUN_TEST(test_check_console);
    RUN_TEST(test_cunit);
    RUN_TEST(test_cunit_adopt);
    RUN_TEST(test_criterion);
    RUN_TEST(test_criterion_console);
    RUN_TEST(test_unity);
    free(s_reports);
    TEST_MAIN_END();
}
