/*
 * whittle-coordinator — the cluster's brain as a daemon: binds a ROUTER for
 * node slots and clients, runs every submitted reduction on the shared pool
 * (fair across jobs), answers status requests.
 *
 * Its options are rows of common/cli_table.c (whittle-coordinator --help).
 *
 * Every submitted job's run folder lives under --runs DIR (default
 * ./whittle-runs): a client names at most a relative folder under it.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "auth.h"
#include "cache.h"
#include "cli.h"
#include "group.h"
#include "job.h"
#include "jobsnap.h"
#include "metrics.h"
#include "pool.h"
#include "reduce.h"
#include "wire.h"

static volatile sig_atomic_t s_stop;

static void s_on_signal(int sig)
{
    (void)sig;
    s_stop = 1;
}

typedef struct s_active {
    wh_reduction_t *r;
    uint8_t ident[WH_WIRE_MAX_IDENT];
    size_t ident_len;
    uint64_t client_tag;
    uint64_t last_progress;
    struct s_active *next;
} s_active_t;

/* A submitted job being prepared (libclang parse, project hash) on its own
 * thread, so the poll loop keeps answering heartbeats meanwhile. */
typedef struct s_pending {
    wh_job_t job;
    uint8_t ident[WH_WIRE_MAX_IDENT];
    size_t ident_len;
    uint64_t client_tag;
    pthread_t th;
    atomic_int done;
    wh_reduction_t *r;
    char *err;
    struct s_pending *next;
} s_pending_t;

typedef struct {
    wh_pool_t *pool;
    wh_cache_t *cache;
    s_active_t *active;
    s_pending_t *pending;
    uint64_t submitted, finished, failed;
    /* for --metrics */
    wh_metrics_t *metrics;
    uint64_t t0, last_publish;
    uint64_t cand_done, cached_done;  /* of jobs that ended */
    uint64_t rate_t[61], rate_n[61];  /* judged count, once a second */
    int rate_i;
    char *runs;             /* absolute --runs folder */
    char **done_dirs; /* run folders of the jobs that finished well, oldest first */
    size_t n_done;
} s_self_t;

/* The finished jobs `whittle status` groups (the newest ones). */
#define S_DONE_MAX 256

static void s_note_done(s_self_t *self, const char *dir)
{
    if (!dir)
        return;
    if (self->n_done == S_DONE_MAX) {
        free(self->done_dirs[0]);
        memmove(self->done_dirs, self->done_dirs + 1, (S_DONE_MAX - 1) * sizeof(char *));
        self->n_done--;
    }
    char **d = realloc(self->done_dirs, (self->n_done + 1) * sizeof *d);
    if (!d)
        return;
    self->done_dirs = d;
    if ((d[self->n_done] = strdup(dir)))
        self->n_done++;
}

/* "groups of finished jobs: N runs, M groups" and the groups (group.h). */
static void s_describe_groups(const s_self_t *self, wh_buf_t *b)
{
    char *err = NULL;
    wh_group_t *g = self->n_done ? wh_group_load_dirs((const char *const *)self->done_dirs,
                                                      self->n_done, &err)
                                 : NULL;
    if (!g) {
        if (err)
            wh_buf_printf(b, "groups of finished jobs: %s\n", err);
        free(err);
        return;
    }
    wh_group_cluster(g);
    wh_buf_puts(b, "groups of finished jobs: ");
    wh_group_describe(g, b);
    wh_group_destroy(&g);
}

static void s_reply_final(s_self_t *self, const void *ident, size_t ilen, uint64_t tag, int code,
                          const char *text)
{
    wh_msg_t m = {0};
    m.type = WH_MSG_PROGRESS;
    m.cand_id = tag;
    m.final = 1;
    m.code = code;
    m.detail = (char *)text;
    wh_pool_reply(self->pool, ident, ilen, &m);
}

/* A job whose project is a git snapshot is checked out here first (under
 * the cache folder's snapshots/), then validated like any other. */
static int s_prepare_snapshot(wh_job_t *j, char **err)
{
    char *base = wh_cache_default_dir();
    char *root = base ? wh_path_join(base, "snapshots") : NULL;
    int rc = root ? wh_job_snapshot_local(j, root, err) : -1;
    if (!root && !*err)
        *err = strdup("no folder for snapshots: set WHITTLE_CACHE_DIR or HOME");
    free(base);
    free(root);
    if (rc == 0 && (rc = wh_job_validate(j, err)) == 0)
        wh_job_guess_includes(j);
    return rc;
}

static void *s_prepare_main(void *arg)
{
    s_pending_t *pd = arg;
    if (!pd->job.git_url || s_prepare_snapshot(&pd->job, &pd->err) == 0)
        pd->r = wh_reduction_prepare(&pd->job, 1, &pd->err);
    atomic_store(&pd->done, 1);
    return NULL;
}

static void s_on_other(void *ctx, const void *ident, size_t ilen, wh_msg_t *m)
{
    s_self_t *self = ctx;
    if (m->type == WH_MSG_STATUS_REQ) {
        wh_buf_t b = WH_BUF_INIT;
        wh_pool_describe(self->pool, &b);
        wh_buf_printf(&b, "cache: %s\njobs submitted: %llu  finished: %llu  failed: %llu\n",
                      wh_cache_describe(self->cache), (unsigned long long)self->submitted,
                      (unsigned long long)self->finished, (unsigned long long)self->failed);
        for (s_pending_t *pd = self->pending; pd; pd = pd->next)
            wh_buf_printf(&b, "  job %s %s: preparing (parsing the test, hashing the project)\n",
                          pd->job.test ? pd->job.test : "?", pd->job.file ? pd->job.file : "?");
        for (s_active_t *a = self->active; a; a = a->next) {
            wh_progress_t st;
            wh_reduction_status_now(a->r, &st);
            wh_buf_puts(&b, "  job ");
            wh_reduction_progress(a->r, &b);
            wh_buf_puts(&b, "\n    ");
            wh_progress_format(&st, &b);
            wh_buf_puts(&b, "\n");
        }
        s_describe_groups(self, &b);
        wh_msg_t r = {0};
        r.type = WH_MSG_STATUS;
        r.detail = b.buf ? b.buf : "";
        wh_pool_reply(self->pool, ident, ilen, &r);
        wh_buf_free(&b);
        return;
    }
    if (m->type != WH_MSG_SUBMIT)
        return;
    self->submitted++;
    json_error_t je;
    json_t *o = m->json ? json_loads(m->json, 0, &je) : NULL;
    s_pending_t *pd = calloc(1, sizeof *pd);
    char *err = NULL;
    if (!pd) {
        json_decref(o);
        return;
    }
    wh_job_init(&pd->job);
    if (!o)
        err = strdup("submitted job is not valid JSON");
    else if (wh_job_from_json(&pd->job, o, &err) == 0 &&
             wh_job_place_runs(&pd->job, self->runs, &err) == 0 && !pd->job.git_url &&
             wh_job_validate(&pd->job, &err) == 0)
        wh_job_guess_includes(&pd->job); /* a snapshot: on the preparing thread */
    json_decref(o);
    memcpy(pd->ident, ident, ilen);
    pd->ident_len = ilen;
    pd->client_tag = m->cand_id;
    if (err || pthread_create(&pd->th, NULL, s_prepare_main, pd) != 0) {
        self->failed++;
        s_reply_final(self, ident, ilen, m->cand_id, 2, err ? err : "cannot start job");
        free(err);
        wh_job_clear(&pd->job);
        free(pd);
        return;
    }
    pd->next = self->pending;
    self->pending = pd;
}

/* Starts the jobs whose preparation finished, on the poll thread. */
static void s_start_prepared(s_self_t *self)
{
    for (s_pending_t **pp = &self->pending; *pp;) {
        s_pending_t *pd = *pp;
        if (!atomic_load(&pd->done)) {
            pp = &pd->next;
            continue;
        }
        *pp = pd->next;
        pthread_join(pd->th, NULL);
        char *err = pd->err;
        pd->err = NULL;
        if (pd->r && wh_reduction_start(pd->r, self->pool, self->cache, &err) != 0)
            wh_reduction_destroy(&pd->r);
        if (!pd->r) {
            self->failed++;
            s_reply_final(self, pd->ident, pd->ident_len, pd->client_tag, 1,
                          err ? err : "cannot start job");
        } else {
            s_active_t *a = calloc(1, sizeof *a);
            a->r = pd->r;
            memcpy(a->ident, pd->ident, pd->ident_len);
            a->ident_len = pd->ident_len;
            a->client_tag = pd->client_tag;
            a->last_progress = 0; /* the first status line goes out at once */
            a->next = self->active;
            self->active = a;
            wh_msg_t p = {0};
            p.type = WH_MSG_PROGRESS;
            p.cand_id = pd->client_tag;
            p.detail = wh_strdup_printf("accepted; run folder %s", wh_reduction_dir(a->r));
            wh_pool_reply(self->pool, a->ident, a->ident_len, &p);
            free(p.detail);
        }
        free(err);
        wh_job_clear(&pd->job);
        free(pd);
    }
}

/* How often a running job's client gets its status line. */
#define S_PROGRESS_MS 1000

/* The diff goes to the client with the final text, whose field is capped
 * (WH_WIRE_MAX_STRING): when the whole text would not fit, the diff is only
 * named (the rest of the text keeps 1 KiB for its own lines). */
static int s_diff_fits(const wh_reduction_t *r)
{
    const char *t = wh_reduction_result_text(r), *dir = wh_reduction_dir(r);
    size_t n = strlen(wh_reduction_diff(r)) + strlen(t ? t : "") +
               strlen(wh_reduction_closing(r)) + 2 * strlen(dir ? dir : "") + 1024;
    return n <= WH_WIRE_MAX_STRING;
}

static const char *s_diff_head(const wh_reduction_t *r)
{
    return !*wh_reduction_diff(r) ? ""
           : s_diff_fits(r)       ? "Diff (reduced.diff):\n"
                                  : "Diff: too long for this message; see reduced.diff in the run "
                                    "folder\n";
}

static const char *s_diff_body(const wh_reduction_t *r)
{
    return s_diff_fits(r) ? wh_reduction_diff(r) : "";
}

static void s_reap(s_self_t *self)
{
    uint64_t now = wh_now_ms();
    for (s_active_t **pp = &self->active; *pp;) {
        s_active_t *a = *pp;
        wh_reduction_poll(a->r);
        if (!wh_reduction_done(a->r)) {
            if (now - a->last_progress >= S_PROGRESS_MS) {
                wh_buf_t b = WH_BUF_INIT, line = WH_BUF_INIT;
                wh_reduction_progress(a->r, &b);
                wh_progress_t st;
                wh_reduction_status_now(a->r, &st);
                wh_progress_format(&st, &line);
                wh_msg_t p = {0};
                p.type = WH_MSG_PROGRESS;
                p.cand_id = a->client_tag;
                p.detail = b.buf;
                p.status = line.buf;
                wh_pool_reply(self->pool, a->ident, a->ident_len, &p);
                wh_buf_free(&b);
                wh_buf_free(&line);
                a->last_progress = now;
            }
            pp = &a->next;
            continue;
        }
        const char *msg = NULL;
        int st = wh_reduction_status(a->r, &msg);
        char *text = st ? wh_strdup_printf("%s (record: %s)", msg ? msg : "failed",
                                           wh_reduction_dir(a->r) ? wh_reduction_dir(a->r) : "-")
                        : wh_strdup_printf("Run folder: %s\n%sReduced test:\n%s%s%s"
                                           "Report: %s/report.html\n",
                                           wh_reduction_dir(a->r), wh_reduction_closing(a->r),
                                           wh_reduction_result_text(a->r) ? wh_reduction_result_text(a->r) : "",
                                           s_diff_head(a->r), s_diff_body(a->r),
                                           wh_reduction_dir(a->r));
        s_reply_final(self, a->ident, a->ident_len, a->client_tag, st, text);
        free(text);
        if (st) {
            self->failed++;
        } else {
            self->finished++;
            s_note_done(self, wh_reduction_dir(a->r));
        }
        uint64_t cand, cached;
        wh_reduction_counts(a->r, &cand, &cached);
        self->cand_done += cand;
        self->cached_done += cached;
        *pp = a->next;
        wh_reduction_destroy(&a->r);
        free(a);
    }
}

/* Verdicts per second over the last minute, from a ring of per-second
 * samples of the pool's judged counter. */
static double s_rate(s_self_t *self, uint64_t judged, uint64_t now)
{
    int last = (self->rate_i + 60) % 61;
    if (!self->rate_t[last] || now - self->rate_t[last] >= 1000) {
        self->rate_t[self->rate_i] = now;
        self->rate_n[self->rate_i] = judged;
        self->rate_i = (self->rate_i + 1) % 61;
    }
    int oldest = self->rate_i;
    for (int k = 0; k < 61 && !self->rate_t[oldest]; k++)
        oldest = (oldest + 1) % 61;
    uint64_t dt = now - self->rate_t[oldest];
    return dt ? (double)(judged - self->rate_n[oldest]) * 1000.0 / (double)dt : 0.0;
}

/* Renders a sample for --metrics, at most twice a second. */
static void s_publish_metrics(s_self_t *self, int stopping)
{
    uint64_t now = wh_now_ms();
    if (!self->metrics || (!stopping && now - self->last_publish < 500))
        return;
    self->last_publish = now;
    wh_pool_stats_t ps;
    wh_pool_stats(self->pool, &ps);
    wh_metrics_sample_t m = {
        .jobs_submitted = self->submitted, .jobs_finished = self->finished,
        .jobs_failed = self->failed, .queued = ps.queued, .slots = ps.slots, .busy = ps.busy,
        .warming = ps.warming, .out_of_rotation = ps.out_of_rotation, .nodes = ps.nodes,
        .judged = ps.judged, .judged_per_s = s_rate(self, ps.judged, now),
        .cache_lookups = self->cand_done, .cache_hits = self->cached_done,
        .requeued = ps.requeued, .dead_slots = ps.dead_slots,
        .uptime_s = (double)(now - self->t0) / 1000.0};
    m.idle = ps.slots - ps.busy - ps.warming - ps.out_of_rotation;
    if (m.idle < 0)
        m.idle = 0;
    for (s_pending_t *pd = self->pending; pd; pd = pd->next)
        m.jobs_preparing++;
    for (s_active_t *a = self->active; a; a = a->next) {
        uint64_t cand, cached;
        wh_reduction_counts(a->r, &cand, &cached);
        m.jobs_running++;
        m.cache_lookups += cand;
        m.cache_hits += cached;
    }
    int n = 0;
    wh_pool_node_stat_t const *ns = wh_pool_node_stats(self->pool, &n);
    wh_metrics_node_t *per = n ? calloc((size_t)n, sizeof *per) : NULL;
    for (int i = 0; per && i < n; i++)
        per[i] = (wh_metrics_node_t){ns[i].node, ns[i].slots, ns[i].verdicts, ns[i].infra};
    m.per_node = per;
    m.n_nodes = per ? n : 0;
    wh_buf_t b = WH_BUF_INIT;
    wh_metrics_render(&m, &b);
    wh_metrics_publish(self->metrics, b.buf, !stopping, stopping ? "stopping" : NULL);
    wh_buf_free(&b);
    free(per);
}

int main(int argc, char **argv)
{
    const char *bind = "tcp://0.0.0.0:7700", *cache_spec = NULL;
    uint64_t cache_max = 0;
    const char *secret = NULL, *nodes = NULL, *clients = NULL, *metrics = NULL;
    const char *runs = "whittle-runs";
    int insecure = 0;
    unsigned hb = 1000;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle-coordinator", NULL, argc - 1, argv + 1);
    while ((rc = wh_cli_next(&c)) > 0) {
        const char *v = c.arg;
        if (wh_cli_is(&c, "bind"))
            bind = v;
        else if (wh_cli_is(&c, "cache"))
            cache_spec = v;
        else if (wh_cli_is(&c, "cache-max")) {
            if (wh_cache_parse_size(v, &cache_max) || !cache_max) {
                fprintf(stderr, "whittle-coordinator: error: --cache-max wants a size like 64M "
                                "(K, M, G), not '%s'\n", v);
                return 2;
            }
        }
        else if (wh_cli_is(&c, "secret-key"))
            secret = v;
        else if (wh_cli_is(&c, "nodes"))
            nodes = v;
        else if (wh_cli_is(&c, "clients"))
            clients = v;
        else if (wh_cli_is(&c, "insecure"))
            insecure = 1;
        else if (wh_cli_is(&c, "metrics"))
            metrics = v;
        else if (wh_cli_is(&c, "runs"))
            runs = v;
        else if (wh_cli_is(&c, "verbose"))
            wh_log_set_level(WH_LOG_INFO);
        else if (wh_cli_is(&c, "heartbeat")) {
            long n = 0;
            if (wh_parse_long(v, 10, 600000, &n)) {
                fprintf(stderr,
                        "whittle-coordinator: error: --heartbeat wants milliseconds in "
                        "10..600000, not '%s'\n", v);
                return 2;
            }
            hb = (unsigned)n;
        }
    }
    if (rc < 0)
        return c.exit;
    char *err = NULL;
    if ((nodes || clients) && !secret) {
        fprintf(stderr, "whittle-coordinator: error: --nodes/--clients need --secret-key FILE\n");
        return 2;
    }
    if (wh_auth_endpoint_check(bind, secret != NULL, insecure, &err) != 0) {
        fprintf(stderr, "whittle-coordinator: error: %s\n", err);
        free(err);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    s_self_t self = {0};
    if (!*runs || !(self.runs = wh_abspath(runs))) {
        fprintf(stderr, "whittle-coordinator: error: --runs wants a folder, not '%s'\n", runs);
        return 2;
    }
    void *zctx = zmq_ctx_new();
    wh_auth_t *auth = NULL;
    if (secret && !(auth = wh_auth_server_new(zctx, secret, nodes, clients, &err))) {
        fprintf(stderr, "whittle-coordinator: error: %s\n", err);
        free(err);
        zmq_ctx_term(zctx);
        return 2;
    }
    self.cache = wh_cache_open(cache_spec, &err);
    if (!self.cache) {
        fprintf(stderr, "whittle-coordinator: error: %s\n", err);
        free(err);
        wh_auth_destroy(&auth);
        zmq_ctx_term(zctx);
        return 2;
    }
    if (cache_max)
        wh_cache_set_max(self.cache, cache_max);
    self.pool = wh_pool_new_auth(zctx, bind, hb, auth, &err);
    if (!self.pool) {
        fprintf(stderr, "whittle-coordinator: error: %s\n", err);
        free(err);
        wh_cache_close(&self.cache);
        wh_auth_destroy(&auth);
        zmq_ctx_term(zctx);
        return 2;
    }
    if (auth)
        fprintf(stderr, "whittle-coordinator: CURVE on; %d node key(s), %d client key(s) allowed\n",
                wh_auth_count(auth, WH_ROLE_NODE), wh_auth_count(auth, WH_ROLE_CLIENT));
    wh_pool_on_other(self.pool, s_on_other, &self);
    self.t0 = wh_now_ms();
    if (metrics && !(self.metrics = wh_metrics_start(metrics, &err))) {
        fprintf(stderr, "whittle-coordinator: error: %s\n", err);
        free(err);
        wh_pool_destroy(&self.pool);
        wh_cache_close(&self.cache);
        wh_auth_destroy(&auth);
        zmq_ctx_term(zctx);
        return 2;
    }
    if (self.metrics)
        fprintf(stderr, "whittle-coordinator: metrics on http://%s/metrics (/healthz, /readyz)\n",
                wh_metrics_addr(self.metrics));
    fprintf(stderr, "whittle-coordinator: listening on %s, cache %s, run folders under %s\n",
            wh_pool_endpoint(self.pool), wh_cache_describe(self.cache), self.runs);
    while (!s_stop) {
        wh_pool_poll(self.pool, 100);
        s_start_prepared(&self);
        s_reap(&self);
        s_publish_metrics(&self, 0);
    }
    s_publish_metrics(&self, 1);
    /* Preparations in flight finish (they cannot be interrupted) and are
     * then aborted with the active jobs below. */
    while (self.pending) {
        usleep(10 * 1000);
        s_start_prepared(&self);
    }
    while (self.active) {
        s_active_t *a = self.active;
        self.active = a->next;
        wh_reduction_abort(a->r, "coordinator stopped");
        s_reply_final(&self, a->ident, a->ident_len, a->client_tag, 4, "coordinator stopped");
        wh_reduction_destroy(&a->r);
        free(a);
    }
    wh_metrics_stop(&self.metrics);
    for (size_t i = 0; i < self.n_done; i++)
        free(self.done_dirs[i]);
    free(self.done_dirs);
    wh_pool_destroy(&self.pool);
    wh_cache_close(&self.cache);
    wh_auth_destroy(&auth);
    zmq_ctx_term(zctx);
    free(self.runs);
    return 0;
}
