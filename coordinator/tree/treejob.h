/*
 * treejob — wh_tree_load on a thread of its own, so that the thread that
 * drives a reduction (the pool's, which also answers heartbeats) never
 * waits for libclang: parsing a C++ test with its framework's headers takes
 * seconds.
 *
 * The owner starts a job, polls wh_treejob_done from its loop, and takes
 * the result with wh_treejob_finish (which joins). Only the owner thread
 * may call these; the parse thread touches nothing but the job.
 */
#ifndef WH_TREEJOB_H
#define WH_TREEJOB_H

#include "tree.h"

typedef struct wh_treejob wh_treejob_t;

/* Starts parsing test in file with opts (file, test, opts->cmd and
 * opts->args are copied; compdb_dir too). on_done (NULL: none) is called
 * on the parse's thread once wh_treejob_done says 1, so that the owner's
 * loop wakes up at once: it may only do what is safe there (write to an
 * fd). NULL when the thread cannot be started (out of memory, no
 * threads). */
wh_treejob_t *wh_treejob_start(const char *file, const char *test, const wh_tree_opts_t *opts,
                               void (*on_done)(void *ctx), void *ctx);

/* 1 when the parse has finished. */
int wh_treejob_done(const wh_treejob_t *j);

/* Joins the thread (waiting if it still runs), hands over wh_tree_load's
 * result (*tree on success, *err on failure, both the caller's) and frees
 * the job; *j becomes NULL. Returns wh_tree_load's code. */
int wh_treejob_finish(wh_treejob_t **j, wh_tree_t **tree, char **err);

#endif
