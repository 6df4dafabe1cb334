/*
 * Tests of node/fw/fw_failing: the failing functions a whole test
 * program's output names, on real console output (cmocka 1.1.5 and
 * googletest 1.12.1 as ctest 3.25 kept it in <system-out>, Check 0.15.2,
 * Criterion 2.4.1, CUnit 2.1-3; tests/data/reports) and Unity's grammar,
 * plus text that names nothing.
 */
#define _GNU_SOURCE
#include "fw_failing.h"
#include "framework.h"
#include "fw_segment.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_reports;

/* "grammar: name@file name@file ..." of a text. */
static char *s_parse(const char *text, size_t len)
{
    wh_fw_failing_t *v = NULL;
    size_t n = 0;
    const char *g = NULL;
    int rc = wh_fw_failing_parse(text, len, &v, &n, &g);
    wh_buf_t b = WH_BUF_INIT;
    wh_buf_printf(&b, "%s:", rc ? "error" : g ? g : "none");
    for (size_t i = 0; i < n; i++)
        wh_buf_printf(&b, " %s@%s", v[i].name, v[i].file);
    wh_fw_failing_free(v, n);
    return wh_buf_detach(&b);
}

/* The same for a sample file of tests/data/reports. */
static char *s_parse_file(const char *sample)
{
    char *path = wh_path_join(s_reports, sample), *text = NULL;
    size_t len = 0;
    int rc = wh_read_file(path, 1u << 20, &text, &len);
    free(path);
    char *got = rc ? strdup("unreadable") : s_parse(text, len);
    free(text);
    return got;
}

#define CHECK_PARSE_FILE(sample, want)         \
    do {                                       \
        char *g_ = s_parse_file(sample);       \
        CHECK_EQ_STR(g_, want);                \
        free(g_);                              \
    } while (0)

#define CHECK_PARSE(text, want)                \
    do {                                       \
        char *g_ = s_parse(text, strlen(text)); \
        CHECK_EQ_STR(g_, want);                \
        free(g_);                              \
    } while (0)

/* cmocka and gtest as ctest's JUnit keeps them (<system-out>, entities
 * and all: the lines are the same): each name once, summaries skipped. */
static void test_bracket(void)
{
    CHECK_PARSE_FILE("ctest-3.25-cm_all.xml",
                     "bracket: test_eq@ test_true@ test_fail_msg@ test_str@");
    CHECK_PARSE_FILE("ctest-3.25-gt_eq.xml", "bracket: Math.Eq@");
    CHECK_PARSE("[  FAILED  ] Param/P.Odd/1, where GetParam() = 3 (0 ms)\n",
                "bracket: Param/P.Odd/1@");
    CHECK_PARSE("[  FAILED  ] 2 tests, listed below:\n", "none:");
}

static void test_unity(void)
{
    CHECK_PARSE_FILE("unity-handwritten.console.txt",
                     "unity: test_FindFunction_ShouldReturnTheIndexForItemsInList@TestProductionCode.c "
                     "test_FunctionWhichReturnsLocalVariable_ShouldReturnTheCurrentCounterValue@"
                     "TestProductionCode.c");
    /* cJSON's runner prints absolute paths and a bare FAIL. */
    CHECK_PARSE("/tmp/cjson/tests/misc_tests.c:205:typecheck_functions_should_check_type:FAIL\r\n"
                "/tmp/cjson/tests/misc_tests.c:300:other:PASS\n",
                "unity: typecheck_functions_should_check_type@misc_tests.c");
    CHECK_PARSE("x.c:3:name:FAILED_TO_LOOK\n", "none:");
}

static void test_check(void)
{
    CHECK_PARSE_FILE("check-0.15.2-all.console.txt",
                     "check: test_eq@ck.c test_crash@ck.c test_nonfatal@ck.c");
}

static void test_cunit(void)
{
    CHECK_PARSE_FILE("cunit-2.1.3-basic-normal.console.txt", "cunit: test_sum@");
    CHECK_PARSE_FILE("cunit-2.1.3-basic-verbose.console.txt", "cunit: test_sum@");
}

static void test_criterion(void)
{
    CHECK_PARSE_FILE("criterion-2.4.1-all.console.txt",
                     "criterion: math::eq@ math::crash@ math::nonfatal@ ord::three@ ord::abrt@ "
                     "other::plain@");
    /* On a terminal the markers are coloured. */
    CHECK_PARSE("\033[0;31m[FAIL] \033[0mmath::eq: (0.00s)\n", "criterion: math::eq@");
}

/* Output that names no failure; a passing run; no text at all. */
static void test_nothing(void)
{
    CHECK_PARSE("all good\n[       OK ] test_ok\n", "none:");
    CHECK_PARSE_FILE("criterion-2.4.1-verbose-ok.console.txt", "none:");
    wh_fw_failing_t *v = (wh_fw_failing_t *)1;
    size_t n = 7;
    CHECK_EQ_INT(wh_fw_failing_parse(NULL, 0, &v, &n, NULL), 0);
    CHECK(v == NULL && n == 0);
}

/* At most WH_FW_FAILING_MAX names, each once. */
static void test_cap(void)
{
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < WH_FW_FAILING_MAX + 10; i++)
        wh_buf_printf(&b, "[  FAILED  ] t%d\n[  FAILED  ] t%d\n", i, i);
    wh_fw_failing_t *v = NULL;
    size_t n = 0;
    CHECK_EQ_INT(wh_fw_failing_parse(b.buf, b.len, &v, &n, NULL), 0);
    CHECK_EQ_INT(n, WH_FW_FAILING_MAX);
    CHECK(n && !strcmp(v[n - 1].name, "t255"));
    wh_fw_failing_free(v, n);
    wh_buf_free(&b);
}


/* A cmocka program killed by ASan in its second function: the first
 * failed on its own; the second started and never ended, so it failed
 * too (issue 33, case 3), after those the grammar names. */
static const char s_died[] =
    "[==========] Running 3 test(s).\n"
    "[ RUN      ] test_sum\n"
    "[  ERROR   ] --- 0x7 != 0x4\n"
    "[   LINE   ] --- /w/tests/test_bag.c:18: error: Failure!\n"
    "[  FAILED  ] test_sum\n"
    "[ RUN      ] test_len\n"
    "[       OK ] test_len\n"
    "[ RUN      ] test_overflow\n";

static void test_died(void)
{
    CHECK_PARSE(s_died, "bracket: test_sum@ test_overflow@");
    wh_fw_failing_t *v = NULL;
    size_t n = 0;
    CHECK(wh_fw_failing_parse(s_died, strlen(s_died), &v, &n, NULL) == 0);
    CHECK(n == 2 && !v[0].died && v[1].died);
    wh_fw_failing_free(v, n);
    /* Killed in its only function: named by its start line alone. */
    CHECK_PARSE("[ RUN      ] test_a\n", "bracket: test_a@");
    /* Every function ended: nothing died. */
    CHECK_PARSE("[ RUN      ] test_a\n[       OK ] test_a\n", "none:");
}

/* Each function's own part, and the one running when the program died. */
static void test_segment(void)
{
    size_t len = strlen(s_died);
    char *open = wh_seg_open(s_died, len);
    CHECK_EQ_STR(open, "test_overflow");
    free(open);
    CHECK(wh_seg_any(s_died, len));
    wh_seg_t g;
    wh_seg_find(s_died, len, "test_sum", &g);
    CHECK(g.state == WH_SEG_FAILED);
    char *part = strndup(s_died + g.start, g.end - g.start);
    CHECK_EQ_STR(part, "[  ERROR   ] --- 0x7 != 0x4\n"
                       "[   LINE   ] --- /w/tests/test_bag.c:18: error: Failure!\n");
    free(part);
    wh_test_result_t r;
    wh_test_result_init(&r, NULL);
    CHECK(wh_fw_segment_result(s_died + g.start, g.end - g.start, "test_sum", &r) == 0);
    CHECK(r.status == WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.location, "test_bag.c:18");
    CHECK_EQ_STR(r.fp.message, "0x7 != 0x4");
    wh_test_result_clear(&r);
    wh_seg_find(s_died, len, "test_len", &g);
    CHECK(g.state == WH_SEG_PASSED);
    wh_seg_find(s_died, len, "test_overflow", &g);
    CHECK(g.state == WH_SEG_OPEN && g.end == len);
    wh_seg_find(s_died, len, "test_never", &g);
    CHECK(g.state == WH_SEG_NONE);
    /* gtest's names, its end line's " (N ms)" and its summary. */
    static const char gt[] = "[ RUN      ] Bag.Sum\n[  FAILED  ] Bag.Sum (0 ms)\n"
                             "[ RUN      ] Bag.Over\n[       OK ] Bag.Over (1 ms)\n"
                             "[  FAILED  ] 1 test, listed below:\n[  FAILED  ] Bag.Sum\n";
    open = wh_seg_open(gt, strlen(gt));
    CHECK(open == NULL);
    wh_seg_find(gt, strlen(gt), "Bag.Sum", &g);
    CHECK(g.state == WH_SEG_FAILED);
    CHECK(wh_seg_name_is("Bag.Sum", "Sum") && wh_seg_name_is("Sum", "Bag.Sum"));
    CHECK(!wh_seg_name_is("Bag.Sum", "um") && !wh_seg_name_is("test_sum", "test_sum2"));
    /* CUnit's verbose basic mode: a verdict on the start line, or later. */
    static const char cu[] = "Suite: bag\n  Test: sum ...FAILED\n    1. t.c:9  - x == 3\n"
                             "  Test: len ...passed\n  Test: over ...";
    open = wh_seg_open(cu, strlen(cu));
    CHECK_EQ_STR(open, "over");
    free(open);
    wh_seg_find(cu, strlen(cu), "sum", &g);
    CHECK(g.state == WH_SEG_FAILED);
    static const char cu2[] = "  Test: noisy ...hello\npassed\n";
    open = wh_seg_open(cu2, strlen(cu2));
    CHECK(open == NULL);
    wh_seg_find(cu2, strlen(cu2), "noisy", &g);
    CHECK(g.state == WH_SEG_PASSED);
    /* No grammar: nothing started, nothing open. */
    CHECK(!wh_seg_any("plain text\n", 11));
    CHECK(wh_seg_open("plain text\n", 11) == NULL);
}

int main(void)
{
    const char *src = getenv("WH_SOURCE_DIR");
    s_reports = wh_path_join(src ? src : ".", "tests/data/reports");
    RUN_TEST(test_bracket);
    RUN_TEST(test_unity);
    RUN_TEST(test_check);
    RUN_TEST(test_cunit);
    RUN_TEST(test_criterion);
    RUN_TEST(test_nothing);
    RUN_TEST(test_cap);
    RUN_TEST(test_died);
    RUN_TEST(test_segment);
    free(s_reports);
    TEST_MAIN_END();
}
