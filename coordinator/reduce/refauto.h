/*
 * refauto — `--reference auto`: the version without the bug, picked from
 * the project's git repository.
 *
 * A project is a git project here only when its test file is tracked by the
 * repository that holds it (identity.c's rule): a fixture copied under some
 * other repository's folder but not tracked by it is not. In a git project
 * the bug is usually an uncommitted change, or commits on a branch:
 *  - a tracked file under the project other than the test file differs from
 *    HEAD (staged or not; `git status`): the reference is HEAD;
 *  - else, with an upstream branch (@{u}) whose merge base with HEAD is not
 *    HEAD itself: the reference is that merge base;
 *  - else none, and why.
 * The test file's own uncommitted edits never count: the reference is the
 * picked commit's tree with the current test file (each candidate, and the
 * original, is written over the reference's test file when run there).
 *
 * git runs with an argument vector and --no-optional-locks: nothing here
 * writes to the user's repository (no index refresh is stored).
 */
#ifndef WH_REFAUTO_H
#define WH_REFAUTO_H

#include "job.h"

typedef struct {
    char *rev;  /* full commit id of the version without the bug; NULL: none */
    char *name; /* what rev is: "HEAD", "the merge base with origin/main"; NULL: none */
    char *why;  /* why rev, or why none, one clause (never NULL after a pick) */
    int git;    /* the project is a git project (its test file is tracked) */
} wh_refauto_t;

/* Picks the reference for the test file `file` (relative to project, or to
 * the current folder) of `project`. 0 with out filled (out->rev NULL: no
 * reference, out->why says why), or WH_ENOMEM. Call wh_refauto_clear. */
int wh_refauto_pick(const char *project, const char *file, wh_refauto_t *out);
void wh_refauto_clear(wh_refauto_t *a);

/* `whittle reduce`'s reference option before wh_job_validate: "none"
 * turns the check off; an explicit folder or revision is kept; unset or
 * "auto" picks one (j->reference becomes the commit id, j->ref_picked and
 * j->ref_why say what and why), or none and j->ref_why says why (in a
 * folder that is not a git project too). With a cluster and no --snapshot
 * git the nodes may not see an export: auto picks nothing there. *line
 * (NULL when there is nothing to say: a given reference) is the console's
 * line. 0 or WH_ENOMEM. */
int wh_refauto_apply(wh_job_t *j, int cluster, char **line);

#endif
