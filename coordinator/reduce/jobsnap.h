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

/* Client (--snapshot tar): packs the project (common/wh_tar.h: without
 * .git, build* folders, the run folders and the --ignore globs) into
 * j->tar_data and sets tar_sha/tar_size; the path stays the name the user
 * knows. max_packed 0: WH_TAR_MAX_PACKED. A --reference is refused (only
 * the project travels). 0, WH_ETOOBIG (over a limit) or WH_EINVAL, with
 * *err one line. */
int wh_job_snapshot_tar(wh_job_t *j, uint64_t max_packed, unsigned *files, char **err);
/* Coordinator: unpacks the tar at blob (checked against j->tar_sha) into
 * trees/<sha> unless it is there, and points project at it. 0 when the job
 * has no tar; WH_EINVAL with *err when the bytes are not the hash or the
 * archive is refused (wh_tar_unpack). */
int wh_job_snapshot_tar_local(wh_job_t *j, const char *blob, const char *trees, char **err);

#endif
