/*
 * pool_int — the slot pool's insides, shared by its files (pool.c:
 * slots, dispatch, liveness; pool_warm.c: eager warm-up). Not for use
 * outside coordinator/dispatch.
 */
#ifndef WH_POOL_INT_H
#define WH_POOL_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "budget.h"
#include "pool.h"
#include "wh_common.h"

typedef struct s_job s_job_t;
typedef struct s_slot s_slot_t;

typedef struct s_task {
    s_job_t *job;          /* NULL once the job is gone */
    char *job_id;
    uint64_t cand_id;
    uint8_t *content;      /* NULL for a lazy task between dispatches */
    size_t len;
    int lazy;              /* rendered by the job's render function */
    int baseline;
    int on_reference;
    int verify;            /* judged by a slot other than avoid (see pool.h) */
    char *avoid;           /* slot name, or NULL */
    int lost;              /* slots that died while holding it */
    int busy;              /* "busy" answers it met */
    int tainted;           /* tries that ended in an infrastructure fault */
    char **tried_slot;     /* ... on these slots (names) */
    char **tried_node;     /* ... of these nodes */
    int cancelled;
    s_slot_t *slot;        /* running on */
    struct s_task *next;   /* queue link */
} s_task_t;

struct s_job {
    wh_job_spec_t spec;
    wh_fp_t ref;
    wh_pool_verdict_fn fn;
    wh_pool_note_fn note;
    wh_pool_render_fn render;
    wh_pool_hold_fn hold;
    void *ctx;
    s_task_t *head, *tail;
    int queued;
    char **excluded;       /* node ids out of this job's rotation */
    int nexcluded;
    int running;           /* candidates on slots now */
    uint64_t served;       /* candidates dispatched so far */
    uint64_t added_ms;     /* when it was added (monotonic) */
    wh_pool_warm_t warm;   /* WARMED reports */
    s_job_t *next;
};

struct s_slot {
    uint8_t ident[WH_WIRE_MAX_IDENT];
    size_t ident_len;
    char *name;            /* key name/slot when authenticated, else the printable ident */
    char *key;             /* ZAP user id of the peer ("" unauthenticated): its identity */
    char *node_id;
    uint64_t last_rx;      /* when the poll thread last read a message from it */
    uint64_t last_tx;      /* when a message last went to it; under sock_mu */
    atomic_int gone;       /* a send found it unreachable: reaped at the next check */
    s_task_t *task;
    uint64_t phantom;      /* a candidate the slot is still judging for a task we no
                              longer hold (it was declared dead and came back) */
    char **warm;           /* job ids this slot has judged (warm workspaces) */
    int nwarm;
    int warms;             /* it answers WARM (older slots do not) */
    char *warming;         /* the job it is preparing after a WARM, or NULL */
    char **cold;           /* job ids whose WARM failed on this slot */
    int ncold;
    int streak;            /* infrastructure faults in a row */
    char *out_why;         /* out of rotation, and why; NULL when in */
    wh_budget_t busy;      /* "busy" answers in a row */
    uint64_t hold_until;   /* no work before this (busy or loss backoff; monotonic ms) */
    s_slot_t *next;
};

struct wh_pool {
    void *zctx;
    void *sock;
    const wh_auth_t *auth; /* NULL: no CURVE (embedded, --insecure) */
    char *endpoint;
    unsigned hb_ms;
    int local;             /* every slot is a thread of this process (wh_pool_local_slots) */
    s_slot_t *slots;
    s_job_t *jobs;
    s_job_t *rr;           /* round-robin cursor */
    wh_pool_other_fn other;
    void *other_ctx;
    uint64_t dispatched, requeued, dead;
    wh_losses_t *losses;   /* losses by slot name, across reconnects */
    uint64_t infra_faults;
    uint64_t judged;
    wh_pool_node_stat_t *nstat; /* per node ever seen; node names owned */
    int n_nstat;
    struct s_watch {
        int fd;
        wh_pool_fd_fn fn;
        void *ctx;
    } *watch;              /* fds watched for reading (wh_pool_watch_fd) */
    int nwatch, capwatch;
    int timer_fd;          /* wh_pool_wake_at's timer, watched; -1: not made (yet) */
    uint64_t timer_at;     /* when it is armed for (wh_now_ms), 0: not armed */
    /* The heartbeat thread (pool_beat.c). sock_mu guards the socket, the
     * slot list's links and each slot's last_tx; everything else is the
     * poll thread's alone. */
    pthread_mutex_t sock_mu;
    pthread_cond_t beat_cv;
    pthread_t beat;
    int beat_on;           /* the thread runs: the poll thread sends no heartbeats */
    int beat_stop;         /* under sock_mu */
    int beat_wake;         /* wakes the poll after a send took the socket's signal; -1 */
    uint64_t drained_at;   /* when a read last found the socket empty (wh_now_ms) */
    uint64_t poll_end;     /* when the last wh_pool_poll returned */
    uint64_t gap_max;      /* the longest time between two wh_pool_poll calls */
};

/* pool.c */
s_job_t *pl_find_job(wh_pool_t *p, const char *id);
int pl_send(wh_pool_t *p, s_slot_t *s, const wh_msg_t *m);

/* pool_beat.c: the heartbeat thread. 0, or -1 when it cannot start (the
 * poll thread sends the heartbeats then). */
int pl_beat_start(wh_pool_t *p);
/* Stops and joins it (a no-op when it does not run). */
void pl_beat_stop(wh_pool_t *p);

/* pool_warm.c: which slots are warm for which jobs, and WARM/WARMED */
int pl_is_warm(const s_slot_t *s, const char *job_id);
/* 1 when another slot of s's node is warm for the job. */
int pl_node_warm(const wh_pool_t *p, const s_slot_t *s, const char *job_id);
void pl_mark_warm(s_slot_t *s, const char *job_id);
int pl_in_list(char *const *list, int n, const char *id);
void pl_forget_cold(wh_pool_t *p, const char *job_id);
int pl_may_serve(const wh_pool_t *p, const s_slot_t *s, const s_job_t *j);
int pl_warm_idle(wh_pool_t *p, s_slot_t *s);
void pl_on_warmed(wh_pool_t *p, s_slot_t *s, const wh_msg_t *m);
void pl_warm_cancel(wh_pool_t *p, const s_job_t *j);

#endif
