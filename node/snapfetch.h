/*
 * snapfetch — a node's side of a git snapshot (common/wh_snapshot.h): a job
 * spec that carries git_url is pointed at this node's own checkout of it
 * (WORKDIR/snapshots), made on a thread while the caller's tick function
 * keeps the slot's heartbeats going (a first clone can take minutes).
 */
#ifndef WH_SNAPFETCH_H
#define WH_SNAPFETCH_H

#include "wire.h"

/* Rewrites j->project (and j->reference when j->git_reference is set) to
 * local folders. tick(ctx) is called about every 100 ms while it works.
 * 0 (also when j has no snapshot), or -1 and *err. */
int wh_snapfetch(const char *workdir, wh_job_spec_t *j, void (*tick)(void *), void *ctx,
                 char **err);

#endif
