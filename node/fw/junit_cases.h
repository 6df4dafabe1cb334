/*
 * junit_cases — the test cases of a JUnit XML report, as a list: every
 * <testcase> at any depth (testsuites may nest), with the innermost
 * enclosing <testsuite>'s name, and how it ended. `whittle reduce
 * --from-junit` reads it to find the failing tests; the junit, cmocka,
 * gtest and ctest presets find their one target with the same walk (the
 * xml-level half is in fw_util.h).
 *
 * Status: a <failure> child is FAILED, an <error> child ERROR (whichever
 * comes first), a <skipped> child or status="notrun"/"disabled" or
 * result="skipped"/"suppressed" SKIPPED, anything else PASSED.
 */
#ifndef WH_JUNIT_CASES_H
#define WH_JUNIT_CASES_H

#include <stddef.h>

typedef enum {
    WH_JC_PASSED = 0,
    WH_JC_FAILED,  /* <failure> */
    WH_JC_ERROR,   /* <error> */
    WH_JC_SKIPPED,
} wh_jc_status_t;

typedef struct {
    char *name;      /* the name attribute */
    char *classname; /* "" when none */
    char *suite;     /* innermost enclosing testsuite's name, "" when none */
    char *file;      /* the file attribute (gtest, pytest), "" when none */
    char *message;   /* a failure's message attribute, else its text's first line; "" */
    char *output;    /* the text of its <system-out> (ctest keeps the test's output there), "" */
    wh_jc_status_t status;
} wh_junit_case_t;

/* Reads every test case of the report at path, in document order. 0 with
 * *cases (free with wh_junit_cases_free) and *n; WH_EREPORT (no file or an
 * empty one) or WH_EPARSE (malformed, or the root is neither <testsuites>
 * nor <testsuite>) with a one-line *err naming the file. */
int wh_junit_cases_read(const char *path, wh_junit_case_t **cases, size_t *n, char **err);
void wh_junit_cases_free(wh_junit_case_t *cases, size_t n);

/* "passed", "failed", "error", "skipped". */
const char *wh_jc_status_name(wh_jc_status_t s);
/* 1 for FAILED and ERROR. */
int wh_jc_failing(wh_jc_status_t s);

#endif
