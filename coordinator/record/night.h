/*
 * night — one report for a batch of failures (`reduce --from-ctest`,
 * `--from-junit`; issue 35): OUT/night.json and OUT/night.html beside the
 * run folders. Every failure of the batch is a row: its group (root cause),
 * its state (reduced, partial: its budget was spent, answered: by its
 * group's reduced test, unverified: a cluster's lone node's answer nobody
 * checked, failed, skipped) with why, the builds it spent; each
 * group shows its reduced test and diff. Each run folder's report.html links
 * the page (report.h looks for ../night.html), and is written again here so
 * that it does.
 *
 * Reads the run folders' summary.json, reduced.<ext> and reduced.diff, or,
 * for a batch run through a cluster (whose run folders are on the
 * coordinator's machine), the same taken out of each run's final message
 * (wh_night_run_json there, checked by wh_night_run_check here); writes the
 * two files atomically. Self-contained HTML, everything from the user's
 * files escaped.
 */
#ifndef WH_NIGHT_H
#define WH_NIGHT_H

#include <stddef.h>

typedef struct {
    const char *test, *file;
    const char *dir;   /* its run folder (reduced, partial, failed), or NULL */
    const char *state; /* "reduced", "partial", "answered", "unverified", "failed", "skipped"
                          (not found, or not started: the batch budget was spent) */
    const char *why;   /* failed or skipped: the one-line reason; else NULL */
    int group;         /* 1-based group, 0: none (skipped) */
    int first_builds;  /* its original's run (its first run or its reduction's), 0 if none */
    const char *run;   /* the run as a peer sent it (wh_night_run_json, checked): read
                          instead of dir, which is then the coordinator's path, shown
                          but never opened; NULL: dir is a folder here */
} wh_night_row_t;

typedef struct {
    const char *key;   /* what the group's failures share, one line */
    int rep;           /* the row whose run folder answers the group, or -1 */
    int priority;      /* its rank in the order groups were reduced in (1: first); 0 unknown */
    const char *first_seen; /* with a priority: the date an earlier night first saw its
                               root cause, NULL: new */
} wh_night_group_t;

/* A run summary is at most this many bytes (a final Progress's summary,
 * WH_WIRE_MAX_SUMMARY): the reduced test and diff are left out (null, and
 * "cut": true) of one that would be longer. */
#define WH_NIGHT_RUN_MAX (1u << 20)

/* The run in folder dir as one JSON object, for a client on another
 * machine: {"run": the folder's name, "dir": its path, "summary": its
 * summary.json, "reduced": the reduced test (compact), "diff": its diff,
 * "cut": whether they were left out for size}. Malloc'ed text of at most
 * WH_NIGHT_RUN_MAX bytes; NULL when the folder has no readable
 * summary.json or memory ran out. Any thread. */
char *wh_night_run_json(const char *dir);

/* Checks a run summary a peer sent (len bytes, no I/O): one JSON object as
 * wh_night_run_json writes it, every field of the expected type ("run" a
 * folder name; "summary" an object whose fingerprint's fields are strings
 * and whose counts are whole numbers >= 0). 0, or WH_EPROTO with *err one
 * line naming the field (malloc'ed). */
int wh_night_run_check(const char *text, size_t len, char **err);

/* Writes out/night.json and out/night.html, then each row's run folder's
 * report.html again. 0, or a negative WH_E* with *err (malloc'ed). */
int wh_night_write(const char *out, const wh_night_row_t *rows, size_t n,
                   const wh_night_group_t *groups, size_t ngroups, char **err);

#endif
