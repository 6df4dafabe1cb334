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
#include "runner.h"

/* A whole CTest test, judged as CTest judges it (cmCTestRunTest): a run
 * killed by a signal fails; else it passes when it exited 0 (or, with
 * PASS_REGULAR_EXPRESSION, whatever its exit status, when one of them
 * matches its output) and no FAIL_REGULAR_EXPRESSION matches; WILL_FAIL
 * turns that around. The run sees what CTest's would: the sanitizers'
 * leak checker on (ASan's default), the harness's console output instead
 * of its report (wh_fw_console_env), the test's own result read from its
 * part of that output (fw_segment.h). */
typedef struct {
    int will_fail;
    const char *pass_rx, *fail_rx; /* POSIX EREs, one per line; NULL: none */
} wh_whole_t;



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
