/*
 * reduce_ubguard — the UB guard in the walk (DESIGN.md, "Trust"): a
 * candidate whose front end raises a -Wuninitialized-like or -Wreturn-type
 * diagnostic the original does not (ubguard.h) reads an indeterminate
 * value and fails "the same way" only by accident, so it is not Preserved.
 * Its verdict is WH_V_UB_GUARD, a coordinator-only name that is never
 * cached (a build's Preserved stays in the cache as what the build said;
 * the guard is asked again, in milliseconds, whenever the candidate comes
 * back). Three hooks: when a slot takes a candidate (one found then is not
 * built), before a speculation goes out (red_ubguard_ahead: one found then
 * is never built, so a candidate's verdict does not depend on whether a
 * slot was idle to judge it ahead), and before a round's winner is taken
 * (every Preserved verdict, whether built, cached or speculated, is checked
 * before the walk accepts it). Part of the reduce module (reduce_int.h);
 * runs on the pool's thread.
 */
#define _GNU_SOURCE
#include "reduce_int.h"

#include <stdlib.h>
#include <string.h>

#include "render.h"

void red_ubguard_free(wh_reduction_t *r)
{
    red_femo_clear(r);
}

int red_ubguard_open(wh_reduction_t *r, int async)
{
    red_femo_clear(r); /* the answers were of the old tree's flags */
    if (!r->job.ub_guard)
        return 0;
    wh_ubguard_destroy(&r->ub);
    free(r->ub_off);
    r->ub_off = NULL;
    const wh_tree_t *t = r->tree;
    char *path = wh_path_join(r->job.project, r->job.file);
    wh_ubguard_opts_t o = {path, (const char *const *)t->cc_args, t->cc_nargs, red_wake, r};
    char *err = NULL;
    if (path && async)
        r->ub = wh_ubguard_start(&o, t->text, t->text_len);
    else if (path)
        r->ub = wh_ubguard_new(&o, t->text, t->text_len, &err);
    free(path);
    if (async && r->ub)
        return 1;
    red_ubguard_said(r, err);
    return 0;
}

void red_ubguard_said(wh_reduction_t *r, char *err)
{
    if (err) {
        free(r->ub_off);
        r->ub_off = err; /* libclang could not parse at all */
    }
    red_ubguard_say(r);
}

void red_ubguard_say(wh_reduction_t *r)
{
    if (!r->job.ub_guard)
        return;
    if (!r->ub_off && !wh_ubguard_enabled(r->ub))
        r->ub_off = strdup(!r->ub                ? "out of memory"
                           : wh_ubguard_why(r->ub) ? wh_ubguard_why(r->ub)
                                                   : "not ready");
    if (r->ub_off) {
        wh_record_log(r->rec, "UB guard: off with %s: %s",
                      r->tree->cc_exact ? "the file's own compile command"
                                        : "the statement tree's flags",
                      r->ub_off);
        if (r->flags_said) /* else red_flags_say tells the console, once */
            red_out(r, "UB guard off: %s\n", r->ub_off);
        r->ub_was_off = 1;
        return;
    }
    wh_record_log(r->rec, "UB guard: on, -Wuninitialized -Wsometimes-uninitialized "
                  "-Wconditional-uninitialized -Wreturn-type and uninitialized locals given to a "
                  "const pointer parameter; the original raises %d of them "
                  "(never held against a candidate)", wh_ubguard_original(r->ub));
}

int red_ubguard_learn(wh_reduction_t *r, const char *key, int fail, const char *msg)
{
    if (!wh_ubguard_enabled(r->ub) || r->job.precheck != WH_PRECHECK_ON || fail < 0)
        return 0;
    struct red_femo *e = red_femo_find(r, key, 1);
    if (!e || e->ub >= 0)
        return 1; /* no room, or known already (the same text answers the same) */
    e->ub = fail != 0;
    e->msg = fail && msg ? strdup(msg) : NULL;
    r->ub_learned++;
    return 1;
}

/* The guard broke down on a check (rc): it is off from here, said once. */
static void s_broke(wh_reduction_t *r, int rc)
{
    if (r->ub_off)
        return;
    r->ub_off = strdup(wh_ubguard_why(r->ub) ? wh_ubguard_why(r->ub) : wh_strerror(rc));
    wh_record_log(r->rec, "UB guard: off from here: %s", r->ub_off);
    red_out(r, "UB guard off from here: %s\n", r->ub_off ? r->ub_off : "");
}

/* Asks the guard about candidate i; 0 when the guard just broke down (it
 * is off from then on, said once). */
static int s_check(wh_reduction_t *r, int i)
{
    red_cand_t *c = &r->walk.c[i];
    struct red_femo *e = red_femo_find(r, c->key, 0);
    if (e && e->ub >= 0) {
        r->ubm_hits++;
        char *msg = e->msg ? strdup(e->msg) : NULL;
        c->ub = e->ub ? RED_PRE_FAIL : RED_PRE_PASS;
        free(c->ub_msg);
        c->ub_msg = msg;
        if (e->ub)
            c->v = WH_V_UB_GUARD;
        return 1;
    }
    size_t len = 0;
    char *text = wh_render(r->tree, r->walk.round->removed[i], &len);
    char *msg = NULL;
    int rc = text ? wh_ubguard_check(r->ub, text, len, &msg) : WH_ENOMEM;
    free(text);
    if (rc >= 0 && (e = red_femo_find(r, c->key, 1)) != NULL) {
        /* kept for the chains to come (no room: asked again) */
        e->ub = rc != 0;
        free(e->msg);
        e->msg = msg ? strdup(msg) : NULL;
    }
    if (rc < 0) {
        s_broke(r, rc);
        return 0;
    }
    c->ub = rc ? RED_PRE_FAIL : RED_PRE_PASS;
    free(c->ub_msg);
    c->ub_msg = msg;
    if (rc)
        c->v = WH_V_UB_GUARD;
    return 1;
}

void red_ubguard_round(wh_reduction_t *r)
{
    /* audit builds every candidate: the precheck's figures stay whole. */
    if (!wh_ubguard_enabled(r->ub) || r->job.precheck == WH_PRECHECK_AUDIT)
        return;
    /* Preserved already (the cache, a verdict judged ahead): asked now, so
     * the chain's expectations see UBGuard. A candidate still to be built
     * is asked when a slot takes it (red_ubguard_dispatch): a chain holds
     * many steps no slot ever takes, and asking about all of them up front
     * cost the poll thread 1 s in a 5 s run at 8 slots. */
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep == i && c->ub == RED_PRE_NONE && c->v == WH_V_PRESERVED && !s_check(r, i))
            return;
    }
}

int red_ubguard_dispatch(wh_reduction_t *r, int i)
{
    red_cand_t *c = &r->walk.c[i];
    if (!wh_ubguard_enabled(r->ub) || r->job.precheck == WH_PRECHECK_AUDIT ||
        c->ub != RED_PRE_NONE || c->v != WH_V_NONE || !s_check(r, i) || c->v != WH_V_UB_GUARD)
        return 0;
    c->predicted = 1; /* not built */
    return 1;
}

int red_ubguard_ahead(wh_reduction_t *r, const char *key, const char *text, size_t len,
                      int parse)
{
    if (!wh_ubguard_enabled(r->ub) || r->job.precheck == WH_PRECHECK_AUDIT)
        return 0;
    struct red_femo *e = red_femo_find(r, key, 0);
    if (e && e->ub >= 0) {
        r->ubm_hits++;
        return e->ub;
    }
    if (!parse)
        return 0;
    char *msg = NULL;
    int rc = wh_ubguard_check(r->ub, text, len, &msg);
    if (rc < 0) {
        s_broke(r, rc); /* off from here: every candidate goes unguarded alike */
        return 0;
    }
    if ((e = red_femo_find(r, key, 1)) != NULL) { /* the round that comes to it asks here */
        e->ub = rc != 0;
        free(e->msg);
        e->msg = msg;
        msg = NULL;
    }
    free(msg);
    return rc != 0;
}

void red_ubguard_settle(wh_reduction_t *r)
{
    if (!wh_ubguard_enabled(r->ub))
        return;
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep == i && c->v == WH_V_PRESERVED && c->ub == RED_PRE_NONE && !s_check(r, i))
            return;
    }
}

void red_ubguard_summary(wh_reduction_t *r, wh_summary_t *s, char **sanitizers)
{
    unsigned long long us = 0, setup_us = 0;
    wh_ubguard_stats(r->ub, &s->ub_checks, &us, &setup_us);
    s->ub_mode = r->job.ub_guard ? "on" : "off";
    s->ub_enabled = wh_ubguard_enabled(r->ub);
    s->ub_off_because = r->job.ub_guard ? r->ub_off : NULL;
    s->ub_original = wh_ubguard_original(r->ub);
    s->ub_unchecked = r->ub_unchecked;
    s->ub_check_ms = (double)us / 1000.0;
    s->ub_setup_ms = (double)setup_us / 1000.0;
    s->ub_guard = r->ub_guard;
    s->ub_predicted = r->ub_predicted;
    if (r->ubm_hits || r->ub_learned)
        wh_record_log(r->rec, "UB guard: %d answers reused from %zu kept by candidate key "
                      "(%d from the precheck's parse)", r->ubm_hits, r->fem_n, r->ub_learned);
    /* The verify run builds with the project's own command: the record
     * says which sanitizers watched it (the guard sees only what the front
     * end sees; MemorySanitizer would catch more at run time). */
    *sanitizers = r->tree ? wh_ubguard_sanitizers((const char *const *)r->tree->cc_args,
                                                  r->tree->cc_nargs)
                          : NULL;
    s->sanitizers = *sanitizers;
}
