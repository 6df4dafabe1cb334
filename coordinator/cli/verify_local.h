/*
 * verify_local — `whittle reduce --cluster ... --verify-local`: a second
 * opinion on a cluster's answer from the client's own machine. The
 * cluster's verify run happens on one of its nodes; when that node judged
 * every candidate too, nothing but its word says the reduced test fails
 * (DESIGN.md, "Trust"). Here the client copies the project into a fresh
 * folder of its own, runs the job's setup there, runs the original test to
 * take its fingerprint with its own eyes, then writes the reduced test the
 * coordinator sent (line-true) and runs it: it must fail the same way
 * (the job's --match), and pass on the reference when the job has one that
 * is a folder here. With the node library's runner and oracle, in
 * process, as the client's own user; never in the user's project.
 *
 * One thread; blocking (a setup and two or three builds).
 */
#ifndef WH_VERIFY_LOCAL_H
#define WH_VERIFY_LOCAL_H

#include <signal.h>
#include <stddef.h>

#include "job.h"

/* Verifies reduced (len bytes, the whole test file) for job j. Returns 0
 * when it fails the same way here (and *said is the console line); 3 when
 * it does not, or the original does not fail here as the cluster saw it;
 * 4 when the check could not run (a copy or setup that fails, a signal:
 * stop). *said (malloc'ed, one line) says why in every case. */
int wh_verify_local(const wh_job_t *j, const char *reduced, size_t len,
                    volatile sig_atomic_t *stop, char **said);

#endif
