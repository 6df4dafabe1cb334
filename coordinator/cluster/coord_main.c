/*
 * whittle-coordinator — the cluster's brain as a daemon: binds a ROUTER for
 * node slots and clients, runs every submitted reduction on the shared pool
 * (fair across jobs), answers status requests. Jobs are journaled
 * (journal.h) and resumed after a restart; a client may watch (reattach
 * to) and cancel only the jobs its key submitted.
 *
 * Its options are rows of common/cli_table.c (whittle-coordinator --help).
 *
 * Every submitted job's run folder lives under --runs DIR (default
 * ./whittle-runs): a client names at most a relative folder under it.
 *
 * One client key has at most --max-client-jobs jobs queued or running
 * (default S_MAX_CLIENT_JOBS): a submit beyond that is refused before it
 * is journaled, so one key cannot fill the journal or the queue.
 *
 * Jobs are prepared first come, first served by --prepare-threads threads
 * (default: the cores; prepq.h): each job's original is queued as soon as
 * the job is identified, and its front end is set up while it runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "auth.h"
#include "cache.h"
#include "wh_mac.h"
#include "cli.h"
#include "grants.h"
#include "group.h"
#include "job.h"
#include "jobsnap.h"
#include "journal.h"
#include "metrics.h"
#include "pool.h"
#include "prepq.h"
#include "night.h"
#include "reduce.h"
#include "tarstore.h"
#include "wire.h"

static volatile sig_atomic_t s_stop;

static void s_on_signal(int sig)
{
    (void)sig;
    s_stop = 1;
}

/* One job of this daemon, from SUBMIT (or the journal, after a restart) to
 * its final message: prepared on the preparation queue's threads (prepq.h)
 * so the poll loop keeps answering heartbeats, in two steps: identified
 * (the test parsed, the project hashed, the run folder opened), then
 * started on the pool, its original queued, while its front end (the
 * precheck's and the UB guard's set-up) waits on the queue behind every
 * job still to be identified (issue 35). */
typedef struct s_job {
    char id[WH_JOURNAL_ID_LEN + 1];
    char *owner;             /* ZAP user id of the client that submitted it */
    int resumed;             /* times resumed after a coordinator restart */
    int cancelled;           /* its owner cancelled it while it was identified */
    /* the client following it; ident_len 0: none (a resumed job until its
     * client reattaches) */
    uint8_t ident[WH_WIRE_MAX_IDENT];
    size_t ident_len;
    uint64_t client_tag;
    uint64_t last_progress;
    wh_job_t job;
    wh_prepq_task_t prep;    /* its identification (wh_reduction_identify) */
    wh_prepq_task_t fe_task; /* its front end's set-up, queued once it started */
    wh_frontend_t *fe;       /* that set-up, until the reduction takes it */
    int joined;              /* identified, and started (or ended) */
    char *err;
    int err_status;          /* the exit status err means (README's table) */
    wh_reduction_t *r;       /* prepared, then started */
    struct s_job *next;
} s_job_t;

/* --max-client-jobs by default. */
#define S_MAX_CLIENT_JOBS 32

typedef struct {
    wh_pool_t *pool;
    wh_cache_t *cache;
    wh_journal_t *journal;   /* NULL: --journal off */
    s_job_t *jobs;
    uint64_t submitted, finished, failed, resumed;
    uint64_t refused;        /* submits over max_client_jobs */
    int max_client_jobs;     /* jobs queued or running per client key */
    wh_grants_t *grants;     /* --grant: the folders each client key may name */
    wh_tarstore_t *tars;     /* tar snapshots uploaded (tarstore.h), or NULL */
    /* for --metrics */
    wh_metrics_t *metrics;
    uint64_t t0, last_publish;
    uint64_t cand_done, cached_done;  /* of jobs that ended */
    uint64_t rate_t[61], rate_n[61];  /* judged count, once a second */
    int rate_i;
    char *runs;             /* absolute --runs folder */
    /* run folders of the jobs that finished well, oldest first, and the
     * client key that owns each (status shows a client only its own) */
    char **done_dirs, **done_owners;
    size_t n_done;
    /* an eventfd a preparation thread writes when it is done, watched by
     * the pool: a prepared job starts at once, not at the next poll
     * timeout (up to 100 ms later); -1 without one */
    int wake_fd;
    wh_prepq_t *prepq;       /* the preparation queue: --prepare-threads threads */
    s_job_t *zombies;        /* ended jobs whose front end's set-up still runs */
    uint64_t prep_order;     /* jobs given to the preparation queue */
} s_self_t;

/* Whether the client key asking may see what owner's jobs show (test
 * names, fingerprints, run folders): only its own, except without keys
 * (--insecure), where every client is the one anonymous owner. */
static int s_sees(const char *key, const char *owner)
{
    return !key || !*key || (owner && !strcmp(key, owner));
}

/* The finished jobs `whittle status` groups (the newest ones). */
#define S_DONE_MAX 256

static void s_note_done(s_self_t *self, const char *dir, const char *owner)
{
    if (!dir)
        return;
    if (self->n_done == S_DONE_MAX) {
        free(self->done_dirs[0]);
        free(self->done_owners[0]);
        memmove(self->done_dirs, self->done_dirs + 1, (S_DONE_MAX - 1) * sizeof(char *));
        memmove(self->done_owners, self->done_owners + 1, (S_DONE_MAX - 1) * sizeof(char *));
        self->n_done--;
    }
    char **d = realloc(self->done_dirs, (self->n_done + 1) * sizeof *d);
    if (d)
        self->done_dirs = d;
    char **o = d ? realloc(self->done_owners, (self->n_done + 1) * sizeof *o) : NULL;
    if (!o)
        return;
    self->done_owners = o;
    d[self->n_done] = strdup(dir);
    o[self->n_done] = strdup(owner ? owner : "");
    if (d[self->n_done] && o[self->n_done]) {
        self->n_done++;
    } else {
        free(d[self->n_done]);
        free(o[self->n_done]);
    }
}

/* "groups of finished jobs: N runs, M groups" and the groups (group.h),
 * of the finished jobs the client key asking may see. */
static void s_describe_groups(const s_self_t *self, const char *key, wh_buf_t *b)
{
    char *err = NULL;
    const char **mine = self->n_done ? calloc(self->n_done, sizeof *mine) : NULL;
    size_t n = 0;
    for (size_t i = 0; mine && i < self->n_done; i++)
        if (s_sees(key, self->done_owners[i]))
            mine[n++] = self->done_dirs[i];
    wh_group_t *g = n ? wh_group_load_dirs(mine, n, &err) : NULL;
    free(mine);
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

/* A PROGRESS to the job's client, when one is attached; status: the
 * job's status line (progress.h) or NULL; reduced: the reduced test file
 * (line-true) with a successful final message, else NULL; summary: the
 * run's summary (night.h) with a final message, else NULL. */
static void s_tell_reduced(s_self_t *self, const s_job_t *j, int final, int code,
                           const char *text, const char *status, const char *reduced,
                           size_t rlen, const char *summary)
{
    if (!j->ident_len)
        return;
    wh_msg_t m = {0};
    m.type = WH_MSG_PROGRESS;
    m.cand_id = j->client_tag;
    m.job.job_id = (char *)j->id;
    m.journaled = self->journal != NULL;
    m.final = final;
    m.code = code;
    m.detail = (char *)text;
    m.status = (char *)status;
    m.content = (uint8_t *)reduced;
    m.content_len = reduced ? rlen : 0;
    m.summary = (char *)summary;
    m.summary_len = summary ? strlen(summary) : 0;
    wh_pool_reply(self->pool, j->ident, j->ident_len, &m);
}

static void s_tell_full(s_self_t *self, const s_job_t *j, int final, int code, const char *text,
                        const char *status)
{
    s_tell_reduced(self, j, final, code, text, status, NULL, 0, NULL);
}

static void s_tell(s_self_t *self, const s_job_t *j, int final, int code, const char *text)
{
    s_tell_full(self, j, final, code, text, NULL);
}

static void s_tell_status(s_self_t *self, const s_job_t *j, const char *text, const char *status)
{
    s_tell_full(self, j, 0, 0, text, status);
}

/* A final PROGRESS to a client about no job of ours (a refusal). */
static void s_answer_reduced(s_self_t *self, const void *ident, size_t ilen, uint64_t tag,
                             const char *id, int code, const char *text, const char *reduced,
                             size_t rlen, const char *summary)
{
    wh_msg_t m = {0};
    m.type = WH_MSG_PROGRESS;
    m.cand_id = tag;
    m.job.job_id = (char *)id;
    m.final = 1;
    m.code = code;
    m.detail = (char *)text;
    m.content = (uint8_t *)reduced;
    m.content_len = reduced ? rlen : 0;
    m.summary = (char *)summary;
    m.summary_len = summary ? strlen(summary) : 0;
    wh_pool_reply(self->pool, ident, ilen, &m);
}

static void s_answer(s_self_t *self, const void *ident, size_t ilen, uint64_t tag,
                     const char *id, int code, const char *text)
{
    s_answer_reduced(self, ident, ilen, tag, id, code, text, NULL, 0, NULL);
}

/* The reduced test (line-true) of a job that ended while its client was
 * away, from the run folder its journaled result names ("Run folder:
 * DIR", reduced.lines.EXT): its client may check an unverified answer on
 * its own machine (WH_EXIT_UNVERIFIED). 0, with *out malloc'ed; else -1. */
/* The run folder a journaled result names ("Run folder: DIR"), malloc'ed,
 * or NULL. */
static char *s_run_dir(const char *result)
{
    static const char mark[] = "Run folder: ";
    const char *p = result ? strstr(result, mark) : NULL;
    return p ? strndup(p + sizeof mark - 1, strcspn(p + sizeof mark - 1, "\n")) : NULL;
}

static int s_run_reduced(const char *result, char **out, size_t *len)
{
    char *dir = s_run_dir(result);
    DIR *d = dir ? opendir(dir) : NULL;
    int rc = -1;
    for (struct dirent *e; d && rc && (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "reduced.lines", 13) != 0)
            continue;
        char *path = wh_path_join(dir, e->d_name);
        rc = path && wh_read_file(path, WH_WIRE_MAX_CONTENT, out, len) == 0 ? 0 : -1;
        free(path);
    }
    if (d)
        closedir(d);
    free(dir);
    return rc;
}

/* A job whose project is a git snapshot is checked out here first (under
 * the cache folder's snapshots/), then validated like any other. *status:
 * 4 when it cannot be checked out here (as a node that cannot fetch it
 * answers an infrastructure fault), 2 when the job it gives is bad. */
static int s_prepare_snapshot(wh_job_t *j, int *status, char **err)
{
    char *base = wh_cache_default_dir();
    char *root = base ? wh_path_join(base, "snapshots") : NULL;
    int rc = root ? wh_job_snapshot_local(j, root, err) : -1;
    if (!root && !*err)
        *err = strdup("no folder for snapshots: set WHITTLE_CACHE_DIR or HOME");
    free(base);
    free(root);
    if (rc) {
        *status = 4;
        return rc;
    }
    if ((rc = wh_job_validate(j, err)) != 0) {
        *status = 2;
        return rc;
    }
    wh_job_guess_includes(j);
    return 0;
}

/* A job whose project is a tar snapshot (uploaded before its submit) is
 * unpacked here (under the cache folder's snapshots/tars/), then
 * validated. *status 2 when the archive is refused or the job is bad. */
static int s_prepare_tar(wh_job_t *j, int *status, char **err)
{
    char *base = wh_cache_default_dir();
    char *root = base ? wh_path_join(base, "snapshots") : NULL;
    char *blob = root ? wh_strdup_printf("%s/blobs/%s.tgz", root, j->tar_sha) : NULL;
    char *trees = root ? wh_path_join(root, "tars") : NULL;
    int rc = blob && trees ? wh_job_snapshot_tar_local(j, blob, trees, err) : -1;
    if (rc && !*err)
        *err = strdup("no folder for snapshots: set WHITTLE_CACHE_DIR or HOME");
    free(base);
    free(root);
    free(blob);
    free(trees);
    *status = 2;
    if (rc || (rc = wh_job_validate(j, err)) != 0)
        return rc;
    wh_job_guess_includes(j);
    return 0;
}

/* On a preparation thread: what the job's original run needs (the queue
 * wakes the poll loop when it is done). */
static void s_identify_main(wh_prepq_task_t *t)
{
    s_job_t *j = (s_job_t *)((char *)t - offsetof(s_job_t, prep));
    j->err_status = 4;
    if (j->job.tar_sha ? s_prepare_tar(&j->job, &j->err_status, &j->err) == 0
                       : !j->job.git_url ||
                             s_prepare_snapshot(&j->job, &j->err_status, &j->err) == 0)
        j->r = wh_reduction_identify(&j->job, 1, &j->fe, &j->err_status, &j->err);
}

/* On a preparation thread: the front end's set-up (it reads only j->fe). */
static void s_frontend_main(wh_prepq_task_t *t)
{
    s_job_t *j = (s_job_t *)((char *)t - offsetof(s_job_t, fe_task));
    wh_frontend_run(j->fe);
}

static void s_job_free_now(s_job_t *j)
{
    wh_frontend_destroy(&j->fe);
    wh_reduction_destroy(&j->r);
    wh_job_clear(&j->job);
    free(j->owner);
    free(j->err);
    free(j);
}

/* Frees an ended job (unlinked from self->jobs), or keeps it among the
 * zombies while a preparation thread still sets its front end up. */
static void s_job_free(s_self_t *self, s_job_t *j)
{
    if (j->job.tar_sha && self->tars)
        wh_tarstore_pin(self->tars, j->job.tar_sha, 0);
    if (self->prepq && wh_prepq_state(self->prepq, &j->fe_task) == WH_PREPQ_QUEUED)
        wh_prepq_cancel(self->prepq, &j->fe_task);
    if (self->prepq && wh_prepq_state(self->prepq, &j->fe_task) == WH_PREPQ_RUNNING) {
        j->next = self->zombies;
        self->zombies = j;
        return;
    }
    s_job_free_now(j);
}

/* The zombies whose set-up has ended are freed. */
static void s_reap(s_self_t *self)
{
    for (s_job_t **pp = &self->zombies; *pp;) {
        s_job_t *j = *pp;
        if (self->prepq && wh_prepq_state(self->prepq, &j->fe_task) == WH_PREPQ_RUNNING) {
            pp = &j->next;
            continue;
        }
        *pp = j->next;
        s_job_free_now(j);
    }
}

/* Starts preparing job (taken over) as id; the jobs are listed in submit
 * order (s_tend starts the identified ones oldest first). */
static s_job_t *s_job_start(s_self_t *self, const char *id, const char *owner, wh_job_t *job,
                            int resumed)
{
    s_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    memcpy(j->id, id, sizeof j->id);
    j->owner = strdup(owner);
    j->resumed = resumed;
    j->job = *job;
    wh_job_init(job);
    /* The owner's key name goes to the nodes (JobSpec.tenant): each
     * owner's workspaces get uids of their own there. */
    const char *colon = strchr(owner, ':');
    free(j->job.tenant);
    j->job.tenant = *owner ? strdup(colon ? colon + 1 : owner) : NULL;
    j->last_progress = 0; /* where it stands goes out at once */
    if (!j->owner) {
        s_job_free_now(j);
        return NULL;
    }
    if (j->job.tar_sha && self->tars) /* unpinned by s_job_free */
        wh_tarstore_pin(self->tars, j->job.tar_sha, 1);
    j->prep.order = j->fe_task.order = ++self->prep_order;
    j->prep.run = s_identify_main;
    j->prep.what = "identification";
    snprintf(j->prep.name, sizeof j->prep.name, "%s", id);
    j->fe_task.run = s_frontend_main;
    j->fe_task.what = "front end";
    snprintf(j->fe_task.name, sizeof j->fe_task.name, "%s", id);
    wh_prepq_push(self->prepq, &j->prep, 0);
    s_job_t **pp = &self->jobs;
    while (*pp)
        pp = &(*pp)->next;
    *pp = j;
    return j;
}

/* The job is over: journaled as st, its client told, the job freed. */
static void s_finish(s_self_t *self, s_job_t *j, wh_journal_state_t st, int code,
                     const char *text)
{
    if (self->journal)
        wh_journal_finish(self->journal, j->id, st, code, text);
    size_t rlen = 0;
    /* An unverified answer goes with its reduced test too: the client
     * verifies it on its own machine (reduce --cluster). */
    const char *reduced = (!code || code == WH_EXIT_UNVERIFIED) && j->r
                              ? wh_reduction_lines(j->r, &rlen) : NULL;
    /* What a batch's client groups by and reports (its run folder is
     * on this machine, the client perhaps not): the run's summary. */
    char *summary = j->r && j->ident_len ? wh_night_run_json(wh_reduction_dir(j->r)) : NULL;
    s_tell_reduced(self, j, 1, code, text, NULL, reduced, rlen, summary);
    free(summary);
    if (code && code != WH_EXIT_UNVERIFIED) {
        self->failed++;
    } else {
        self->finished++;
        s_note_done(self, j->r ? wh_reduction_dir(j->r) : NULL, j->owner);
    }
    if (j->r) {
        uint64_t cand, cached;
        wh_reduction_counts(j->r, &cand, &cached);
        self->cand_done += cand;
        self->cached_done += cached;
    }
    for (s_job_t **pp = &self->jobs; *pp; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    }
    s_job_free(self, j);
}

/* A submit from a key that has max_client_jobs jobs queued or running is
 * refused (exit 4 at the client: try again when one ends), and nothing of
 * it is journaled. 1 refused (answered), 0 go on. Under --insecure the one
 * anonymous client ("") has them all. */
static int s_over_limit(s_self_t *self, const void *ident, size_t ilen, const char *key,
                        const wh_msg_t *m)
{
    int live = 0;
    for (const s_job_t *j = self->jobs; j; j = j->next)
        live += !strcmp(j->owner, key);
    if (live < self->max_client_jobs)
        return 0;
    self->refused++;
    const char *colon = strchr(key, ':');
    char *why = wh_strdup_printf("client key %s has %d jobs queued or running, the most this "
                                 "coordinator takes from one key (--max-client-jobs %d); this "
                                 "job was refused, not journaled: submit it again when one ends",
                                 *key ? (colon ? colon + 1 : key) : "(anonymous, --insecure)",
                                 live, self->max_client_jobs);
    s_answer(self, ident, ilen, m->cand_id, NULL, 4, why);
    free(why);
    return 1;
}

/* Tar snapshots beside the git ones, under the cache folder; without a
 * folder for them, --snapshot tar jobs are refused (said once). */
static void s_tars_open(s_self_t *self)
{
    char *base = wh_cache_default_dir(), *snaps = base ? wh_path_join(base, "snapshots") : NULL;
    char *terr = NULL;
    if (snaps && !(self->tars = wh_tarstore_new(snaps, 0, &terr))) {
        wh_warn("%s; --snapshot tar jobs are refused", terr);
        free(terr);
    }
    free(base);
    free(snaps);
}

/* A job may name only a tar its own key uploaded: the hash of another
 * tenant's project gives no access to it. */
static int s_tar_owned(s_self_t *self, const char *key, const wh_job_t *job, char **err)
{
    if (self->tars && wh_tarstore_owned(self->tars, key, job->tar_sha))
        return 0;
    const char *colon = strchr(key, ':');
    *err = wh_strdup_printf("tar snapshot %.12s was not uploaded to this coordinator by client "
                            "key %s; refused", job->tar_sha,
                            *key ? (colon ? colon + 1 : key) : "(anonymous)");
    return WH_EINVAL;
}

/* BLOB_PUT: a chunk of a client's tar snapshot; answered with the bytes
 * held, or a refusal. */
static void s_on_blob_put(s_self_t *self, const void *ident, size_t ilen, const char *key,
                          const wh_msg_t *m)
{
    wh_msg_t r = {0};
    r.type = WH_MSG_BLOB;
    r.blob_sha = m->blob_sha;
    r.blob_total = m->blob_total;
    char *err = NULL;
    r.code = !self->tars ? WH_EUNAVAIL
             : !m->blob_sha
                 ? WH_EINVAL
                 : wh_tarstore_put(self->tars, key, m->blob_sha, m->blob_total, m->blob_off,
                                   m->content, m->content_len, &r.blob_off, &err);
    if (r.code && !err)
        err = strdup(!self->tars ? "this coordinator keeps no tar snapshots (no state folder)"
                                 : "a tar chunk without its sha256");
    if (r.code)
        wh_warn("tar snapshot from client key %s refused: %s", *key ? key : "(anonymous)", err);
    r.detail = err;
    wh_pool_reply(self->pool, ident, ilen, &r);
    free(err);
}

/* BLOB_GET: a node fetches a chunk of a tar snapshot a job names. */
static void s_on_blob_get(s_self_t *self, const void *ident, size_t ilen, const wh_msg_t *m)
{
    static uint8_t buf[WH_WIRE_MAX_CHUNK];
    wh_msg_t r = {0};
    r.type = WH_MSG_BLOB;
    r.blob_sha = m->blob_sha;
    r.blob_off = m->blob_off;
    long n = self->tars && m->blob_sha
                 ? wh_tarstore_read(self->tars, m->blob_sha, m->blob_off, buf, sizeof buf,
                                    &r.blob_total)
                 : WH_ENOTFOUND;
    if (n < 0) {
        r.code = (int32_t)n;
        r.detail = "no such tar snapshot on this coordinator";
    } else {
        r.content = buf;
        r.content_len = (size_t)n;
    }
    wh_pool_reply(self->pool, ident, ilen, &r);
}

static void s_on_submit(s_self_t *self, const void *ident, size_t ilen, const char *key,
                        wh_msg_t *m)
{
    if (s_over_limit(self, ident, ilen, key, m))
        return;
    self->submitted++;
    json_error_t je;
    json_t *o = m->json ? json_loads(m->json, 0, &je) : NULL;
    char *err = NULL;
    wh_job_t job;
    wh_job_init(&job);
    if (!o)
        err = strdup("submitted job is not valid JSON");
    else if (wh_job_from_json(&job, o, &err) == 0 &&
             wh_job_place_runs(&job, self->runs, &err) == 0 &&
             wh_grants_check(self->grants, key, &job, &err) == 0 &&
             (!job.tar_sha || s_tar_owned(self, key, &job, &err) == 0) && !job.git_url &&
             !job.tar_sha && wh_job_validate(&job, &err) == 0)
        wh_job_guess_includes(&job); /* a snapshot: on the preparing thread */
    json_decref(o);
    if (err)
        wh_warn("submit from client key %s refused: %s", *key ? key : "(anonymous)", err);
    char id[WH_JOURNAL_ID_LEN + 1];
    wh_journal_new_id(id);
    s_job_t *j = NULL;
    if (!err) {
        /* journaled before the client hears of it: an accepted job survives */
        char *js = wh_job_to_json(&job);
        wh_journal_entry_t e = {.owner = (char *)key, .job = js};
        memcpy(e.id, id, sizeof e.id);
        if (self->journal)
            wh_journal_put(self->journal, &e);
        free(js);
        j = s_job_start(self, id, key, &job, 0);
        if (!j && self->journal)
            wh_journal_finish(self->journal, id, WH_JOURNAL_FAILED, 4, "cannot start job");
    }
    if (!j) {
        /* a bad job is bad input (2); one that cannot start, trouble here (4) */
        self->failed++;
        s_answer(self, ident, ilen, m->cand_id, err ? NULL : id, err ? 2 : 4,
                 err ? err : "cannot start job");
        free(err);
        wh_job_clear(&job);
        return;
    }
    memcpy(j->ident, ident, ilen);
    j->ident_len = ilen;
    j->client_tag = m->cand_id;
    char *text = wh_strdup_printf("job %s accepted%s; preparing", id,
                                  self->journal ? " (journaled)" : "");
    s_tell(self, j, 0, 0, text);
    free(text);
}

static s_job_t *s_find(s_self_t *self, const char *id)
{
    for (s_job_t *j = self->jobs; id && j; j = j->next)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

/* The job id of a WATCH or CANCEL, and whether key may act on it: 0 with
 * *job (live) or *rec (finished, from the journal), else the refusal sent. */
static int s_owned(s_self_t *self, const void *ident, size_t ilen, const char *key,
                   const wh_msg_t *m, s_job_t **job, const wh_journal_entry_t **rec)
{
    const char *id = m->job.job_id;
    *job = s_find(self, id);
    *rec = *job || !self->journal ? NULL : wh_journal_find(self->journal, id);
    const char *owner = *job ? (*job)->owner : *rec ? (*rec)->owner : NULL;
    char *why = NULL;
    if (!owner)
        why = wh_strdup_printf("no job %s on this coordinator (%s)", id ? id : "(none)",
                               self->journal ? "not in its journal" : "it runs with --journal off, "
                               "so jobs do not survive a restart");
    else if (strcmp(owner, key))
        why = wh_strdup_printf("job %s belongs to another client key; refused", id);
    if (!why)
        return 0;
    s_answer(self, ident, ilen, m->cand_id, id, owner ? 2 : 4, why);
    free(why);
    return -1;
}

static void s_on_watch(s_self_t *self, const void *ident, size_t ilen, const char *key,
                       wh_msg_t *m)
{
    s_job_t *j;
    const wh_journal_entry_t *rec;
    if (s_owned(self, ident, ilen, key, m, &j, &rec))
        return;
    if (rec) {
        /* it ended while its client was away */
        char *reduced = NULL, *dir = s_run_dir(rec->result);
        size_t rlen = 0;
        if (rec->code == 0 || rec->code == WH_EXIT_UNVERIFIED)
            s_run_reduced(rec->result, &reduced, &rlen);
        char *summary = dir ? wh_night_run_json(dir) : NULL;
        s_answer_reduced(self, ident, ilen, m->cand_id, rec->id, rec->code,
                         rec->result ? rec->result : wh_journal_state_name(rec->state), reduced,
                         rlen, summary);
        free(reduced);
        free(summary);
        free(dir);
        return;
    }
    memcpy(j->ident, ident, ilen);
    j->ident_len = ilen;
    j->client_tag = m->cand_id;
    char *text = wh_strdup_printf("reattached to job %s%s", j->id,
                                  j->resumed ? " (resumed after a coordinator restart)" : "");
    s_tell(self, j, 0, 0, text);
    free(text);
}

static void s_on_cancel(s_self_t *self, const void *ident, size_t ilen, const char *key,
                        wh_msg_t *m)
{
    s_job_t *j;
    const wh_journal_entry_t *rec;
    if (s_owned(self, ident, ilen, key, m, &j, &rec))
        return;
    char *text = wh_strdup_printf("job %s %s", rec ? rec->id : j->id,
                                  rec ? "had already ended" : "cancelled");
    s_answer(self, ident, ilen, m->cand_id, rec ? rec->id : j->id, 0, text);
    free(text);
    if (rec)
        return;
    if (!j->joined && wh_prepq_cancel(self->prepq, &j->prep)) {
        char *why = wh_strdup_printf("job %s cancelled by its owner before it was prepared", j->id);
        s_finish(self, j, WH_JOURNAL_CANCELLED, 130, why);
        free(why);
        return;
    }
    if (!j->joined) {
        j->cancelled = 1; /* an identification cannot be interrupted: ended when it is done */
        return;
    }
    wh_reduction_abort(j->r, "cancelled by its owner");
    char *why = wh_strdup_printf("job %s cancelled by its owner (record: %s)", j->id,
                                 j->r && wh_reduction_dir(j->r) ? wh_reduction_dir(j->r) : "-");
    s_finish(self, j, WH_JOURNAL_CANCELLED, 130, why);
    free(why);
}

/* Where a job not yet started stands: waiting on the preparation queue
 * (how many jobs are ahead of it) or being identified. */
static void s_waiting(s_self_t *self, s_job_t *j, wh_buf_t *b)
{
    int ahead = wh_prepq_ahead(self->prepq, &j->prep);
    if (ahead >= 0)
        wh_buf_printf(b, "waiting to be prepared: %d job%s ahead", ahead, ahead == 1 ? "" : "s");
    else
        wh_buf_puts(b, "preparing (parsing the test, hashing the project)");
}

/* STATUS_REQ: the pool, the counters, and the jobs of the client key
 * asking (others' only counted: their test names, progress and run
 * folders are theirs). */
static void s_on_status(s_self_t *self, const void *ident, size_t ilen, const char *key)
{
    wh_buf_t b = WH_BUF_INIT;
    wh_pool_describe(self->pool, &b);
    wh_buf_printf(&b, "cache: %s\njournal: %s\njobs submitted: %llu  finished: %llu  failed: %llu"
                  "  resumed: %llu  refused over --max-client-jobs %d: %llu\n",
                  wh_cache_describe(self->cache),
                  self->journal ? wh_journal_describe(self->journal) : "off",
                  (unsigned long long)self->submitted, (unsigned long long)self->finished,
                  (unsigned long long)self->failed, (unsigned long long)self->resumed,
                  self->max_client_jobs, (unsigned long long)self->refused);
    wh_prepq_stats_t ps;
    wh_prepq_stats(self->prepq, &ps);
    wh_buf_printf(&b, "preparation: %d thread%s, %d busy (at most %d at once), %d job%s waiting "
                  "to be prepared, %d front end%s waiting\n", ps.threads,
                  ps.threads == 1 ? "" : "s", ps.busy, ps.max_busy, ps.queued[0],
                  ps.queued[0] == 1 ? "" : "s", ps.queued[1], ps.queued[1] == 1 ? "" : "s");
    int shown = 0, others = 0;
    for (s_job_t *j = self->jobs; j; j = j->next) {
        if (!s_sees(key, j->owner)) {
            others++;
            continue;
        }
        shown++;
        wh_buf_printf(&b, "  job %s%s ", j->id, j->resumed ? " (resumed)" : "");
        if (!j->joined || !j->r) {
            wh_buf_printf(&b, "%s %s: ", j->job.test ? j->job.test : "?",
                          j->job.file ? j->job.file : "?");
            s_waiting(self, j, &b);
        } else {
            wh_progress_t st;
            wh_reduction_status_now(j->r, &st);
            wh_reduction_progress(j->r, &b);
            wh_buf_puts(&b, "\n    ");
            wh_progress_format(&st, &b);
        }
        wh_buf_puts(&b, "\n");
    }
    if (others)
        wh_buf_printf(&b, "  %s%d job%s of other clients\n", shown ? "and " : "", others,
                      others == 1 ? "" : "s");
    s_describe_groups(self, key, &b);
    wh_msg_t r = {0};
    r.type = WH_MSG_STATUS;
    r.detail = b.buf ? b.buf : "";
    wh_pool_reply(self->pool, ident, ilen, &r);
    wh_buf_free(&b);
}

static void s_on_other(void *ctx, const void *ident, size_t ilen, const char *key, wh_msg_t *m)
{
    s_self_t *self = ctx;
    if (m->type == WH_MSG_STATUS_REQ)
        s_on_status(self, ident, ilen, key);
    else if (m->type == WH_MSG_SUBMIT)
        s_on_submit(self, ident, ilen, key, m);
    else if (m->type == WH_MSG_WATCH)
        s_on_watch(self, ident, ilen, key, m);
    else if (m->type == WH_MSG_CANCEL)
        s_on_cancel(self, ident, ilen, key, m);
    else if (m->type == WH_MSG_BLOB_PUT)
        s_on_blob_put(self, ident, ilen, key, m);
    else if (m->type == WH_MSG_BLOB_GET)
        s_on_blob_get(self, ident, ilen, m);
}

/* A prepared job starts on the pool (on the poll thread); 0, or -1 when it
 * ended instead (and was freed). */
static int s_start(s_self_t *self, s_job_t *j)
{
    j->joined = 1;
    char *err = j->err;
    j->err = NULL;
    if (j->cancelled) {
        char *why = wh_strdup_printf("job %s cancelled by its owner", j->id);
        s_finish(self, j, WH_JOURNAL_CANCELLED, 130, why);
        free(why);
        free(err);
        return -1;
    }
    int status = j->err_status ? j->err_status : 4;
    if (j->r && wh_reduction_start(j->r, self->pool, self->cache, &err) != 0) {
        wh_reduction_destroy(&j->r);
        status = 4;
    }
    if (!j->r)
        wh_frontend_destroy(&j->fe);
    if (!j->r) {
        char *why = wh_strdup_printf("%s%s", j->resumed ? "cannot resume: " : "",
                                     err ? err : "cannot start job");
        s_finish(self, j, WH_JOURNAL_FAILED, status, why);
        free(why);
        free(err);
        return -1;
    }
    free(err);
    /* Its original is queued (or its fingerprint was cached): the front
     * end is set up behind the jobs still to be identified. */
    wh_info("job %s (identity %.12s) started: original queued, front end %s", j->id,
            wh_reduction_job_id(j->r), j->fe ? "queued" : "not needed");
    if (j->fe)
        wh_prepq_push(self->prepq, &j->fe_task, 1);
    if (self->journal)
        wh_journal_set_run(self->journal, j->id, wh_reduction_dir(j->r), j->resumed);
    char *text = wh_strdup_printf("%s; run folder %s", j->resumed ? "resumed" : "accepted",
                                  wh_reduction_dir(j->r));
    s_tell(self, j, 0, 0, text);
    free(text);
    j->last_progress = 0; /* the first status line goes out at once */
    return 0;
}
/* The diff goes to the client with the final text, whose field is capped
 * (WH_WIRE_MAX_STRING): a longer one is only named. */
#define S_DIFF_MAX (48u << 10)
static const char *s_diff_head(const wh_reduction_t *r)
{
    size_t n = strlen(wh_reduction_diff(r));
    return !n ? "" : n > S_DIFF_MAX ? "Diff: too long for this message; see reduced.diff in the "
                                      "run folder\n"
                                    : "Diff (reduced.diff):\n";
}

static const char *s_diff_body(const wh_reduction_t *r)
{
    const char *d = wh_reduction_diff(r);
    return strlen(d) > S_DIFF_MAX ? "" : d;
}

/* How often a running job's client gets its status line. */
#define S_PROGRESS_MS 1000

/* A running job: its status line every S_PROGRESS_MS to its client, the
 * result at the end. 0, or -1 when it ended (and was freed). */
static int s_run(s_self_t *self, s_job_t *j, uint64_t now)
{
    if (j->fe && wh_prepq_state(self->prepq, &j->fe_task) == WH_PREPQ_DONE)
        wh_reduction_frontend_done(j->r, &j->fe);
    wh_reduction_poll(j->r);
    if (!wh_reduction_done(j->r)) {
        if (now - j->last_progress >= S_PROGRESS_MS) {
            wh_buf_t b = WH_BUF_INIT, line = WH_BUF_INIT;
            wh_reduction_progress(j->r, &b);
            int ahead = j->fe ? wh_prepq_ahead(self->prepq, &j->fe_task) : -1;
            if (j->fe && ahead >= 0)
                wh_buf_printf(&b, "; front end (precheck, UB guard) waiting to be set up: %d "
                              "job%s ahead", ahead, ahead == 1 ? "" : "s");
            else if (j->fe)
                wh_buf_puts(&b, "; front end (precheck, UB guard) being set up");
            wh_progress_t st;
            wh_reduction_status_now(j->r, &st);
            wh_progress_format(&st, &line);
            s_tell_status(self, j, b.buf, line.buf);
            wh_buf_free(&b);
            wh_buf_free(&line);
            j->last_progress = now;
        }
        return 0;
    }
    const char *msg = NULL;
    wh_reduction_t *r = j->r;
    int st = wh_reduction_status(r, &msg);
    /* Not verified (WH_EXIT_UNVERIFIED) and partial (WH_EXIT_PARTIAL) are
     * answers: said in full. */
    int answer = wh_reduction_answered(r) || st == WH_EXIT_UNVERIFIED;
    char *text = !answer ? wh_strdup_printf("%s (record: %s)", msg ? msg : "failed",
                                       wh_reduction_dir(r) ? wh_reduction_dir(r) : "-")
                    : wh_strdup_printf("Run folder: %s\n%sReduced test:\n%s%s%s"
                                       "Report: %s/report.html\n",
                                       wh_reduction_dir(r), wh_reduction_closing(r),
                                       wh_reduction_result_text(r) ? wh_reduction_result_text(r) : "",
                                       s_diff_head(r), s_diff_body(r), wh_reduction_dir(r));
    s_finish(self, j, answer ? WH_JOURNAL_DONE : WH_JOURNAL_FAILED, st, text);
    free(text);
    return -1;
}

/* One turn over the jobs: start the identified ones, run the started ones.
 * A job still waiting for its identification tells its client where it
 * stands every 2 s (the client takes a long silence for a lost
 * coordinator). */
static void s_tend(s_self_t *self)
{
    uint64_t now = wh_now_ms();
    if (self->tars)
        wh_tarstore_tick(self->tars); /* idle uploads dropped */
    s_reap(self);
    for (s_job_t *j = self->jobs, *nx; j; j = nx) {
        nx = j->next;
        if (!j->joined && wh_prepq_state(self->prepq, &j->prep) == WH_PREPQ_DONE &&
            s_start(self, j) != 0)
            continue;
        if (j->joined) {
            s_run(self, j, now);
        } else if (now - j->last_progress >= 2000) {
            wh_buf_t b = WH_BUF_INIT;
            s_waiting(self, j, &b);
            s_tell(self, j, 0, 0, b.buf ? b.buf : "preparing");
            wh_buf_free(&b);
            j->last_progress = now;
        }
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
    for (s_job_t *j = self->jobs; j; j = j->next) {
        if (!j->joined) {
            m.jobs_preparing++;
            continue;
        }
        uint64_t cand, cached;
        wh_reduction_counts(j->r, &cand, &cached);
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

/* After a restart: every job the journal holds as running is prepared
 * again under its id; the verdict cache answers what was judged before. */
static void s_resume(s_self_t *self)
{
    s_tars_open(self); /* a resumed job's tar is there */
    int n = self->journal ? wh_journal_count(self->journal) : 0;
    for (int i = 0; i < n; i++) {
        const wh_journal_entry_t *e = wh_journal_at(self->journal, i);
        if (e->state != WH_JOURNAL_RUNNING || s_find(self, e->id))
            continue;
        char id[WH_JOURNAL_ID_LEN + 1], *owner = strdup(e->owner), *err = NULL;
        memcpy(id, e->id, sizeof id);
        int resumed = e->resumed + 1;
        json_error_t je;
        json_t *o = json_loads(e->job, 0, &je);
        wh_job_t job;
        wh_job_init(&job);
        /* The grants are checked again: they may have changed since. */
        if (!o || wh_job_from_json(&job, o, &err) ||
            wh_grants_check(self->grants, owner ? owner : "", &job, &err) ||
            (!job.git_url && wh_job_validate(&job, &err))) {
            fprintf(stderr, "whittle-coordinator: cannot resume job %s: %s\n", id,
                    err ? err : "its JSON does not parse");
            char *why = wh_strdup_printf("cannot resume: %s", err ? err : "bad job JSON");
            wh_journal_finish(self->journal, id, WH_JOURNAL_FAILED, 2, why);
            free(why);
        } else {
            if (!job.git_url)
                wh_job_guess_includes(&job);
            fprintf(stderr, "whittle-coordinator: resuming job %s (%s in %s) after a restart\n", id,
                    job.test, job.file);
            self->resumed++;
            if (!s_job_start(self, id, owner ? owner : "", &job, resumed))
                wh_journal_finish(self->journal, id, WH_JOURNAL_FAILED, 1, "cannot resume job");
        }
        json_decref(o);
        wh_job_clear(&job);
        free(owner);
        free(err);
        n = wh_journal_count(self->journal);
    }
}

/* SIGTERM/SIGINT: the preparations running finish (they cannot be
 * interrupted; the queued ones are dropped), then every job stops. A journaled job stays "running" in the journal and
 * resumes when a coordinator starts on it again; its client is told so
 * (and reattaches); without a journal the job is lost and its client is
 * told that. */
static void s_shutdown(s_self_t *self)
{
    wh_prepq_destroy(&self->prepq);
    while (self->jobs) {
        s_job_t *j = self->jobs;
        self->jobs = j->next;
        if (j->r && j->joined)
            wh_reduction_abort(j->r, "coordinator stopped");
        if (self->journal) {
            char *text = wh_strdup_printf("coordinator stopping; job %s is journaled and resumes "
                                          "when it restarts", j->id);
            s_tell(self, j, 0, 0, text);
            free(text);
        } else {
            char *text = wh_strdup_printf("coordinator stopped; job %s is lost (it runs with "
                                          "--journal off)", j->id);
            s_tell(self, j, 1, 4, text);
            free(text);
        }
        s_job_free_now(j);
    }
    s_reap(self);
    wh_tarstore_destroy(&self->tars); /* the jobs are gone: nothing pins a tar */
}

/* --journal: "off", a file or a redis:// URL; by default beside the cache
 * (journal.h). A Redis that does not answer at start falls back to the
 * file beside the embedded cache. NULL with *err set on failure; NULL
 * without *err for off. */
static wh_journal_t *s_journal_open(const char *opt, const char *cache_spec, char **err)
{
    if (opt && !strcmp(opt, "off"))
        return NULL;
    char *where = opt ? strdup(opt) : wh_journal_default_where(cache_spec);
    if (!where) {
        *err = strdup("no folder for the journal ($HOME unset): give --journal PATH or off");
        return NULL;
    }
    wh_journal_t *j = wh_journal_open(where, err);
    if (!j && !opt && !strncmp(where, "redis://", 8)) {
        fprintf(stderr, "whittle-coordinator: warning: %s; journaling in a file instead\n", *err);
        free(*err);
        *err = NULL;
        free(where);
        where = wh_journal_default_where(NULL);
        j = where ? wh_journal_open(where, err) : NULL;
        if (!where)
            *err = strdup("no folder for the journal ($HOME unset): give --journal PATH or off");
    }
    free(where);
    return j;
}

/* --grant v (added to self->grants), or with v NULL the check after every
 * option: grants name client keys, so they need --clients. 0, or 2 after
 * one error line (grants freed). */
static int s_grant_opt(s_self_t *self, const char *v, const char *clients)
{
    char *err = NULL;
    if (!v && self->grants && !clients)
        err = strdup("--grant names client keys: it needs --clients DIR (under --insecure "
                     "every client may name any path)");
    else if (v && !self->grants && !(self->grants = wh_grants_new()))
        err = strdup("out of memory");
    else if (v && wh_grants_add(self->grants, v, &err) && !err)
        err = strdup("out of memory");
    if (!err)
        return 0;
    fprintf(stderr, "whittle-coordinator: error: %s\n", err);
    free(err);
    wh_grants_destroy(&self->grants);
    return 2;
}

/* A number option's value v in min..max into *n: 0, or 2 after one error
 * line naming what it counts. */
static int s_number_opt(const char *v, const char *opt, const char *what, long min, long max,
                        long *n)
{
    if (!wh_parse_long(v, min, max, n))
        return 0;
    fprintf(stderr, "whittle-coordinator: error: --%s wants %s in %ld..%ld, not '%s'\n", opt,
            what, min, max, v);
    return 2;
}

/* The preparation threads by default: the cores, 1..64. */
static long s_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

int main(int argc, char **argv)
{
    const char *bind = "tcp://0.0.0.0:7700", *cache_spec = NULL, *journal = NULL;
    uint64_t cache_max = 0;
    const char *secret = NULL, *nodes = NULL, *clients = NULL, *metrics = NULL;
    const char *runs = "whittle-runs";
    int insecure = 0;
    long hb = 1000;
    long max_client_jobs = S_MAX_CLIENT_JOBS;
    long prep_threads = s_cores();
    s_self_t self = {0};
    char *err = NULL;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle-coordinator", NULL, argc - 1, argv + 1);
    while ((rc = wh_cli_next(&c)) > 0) {
        const char *v = c.arg;
        if (wh_cli_is(&c, "bind"))
            bind = v;
        else if (wh_cli_is(&c, "cache"))
            cache_spec = v;
        else if (wh_cli_is(&c, "cache-secret-file"))
            wh_mac_set_secret_file(v);
        else if (wh_cli_is(&c, "cache-max")) {
            if (wh_cache_parse_size(v, &cache_max) || !cache_max) {
                fprintf(stderr, "whittle-coordinator: error: --cache-max wants a size like 64M "
                                "(K, M, G), not '%s'\n", v);
                return 2;
            }
        }
        else if (wh_cli_is(&c, "journal"))
            journal = v;
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
        else if (wh_cli_is(&c, "grant") && s_grant_opt(&self, v, NULL))
            return 2;
        else if (wh_cli_is(&c, "max-client-jobs") &&
                 s_number_opt(v, "max-client-jobs", "a number of jobs", 1, 100000, &max_client_jobs))
            return 2;
        else if (wh_cli_is(&c, "prepare-threads") &&
                 s_number_opt(v, "prepare-threads", "a number of threads", 1, 64, &prep_threads))
            return 2;
        else if (wh_cli_is(&c, "verbose"))
            wh_log_set_level(WH_LOG_INFO);
        else if (wh_cli_is(&c, "heartbeat") &&
                 s_number_opt(v, "heartbeat", "milliseconds", 10, 600000, &hb))
            return 2;
    }
    if (rc < 0 || s_grant_opt(&self, NULL, clients)) {
        wh_grants_destroy(&self.grants);
        return rc < 0 ? c.exit : 2;
    }
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
    self.wake_fd = -1;
    self.max_client_jobs = (int)max_client_jobs;
    if (!*runs || !(self.runs = wh_abspath(runs))) {
        fprintf(stderr, "whittle-coordinator: error: --runs wants a folder, not '%s'\n", runs);
        return 2;
    }
    int code = 2;
    void *zctx = zmq_ctx_new();
    wh_auth_t *auth = NULL;
    if (secret && !(auth = wh_auth_server_new(zctx, secret, nodes, clients, &err)))
        goto out;
    /* First the cheap checks of the command line (a bad --metrics address
     * is named as such), and probes answer "starting" while the cache and
     * the journal open. */
    if (metrics && !(self.metrics = wh_metrics_start(metrics, &err)))
        goto out;
    if (self.metrics)
        fprintf(stderr, "whittle-coordinator: metrics on http://%s/metrics (/healthz, /readyz)\n",
                wh_metrics_addr(self.metrics));
    if (!(self.cache = wh_cache_open(cache_spec, &err)))
        goto out;
    if (cache_max)
        wh_cache_set_max(self.cache, cache_max);
    self.journal = s_journal_open(journal, cache_spec, &err);
    if (err)
        goto out;
    if (!(self.pool = wh_pool_new_auth(zctx, bind, (unsigned)hb, auth, &err)))
        goto out;
    if (auth)
        fprintf(stderr, "whittle-coordinator: CURVE on; %d node key(s), %d client key(s) allowed\n",
                wh_auth_count(auth, WH_ROLE_NODE), wh_auth_count(auth, WH_ROLE_CLIENT));
    wh_pool_on_other(self.pool, s_on_other, &self);
    self.wake_fd = wh_pool_wake_open(self.pool); /* s_tend starts what is prepared */
    if (!(self.prepq = wh_prepq_new((int)prep_threads, self.wake_fd, &err)))
        goto out;
    self.t0 = wh_now_ms();
    fprintf(stderr, "whittle-coordinator: listening on %s, cache %s, journal %s, run folders "
            "under %s, %ld preparation thread%s\n", wh_pool_endpoint(self.pool),
            wh_cache_describe(self.cache), self.journal ? wh_journal_describe(self.journal) : "off",
            self.runs, prep_threads, prep_threads == 1 ? "" : "s");
    s_resume(&self);
    while (!s_stop) {
        wh_pool_poll(self.pool, 100);
        s_tend(&self);
        s_publish_metrics(&self, 0);
    }
    s_publish_metrics(&self, 1);
    s_shutdown(&self);
    code = 0;
out:
    wh_prepq_destroy(&self.prepq);
    s_reap(&self);
    wh_pool_wake_close(self.pool, self.wake_fd); /* every preparation thread is joined */
    if (err)
        fprintf(stderr, "whittle-coordinator: error: %s\n", err);
    free(err);
    wh_metrics_stop(&self.metrics);
    for (size_t i = 0; i < self.n_done; i++) {
        free(self.done_dirs[i]);
        free(self.done_owners[i]);
    }
    free(self.done_dirs);
    free(self.done_owners);
    wh_grants_destroy(&self.grants);
    wh_pool_destroy(&self.pool);
    wh_journal_close(&self.journal);
    wh_cache_close(&self.cache);
    wh_auth_destroy(&auth);
    zmq_ctx_term(zctx);
    free(self.runs);
    return code;
}
