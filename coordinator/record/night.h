/*
 * night — one report for a batch of failures (`reduce --from-ctest`,
 * `--from-junit`; issue 35): OUT/night.json and OUT/night.html beside the
 * run folders. Every failure of the batch is a row: its group (root cause),
 * its state (reduced, partial: its budget was spent, answered: by its
 * group's reduced test, failed, skipped) with why, the builds it spent; each
 * group shows its reduced test and diff. Each run folder's report.html links
 * the page (report.h looks for ../night.html), and is written again here so
 * that it does.
 *
 * Reads the run folders' summary.json, reduced.<ext> and reduced.diff;
 * writes the two files atomically. Self-contained HTML, everything from the
 * user's files escaped.
 */
#ifndef WH_NIGHT_H
#define WH_NIGHT_H

#include <stddef.h>

typedef struct {
    const char *test, *file;
    const char *dir;   /* its run folder (reduced, partial, failed), or NULL */
    const char *state; /* "reduced", "partial", "answered", "failed", "skipped" */
    const char *why;   /* failed or skipped: the one-line reason; else NULL */
    int group;         /* 1-based group, 0: none (skipped) */
    int first_builds;  /* its original's run (its first run or its reduction's), 0 if none */
} wh_night_row_t;

typedef struct {
    const char *key;   /* what the group's failures share, one line */
    int rep;           /* the row whose run folder answers the group, or -1 */
} wh_night_group_t;

/* Writes out/night.json and out/night.html, then each row's run folder's
 * report.html again. 0, or a negative WH_E* with *err (malloc'ed). */
int wh_night_write(const char *out, const wh_night_row_t *rows, size_t n,
                   const wh_night_group_t *groups, size_t ngroups, char **err);

#endif
