/*
 * wh_test — the few macros whittle's own unit tests use. A failed CHECK
 * prints file:line and the expression and marks the test failed; the
 * program's exit status is the number of failed checks (capped), so ctest
 * sees it.
 */
#ifndef WH_TEST_H
#define WH_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wh_test_failures;
static int wh_test_checks;

#define CHECK(cond)                                                          \
    do {                                                                     \
        wh_test_checks++;                                                    \
        if (!(cond)) {                                                       \
            wh_test_failures++;                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                       \
    do {                                                                         \
        long long wh_a_ = (long long)(a), wh_b_ = (long long)(b);                \
        wh_test_checks++;                                                        \
        if (wh_a_ != wh_b_) {                                                    \
            wh_test_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n",    \
                    __FILE__, __LINE__, #a, #b, wh_a_, wh_b_);                   \
        }                                                                        \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                       \
    do {                                                                         \
        const char *wh_a_ = (a), *wh_b_ = (b);                                   \
        wh_test_checks++;                                                        \
        if (!wh_a_ || !wh_b_ || strcmp(wh_a_, wh_b_) != 0) {                     \
            wh_test_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", \
                    __FILE__, __LINE__, #a, #b, wh_a_ ? wh_a_ : "(null)",        \
                    wh_b_ ? wh_b_ : "(null)");                                   \
        }                                                                        \
    } while (0)

#define RUN_TEST(fn)                                     \
    do {                                                 \
        int wh_before_ = wh_test_failures;               \
        fn();                                            \
        fprintf(stderr, "%s %s\n",                       \
                wh_test_failures == wh_before_ ? "ok  " : "FAIL", #fn); \
    } while (0)

#define TEST_MAIN_END()                                                        \
    do {                                                                       \
        fprintf(stderr, "%d checks, %d failed\n", wh_test_checks, wh_test_failures); \
        return wh_test_failures > 100 ? 100 : wh_test_failures;                \
    } while (0)

#endif
