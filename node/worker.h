/*
 * worker — the node's hands: slot threads that speak the wire protocol to a
 * coordinator. Each slot owns one DEALER connection, its warm workspaces
 * (one per project snapshot + setup command + test file, set up once), and
 * runs one candidate at a time: write the test file, build, run the test,
 * read the report, judge, answer VERDICT.
 *
 * Blocking work (copy, setup, build, test) runs on the slot's own thread,
 * never on a poll thread; while it runs, the runner's tick sends heartbeats
 * (which renew the candidate's lease at the coordinator) and watches the
 * socket for CANCEL. A slot that hears nothing from the coordinator for
 * 3 heartbeats reconnects with backoff (1 s, 2 s, 4 s, … capped at 10 s) and
 * says HELLO again.
 *
 * The same code serves the embedded default (inproc:// endpoints inside the
 * `whittle` process) and the `whittle-node` daemon (tcp://).
 */
#ifndef WH_WORKER_H
#define WH_WORKER_H

#include <stdint.h>

#include "auth.h"
#include "runas.h"

typedef struct {
    const char *endpoint;     /* coordinator's ROUTER endpoint */
    const char *node_id;      /* NULL: hostname-pid */
    int slots;                /* slot threads, >= 1 */
    const char *workdir;      /* warm workspaces live under workdir/ws/<key>/slot-K */
    unsigned heartbeat_ms;    /* 0: 1000 */
    uint64_t max_disk;        /* bytes; 0 = unlimited. LRU eviction of idle workspaces */
    const wh_auth_keys_t *keys; /* CURVE keys (copied); NULL: none (inproc, --insecure) */
    const char *run_as;       /* NULL: job commands run as the node's user; else as this
                                 user (runas.h; needs root) */
    int sandbox;              /* wh_sandbox_t: WH_SANDBOX_BWRAP confines each command */
    int test_lie;             /* TEST ONLY (whittle-node with WH_TEST_LIE=preserved): answer
                                 Preserved to every candidate without judging it, to test
                                 that the verify step finds a lying node out */
    int test_busy;            /* TEST ONLY (whittle-node with WH_TEST_BUSY=always): answer
                                 "slot busy" to every candidate, to test the coordinator's
                                 busy budget */
} wh_node_opts_t;

typedef struct wh_node wh_node_t;

/* Starts the slot threads on zmq context zctx (shared with the caller for
 * inproc://). Returns NULL and sets *err on failure. */
wh_node_t *wh_node_start(void *zctx, const wh_node_opts_t *o, char **err);
/* Asks every slot to stop (a running build is killed), joins, frees. */
void wh_node_stop(wh_node_t **n);
/* Number of candidates this node has judged (all slots). */
uint64_t wh_node_evaluated(const wh_node_t *n);

#endif
