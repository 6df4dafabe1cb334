/*
 * whole — a whole CTest test judged as CTest judges it (oracle.h,
 * wh_whole_t): the reference side of `whittle reduce --from-ctest`, where
 * a reduced test keeps the fault only if the clean version's whole test
 * passes with it (its exit status, its sanitizer and leak reports, its
 * regexes), not only the one function.
 */
#ifndef WH_WHOLE_H
#define WH_WHOLE_H

#include <stddef.h>

#include "framework.h"
#include "oracle.h"
#include "runner.h"



/* test's result from its own part of a harness's console output
 * (fw_segment.h): failed, passed or skipped; missing (0 returned) when it
 * never started or never ended (a death, which the caller attributes).
 * 0 or WH_ENOMEM. */
int wh_whole_read(const char *console, size_t len, const char *test, wh_test_result_t *out);

/* Why the whole test fails ("exit status 23 (sanitizer(lsan,...))",
 * "FAIL_REGULAR_EXPRESSION 'x' matched", "killed by SIGSEGV"), malloc'ed,
 * or NULL when it passes. san: the kind of the run's first sanitizer
 * report, or NULL. An unusable regex fails the test, naming it. *oom is
 * set when the reason could not be allocated. */
char *wh_whole_judge(const wh_whole_t *w, const wh_run_result_t *rr, const char *console,
                     size_t len, const char *san, int *oom);

#endif
