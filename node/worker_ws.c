/*
 * worker_ws — the slot's workspaces (worker_int.h): the warm-workspace key,
 * disk use and least-recently-used eviction, preparing a slot's workspace
 * (the node's first setup of a key, or a clone of it: warmup.h), the user
 * a key's commands run as (--job-uids), and WARM.
 */
#define _GNU_SOURCE
#include "worker_int.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "scratch.h"
#include "wh_common.h"

/* The warm-workspace key: the project snapshot, the setup command, the
 * test file and the client key that owns the job. Different tests of one
 * file share it; candidates rewrite the test file each time, so sharing is
 * safe; two owners never share one (each key its own uid: wk_key_runas). */
void wk_ws_key(const wh_job_spec_t *j, const char *project, char out[65])
{
    wh_sha256_t *h = wh_sha256_new();
    /* The snapshot id names the buggy project's content; a reference
     * workspace is keyed by its path alone. */
    wh_sha256_field_str(h, project == j->project && j->snapshot_id ? j->snapshot_id : "");
    /* A tar snapshot is its hash wherever it is unpacked (the key names
     * the folder it is unpacked into: worker_tar.c). */
    if (project == j->project && j->tar_sha)
        wh_sha256_field_str(h, "tar");
    else
        wh_sha256_field_str(h, project);
    wh_sha256_field_str(h, j->setup_cmd);
    wh_sha256_field_str(h, j->test_file);
    if (j->tenant && *j->tenant) /* none: the key of before (kept workspaces stay warm) */
        wh_sha256_field_str(h, j->tenant);
    wh_sha256_final_hex(&h, out);
}

/* Disk use of a tree in bytes (allocated blocks, like du), without
 * following symlinks. nftw has no user pointer, hence the thread-local sum. */
static _Thread_local uint64_t s_du_sum;

static int s_du_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path, (void)flag, (void)ftw;
    s_du_sum += (uint64_t)st->st_blocks * 512u;
    return 0;
}

static uint64_t s_du(const char *path)
{
    s_du_sum = 0;
    nftw(path, s_du_add, 32, FTW_PHYS);
    return s_du_sum;
}

/* Removes a workspace and its side files (console log, report, setup log,
 * sanitizer logs). */
void wk_remove_workspace(const char *root)
{
    wh_rm_rf(root);
    wh_scratch_remove(root);
    static const char *const side[] = {".console.log", ".report", ".setup.log", ".san", NULL};
    for (int k = 0; side[k]; k++) {
        char *f = wh_strdup_printf("%s%s", root, side[k]);
        if (f)
            unlink(f);
        free(f);
    }
}

/* 1 when path is the set-up copy ("<key>/golden") of slot folder keep's
 * key: the workspace about to be prepared may need it. */
static int s_keeps_golden(const char *path, const char *keep)
{
    const char *ks = keep ? strrchr(keep, '/') : NULL;
    size_t kl = ks ? (size_t)(ks - keep) : 0;
    return ks && strncmp(path, keep, kl) == 0 && strcmp(path + kl, "/golden") == 0;
}

/* The idle workspace (ws/<key>/slot-K or ws/<key>/golden with a ready
 * mark, not busy, not `keep` or its key's golden, not `skip`) whose ready
 * mark is oldest, or NULL. */
static char *s_lru_workspace(const char *ws, const char *keep, const char *skip)
{
    char *victim = NULL;
    struct timespec oldest = {0, 0};
    DIR *d = opendir(ws);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *kdir = wh_path_join(ws, e->d_name);
        DIR *k = kdir ? opendir(kdir) : NULL;
        struct dirent *f;
        while (k && (f = readdir(k))) {
            /* slots, and the node's set-up copies they are cloned from */
            if ((strncmp(f->d_name, "slot-", 5) != 0 && strcmp(f->d_name, "golden") != 0) ||
                strchr(f->d_name, '.'))
                continue;
            char *slot = wh_path_join(kdir, f->d_name);
            char *mark = slot ? wh_path_join(slot, WK_READY_MARK) : NULL;
            char *busy = slot ? wh_path_join(slot, ".whittle-busy") : NULL;
            struct stat st;
            if (slot && mark && busy && stat(mark, &st) == 0 && !wh_is_file(busy) &&
                !(keep && strcmp(slot, keep) == 0) && !s_keeps_golden(slot, keep) &&
                !(skip && strcmp(slot, skip) == 0) &&
                (!victim || st.st_mtim.tv_sec < oldest.tv_sec ||
                 (st.st_mtim.tv_sec == oldest.tv_sec && st.st_mtim.tv_nsec < oldest.tv_nsec))) {
                free(victim);
                victim = slot;
                slot = NULL;
                oldest = st.st_mtim;
            }
            free(slot);
            free(mark);
            free(busy);
        }
        if (k)
            closedir(k);
        free(kdir);
    }
    if (d)
        closedir(d);
    return victim;
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
    char *skip = NULL;
    for (int guard = 0; ws && guard < 1024; guard++) {
        if (s_du(ws) <= n->max_disk)
            break;
        char *victim = s_lru_workspace(ws, keep, skip);
        if (!victim)
            break;
        const char *base = strrchr(victim, '/');
        if (base && strcmp(base, "/golden") == 0) {
            /* A set-up copy being cloned stays; the next oldest goes. */
            if (wh_warmup_retire(n->warm, victim) == -EBUSY) {
                free(skip);
                skip = victim;
                continue;
            }
            wh_info("evicted the node's set-up copy %s (disk over %llu bytes)", victim,
                    (unsigned long long)n->max_disk);
            free(victim);
            continue;
        }
        wh_info("evicting workspace %s (disk over %llu bytes)", victim,
                (unsigned long long)n->max_disk);
        wk_remove_workspace(victim);
        free(victim);
    }
    free(skip);
    free(ws);
    pthread_mutex_unlock(&n->disk_mu);
}

/* warmup.h's on_setup: a setup's outcome may be an infrastructure fault. */
static void s_on_setup(void *arg, const wh_run_result_t *r, const char *log)
{
    wk_setup_taint(arg, r, log);
}

/* Tells the coordinator that a workspace of job j was prepared (or could
 * not be): it counts setups and clones, and a warm slot gets candidates.
 * final = the answer to a WARM. */
void wk_send_warmed(wk_slot_t *s, const char *job_id, int on_reference, int code,
                          const wh_warm_stats_t *st, const char *detail, int final)
{
    wh_msg_t m = {0};
    m.type = WH_MSG_WARMED;
    m.job.job_id = (char *)job_id;
    m.on_reference = on_reference;
    m.code = code;
    m.detail = (char *)detail;
    m.final = final;
    if (st) {
        m.warm_ms = (uint32_t)(st->setup_ms + st->clone_ms);
        m.clone_ms = (uint32_t)st->clone_ms;
        m.cloned = st->cloned;
        m.setups = (uint32_t)st->setups;
    }
    wk_send(s, &m);
}

/* 1 when the ready mark at path was written in this node's workspace mode. */
int wk_mark_ok(const wh_node_t *n, const char *path)
{
    char *txt = NULL;
    size_t len = 0;
    int ok = wh_read_file(path, 256, &txt, &len) == 0 &&
             strcmp(txt, wh_warmup_mark(n->warm)) == 0;
    free(txt);
    return ok;
}

/* The folder of the slot's workspace of project (malloc'ed). */
char *wk_ws_dir(const wk_slot_t *s, const wh_job_spec_t *j, const char *project, int fresh)
{
    char key[65];
    wk_ws_key(j, project, key);
    return wh_strdup_printf("%s/ws/%s/%s-%d", s->node->workdir, key, fresh ? "fresh" : "slot",
                            s->index);
}

/* The tick of a setup on a helper thread: it must not touch the slot's
 * socket (one thread per ZeroMQ socket), so it only watches for shutdown. */
static int s_tick_bg(void *arg)
{
    const wk_slot_t *s = arg;
    return atomic_load(&s->node->stop);
}

/* The user a workspace key's commands run as: the node's (n->runas), or
 * with --job-uids one of its own, the first uid of lo..hi from the key's
 * hash on that no other key of this node holds and no account has. NULL
 * with *detail when it cannot be made. */
const wh_runas_t *wk_key_runas(wh_node_t *n, const char *key, char **detail)
{
    if (!n->uid_hi)
        return n->runas;
    const wh_runas_t *found = NULL;
    pthread_mutex_lock(&n->uid_mu);
    for (int i = 0; i < n->nkeyusers && !found; i++)
        if (strcmp(n->keyusers[i].key, key) == 0)
            found = n->keyusers[i].runas;
    unsigned span = n->uid_hi - n->uid_lo + 1, start = 0;
    for (int i = 0; i < 8; i++)
        start = start * 16 + (unsigned)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
    for (unsigned k = 0; !found && k < span; k++) {
        unsigned uid = n->uid_lo + (start + k) % span;
        struct passwd pw, *pr = NULL;
        char pbuf[1024];
        int taken = getpwuid_r(uid, &pw, pbuf, sizeof pbuf, &pr) == 0 && pr;
        for (int i = 0; i < n->nkeyusers && !taken; i++)
            taken = wh_runas_uid(n->keyusers[i].runas) == uid;
        if (taken)
            continue;
        struct wk_keyuser *nk = realloc(n->keyusers, (size_t)(n->nkeyusers + 1) * sizeof *nk);
        char *err = NULL;
        wh_runas_t *ru = nk ? wh_runas_for_uid(n->runas, uid, n->workdir, &err) : NULL;
        if (nk)
            n->keyusers = nk;
        if (!ru) {
            *detail = err ? err : strdup("out of memory");
            break;
        }
        snprintf(n->keyusers[n->nkeyusers].key, 65, "%s", key);
        n->keyusers[n->nkeyusers++].runas = ru;
        found = ru;
    }
    if (!found && !*detail)
        *detail = wh_strdup_printf("--job-uids: every uid of %u-%u is taken", n->uid_lo,
                                   n->uid_hi);
    pthread_mutex_unlock(&n->uid_mu);
    return found;
}

/* Makes sure the slot's workspace for job j exists and is set up (the
 * node's first setup of the key, or a clone of it: warmup.h). Returns 0,
 * or a negative code with *detail set (WH_ESETUP when setup failed).
 * bg: called on a helper thread (s_refwarm): no message is sent (the slot
 * thread sends it from *bg after the join) and the slot's taint note is
 * left alone. fresh: a new workspace
 * (ws/<key>/fresh-K, prepared anew whatever is there, never marked ready,
 * evicting nobody) that the caller removes after use (wk_remove_workspace). */
int wk_ensure_workspace(wk_slot_t *s, const wh_job_spec_t *j, const char *project,
                              int fresh, wh_warm_stats_t *bg, char **root, char **detail)
{
    wh_node_t *n = s->node;
    char key[65];
    wk_ws_key(j, project, key);
    char *parent = wh_strdup_printf("%s/ws/%s", n->workdir, key);
    char *dir = wk_ws_dir(s, j, project, fresh);
    char *mark = dir ? wh_path_join(dir, WK_READY_MARK) : NULL;
    const char **excl = calloc((size_t)j->n_exclude + 1, sizeof *excl);
    int rc = 0;
    if (!parent || !dir || !mark || !excl) {
        rc = WH_ENOMEM;
        goto out;
    }
    if (!fresh && wk_mark_ok(n, mark)) {
        utime(mark, NULL);
        goto out;
    }
    /* A fresh workspace lives for one verify run: it evicts nobody. */
    if (!fresh)
        s_evict(n, dir);
    wh_rm_rf(dir);
    /* The key folder is the user's too: the report and the sanitizer logs
     * of a run are written beside its workspace; with a user per key, it
     * is that user's alone. */
    const wh_runas_t *ru = wk_key_runas(n, key, detail);
    if (!ru && n->uid_hi) {
        rc = WH_ESETUP;
        goto out;
    }
    if ((rc = wh_mkdir_p(parent)) != 0 || (rc = wh_runas_grant(ru, parent, 0)) != 0 ||
        (n->uid_hi && chmod(parent, 0700) < 0 && (rc = -errno) != 0)) {
        *detail = wh_strdup_printf("cannot create workspace under %s: %s", n->workdir,
                                   wh_strerror(rc));
        goto out;
    }
    /* The wire gives a counted list; the copy wants it NULL-terminated. */
    for (int i = 0; i < j->n_exclude; i++)
        excl[i] = j->exclude[i];
    wh_warm_req_t q = {dir,    project, excl,       j->setup_cmd, j->setup_timeout_ms,
                       bg ? s_tick_bg : wk_tick, s, j->test_file, bg ? NULL : s_on_setup,
                       ru};
    wh_warm_stats_t st;
    memset(&st, 0, sizeof st);
    rc = wh_warmup_prepare(n->warm, &q, &st, detail);
    if (rc == 0 && atomic_load(&n->stop))
        rc = WH_ECANCEL;
    if (rc == 0 && !fresh)
        rc = wh_write_file(mark, wh_warmup_mark(n->warm), strlen(wh_warmup_mark(n->warm)));
    if (bg)
        *bg = st;
    else if (rc != WH_ECANCEL && !fresh)
        wk_send_warmed(s, j->job_id, project != j->project, rc, &st, *detail, 0);
    if (rc == 0 && !fresh)
        s_evict(n, dir); /* the new workspace counts too */
    else if (rc != 0)
        wh_rm_rf(dir);
out:
    if (!rc) {
        *root = dir;
        dir = NULL;
    }
    free(excl);
    free(parent);
    free(dir);
    free(mark);
    return rc;
}

/* WARM: prepares the job's workspace, and the reference's when the job has
 * one, before any candidate comes, then answers one final WARMED (the
 * project's outcome). On a node that clones, odd slots start with the
 * reference so both setups run at once; without clones the reference is
 * prepared eagerly only where every candidate needs it (--keep-fault) or on
 * slot 0. */
void wk_warm(wk_slot_t *s, const wh_msg_t *m)
{
    const wh_job_spec_t *j = &m->job;
    wh_node_t *n = s->node;
    if (!j->job_id || !j->project || !j->test_file) {
        wk_send_warmed(s, j->job_id, 0, WH_EPROTO, NULL, "incomplete job spec", 1);
        return;
    }
    wk_set_current(s, j->job_id, 0);
    s->cancel = 0;
    int stable = wh_warmup_stable(n->warm);
    int want_ref = j->reference && (stable || j->keep_fault || s->index == 0);
    int ref_first = want_ref && stable && (s->index % 2) == 1;
    char *root = NULL, *detail = NULL, *rdetail = NULL;
    int rrc = 0;
    if (ref_first) {
        rrc = wk_ensure_workspace(s, j, j->reference, 0, NULL, &root, &rdetail);
        free(root);
        root = NULL;
    }
    int rc = rrc == WH_ECANCEL ? WH_ECANCEL : wk_ensure_workspace(s, j, j->project, 0, NULL, &root, &detail);
    free(root);
    root = NULL;
    if (want_ref && !ref_first && rc == 0) {
        rrc = wk_ensure_workspace(s, j, j->reference, 0, NULL, &root, &rdetail);
        free(root);
    }
    if (!atomic_load(&n->stop))
        wk_send_warmed(s, j->job_id, 0, rc, NULL, detail, 1);
    wk_set_current(s, NULL, 0);
    free(detail);
    free(rdetail);
}
