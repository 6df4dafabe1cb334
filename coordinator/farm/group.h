/*
 * group — clusters reduction run folders by root cause. Two runs belong
 * together when their fingerprints agree once the test's name is taken out
 * (kind, location, normalized message with the name masked), or when their
 * reduced tests share most statements (Jaccard >= 1/2 over the statement
 * lines, test name masked): two tests that trip over one library bug reduce
 * to the same few calls even when their asserts sit on different lines.
 * Reads summary.json and reduced.* of each folder; single-threaded.
 */
#ifndef WH_GROUP_H
#define WH_GROUP_H

#include <stddef.h>
#include <stdio.h>

#include "wh_common.h"

typedef struct wh_group wh_group_t;

/* Loads every sub-folder of dir holding a summary.json (symbolic links,
 * such as whittle-runs/latest, are skipped: their target is listed under
 * its own name). NULL with *err. */
wh_group_t *wh_group_load(const char *dir, char **err);
/* Loads the given run folders (those without a summary.json are left
 * out); each is named by its last path component. NULL with *err. */
wh_group_t *wh_group_load_dirs(const char *const *dirs, size_t n, char **err);
void wh_group_destroy(wh_group_t **gp);
/* Clusters the runs; afterwards wh_group_of gives each run's group id (the
 * smallest run index in its group; runs are sorted by folder name). */
void wh_group_cluster(wh_group_t *g);
size_t wh_group_runs(const wh_group_t *g);
const char *wh_group_run_name(const wh_group_t *g, size_t i);
const char *wh_group_run_test(const wh_group_t *g, size_t i);
size_t wh_group_of(const wh_group_t *g, size_t i);
/* Number of distinct groups after wh_group_cluster. */
size_t wh_group_count(const wh_group_t *g);

/* After wh_group_cluster: "N runs, M groups", then per group
 * "group K: KEY" and one "  NAME (TEST)" line per run. */
void wh_group_describe(const wh_group_t *g, wh_buf_t *b);

/* Loads, clusters and prints the groups of the given run folders to fp,
 * after "Groups (one root cause each): " (or says that none of them is
 * readable here: a remote coordinator's). On a folder that cannot be read,
 * a warning on stderr and WH_EPARSE. */
int wh_group_print_dirs(const char *const *dirs, size_t n, FILE *fp);

/* `whittle group RUNS_DIR`: prints one line per group. Exit status. */
int wh_group_cmd(int argc, char **argv);

#endif
