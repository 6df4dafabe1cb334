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
 *
 * Twins. Jobs of one test file with the same flags and project snapshot
 * (a farm's jobs, a night's failures in one file) have the same precheck
 * set-up: its outcome (on or off and why, the warnings ignored) is kept
 * here by those inputs' hash, and a twin takes it instead of parsing the
 * original again. Its precheck threads then set their handles up as they
 * do for every thread but a job's first, when they first check for it, in
 * turn with the other jobs' checks (precheck_pool.h): the parse moves from
 * the preparation queue, where the twins' set-ups one after the other put
 * seconds between the first and the last job's walk (issue 35: the first
 * jobs then had the slots to themselves and ended long before the rest),
 * to the checks, which every walking job shares. The UB guard is set up
 * for each job (its handle is used on the pool's thread for that job).
 */
#define _GNU_SOURCE
#include "reduce_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The precheck outcomes of the set-ups done, by their inputs' hash: a
 * small ring (the newest replaces the oldest), for the process. */
#define S_TWINS 64
static struct s_twin {
    char key[65];            /* "" = free */
    int enabled;
    char *why, *ignored;
} s_twins[S_TWINS];
static int s_twin_next;
static pthread_mutex_t s_twin_mu = PTHREAD_MUTEX_INITIALIZER;

struct wh_frontend {
    unsigned gen;            /* r->tree_gen it was planned for */
    char key[65];            /* the precheck's inputs' hash (twins) */
    int twin, twin_enabled;  /* the precheck's outcome came from a twin */
    char *twin_why, *twin_ignored;
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
    free(fe->twin_why);
    free(fe->twin_ignored);
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
    if (ok && do_pc) {
        /* What the precheck's set-up reads: the project (its headers), the
         * file, its text and the arguments. */
        wh_sha256_t *h = wh_sha256_new();
        if ((ok = h != NULL)) {
            wh_sha256_field_str(h, "whittle-precheck-twin-v1");
            wh_sha256_field_str(h, r->snapshot);
            wh_sha256_field_str(h, fe->path);
            wh_sha256_field(h, fe->text, fe->len);
            char n[32];
            snprintf(n, sizeof n, "%d %d %d", fe->pc_nargs, fe->pc_clang, fe->pc_ub);
            wh_sha256_field_str(h, n);
            for (int i = 0; i < fe->pc_nargs; i++)
                wh_sha256_field_str(h, fe->pc_args[i]);
            wh_sha256_final_hex(&h, fe->key);
        }
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

/* A twin's outcome into fe: 1 when one was kept. */
static int s_twin_find(wh_frontend_t *fe)
{
    int found = 0;
    pthread_mutex_lock(&s_twin_mu);
    for (int i = 0; i < S_TWINS && !found; i++) {
        const struct s_twin *t = &s_twins[i];
        if (!t->key[0] || strcmp(t->key, fe->key) != 0)
            continue;
        fe->twin_why = t->why ? strdup(t->why) : NULL;
        fe->twin_ignored = t->ignored ? strdup(t->ignored) : NULL;
        found = (!t->why || fe->twin_why) && (!t->ignored || fe->twin_ignored);
        fe->twin_enabled = t->enabled;
    }
    pthread_mutex_unlock(&s_twin_mu);
    return found;
}

/* Keeps the outcome of fe's own set-up for its twins (one that libclang
 * could not make at all is not kept: it is tried again). */
static void s_twin_keep(const wh_frontend_t *fe)
{
    if (!fe->pc)
        return;
    const char *why = wh_precheck_why(fe->pc), *ign = wh_precheck_ignored(fe->pc);
    char *w = why ? strdup(why) : NULL, *g = ign ? strdup(ign) : NULL;
    if ((why && !w) || (ign && !g)) {
        free(w);
        free(g);
        return;
    }
    pthread_mutex_lock(&s_twin_mu);
    struct s_twin *t = &s_twins[s_twin_next];
    s_twin_next = (s_twin_next + 1) % S_TWINS;
    free(t->why);
    free(t->ignored);
    memcpy(t->key, fe->key, sizeof t->key);
    t->enabled = wh_precheck_enabled(fe->pc);
    t->why = w;
    t->ignored = g;
    pthread_mutex_unlock(&s_twin_mu);
}

void red_frontend_untwin(wh_reduction_t *r)
{
    r->pc_twin = r->pc_twin_enabled = 0;
    free(r->pc_twin_why);
    free(r->pc_twin_ignored);
    r->pc_twin_why = r->pc_twin_ignored = NULL;
}

void wh_frontend_run(wh_frontend_t *fe)
{
    uint64_t t0 = wh_now_ms();
    if (fe->do_pc && !(fe->twin = s_twin_find(fe))) {
        wh_precheck_opts_t o = {fe->path, (const char *const *)fe->pc_args, fe->pc_nargs,
                                fe->pc_clang, fe->pc_ub, NULL, NULL};
        fe->pc = wh_precheck_new(&o, fe->text, fe->len, &fe->pc_err);
        s_twin_keep(fe);
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
        red_frontend_untwin(r);
        r->pc = fe->pc;
        fe->pc = NULL;
        if (fe->twin) {
            r->pc_twin = 1;
            r->pc_twin_enabled = fe->twin_enabled;
            r->pc_twin_why = fe->twin_why;
            r->pc_twin_ignored = fe->twin_ignored;
            fe->twin_why = fe->twin_ignored = NULL;
            wh_record_log(r->rec, "precheck: set up as for a job with the same project, file, "
                          "text and flags (its threads set their handles up when they first "
                          "check for this job)");
        }
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
