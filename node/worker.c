/*
 * worker — slot threads of a node. See worker.h for the contract; the
 * slot's workspaces are in worker_ws.c (worker_int.h).
 */
#define _GNU_SOURCE
#include "worker_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <zmq.h>

#include "framework.h"
#include "oracle.h"
#include "runner.h"
#include "scratch.h"
#include "snapfetch.h"
#include "taint.h"
#include "wh_common.h"
#include "warmup.h"
#include "wire.h"
#include "workspace.h"
#include "wsflags.h"

/* ---- socket helpers ---- */

static int s_connect_locked(wk_slot_t *s)
{
    wh_node_t *n = s->node;
    s->stale = 0;
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
    /* A refused handshake is told apart from a silent coordinator (inproc://
     * has no handshake to refuse). */
    s->mon = strncmp(n->endpoint, "inproc://", 9) ? wh_auth_watch(n->zctx, s->sock) : NULL;
    if ((n->has_keys && wh_auth_client_apply(&n->keys, s->sock) != 0) ||
        wh_wire_limit(s->sock) != 0 || zmq_connect(s->sock, n->endpoint) < 0) {
        int e = -errno;
        wh_auth_close(s->sock, s->mon);
        s->sock = s->mon = NULL;
        return e;
    }
    wh_msg_t hello = {0};
    hello.type = WH_MSG_HELLO;
    hello.node_id = n->node_id;
    hello.slot = (uint32_t)s->index;
    hello.warms = 1;
    hello.slots = (uint32_t)n->nslots;
    int rc = wh_wire_send(s->sock, &hello, 0);
    s->last_rx = s->last_tx = wh_now_ms();
    return rc;
}

/* A new socket (the heartbeat thread sees it once it is whole). */
static int s_connect(wk_slot_t *s)
{
    pthread_mutex_lock(&s->mu);
    int rc = s_connect_locked(s);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static void s_disconnect(wk_slot_t *s)
{
    pthread_mutex_lock(&s->mu);
    wh_auth_close(s->sock, s->mon);
    s->sock = s->mon = NULL;
    pthread_mutex_unlock(&s->mu);
}

/* One message from the socket without waiting (under the lock): 0,
 * -EAGAIN when none waits, or wh_wire_recv's error. */
static int s_recv(wk_slot_t *s, wh_msg_t *m)
{
    pthread_mutex_lock(&s->mu);
    int rc = s->sock ? wh_wire_recv(s->sock, m, ZMQ_DONTWAIT) : -EAGAIN;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Waits up to ms for input on the slot's socket, through its ZMQ_FD and
 * without the lock, so that the heartbeat thread may send meanwhile. Its
 * readiness is ZMQ_EVENTS, asked first: input already waiting is not
 * waited for. A send by the heartbeat thread may take the fd's signal
 * with it; that thread then writes s->wake_fd (without one the wait ends
 * at ms, and the caller reads anyway). */
static void s_wait_input(wk_slot_t *s, int ms)
{
    int ev = 0, fd = -1;
    size_t sz = sizeof ev, fsz = sizeof fd;
    pthread_mutex_lock(&s->mu);
    if (!s->sock || zmq_getsockopt(s->sock, ZMQ_EVENTS, &ev, &sz) != 0 ||
        zmq_getsockopt(s->sock, ZMQ_FD, &fd, &fsz) != 0)
        fd = -1;
    pthread_mutex_unlock(&s->mu);
    if (ev & ZMQ_POLLIN)
        return;
    zmq_pollitem_t it[2] = {{NULL, fd, ZMQ_POLLIN, 0}, {NULL, s->wake_fd, ZMQ_POLLIN, 0}};
    if (fd < 0)
        usleep((useconds_t)ms * 1000);
    else if (zmq_poll(it, s->wake_fd >= 0 ? 2 : 1, ms) > 0 && (it[1].revents & ZMQ_POLLIN))
        wh_wake_drain(s->wake_fd);
}

/* A coordinator that does not admit this node's key refuses it on every
 * reconnect, which looked like a silent coordinator. Each run of refusals
 * is said at once (a warning, without -v), and after WH_NODE_REFUSALS in a
 * row (any slot; a message from the coordinator ends the run) the node is
 * told to stop (wh_node_refused). libzmq does not reconnect after a refused
 * key, so the slot reconnects itself after its backoff (returns 1: it
 * should). After a failed handshake libzmq retries every 200 ms on its own
 * (returns 0); those failures count at most once a second, so that a
 * handshake cut short by a coordinator's restart does not stop the node. */
static int s_check_refused(wk_slot_t *s)
{
    wh_node_t *n = s->node;
    wh_auth_refusal_t r = wh_auth_refusal(s->mon);
    if (r == WH_AUTH_NOT_REFUSED)
        return 0;
    uint64_t now = wh_now_ms(), last = atomic_load(&n->refusal_ms);
    uint64_t resumed = atomic_load(&n->resumed_ms);
    if (r == WH_AUTH_HANDSHAKE_FAILED && resumed && now - resumed < 10000) {
        /* a handshake under way when the process stopped, cut meanwhile */
        wh_debug("node %s slot %d: a handshake cut while this node was stopped; retrying",
                 n->node_id, s->index);
        return 0;
    }
    if (r == WH_AUTH_HANDSHAKE_FAILED && last && now - last < 1000)
        return 0;
    atomic_store(&n->refusal_ms, now);
    int k = atomic_fetch_add(&n->refusals, 1) + 1;
    if (k == 1)
        wh_warn("node %s slot %d: coordinator at %s: %s", n->node_id, s->index, n->endpoint,
                wh_auth_refusal_why(r));
    if (k >= WH_NODE_REFUSALS)
        atomic_store(&n->refused, (int)r);
    return r == WH_AUTH_KEY_REFUSED;
}

void wk_send(wk_slot_t *s, const wh_msg_t *m)
{
    pthread_mutex_lock(&s->mu);
    if (s->sock && wh_wire_send(s->sock, m, ZMQ_DONTWAIT) == 0)
        s->last_tx = wh_now_ms();
    pthread_mutex_unlock(&s->mu);
}

void wk_beat_locked(wk_slot_t *s, uint64_t now)
{
    if (now - s->last_tx < s->node->hb_ms)
        return;
    wh_msg_t hb = {0};
    hb.type = WH_MSG_HEARTBEAT;
    /* Say what we are working on: a coordinator that lost us and hears
     * from us again must not take us for an idle slot. */
    hb.node_id = s->node->node_id;
    hb.slot = (uint32_t)s->index;
    hb.warms = 1;
    hb.cand_id = atomic_load(&s->beat_cand);
    if (wh_wire_send(s->sock, &hb, ZMQ_DONTWAIT) == 0)
        s->last_tx = now;
}

void wk_set_current(wk_slot_t *s, char *job, uint64_t cand)
{
    s->cur_job = job;
    s->cur_cand = cand;
    atomic_store(&s->beat_cand, job ? cand : 0);
}

/* The slot's own thread sends heartbeats too (ticks, its loop): with no
 * heartbeat thread, they are the only ones. */
static void s_heartbeat_if_due(wk_slot_t *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->sock)
        wk_beat_locked(s, wh_now_ms());
    pthread_mutex_unlock(&s->mu);
}

/* Handles messages that arrive while a candidate is being judged: CANCEL of
 * the current candidate stops it; heartbeats just count as life. Another
 * EVALUATE cannot arrive (the coordinator gives a slot one at a time); if a
 * buggy peer sends one anyway it is answered InfraError so nothing hangs. */
static void s_drain_busy(wk_slot_t *s)
{
    for (;;) {
        wh_msg_t m = {0};
        int rc = s_recv(s, &m);
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
            wk_send(s, &v);
        } else if (m.type == WH_MSG_WARM) {
            /* Same for a WARM: the coordinator lost track of us (a
             * reconnect); answer so that it does not wait for ever. */
            wh_msg_t w = {0};
            w.type = WH_MSG_WARMED;
            w.job.job_id = m.job.job_id;
            w.code = WH_ECANCEL;
            w.detail = "slot busy";
            w.final = 1;
            wk_send(s, &w);
        }
        wh_msg_clear(&m);
    }
}

int wk_tick(void *arg)
{
    wk_slot_t *s = arg;
    if (atomic_load(&s->node->stop))
        return 1;
    s_drain_busy(s);
    s_heartbeat_if_due(s);
    return s->cancel;
}

/* ---- evaluation ---- */

/* The test file's compile command recorded in the workspace at root. When
 * the workspace's commands see it at a stable path (warmup.h), the database
 * names that path: its entry is looked up there and moved back under root,
 * where the files are for everyone outside the namespace. */
static int s_baseline_compile(wk_slot_t *s, const char *root, const char *test_file,
                              wh_compile_cmd_t *out)
{
    char *at = wh_warmup_mount_at(s->node->warm, root);
    if (!at)
        return wh_wsflags_find(root, test_file, out);
    char *f = wh_path_join(at, test_file);
    int rc = f ? wh_compdb_find(root, f, out, NULL) : WH_ENOMEM;
    if (rc == 0 && (rc = wh_compile_cmd_rebase(out, at, root)) != 0)
        wh_compile_cmd_clear(out);
    free(f);
    free(at);
    return rc;
}

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

/* One judged run set in one workspace: the first run builds, the others
 * (--repeat) only run the test again. */
typedef struct {
    wh_eval_result_t *r;   /* K results */
    int k;                 /* runs done */
    char *root, *report, *log;
    char *taint;           /* why the last run is not to be trusted (an InfraError), or NULL */
} s_runs_t;

static void s_runs_clear(s_runs_t *x)
{
    for (int i = 0; x->r && i < x->k; i++)
        wh_eval_result_clear(&x->r[i]);
    free(x->r);
    free(x->root);
    free(x->report);
    free(x->log);
    free(x->taint);
    memset(x, 0, sizeof *x);
}

static int s_taint_run(s_runs_t *x, wh_eval_result_t *er, const wh_fp_t *ref,
                       const wh_runas_t *ru);
static int s_taint_setup(wk_slot_t *s, int own, int rc, char **detail);

/* Runs content K times in the workspace of project. 0, or a negative code
 * with *detail when the workspace could not be prepared/written. */
static int s_run_set(wk_slot_t *s, const wh_job_spec_t *j, const wh_framework_t *fw,
                     const char *project, int fresh, const uint8_t *content, size_t len,
                     const wh_fp_t *ref, int want, s_runs_t *x, char **detail)
{
    int rc = wk_ensure_workspace(s, j, project, fresh, NULL, &x->root, detail);
    if (rc)
        return rc;
    x->report = wh_strdup_printf("%s.report", x->root);
    x->log = wh_strdup_printf("%s.console.log", x->root);
    x->r = calloc((size_t)want, sizeof *x->r);
    if (!x->report || !x->log || !x->r)
        return WH_ENOMEM;
    wh_eval_spec_t es = {0};
    es.root = x->root;
    es.test_file = j->test_file;
    es.build_cmd = j->build_cmd;
    es.run_cmd = j->run_cmd;
    es.fw = fw;
    es.test = j->test;
    es.build_timeout_ms = j->build_timeout_ms;
    es.test_timeout_ms = j->test_timeout_ms;
    es.report_path = x->report;
    es.log_path = x->log;
    es.failure_regex = j->failure_regex;
    es.pass_regex = j->pass_regex;
    es.message_continuation = j->message_continuation;
    es.pass_on_exit0 = j->pass_on_exit0;
    /* On the reference, a whole CTest test must pass as CTest judges it. */
    wh_whole_t whole = {j->will_fail, j->ctest_pass_regex, j->ctest_fail_regex};
    if (j->whole_test && j->reference && project && !strcmp(project, j->reference))
        es.whole = &whole;
    es.test_fn = j->test_fn;
    es.tick = wk_tick;
    es.tick_arg = s;
    char *at = wh_warmup_mount_at(s->node->warm, x->root);
    es.mount_at = at;
    char kkey[65];
    wk_ws_key(j, project, kkey);
    es.runas = wk_key_runas(s->node, kkey, detail);
    if (!es.runas && s->node->uid_hi) {
        free(at);
        return WH_ESETUP;
    }
    for (int i = 0; i < want; i++) {
        if (i > 0)
            es.build_cmd = NULL; /* built once; the repeats only run */
        /* Every run starts with an empty TMPDIR and HOME of this
         * workspace's own (scratch.h): nothing of another slot's runs, or
         * of this one's earlier runs, is there to meet. */
        wh_scratch_t sc;
        if ((rc = wh_scratch_prepare(&sc, x->root, es.runas)) != 0) {
            *detail = wh_strdup_printf("cannot prepare the TMPDIR and HOME of %s: %s", x->root,
                                       wh_strerror(rc));
            free(at);
            return rc;
        }
        es.scratch_env = sc.env;
        rc = wh_evaluate(&es, (const char *)content, len, ref, (wh_match_t)j->match, &x->r[i]);
        wh_scratch_clear(&sc);
        if (rc) {
            *detail = wh_strdup_printf("cannot write %s in the workspace: %s", j->test_file,
                                       wh_strerror(rc));
            free(at);
            return rc;
        }
        x->k++;
        atomic_fetch_add(&s->node->evaluated, i == 0);
        if (s_taint_run(x, &x->r[i], ref, es.runas))
            break;
        /* A build failure, an infrastructure error or a cancel ends the set:
         * repeating cannot change them. */
        if (x->r[i].cancelled || !x->r[i].build_ok || x->r[i].verdict == WH_V_INFRA_ERROR ||
            x->r[i].verdict == WH_V_BUILD_FAILED)
            break;
    }
    free(at);
    return 0;
}

static void s_attach_report(s_runs_t *x, wh_msg_t *v, uint8_t **rep)
{
    size_t rlen = 0;
    /* The framework's report when there is one; else (a build failure, a
     * crash before the report was written) the console log, so the run
     * record shows why. Both capped. */
    if (wh_read_file(x->report, WH_WIRE_MAX_REPORT, (char **)rep, &rlen) == 0 ||
        s_read_tail(x->log, WH_WIRE_MAX_REPORT, (char **)rep, &rlen) == 0) {
        v->report = *rep;
        v->report_len = rlen;
    }
}

/* The reference's warm workspace, set up on a helper thread while the slot
 * sets up (or builds in) the main one, so that --keep-fault does not wait
 * for a second setup after the first Preserved candidate. */
typedef struct {
    wk_slot_t *s;
    const wh_job_spec_t *j;
    pthread_t th;
    int started;
    int rc;                 /* the setup's outcome, told after the join */
    char *detail;
    wh_warm_stats_t st;
} s_refwarm_t;

static void *s_refwarm_main(void *arg)
{
    s_refwarm_t *w = arg;
    char *root = NULL;
    /* A failure is also reported when the reference is used (the same
     * call then sees no ready mark and says why). */
    w->rc = wk_ensure_workspace(w->s, w->j, w->j->reference, 0, &w->st, &root, &w->detail);
    if (w->rc)
        wh_debug("reference setup on slot %d: %s", w->s->index,
                 w->detail ? w->detail : "failed");
    free(root);
    return NULL;
}

static void s_refwarm_start(s_refwarm_t *w, wk_slot_t *s, const wh_msg_t *m)
{
    const wh_job_spec_t *j = &m->job;
    memset(w, 0, sizeof *w);
    if (!j->keep_fault || !j->reference || m->on_reference)
        return;
    char *dir = wk_ws_dir(s, j, j->reference, 0);
    char *mark = dir ? wh_path_join(dir, WK_READY_MARK) : NULL;
    int ready = mark && wk_mark_ok(s->node, mark);
    free(dir);
    free(mark);
    if (ready)
        return;
    w->s = s;
    w->j = j;
    w->started = pthread_create(&w->th, NULL, s_refwarm_main, w) == 0;
}

/* Joins the helper and, on the slot's own thread, tells the coordinator
 * what it prepared (the warm-up counts it like any other setup). */
static void s_refwarm_join(s_refwarm_t *w)
{
    if (w->started) {
        pthread_join(w->th, NULL);
        if (w->rc != WH_ECANCEL && (w->rc || w->st.setups || w->st.cloned))
            wk_send_warmed(w->s, w->j->job_id, 1, w->rc, &w->st, w->detail, 0);
    }
    free(w->detail);
    w->detail = NULL;
    w->started = 0;
}

/* Checks a job spec from the wire; NULL when it can be run, else why not
 * (and *code the error). */
static char *s_spec_refusal(const wh_msg_t *m, const wh_framework_t **fw, int *code)
{
    const wh_job_spec_t *j = &m->job;
    *fw = wh_framework_find(j->framework ? j->framework : "junit");
    if (!*fw) {
        *code = WH_EINVAL;
        return wh_strdup_printf("unknown framework '%s'", j->framework);
    }
    if (!j->project || !j->test_file || !j->run_cmd || !j->test ||
        ((m->on_reference || j->keep_fault) && !j->reference)) {
        *code = WH_EPROTO;
        return strdup("incomplete job spec");
    }
    /* Paths from the wire: the projects are absolute folders, the test
     * file a plain path inside them (no "..": it is joined under this
     * node's own workspace). */
    if (j->project[0] != '/' || (j->reference && j->reference[0] != '/') ||
        !wh_path_is_plain_relative(j->test_file)) {
        *code = WH_EPROTO;
        return wh_strdup_printf("refused job spec: project '%s' must be absolute and test "
                                "file '%s' a plain relative path",
                                j->project, j->test_file);
    }
    return NULL;
}

/* Baseline or reference check: reports the most common outcome and how
 * many runs agree with it (the coordinator decides whether the original
 * is stable enough). Returns the detail. */
static char *s_judge_baseline(wk_slot_t *s, const wh_msg_t *m, s_runs_t *x, wh_msg_t *v)
{
    const wh_job_spec_t *j = &m->job;
    int best = 0, best_n = 0, any_failed = 0;
    for (int i = 0; i < x->k; i++)
        any_failed |= x->r[i].result.status == WH_TR_FAILED;
    for (int i = 0; i < x->k; i++) {
        /* The fingerprint is a failure's: when some runs failed, the
         * most common failure wins over passes. */
        if (any_failed && x->r[i].result.status != WH_TR_FAILED)
            continue;
        int same = 0;
        for (int k = 0; k < x->k; k++)
            same += x->r[k].result.status == x->r[i].result.status &&
                    (x->r[i].result.status != WH_TR_FAILED ||
                     wh_fp_match(&x->r[i].result.fp, &x->r[k].result.fp, (wh_match_t)j->match));
        if (same > best_n) {
            best = i;
            best_n = same;
        }
    }
    /* A baseline tells the coordinator how the test file compiles. */
    if (m->baseline && s_baseline_compile(s, x->root, j->test_file, &v->compile) == 0)
        v->compile_root = x->root;
    v->verdict = WH_V_NONE;
    v->test_status = x->r[best].result.status;
    v->observed = x->r[best].result.fp;
    v->others = x->r[best].others; /* borrowed, as observed */
    v->agreeing_runs = (uint32_t)best_n;
    if (x->k <= 1)
        return x->r[0].detail ? strdup(x->r[0].detail) : NULL;
    int passed = 0, failed = 0, missing = 0;
    for (int i = 0; i < x->k; i++) {
        passed += x->r[i].result.status == WH_TR_PASSED;
        failed += x->r[i].result.status == WH_TR_FAILED;
        missing += x->r[i].result.status == WH_TR_MISSING || x->r[i].result.status == WH_TR_SKIPPED;
    }
    return wh_strdup_printf("%d runs: %d gave this outcome; %d failed, %d passed, %d missing",
                            x->k, best_n, failed, passed, missing);
}

/* A candidate: definite mode (every run preserves) unless --flaky-ok. */
static void s_judge_candidate(const wh_job_spec_t *j, const s_runs_t *x, int want, wh_msg_t *v,
                              wh_buf_t *why)
{
    int p = 0, first_other = -1;
    for (int i = 0; i < x->k; i++) {
        if (x->r[i].verdict == WH_V_PRESERVED)
            p++;
        else if (first_other < 0)
            first_other = i;
    }
    int need = j->flaky_ok ? (int)j->flaky_ok : want;
    v->agreeing_runs = (uint32_t)p;
    if (p >= need && x->k == want) {
        v->verdict = WH_V_PRESERVED;
        v->observed = x->r[first_other < 0 ? 0 : (p ? (x->r[0].verdict == WH_V_PRESERVED ? 0 : first_other) : 0)].result.fp;
    } else {
        int o = first_other < 0 ? 0 : first_other;
        v->verdict = x->r[o].verdict;
        v->test_status = x->r[o].result.status;
        v->observed = x->r[o].result.fp;
    }
    if (v->verdict == WH_V_PRESERVED)
        v->test_status = WH_TR_FAILED;
    v->others = x->k ? x->r[0].others : NULL; /* borrowed, as observed */
    if (want > 1)
        wh_buf_printf(why, "%d of %d runs preserved; ", p, x->k);
    if (x->r[0].detail)
        wh_buf_puts(why, x->r[0].detail);
}

/* --keep-fault: a preserved candidate's failure must also be the
 * fault's: the candidate has to pass on the reference version. */
static void s_check_reference(wk_slot_t *s, const wh_msg_t *m, const wh_framework_t *fw,
                              s_runs_t *xr, wh_msg_t *v, wh_buf_t *why)
{
    const wh_job_spec_t *j = &m->job;
    char *d2 = NULL;
    int rc = s_run_set(s, j, fw, j->reference, 0, m->content, m->content_len, NULL, 1, xr, &d2);
    if (rc) {
        v->verdict = WH_V_INFRA_ERROR;
        v->code = s_taint_setup(s, 1, rc, &d2);
        wh_buf_printf(why, "; reference: %s", d2 ? d2 : wh_strerror(rc));
    } else if (xr->r[0].cancelled) {
        v->verdict = WH_V_INFRA_ERROR;
        v->code = WH_ECANCEL;
    } else if (xr->taint) {
        v->verdict = WH_V_INFRA_ERROR;
        v->code = WH_ETAINT;
        wh_buf_printf(why, "; reference run: %s", xr->taint);
    } else if (xr->r[0].verdict == WH_V_BUILD_FAILED) {
        v->verdict = WH_V_BUILD_FAILED;
        wh_buf_puts(why, "; does not build on the reference");
    } else if (xr->r[0].verdict == WH_V_INFRA_ERROR) {
        v->verdict = WH_V_INFRA_ERROR;
        wh_buf_printf(why, "; reference run: %s", xr->r[0].detail ? xr->r[0].detail : "failed");
    } else if (xr->r[0].result.status == WH_TR_FAILED && xr->r[0].whole_fail) {
        v->verdict = WH_V_DIFFERENT_FAILURE;
        wh_buf_printf(why, "; preserved, but on the reference its whole CTest test fails (%s): "
                           "the fault is lost", xr->r[0].whole_fail);
    } else if (xr->r[0].result.status == WH_TR_FAILED) {
        v->verdict = WH_V_DIFFERENT_FAILURE;
        wh_buf_puts(why, "; preserved, but it fails on the reference too: the fault is lost");
    } else if (xr->r[0].result.status != WH_TR_PASSED) {
        /* Passing needs evidence (a report, a pass line, exit 0 with
         * --pass-on-exit0): without it the fault is not shown kept. */
        v->verdict = WH_V_TEST_MISSING;
        wh_buf_puts(why, "; preserved, but no evidence that it passes on the reference");
    } else {
        wh_buf_puts(why, "; passes on the reference: the fault is kept");
    }
    free(d2);
}

static void s_evaluate(wk_slot_t *s, wh_msg_t *m)
{
    wh_node_t *n = s->node;
    const wh_job_spec_t *j = &m->job;
    wh_msg_t v = {0};
    v.type = WH_MSG_VERDICT;
    v.job.job_id = j->job_id;
    v.cand_id = m->cand_id;
    v.verdict = WH_V_INFRA_ERROR;
    char *detail = NULL, *busy = NULL;
    uint8_t *rep = NULL;
    s_runs_t x = {0}, xr = {0};
    wh_buf_t why = WH_BUF_INIT;

    wk_set_current(s, j->job_id, m->cand_id);
    s->cancel = 0;

    const wh_framework_t *fw = NULL;
#ifdef WH_NODE_TEST
    if (n->test_busy) {
        /* TEST ONLY: a slot that is always busy (see wh_node_opts_t). */
        v.code = WH_EPROTO;
        detail = strdup("slot busy");
        goto reply;
    }
#endif
    if ((detail = s_spec_refusal(m, &fw, &v.code)))
        goto reply;
    const char *project = m->on_reference ? j->reference : j->project;
    /* The baseline and the fault-kept check run once per repeat; a
     * reference check is a single run. */
    int want = m->on_reference ? 1 : (j->repeat > 1 ? (int)j->repeat : 1);
    const wh_fp_t *ref = (m->baseline || m->on_reference) ? NULL : &m->ref;
#ifdef WH_NODE_TEST
    if (n->test_lie && ref) {
        /* TEST ONLY: a lying node (see wh_node_opts_t). */
        v.verdict = (uint32_t)n->test_lie;
        v.code = n->test_lie == WH_V_BUILD_FAILED ? WH_EBUILD : 0;
        v.test_status = n->test_lie == WH_V_PRESERVED ? WH_TR_FAILED
                        : n->test_lie == WH_V_TEST_PASSED ? WH_TR_PASSED : v.test_status;
        if (n->test_lie == WH_V_PRESERVED)
            v.observed = m->ref;
        v.runs = v.agreeing_runs = (uint32_t)want;
        goto reply;
    }
#endif
    s_refwarm_t warm;
    s_refwarm_start(&warm, s, m);
    int rc = s_run_set(s, j, fw, project, m->fresh, m->content, m->content_len, ref, want, &x,
                       &detail);
    s_refwarm_join(&warm);
    if (rc) {
        v.code = s_taint_setup(s, m->baseline || m->on_reference, rc, &detail);
        goto reply;
    }
    busy = wh_path_join(x.root, ".whittle-busy");
    wh_write_file(busy, "", 0);
    wh_eval_result_t *r0 = &x.r[0];
    v.build_ms = (uint32_t)r0->build_ms;
    for (int i = 0; i < x.k; i++)
        v.test_ms += (uint32_t)x.r[i].test_ms;
    v.runs = (uint32_t)x.k;
    int cancelled = 0;
    for (int i = 0; i < x.k; i++)
        cancelled |= x.r[i].cancelled;
    if (cancelled) {
        v.code = WH_ECANCEL;
        detail = strdup("cancelled");
        goto reply;
    }
    if (x.taint) {
        /* Nothing this run says is about the candidate: never a verdict. */
        v.code = WH_ETAINT;
        detail = strdup(x.taint);
        s_attach_report(&x, &v, &rep);
        goto reply;
    }
    if (r0->verdict == WH_V_BUILD_FAILED || r0->verdict == WH_V_INFRA_ERROR) {
        /* No test result: for a baseline this says why (no build, no report). */
        v.verdict = r0->verdict;
        v.code = r0->verdict == WH_V_BUILD_FAILED ? WH_EBUILD : 0;
        v.test_status = r0->result.status;
        v.observed = r0->result.fp;
        detail = r0->detail ? strdup(r0->detail) : NULL;
        s_attach_report(&x, &v, &rep);
        goto reply;
    }
    if (ref == NULL) {
        detail = s_judge_baseline(s, m, &x, &v);
        s_attach_report(&x, &v, &rep);
        goto reply;
    }
    s_judge_candidate(j, &x, want, &v, &why);
    s_attach_report(&x, &v, &rep);
    if (v.verdict == WH_V_PRESERVED && j->keep_fault)
        s_check_reference(s, m, fw, &xr, &v, &why);
    detail = wh_buf_detach(&why);
reply:
    v.detail = detail;
    if (!atomic_load(&n->stop))
        wk_send(s, &v);
    if (busy)
        unlink(busy);
    if (m->fresh && x.root)
        wk_remove_workspace(x.root);
    wk_set_current(s, NULL, 0);
    wh_compile_cmd_clear(&v.compile);
    s_runs_clear(&x);
    s_runs_clear(&xr);
    wh_buf_free(&why);
    free(detail);
    free(busy);
    free(rep);
}

/* ---- infrastructure faults (node/taint.h) ----
 *
 * A verdict is only worth caching when its run says something about the
 * candidate. A full disk, a quota, an OOM kill, a signal from outside or a
 * missing tool say something about this node: such a run is answered
 * InfraError with code WH_ETAINT, and the coordinator retries the candidate
 * on another slot. */

/* What a missing tool may mean on a sandboxed node: the tool is there on
 * the host, where the sandbox does not look. */
static const char *s_box_hint(const wh_runas_t *ru, wh_taint_t t)
{
    return t == WH_TAINT_NO_TOOL && wh_runas_sandboxed(ru)
               ? " (this node runs job commands in a bwrap sandbox, which shows the system "
                 "folders, the workspace and a private /tmp: a tool or file elsewhere on the "
                 "host is not there; install it under /usr or /opt, or start the node with "
                 "--sandbox none)"
               : "";
}

void wk_setup_taint(wk_slot_t *s, const wh_run_result_t *r, const char *log)
{
    s->setup_taint[0] = '\0';
    char *out = NULL;
    size_t len = 0;
    if (s_read_tail(log, 1u << 20, &out, &len) != 0)
        out = NULL, len = 0;
    wh_taint_step_t st = {WH_STEP_SETUP, r, out, len, NULL};
    char why[400];
    wh_taint_t t = wh_taint_classify(&st, why, sizeof why);
    if (t == WH_TAINT_NONE)
        t = wh_taint_disk(s->node->workdir, why, sizeof why);
    if (t != WH_TAINT_NONE)
        snprintf(s->setup_taint, sizeof s->setup_taint, "%s: %s%s", wh_taint_name(t), why,
                 s_box_hint(s->node->runas, t));
    free(out);
}

/* The code to answer when the workspace could not be prepared or written
 * (rc, with *detail): WH_ETAINT when that is the node's fault, and *detail
 * then says why. A candidate's workspace failing here is always the node's
 * fault: the original's was set up, elsewhere if not here. A setup that
 * has not been seen to work (own: the baseline's, a reference's) and fails
 * without a sign of the node (an exit 1, no full disk) is the project's:
 * rc stays. */
static int s_taint_setup(wk_slot_t *s, int own, int rc, char **detail)
{
    if (rc == WH_ECANCEL || rc == WH_ENOMEM)
        return rc;
    char why[800] = "";
    const char *d = *detail ? *detail : wh_strerror(rc);
    wh_taint_step_t st = {WH_STEP_SETUP, NULL, d, strlen(d), NULL};
    wh_taint_t t = WH_TAINT_NONE;
    if (rc == WH_ESETUP && s->setup_taint[0])
        snprintf(why, sizeof why, "%s", s->setup_taint);
    else if ((t = wh_taint_classify(&st, why, sizeof why)) != WH_TAINT_NONE ||
             (t = wh_taint_disk(s->node->workdir, why, sizeof why)) != WH_TAINT_NONE) {
        char tmp[sizeof why + 64];
        snprintf(tmp, sizeof tmp, "%s: %s", wh_taint_name(t), why);
        snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, tmp);
    } else if (rc == WH_ESETUP && own)
        return rc;
    else
        snprintf(why, sizeof why, "this node could not prepare the workspace");
    char *nd = wh_strdup_printf("infrastructure fault (%s); %s", why, d);
    if (nd) {
        free(*detail);
        *detail = nd;
    }
    return WH_ETAINT;
}

/* Output of one step: the last cap bytes of [from, to) of the log (to < 0:
 * its end), malloc'ed and NUL-terminated; NULL when there is none. */
static char *s_read_part(const char *path, long long from, long long to, size_t cap,
                         size_t *len)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    long long end = to < 0 || to > (long long)st.st_size ? (long long)st.st_size : to;
    if (from < 0)
        from = 0;
    if (end - from > (long long)cap)
        from = end - (long long)cap;
    char *buf = end > from ? malloc((size_t)(end - from) + 1) : NULL;
    size_t got = 0;
    while (buf && got < (size_t)(end - from)) {
        ssize_t n = pread(fd, buf + got, (size_t)(end - from) - got, (off_t)from + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf) {
        buf[got] = '\0';
        *len = got;
    }
    return buf;
}

/* Classifies the evaluation er that just ran in x's workspace (its build
 * and test output are in x->log; ref: the failure being reduced, NULL for
 * a baseline). On a taint its verdict becomes InfraError, x->taint says
 * why, and 1 is returned. */
static int s_taint_run(s_runs_t *x, wh_eval_result_t *er, const wh_fp_t *ref,
                       const wh_runas_t *ru)
{
    if (er->cancelled)
        return 0;
    /* What a step printed last is where a fault shows: 1 MiB of each. */
    long long cut = er->test_ran ? er->test_log_from : -1;
    size_t blen = 0, tlen = 0;
    char *bout = s_read_part(x->log, 0, cut, 1u << 20, &blen);
    char *tout = er->test_ran ? s_read_part(x->log, cut, -1, 1u << 20, &tlen) : NULL;
    char *own = ref ? wh_strdup_printf("%s %s", ref->kind ? ref->kind : "",
                                       ref->message ? ref->message : "")
                    : NULL;
    wh_taint_step_t b = {WH_STEP_BUILD, er->build_ran ? &er->build_run : NULL, bout, blen, NULL};
    wh_taint_step_t t = {WH_STEP_TEST, &er->test_run, tout, tlen, own};
    char why[512];
    wh_taint_t k = wh_taint_classify(&b, why, sizeof why);
    if (k == WH_TAINT_NONE && er->test_ran)
        k = wh_taint_classify(&t, why, sizeof why);
    if (k == WH_TAINT_NONE)
        k = wh_taint_disk(x->root, why, sizeof why);
    free(bout);
    free(tout);
    free(own);
    if (k == WH_TAINT_NONE)
        return 0;
    free(x->taint);
    x->taint = wh_strdup_printf("infrastructure fault (%s): %s%s", wh_taint_name(k), why,
                                s_box_hint(ru, k));
    er->verdict = WH_V_INFRA_ERROR;
    return 1;
}

/* ---- slot thread ---- */

static atomic_uint s_continued;

void wh_node_note_continued(void)
{
    atomic_fetch_add(&s_continued, 1);
}

unsigned wk_continued(void)
{
    return atomic_load(&s_continued);
}

/* Whether this process was stopped since the slot last ran, long enough
 * for the coordinator to drop the slot (3 heartbeats): then says so, ends
 * the old session before anything is sent on it, and returns 1 (the
 * caller reconnects at once). Else notes that the slot runs; 0. */
static int s_resumed(wk_slot_t *s)
{
    wh_node_t *n = s->node;
    unsigned cont = atomic_load(&s_continued);
    uint64_t now = wh_now_ms();
    if (cont == s->cont_seen) {
        s->alive_ms = now;
        return 0;
    }
    s->cont_seen = cont;
    uint64_t gap = s->alive_ms ? now - s->alive_ms : 0;
    s->alive_ms = now;
    if (!s->sock || gap < 3u * n->hb_ms)
        return 0; /* the session outlived the stop */
    wh_warn("node %s slot %d: this node was stopped for %.1f s (SIGSTOP, or the machine "
            "slept): longer than 3 heartbeats, so the coordinator at %s has dropped this "
            "slot's session; reconnecting",
            n->node_id, s->index, (double)gap / 1000.0, n->endpoint);
    atomic_store(&n->resumed_ms, now);
    s_disconnect(s);
    s->backoff_ms = 1000;
    return 1;
}

static void s_tick_hb(void *arg)
{
    wk_slot_t *s = arg;
    /* a stop during a build is handled when the slot's loop turns again */
    if (atomic_load(&s_continued) == s->cont_seen)
        s->alive_ms = wh_now_ms();
    s_heartbeat_if_due(arg);
}

/* Points a job that travels as a git snapshot at this node's checkout of
 * it. When this node cannot get it (no route to the URL, a bad patch) the
 * candidate or warm-up is answered with an infrastructure fault, so the
 * coordinator tries another node. 0, or -1 when answered. */
static int s_localize(wk_slot_t *s, wh_msg_t *m)
{
    char *err = NULL;
    if (m->job.tar_sha ? wk_tar_localize(s, &m->job, s_tick_hb, &err) == 0
                       : wh_snapfetch(s->node->workdir, &m->job, s_tick_hb, s, &err) == 0)
        return 0;
    wh_warn("slot %d: snapshot of %s: %s", s->index,
            m->job.tar_sha ? m->job.tar_sha : m->job.git_url, err);
    if (m->type == WH_MSG_WARM) {
        wk_send_warmed(s, m->job.job_id, 0, WH_ETAINT, NULL, err, 1);
    } else {
        wh_msg_t v = {0};
        v.type = WH_MSG_VERDICT;
        v.job.job_id = m->job.job_id;
        v.cand_id = m->cand_id;
        v.verdict = WH_V_INFRA_ERROR;
        v.code = WH_ETAINT;
        v.detail = err;
        wk_send(s, &v);
    }
    free(err);
    return -1;
}

static void *s_slot_main(void *arg)
{
    wk_slot_t *s = arg;
    wh_node_t *n = s->node;
    s->backoff_ms = 1000;
    s->cont_seen = atomic_load(&s_continued);
    while (!atomic_load(&n->stop)) {
        s_resumed(s);
        if (!s->sock && s_connect(s) < 0) {
            usleep(200 * 1000);
            continue;
        }
        wh_msg_t m = {0};
        int rc = s_recv(s, &m);
        if (rc == -EAGAIN) {
            s_wait_input(s, 100);
            rc = s_recv(s, &m);
        }
        /* Read empty: only now is a long silence the coordinator's. A
         * thread back from a long set-up reads what waited before it
         * judges (the coordinator's heartbeats went on meanwhile). */
        int drained = rc == -EAGAIN;
        if (rc != -EAGAIN) {
            if (rc == 0) {
                s->last_rx = wh_now_ms();
                s->backoff_ms = 1000;
                atomic_store(&n->refusals, 0);
                atomic_store(&n->refusal_ms, 0);
                if ((m.type == WH_MSG_EVALUATE || m.type == WH_MSG_WARM) &&
                    (m.job.git_url || m.job.tar_sha) && s_localize(s, &m) != 0)
                    ; /* answered: this node cannot get the snapshot */
                else if (m.type == WH_MSG_EVALUATE)
                    s_evaluate(s, &m);
                else if (m.type == WH_MSG_WARM)
                    wk_warm(s, &m);
                else if (m.type == WH_MSG_BYE && m.refused) {
                    /* Let in, but not as a node: a retry cannot help. */
                    if (atomic_exchange(&n->role_refusal_set, 1) == 0) {
                        snprintf(n->role_refusal, sizeof n->role_refusal, "%s",
                                 m.detail ? m.detail : wh_auth_refusal_why(WH_AUTH_ROLE_REFUSED));
                        wh_warn("node %s slot %d: coordinator at %s: %s", n->node_id, s->index,
                                n->endpoint, n->role_refusal);
                        atomic_store(&n->refused, (int)WH_AUTH_ROLE_REFUSED);
                    }
                    wh_msg_clear(&m);
                    s_disconnect(s);
                    break;
                } else if (m.type == WH_MSG_BYE) {
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
        if (s_resumed(s))
            continue; /* nothing more on the lost session */
        int refused = s_check_refused(s);
        s_heartbeat_if_due(s);
        /* Three missed heartbeats: the coordinator is gone or the link is
         * broken. Reconnect with backoff and introduce ourselves again; a
         * refused key too, without waiting for the heartbeats. */
        if (refused || (drained && wh_now_ms() - s->last_rx > 3u * n->hb_ms)) {
            if (!refused)
                wh_info("node %s slot %d: coordinator silent; reconnecting in %u ms",
                        n->node_id, s->index, s->backoff_ms);
            s_disconnect(s);
            for (unsigned waited = 0; waited < s->backoff_ms && !atomic_load(&n->stop);
                 waited += 100)
                usleep(100 * 1000);
            s->backoff_ms = s->backoff_ms * 2 > 10000 ? 10000 : s->backoff_ms * 2;
        }
    }
    wh_msg_t bye = {0};
    bye.type = WH_MSG_BYE;
    wk_send(s, &bye);
    s_disconnect(s);
    return NULL;
}

/* The user and sandbox of job commands. --sandbox auto tries bwrap and,
 * where no sandbox starts, keeps why and goes on without one. */
static int s_start_runas(wh_node_t *n, const wh_node_opts_t *o, char **err)
{
    wh_sandbox_t sb = (wh_sandbox_t)o->sandbox;
    if (sb == WH_SANDBOX_AUTO) {
        char *why = NULL;
        if ((n->runas = wh_runas_new(o->run_as, WH_SANDBOX_BWRAP, n->workdir, o->secret_key, &why)))
            return 0;
        /* "--sandbox bwrap: <reason>": the reason is what auto says */
        const char *r = why && !strncmp(why, "--sandbox bwrap: ", 17) ? why + 17 : why;
        n->sandbox_note = r ? strdup(r) : NULL;
        free(why);
        if (!n->sandbox_note) {
            *err = strdup("out of memory");
            return -1;
        }
        sb = WH_SANDBOX_NONE;
    }
    if ((o->run_as || sb) && !(n->runas = wh_runas_new(o->run_as, sb, n->workdir, o->secret_key, err)))
        return -1;
    return 0;
}

int wh_node_sandboxed(const wh_node_t *n)
{
    return wh_runas_sandboxed(n->runas);
}

const char *wh_node_sandbox_note(const wh_node_t *n)
{
    return n->sandbox_note;
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
    if (o->keys) {
        n->keys = *o->keys;
        n->has_keys = 1;
    }
    n->nslots = o->slots > 0 ? o->slots : 1;
#ifdef WH_NODE_TEST
    n->test_lie = o->test_lie;
    n->test_busy = o->test_busy;
#endif
    pthread_mutex_init(&n->disk_mu, NULL);
    pthread_mutex_init(&n->uid_mu, NULL);
    n->uid_lo = o->job_uid_lo;
    n->uid_hi = o->job_uid_hi;
    if (!n->endpoint || !n->node_id || !n->workdir)
        goto nomem;
    int rc = wh_mkdir_p(n->workdir);
    if (rc) {
        *err = wh_strdup_printf("cannot create workdir '%s': %s", o->workdir, wh_strerror(rc));
        wh_node_stop(&n);
        return NULL;
    }
    if (!(n->warm = wh_warmup_new(n->workdir)))
        goto nomem;
    if (s_start_runas(n, o, err) < 0) {
        wh_node_stop(&n);
        return NULL;
    }
    n->slots = calloc((size_t)n->nslots, sizeof *n->slots);
    if (!n->slots)
        goto nomem;
    for (int i = 0; i < n->nslots; i++)
        n->slots[i].wake_fd = -1;
    for (int i = 0; i < n->nslots; i++) {
        n->slots[i].node = n;
        n->slots[i].index = i;
        n->slots[i].wake_fd = wh_wake_open();
        n->slots[i].mu_ok = pthread_mutex_init(&n->slots[i].mu, NULL) == 0;
        if (!n->slots[i].mu_ok)
            goto nomem;
    }
    for (int i = 0; i < n->nslots; i++) {
        if (pthread_create(&n->slots[i].thread, NULL, s_slot_main, &n->slots[i]) != 0) {
            *err = wh_strdup_printf("cannot start slot thread %d", i);
            wh_node_stop(&n);
            return NULL;
        }
        n->slots[i].started = 1;
    }
    /* Without it the slots' own threads send their heartbeats, between
     * the steps of their work (ticks), as they did before there was one. */
    if (wk_beat_start(n) != 0)
        wh_warn("node %s: no heartbeat thread; a long set-up may make its slot look dead",
                n->node_id);
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
    wk_beat_stop(n);
    for (int i = 0; n->slots && i < n->nslots; i++)
        if (n->slots[i].started)
            pthread_join(n->slots[i].thread, NULL);
    for (int i = 0; n->slots && i < n->nslots; i++) {
        if (n->slots[i].mu_ok)
            pthread_mutex_destroy(&n->slots[i].mu);
        if (n->slots[i].wake_fd >= 0)
            close(n->slots[i].wake_fd);
    }
    free(n->slots);
    free(n->endpoint);
    free(n->node_id);
    free(n->workdir);
    pthread_mutex_destroy(&n->disk_mu);
    wh_warmup_destroy(&n->warm);
    wh_runas_destroy(&n->runas);
    free(n->sandbox_note);
    for (int i = 0; i < n->nkeyusers; i++)
        wh_runas_destroy(&n->keyusers[i].runas);
    free(n->keyusers);
    pthread_mutex_destroy(&n->uid_mu);
    memset(&n->keys, 0, sizeof n->keys);
    free(n);
    *np = NULL;
}

const char *wh_node_refusal_detail(const wh_node_t *n)
{
    return wh_node_refused(n) == WH_AUTH_ROLE_REFUSED ? n->role_refusal : "";
}

wh_auth_refusal_t wh_node_refused(const wh_node_t *n)
{
    return (wh_auth_refusal_t)atomic_load(&((wh_node_t *)n)->refused);
}

uint64_t wh_node_evaluated(const wh_node_t *n)
{
    return atomic_load(&((wh_node_t *)n)->evaluated);
}
