/* A node's checkout of a job's git snapshot: see snapfetch.h. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapfetch.h"
#include "wh_common.h"
#include "wh_snapshot.h"

typedef struct {
    char *root;
    const wh_job_spec_t *j;
    char *project, *reference, *err;
    int rc;
    atomic_int done;
} s_fetch_t;

static void *s_main(void *arg)
{
    s_fetch_t *f = arg;
    const wh_job_spec_t *j = f->j;
    f->rc = wh_snapshot_checkout(f->root, j->git_url, j->git_rev, j->git_patch, j->git_patch_len,
                                 j->git_subdir, &f->project, &f->err);
    if (!f->rc && j->git_reference)
        f->rc = wh_snapshot_export(f->root, j->git_url, j->git_reference, j->git_subdir,
                                   &f->reference, &f->err);
    atomic_store(&f->done, 1);
    return NULL;
}

int wh_snapfetch(const char *workdir, wh_job_spec_t *j, void (*tick)(void *), void *ctx,
                 char **err)
{
    if (!j->git_url)
        return 0;
    s_fetch_t f = {.root = wh_path_join(workdir, "snapshots"), .j = j};
    pthread_t th;
    if (!f.root || pthread_create(&th, NULL, s_main, &f) != 0) {
        free(f.root);
        *err = strdup("cannot start the snapshot checkout");
        return -1;
    }
    while (!atomic_load(&f.done)) {
        if (tick)
            tick(ctx);
        usleep(100 * 1000);
    }
    pthread_join(th, NULL);
    free(f.root);
    if (f.rc) {
        *err = f.err ? f.err : strdup("snapshot checkout failed");
        free(f.project);
        free(f.reference);
        return -1;
    }
    free(j->project);
    j->project = f.project;
    if (f.reference) {
        free(j->reference);
        j->reference = f.reference;
    }
    return 0;
}
