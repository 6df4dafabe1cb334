/*
 * pool — the coordinator's view of the node slots: one ZeroMQ ROUTER that
 * slots (and clients) connect to, the registry of live slots, the queue of
 * candidates to judge per job, fair dispatch across jobs, heartbeats both
 * ways, leases, requeue on a dead slot, cancellation. Only this module and
 * the wire module touch sockets on the coordinator side.
 *
 * Liveness: every slot is sent a HEARTBEAT every hb_ms, from a thread of
 * the pool's own (pool_beat.c), so that an owner busy for seconds between
 * two wh_pool_poll calls is not taken for lost by its slots. Any message
 * from a slot counts as life and renews the lease of its candidate (slots
 * send heartbeats from a thread no build blocks). A slot silent for
 * 3 × hb_ms is dead: its candidate goes back to the front of its job's
 * queue; a candidate that has lost its slot 3 times is answered
 * InfraError. Silence is counted up to the last time the pool read its
 * socket empty, not up to now: what a slot sent while the owner was away
 * is read before anyone is judged. One that a send finds unreachable is
 * dead at once.
 *
 * Tainted verdicts: an InfraError with code WH_ETAINT says something about
 * the slot (a full disk, an OOM kill, a missing tool), not about the
 * candidate. It is never passed on as a verdict: the candidate goes back to
 * the front of its queue for a slot it has not failed on (on another node
 * when one is in rotation), and the job hears of it through its note
 * function. After 3 such faults the candidate is answered InfraError with
 * code WH_ETAINT; so is a candidate no slot in rotation may take. A slot
 * that answers 3 in a row is taken out of rotation: it stays connected, is
 * named in wh_pool_describe, and gets no more work.
 *
 * Dispatch: a free slot takes the next candidate of the next job in
 * round-robin order, preferring jobs whose warm workspace this slot's node
 * already holds. One owner thread.
 *
 * Eager warm-up: a job's candidates go only to slots whose workspace for it
 * is warm, as long as any slot is (a cold slot would stall its round for a
 * whole setup); while a job has work, every idle slot that is cold for it
 * is sent WARM and prepares at once, and joins when it answers WARMED. When
 * no slot is warm yet, a cold one takes the first candidate and prepares on
 * the way, as before.
 */
#ifndef WH_POOL_H
#define WH_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "wire.h"

typedef struct wh_pool wh_pool_t;

/* Called on the pool's thread when a verdict for (job, cand) arrives (or is
 * synthesized: InfraError after 3 lost slots, code WH_EUNAVAIL). worker is
 * the slot's name. */
typedef void (*wh_pool_verdict_fn)(void *ctx, uint64_t cand_id, const wh_msg_t *v,
                                   const char *worker);
/* Called for messages that are not from slots (SUBMIT, STATUS_REQ, WATCH,
 * CANCEL, …). key is the sender's ZAP user id ("client:NAME"; "" without
 * CURVE): who owns a job it submits. */
typedef void (*wh_pool_other_fn)(void *ctx, const void *ident, size_t ident_len,
                                 const char *key, wh_msg_t *m);

wh_pool_t *wh_pool_new(void *zctx, const char *bind, unsigned hb_ms, char **err);
/* The same with CURVE on the ROUTER (auth not NULL, borrowed: it outlives
 * the pool): only keys on its allow-lists connect, each message is checked
 * against its sender's role (auth.h), a slot is owned by the key that
 * registered it, and slots are named "KEYNAME/SLOT". */
wh_pool_t *wh_pool_new_auth(void *zctx, const char *bind, unsigned hb_ms, const wh_auth_t *auth,
                            char **err);
void wh_pool_destroy(wh_pool_t **p);
/* The endpoint actually bound (tcp://…:port resolved). */
const char *wh_pool_endpoint(const wh_pool_t *p);
void wh_pool_on_other(wh_pool_t *p, wh_pool_other_fn fn, void *ctx);

/* Registers a job (spec copied). */
int wh_pool_add_job(wh_pool_t *p, const wh_job_spec_t *spec, wh_pool_verdict_fn fn, void *ctx);
/* Forgets a job: cancels its queued and running candidates. */
void wh_pool_remove_job(wh_pool_t *p, const char *job_id);
/* What the pool tells a job besides verdicts. */
typedef enum {
    WH_POOL_NOTE_FAULT = 1, /* worker answered with an infrastructure fault; retried elsewhere */
    WH_POOL_NOTE_OUT = 2,   /* worker is now out of rotation; detail says why */
} wh_pool_note_t;
/* Called on the pool's thread with the job's ctx; must not call back into
 * the pool. */
typedef void (*wh_pool_note_fn)(void *ctx, uint64_t cand_id, wh_pool_note_t what,
                                const char *worker, const char *detail);
/* Sets the job's note function (NULL: none). WH_ENOTFOUND for no such job. */
int wh_pool_set_note(wh_pool_t *p, const char *job_id, wh_pool_note_fn fn);

/* Sets the reference fingerprint sent with the job's candidates. */
int wh_pool_set_ref(wh_pool_t *p, const char *job_id, const wh_fp_t *ref);

/* The job goes on without its reference: tasks sent from now on carry no
 * reference and no --keep-fault (a picked reference that fails the
 * original; refauto.h). WH_ENOTFOUND for no such job. */
int wh_pool_drop_reference(wh_pool_t *p, const char *job_id);

enum {
    WH_TASK_BASELINE = 1,      /* capture the fingerprint, no verdict */
    WH_TASK_ON_REFERENCE = 2,  /* run in the reference workspace */
};
/* Queues one candidate (content copied); flags: WH_TASK_* bits. */
int wh_pool_submit(wh_pool_t *p, const char *job_id, uint64_t cand_id,
                   const void *content, size_t len, int flags);
/* Queues a verify task (the final check of a reduction, DESIGN.md "Trust"):
 * judged afresh by a slot other than avoid (a slot name as given to the
 * verdict callback; NULL: any slot). Preference: a slot of another node;
 * else another slot of avoid's node; else avoid itself, told to judge in a
 * fresh workspace. The task waits for a preferred slot that is busy. */
int wh_pool_submit_verify(wh_pool_t *p, const char *job_id, uint64_t cand_id,
                          const void *content, size_t len, const char *avoid);
/* Takes node_id out of the job's rotation (its verdicts were found wrong).
 * Ignored while no other live node could serve the job. */
int wh_pool_exclude_node(wh_pool_t *p, const char *job_id, const char *node_id);
/* 1 when node_id is out of job_id's rotation (wh_pool_exclude_node). */
int wh_pool_node_excluded(const wh_pool_t *p, const char *job_id, const char *node_id);
/* 1 when a live slot in rotation, of a node not excluded from job_id, is
 * on another node than node_id. */
int wh_pool_other_node(const wh_pool_t *p, const char *job_id, const char *node_id);
/* A live slot of the node whose key name (wh_pool_key_of) is key_name, or
 * NULL: none, or "local" (every unauthenticated node is "local"). */
const char *wh_pool_slot_of_key(const wh_pool_t *p, const char *key_name);
/* The node id of a live slot named name, or NULL. */
const char *wh_pool_node_of(const wh_pool_t *p, const char *slot_name);
/* The key name of a live slot's node ("NAME" of its ZAP user id
 * "node:NAME"): who a verdict it sends is recorded against in the cache.
 * "local" for an unauthenticated slot (embedded, --insecure) or an unknown
 * one. */
const char *wh_pool_key_of(const wh_pool_t *p, const char *slot_name);

/* Makes the text of the job's candidate cand_id when a slot takes it
 * (malloc'ed, *len set). NULL (out of memory, or a candidate the job no
 * longer holds) drops the task and answers it InfraError, code WH_EUNAVAIL,
 * so a round never waits for it. Called on the pool's thread with the
 * job's ctx. */
typedef char *(*wh_pool_render_fn)(void *ctx, uint64_t cand_id, size_t *len);
int wh_pool_set_render(wh_pool_t *p, const char *job_id, wh_pool_render_fn fn);
/* 1 when the job's lazily queued candidate cand_id should not start yet
 * (a slot then serves another job, or waits); the pool asks again at every
 * dispatch, at least once per wh_pool_poll. Called on the pool's thread
 * with the job's ctx. */
typedef int (*wh_pool_hold_fn)(void *ctx, uint64_t cand_id);
int wh_pool_set_hold(wh_pool_t *p, const char *job_id, wh_pool_hold_fn fn);
/* Queues one candidate whose text is made by the job's render function at
 * dispatch, and made again if its slot dies: a queue of thousands holds no
 * texts. It goes into the job's queue before the first queued candidate
 * with a higher id (ids given in canonical order keep that order however
 * late each is queued). WH_EINVAL when the job has no render function. */
int wh_pool_submit_lazy(wh_pool_t *p, const char *job_id, uint64_t cand_id);
/* Drops a queued candidate or asks its slot to stop it; 1 when a slot
 * had it (a dispatch that gives no verdict), else 0. */
int wh_pool_cancel(wh_pool_t *p, const char *job_id, uint64_t cand_id);
/* Every slot that will join is a thread of this process (the embedded
 * cluster): a slot silent for 3 heartbeats is slow, not lost, and is never
 * declared dead for it (one a send finds unreachable still is). */
void wh_pool_local_slots(wh_pool_t *p);

/* One turn of the loop: waits up to timeout_ms for messages (or a watched
 * fd), handles them, calls the watchers of readable fds, dispatches, sends
 * heartbeats, reaps dead slots. */
int wh_pool_poll(wh_pool_t *p, int timeout_ms);

/* Called on the pool's thread, in wh_pool_poll, when a watched fd is
 * readable; it may submit and cancel candidates (what it queues is
 * dispatched in the same turn) and unwatch fds. */
typedef void (*wh_pool_fd_fn)(void *ctx);
/* Watches fd (owned by the caller) for reading: work finished off the
 * pool's thread (the precheck's answers) is taken up without waiting for
 * the poll timeout. 0, WH_ENOMEM, or WH_EINVAL when fd is watched already. */
int wh_pool_watch_fd(wh_pool_t *p, int fd, wh_pool_fd_fn fn, void *ctx);
/* Stops watching fd (before the caller closes it); a no-op for an fd not
 * watched. */
void wh_pool_unwatch_fd(wh_pool_t *p, int fd);
/* An eventfd the pool watches and drains, only to wake its poll: a thread
 * whose result the loop takes up after wh_pool_poll (a job's preparation,
 * a parse) writes it with wh_wake_signal when done. -1 when none can be
 * made (the poll timeout takes such results up instead). */
int wh_pool_wake_open(wh_pool_t *p);
/* Unwatches and closes fd (-1: nothing); once no thread writes it. */
void wh_pool_wake_close(wh_pool_t *p, int fd);
/* Makes the poll return by `when` (wh_now_ms), for a wait the caller
 * chose (a held task's hold, a job waiting for a verdict due any moment):
 * the loop then asks the hold functions again and calls the jobs' own
 * polls. One timer for the pool, armed for the soonest time asked, so a
 * later time asked meanwhile may be forgotten when it fires: a caller
 * asks again every turn while it waits (the pool asks the holds at every
 * dispatch). Without a timer fd, the poll timeout takes it up. */
void wh_pool_wake_at(wh_pool_t *p, uint64_t when);

/* Sends a message to a client (for replies to SUBMIT/STATUS_REQ). */
int wh_pool_reply(wh_pool_t *p, const void *ident, size_t ident_len, const wh_msg_t *m);

typedef struct {
    int slots;          /* live slots */
    int busy;           /* slots judging a candidate */
    int nodes;          /* distinct node ids among live slots */
    int jobs;
    int queued;
    uint64_t dispatched, requeued, dead_slots;
    int out_of_rotation;    /* live slots taken out of rotation */
    uint64_t infra_faults;  /* tainted answers (code WH_ETAINT) received */
    int warming;            /* live slots preparing a job after a WARM */
    uint64_t judged;        /* verdicts received from slots */
    uint64_t loop_gap_ms;   /* the longest time between two wh_pool_poll calls: how long
                               the owner's loop was away (heartbeats go on meanwhile) */
} wh_pool_stats_t;
void wh_pool_stats(const wh_pool_t *p, wh_pool_stats_t *out);

/* Per node, for every node seen since the pool started (live or not):
 * its live slots now, the verdicts it answered and how many of them were
 * InfraError (tainted or not). */
typedef struct {
    const char *node;
    int slots;
    uint64_t verdicts, infra;
} wh_pool_node_stat_t;
/* The pool's own array (*n entries), valid until the next call into the
 * pool. */
const wh_pool_node_stat_t *wh_pool_node_stats(wh_pool_t *p, int *n);

/* How a job's workspaces were prepared, from the slots' WARMED reports. */
typedef struct {
    int setups;              /* setups run (project and reference workspaces) */
    int clones;              /* workspaces cloned from a node's set-up copy */
    int failed;              /* preparations that failed */
    uint64_t setup_ms;       /* the longest setup (with the project copy before it) */
    uint64_t clone_ms;       /* the longest clone of a node's set-up copy */
    uint64_t first_warm_ms;  /* from wh_pool_add_job to the first warm slot; 0 = none */
} wh_pool_warm_t;
/* 0, or WH_ENOTFOUND for an unknown job. */
int wh_pool_warm_stats(const wh_pool_t *p, const char *job_id, wh_pool_warm_t *out);
/* Human-readable table of nodes and slots, appended to b. */
void wh_pool_describe(const wh_pool_t *p, wh_buf_t *b);

#endif
