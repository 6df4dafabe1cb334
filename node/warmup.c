/*
 * warmup — one setup per node per workspace key. See warmup.h.
 */
#define _GNU_SOURCE
#include "warmup.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scratch.h"
#include "wh_common.h"
#include "workspace.h"
#include "wsflags.h"

#define S_MAX_SETUP_MS (3600u * 1000u)
#define S_GOLDEN "golden"
#define S_AT "at"
#define S_MARK ".whittle-ready"

/* One key's set-up copy: who is setting it up, who clones it. */
typedef struct s_key {
    char *key_dir;
    int setting;            /* a slot runs its setup now */
    int cloners;            /* slots copying it now */
    unsigned gen;           /* setups finished */
    int last_rc;            /* outcome of the last setup */
    char *last_detail;
    struct s_key *next;
} s_key_t;

struct wh_warmup {
    int stable;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    s_key_t *keys;
    unsigned trash;         /* names for retired copies */
};

/* ---- the mount-namespace probe ---- */

/* 1 when a command can see a bind mount of its cwd at another path. */
static int s_probe(const char *workdir)
{
    char *dir = wh_strdup_printf("%s/.probe-%d", workdir, (int)getpid());
    char *a = dir ? wh_path_join(dir, "a") : NULL;
    char *b = dir ? wh_path_join(dir, "b") : NULL;
    char *f = a ? wh_path_join(a, "seen") : NULL;
    int ok = 0;
    if (f && wh_mkdir_p(a) == 0 && wh_mkdir_p(b) == 0 && wh_write_file(f, "", 0) == 0) {
        wh_run_opts_t o = {0};
        o.cmd = "test -e seen";
        o.cwd = a;
        o.mount_at = b;
        o.timeout_ms = 10000;
        wh_run_result_t r = {0};
        char *leak = wh_path_join(b, "seen");
        /* ... and the mount stayed in the child's namespace. */
        ok = leak && wh_run(&o, &r) == 0 && !r.timed_out && !r.signaled && r.exit_code == 0 &&
             !wh_is_file(leak);
        free(leak);
    }
    if (dir)
        wh_rm_rf(dir);
    free(dir);
    free(a);
    free(b);
    free(f);
    return ok;
}

wh_warmup_t *wh_warmup_new(const char *workdir)
{
    wh_warmup_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    const char *no = getenv("WHITTLE_NO_MOUNTNS");
    /* Even one slot clones: the end-of-run verification judges in a fresh
     * workspace of its own (DESIGN.md "Trust"), which is then a clone of
     * the set-up copy (0.1 s) instead of a second setup (minutes). */
    w->stable = !(no && *no && strcmp(no, "0")) && s_probe(workdir);
    wh_info("workspaces: %s", w->stable ? "one setup per node, cloned, seen at a stable path"
                                        : "set up in place by every slot");
    return w;
}

void wh_warmup_destroy(wh_warmup_t **wp)
{
    wh_warmup_t *w = *wp;
    if (!w)
        return;
    for (s_key_t *k = w->keys, *nx; k; k = nx) {
        nx = k->next;
        free(k->key_dir);
        free(k->last_detail);
        free(k);
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
    *wp = NULL;
}

int wh_warmup_stable(const wh_warmup_t *w)
{
    return w->stable;
}

const char *wh_warmup_mark(const wh_warmup_t *w)
{
    return w->stable ? "ready at a stable path\n" : "ready\n";
}

/* The parent folder of a slot folder (malloc'ed). */
static char *s_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash != path ? strndup(path, (size_t)(slash - path)) : strdup("/");
}

char *wh_warmup_mount_at(const wh_warmup_t *w, const char *slot_dir)
{
    if (!w->stable)
        return NULL;
    char *key = s_parent(slot_dir);
    char *at = key ? wh_path_join(key, S_AT) : NULL;
    free(key);
    return at;
}

/* ---- copy and setup ---- */

/* 1 when a database under dir already has the test file's compile command
 * as the setup saw it (at mount_at): no re-configure is needed then. */
static int s_has_compile(const char *dir, const char *mount_at, const char *test_file)
{
    if (!mount_at)
        return 0; /* wh_wsflags_after_setup looks for itself */
    char *f = wh_path_join(mount_at, test_file);
    wh_compile_cmd_t c = {0};
    int found = f && wh_compdb_find(dir, f, &c, NULL) == 0;
    wh_compile_cmd_clear(&c);
    free(f);
    return found;
}

/* text[start, end) as one printable line (at most 160 bytes, a trailing
 * "..." when cut), malloc'ed, or NULL. */
static char *s_clean_line(const char *text, size_t start, size_t end)
{
    if (end <= start)
        return NULL;
    size_t n = end - start > 160 ? 160 : end - start;
    char *line = malloc(n + 4);
    for (size_t i = 0; line && i < n; i++) {
        unsigned char ch = (unsigned char)text[start + i];
        line[i] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
    }
    if (line)
        strcpy(line + n, end - start > 160 ? "..." : "");
    return line;
}

/* The last non-empty line of a log, or NULL: what a failed setup said,
 * so its one-line error says more than a path. */
static char *s_last_line(const char *log)
{
    char *text = NULL;
    size_t len = 0;
    if (wh_read_file(log, 1u << 20, &text, &len) != 0 || !text)
        return NULL;
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
        len--;
    size_t start = len;
    while (start && text[start - 1] != '\n')
        start--;
    char *line = s_clean_line(text, start, len);
    free(text);
    return line;
}

/* bear's own line when a setup log shows its interception failing (its
 * wrapper cannot reach its collector: "wrapper: failed with: gRPC call
 * failed", seen here under load), not the user's setup; else NULL. */
static char *s_bear_broke(const char *log)
{
    char *text = NULL;
    size_t len = 0;
    if (wh_read_file(log, 1u << 20, &text, &len) != 0 || !text)
        return NULL;
    const char *at = strstr(text, "wrapper: failed with:");
    if (!at)
        at = strstr(text, "intercept: failed with:");
    char *line = NULL;
    if (at) {
        const char *nl = memchr(at, '\n', len - (size_t)(at - text));
        line = s_clean_line(text, (size_t)(at - text), nl ? (size_t)(nl - text) : len);
    }
    free(text);
    return line;
}

/* wh_workspace_copy's arguments, for wh_runas_as_user. */
typedef struct {
    const char *project, *dir;
    const char *const *exclude;
    char *err;
} s_copy_t;

static int s_copy_main(void *arg)
{
    s_copy_t *c = arg;
    return wh_workspace_copy(c->project, c->dir, c->exclude, &c->err);
}

/* Copies the project into dir and runs the setup there (seen at mount_at
 * when not NULL), under bear when with_bear and bear is there (wsflags.h).
 * Writes the setup's log beside dir. *bear_broke: bear's own failing
 * line when the setup failed because bear did (malloc'ed), else NULL. */
static int s_copy_setup_once(const wh_warm_req_t *r, const char *dir, const char *mount_at,
                             int with_bear, char **bear_broke, char **detail)
{
    *bear_broke = NULL;
    /* Read and copied as the job's user, never as root: a file of the
     * project that user may not read (another tenant's 0600 file on a
     * shared folder) fails the copy, named, instead of reaching the job
     * (issue 34). */
    s_copy_t cp = {r->project, dir, r->exclude, NULL};
    int rc = wh_runas_as_user(r->runas, s_copy_main, &cp);
    if (rc) {
        const char *who = wh_runas_user(r->runas);
        *detail = who ? wh_strdup_printf("cannot copy project %s as %s (uid %u, the job's "
                                         "user): %s", r->project, who,
                                         wh_runas_uid(r->runas), cp.err ? cp.err : wh_strerror(rc))
                      : wh_strdup_printf("cannot copy project %s: %s", r->project,
                                         cp.err ? cp.err : wh_strerror(rc));
        free(cp.err);
        return rc;
    }
    /* Setup, build and test write in the copy: it is the user's. */
    if ((rc = wh_runas_grant(r->runas, dir, 1)) != 0) {
        *detail = wh_strdup_printf("cannot hand %s to user %s: %s", dir,
                                   wh_runas_user(r->runas), wh_strerror(rc));
        return rc;
    }
    if (!r->setup_cmd || !*r->setup_cmd)
        return 0;
    char *log = wh_strdup_printf("%s.setup.log", dir);
    /* The setup also records the test file's compile command (wsflags.h). */
    char *setup = with_bear ? wh_wsflags_setup_cmd(dir, r->setup_cmd) : strdup(r->setup_cmd);
    if (!log || !setup) {
        free(log);
        free(setup);
        return WH_ENOMEM;
    }
    /* The setup has a TMPDIR and HOME of its own too (scratch.h): two
     * keys set up at once must not meet in /tmp; it goes when setup ends. */
    wh_scratch_t sc;
    rc = wh_scratch_prepare(&sc, dir, r->runas);
    if (rc) {
        *detail = wh_strdup_printf("cannot prepare the setup's TMPDIR and HOME beside %s: %s",
                                   dir, wh_strerror(rc));
        free(log);
        free(setup);
        return rc;
    }
    wh_run_opts_t o = {0};
    o.cmd = setup;
    o.env = wh_wsflags_setup_env();
    o.scratch_env = sc.env;
    o.cwd = dir;
    o.mount_at = mount_at;
    o.timeout_ms = r->setup_timeout_ms ? r->setup_timeout_ms : S_MAX_SETUP_MS;
    o.log_path = log;
    o.tick = r->tick;
    o.tick_arg = r->tick_arg;
    o.runas = r->runas;
    unlink(log);
    wh_run_result_t x = {0};
    rc = wh_run(&o, &x);
    if (r->on_setup)
        r->on_setup(r->tick_arg, rc ? NULL : &x, log);
    if (rc == 0 && x.cancelled) {
        rc = WH_ECANCEL;
        *detail = strdup("setup cancelled");
    } else if (rc || x.timed_out || x.signaled || x.exit_code != 0) {
        char *said = rc ? NULL : s_last_line(log);
        const char *sep = said ? ": " : "";
        const char *what = said ? said : "";
        *detail = rc ? wh_strdup_printf("setup could not start: %s", wh_strerror(rc))
                  : x.timed_out ? wh_strdup_printf("setup timed out after %u ms%s%s (log: %s)",
                                                   o.timeout_ms, sep, what, log)
                  : x.signaled  ? wh_strdup_printf("setup killed by signal %d%s%s (log: %s)",
                                                   x.term_signal, sep, what, log)
                                : wh_strdup_printf("setup exited %d%s%s (log: %s)", x.exit_code,
                                                   sep, what, log);
        free(said);
        rc = WH_ESETUP;
        *bear_broke = strcmp(setup, r->setup_cmd) != 0 ? s_bear_broke(log) : NULL;
    } else if (r->test_file && !s_has_compile(dir, mount_at, r->test_file)) {
        o.env = NULL;
        wh_wsflags_after_setup(dir, r->test_file, &o);
    }
    wh_scratch_clear(&sc);
    wh_scratch_remove(dir);
    free(setup);
    free(log);
    return rc;
}

/* s_copy_setup_once, again without bear when bear itself broke the setup
 * (a fresh copy: the broken run may have left half its outputs). The
 * compile command is then looked for as without bear (wsflags.h). */
static int s_copy_setup(const wh_warm_req_t *r, const char *dir, const char *mount_at,
                        char **detail)
{
    char *broke = NULL;
    int rc = s_copy_setup_once(r, dir, mount_at, 1, &broke, detail);
    if (rc != WH_ESETUP || !broke)
        return rc;
    /* bear's own line: the setup's log, which *detail names, is the
     * second attempt's from now on */
    wh_warn("setup in %s: bear failed (%s); running the setup again without it", dir, broke);
    free(broke);
    broke = NULL;
    free(*detail);
    *detail = NULL;
    wh_rm_rf(dir);
    rc = s_copy_setup_once(r, dir, mount_at, 0, &broke, detail);
    free(broke);
    return rc;
}

/* Sets up key_dir/golden: copy and setup into golden.tmp (seen at the
 * stable path), ready mark, then one rename, so a half-made copy is never
 * taken for ready. */
static int s_setup_golden(const wh_warm_req_t *r, const char *key_dir, char **detail)
{
    char *tmp = wh_strdup_printf("%s/%s.tmp", key_dir, S_GOLDEN);
    char *gold = wh_path_join(key_dir, S_GOLDEN);
    char *at = wh_path_join(key_dir, S_AT);
    char *mark = tmp ? wh_path_join(tmp, S_MARK) : NULL;
    int rc = tmp && gold && at && mark ? 0 : WH_ENOMEM;
    if (!rc) {
        wh_rm_rf(tmp);
        wh_rm_rf(gold);
        rc = wh_mkdir_p(at);
    }
    if (!rc)
        rc = s_copy_setup(r, tmp, at, detail);
    if (!rc)
        rc = wh_write_file(mark, "golden\n", 7);
    if (!rc && rename(tmp, gold) < 0)
        rc = -errno;
    if (rc && !*detail)
        *detail = wh_strdup_printf("cannot prepare %s: %s", key_dir, wh_strerror(rc));
    free(tmp);
    free(gold);
    free(at);
    free(mark);
    return rc;
}

/* Clones golden into slot_dir: `cp -a --reflink=auto` into slot_dir.tmp
 * (paths given through the environment, never pasted into the command),
 * then one rename. */
static int s_clone(const wh_warm_req_t *r, const char *gold, char **detail)
{
    char *tmp = wh_strdup_printf("%s.tmp", r->slot_dir);
    char *src = wh_strdup_printf("WH_CLONE_SRC=%s", gold);
    char *dst = tmp ? wh_strdup_printf("WH_CLONE_DST=%s", tmp) : NULL;
    char *log = wh_strdup_printf("%s.clone.log", r->slot_dir);
    int rc = tmp && src && dst && log ? 0 : WH_ENOMEM;
    if (!rc) {
        wh_rm_rf(tmp);
        unlink(log);
        const char *env[] = {src, dst, NULL};
        wh_run_opts_t o = {0};
        o.cmd = "exec cp -a --reflink=auto -- \"$WH_CLONE_SRC\" \"$WH_CLONE_DST\"";
        o.env = env;
        o.log_path = log;
        o.tick = r->tick;
        o.tick_arg = r->tick_arg;
        wh_run_result_t x = {0};
        rc = wh_run(&o, &x);
        if (!rc && x.cancelled)
            rc = WH_ECANCEL;
        else if (!rc && (x.signaled || x.exit_code != 0))
            rc = WH_EIO;
    }
    if (!rc && rename(tmp, r->slot_dir) < 0)
        rc = -errno;
    if (rc) {
        *detail = wh_strdup_printf("cannot clone %s into %s: %s (log: %s)", gold,
                                   r->slot_dir, wh_strerror(rc), log ? log : "-");
        if (tmp)
            wh_rm_rf(tmp);
    } else if (log) {
        unlink(log);
    }
    free(tmp);
    free(src);
    free(dst);
    free(log);
    return rc;
}

/* ---- the per-key coordination ---- */

static s_key_t *s_key(wh_warmup_t *w, const char *key_dir)
{
    for (s_key_t *k = w->keys; k; k = k->next)
        if (strcmp(k->key_dir, key_dir) == 0)
            return k;
    s_key_t *k = calloc(1, sizeof *k);
    if (!k || !(k->key_dir = strdup(key_dir))) {
        free(k);
        return NULL;
    }
    k->next = w->keys;
    w->keys = k;
    return k;
}

/* Waits (mu held) until nobody sets key k up; ticks with mu released.
 * 0, or WH_ECANCEL. */
static int s_wait_setup(wh_warmup_t *w, s_key_t *k, const wh_warm_req_t *r)
{
    while (k->setting) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->cv, &w->mu, &ts);
        pthread_mutex_unlock(&w->mu);
        int stop = r->tick && r->tick(r->tick_arg);
        pthread_mutex_lock(&w->mu);
        if (stop)
            return WH_ECANCEL;
    }
    return 0;
}

/* Makes sure the key's golden copy is ready (setting it up when nobody
 * does, else waiting), and registers the caller as a cloner. mu held. */
static int s_golden_ready(wh_warmup_t *w, s_key_t *k, const wh_warm_req_t *r,
                          const char *gold_mark, wh_warm_stats_t *st, char **detail)
{
    for (;;) {
        if (wh_is_file(gold_mark)) {
            k->cloners++;
            return 0;
        }
        if (k->setting) {
            unsigned gen = k->gen;
            uint64_t t0 = wh_now_ms();
            int rc = s_wait_setup(w, k, r);
            st->wait_ms += wh_now_ms() - t0;
            if (rc) {
                *detail = strdup("cancelled while waiting for the node's setup");
                return rc;
            }
            if (k->gen != gen && k->last_rc && k->last_rc != WH_ECANCEL) {
                /* The setup we waited for failed: the same answer, without
                 * running it again. (A cancelled one is only retried: its
                 * job went away, ours may not have.) */
                *detail = wh_strdup_printf("%s", k->last_detail ? k->last_detail : "setup failed");
                return k->last_rc;
            }
            continue;
        }
        k->setting = 1;
        pthread_mutex_unlock(&w->mu);
        uint64_t t0 = wh_now_ms();
        char *d = NULL;
        int rc = s_setup_golden(r, k->key_dir, &d);
        st->setup_ms += wh_now_ms() - t0;
        st->setups++;
        pthread_mutex_lock(&w->mu);
        k->setting = 0;
        k->gen++;
        k->last_rc = rc;
        free(k->last_detail);
        k->last_detail = d ? strdup(d) : NULL;
        pthread_cond_broadcast(&w->cv);
        if (rc) {
            *detail = d;
            return rc;
        }
        free(d);
    }
}

int wh_warmup_prepare(wh_warmup_t *w, const wh_warm_req_t *r, wh_warm_stats_t *st,
                      char **detail)
{
    memset(st, 0, sizeof *st);
    if (!w->stable) {
        uint64_t t0 = wh_now_ms();
        int rc = s_copy_setup(r, r->slot_dir, NULL, detail);
        st->setup_ms = wh_now_ms() - t0;
        st->setups = r->setup_cmd && *r->setup_cmd;
        return rc;
    }
    char *key_dir = s_parent(r->slot_dir);
    char *gold = key_dir ? wh_path_join(key_dir, S_GOLDEN) : NULL;
    char *gold_mark = gold ? wh_path_join(gold, S_MARK) : NULL;
    int rc = gold_mark ? 0 : WH_ENOMEM;
    s_key_t *k = NULL;
    if (!rc) {
        pthread_mutex_lock(&w->mu);
        k = s_key(w, key_dir);
        rc = k ? s_golden_ready(w, k, r, gold_mark, st, detail) : WH_ENOMEM;
        pthread_mutex_unlock(&w->mu);
    }
    if (!rc) {
        uint64_t t0 = wh_now_ms();
        rc = s_clone(r, gold, detail);
        st->clone_ms = wh_now_ms() - t0;
        st->cloned = rc == 0;
        pthread_mutex_lock(&w->mu);
        k->cloners--;
        pthread_mutex_unlock(&w->mu);
    }
    free(key_dir);
    free(gold);
    free(gold_mark);
    return rc;
}

int wh_warmup_retire(wh_warmup_t *w, const char *golden)
{
    char *key_dir = s_parent(golden);
    if (!key_dir)
        return WH_ENOMEM;
    pthread_mutex_lock(&w->mu);
    s_key_t *k = s_key(w, key_dir);
    int rc = k && (k->setting || k->cloners) ? -EBUSY : 0;
    char *trash = rc ? NULL : wh_strdup_printf("%s.retired-%u", golden, w->trash++);
    if (!rc && (!trash || rename(golden, trash) < 0))
        rc = trash ? -errno : WH_ENOMEM;
    pthread_mutex_unlock(&w->mu);
    /* Renamed under the lock, removed outside it: nobody starts cloning a
     * copy that is going away, and nobody waits for the removal. */
    if (!rc)
        wh_rm_rf(trash);
    free(trash);
    free(key_dir);
    return rc;
}
