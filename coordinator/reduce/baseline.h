/*
 * baseline — whether the original run identifies a failure well enough to
 * reduce on, and what to tell the user when it does not (DESIGN.md "Trust":
 * a run whose failure cannot be identified stops; it never falls back to a
 * weaker identity the user did not ask for).
 *
 * An identity is refused when it is empty (no kind, location or message),
 * or when it is a bare crash (crash(SIG…) with no location and no message)
 * and the user did not pick --framework plain: any candidate that dies of
 * the same signal anywhere would then count as the same failure, so the
 * reduced test would be whatever crashes first, not the user's failure.
 *
 * Pure functions of the job and what the node reported; no I/O.
 */
#ifndef WH_BASELINE_H
#define WH_BASELINE_H

#include <stddef.h>

#include "job.h"
#include "wh_common.h"

/* Why the original run's result (status: a wh_test_status_t, fp: what it
 * observed) gives no usable identity for job j: a malloc'ed one-line reason
 * that names the test and says what to try; NULL when it is usable, or
 * when status is not MISSING or FAILED (passes and skips have their own
 * messages). out[0, out_len) is the run's output (NULL: not known): a
 * console regex that matched there, but another test's line, is said to
 * have matched that line, never to have matched nothing. */
char *wh_baseline_refusal(const wh_job_t *j, int status, const wh_fp_t *fp, const char *out,
                          size_t out_len);

/* 1 when fp identifies a failure under job j (the refusal's rule for a
 * FAILED result), e.g. a fingerprint read back from the cache. */
int wh_baseline_fp_usable(const wh_job_t *j, const wh_fp_t *fp);

/* The last n lines of text[0, len), each as "  | line\n" (malloc'ed; ""
 * for no text; NULL only when out of memory). */
char *wh_baseline_tail(const char *text, size_t len, int n);

/* text[0, len) with every path into a workspace copy of the project
 * (".../<64 hex key>/slot-N/" or ".../<key>/golden/", deleted when the run
 * ends) cut to the path inside the project ("src/request.c"); malloc'ed,
 * NULL only when out of memory. */
char *wh_baseline_unworkspace(const char *text, size_t len);

/* The first compiler error line of a build's output ("FILE:LINE:COL:
 * error: ..." or "fatal error:"), trimmed, malloc'ed; NULL when none. */
char *wh_baseline_first_error(const char *text);

/* The command a shell could not find, from a fault detail that says the
 * test command "exited 127" (not the build) and quotes the shell's "NAME: not found" line: NAME
 * (malloc'ed), else NULL. */
char *wh_baseline_not_found(const char *detail);

/* Why the reference run of the reduced test neither failed nor passed
 * (status MISSING), for the fault line of the summary (malloc'ed). */
char *wh_baseline_reference_unknown(const wh_job_t *j);

#endif
