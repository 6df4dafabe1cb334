/*
 * fw_failing — the failing test functions that a whole test program's
 * console output names. Most C projects register one test program with
 * CTest (cJSON's misc_tests, a cmocka_run_group_tests main); ctest then
 * knows only that the program failed, but its output (LastTest.log, the
 * JUnit <system-out>) names each failing function in its framework's own
 * grammar. `whittle reduce --from-ctest` splits such a test into those
 * functions and reduces each.
 *
 * Grammars, tried in this order; the first that names a failure wins:
 *
 *   bracket    cmocka and GoogleTest: "[  FAILED  ] NAME" (gtest adds
 *              " (N ms)" or ", where ..."); the summary's "[  FAILED  ] N
 *              test(s), listed below:" is no name.
 *   unity      "file.c:12:NAME:FAIL" and "file.c:12:NAME:FAIL: message".
 *   check      "file.c:12:F:tcase:NAME:0: message" (and E for errors).
 *   cunit      basic mode: "  Test: NAME ...FAILED" (verbose) or
 *              "Suite S, Test NAME had failures:" (normal).
 *   criterion  "[FAIL] suite::NAME: ..." (colours stripped); the name is
 *              "suite::NAME", as whittle lists Criterion tests.
 *
 * A function that started and never ended (the program died while it
 * ran: a crash, a sanitizer report) is failing too, after those the
 * grammar names (its grammar "bracket" or "cunit" when it is the only one).
 *
 * The parser does no I/O and keeps no state: any thread may call it. At
 * most WH_FW_FAILING_MAX names are returned (each once, in the order of
 * their first line).
 */
#ifndef WH_FW_FAILING_H
#define WH_FW_FAILING_H

#include <stddef.h>

#define WH_FW_FAILING_MAX 256

typedef struct {
    char *name; /* the function (Criterion: "suite::name", gtest: "Suite.Name") */
    char *file; /* the file the line names (basename), "" when it names none */
    int died;   /* the program died while it ran: it started and never ended
                 * (fw_segment.h), as when ASan aborts the whole program */
} wh_fw_failing_t;

/* Parses text[0, len). 0 with *v (free with wh_fw_failing_free), *n (0
 * when no grammar names a failure) and *grammar (a static name, NULL when
 * none matched; grammar may be NULL); WH_ENOMEM. */
int wh_fw_failing_parse(const char *text, size_t len, wh_fw_failing_t **v, size_t *n,
                        const char **grammar);
void wh_fw_failing_free(wh_fw_failing_t *v, size_t n);

#endif
