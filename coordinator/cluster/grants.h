/*
 * grants — which folders of the cluster's hosts a client key may name as a
 * project (whittle-coordinator --grant KEY=ROOT, repeatable). A job that
 * does not travel as a snapshot names paths the coordinator and the nodes
 * read as they are; without a grant, one tenant could name another's
 * project (or any file the daemons can read) and have its setup print it
 * into its own run folder (issue 34). So a keyed client's project, folder
 * reference and compilation database must each resolve (realpath: every
 * symlink followed) to ROOT or below it for a ROOT granted to that key;
 * anything else is refused before the job is journaled, naming the path and
 * the key. Under --insecure (loopback only, every client one anonymous
 * owner) no key is known and every path is taken, as before.
 *
 * Threads: built on the main thread before the loop; wh_grants_check is
 * read-only and may be called from any thread.
 */
#ifndef WH_GRANTS_H
#define WH_GRANTS_H

#include "job.h"

typedef struct wh_grants wh_grants_t;

wh_grants_t *wh_grants_new(void);
void wh_grants_destroy(wh_grants_t **g);

/* Adds one "KEY=ROOT" (KEY a client key's base name, ROOT an existing
 * absolute folder, resolved now). 0, or WH_EINVAL with a one-line *err
 * naming the value. */
int wh_grants_add(wh_grants_t *g, const char *spec, char **err);

/* How many grants there are. */
int wh_grants_count(const wh_grants_t *g);

/* Checks job j (a path job; a git snapshot is the client's own) of client
 * key `key` (the ZAP user id, "client:NAME", or "" under --insecure, which
 * passes): its project, a reference that is a folder and its -p folder.
 * Each checked path is replaced by its resolved form, so what was checked
 * is what is read. 0, or WH_EINVAL with a one-line *err naming the path and
 * the key (or WH_ENOMEM). */
int wh_grants_check(const wh_grants_t *g, const char *key, wh_job_t *j, char **err);

#endif
