/*
 * foreign — whether the original failure belongs to another test. A
 * console --failure-regex without a (?<test>…) group names the target with
 * its first match, whichever test printed it: on a harness that runs every
 * test and prints descriptions, not function names (jsmn's "FAILED: desc
 * (at line N)"), another test's failure became the target's identity and
 * the target was reduced to nothing, exit 0. When the identity's line is in
 * the test file and inside the body of another function named test* (or
 * defined by a TEST-like macro), the run is refused instead.
 *
 * Pure functions of the job, the identity and the file's text; no I/O.
 */
#ifndef WH_FOREIGN_H
#define WH_FOREIGN_H

#include <stddef.h>

#include "job.h"
#include "wh_common.h"

/* A malloc'ed one-line reason when fp's location (`line N`, or `F:N` with
 * F the basename of the job's file) lies in the body of a test function
 * other than the one whose body opens at text[body_begin]; NULL otherwise,
 * and always NULL unless j is a console job whose --failure-regex has no
 * test group. */
char *wh_foreign_refusal(const wh_job_t *j, const wh_fp_t *fp, const char *text, size_t len,
                         size_t body_begin);

#endif
