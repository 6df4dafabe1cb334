/*
 * Tests of node/whole: a whole CTest test judged as CTest judges it (exit
 * status, a signal, PASS_ and FAIL_REGULAR_EXPRESSION, WILL_FAIL), and a
 * test's own result read from its part of a harness's console output.
 */
#define _GNU_SOURCE
#include "whole.h"
#include "wh_common.h"
#include "wh_test.h"

/* The reason (or "pass") for a run that exited code / died of sig. */
static char *s_judge(int will_fail, const char *prx, const char *frx, int code, int sig,
                     const char *out, const char *san)
{
    wh_whole_t w = {will_fail, prx, frx};
    wh_run_result_t rr = {0};
    rr.exit_code = code;
    rr.signaled = sig != 0;
    rr.term_signal = sig;
    int oom = 0;
    char *why = wh_whole_judge(&w, &rr, out, strlen(out), san, &oom);
    CHECK(!oom);
    return why ? why : strdup("pass");
}

#define CHECK_JUDGE(want, ...)                 \
    do {                                       \
        char *g_ = s_judge(__VA_ARGS__);       \
        CHECK_EQ_STR(g_, want);                \
        free(g_);                              \
    } while (0)

static void test_judge(void)
{
    CHECK_JUDGE("pass", 0, NULL, NULL, 0, 0, "all good\n", NULL);
    CHECK_JUDGE("exit status 1", 0, NULL, NULL, 1, 0, "", NULL);
    CHECK_JUDGE("exit status 23 (sanitizer(lsan,leak))", 0, NULL, NULL, 23, 0, "",
                "sanitizer(lsan,leak)");
    CHECK_JUDGE("killed by a signal (crash(SIGSEGV))", 0, NULL, NULL, 0, 11, "", NULL);
    /* A signal fails whatever WILL_FAIL says (CTest's "Exception"). */
    CHECK_JUDGE("killed by a signal (crash(SIGSEGV))", 1, NULL, NULL, 0, 11, "", NULL);
    /* PASS_REGULAR_EXPRESSION: the exit status does not count. */
    CHECK_JUDGE("pass", 0, "^x\nall (good|fine)", NULL, 3, 0, "all fine\n", NULL);
    CHECK_JUDGE("no PASS_REGULAR_EXPRESSION matched its output", 0, "all good", NULL, 0, 0,
                "all bad\n", NULL);
    CHECK_JUDGE("FAIL_REGULAR_EXPRESSION 'LEAK' matched its output", 0, NULL, "LEAK", 0, 0,
                "a LEAK here\n", NULL);
    /* WILL_FAIL turns a failure into a pass and a pass into a failure. */
    CHECK_JUDGE("pass", 1, NULL, NULL, 2, 0, "", NULL);
    CHECK_JUDGE("it passed, and its WILL_FAIL property says it must fail", 1, NULL, NULL, 0, 0,
                "", NULL);
    CHECK_JUDGE("CTest's regex '(' is no POSIX extended regex", 0, NULL, "(", 0, 0, "", NULL);
}

static void test_read(void)
{
    static const char out[] = "[ RUN      ] t_a\n[  ERROR   ] --- 1 != 2\n"
                              "[   LINE   ] --- /w/t.c:9: error: Failure!\n[  FAILED  ] t_a\n"
                              "[ RUN      ] t_b\n[       OK ] t_b\n[ RUN      ] t_c\n";
    wh_test_result_t r;
    CHECK_EQ_INT(wh_whole_read(out, strlen(out), "t_a", &r), 0);
    CHECK(r.status == WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "t.c:9");
    CHECK_EQ_STR(r.fp.message, "1 != 2");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(wh_whole_read(out, strlen(out), "t_b", &r), 0);
    CHECK(r.status == WH_TR_PASSED);
    wh_test_result_clear(&r);
    /* Still running when the program died, or never started: missing. */
    CHECK_EQ_INT(wh_whole_read(out, strlen(out), "t_c", &r), 0);
    CHECK(r.status == WH_TR_MISSING);
    CHECK_EQ_INT(wh_whole_read(out, strlen(out), "t_d", &r), 0);
    CHECK(r.status == WH_TR_MISSING);
}

int main(void)
{
    RUN_TEST(test_judge);
    RUN_TEST(test_read);
    TEST_MAIN_END();
}
