/*
 * fromreport — the jobs of `whittle reduce --from-junit REPORT` and
 * `--from-ctest BUILD_DIR`: the failing tests a report names, each turned
 * into one reduction job (the flags' job with its own --test and the test
 * file that defines it, see testfind.h).
 *
 * ctest: Testing/Temporary/LastTestsFailed.log ("N:name" lines) is read
 * only when it is not older than LastTest.log of the same folder: ctest
 * leaves the file of an earlier failing run in place when a later run
 * passes, and its names would then be stale.
 */
#ifndef WH_FROMREPORT_H
#define WH_FROMREPORT_H

#include <stddef.h>

#include "ctestinfo.h"
#include "job.h"
#include "wh_common.h"

typedef struct {
    char *name, *classname, *suite; /* classname and suite: "" when unknown */
    char *output; /* what the test printed, when the report kept it (JUnit
                   * <system-out>, ctest's LastTest.log), else NULL */
} wh_failing_t;

/* The failed and errored cases of a JUnit report, in document order. 0 or
 * WH_E* with a one-line *err naming the file. */
int wh_failing_from_junit(const char *report, wh_failing_t **v, size_t *n, char **err);
/* The failed tests of the last ctest run in build_dir. 0 or WH_E* with a
 * one-line *err naming the file (and, for a stale list, why). */
int wh_failing_from_ctest(const char *build_dir, wh_failing_t **v, size_t *n, char **err);
void wh_failing_free(wh_failing_t *v, size_t n);

/* One validated job per failing case found among the test files: those
 * of tmpl->file (a path or a glob pattern inside tmpl->project), else,
 * with ct, the sources of the executable the CTest test runs. A case that
 * is no function but a whole test program is split into the failing
 * functions its output names (fw_failing.h), one job each (not under the
 * ctest preset, which cannot run one function). With ct, the commands the
 * template lacks come from the build (ctestinfo.h): a function run through
 * ctest (and the ctest preset) when the case is one, the program's own
 * command when it was split. What is not reduced gets one error line in
 * missing (without "whittle: error: ") and no job; a case found in
 * another file than the one it is named like is warned about on stderr;
 * two cases naming one test give one job. 0 with *jobs (wh_job_clear
 * each, then free) and *njobs; WH_E* with a one-line *err when the files
 * cannot be listed or a job is invalid. */
int wh_from_jobs(const wh_job_t *tmpl, const wh_failing_t *v, size_t n, const wh_ctest_t *ct,
                 wh_job_t **jobs, size_t *njobs, wh_buf_t *missing, char **err);

#endif
