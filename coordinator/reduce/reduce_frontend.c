/*
 * reduce_frontend — a job's front end (the precheck's preamble and the UB
 * guard's parse of the original) set up apart from the rest of its
 * preparation (wh_reduction_identify), on a thread the daemon chooses,
 * while the original runs on a slot: the original's run needs only the
 * test file's text and the job's identity, the walk needs the front end.
 * Most of a job's libclang time is here (the tree's parse is the rest), so
 * a daemon handed many jobs at once queues every original first and sets
 * the front ends up after them (issue 35: 200 jobs' preparations at once
 * kept the 32 slots waiting for all of them).
 *
 * The set-up copies its inputs when it is planned (on the job's thread), so
 * the thread that runs it reads nothing of the job; the job takes the
 * result on its own thread, and drops it when the tree has been parsed
 * again since (the exact tree after the baseline opens its own). Part of
 * the reduce module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"

#include <stdlib.h>
#include <string.h>

struct wh_frontend {
    unsigned gen;            /* r->tree_gen it was planned for */
    char *path;
    char *text;
    size_t len;
    int do_pc, do_ub;
    /* the precheck's options (red_precheck_opts), copied */
    char **pc_args;
    int pc_nargs, pc_clang, pc_ub;
    /* the UB guard's: the tree's compile arguments, copied */
    char **ub_args;
    int ub_nargs;
    /* the results */
    wh_precheck_t *pc;
    char *pc_err;
    wh_ubguard_t *ub;
    char *ub_err;
    uint64_t planned_ms, ran_ms;
};

static void s_free_args(char **a, int n)
{
    for (int i = 0; a && i < n; i++)
        free(a[i]);
    free(a);
}

/* A copy of n strings (n + 1 entries, the last NULL); NULL when out of memory. */
static char **s_copy_args(const char *const *a, int n)
{
    char **c = calloc((size_t)n + 1, sizeof *c);
    for (int i = 0; c && i < n; i++) {
        if (!(c[i] = strdup(a[i]))) {
            s_free_args(c, i);
            return NULL;
        }
    }
    return c;
}

void wh_frontend_destroy(wh_frontend_t **fep)
{
    wh_frontend_t *fe = *fep;
    if (!fe)
        return;
    free(fe->path);
    free(fe->text);
    s_free_args(fe->pc_args, fe->pc_nargs);
    s_free_args(fe->ub_args, fe->ub_nargs);
    wh_precheck_destroy(&fe->pc);
    free(fe->pc_err);
    wh_ubguard_destroy(&fe->ub);
    free(fe->ub_err);
    free(fe);
    *fep = NULL;
}

int red_frontend_plan(wh_reduction_t *r, wh_frontend_t **fep)
{
    *fep = NULL;
    int do_pc = r->job.precheck != WH_PRECHECK_OFF, do_ub = r->job.ub_guard != 0;
    if (!do_pc && !do_ub)
        return 0;
    const wh_tree_t *t = r->tree;
    wh_frontend_t *fe = calloc(1, sizeof *fe);
    if (!fe)
        return WH_ENOMEM;
    fe->gen = r->tree_gen;
    fe->do_pc = do_pc;
    fe->do_ub = do_ub;
    fe->planned_ms = wh_now_ms();
    fe->path = wh_path_join(r->job.project, r->job.file);
    fe->text = malloc(t->text_len + 1);
    int ok = fe->path && fe->text;
    if (fe->text) {
        memcpy(fe->text, t->text, t->text_len);
        fe->text[t->text_len] = '\0';
        fe->len = t->text_len;
    }
    wh_precheck_opts_t o;
    if (ok && do_pc) {
        ok = red_precheck_opts(r, &o) == 0;
        if (ok) {
            fe->pc_args = s_copy_args(o.args, o.nargs);
            fe->pc_nargs = fe->pc_args ? o.nargs : 0;
            fe->pc_clang = o.clang_compiler;
            fe->pc_ub = o.ub_guard;
            ok = fe->pc_args != NULL;
            free((char *)o.file);
            free((void *)o.args);
        }
        red_precheck_flags(r);
    }
    if (ok && do_ub) {
        fe->ub_args = s_copy_args((const char *const *)t->cc_args, t->cc_nargs);
        fe->ub_nargs = fe->ub_args ? t->cc_nargs : 0;
        ok = fe->ub_args != NULL;
    }
    if (!ok) {
        wh_frontend_destroy(&fe);
        return WH_ENOMEM;
    }
    r->fe_wait = 1;
    *fep = fe;
    return 0;
}

void wh_frontend_run(wh_frontend_t *fe)
{
    uint64_t t0 = wh_now_ms();
    if (fe->do_pc) {
        wh_precheck_opts_t o = {fe->path, (const char *const *)fe->pc_args, fe->pc_nargs,
                                fe->pc_clang, fe->pc_ub, NULL, NULL};
        fe->pc = wh_precheck_new(&o, fe->text, fe->len, &fe->pc_err);
    }
    if (fe->do_ub) {
        wh_ubguard_opts_t o = {fe->path, (const char *const *)fe->ub_args, fe->ub_nargs, NULL,
                               NULL};
        fe->ub = wh_ubguard_new(&o, fe->text, fe->len, &fe->ub_err);
    }
    fe->ran_ms = wh_now_ms() - t0;
}

void wh_reduction_frontend_done(wh_reduction_t *r, wh_frontend_t **fep)
{
    wh_frontend_t *fe = *fep;
    if (!fe)
        return;
    if (fe->gen != r->tree_gen || !r->fe_wait) {
        /* the tree was parsed again: that tree's own set-up counts */
        wh_frontend_destroy(fep);
        return;
    }
    r->fe_wait = 0;
    if (fe->do_pc) {
        red_precheck_close(r, 0);
        wh_precheck_destroy(&r->pc);
        r->pc_ok = 0;
        r->pc = fe->pc;
        fe->pc = NULL;
        red_precheck_said(r, fe->pc_err);
        fe->pc_err = NULL;
    }
    if (fe->do_ub) {
        red_femo_clear(r);
        wh_ubguard_destroy(&r->ub);
        free(r->ub_off);
        r->ub_off = NULL;
        r->ub = fe->ub;
        fe->ub = NULL;
        red_ubguard_said(r, fe->ub_err);
        fe->ub_err = NULL;
    }
    wh_record_log(r->rec, "front end (precheck, UB guard) set up in %llu ms, taken %llu ms after "
                  "it was planned", (unsigned long long)fe->ran_ms,
                  (unsigned long long)(wh_now_ms() - fe->planned_ms));
    wh_frontend_destroy(fep);
    if (r->state != RED_BASELINE)
        return; /* failed or aborted meanwhile */
    if (r->fe_walk) { /* the fingerprint came from the cache */
        r->fe_walk = 0;
        red_begin_walk(r);
    } else if (r->fe_fp && !r->treejob && !r->pc_pending && !r->ub_pending) {
        r->fe_fp = 0;
        red_take_fingerprint(r, &r->pending_fp);
        wh_fp_clear(&r->pending_fp);
    }
}
