/*
 * jobsnap — a job's project as a git snapshot (common/wh_snapshot.h): the
 * client side that makes one for `reduce --cluster --snapshot git`, the JSON
 * that carries it ("git": {url, rev, subdir, reference, patch_b64}), and the
 * coordinator side that checks it out before the job is validated and
 * parsed.
 */
#ifndef WH_JOBSNAP_H
#define WH_JOBSNAP_H

#include "job.h"

/* Client: replaces the job's project by a snapshot of it (git fields set;
 * project stays as the name the user knows). A --reference must be a git
 * revision (it becomes a commit id); url NULL: the "origin" remote. */
int wh_job_snapshot_make(wh_job_t *j, const char *url, char **err);
/* Coordinator: checks the snapshot out under root and points project (and
 * reference) at the local copies. 0 when the job has no snapshot. */
int wh_job_snapshot_local(wh_job_t *j, const char *root, char **err);

#endif
