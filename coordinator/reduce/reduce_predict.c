/*
 * reduce_predict — front-end prediction (DESIGN.md, "Predicted verdicts"):
 * precheck.h asked about a round's candidates before any build. With
 * --precheck on, a candidate the front end rejects is BuildFailed, never
 * built, and kept in a cache key space of its own; with audit, each built
 * candidate's verdict is compared with what the front end said. Part of
 * the reduce module (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"

#include <stdlib.h>
#include <string.h>

#include "render.h"

/* The checks run on the precheck's threads (precheck_pool.h), never on
 * the poll thread: a round's candidates are put to them when the round is
 * made, each is queued for a build only when its answer comes (a
 * prediction otherwise could not keep it from being built), and the
 * answers come back on the job's fd, which the pool's loop watches. A
 * check costs about 3-7 ms for the C fixtures and 23 ms of CPU for the
 * GoogleTest one (see precheck.c), so a slot waits at most that long for a
 * round's first candidate, and the others are checked while it builds. */

static int s_is_werror(const char *a)
{
    return strncmp(a, "-Werror", 7) == 0 || strcmp(a, "-pedantic-errors") == 0;
}

/* Says in run.log how the precheck stands; the console hears of it from
 * red_flags_say, or from here once that has run. */
void red_precheck_say(wh_reduction_t *r)
{
    free(r->pc_off);
    r->pc_off = NULL;
    int enabled = r->pc ? wh_precheck_enabled(r->pc) : r->pc_twin && r->pc_twin_enabled;
    const char *why = r->pc ? wh_precheck_why(r->pc) : r->pc_twin_why;
    const char *ignored = r->pc ? wh_precheck_ignored(r->pc)
                                : r->pc_twin_ignored ? r->pc_twin_ignored : "";
    r->pc_ok = enabled;
    if (!r->pc && !r->pc_twin)
        r->pc_off = strdup("out of memory");
    else if (!enabled)
        r->pc_off = strdup(why ? why : "not ready");
    if (r->pc_off) {
        wh_record_log(r->rec, "precheck: off with %s: %s", r->pc_flags ? r->pc_flags : "these flags",
                      r->pc_off);
        if (r->flags_said)
            red_out(r, "Precheck off: %s\n", r->pc_off);
        r->pc_was_off = 1;
    } else {
        /* The console hears of it once the flags are final (red_flags_say). */
        wh_record_log(r->rec, "precheck: %s, compile arguments from %s%s%s",
                      wh_precheck_mode_name((wh_precheck_mode_t)r->job.precheck), r->pc_flags,
                      ignored[0] ? "; warnings ignored (they fire on the original): " : "",
                      ignored);
    }
}

void red_flags_say(wh_reduction_t *r)
{
    if (r->flags_said)
        return;
    r->flags_said = 1;
    const char *pc = r->job.precheck != WH_PRECHECK_OFF ? r->pc_off : NULL;
    const char *ub = r->job.ub_guard ? r->ub_off : NULL;
    if (pc && ub && strcmp(pc, ub) == 0) {
        red_out(r, "Precheck and UB guard off: %s\n", pc);
    } else {
        if (pc)
            red_out(r, "Precheck off: %s\n", pc);
        if (ub)
            red_out(r, "UB guard off: %s\n", ub);
    }
    /* Off with the flags guessed first, on with the ones the warm
     * workspace recorded: one line says so (run.log has the error). */
    int pc_back = r->job.precheck != WH_PRECHECK_OFF && r->pc_was_off && !r->pc_off;
    int ub_back = r->job.ub_guard && r->ub_was_off && !r->ub_off;
    if (pc_back || ub_back)
        red_out(r, "%s on: compile arguments from %s (the flags guessed before it gave a "
                   "front-end error; run.log names it)\n",
                pc_back && ub_back ? "Precheck and UB guard" : pc_back ? "Precheck" : "UB guard",
                r->tree->cc_exact ? "the file's own compile command" : "the statement tree's flags");
}

/* Opens the precheck with the flags the tree in use was parsed with, again
 * whenever the tree is parsed again (the warm workspace's exact command).
 * Only the file's own command (the workspace's, or its entry in a
 * compile_commands.json) is exact; flags borrowed or guessed keep no -Werror
 * (a warning then never counts). Prediction is off (and the run log says
 * why) when the original has a front-end error with these flags. async:
 * the setup runs on a thread of its own; red_precheck_say when it is ready. */
/* The precheck's options for the tree in use: 0, or WH_ENOMEM. The caller
 * frees o->file and o->args (borrowed strings). */
int red_precheck_opts(wh_reduction_t *r, wh_precheck_opts_t *o)
{
    const wh_tree_t *t = r->tree;
    const char **args = calloc((size_t)t->cc_nargs + 1, sizeof *args);
    int n = 0;
    for (int i = 0; args && i < t->cc_nargs; i++)
        if (t->cc_exact || !s_is_werror(t->cc_args[i]))
            args[n++] = t->cc_args[i];
    char *path = wh_path_join(r->job.project, r->job.file);
    /* With --precheck on, its parse answers the UB guard as well (one
     * parse per candidate, on the precheck's threads). */
    int ub = r->job.ub_guard && r->job.precheck == WH_PRECHECK_ON;
    *o = (wh_precheck_opts_t){path, args, n, t->cc_clang, ub, red_wake, r};
    if (args && path)
        return 0;
    free(path);
    free(args);
    return WH_ENOMEM;
}

void red_precheck_flags(wh_reduction_t *r)
{
    r->pc_flags = r->tree->cc_exact ? "the file's own compile command"
                                    : "the statement tree's flags (no compile command for the "
                                      "file; -Werror not assumed)";
}

void red_precheck_open(wh_reduction_t *r, int async)
{
    if (r->job.precheck == WH_PRECHECK_OFF)
        return;
    red_precheck_close(r, 0);
    wh_precheck_destroy(&r->pc);
    red_frontend_untwin(r);
    r->pc_ok = 0;
    const wh_tree_t *t = r->tree;
    red_precheck_flags(r);
    wh_precheck_opts_t o;
    char *err = NULL;
    if (red_precheck_opts(r, &o) == 0) {
        if (async)
            r->pc = wh_precheck_start(&o, t->text, t->text_len);
        else
            r->pc = wh_precheck_new(&o, t->text, t->text_len, &err);
        free((char *)o.file);
        free((void *)o.args);
    }
    if (async && r->pc)
        return;
    red_precheck_said(r, err);
}

void red_precheck_said(wh_reduction_t *r, char *err)
{
    red_precheck_say(r);
    if (err) { /* libclang could not parse at all: say that, not "out of memory" */
        free(r->pc_off);
        r->pc_off = err;
        wh_record_log(r->rec, "precheck: %s", err);
    }
}

/* One batched lookup in key space ns of the round's representatives (only
 * those still without a verdict when open_only); hit() takes each verdict
 * found. 0 or WH_ENOMEM. */
int red_mget_reps(wh_reduction_t *r, wh_cache_ns_t ns, int open_only,
                  void (*hit)(red_cand_t *c, wh_verdict_t v))
{
    const char **keys = calloc((size_t)r->walk.nc, sizeof *keys);
    wh_verdict_t *got = calloc((size_t)r->walk.nc, sizeof *got);
    int *kidx = calloc((size_t)r->walk.nc, sizeof *kidx);
    int nk = 0, rc = keys && got && kidx ? 0 : WH_ENOMEM;
    for (int i = 0; !rc && i < r->walk.nc; i++)
        if (r->walk.c[i].rep == i && (!open_only || r->walk.c[i].v == WH_V_NONE)) {
            keys[nk] = r->walk.c[i].key;
            kidx[nk++] = i;
        }
    if (nk)
        wh_cache_mget_ns(r->cache, ns, keys, nk, got); /* a miss is WH_V_NONE */
    for (int k = 0; k < nk; k++)
        if (got[k] != WH_V_NONE)
            hit(&r->walk.c[kidx[k]], got[k]);
    free(keys);
    free(got);
    free(kidx);
    return rc;
}

static void s_on_fd(void *ctx)
{
    red_precheck_take(ctx);
}

/* 1 when checks are made for this job now: on or audit, the original
 * passed, the front end has not failed, and the job's checks have threads
 * (started here the first time). */
static int s_active(wh_reduction_t *r)
{
    if (r->job.precheck == WH_PRECHECK_OFF || r->pc_off || !r->pc_ok)
        return 0;
    if (r->pcj)
        return 1;
    wh_precheck_opts_t o;
    if (!r->pcp)
        r->pcp = wh_precheck_pool_get();
    if (r->pcp && red_precheck_opts(r, &o) == 0) {
        unsigned long long u = 0;
        int n = 0;
        wh_precheck_stats(r->pc, &n, &u, &r->pc_setup_us); /* 0 for a twin's */
        /* The judge of the original becomes the first worker's handle (a
         * twin has none: every worker sets its own up). */
        r->pcj = wh_precheck_job_new(r->pcp, &o, r->tree->text, r->tree->text_len, r->pc);
        r->pc = NULL;
        free((char *)o.file);
        free((void *)o.args);
    }
    if (r->pcj && wh_pool_watch_fd(r->pool, wh_precheck_job_fd(r->pcj), s_on_fd, r) != 0)
        wh_precheck_job_destroy(&r->pcj);
    if (!r->pcj) {
        r->pc_off = strdup("the precheck's threads could not be started");
        wh_record_log(r->rec, "precheck: off: %s", r->pc_off ? r->pc_off : "out of memory");
        return 0;
    }
    wh_record_log(r->rec, "precheck: checks on %d threads of their own",
                  wh_precheck_pool_threads(r->pcp));
    return 1;
}

/* A prediction found: BuildFailed, predicted before. */
static void s_hit_predicted(red_cand_t *c, wh_verdict_t v)
{
    if (v != WH_V_BUILD_FAILED)
        return;
    c->v = WH_V_BUILD_FAILED;
    c->pre = RED_PRE_FAIL;
    c->predicted = 2;
}

int red_precheck_begin(wh_reduction_t *r)
{
    if (!s_active(r))
        return 0;
    if (r->job.precheck == WH_PRECHECK_ON)
        (void)red_mget_reps(r, WH_CACHE_PREDICTED, 1, s_hit_predicted);
    return 1;
}

int red_precheck_submit(wh_reduction_t *r, red_cand_t *c, int i)
{
    size_t len = 0;
    char *text = wh_render(r->tree, r->walk.round->removed[i], &len);
    int rc = text ? wh_precheck_job_submit(r->pcj, c->eval_id, text, len) : WH_ENOMEM;
    c->checking = rc == 0;
    return rc;
}

int red_precheck_spec(wh_reduction_t *r, uint64_t id, char *txt, size_t len)
{
    if (r->job.precheck != WH_PRECHECK_ON || !s_active(r))
        return 0;
    return wh_precheck_job_submit(r->pcj, id, txt, len) == 0 ? 1 : -1; /* txt freed */
}

void red_precheck_cancel(wh_reduction_t *r, uint64_t tag)
{
    if (r->pcj)
        wh_precheck_job_cancel(r->pcj, tag);
}

int red_precheck_waits(const wh_reduction_t *r, int upto)
{
    if (r->job.precheck != WH_PRECHECK_AUDIT)
        return 0;
    for (int i = 0; i <= upto && i < r->walk.nc; i++)
        if (r->walk.c[i].checking)
            return 1;
    return 0;
}

/* Queues round candidate c (index i) for a build. */
static void s_queue(wh_reduction_t *r, red_cand_t *c, int i, const char *text, size_t len)
{
    c->submitted = 1;
    uint64_t id = c->eval_id;
    int lazy = id >= r->walk.eval_base && id - r->walk.eval_base < (uint64_t)r->walk.nev &&
               r->walk.evidx[id - r->walk.eval_base] == i;
    int rc;
    if (lazy || !text) {
        char *t = lazy ? NULL : wh_render(r->tree, r->walk.round->removed[i], &len);
        rc = lazy ? wh_pool_submit_lazy(r->pool, r->pool_id, id)
             : t  ? wh_pool_submit(r->pool, r->pool_id, id, t, len, 0)
                  : WH_ENOMEM;
        free(t);
    } else {
        rc = wh_pool_submit(r->pool, r->pool_id, id, text, len, 0); /* an adopted speculation */
    }
    if (rc)
        red_fail(r, 1, wh_strdup_printf("cannot queue a candidate: %s", wh_strerror(rc)));
}

/* The front end failed (a libclang error): prediction is off from here. */
static void s_broke(wh_reduction_t *r, int rc)
{
    if (r->pc_off)
        return;
    r->pc_off = wh_strdup_printf("libclang failed on a candidate (%s)", wh_strerror(rc));
    wh_record_log(r->rec, "precheck: off from here: %s", r->pc_off ? r->pc_off : "out of memory");
}

static void s_predicted(wh_reduction_t *r, const char *key)
{
    wh_cache_put_ns(r->cache, WH_CACHE_PREDICTED, key, WH_V_BUILD_FAILED);
}

/* Round candidates go to the pool in canonical order: a checked candidate
 * waits while an earlier candidate's check is out, so one slot judges a
 * round in order (the sequential walk's builds, never one after the winner)
 * whichever precheck thread answers first. A check takes milliseconds, a
 * build seconds: the wait is at most one check. */
static void s_release(wh_reduction_t *r)
{
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->checking || c->waiting_check)
            return;
        if (c->ready && !c->submitted && !c->withdrawn && c->v == WH_V_NONE)
            s_queue(r, c, i, NULL, 0);
        c->ready = 0;
    }
}

/* How many of a round's candidates may be open at the front end and on
 * the slots at once: a wave on every live slot and the next one checked.
 * Asked once per round: wh_pool_stats walks every pair of slots, and a
 * farm's jobs would otherwise ask on every answer. */
static int s_window(wh_reduction_t *r)
{
    if (!r->pc_room) {
        wh_pool_stats_t ps = {0};
        wh_pool_stats(r->pool, &ps);
        r->pc_room = ps.slots > 1 ? 2 * ps.slots : 2;
    }
    return r->pc_room;
}

int red_precheck_window(wh_reduction_t *r)
{
    int open = 0, room = -1, active = -1;
    for (int i = 0; i < r->walk.nc; i++) {
        red_cand_t *c = &r->walk.c[i];
        if (c->rep != i || c->v != WH_V_NONE || c->withdrawn)
            continue;
        if (!c->waiting_check) {
            open++;
            continue;
        }
        if (active < 0)
            active = r->pcj && !r->pc_off;
        if (!active) {
            /* The front end went off: built unchecked, in order. */
            c->waiting_check = 0;
            r->pc_unchecked++;
            c->ready = 1;
            continue;
        }
        if (room < 0)
            room = s_window(r);
        if (open >= room)
            break;
        c->waiting_check = 0;
        int rc = red_precheck_submit(r, c, i);
        if (rc)
            return rc;
        open++;
    }
    if (active == 0)
        s_release(r);
    return 0;
}

/* An answer for round candidate c: a prediction, or ready to be queued. */
static void s_answer_cand(wh_reduction_t *r, red_cand_t *c, wh_precheck_answer_t *a)
{
    c->checking = 0;
    int ok = a->rc >= 0 && !r->pc_off;
    if (ok) {
        c->pre = a->rc ? RED_PRE_FAIL : RED_PRE_PASS;
        c->pre_msg = a->first;
        a->first = NULL;
    }
    if (ok && r->job.precheck == WH_PRECHECK_ON && c->pre == RED_PRE_FAIL && !c->submitted &&
        c->v == WH_V_NONE) {
        c->v = WH_V_BUILD_FAILED;
        c->predicted = 1;
        s_predicted(r, c->key);
        return;
    }
    /* The same parse's word on the UB guard: what asking the guard when a
     * slot takes the candidate would say, said now and off the poll
     * thread; a UBGuard candidate is not built. */
    if (ok && c->pre == RED_PRE_PASS && c->ub == RED_PRE_NONE &&
        red_ubguard_learn(r, c->key, a->ub, a->ub_first)) {
        c->ub = a->ub ? RED_PRE_FAIL : RED_PRE_PASS;
        free(c->ub_msg);
        c->ub_msg = a->ub_first;
        a->ub_first = NULL;
        if (c->ub == RED_PRE_FAIL && !c->submitted && c->v == WH_V_NONE) {
            c->v = WH_V_UB_GUARD;
            c->predicted = 1;
            return;
        }
    }
    if (c->submitted || c->v != WH_V_NONE)
        return; /* audit of a candidate queued or judged already */
    r->pc_unchecked += !ok;
    c->ready = 1;
}

/* An answer for speculated candidate k: queued, unless predicted or
 * UBGuard. The same parse's word on the guard decides before it goes out
 * (the guard itself when the parse gave none): a speculation the guard
 * holds is never built, as a round's candidate is not (queued regardless,
 * it was built whenever a slot was idle to judge it ahead and its check
 * answered before its round came: a verdict that depended on the slots). */
static void s_answer_spec(wh_reduction_t *r, int k, const wh_precheck_answer_t *a)
{
    struct red_spec *sp = &r->walk.spec[k];
    sp->checking = 0;
    int ok = a->rc >= 0 && !r->pc_off;
    if (ok && a->rc == 1) {
        s_predicted(r, sp->key);
        r->walk.spec[k] = r->walk.spec[--r->walk.nspec];
        return;
    }
    if (ok)
        (void)red_ubguard_learn(r, sp->key, a->ub, a->ub_first);
    if (red_ubguard_ahead(r, sp->key, a->text, a->len, 1)) {
        r->walk.spec[k] = r->walk.spec[--r->walk.nspec]; /* its round asks the guard's kept answer */
        return;
    }
    sp->pre = ok ? RED_PRE_PASS : RED_PRE_NONE;
    r->pc_unchecked += !ok;
    if (wh_pool_submit(r->pool, r->pool_id, sp->id, a->text, a->len, 0) == 0)
        r->walk.speculated++;
    else
        r->walk.spec[k] = r->walk.spec[--r->walk.nspec];
}

/* One answer; 1 when it may let the round resolve. */
static int s_answer(wh_reduction_t *r, wh_precheck_answer_t *a)
{
    if (a->rc < 0)
        s_broke(r, a->rc);
    for (int i = 0; i < r->walk.nc; i++)
        if (r->walk.c[i].checking && r->walk.c[i].eval_id == a->tag) {
            s_answer_cand(r, &r->walk.c[i], a);
            return 1;
        }
    for (int k = 0; k < r->walk.nspec; k++)
        if (r->walk.spec[k].checking && r->walk.spec[k].id == a->tag) {
            s_answer_spec(r, k, a);
            return 0;
        }
    /* Its round is over; a prediction (or the guard's answer) is still
     * worth keeping. */
    if (a->rc >= 0 && !r->pc_off && r->job.precheck == WH_PRECHECK_ON &&
        (a->rc == 1 || a->ub >= 0)) {
        char key[65]; /* as the round keyed its candidates (reduce_rounds.c) */
        wh_cache_key(r->verdict_id, r->job.file, a->text, a->len, key);
        if (a->rc == 1)
            s_predicted(r, key);
        else
            (void)red_ubguard_learn(r, key, a->ub, a->ub_first);
    }
    return 0;
}

void red_precheck_take(wh_reduction_t *r)
{
    wh_precheck_answer_t a;
    int changed = 0, took = 0;
    while (r->pcj && wh_precheck_job_take(r->pcj, &a)) {
        took = 1;
        changed |= s_answer(r, &a);
        free(a.text);
        free(a.first);
        free(a.ub_first);
    }
    if (r->walk.c)
        s_release(r);
    if (changed)
        red_advance(r);
    else if (took && r->walk.c && red_precheck_window(r))
        red_fail(r, 4, NULL); /* out of memory */
}

void red_precheck_close(wh_reduction_t *r, int all)
{
    if (r->pcj) {
        int n = 0, pending = 0;
        unsigned long long us = 0;
        wh_precheck_job_stats(r->pcj, &n, &us, &pending);
        r->pc_checks += n;
        r->pc_us += us;
        if (r->pool)
            wh_pool_unwatch_fd(r->pool, wh_precheck_job_fd(r->pcj));
        wh_precheck_job_destroy(&r->pcj);
    }
    for (int i = 0; i < r->walk.nc && r->state == RED_ROUNDS && !all; i++)
        if (r->walk.c[i].checking || r->walk.c[i].waiting_check) {
            r->walk.c[i].checking = r->walk.c[i].waiting_check = 0;
            if (!r->walk.c[i].submitted && r->walk.c[i].v == WH_V_NONE) {
                r->pc_unchecked++;
                s_queue(r, &r->walk.c[i], i, NULL, 0);
            }
        }
    for (int k = 0; k < r->walk.nspec; k++)
        if (r->walk.spec[k].checking)
            r->walk.spec[k--] = r->walk.spec[--r->walk.nspec];
    if (all)
        wh_precheck_pool_put(&r->pcp);
}

/* audit: compares a built candidate's verdict with its prediction. Either
 * way of disagreeing is a bug of the precheck, logged and counted. */
void red_audit(wh_reduction_t *r, const red_cand_t *c, int id)
{
    if (r->job.precheck != WH_PRECHECK_AUDIT || c->pre == RED_PRE_NONE || !c->evaluated ||
        c->v == WH_V_INFRA_ERROR || c->v == WH_V_NONE)
        return;
    int bf = c->v == WH_V_BUILD_FAILED, said = c->pre == RED_PRE_FAIL;
    r->audit_built++;
    r->audit_bf += bf;
    r->audit_bf_predicted += bf && said;
    r->audit_pred_built += said && !bf;
    if (bf == said)
        return;
    char who[32];
    if (id)
        snprintf(who, sizeof who, "cand_%03d", id);
    else
        snprintf(who, sizeof who, "an extra candidate");
    const char *kind = said ? "predicted failure that built" : "build failed, not predicted";
    wh_record_log(r->rec, "precheck disagreement: %s: %s (verdict %s%s%s), key %s", who, kind,
                  wh_verdict_name(c->v), said ? "; front end: " : "",
                  said && c->pre_msg ? c->pre_msg : "", c->key);
    red_out(r, "Precheck disagreement: %s: %s\n", who, kind);
    if (!r->disagreements)
        r->disagreements = json_array();
    json_t *d = json_object();
    json_object_set_new(d, "candidate", id ? json_integer(id) : json_null());
    json_object_set_new(d, "kind", json_string(kind));
    json_object_set_new(d, "verdict", json_string(wh_verdict_name(c->v)));
    json_object_set_new(d, "error", c->pre_msg ? json_string(c->pre_msg) : json_null());
    json_object_set_new(d, "key", json_string(c->key));
    json_array_append_new(r->disagreements, d);
}

/* The precheck's figures for the summary; *list (malloc'ed JSON text or
 * NULL) holds the disagreements until the summary is written. */
void red_precheck_summary(wh_reduction_t *r, wh_precheck_summary_t *p, char **list)
{
    unsigned long long us = 0, setup_us = 0;
    memset(p, 0, sizeof *p);
    int pending = 0;
    wh_precheck_job_stats(r->pcj, &p->checks, &us, &pending);
    p->checks += r->pc_checks;
    us += r->pc_us;
    setup_us = r->pc_setup_us;
    if (r->pc) { /* not handed to the threads: its own setup */
        int n = 0;
        unsigned long long u = 0, su = 0;
        wh_precheck_stats(r->pc, &n, &u, &su);
        setup_us += su;
    }
    p->mode = wh_precheck_mode_name((wh_precheck_mode_t)r->job.precheck);
    p->enabled = r->pc_ok && !r->pc_off;
    p->off_because = r->pc_off;
    p->flags = r->pc_flags;
    p->unchecked = r->pc_unchecked;
    p->check_ms = (double)us / 1000.0;
    p->setup_ms = (double)setup_us / 1000.0;
    p->audit = r->job.precheck == WH_PRECHECK_AUDIT;
    p->built = r->audit_built;
    p->build_failed = r->audit_bf;
    p->build_failed_predicted = r->audit_bf_predicted;
    p->predicted_but_built = r->audit_pred_built;
    p->disagreements = r->disagreements ? (int)json_array_size(r->disagreements) : 0;
    *list = r->disagreements ? json_dumps(r->disagreements, JSON_COMPACT) : NULL;
    p->list_json = *list;
    if (p->audit)
        red_out(r, "Precheck audit: %d of %d BuildFailed predicted, %d disagreements\n",
                p->build_failed_predicted, p->build_failed, p->disagreements);
}
