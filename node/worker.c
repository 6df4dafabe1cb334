/*
 * worker — slot threads of a node. See worker.h for the contract.
 */
#define _GNU_SOURCE
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>
#include <zmq.h>

#include "framework.h"
#include "oracle.h"
#include "runner.h"
#include "wh_common.h"
#include "wire.h"
#include "workspace.h"

#define S_READY_MARK ".whittle-ready"
#define S_MAX_SETUP_MS (3600u * 1000u)

typedef struct s_slot s_slot_t;

struct wh_node {
    void *zctx;
    char *endpoint;
    char *node_id;
    char *workdir;
    unsigned hb_ms;
    uint64_t max_disk;
    int nslots;
    s_slot_t *slots;
    atomic_int stop;
    atomic_uint_fast64_t evaluated;
    pthread_mutex_t disk_mu;   /* serializes eviction scans */
};

struct s_slot {
    wh_node_t *node;
    int index;
    pthread_t thread;
    int started;
    void *sock;
    uint64_t last_rx;       /* monotonic ms of the last message from the coordinator */
    uint64_t last_tx;
    unsigned backoff_ms;
    /* the candidate being judged */
    char *cur_job;
    uint64_t cur_cand;
    int cancel;
};

/* ---- socket helpers ---- */

static int s_connect(s_slot_t *s)
{
    wh_node_t *n = s->node;
    s->sock = zmq_socket(n->zctx, ZMQ_DEALER);
    if (!s->sock)
        return -errno;
    char ident[WH_WIRE_MAX_IDENT];
    snprintf(ident, sizeof ident, "%s/%d/%lx", n->node_id, s->index,
             (unsigned long)(wh_wall_ms() ^ (uintptr_t)s));
    zmq_setsockopt(s->sock, ZMQ_ROUTING_ID, ident, strlen(ident));
    int linger = 0;
    zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
    int ivl = 200;
    zmq_setsockopt(s->sock, ZMQ_RECONNECT_IVL, &ivl, sizeof ivl);
    if (zmq_connect(s->sock, n->endpoint) < 0) {
        int e = -errno;
        zmq_close(s->sock);
        s->sock = NULL;
        return e;
    }
    wh_msg_t hello = {0};
    hello.type = WH_MSG_HELLO;
    hello.node_id = n->node_id;
    hello.slot = (uint32_t)s->index;
    hello.slots = (uint32_t)n->nslots;
    int rc = wh_wire_send(s->sock, &hello, 0);
    s->last_rx = s->last_tx = wh_now_ms();
    return rc;
}

static void s_disconnect(s_slot_t *s)
{
    if (s->sock)
        zmq_close(s->sock);
    s->sock = NULL;
}

static void s_send(s_slot_t *s, const wh_msg_t *m)
{
    if (wh_wire_send(s->sock, m, ZMQ_DONTWAIT) == 0)
        s->last_tx = wh_now_ms();
}

static void s_heartbeat_if_due(s_slot_t *s)
{
    uint64_t now = wh_now_ms();
    if (now - s->last_tx >= s->node->hb_ms) {
        wh_msg_t hb = {0};
        hb.type = WH_MSG_HEARTBEAT;
        s_send(s, &hb);
    }
}

/* Handles messages that arrive while a candidate is being judged: CANCEL of
 * the current candidate stops it; heartbeats just count as life. Another
 * EVALUATE cannot arrive (the coordinator gives a slot one at a time); if a
 * buggy peer sends one anyway it is answered InfraError so nothing hangs. */
static void s_drain_busy(s_slot_t *s)
{
    for (;;) {
        wh_msg_t m = {0};
        int rc = wh_wire_recv(s->sock, &m, ZMQ_DONTWAIT);
        if (rc == -EAGAIN)
            return;
        if (rc < 0) {
            wh_msg_clear(&m);
            if (rc == WH_EPROTO || rc == WH_ETOOBIG)
                continue;
            return;
        }
        s->last_rx = wh_now_ms();
        if (m.type == WH_MSG_CANCEL && s->cur_job && m.job.job_id &&
            strcmp(m.job.job_id, s->cur_job) == 0 && m.cand_id == s->cur_cand)
            s->cancel = 1;
        else if (m.type == WH_MSG_CANCEL && s->cur_job && !m.job.job_id &&
                 m.cand_id == s->cur_cand)
            s->cancel = 1;
        else if (m.type == WH_MSG_EVALUATE) {
            wh_msg_t v = {0};
            v.type = WH_MSG_VERDICT;
            v.job.job_id = m.job.job_id;
            v.cand_id = m.cand_id;
            v.verdict = WH_V_INFRA_ERROR;
            v.code = WH_EPROTO;
            v.detail = "slot busy";
            s_send(s, &v);
        }
        wh_msg_clear(&m);
    }
}

static int s_tick(void *arg)
{
    s_slot_t *s = arg;
    if (atomic_load(&s->node->stop))
        return 1;
    s_drain_busy(s);
    s_heartbeat_if_due(s);
    return s->cancel;
}

/* ---- workspaces ---- */

/* The warm-workspace key: the project snapshot, the setup command and the
 * test file. Different tests of one file share it; candidates rewrite the
 * test file each time, so sharing is safe. */
static void s_ws_key(const wh_job_spec_t *j, char out[65])
{
    wh_sha256_t *h = wh_sha256_new();
    wh_sha256_field_str(h, j->snapshot_id ? j->snapshot_id : j->project);
    wh_sha256_field_str(h, j->project);
    wh_sha256_field_str(h, j->setup_cmd);
    wh_sha256_field_str(h, j->test_file);
    wh_sha256_final_hex(&h, out);
}

static uint64_t s_du(const char *path)
{
    /* A cheap size estimate for eviction: `du -sk` through the runner would
     * spawn a process; walking with nftw is enough here. */
    char *cmd = wh_strdup_printf("du -sk '%s' 2>/dev/null", path);
    uint64_t kb = 0;
    FILE *p = cmd ? popen(cmd, "r") : NULL;
    if (p) {
        unsigned long long v = 0;
        if (fscanf(p, "%llu", &v) == 1)
            kb = v;
        pclose(p);
    }
    free(cmd);
    return kb * 1024u;
}

/* Least-recently-used eviction of idle workspaces of this node until the
 * total is under max_disk. A workspace's last use is the mtime of its ready
 * mark (touched at every use). The workspace about to be used is kept. */
static void s_evict(wh_node_t *n, const char *keep)
{
    if (!n->max_disk)
        return;
    pthread_mutex_lock(&n->disk_mu);
    char *ws = wh_path_join(n->workdir, "ws");
    for (int guard = 0; guard < 64; guard++) {
        uint64_t total = s_du(ws);
        if (total <= n->max_disk)
            break;
        /* find the oldest ready workspace that is not `keep` and not busy */
        char *cmd = wh_strdup_printf(
            "ls -1tr '%s'/*/slot-*/" S_READY_MARK " 2>/dev/null", ws);
        FILE *p = cmd ? popen(cmd, "r") : NULL;
        char line[4096];
        char *victim = NULL;
        while (p && fgets(line, sizeof line, p)) {
            line[strcspn(line, "\n")] = '\0';
            char *slash = strrchr(line, '/');
            if (!slash)
                continue;
            *slash = '\0';
            if (keep && strcmp(line, keep) == 0)
                continue;
            char *busy = wh_path_join(line, ".whittle-busy");
            int is_busy = busy && wh_is_file(busy);
            free(busy);
            if (is_busy)
                continue;
            victim = strdup(line);
            break;
        }
        if (p)
            pclose(p);
        free(cmd);
        if (!victim)
            break;
        wh_info("evicting workspace %s (disk over %llu bytes)", victim,
                (unsigned long long)n->max_disk);
        wh_rm_rf(victim);
        free(victim);
    }
    free(ws);
    pthread_mutex_unlock(&n->disk_mu);
}

/* Makes sure the slot's workspace for job j exists and is set up. Returns 0,
 * or a negative code with *detail set (WH_ESETUP when setup failed). */
static int s_ensure_workspace(s_slot_t *s, const wh_job_spec_t *j, char **root,
                              char **detail)
{
    wh_node_t *n = s->node;
    char key[65];
    s_ws_key(j, key);
    char *dir = wh_strdup_printf("%s/ws/%s/slot-%d", n->workdir, key, s->index);
    char *mark = dir ? wh_path_join(dir, S_READY_MARK) : NULL;
    char *log = dir ? wh_strdup_printf("%s.setup.log", dir) : NULL;
    int rc = 0;
    if (!dir || !mark || !log) {
        rc = WH_ENOMEM;
        goto out;
    }
    if (wh_is_file(mark)) {
        utime(mark, NULL);
        goto out;
    }
    s_evict(n, dir);
    wh_rm_rf(dir);
    char *parent = wh_strdup_printf("%s/ws/%s", n->workdir, key);
    rc = parent ? wh_mkdir_p(parent) : WH_ENOMEM;
    free(parent);
    if (rc) {
        *detail = wh_strdup_printf("cannot create workspace under %s: %s", n->workdir,
                                   wh_strerror(rc));
        goto out;
    }
    char *err = NULL;
    rc = wh_workspace_copy(j->project, dir, (const char *const *)j->exclude, &err);
    if (rc) {
        *detail = wh_strdup_printf("cannot copy project %s: %s", j->project,
                                   err ? err : wh_strerror(rc));
        free(err);
        goto out;
    }
    if (j->setup_cmd && *j->setup_cmd) {
        wh_run_opts_t o = {0};
        o.cmd = j->setup_cmd;
        o.cwd = dir;
        o.timeout_ms = j->setup_timeout_ms ? j->setup_timeout_ms : S_MAX_SETUP_MS;
        o.log_path = log;
        o.tick = s_tick;
        o.tick_arg = s;
        unlink(log);
        wh_run_result_t r = {0};
        rc = wh_run(&o, &r);
        if (rc == 0 && (r.cancelled || atomic_load(&n->stop))) {
            rc = WH_ECANCEL;
            *detail = strdup("setup cancelled");
            goto out;
        }
        if (rc || r.timed_out || r.signaled || r.exit_code != 0) {
            *detail = rc ? wh_strdup_printf("setup could not start: %s", wh_strerror(rc))
                      : r.timed_out ? wh_strdup_printf("setup timed out after %u ms (log: %s)", o.timeout_ms, log)
                      : r.signaled  ? wh_strdup_printf("setup killed by signal %d (log: %s)", r.term_signal, log)
                                    : wh_strdup_printf("setup exited %d (log: %s)", r.exit_code, log);
            rc = WH_ESETUP;
            goto out;
        }
    }
    rc = wh_write_file(mark, "ready\n", 6);
out:
    if (!rc) {
        *root = dir;
        dir = NULL;
    }
    free(dir);
    free(mark);
    free(log);
    return rc;
}

/* ---- evaluation ---- */

/* The last cap bytes of a file. */
static int s_read_tail(const char *path, size_t cap, char **out, size_t *len)
{
    char *all = NULL;
    size_t n = 0;
    int rc = wh_read_file(path, 64u << 20, &all, &n);
    if (rc)
        return rc;
    if (n > cap) {
        memmove(all, all + (n - cap), cap);
        n = cap;
        all[n] = '\0';
    }
    *out = all;
    *len = n;
    return 0;
}

static void s_evaluate(s_slot_t *s, wh_msg_t *m)
{
    wh_node_t *n = s->node;
    const wh_job_spec_t *j = &m->job;
    wh_msg_t v = {0};
    v.type = WH_MSG_VERDICT;
    v.job.job_id = j->job_id;
    v.cand_id = m->cand_id;
    v.verdict = WH_V_INFRA_ERROR;
    char *detail = NULL, *root = NULL, *report = NULL, *log = NULL, *busy = NULL;
    uint8_t *rep = NULL;
    wh_eval_result_t r = {0};

    s->cur_job = j->job_id;
    s->cur_cand = m->cand_id;
    s->cancel = 0;

    const wh_framework_t *fw = wh_framework_find(j->framework ? j->framework : "junit");
    if (!fw) {
        detail = wh_strdup_printf("unknown framework '%s'", j->framework);
        v.code = WH_EINVAL;
        goto reply;
    }
    if (!j->project || !j->test_file || !j->run_cmd || !j->test) {
        detail = strdup("incomplete job spec");
        v.code = WH_EPROTO;
        goto reply;
    }
    int rc = s_ensure_workspace(s, j, &root, &detail);
    if (rc) {
        v.code = rc;
        goto reply;
    }
    busy = wh_path_join(root, ".whittle-busy");
    wh_write_file(busy, "", 0);
    report = wh_strdup_printf("%s.report", root);
    log = wh_strdup_printf("%s.console.log", root);
    wh_eval_spec_t es = {0};
    es.root = root;
    es.test_file = j->test_file;
    es.build_cmd = j->build_cmd;
    es.run_cmd = j->run_cmd;
    es.fw = fw;
    es.test = j->test;
    es.build_timeout_ms = j->build_timeout_ms;
    es.test_timeout_ms = j->test_timeout_ms;
    es.report_path = report;
    es.log_path = log;
    es.failure_regex = j->failure_regex;
    es.pass_regex = j->pass_regex;
    es.tick = s_tick;
    es.tick_arg = s;
    rc = wh_evaluate(&es, (const char *)m->content, m->content_len,
                     m->baseline ? NULL : &m->ref, (wh_match_t)j->match, &r);
    if (rc) {
        detail = wh_strdup_printf("cannot write %s in the workspace: %s", j->test_file,
                                  wh_strerror(rc));
        v.code = rc;
        goto reply;
    }
    atomic_fetch_add(&n->evaluated, 1);
    /* For a baseline, wh_evaluate leaves the verdict NONE when the report
     * was read, and says BuildFailed / InfraError when there is none. */
    v.verdict = r.verdict;
    v.test_status = r.result.status;
    v.observed = r.result.fp;
    v.build_ms = (uint32_t)r.build_ms;
    v.test_ms = (uint32_t)r.test_ms;
    if (r.cancelled)
        v.code = WH_ECANCEL;
    else if (r.verdict == WH_V_BUILD_FAILED)
        v.code = WH_EBUILD;
    detail = r.detail ? strdup(r.detail) : NULL;
    size_t rlen = 0;
    /* The framework's report when there is one; else (a build failure, a
     * crash before the report was written) the console log, so the run
     * record shows why. Both capped. */
    if (wh_read_file(report, WH_WIRE_MAX_REPORT, (char **)&rep, &rlen) == 0 ||
        s_read_tail(log, WH_WIRE_MAX_REPORT, (char **)&rep, &rlen) == 0) {
        v.report = rep;
        v.report_len = rlen;
    }
reply:
    v.detail = detail;
    if (!atomic_load(&n->stop))
        s_send(s, &v);
    if (busy)
        unlink(busy);
    s->cur_job = NULL;
    wh_eval_result_clear(&r);
    free(detail);
    free(root);
    free(report);
    free(log);
    free(busy);
    free(rep);
}

/* ---- slot thread ---- */

static void *s_slot_main(void *arg)
{
    s_slot_t *s = arg;
    wh_node_t *n = s->node;
    s->backoff_ms = 1000;
    while (!atomic_load(&n->stop)) {
        if (!s->sock && s_connect(s) < 0) {
            usleep(200 * 1000);
            continue;
        }
        zmq_pollitem_t it = {s->sock, 0, ZMQ_POLLIN, 0};
        int prc = zmq_poll(&it, 1, 100);
        if (prc < 0 && errno == ETERM)
            break;
        if (prc > 0) {
            wh_msg_t m = {0};
            int rc = wh_wire_recv(s->sock, &m, ZMQ_DONTWAIT);
            if (rc == 0) {
                s->last_rx = wh_now_ms();
                s->backoff_ms = 1000;
                if (m.type == WH_MSG_EVALUATE)
                    s_evaluate(s, &m);
                else if (m.type == WH_MSG_BYE) {
                    wh_msg_clear(&m);
                    /* the coordinator is going away: reconnect later */
                    s_disconnect(s);
                    continue;
                }
            } else if (rc == -ETERM) {
                wh_msg_clear(&m);
                break;
            }
            wh_msg_clear(&m);
        }
        s_heartbeat_if_due(s);
        /* Three missed heartbeats: the coordinator is gone or the link is
         * broken. Reconnect with backoff and introduce ourselves again. */
        if (wh_now_ms() - s->last_rx > 3u * n->hb_ms) {
            wh_info("node %s slot %d: coordinator silent; reconnecting in %u ms",
                    n->node_id, s->index, s->backoff_ms);
            s_disconnect(s);
            for (unsigned waited = 0; waited < s->backoff_ms && !atomic_load(&n->stop);
                 waited += 100)
                usleep(100 * 1000);
            s->backoff_ms = s->backoff_ms * 2 > 10000 ? 10000 : s->backoff_ms * 2;
        }
    }
    if (s->sock) {
        wh_msg_t bye = {0};
        bye.type = WH_MSG_BYE;
        wh_wire_send(s->sock, &bye, ZMQ_DONTWAIT);
    }
    s_disconnect(s);
    return NULL;
}

wh_node_t *wh_node_start(void *zctx, const wh_node_opts_t *o, char **err)
{
    wh_node_t *n = calloc(1, sizeof *n);
    if (!n)
        goto nomem;
    n->zctx = zctx;
    n->endpoint = strdup(o->endpoint);
    if (o->node_id)
        n->node_id = strdup(o->node_id);
    else {
        char host[256] = "node";
        gethostname(host, sizeof host - 1);
        n->node_id = wh_strdup_printf("%s-%d", host, (int)getpid());
    }
    n->workdir = wh_abspath(o->workdir);
    n->hb_ms = o->heartbeat_ms ? o->heartbeat_ms : 1000;
    n->max_disk = o->max_disk;
    n->nslots = o->slots > 0 ? o->slots : 1;
    pthread_mutex_init(&n->disk_mu, NULL);
    if (!n->endpoint || !n->node_id || !n->workdir)
        goto nomem;
    int rc = wh_mkdir_p(n->workdir);
    if (rc) {
        *err = wh_strdup_printf("cannot create workdir '%s': %s", o->workdir, wh_strerror(rc));
        wh_node_stop(&n);
        return NULL;
    }
    n->slots = calloc((size_t)n->nslots, sizeof *n->slots);
    if (!n->slots)
        goto nomem;
    for (int i = 0; i < n->nslots; i++) {
        n->slots[i].node = n;
        n->slots[i].index = i;
        if (pthread_create(&n->slots[i].thread, NULL, s_slot_main, &n->slots[i]) != 0) {
            *err = wh_strdup_printf("cannot start slot thread %d", i);
            wh_node_stop(&n);
            return NULL;
        }
        n->slots[i].started = 1;
    }
    return n;
nomem:
    *err = strdup("out of memory");
    wh_node_stop(&n);
    return NULL;
}

void wh_node_stop(wh_node_t **np)
{
    wh_node_t *n = *np;
    if (!n)
        return;
    atomic_store(&n->stop, 1);
    for (int i = 0; n->slots && i < n->nslots; i++)
        if (n->slots[i].started)
            pthread_join(n->slots[i].thread, NULL);
    free(n->slots);
    free(n->endpoint);
    free(n->node_id);
    free(n->workdir);
    pthread_mutex_destroy(&n->disk_mu);
    free(n);
    *np = NULL;
}

uint64_t wh_node_evaluated(const wh_node_t *n)
{
    return atomic_load(&((wh_node_t *)n)->evaluated);
}
