/*
 * treejob — a statement-tree parse on its own thread. See treejob.h.
 */
#define _GNU_SOURCE
#include "treejob.h"
#include "wh_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct wh_treejob {
    pthread_t th;
    atomic_int done;
    char *file, *test, *compdb, *base;
    char **args;
    int nargs;
    wh_compile_cmd_t cmd;
    int has_cmd;
    int allow;
    void (*on_done)(void *ctx);
    void *ctx;
    /* result */
    int rc;
    wh_tree_t *tree;
    char *err;
};

static void s_free(wh_treejob_t *j)
{
    free(j->file);
    free(j->test);
    free(j->compdb);
    free(j->base);
    for (int i = 0; i < j->nargs; i++)
        free(j->args[i]);
    free(j->args);
    wh_compile_cmd_clear(&j->cmd);
    wh_tree_destroy(&j->tree);
    free(j->err);
    free(j);
}

static void *s_main(void *arg)
{
    wh_treejob_t *j = arg;
    wh_tree_opts_t o = {j->compdb, (const char *const *)j->args, j->nargs,
                        j->has_cmd ? &j->cmd : NULL, j->allow, j->base};
    j->rc = wh_tree_load(j->file, j->test, &o, &j->tree, &j->err);
    atomic_store(&j->done, 1);
    if (j->on_done)
        j->on_done(j->ctx);
    return NULL;
}

wh_treejob_t *wh_treejob_start(const char *file, const char *test, const wh_tree_opts_t *opts,
                               void (*on_done)(void *ctx), void *ctx)
{
    wh_treejob_t *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->on_done = on_done;
    j->ctx = ctx;
    int bad = !(j->file = strdup(file)) || !(j->test = strdup(test));
    if (opts) {
        j->allow = opts->allow_errors;
        if (opts->compdb_dir)
            bad |= !(j->compdb = strdup(opts->compdb_dir));
        if (opts->base)
            bad |= !(j->base = strdup(opts->base));
        if (opts->cmd && opts->cmd->argc > 0) {
            bad |= wh_compile_cmd_copy(&j->cmd, opts->cmd) != 0;
            j->has_cmd = 1;
        }
        if (opts->nargs > 0) {
            j->args = calloc((size_t)opts->nargs, sizeof *j->args);
            bad |= !j->args;
            for (int i = 0; j->args && i < opts->nargs; i++) {
                bad |= !(j->args[i] = strdup(opts->args[i]));
                j->nargs = i + 1;
            }
        }
    }
    if (bad || pthread_create(&j->th, NULL, s_main, j) != 0) {
        s_free(j);
        return NULL;
    }
    return j;
}

int wh_treejob_done(const wh_treejob_t *j)
{
    return atomic_load(&((wh_treejob_t *)j)->done);
}

int wh_treejob_finish(wh_treejob_t **jp, wh_tree_t **tree, char **err)
{
    wh_treejob_t *j = *jp;
    *jp = NULL;
    pthread_join(j->th, NULL);
    int rc = j->rc;
    *tree = j->tree;
    *err = j->err;
    j->tree = NULL;
    j->err = NULL;
    s_free(j);
    return rc;
}
