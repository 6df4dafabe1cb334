/*
 * workstore — the embedded default's warm workspaces, kept across runs as
 * a node keeps its own: "work" in the cache folder (wh_cache_default_dir),
 * where the embedded node finds a workspace already set up for the same
 * project state, set-up command and test file (node/worker_ws.c's key) and
 * skips the set-up; least recently used ones go past WHITTLE_WORK_MAX
 * bytes (default 10 GiB; K, M, G suffixes), as on a node with --max-disk.
 * One whittle process uses the folder at a time (an flock on its ".lock");
 * another one at the same time gets a folder of its own in its run folder,
 * removed at its end, as before. `whittle cache stats` shows the folder and
 * `whittle cache clear` empties it.
 */
#ifndef WH_WORKSTORE_H
#define WH_WORKSTORE_H

#include <stdint.h>

/* The kept folder, created and locked (*lock_fd: close it to unlock);
 * NULL when there is no cache folder or another process holds it. */
char *wh_workstore_open(int *lock_fd);

/* The size cap in bytes ($WHITTLE_WORK_MAX, else 10 GiB). */
uint64_t wh_workstore_max(void);

/* The kept folder's path (NULL without a cache folder), its workspaces
 * (set up and ready) and its disk use in bytes. */
char *wh_workstore_stats(int *workspaces, uint64_t *bytes);

/* Removes every kept workspace: the number removed, WH_EUNAVAIL when a
 * run holds the folder now, or another negative error. */
int wh_workstore_clear(void);

#endif
