/*
 * worker — the node's hands: slot threads that speak the wire protocol to a
 * coordinator. Each slot owns one DEALER connection, its warm workspaces
 * (one per project snapshot + setup command + test file, set up once), and
 * runs one candidate at a time: write the test file, build, run the test,
 * read the report, judge, answer VERDICT.
 *
 * Blocking work (copy, setup, build, test) runs on the slot's own thread,
 * never on a poll thread; while it runs, the runner's tick watches the
 * socket for CANCEL. Heartbeats (which renew the candidate's lease at the
 * coordinator) go out from the node's heartbeat thread, which nothing
 * else blocks (a project copy, a hand-over of 40,000 files to the job's
 * user, an eviction scan), on each slot's socket under the slot's lock. A
 * slot that reads its socket empty and has heard nothing from the
 * coordinator for 3 heartbeats reconnects with backoff (1 s, 2 s, 4 s, …
 * capped at 10 s) and says HELLO again; what waited unread while the slot
 * worked counts as heard. A coordinator that refuses the node's handshake (its
 * CURVE key is not listed, or keys on one side only) is not silent: the
 * refusal is logged as a warning at once, the slot reconnects after its
 * backoff, and after WH_NODE_REFUSALS in a row wh_node_refused says so (the
 * daemon stops).
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
    int sandbox;              /* wh_sandbox_t: WH_SANDBOX_BWRAP confines each command (no
                                 node starts where no sandbox starts); WH_SANDBOX_AUTO:
                                 bwrap where a sandbox starts, else none, said by
                                 wh_node_sandbox_note */
    const char *secret_key;   /* the node's CURVE secret key file, or NULL: a sandbox
                                 never shows it (wh_runas_new) */
    unsigned job_uid_lo, job_uid_hi; /* both 0: off; else every workspace key's commands run
                                        as a uid of its own from lo..hi (needs root), and its
                                        key folder is that uid's alone (mode 0700) */
#ifdef WH_NODE_TEST
    /* TEST ONLY: these exist in whittle-node-test (the same sources built
     * with WH_NODE_TEST, node/CMakeLists.txt), never in whittle-node. */
    int test_lie;             /* WH_TEST_LIE=preserved|buildfailed|testpassed: the verdict
                                 (wh_verdict_t) every candidate is answered without judging
                                 it, to test that the verify step and the claims check find a
                                 lying node out; WH_V_NONE: honest */
    int test_busy;            /* WH_TEST_BUSY=always: answer "slot busy" to every candidate,
                                 to test the coordinator's busy budget */
#endif
} wh_node_opts_t;

typedef struct wh_node wh_node_t;

/* Refused handshakes in a row after which wh_node_refused answers. */
#define WH_NODE_REFUSALS 3

/* Starts the slot threads on zmq context zctx (shared with the caller for
 * inproc://). Returns NULL and sets *err on failure. */
wh_node_t *wh_node_start(void *zctx, const wh_node_opts_t *o, char **err);
/* Asks every slot to stop (a running build is killed), joins, frees. */
void wh_node_stop(wh_node_t **n);
/* WH_AUTH_NOT_REFUSED, or how the coordinator refused this node's
 * handshake (its key, or the handshake as a whole) the last of
 * WH_NODE_REFUSALS times in a row: it will not let the node in, so the
 * node should stop. Any thread. */
wh_auth_refusal_t wh_node_refused(const wh_node_t *n);
/* With WH_AUTH_ROLE_REFUSED: the coordinator's line saying why (the key
 * is a client key, ...); "" otherwise. Any thread. */
const char *wh_node_refusal_detail(const wh_node_t *n);
/* Says this process was continued after a stop (SIGCONT): the caller's
 * signal handler calls it (async-signal-safe). A slot stopped longer than
 * 3 heartbeats has lost its session at the coordinator (its slot declared
 * dead): it says so and reconnects at once, before it sends anything on
 * the old session. */
void wh_node_note_continued(void);
/* 1 when job commands run in a bwrap sandbox. */
int wh_node_sandboxed(const wh_node_t *n);
/* NULL, or why a WH_SANDBOX_AUTO node runs job commands without a sandbox
 * (one line, bwrap's own reason). */
const char *wh_node_sandbox_note(const wh_node_t *n);
/* Number of candidates this node has judged (all slots). */
uint64_t wh_node_evaluated(const wh_node_t *n);

#endif
