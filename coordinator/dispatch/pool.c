/*
 * pool — node slots, dispatch, liveness. See pool.h.
 */
#define _GNU_SOURCE
#include "pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "budget.h"
#include "pool_int.h"
#include "wh_common.h"

#define S_MAX_LOST 3
/* "Busy" answers (a slot refusing a candidate): each holds the slot back
 * (100 ms, doubling to 2 s); 6 in a row take it out of rotation. */
static const wh_budget_rule_t s_busy_rule = {100, 2000, 6};
/* Busy answers one candidate may meet before it is an InfraError (more
 * than one slot's streak, so that a lone busy slot is named as out of
 * rotation rather than blamed on the candidate). */
#define S_MAX_BUSY 8
/* Losses of one slot in a row (declared dead, then back): from the second
 * on, each holds it back when it rejoins (1 s, doubling to 30 s; a single
 * network cut costs nothing); the 5th takes it out of rotation. A slot
 * away for 10 minutes starts over. */
static const wh_budget_rule_t s_loss_rule = {500, 30000, 5};
#define S_LOSS_FORGET_MS (10u * 60u * 1000u)
/* Tries of one candidate that may end in an infrastructure fault. */
#define S_MAX_TAINT 3
/* Infrastructure faults in a row that take a slot out of rotation. */
#define S_TAINT_STREAK 3

static void s_task_free(s_task_t *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->tainted; i++) {
        free(t->tried_slot[i]);
        free(t->tried_node[i]);
    }
    free(t->tried_slot);
    free(t->tried_node);
    free(t->job_id);
    free(t->content);
    free(t->avoid);
    free(t);
}

s_job_t *pl_find_job(wh_pool_t *p, const char *id)
{
    for (s_job_t *j = p->jobs; j; j = j->next)
        if (strcmp(j->spec.job_id, id) == 0)
            return j;
    return NULL;
}

static s_slot_t *s_find_slot(wh_pool_t *p, const void *ident, size_t len)
{
    for (s_slot_t *s = p->slots; s; s = s->next)
        if (s->ident_len == len && memcmp(s->ident, ident, len) == 0)
            return s;
    return NULL;
}

static void s_enqueue_front(s_job_t *j, s_task_t *t)
{
    t->next = j->head;
    j->head = t;
    if (!j->tail)
        j->tail = t;
    j->queued++;
}

static void s_enqueue_back(s_job_t *j, s_task_t *t)
{
    t->next = NULL;
    if (j->tail)
        j->tail->next = t;
    else
        j->head = t;
    j->tail = t;
    j->queued++;
}

/* Before the first queued task with a higher id. */
static void s_enqueue_ordered(s_job_t *j, s_task_t *t)
{
    if (!j->tail || j->tail->cand_id <= t->cand_id) {
        s_enqueue_back(j, t);
        return;
    }
    s_task_t **l = &j->head;
    while ((*l)->cand_id <= t->cand_id)
        l = &(*l)->next;
    t->next = *l;
    *l = t;
    j->queued++;
}

static s_task_t *s_dequeue(s_job_t *j)
{
    s_task_t *t = j->head;
    if (!t)
        return NULL;
    j->head = t->next;
    if (!j->head)
        j->tail = NULL;
    t->next = NULL;
    j->queued--;
    return t;
}

int pl_send(wh_pool_t *p, s_slot_t *s, const wh_msg_t *m)
{
    pthread_mutex_lock(&p->sock_mu);
    int rc = wh_wire_send_to(p->sock, s->ident, s->ident_len, m, ZMQ_DONTWAIT);
    if (rc == 0)
        s->last_tx = wh_now_ms();
    pthread_mutex_unlock(&p->sock_mu);
    return rc;
}

/* Synthesizes an InfraError verdict for a task that cannot be judged. */
static void s_fail_task(s_task_t *t, const char *why, int code)
{
    if (t->job && !t->cancelled) {
        wh_msg_t v = {0};
        v.type = WH_MSG_VERDICT;
        v.cand_id = t->cand_id;
        v.verdict = WH_V_INFRA_ERROR;
        v.code = code;
        v.detail = (char *)why;
        t->job->fn(t->job->ctx, t->cand_id, &v, "-");
    }
}

static void s_slot_free(s_slot_t *s)
{
    for (int i = 0; i < s->nwarm; i++)
        free(s->warm[i]);
    free(s->warm);
    for (int i = 0; i < s->ncold; i++)
        free(s->cold[i]);
    free(s->cold);
    free(s->warming);
    free(s->out_why);
    free(s->name);
    free(s->node_id);
    free(s->key);
    free(s);
}

static void s_slot_remove(wh_pool_t *p, s_slot_t *s, const char *why)
{
    pthread_mutex_lock(&p->sock_mu); /* the beat thread walks the list */
    s_slot_t **pp = &p->slots;
    while (*pp && *pp != s)
        pp = &(*pp)->next;
    if (*pp)
        *pp = s->next;
    pthread_mutex_unlock(&p->sock_mu);
    p->dead++;
    wh_warn("node slot %s %s", s->name, why);
    s_task_t *t = s->task;
    if (t) {
        t->slot = NULL;
        if (t->job)
            t->job->running--;
        if (!t->job || t->cancelled) {
            s_task_free(t);
        } else if (++t->lost >= S_MAX_LOST) {
            char *msg = wh_strdup_printf("candidate lost its node %d times", t->lost);
            s_fail_task(t, msg ? msg : "candidate lost its node", WH_EUNAVAIL);
            free(msg);
            s_task_free(t);
        } else {
            p->requeued++;
            wh_info("requeue job %.12s cand %llu (slot %s lost it; loss %d)", t->job_id,
                    (unsigned long long)t->cand_id, s->name, t->lost);
            s_enqueue_front(t->job, t);
        }
    }
    s_slot_free(s);
}

wh_pool_t *wh_pool_new(void *zctx, const char *bind, unsigned hb_ms, char **err)
{
    return wh_pool_new_auth(zctx, bind, hb_ms, NULL, err);
}

wh_pool_t *wh_pool_new_auth(void *zctx, const char *bind, unsigned hb_ms, const wh_auth_t *auth,
                            char **err)
{
    wh_pool_t *p = calloc(1, sizeof *p);
    if (!p) {
        *err = strdup("out of memory");
        return NULL;
    }
    p->zctx = zctx;
    p->hb_ms = hb_ms ? hb_ms : 1000;
    p->timer_fd = -1;
    p->beat_wake = -1;
    if (pthread_mutex_init(&p->sock_mu, NULL) != 0) {
        free(p);
        *err = strdup("out of memory");
        return NULL;
    }
    if (!(p->losses = wh_losses_new())) {
        pthread_mutex_destroy(&p->sock_mu);
        free(p);
        *err = strdup("out of memory");
        return NULL;
    }
    p->auth = auth;
    p->sock = zmq_socket(zctx, ZMQ_ROUTER);
    if (!p->sock)
        goto zerr;
    int one = 1, zero = 0;
    zmq_setsockopt(p->sock, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    zmq_setsockopt(p->sock, ZMQ_LINGER, &zero, sizeof zero);
    /* A reconnecting slot gets a fresh routing id, so handover is not
     * needed, and it would let a newcomer claiming a live peer's id take
     * over its connection: off (libzmq ignores the duplicate). */
    zmq_setsockopt(p->sock, ZMQ_ROUTER_HANDOVER, &zero, sizeof zero);
    if ((auth && wh_auth_server_apply(auth, p->sock) != 0) || wh_wire_limit(p->sock) != 0 ||
        zmq_bind(p->sock, bind) < 0)
        goto zerr;
    char ep[512];
    size_t eplen = sizeof ep;
    if (zmq_getsockopt(p->sock, ZMQ_LAST_ENDPOINT, ep, &eplen) == 0)
        p->endpoint = strdup(ep);
    else
        p->endpoint = strdup(bind);
    /* Without the thread (no eventfd, no thread) the poll thread sends
     * the heartbeats, as it did before there was one. */
    if (pl_beat_start(p) != 0)
        wh_warn("coordinator: no heartbeat thread; heartbeats go out only between jobs' work");
    return p;
zerr:
    *err = wh_strdup_printf("cannot bind coordinator socket '%s': %s", bind,
                            zmq_strerror(errno));
    wh_pool_destroy(&p);
    return NULL;
}

void wh_pool_destroy(wh_pool_t **pp)
{
    wh_pool_t *p = *pp;
    if (!p)
        return;
    pl_beat_stop(p);
    while (p->jobs)
        wh_pool_remove_job(p, p->jobs->spec.job_id);
    while (p->slots) {
        s_slot_t *s = p->slots;
        wh_msg_t bye = {0};
        bye.type = WH_MSG_BYE;
        pl_send(p, s, &bye);
        p->slots = s->next;
        s_task_free(s->task);
        s_slot_free(s);
    }
    if (p->sock)
        zmq_close(p->sock);
    wh_losses_destroy(&p->losses);
    free(p->endpoint);
    for (int i = 0; i < p->n_nstat; i++)
        free((char *)p->nstat[i].node);
    free(p->nstat);
    free(p->watch);
    if (p->timer_fd >= 0)
        close(p->timer_fd);
    pthread_mutex_destroy(&p->sock_mu);
    free(p);
    *pp = NULL;
}

const char *wh_pool_endpoint(const wh_pool_t *p)
{
    return p->endpoint;
}

void wh_pool_on_other(wh_pool_t *p, wh_pool_other_fn fn, void *ctx)
{
    p->other = fn;
    p->other_ctx = ctx;
}

int wh_pool_add_job(wh_pool_t *p, const wh_job_spec_t *spec, wh_pool_verdict_fn fn, void *ctx)
{
    if (pl_find_job(p, spec->job_id))
        return WH_EINVAL;
    s_job_t *j = calloc(1, sizeof *j);
    if (!j || wh_job_spec_copy(&j->spec, spec)) {
        free(j);
        return WH_ENOMEM;
    }
    j->fn = fn;
    j->ctx = ctx;
    j->added_ms = wh_now_ms();
    j->next = p->jobs;
    p->jobs = j;
    return 0;
}

void wh_pool_remove_job(wh_pool_t *p, const char *job_id)
{
    s_job_t **pp = &p->jobs;
    while (*pp && strcmp((*pp)->spec.job_id, job_id) != 0)
        pp = &(*pp)->next;
    s_job_t *j = *pp;
    if (!j)
        return;
    *pp = j->next;
    if (p->rr == j)
        p->rr = j->next;
    s_task_t *t;
    while ((t = s_dequeue(j)))
        s_task_free(t);
    pl_warm_cancel(p, j);
    for (s_slot_t *s = p->slots; s; s = s->next) {
        if (s->task && s->task->job == j) {
            s->task->job = NULL;
            if (!s->task->cancelled) {
                s->task->cancelled = 1;
                wh_msg_t c = {0};
                c.type = WH_MSG_CANCEL;
                c.job.job_id = s->task->job_id;
                c.cand_id = s->task->cand_id;
                pl_send(p, s, &c);
            }
        }
    }
    pl_forget_cold(p, job_id);
    wh_job_spec_clear(&j->spec);
    wh_fp_clear(&j->ref);
    for (int i = 0; i < j->nexcluded; i++)
        free(j->excluded[i]);
    free(j->excluded);
    free(j);
}

int wh_pool_set_note(wh_pool_t *p, const char *job_id, wh_pool_note_fn fn)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    j->note = fn;
    return 0;
}

int wh_pool_set_ref(wh_pool_t *p, const char *job_id, const wh_fp_t *ref)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    wh_fp_clear(&j->ref);
    return wh_fp_copy(&j->ref, ref);
}

int wh_pool_drop_reference(wh_pool_t *p, const char *job_id)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    free(j->spec.reference);
    free(j->spec.git_reference);
    j->spec.reference = j->spec.git_reference = NULL;
    j->spec.keep_fault = 0;
    return 0;
}

int wh_pool_submit(wh_pool_t *p, const char *job_id, uint64_t cand_id,
                   const void *content, size_t len, int flags)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    s_task_t *t = calloc(1, sizeof *t);
    if (!t)
        return WH_ENOMEM;
    t->job = j;
    t->job_id = strdup(job_id);
    t->cand_id = cand_id;
    t->content = malloc(len ? len : 1);
    t->len = len;
    t->baseline = (flags & WH_TASK_BASELINE) != 0;
    t->on_reference = (flags & WH_TASK_ON_REFERENCE) != 0;
    if (!t->job_id || !t->content) {
        s_task_free(t);
        return WH_ENOMEM;
    }
    memcpy(t->content, content, len);
    s_enqueue_back(j, t);
    return 0;
}

int wh_pool_submit_verify(wh_pool_t *p, const char *job_id, uint64_t cand_id,
                          const void *content, size_t len, const char *avoid)
{
    int rc = wh_pool_submit(p, job_id, cand_id, content, len, 0);
    if (rc)
        return rc;
    s_task_t *t = pl_find_job(p, job_id)->tail;
    t->verify = 1;
    if (avoid && !(t->avoid = strdup(avoid))) {
        wh_pool_cancel(p, job_id, cand_id);
        return WH_ENOMEM;
    }
    return 0;
}

int wh_pool_exclude_node(wh_pool_t *p, const char *job_id, const char *node_id)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    for (int i = 0; i < j->nexcluded; i++)
        if (strcmp(j->excluded[i], node_id) == 0)
            return 0;
    char **x = realloc(j->excluded, (size_t)(j->nexcluded + 1) * sizeof *x);
    if (!x)
        return WH_ENOMEM;
    j->excluded = x;
    if (!(x[j->nexcluded] = strdup(node_id)))
        return WH_ENOMEM;
    j->nexcluded++;
    wh_warn("node %s is out of job %.12s's rotation: its verdicts were found wrong", node_id,
            job_id);
    return 0;
}

int wh_pool_node_excluded(const wh_pool_t *p, const char *job_id, const char *node_id)
{
    const s_job_t *j = pl_find_job((wh_pool_t *)p, job_id);
    for (int i = 0; j && node_id && i < j->nexcluded; i++)
        if (strcmp(j->excluded[i], node_id) == 0)
            return 1;
    return 0;
}

const char *wh_pool_node_of(const wh_pool_t *p, const char *slot_name)
{
    for (const s_slot_t *s = p->slots; s; s = s->next)
        if (slot_name && strcmp(s->name, slot_name) == 0)
            return s->node_id;
    return NULL;
}

static int s_excluded(const s_job_t *j, const s_slot_t *s);

int wh_pool_other_node(const wh_pool_t *p, const char *job_id, const char *node_id)
{
    const s_job_t *j = pl_find_job((wh_pool_t *)p, job_id);
    for (const s_slot_t *s = p->slots; s; s = s->next)
        if (!s->out_why && s->node_id && strcmp(s->node_id, node_id) != 0 &&
            !(j && s_excluded(j, s)))
            return 1;
    return 0;
}

const char *wh_pool_key_of(const wh_pool_t *p, const char *slot_name)
{
    for (const s_slot_t *s = p->slots; s; s = s->next)
        if (slot_name && strcmp(s->name, slot_name) == 0) {
            const char *colon = s->key ? strchr(s->key, ':') : NULL;
            return colon && colon[1] ? colon + 1 : "local";
        }
    return "local";
}

const char *wh_pool_slot_of_key(const wh_pool_t *p, const char *key_name)
{
    if (!key_name || !*key_name || strcmp(key_name, "local") == 0)
        return NULL;
    for (const s_slot_t *s = p->slots; s; s = s->next)
        if (!s->out_why && strcmp(wh_pool_key_of(p, s->name), key_name) == 0)
            return s->name;
    return NULL;
}

int wh_pool_set_render(wh_pool_t *p, const char *job_id, wh_pool_render_fn fn)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    j->render = fn;
    return 0;
}

int wh_pool_set_hold(wh_pool_t *p, const char *job_id, wh_pool_hold_fn fn)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    j->hold = fn;
    return 0;
}

int wh_pool_submit_lazy(wh_pool_t *p, const char *job_id, uint64_t cand_id)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return WH_ENOTFOUND;
    if (!j->render)
        return WH_EINVAL;
    s_task_t *t = calloc(1, sizeof *t);
    if (!t)
        return WH_ENOMEM;
    t->job = j;
    t->job_id = strdup(job_id);
    t->cand_id = cand_id;
    t->lazy = 1;
    if (!t->job_id) {
        s_task_free(t);
        return WH_ENOMEM;
    }
    s_enqueue_ordered(j, t);
    return 0;
}

int wh_pool_cancel(wh_pool_t *p, const char *job_id, uint64_t cand_id)
{
    s_job_t *j = pl_find_job(p, job_id);
    if (!j)
        return 0;
    s_task_t **pp = &j->head, *prev = NULL;
    while (*pp) {
        s_task_t *t = *pp;
        if (t->cand_id == cand_id) {
            *pp = t->next;
            if (j->tail == t)
                j->tail = prev;
            j->queued--;
            s_task_free(t);
            return 0;
        }
        prev = t;
        pp = &t->next;
    }
    int n = 0;
    for (s_slot_t *s = p->slots; s; s = s->next) {
        if (s->task && s->task->job == j && s->task->cand_id == cand_id && !s->task->cancelled) {
            n = 1;
            s->task->cancelled = 1;
            wh_msg_t c = {0};
            c.type = WH_MSG_CANCEL;
            c.job.job_id = s->task->job_id;
            c.cand_id = cand_id;
            pl_send(p, s, &c);
        }
    }
    return n;
}

static int s_excluded(const s_job_t *j, const s_slot_t *s)
{
    for (int i = 0; i < j->nexcluded; i++)
        if (s->node_id && strcmp(j->excluded[i], s->node_id) == 0)
            return 1;
    return 0;
}

/* ---- tainted verdicts: retries on other slots, slots out of rotation ---- */

static int s_listed(char *const *l, int n, const char *x)
{
    for (int i = 0; i < n; i++)
        if (l[i] && x && strcmp(l[i], x) == 0)
            return 1;
    return 0;
}

/* 1 when slot s may take task t: a task that met an infrastructure fault
 * goes to a slot it has not failed on, and to another node than the ones
 * it failed on while the pool has a slot of such a node in rotation (a
 * full disk is the whole node's). */
static int s_fits(const wh_pool_t *p, const s_task_t *t, const s_slot_t *s)
{
    if (!t->tainted)
        return 1;
    if (s_listed(t->tried_slot, t->tainted, s->name))
        return 0;
    if (!s_listed(t->tried_node, t->tainted, s->node_id))
        return 1;
    for (const s_slot_t *o = p->slots; o; o = o->next)
        if (!o->out_why && !s_listed(t->tried_node, t->tainted, o->node_id))
            return 0;
    return 1;
}

/* 1 when a slot in rotation may take t, now or when it is free. */
static int s_placeable(const wh_pool_t *p, const s_task_t *t)
{
    for (const s_slot_t *o = p->slots; o; o = o->next)
        if (!o->out_why && s_fits(p, t, o))
            return 1;
    return 0;
}

/* How well slot s suits task t: 2 = another node than t's avoid (or no
 * avoid), 1 = another slot of avoid's node, 0 = avoid itself. */
static int s_suit(const wh_pool_t *p, const s_task_t *t, const s_slot_t *s)
{
    if (!t->avoid)
        return 2;
    if (strcmp(s->name, t->avoid) == 0)
        return 0;
    const char *an = wh_pool_node_of(p, t->avoid);
    return an && s->node_id && strcmp(an, s->node_id) == 0 ? 1 : 2;
}

/* 1 when slot o failed to prepare job j and will not take its candidates
 * (another slot is warm for it): waiting for o would wait for ever. */
static int s_never_serves(const wh_pool_t *p, const s_slot_t *o, const s_job_t *j)
{
    return pl_in_list(o->cold, o->ncold, j->spec.job_id) && !pl_may_serve(p, o, j);
}

/* May slot s take task t now? Not when s's node is excluded from the job
 * while another live node could serve it; not when a live slot suits a
 * verify task better than s (it waits for that slot). */
static int s_may_take(const wh_pool_t *p, const s_job_t *j, const s_task_t *t, const s_slot_t *s)
{
    int any_other = 0, best = -1;
    for (const s_slot_t *o = p->slots; o; o = o->next) {
        if (s_excluded(j, o) || o->out_why || !s_fits(p, t, o) || s_never_serves(p, o, j))
            continue;
        any_other = 1;
        if (t->verify && s_suit(p, t, o) > best)
            best = s_suit(p, t, o);
    }
    if (s_excluded(j, s) && any_other)
        return 0;
    return !t->verify || best < 0 || s_suit(p, t, s) >= best;
}

/* The first queued task of j that s may take, or NULL (also when the job
 * holds that one back: its later tasks wait behind it). */
static s_task_t *s_first_fit(const wh_pool_t *p, const s_job_t *j, const s_slot_t *s)
{
    for (s_task_t *t = j->head; t; t = t->next)
        if (s_fits(p, t, s) && s_may_take(p, j, t, s))
            return t->lazy && j->hold && j->hold(j->ctx, t->cand_id) ? NULL : t;
    return NULL;
}

/* Takes t out of j's queue. */
static void s_unlink(s_job_t *j, s_task_t *t)
{
    s_task_t **pp = &j->head, *prev = NULL;
    while (*pp && *pp != t) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp)
        return;
    *pp = t->next;
    if (j->tail == t)
        j->tail = prev;
    t->next = NULL;
    j->queued--;
}

static void s_note(s_task_t *t, wh_pool_note_t what, const char *worker, const char *detail)
{
    if (t->job && t->job->note && !t->cancelled)
        t->job->note(t->job->ctx, t->cand_id, what, worker, detail);
}

/* Slot s answered t with an infrastructure fault (code WH_ETAINT). Counts
 * it against the slot; returns 1 when t was taken care of (requeued for
 * another slot, or answered InfraError because its tries are used up),
 * 0 when t is no longer wanted (the caller frees it). */
static int s_on_taint(wh_pool_t *p, s_slot_t *s, s_task_t *t, const wh_msg_t *m)
{
    const char *why = m->detail && *m->detail ? m->detail : "infrastructure fault";
    p->infra_faults++;
    wh_warn("slot %s: %s (job %.12s cand %llu)", s->name, why, t->job_id,
            (unsigned long long)t->cand_id);
    s_note(t, WH_POOL_NOTE_FAULT, s->name, why);
    if (++s->streak >= S_TAINT_STREAK && !s->out_why) {
        s->out_why = wh_strdup_printf("%d infrastructure faults in a row; last: %s", s->streak,
                                      why);
        wh_warn("slot %s taken out of rotation: %s", s->name, s->out_why ? s->out_why : why);
        s_note(t, WH_POOL_NOTE_OUT, s->name, s->out_why ? s->out_why : why);
    }
    if (!t->job || t->cancelled)
        return 0;
    char **ts = realloc(t->tried_slot, (size_t)(t->tainted + 1) * sizeof *ts);
    if (ts)
        t->tried_slot = ts;
    char **tn = ts ? realloc(t->tried_node, (size_t)(t->tainted + 1) * sizeof *tn) : NULL;
    if (tn)
        t->tried_node = tn;
    if (ts && tn) {
        t->tried_slot[t->tainted] = strdup(s->name);
        t->tried_node[t->tainted] = strdup(s->node_id);
        t->tainted++;
    }
    if (!ts || !tn || t->tainted >= S_MAX_TAINT || !s_placeable(p, t)) {
        char *msg = !ts || !tn ? NULL
                    : t->tainted >= S_MAX_TAINT
                        ? wh_strdup_printf("infrastructure faults on %d slots; last on %s: %s",
                                           t->tainted, s->name, why)
                        : wh_strdup_printf("infrastructure fault on %s, and no other slot in "
                                           "rotation to retry on: %s", s->name, why);
        s_fail_task(t, msg ? msg : why, WH_ETAINT);
        free(msg);
        s_task_free(t);
        return 1;
    }
    p->requeued++;
    wh_info("requeue job %.12s cand %llu for another slot (try %d)", t->job_id,
            (unsigned long long)t->cand_id, t->tainted + 1);
    s_enqueue_front(t->job, t);
    return 1;
}

/* Answers InfraError (WH_ETAINT) for the queued tasks no slot in rotation
 * may take: those that met faults on every such slot, or all of them when
 * every live slot is out of rotation. With no live slot at all, tasks wait
 * for nodes to join. One task per scan: a verdict may end its job. */
static void s_fail_stranded(wh_pool_t *p)
{
    /* Without a fault no task was tried and no slot is out: nothing to
     * scan, so the healthy path costs nothing per poll. */
    if (!p->infra_faults)
        return;
    for (int guard = 0; guard < 100000; guard++) {
        int live = 0, in = 0;
        const s_slot_t *out = NULL;
        for (const s_slot_t *o = p->slots; o; o = o->next) {
            live++;
            in += !o->out_why;
            if (o->out_why && !out)
                out = o;
        }
        if (!live)
            return;
        s_task_t *t = NULL;
        s_job_t *j;
        for (j = p->jobs; j && !t; j = j->next)
            for (t = j->head; t; t = t->next)
                if (!in || (t->tainted && !s_placeable(p, t)))
                    break;
        if (!t)
            return;
        s_unlink(t->job, t);
        char *msg = !in ? wh_strdup_printf("every slot is out of rotation (%s: %s)", out->name,
                                           out->out_why)
                        : wh_strdup_printf("no slot in rotation left to retry on after "
                                           "infrastructure faults on %d", t->tainted);
        s_fail_task(t, msg ? msg : "no slot to retry on", WH_ETAINT);
        free(msg);
        s_task_free(t);
    }
}

/* ---- busy and lost slots: retry budgets with backoff (budget.h) ---- */

/* Slot s answered t "busy" (code WH_EPROTO): not a verdict. The slot gets
 * no work until its backoff ends and leaves rotation after s_busy_rule.max
 * such answers in a row; t goes back to the front of its queue, or is an
 * InfraError once it met S_MAX_BUSY of them. Frees or requeues t. */
static void s_on_busy(wh_pool_t *p, s_slot_t *s, s_task_t *t)
{
    unsigned delay = wh_budget_delay(&s->busy, &s_busy_rule);
    int spent = wh_budget_fail(&s->busy, &s_busy_rule, wh_now_ms());
    s->hold_until = s->busy.until_ms;
    p->infra_faults++;
    wh_info("slot %s answered busy (job %.12s cand %llu; %d in a row): no work for it for %u ms",
            s->name, t->job_id, (unsigned long long)t->cand_id, s->busy.n, delay);
    s_note(t, WH_POOL_NOTE_FAULT, s->name, "slot busy");
    if (spent && !s->out_why) {
        s->out_why = wh_strdup_printf("answered busy %d times in a row", s->busy.n);
        wh_warn("slot %s taken out of rotation: %s", s->name, s->out_why ? s->out_why : "busy");
        s_note(t, WH_POOL_NOTE_OUT, s->name, s->out_why ? s->out_why : "answered busy");
    }
    if (!t->job || t->cancelled) {
        s_task_free(t);
        return;
    }
    if (++t->busy >= S_MAX_BUSY) {
        char *msg = wh_strdup_printf("answered busy %d times (last by %s)", t->busy, s->name);
        s_fail_task(t, msg ? msg : "answered busy", WH_ETAINT);
        free(msg);
        s_task_free(t);
        return;
    }
    p->requeued++;
    s_enqueue_front(t->job, t);
}

/* The name a slot keeps across reconnects: its key's name and slot number
 * when authenticated, else its routing id without the per-connection
 * suffix (node/slot). malloc'ed, or NULL. */
static char *s_loss_key(const s_slot_t *s)
{
    const char *slash = strrchr(s->name, '/');
    if ((s->key && *s->key) || !slash)
        return strdup(s->name);
    return strndup(s->name, (size_t)(slash - s->name));
}

/* Slot s is being declared dead: one more loss in its budget. */
static void s_on_lost(wh_pool_t *p, const s_slot_t *s)
{
    char *k = s_loss_key(s);
    wh_budget_t *b = k ? wh_losses_get(p->losses, k) : NULL;
    if (b)
        wh_budget_fail(b, &s_loss_rule, wh_now_ms());
    free(k);
}

/* A slot (re)joins: a slot lost before waits out its backoff, and one lost
 * s_loss_rule.max times in a row stays out of rotation. */
static void s_apply_losses(wh_pool_t *p, s_slot_t *s)
{
    char *k = s_loss_key(s);
    wh_budget_t *b = k ? wh_losses_get(p->losses, k) : NULL;
    free(k);
    uint64_t now = wh_now_ms();
    if (!b || !b->n)
        return;
    if (now > b->until_ms + S_LOSS_FORGET_MS) {
        wh_budget_reset(b);
        return;
    }
    if (b->n >= 2)
        s->hold_until = b->until_ms;
    if (b->n >= s_loss_rule.max) {
        s->out_why = wh_strdup_printf("lost %d times in a row (disconnects)", b->n);
        p->infra_faults++;
        wh_warn("slot %s taken out of rotation: %s", s->name, s->out_why ? s->out_why : "lost");
    } else if (b->n >= 2 && b->until_ms > now) {
        wh_info("slot %s is back after %d losses in a row: no work for it for %llu ms", s->name,
                b->n, (unsigned long long)(b->until_ms - now));
    }
}

/* Slot s judged a candidate: its busy and loss budgets start over. */
static void s_on_judged(wh_pool_t *p, s_slot_t *s)
{
    wh_budget_reset(&s->busy);
    s->hold_until = 0;
    char *k = s_loss_key(s);
    wh_budget_t *b = k ? wh_losses_get(p->losses, k) : NULL;
    if (b)
        wh_budget_reset(b);
    free(k);
}

/* Picks the job a free slot should serve. Fair share first: the job with
 * the fewest candidates on slots now, then the fewest served so far; among
 * equals, a job whose workspace is warm on this slot (or its node) wins, so
 * setups are not repeated needlessly; then round-robin order. */
static s_job_t *s_pick_job(wh_pool_t *p, s_slot_t *s)
{
    if (!p->jobs)
        return NULL;
    s_job_t *start = p->rr ? p->rr : p->jobs;
    s_job_t *best = NULL;
    int best_warm = 0;
    s_job_t *j = start;
    do {
        if (s_first_fit(p, j, s) && pl_may_serve(p, s, j)) {
            int warm = pl_is_warm(s, j->spec.job_id) || pl_node_warm(p, s, j->spec.job_id);
            int better = !best || j->running < best->running ||
                         (j->running == best->running &&
                          (j->served < best->served ||
                           (j->served == best->served && warm && !best_warm)));
            if (better) {
                best = j;
                best_warm = warm;
            }
        }
        j = j->next ? j->next : p->jobs;
    } while (j != start);
    if (best)
        p->rr = best->next ? best->next : p->jobs;
    return best;
}

static void s_dispatch(wh_pool_t *p)
{
    uint64_t now = wh_now_ms();
    for (s_slot_t *s = p->slots; s; s = s->next) {
        if (s->task || s->phantom || s->out_why || s->warming || now < s->hold_until)
            continue;
        s_job_t *j = s_pick_job(p, s);
        if (!j) {
            pl_warm_idle(p, s);
            continue;
        }
        s_task_t *t = s_first_fit(p, j, s);
        if (!t)
            continue; /* held since s_pick_job asked (a hold is timed): next poll */
        s_unlink(j, t);
        if (t->lazy && !t->content) {
            char *txt = j->render(j->ctx, t->cand_id, &t->len);
            if (!txt) {
                /* Answered, so a round never waits for it; a job that no
                 * longer wants it ignores the answer. */
                wh_info("job %.12s cand %llu: cannot render it", j->spec.job_id,
                        (unsigned long long)t->cand_id);
                s_fail_task(t, "cannot render the candidate", WH_EUNAVAIL);
                s_task_free(t);
                continue;
            }
            t->content = (uint8_t *)txt;
        }
        wh_msg_t m = {0};
        m.type = WH_MSG_EVALUATE;
        m.job = j->spec;
        m.cand_id = t->cand_id;
        m.content = t->content;
        m.content_len = t->len;
        m.baseline = t->baseline;
        m.on_reference = t->on_reference;
        /* A verify task on the very slot that judged it: a new workspace. */
        m.fresh = t->verify && s_suit(p, t, s) == 0;
        m.ref = j->ref;
        int rc = pl_send(p, s, &m);
        if (rc) {
            /* The slot is unreachable: put the task back and let the
             * liveness check remove the slot. */
            s_enqueue_front(j, t);
            s->last_rx = 0;
            continue;
        }
        if (t->lazy) {
            /* Sent: the slot has it; a requeue renders it again. */
            free(t->content);
            t->content = NULL;
        }
        t->slot = s;
        s->task = t;
        j->running++;
        j->served++;
        pl_mark_warm(s, j->spec.job_id);
        p->dispatched++;
        wh_info("dispatch job %.12s cand %llu%s to %s", j->spec.job_id,
                (unsigned long long)t->cand_id, t->lost ? " (again)" : "", s->name);
    }
}

static s_slot_t *s_slot_add(wh_pool_t *p, const void *ident, size_t len, const char *key,
                            const wh_msg_t *hello)
{
    s_slot_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    memcpy(s->ident, ident, len);
    s->ident_len = len;
    s->key = strdup(key);
    s->name = wh_auth_peer_name(key, hello ? hello->slot : 0, ident, len);
    s->node_id = strdup(hello && hello->node_id ? hello->node_id : s->name);
    s->warms = hello && hello->warms;
    s->last_rx = wh_now_ms();
    /* append so that dispatch order follows arrival order */
    pthread_mutex_lock(&p->sock_mu);
    s_slot_t **pp = &p->slots;
    while (*pp)
        pp = &(*pp)->next;
    *pp = s;
    pthread_mutex_unlock(&p->sock_mu);
    wh_info("node slot %s joined (routing id %.*s)", s->name, (int)len, (const char *)ident);
    s_apply_losses(p, s);
    return s;
}

/* The per-node counters of node (added on first sight). NULL when out of
 * memory: counting is best effort. */
static wh_pool_node_stat_t *s_nstat(wh_pool_t *p, const char *node)
{
    for (int i = 0; i < p->n_nstat; i++)
        if (!strcmp(p->nstat[i].node, node))
            return &p->nstat[i];
    wh_pool_node_stat_t *v = realloc(p->nstat, (size_t)(p->n_nstat + 1) * sizeof *v);
    if (!v)
        return NULL;
    p->nstat = v;
    char *name = strdup(node);
    if (!name)
        return NULL;
    v[p->n_nstat] = (wh_pool_node_stat_t){.node = name};
    return &v[p->n_nstat++];
}

static void s_count_verdict(wh_pool_t *p, const s_slot_t *s, const wh_msg_t *m)
{
    if (m->code == WH_ECANCEL) /* a stopped candidate: no judgement */
        return;
    p->judged++;
    wh_pool_node_stat_t *n = s_nstat(p, s->node_id ? s->node_id : "?");
    if (!n)
        return;
    n->verdicts++;
    n->infra += m->verdict == WH_V_INFRA_ERROR || m->code == WH_ETAINT;
}

static void s_handle(wh_pool_t *p, const uint8_t *ident, size_t ilen, const char *key,
                     wh_msg_t *m)
{
    s_slot_t *s = s_find_slot(p, ident, ilen);
    if (s && strcmp(s->key, key) != 0) {
        /* Handover is off, so the owner's connection is gone: never let
         * another key inherit its slot (and its candidate). */
        wh_auth_refuse_claim(s->name, key, ident, ilen);
        s_slot_remove(p, s, "removed: its routing id was claimed by another key");
        return;
    }
    switch (m->type) {
    case WH_MSG_HELLO:
        if (!s)
            s = s_slot_add(p, ident, ilen, key, m);
        else
            s->last_rx = wh_now_ms();
        break;
    case WH_MSG_HEARTBEAT:
        if (!s) {
            /* A slot we declared dead is back (a network cut, not a crash).
             * If it is still judging the candidate we requeued, it is not
             * free until that one ends. */
            s = s_slot_add(p, ident, ilen, key, m);
            if (s && m->cand_id)
                s->phantom = m->cand_id;
        }
        if (s) {
            s->last_rx = wh_now_ms();
            if (s->phantom && !m->cand_id)
                s->phantom = 0;
        }
        break;
    case WH_MSG_BYE:
        if (s)
            s_slot_remove(p, s, "left");
        break;
    case WH_MSG_WARMED:
        if (s) {
            s->last_rx = wh_now_ms();
            pl_on_warmed(p, s, m);
        }
        break;
    case WH_MSG_VERDICT: {
        if (!s)
            break;
        s->last_rx = wh_now_ms();
        if (s->phantom && s->phantom == m->cand_id) {
            s->phantom = 0; /* its old candidate ended; requeued long ago */
            break;
        }
        s_task_t *t = s->task;
        if (!t || t->cand_id != m->cand_id)
            break;
        s_count_verdict(p, s, m);
        s->task = NULL;
        t->slot = NULL;
        if (t->job)
            t->job->running--;
        if (m->code == WH_EPROTO) {
            /* The slot refused the candidate (it was busy): not a verdict. */
            s_on_busy(p, s, t);
            break;
        }
        if (m->code == WH_ETAINT) {
            if (s_on_taint(p, s, t, m))
                break;
        } else if (m->code != WH_ECANCEL) {
            s->streak = 0;
            s_on_judged(p, s);
        }
        if (t->job && !t->cancelled)
            t->job->fn(t->job->ctx, t->cand_id, m, s->name);
        s_task_free(t);
        break;
    }
    default:
        if (p->other)
            p->other(p->other_ctx, ident, ilen, key, m);
        break;
    }
}

const wh_pool_node_stat_t *wh_pool_node_stats(wh_pool_t *p, int *n)
{
    for (int i = 0; i < p->n_nstat; i++)
        p->nstat[i].slots = 0;
    for (const s_slot_t *s = p->slots; s; s = s->next) {
        wh_pool_node_stat_t *ns = s_nstat(p, s->node_id ? s->node_id : "?");
        if (ns)
            ns->slots++;
    }
    *n = p->n_nstat;
    return p->nstat;
}

int wh_pool_watch_fd(wh_pool_t *p, int fd, wh_pool_fd_fn fn, void *ctx)
{
    for (int i = 0; i < p->nwatch; i++)
        if (p->watch[i].fd == fd)
            return WH_EINVAL;
    if (p->nwatch == p->capwatch) {
        int cap = p->capwatch ? 2 * p->capwatch : 4;
        struct s_watch *w = realloc(p->watch, (size_t)cap * sizeof *w);
        if (!w)
            return WH_ENOMEM;
        p->watch = w;
        p->capwatch = cap;
    }
    p->watch[p->nwatch++] = (struct s_watch){fd, fn, ctx};
    return 0;
}

static void s_wake_drain(void *ctx)
{
    wh_wake_drain((int)(intptr_t)ctx);
}

int wh_pool_wake_open(wh_pool_t *p)
{
    int fd = wh_wake_open();
    if (fd >= 0 && wh_pool_watch_fd(p, fd, s_wake_drain, (void *)(intptr_t)fd) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void s_timer_fired(void *ctx)
{
    wh_pool_t *p = ctx;
    wh_wake_drain(p->timer_fd);
    p->timer_at = 0;
}

void wh_pool_wake_at(wh_pool_t *p, uint64_t when)
{
    if (p->timer_fd < 0) {
        p->timer_fd = wh_timer_open();
        if (p->timer_fd >= 0 && wh_pool_watch_fd(p, p->timer_fd, s_timer_fired, p) != 0) {
            close(p->timer_fd);
            p->timer_fd = -1;
        }
        if (p->timer_fd < 0)
            return; /* the poll timeout takes it up */
    }
    uint64_t now = wh_now_ms();
    /* Armed for sooner already, or run out and not drained yet: this poll
     * returns at once, and whoever asked asks again in that turn (holds
     * at dispatch, a job's wait in its poll). Arming it now would undo
     * that wake-up. */
    if (p->timer_at && (p->timer_at <= now || p->timer_at <= when))
        return;
    if (wh_timer_arm(p->timer_fd, when > now ? when - now : 1) == 0)
        p->timer_at = when;
}

void wh_pool_wake_close(wh_pool_t *p, int fd)
{
    if (fd < 0)
        return;
    if (p)
        wh_pool_unwatch_fd(p, fd);
    close(fd);
}

void wh_pool_unwatch_fd(wh_pool_t *p, int fd)
{
    for (int i = 0; i < p->nwatch; i++)
        if (p->watch[i].fd == fd) {
            p->watch[i] = p->watch[--p->nwatch];
            return;
        }
}

/* ZMQ_EVENTS of the pool's socket (and its ZMQ_FD in *fd), under the lock:
 * the heartbeat thread may be sending. */
static int s_sock_events(wh_pool_t *p, int *fd)
{
    int ev = 0;
    size_t sz = sizeof ev;
    pthread_mutex_lock(&p->sock_mu);
    if (zmq_getsockopt(p->sock, ZMQ_EVENTS, &ev, &sz) != 0)
        ev = 0;
    if (fd) {
        sz = sizeof *fd;
        if (zmq_getsockopt(p->sock, ZMQ_FD, fd, &sz) != 0)
            *fd = -1;
    }
    pthread_mutex_unlock(&p->sock_mu);
    return ev;
}

/* The pool's socket and the watched fds, polled together; the watchers of
 * readable fds are called after (from a copy: a watcher may unwatch).
 * 1 when the socket has messages, 0 when not, or -errno. The socket is
 * waited on through its ZMQ_FD, without the lock, so that the heartbeat
 * thread sends while this thread waits: its readiness is ZMQ_EVENTS,
 * asked before the wait (input waiting: no wait) and after. */
static int s_poll_all(wh_pool_t *p, int timeout_ms)
{
    zmq_pollitem_t one[1 + 8], *it = one;
    int n = 1 + p->nwatch;
    if (n > (int)(sizeof one / sizeof one[0]) && !(it = calloc((size_t)n, sizeof *it)))
        return -ENOMEM;
    struct s_watch *w = p->nwatch ? malloc((size_t)p->nwatch * sizeof *w) : NULL;
    if (p->nwatch && !w) {
        if (it != one)
            free(it);
        return -ENOMEM;
    }
    int zfd = -1;
    if (s_sock_events(p, &zfd) & ZMQ_POLLIN)
        timeout_ms = 0;
    it[0] = zfd >= 0 ? (zmq_pollitem_t){NULL, zfd, ZMQ_POLLIN, 0}
                     : (zmq_pollitem_t){NULL, -1, 0, 0};
    for (int i = 0; i < p->nwatch; i++) {
        w[i] = p->watch[i];
        it[1 + i] = (zmq_pollitem_t){NULL, w[i].fd, ZMQ_POLLIN, 0};
    }
    int rc = zmq_poll(it, n, timeout_ms);
    int perr = rc < 0 ? errno : 0;
    int nw = p->nwatch;
    for (int i = 0; rc > 0 && i < nw; i++) {
        if (!(it[1 + i].revents & ZMQ_POLLIN))
            continue;
        for (int k = 0; k < p->nwatch; k++)
            if (p->watch[k].fd == w[i].fd && p->watch[k].ctx == w[i].ctx) {
                w[i].fn(w[i].ctx);
                break;
            }
    }
    rc = rc < 0 ? -perr : (s_sock_events(p, NULL) & ZMQ_POLLIN) ? 1 : 0;
    free(w);
    if (it != one)
        free(it);
    return rc;
}

/* How long the loop may be away before it says so (at -v). */
#define S_GAP_NOTE_MS(p) (3u * (p)->hb_ms)

int wh_pool_poll(wh_pool_t *p, int timeout_ms)
{
    uint64_t t0 = wh_now_ms();
    if (p->poll_end && t0 - p->poll_end > p->gap_max) {
        p->gap_max = t0 - p->poll_end;
        if (p->gap_max > S_GAP_NOTE_MS(p))
            wh_info("coordinator: %llu ms between two turns of the pool's loop (heartbeats "
                    "%s)", (unsigned long long)p->gap_max,
                    p->beat_on ? "went on from their own thread" : "waited");
    }
    s_dispatch(p);
    int rc = s_poll_all(p, timeout_ms);
    if (rc < 0)
        return rc;
    if (rc == 0)
        p->drained_at = wh_now_ms();
    for (int budget = 0; rc > 0 && budget < 1000; budget++) {
        uint8_t ident[WH_WIRE_MAX_IDENT];
        size_t ilen = sizeof ident;
        wh_msg_t m = {0};
        char key[WH_WIRE_MAX_USER];
        pthread_mutex_lock(&p->sock_mu);
        int r = wh_wire_recv_from_peer(p->sock, ident, &ilen, key, sizeof key, &m,
                                       ZMQ_DONTWAIT);
        pthread_mutex_unlock(&p->sock_mu);
        if (r == -EAGAIN) {
            p->drained_at = wh_now_ms();
            wh_msg_clear(&m);
            break;
        }
        if (r == 0 && wh_auth_admit(key, m.type)) {
            s_handle(p, ident, ilen, key, &m);
        } else if (r == 0) {
            /* The wrong role: tell the peer, so it says so and stops
             * (it would take the silence for a dead coordinator). */
            wh_msg_t bye = {0};
            bye.type = WH_MSG_BYE;
            bye.refused = 1;
            bye.detail = wh_auth_refusal_text(key, m.type);
            if (bye.detail) {
                pthread_mutex_lock(&p->sock_mu);
                wh_wire_send_to(p->sock, ident, ilen, &bye, ZMQ_DONTWAIT);
                pthread_mutex_unlock(&p->sock_mu);
            }
            free(bye.detail);
        } else if (r != WH_EPROTO && r != WH_ETOOBIG) {
            wh_msg_clear(&m);
            break;
        } else {
            wh_warn("dropped a malformed message: %s", wh_strerror(r));
        }
        wh_msg_clear(&m);
    }
    /* Silence is measured up to the last time the socket was read empty,
     * not to now: what a slot sent while this thread was away (a long
     * turn over the jobs, a read cut at its budget) waits unread in the
     * socket, and a coordinator busy for 10 s must not declare every slot
     * dead the moment it looks again. */
    uint64_t seen = p->drained_at, now = wh_now_ms();
    for (s_slot_t *s = p->slots, *nx; s; s = nx) {
        nx = s->next;
        if (atomic_load(&s->gone))
            s->last_rx = 0; /* the heartbeat thread found it unreachable */
        /* A slot of a local pool is a thread of this very process: it
         * cannot be lost, only slow (a loaded machine starves its thread
         * of the CPU for seconds; declaring it dead made a fully cached
         * rerun exit 4 under load). It is reaped only when a send found it
         * unreachable (last_rx 0). */
        int silent = s->last_rx == 0 || (seen > s->last_rx && seen - s->last_rx > 3u * p->hb_ms);
        if (silent && (!p->local || s->last_rx == 0)) {
            s_on_lost(p, s);
            s_slot_remove(p, s, "missed 3 heartbeats; declared dead");
            continue;
        }
        if (!p->beat_on && now - s->last_tx >= p->hb_ms) {
            wh_msg_t hb = {0};
            hb.type = WH_MSG_HEARTBEAT;
            if (pl_send(p, s, &hb) == -EHOSTUNREACH)
                s->last_rx = 0; /* gone: reaped next turn */
        }
    }
    s_fail_stranded(p);
    s_dispatch(p);
    p->poll_end = wh_now_ms();
    return 0;
}

void wh_pool_local_slots(wh_pool_t *p)
{
    p->local = 1;
}

int wh_pool_reply(wh_pool_t *p, const void *ident, size_t ident_len, const wh_msg_t *m)
{
    pthread_mutex_lock(&p->sock_mu);
    int rc = wh_wire_send_to(p->sock, ident, ident_len, m, ZMQ_DONTWAIT);
    pthread_mutex_unlock(&p->sock_mu);
    return rc;
}

void wh_pool_stats(const wh_pool_t *p, wh_pool_stats_t *o)
{
    memset(o, 0, sizeof *o);
    for (const s_slot_t *s = p->slots; s; s = s->next) {
        o->slots++;
        o->busy += s->task != NULL;
        int seen = 0;
        for (const s_slot_t *q = p->slots; q != s; q = q->next)
            seen |= strcmp(q->node_id, s->node_id) == 0;
        o->nodes += !seen;
    }
    for (const s_job_t *j = p->jobs; j; j = j->next) {
        o->jobs++;
        o->queued += j->queued;
    }
    o->dispatched = p->dispatched;
    o->requeued = p->requeued;
    o->dead_slots = p->dead;
    for (const s_slot_t *s = p->slots; s; s = s->next)
        o->out_of_rotation += s->out_why != NULL;
    for (const s_slot_t *s = p->slots; s; s = s->next)
        o->warming += s->warming != NULL && !s->task;
    o->infra_faults = p->infra_faults;
    o->judged = p->judged;
    o->loop_gap_ms = p->gap_max;
}

void wh_pool_describe(const wh_pool_t *p, wh_buf_t *b)
{
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    wh_buf_printf(b, "nodes: %d  slots: %d (busy %d)  jobs: %d  queued: %d  dispatched: %llu  requeued: %llu  dead slots: %llu  out of rotation: %d  infra faults: %llu  longest loop gap: %llu ms\n",
                  st.nodes, st.slots, st.busy, st.jobs, st.queued,
                  (unsigned long long)st.dispatched, (unsigned long long)st.requeued,
                  (unsigned long long)st.dead_slots, st.out_of_rotation,
                  (unsigned long long)st.infra_faults, (unsigned long long)st.loop_gap_ms);
    for (const s_slot_t *s = p->slots; s; s = s->next)
        wh_buf_printf(b, "  slot %-40s %s%s%s\n", s->name,
                      s->task ? (s->task->cancelled ? "cancelling" : "busy")
                      : s->warming ? "warming" : "idle",
                      s->out_why ? "  OUT OF ROTATION: " : "", s->out_why ? s->out_why : "");
}
