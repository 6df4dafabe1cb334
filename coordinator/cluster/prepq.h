/*
 * prepq — the coordinator's preparation queue: a fixed number of threads
 * that run the jobs' slow set-up work (libclang parses, project hashes)
 * first come, first served, in levels (every task of level 0 before any of
 * level 1), so that many jobs submitted at once are prepared a few at a
 * time in submit order instead of all at once (issue 35: 200 preparations
 * on 200 threads all ended near the end of that burst while the slots
 * waited).
 *
 * A task is a struct the caller embeds in its own object and owns; the
 * queue holds it from wh_prepq_push until a thread has run it (state
 * WH_PREPQ_DONE). The owner polls the state from its loop (the queue writes
 * wake_fd after each task, so the loop wakes at once) and must not free a
 * task that is queued (wh_prepq_cancel it) or running (wait for DONE).
 * Every function but the task's run is called on the owner's thread.
 *
 * With wh_log at info level (--verbose) every task says when it starts and
 * ends, under the queue's lock, so the log's order is the order of events.
 */
#ifndef WH_PREPQ_H
#define WH_PREPQ_H

#include <stdint.h>

typedef enum {
    WH_PREPQ_IDLE = 0, /* never queued, or cancelled */
    WH_PREPQ_QUEUED,
    WH_PREPQ_RUNNING,
    WH_PREPQ_DONE,
} wh_prepq_state_t;

typedef struct wh_prepq_task {
    void (*run)(struct wh_prepq_task *t); /* on a queue thread */
    const char *what;                     /* for the log: "identify", "front end" */
    char name[48];                        /* for the log: the job's id */
    uint64_t order;                       /* a level runs in ascending order (submit
                                           * order), equal orders first come first */
    /* the queue's own */
    wh_prepq_state_t state;
    int level;
    uint64_t queued_ms;
    struct wh_prepq_task *next;
} wh_prepq_task_t;

typedef struct wh_prepq wh_prepq_t;

/* Levels: 0 runs before 1. */
#define WH_PREPQ_LEVELS 2

/* Starts threads (1..64) that write wake_fd (-1: none) after each task.
 * NULL and *err when no thread can be started. */
wh_prepq_t *wh_prepq_new(int threads, int wake_fd, char **err);
/* Drops the tasks still queued (IDLE again), waits for the running ones,
 * joins the threads; *q becomes NULL. */
void wh_prepq_destroy(wh_prepq_t **q);

/* Queues t (run, what and order set by the caller) behind the tasks of
 * its level whose order is not above its own. */
void wh_prepq_push(wh_prepq_t *q, wh_prepq_task_t *t, int level);
/* t's state now. */
wh_prepq_state_t wh_prepq_state(wh_prepq_t *q, const wh_prepq_task_t *t);
/* Takes t off the queue when it still waits there: 1 (IDLE again); 0 when
 * it runs (wait for DONE) or is not queued. */
int wh_prepq_cancel(wh_prepq_t *q, wh_prepq_task_t *t);
/* The tasks queued before t (of its level and the levels before), or -1
 * when t is not queued. */
int wh_prepq_ahead(wh_prepq_t *q, const wh_prepq_task_t *t);

typedef struct {
    int threads, busy, max_busy; /* max_busy: the most that ever ran at once */
    int queued[WH_PREPQ_LEVELS];
    uint64_t done;
} wh_prepq_stats_t;
void wh_prepq_stats(wh_prepq_t *q, wh_prepq_stats_t *st);

#endif
