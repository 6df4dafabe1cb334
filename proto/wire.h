/*
 * wire — every message between coordinator, nodes and clients, as plain C
 * structs, encoded with protobuf-c (proto/whittle.proto) inside a versioned
 * envelope, and sent/received as ZeroMQ frames. Generated protobuf-c names
 * never leave proto/. Everything decoded from a peer is size-capped: a frame
 * larger than WH_WIRE_MAX_FRAME or a field over its cap is rejected with
 * WH_ETOOBIG / WH_EPROTO, never trusted.
 *
 * Sockets: nodes (slot workers) and clients use DEALER sockets; the
 * coordinator uses one ROUTER. wh_wire_send/recv are for DEALER (one frame:
 * the envelope); wh_wire_send_to/recv_from are for ROUTER ([identity][envelope]).
 */
#ifndef WH_WIRE_H
#define WH_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "compdb.h"
#include "wh_common.h"

#define WH_WIRE_VERSION 1
#define WH_WIRE_MAX_FRAME (16u << 20)     /* whole envelope */
#define WH_WIRE_MAX_CONTENT (8u << 20)    /* candidate test file */
#define WH_WIRE_MAX_REPORT (4u << 20)     /* a report sent back */
#define WH_WIRE_MAX_PATCH (1u << 20)      /* a git snapshot's uncommitted changes */
#define WH_WIRE_MAX_STRING (64u << 10)    /* any other string field */
#define WH_WIRE_MAX_IDENT 256
#define WH_WIRE_MAX_CHUNK (1u << 20)     /* a tar snapshot's chunk (BLOB*) */
#define WH_WIRE_MAX_SUMMARY (1u << 20)   /* a final PROGRESS's run summary */

typedef enum {
    WH_MSG_NONE = 0,
    WH_MSG_HELLO = 1,      /* slot -> coord: I am node_id/slot of slots */
    WH_MSG_EVALUATE = 2,   /* coord -> slot: judge this candidate of this job */
    WH_MSG_VERDICT = 3,    /* slot -> coord: the verdict */
    WH_MSG_CANCEL = 4,     /* coord -> slot: stop cand_id */
    WH_MSG_HEARTBEAT = 5,  /* both ways; renews the leases of a busy slot */
    WH_MSG_BYE = 6,        /* either side is leaving */
    WH_MSG_SUBMIT = 7,     /* client -> coord: reduce this job */
    WH_MSG_STATUS_REQ = 8, /* client -> coord */
    WH_MSG_STATUS = 9,     /* coord -> client: text */
    WH_MSG_PROGRESS = 10,  /* coord -> client: a line of progress / the result */
    WH_MSG_WARM = 11,      /* coord -> slot: prepare the job's workspaces now */
    WH_MSG_WARMED = 12,    /* slot -> coord: a workspace of the job is ready (or failed) */
    WH_MSG_WATCH = 13,     /* client -> coord: reattach to a job by id */
    WH_MSG_BLOB_PUT = 110, /* client -> coord: a chunk of a tar snapshot */
    WH_MSG_BLOB_GET = 111, /* node -> coord: send me a chunk of a tar snapshot */
    WH_MSG_BLOB = 112,     /* coord -> peer: the chunk, or how much it holds, or a refusal */
} wh_msg_type_t;

/* What a node needs to set up and judge a job. */
typedef struct {
    char *job_id;          /* hex job identity (also the warm-workspace key) */
    char *snapshot_id;     /* hex hash of the project's content */
    char *project;         /* project path the node can read */
    char *test_file;       /* relative to project */
    char *test;            /* target test name */
    char *setup_cmd, *build_cmd, *run_cmd;
    char *framework;
    uint32_t build_timeout_ms, test_timeout_ms, setup_timeout_ms;
    uint32_t match;        /* wh_match_t */
    char **exclude;        /* absolute paths not to copy */
    int n_exclude;
    char *failure_regex;   /* console preset */
    char *pass_regex;
    uint32_t repeat;       /* runs per candidate; 0/1 = once */
    uint32_t flaky_ok;     /* Preserved when >= flaky_ok of repeat runs preserve; 0 = all */
    char *reference;       /* project without the bug, or NULL */
    int keep_fault;        /* Preserved also requires passing on the reference */
    char *message_continuation; /* console preset */
    int pass_on_exit0;     /* console readers: exit 0 without a failure is a pass */
    int whole_test, will_fail; /* the run is a whole CTest test (job.h) */
    char *ctest_pass_regex, *ctest_fail_regex;
    char *test_fn;         /* the function a registration runs as test (AWS_TEST_CASE(test,
                              fn)): a console reader takes a failure naming it as the
                              test's own; NULL: none */
    /* A project that travels as a git snapshot (common/wh_snapshot.h): the
     * node checks out git_rev of git_url, applies git_patch, and uses
     * git_subdir of it as the project (and git_reference, exported, as the
     * reference) instead of the paths above. NULL url: no snapshot. */
    char *git_url, *git_rev, *git_subdir, *git_reference;
    uint8_t *git_patch;
    size_t git_patch_len;
    /* The client key that owns the job (its name), set by the coordinator;
     * NULL or "": the one anonymous owner of --insecure. A node gives each
     * owner's workspaces uids of their own (worker_ws.c). */
    char *tenant;
    /* A project that travels as a tar (--snapshot tar, common/wh_tar.h):
     * the sha256 hex of the gzip'd tar its owner uploaded, and its size;
     * a node fetches it from the coordinator (BLOB_GET) and unpacks it
     * as the job's uid. NULL: no tar. */
    char *tar_sha;
    uint64_t tar_size;
} wh_job_spec_t;

typedef struct {
    wh_msg_type_t type;
    /* HELLO */
    char *node_id;
    uint32_t slot, slots;
    int warms;               /* HELLO / HEARTBEAT: the slot answers WARM */
    /* EVALUATE / VERDICT / CANCEL */
    wh_job_spec_t job;       /* EVALUATE */
    uint64_t cand_id;
    uint8_t *content;        /* EVALUATE: the rendered test file */
    size_t content_len;
    int baseline;            /* EVALUATE: capture the fingerprint, no verdict */
    int on_reference;        /* EVALUATE: run in the reference workspace */
    int fresh;               /* EVALUATE: judge in a new workspace (the verify step) */
    wh_fp_t ref;             /* EVALUATE: reference fingerprint */
    uint32_t verdict;        /* VERDICT: wh_verdict_t */
    uint32_t test_status;    /* VERDICT: wh_test_status_t */
    wh_fp_t observed;        /* VERDICT */
    char *detail;            /* VERDICT / BYE / STATUS / PROGRESS: one line or text */
    uint32_t build_ms, test_ms;
    uint32_t runs;           /* VERDICT: test runs behind it (--repeat) */
    uint32_t agreeing_runs;  /* VERDICT: runs that preserved / matched the reported fingerprint */
    uint8_t *report;         /* VERDICT: the report file, capped */
    size_t report_len;
    wh_compile_cmd_t compile; /* VERDICT of a baseline: the test file's compile command
                                 (argc 0: none), with paths under compile_root */
    char *compile_root;      /* VERDICT: the workspace root of compile */
    char *others;            /* VERDICT: the other functions that failed in the run, one
                                per line, sorted; NULL: not known (an older node) */
    /* SUBMIT: a JSON job description (same fields as `whittle reduce`) */
    char *json;
    int final;               /* PROGRESS: last message of a job; WARMED: answers a WARM */
    int32_t code;            /* PROGRESS: exit status when final */
    char *status;            /* PROGRESS: the job's status line (progress.h), or NULL */
    int journaled;           /* PROGRESS: the job survives a coordinator restart */
    char *summary;           /* PROGRESS (final): the run's summary, JSON text (night.h),
                                NUL-terminated; NULL when none came or it was unusable */
    size_t summary_len;
    const char *summary_bad; /* PROGRESS: why a summary that came was dropped (over its
                                cap): the rest of the message stands; static text */
    uint32_t warm_ms;        /* WARMED: time spent preparing (setup + clone, no waiting) */
    uint32_t clone_ms;       /* WARMED: of which the clone */
    int cloned;              /* WARMED: cloned from the node's set-up copy */
    uint32_t setups;         /* WARMED: setups run for it (0 for a clone) */
    int refused;             /* BYE (coord -> peer): the peer's key has the wrong role
                                for what it sent; detail says which; it must not retry */
    /* BLOB_PUT / BLOB_GET / BLOB: the tar's sha256 hex, the offset of the
     * chunk (content/content_len, at most WH_WIRE_MAX_CHUNK), the tar's
     * total size; a BLOB's code and detail say a refusal */
    char *blob_sha;
    uint64_t blob_off, blob_total;
} wh_msg_t;

/* Which fields each type carries (others are not sent and decode as zero /
 * NULL):
 *   HELLO      node_id, slot, slots, warms
 *   EVALUATE   job, cand_id, content/content_len, baseline, ref
 *   VERDICT    cand_id, job.job_id, verdict, test_status, observed, detail,
 *              build_ms, test_ms, report/report_len, code, runs, agreeing_runs,
 *              compile/compile_root
 *   CANCEL     cand_id, job.job_id (coord -> slot; or client -> coord: cancel
 *              job job_id, cand_id the client's tag)
 *   HEARTBEAT  node_id, slot, cand_id, warms
 *   BYE        node_id, detail, refused
 *   SUBMIT     json, cand_id (the client's tag)
 *   STATUS_REQ (nothing)
 *   STATUS     detail
 *   PROGRESS   detail, final, code, cand_id (the SUBMIT's tag), status, job.job_id
 *              (the coordinator's job id), journaled, content/content_len (final and
 *              reduced: the reduced test file, line-true), summary/summary_len
 *              (final: the run's summary; one over WH_WIRE_MAX_SUMMARY is dropped
 *              on decode, summary_bad saying so, and the message kept)
 *   WATCH      job.job_id, cand_id (the tag to answer with)
 *   WARM       job
 *   WARMED     job.job_id, code, detail, warm_ms, clone_ms, cloned, on_reference,
 *              setups, final
 *   BLOB_PUT, BLOB_GET, BLOB
 *              blob_sha, blob_off, blob_total, content/content_len, code, detail
 * A NULL string is sent as "absent" and decodes to NULL; "" stays "".
 * Decoded content and report are NUL-terminated (one byte past *_len) for
 * convenience; they are NULL only when the sender sent none. */

/* Caps checked on decode besides the byte sizes above. */
#define WH_WIRE_MAX_EXCLUDE 256
#define WH_WIRE_MAX_ARGS 4096

/* Frees every owned field and zeroes m. */
void wh_msg_clear(wh_msg_t *m);
void wh_job_spec_clear(wh_job_spec_t *j);
int wh_job_spec_copy(wh_job_spec_t *dst, const wh_job_spec_t *src);

/* Encodes into a malloc'ed buffer. The sender checks the same caps as the
 * receiver: WH_EINVAL for an unknown type, WH_ETOOBIG for a field over its
 * cap (a node must trim its report to WH_WIRE_MAX_REPORT itself). */
int wh_msg_encode(const wh_msg_t *m, uint8_t **buf, size_t *len);
/* Decodes buf (at most WH_WIRE_MAX_FRAME bytes) into m (overwritten, not
 * freed); on error returns WH_EPROTO/WH_ETOOBIG, leaves m zeroed and sets
 * *err (malloc'ed, e.g. "unsupported protocol version 2 (this side speaks
 * 1)") when err is not NULL. Never trusts a length or count from buf. */
int wh_msg_decode(const uint8_t *buf, size_t len, wh_msg_t *m, char **err);

/* Sets ZMQ_MAXMSGSIZE on sock so that libzmq drops a peer that sends a
 * frame over WH_WIRE_MAX_FRAME before buffering it. Call before connect or
 * bind. 0 or -errno. */
int wh_wire_limit(void *sock);

/* Send/receive. All return 0 or a negative code: -EAGAIN when flags has
 * ZMQ_DONTWAIT and nothing can be sent / nothing is waiting, other failed
 * zmq calls as -errno (-EINTR on a signal), WH_EPROTO / WH_ETOOBIG when a
 * received message is malformed or over a cap. A malformed message has
 * been consumed entirely (all its frames) and m is left zeroed; the
 * reason is logged at most once a second with wh_warn. m is overwritten,
 * not freed: wh_msg_clear a previous message before reusing the struct.
 * On success m owns its fields. Call from the socket's owner thread. */

/* DEALER side. flags: ZMQ_DONTWAIT or 0. */
int wh_wire_send(void *sock, const wh_msg_t *m, int flags);
int wh_wire_recv(void *sock, wh_msg_t *m, int flags);
/* ROUTER side: ident is the peer's routing id. The message is exactly two
 * frames, [identity][envelope] (no empty delimiter frame); anything else is
 * dropped with WH_EPROTO. For recv_from, ident must have room for
 * WH_WIRE_MAX_IDENT bytes and *ident_len is set to the id's length (it is
 * also set when the envelope was malformed, so the caller knows whom to
 * blame). */
int wh_wire_send_to(void *sock, const void *ident, size_t ident_len,
                    const wh_msg_t *m, int flags);
int wh_wire_recv_from(void *sock, void *ident, size_t *ident_len,
                      wh_msg_t *m, int flags);
/* recv_from that also copies the sender's ZAP user id (auth.h: "node:NAME"
 * or "client:NAME"; "" when the socket does not authenticate) into user
 * (user_cap bytes, truncated), set whenever the envelope frame arrived. */
#define WH_WIRE_MAX_USER 256
int wh_wire_recv_from_peer(void *sock, void *ident, size_t *ident_len, char *user,
                           size_t user_cap, wh_msg_t *m, int flags);

#endif
