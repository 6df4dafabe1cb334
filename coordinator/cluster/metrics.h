/*
 * metrics — what the coordinator tells an operator: a sample of its state
 * (jobs, queue, slots, judging rate, cache hits, faults per node) rendered
 * as Prometheus text (exposition format 0.0.4), and a small HTTP server
 * (libmicrohttpd, its own thread) that serves the latest rendering with
 * liveness and readiness endpoints:
 *
 *   GET /metrics  the text published last
 *   GET /healthz  200 while the poll loop publishes (it does every turn);
 *                 503 when it has not for WH_METRICS_STALL_MS (a stuck loop)
 *   GET /readyz   200 when the loop says it can take jobs (listening, cache
 *                 open); 503 with the reason otherwise
 *
 * The poll loop owns all state; it renders a sample and hands the text to
 * the server (wh_metrics_publish), which only copies it under a mutex. So
 * the HTTP thread never reads the pool.
 */
#ifndef WH_METRICS_H
#define WH_METRICS_H

#include <stdint.h>

#include "wh_common.h"

#define WH_METRICS_STALL_MS 10000
/* The server's connections: at most WH_METRICS_MAX_CONNECTIONS at once
 * (fewer when the process may open fewer files: its soft limit is raised
 * to the hard one at start, and WH_METRICS_FD_RESERVE are kept for the
 * rest of the coordinator), served by one epoll thread; a connection whose
 * request has not arrived whole within WH_METRICS_IDLE_TIMEOUT_S of its
 * start (or of its previous answer) is closed, whether it sent nothing
 * (idle) or a byte at a time (slow-loris), so held connections cannot
 * keep the probes out (issue 34: 1,100 held connections failed 10 of 15
 * one-second /healthz probes). */
#define WH_METRICS_MAX_CONNECTIONS 16384
#define WH_METRICS_FD_RESERVE 256
#define WH_METRICS_IDLE_TIMEOUT_S 5

typedef struct {
    const char *name;       /* node id (key name when CURVE is on) */
    int slots;              /* live slots of the node now */
    uint64_t verdicts;      /* verdicts it answered */
    uint64_t infra;         /* of which InfraError (tainted or not) */
} wh_metrics_node_t;

typedef struct {
    uint64_t jobs_submitted, jobs_finished, jobs_failed;
    int jobs_preparing, jobs_running;
    int queued;                       /* candidates waiting for a slot */
    int slots, busy, warming, idle, out_of_rotation, nodes;
    uint64_t judged;                  /* verdicts received from slots */
    double judged_per_s;              /* over the last minute */
    uint64_t cache_lookups, cache_hits;
    uint64_t requeued, dead_slots;
    double uptime_s;
    const wh_metrics_node_t *per_node;
    int n_nodes;
} wh_metrics_sample_t;

/* Appends the Prometheus text of s to b. */
void wh_metrics_render(const wh_metrics_sample_t *s, wh_buf_t *b);

typedef struct wh_metrics wh_metrics_t;

/* Serves on addr: "PORT" (127.0.0.1), "HOST:PORT" (an IPv4 address or
 * "localhost"); PORT 0 picks a free one. NULL and *err on failure. */
wh_metrics_t *wh_metrics_start(const char *addr, char **err);
/* The address really served, "HOST:PORT". */
const char *wh_metrics_addr(const wh_metrics_t *m);
/* Hands the server the newest text and readiness (why_not: the reason when
 * not ready, else NULL). Called by the poll loop every turn. */
void wh_metrics_publish(wh_metrics_t *m, const char *text, int ready, const char *why_not);
/* How long without a publish makes /healthz fail (default
 * WH_METRICS_STALL_MS). */
void wh_metrics_set_stall(wh_metrics_t *m, unsigned ms);
void wh_metrics_stop(wh_metrics_t **m);

#endif
