/*
 * worker_int — the worker module's private header: the node's and the
 * slot's structs and what its two files share (the wk_* functions one file
 * calls in the other). The module is worker.c (the slot threads, the
 * socket, evaluation, infrastructure faults; the public API, worker.h)
 * with worker_ws.c (the slot's workspaces: keys, eviction, setup, the user
 * of a key), worker_beat.c (the node's heartbeat thread) and worker_tar.c
 * (a tar snapshot fetched and unpacked as the key's uid); nothing else
 * includes this header. Threads: as worker.h says
 * of each slot; wk_* functions run on the slot's own thread unless their
 * comment says otherwise.
 */
#ifndef WH_WORKER_INT_H
#define WH_WORKER_INT_H

#include "worker.h"

#include <pthread.h>
#include <stdatomic.h>

#include "runner.h"
#include "warmup.h"
#include "wire.h"

#define WK_READY_MARK ".whittle-ready"

typedef struct wk_slot wk_slot_t;

struct wh_node {
    void *zctx;
    char *endpoint;
    char *node_id;
    char *workdir;
    unsigned hb_ms;
    uint64_t max_disk;
    wh_auth_keys_t keys;       /* CURVE client keys when has_keys */
    int has_keys;
    int nslots;
#ifdef WH_NODE_TEST
    int test_lie;           /* see wh_node_opts_t: whittle-node-test only */
    int test_busy;
#endif
    wk_slot_t *slots;
    atomic_int stop;
    /* Handshakes the coordinator refused in a row, over all slots; at
     * WH_NODE_REFUSALS, refused holds the last kind (wh_auth_refusal_t):
     * the node should stop (wh_node_refused). */
    atomic_int refusals;
    atomic_int refused;
    _Atomic uint64_t refusal_ms;  /* when the last refusal was counted */
    /* The coordinator's own words when it refused this key's role (a
     * BYE with refused): written once, by the slot that set refused to
     * WH_AUTH_ROLE_REFUSED, before it did. */
    char role_refusal[512];
    atomic_int role_refusal_set;
    /* When a slot last found that this process had been stopped (SIGSTOP)
     * long enough to lose its session: a handshake failing soon after is
     * the cut session's, not the keys'. */
    _Atomic uint64_t resumed_ms;
    atomic_uint_fast64_t evaluated;
    pthread_mutex_t disk_mu;   /* serializes eviction scans */
    wh_warmup_t *warm;         /* one setup per node per workspace key */
    wh_runas_t *runas;         /* the user and sandbox of job commands, or NULL */
    /* The heartbeat thread (worker_beat.c): it waits on beat_cv under
     * beat_mu between rounds, so that wh_node_stop wakes it at once. */
    pthread_t beat;
    int beat_on;
    pthread_mutex_t beat_mu;
    pthread_cond_t beat_cv;
    unsigned beat_cont;        /* the beat thread's: wk_continued() when it last looked */
    uint64_t beat_last;        /* the beat thread's: when its last round began */
    char *sandbox_note;        /* why --sandbox auto found no sandbox, or NULL */
    /* --job-uids: a user per workspace key (wk_key_runas) */
    unsigned uid_lo, uid_hi;
    pthread_mutex_t uid_mu;
    struct wk_keyuser {
        char key[65];
        wh_runas_t *runas;
    } *keyusers;
    int nkeyusers;
};

struct wk_slot {
    wh_node_t *node;
    int index;
    pthread_t thread;
    int started;
    /* mu guards sock (its every use: the heartbeat thread sends on it too)
     * and last_tx; the slot's thread waits for input without it. */
    pthread_mutex_t mu;
    int mu_ok;
    int wake_fd;            /* eventfd: the heartbeat thread's send took the socket's
                               signal while input waits; -1: none */
    void *sock;
    void *mon;              /* watches sock's CURVE handshakes (wh_auth_watch), or NULL */
    uint64_t last_rx;       /* monotonic ms of the last message read from the coordinator */
    uint64_t alive_ms;      /* monotonic ms this slot last ran (loop turn or tick) */
    unsigned cont_seen;     /* wh_node_note_continued calls seen */
    uint64_t last_tx;       /* under mu */
    int stale;              /* under mu: the process was stopped longer than 3 heartbeats
                               since this session began: the coordinator has dropped it, and
                               the heartbeat thread sends nothing on it (the slot's thread
                               reconnects, s_resumed) */
    _Atomic uint64_t beat_cand; /* the candidate the heartbeats say it judges, or 0 */
    unsigned backoff_ms;
    /* the candidate being judged */
    char *cur_job;
    uint64_t cur_cand;
    int cancel;
    char setup_taint[768];  /* why the last setup failed for the node's sake, or "" */
};

/* worker.c */

/* The runner's tick on the slot's thread: heartbeats, CANCEL, shutdown. */
int wk_tick(void *arg);
/* Sends a HEARTBEAT when one is due (hb_ms since the last message sent);
 * s->mu held, s->sock open. Either thread. */
void wk_beat_locked(wk_slot_t *s, uint64_t now);
/* What the slot's heartbeats say it is doing: judging job's cand, or
 * nothing (job NULL); sets cur_job and cur_cand. The slot's thread. */
void wk_set_current(wk_slot_t *s, char *job, uint64_t cand);

/* worker_beat.c */

/* Starts the node's heartbeat thread (after the slots exist); 0 or -1. */
int wk_beat_start(wh_node_t *n);
/* How many times this process was continued (SIGCONT) so far. */
unsigned wk_continued(void);
/* Wakes and joins it, once n->stop is set; a no-op when it did not start. */
void wk_beat_stop(wh_node_t *n);
/* Sends m on the slot's socket without blocking. */
void wk_send(wk_slot_t *s, const wh_msg_t *m);
/* Notes whether a setup run failed for the node's sake (s->setup_taint). */
void wk_setup_taint(wk_slot_t *s, const wh_run_result_t *r, const char *log);

/* worker_ws.c */

/* The warm-workspace key of project for job j (64 hex digits and NUL). */
void wk_ws_key(const wh_job_spec_t *j, const char *project, char out[65]);
/* Removes a workspace and its side files. */
void wk_remove_workspace(const char *root);
/* Tells the coordinator that a workspace of job j was prepared (or not). */
void wk_send_warmed(wk_slot_t *s, const char *job_id, int on_reference, int code,
                    const wh_warm_stats_t *st, const char *detail, int final);
/* 1 when the ready mark at path was written in this node's workspace mode. */
int wk_mark_ok(const wh_node_t *n, const char *path);
/* The folder of the slot's workspace of project (malloc'ed). */
char *wk_ws_dir(const wk_slot_t *s, const wh_job_spec_t *j, const char *project, int fresh);
/* The user a workspace key's commands run as; NULL with *detail when it
 * cannot be made. Any slot thread. */
const wh_runas_t *wk_key_runas(wh_node_t *n, const char *key, char **detail);

/* worker_tar.c */

/* Points a job that travels as a tar snapshot (j->tar_sha) at this node's
 * copy of it, ws/<key>/src-<sha>, fetched from the coordinator and
 * unpacked as the key's uid when it is not there yet; tick(s) about every
 * 100 ms meanwhile. 0, or -1 with *err (one line). */
int wk_tar_localize(wk_slot_t *s, wh_job_spec_t *j, void (*tick)(void *), char **err);
/* Makes sure the slot's workspace for job j exists and is set up; 0, or a
 * negative code with *detail. */
int wk_ensure_workspace(wk_slot_t *s, const wh_job_spec_t *j, const char *project, int fresh,
                        wh_warm_stats_t *bg, char **root, char **detail);
/* WARM: prepares the job's workspaces and answers one final WARMED. */
void wk_warm(wk_slot_t *s, const wh_msg_t *m);

#endif
