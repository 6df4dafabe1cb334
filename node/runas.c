/*
 * runas — job commands as an unprivileged user, optionally in bubblewrap.
 * See runas.h.
 *
 * Why fork and not posix_spawn: the runner's posix_spawn cannot change the
 * user. The child of a fork in a threaded process may only make
 * async-signal-safe calls, so everything it needs (argv, the groups, the
 * paths) is prepared before the fork, and the child makes raw system calls
 * only: setgroups/setresgid/setresuid through syscall(2), since glibc's
 * wrappers would try to signal the parent's other threads. A failed step
 * writes its errno into a close-on-exec pipe, so the parent learns whether
 * the exec happened.
 *
 * Why the user changes before bubblewrap starts: Debian's bwrap is not
 * setuid; run as the unprivileged user it builds the sandbox in a user
 * namespace of its own, and the files the command writes on the bind
 * mounts are owned by that user outside too.
 */
#define _GNU_SOURCE
#include "runas.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wh_common.h"

#define S_MAX_GROUPS 64
#define S_MAX_DEPTH 256
/* bwrap's own arguments, without the masks of the key folder's other
 * entries (3 words each, at most S_MAX_MASKS of them). */
#define S_MAX_ARGS 72
#define S_MAX_MASKS 64
/* Folders or files of the node's own secrets (its CURVE key) hidden in the
 * sandbox: the given path's and its real path's. */
#define S_MAX_HIDE 2

struct wh_runas {
    char *user;          /* NULL: the node's own */
    int drop;            /* change uid/gid in the child */
    uid_t uid;
    gid_t gid;
    gid_t groups[S_MAX_GROUPS];
    int ngroups;
    char *home;
    char *bwrap;         /* absolute path of bwrap, or NULL (no sandbox) */
    char *ws;            /* workdir/ws/: key folders under it get their siblings masked */
    char *hide[S_MAX_HIDE]; /* under a system folder the sandbox shows: masked there */
    int hide_dir[S_MAX_HIDE]; /* 1: a folder (an empty tmpfs over it); 0: a file (/dev/null) */
    int nhide;
    char *env_home, *env_user, *env_logname;
    const char *env[4];
};

/* The absolute path of an executable on PATH, or NULL. */
static char *s_which(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *save = NULL, *found = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char *p = wh_path_join(d, name);
        if (p && *d == '/' && access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(copy);
    return found;
}

/* Looks the user up: uid, gid, supplementary groups. */
static int s_lookup(wh_runas_t *r, const char *user, char **err)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwnam_r(user, &pw, buf, sizeof buf, &res) != 0 || !res) {
        *err = wh_strdup_printf("--run-as: no such user '%s'", user);
        return WH_EINVAL;
    }
    r->uid = pw.pw_uid;
    r->gid = pw.pw_gid;
    r->ngroups = S_MAX_GROUPS;
    if (getgrouplist(user, pw.pw_gid, r->groups, &r->ngroups) < 0) {
        r->groups[0] = pw.pw_gid;
        r->ngroups = 1;
    }
    r->drop = r->uid != geteuid() || r->gid != getegid();
    if (r->drop && geteuid() != 0) {
        *err = wh_strdup_printf("--run-as '%s' needs a node started as root (this one runs as "
                                "uid %u)", user, (unsigned)geteuid());
        return WH_EINVAL;
    }
    return 0;
}

/* workdir/home-USER, made and handed to the user; the env entries. */
static int s_home(wh_runas_t *r, const char *workdir, char **err)
{
    r->home = wh_strdup_printf("%s/home-%s", workdir, r->user);
    if (!r->home)
        return WH_ENOMEM;
    int rc = wh_mkdir_p(r->home);
    if (!rc && chmod(r->home, 0700) < 0)
        rc = -errno;
    if (!rc)
        rc = wh_runas_grant(r, r->home, 1);
    if (rc) {
        *err = wh_strdup_printf("--run-as %s: cannot prepare its home '%s': %s", r->user,
                                r->home, wh_strerror(rc));
        return rc;
    }
    r->env_home = wh_strdup_printf("HOME=%s", r->home);
    r->env_user = wh_strdup_printf("USER=%s", r->user);
    r->env_logname = wh_strdup_printf("LOGNAME=%s", r->user);
    if (!r->env_home || !r->env_user || !r->env_logname)
        return WH_ENOMEM;
    r->env[0] = r->env_home;
    r->env[1] = r->env_user;
    r->env[2] = r->env_logname;
    return 0;
}

/* Starts `:` in workdir as the user (in the sandbox), so that a workdir the
 * user cannot enter or a sandbox that cannot start is found at start, not
 * at the first job. */
static int s_probe(const wh_runas_t *r, const char *workdir, char **err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    char *const env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
    wh_runas_cmd_t c = {":", workdir, NULL, p[1], env};
    pid_t pid = -1;
    int rc = wh_runas_spawn(r, &c, &pid);
    close(p[1]);
    /* bwrap writes "bwrap: " and its reason apart: read to the end */
    char out[512];
    size_t n = 0;
    for (ssize_t k = 1; !rc && k != 0 && n < sizeof out - 1;) {
        k = read(p[0], out + n, sizeof out - 1 - n);
        if (k > 0)
            n += (size_t)k;
        else if (k < 0 && errno != EINTR)
            break;
    }
    close(p[0]);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        n--;
    out[n] = '\0';
    for (char *nl = strchr(out, '\n'); nl; nl = strchr(nl, '\n'))
        *nl = ' ';
    int st = 0;
    while (!rc && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    const char *who = r->user ? r->user : "the node's user";
    if (rc == -EACCES)
        *err = wh_strdup_printf("--run-as %s: cannot enter workdir '%s': %s (every folder above "
                                "it must be searchable by %s)", who, workdir, wh_strerror(rc), who);
    else if (rc)
        *err = wh_strdup_printf("cannot start a command as %s in '%s': %s", who, workdir,
                                wh_strerror(rc));
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        *err = wh_strdup_printf("--sandbox bwrap: no sandbox starts as %s: %s", who,
                                *out ? out : "bwrap failed");
    return rc ? rc : *err ? WH_EINVAL : 0;
}

static const char *const s_sys[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                    "/libx32", "/etc", "/opt", NULL};

/* The system folder (one of s_sys) path lies in, or NULL. */
static const char *s_sys_of(const char *path)
{
    for (const char *const *d = s_sys; *d; d++) {
        size_t l = strlen(*d);
        if (!strncmp(path, *d, l) && path[l] == '/')
            return *d;
    }
    return NULL;
}

/* What of secret the sandbox must not show: nothing when it is in no
 * system folder (the sandbox does not bind it), else its folder (a
 * Kubernetes Secret volume's files are links into a hidden folder beside
 * them), or the file itself when its folder is the system folder. Both the
 * path as given and its real path. */
static int s_hide(wh_runas_t *r, const char *secret)
{
    /* as given: its folder's real path and its own name (a link stays) */
    const char *slash = strrchr(secret, '/');
    char *folder = slash ? strndup(secret, (size_t)(slash - secret) + 1) : strdup(".");
    char *rfolder = folder ? realpath(folder, NULL) : NULL;
    char *paths[2] = {rfolder ? wh_path_join(rfolder, slash ? slash + 1 : secret) : NULL,
                      realpath(secret, NULL)};
    free(folder);
    free(rfolder);
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        const char *p = paths[i], *sys = p ? s_sys_of(p) : NULL;
        if (!sys)
            continue;
        const char *sl = strrchr(p, '/');
        int dir = (size_t)(sl - p) > strlen(sys);
        char *h = dir ? strndup(p, (size_t)(sl - p)) : strdup(p);
        int dup = 0;
        for (int k = 0; h && k < r->nhide && !dup; k++) {
            size_t l = strlen(r->hide[k]);
            dup = r->hide_dir[k] ? !strncmp(h, r->hide[k], l) && (h[l] == '/' || !h[l])
                                 : !strcmp(h, r->hide[k]);
        }
        if (!h)
            rc = WH_ENOMEM;
        else if (dup)
            free(h);
        else {
            r->hide_dir[r->nhide] = dir;
            r->hide[r->nhide++] = h;
        }
    }
    free(paths[0]);
    free(paths[1]);
    return rc;
}

wh_runas_t *wh_runas_new(const char *user, wh_sandbox_t sb, const char *workdir,
                         const char *secret, char **err)
{
    *err = NULL;
    wh_runas_t *r = calloc(1, sizeof *r);
    int rc = r ? 0 : WH_ENOMEM;
    if (!rc && user && (!(r->user = strdup(user)) || (rc = s_lookup(r, user, err)) != 0))
        rc = rc ? rc : WH_ENOMEM;
    if (!rc && r->drop)
        rc = s_home(r, workdir, err);
    if (!rc && !(r->ws = wh_strdup_printf("%s/ws/", workdir)))
        rc = WH_ENOMEM;
    if (!rc && sb == WH_SANDBOX_BWRAP && secret && *secret)
        rc = s_hide(r, secret);
    if (!rc && sb == WH_SANDBOX_BWRAP && !(r->bwrap = s_which("bwrap"))) {
        *err = strdup("--sandbox bwrap: bwrap is not on PATH (Debian: apt-get install bubblewrap)");
        rc = WH_EINVAL;
    }
    if (!rc)
        rc = s_probe(r, workdir, err);
    if (rc) {
        if (!*err)
            *err = wh_strdup_printf("--run-as/--sandbox: %s", wh_strerror(rc));
        wh_runas_destroy(&r);
    }
    return r;
}

wh_runas_t *wh_runas_for_uid(const wh_runas_t *base, unsigned uid, const char *workdir,
                             char **err)
{
    *err = NULL;
    if (geteuid() != 0) {
        *err = wh_strdup_printf("--job-uids needs a node started as root (this one runs as uid "
                                "%u)", (unsigned)geteuid());
        return NULL;
    }
    wh_runas_t *r = calloc(1, sizeof *r);
    int rc = r ? 0 : WH_ENOMEM;
    if (!rc && !(r->user = wh_strdup_printf("whittle-%u", uid)))
        rc = WH_ENOMEM;
    if (!rc) {
        r->uid = (uid_t)uid;
        r->gid = (gid_t)uid;
        r->groups[0] = (gid_t)uid;
        r->ngroups = 1;
        r->drop = 1;
        rc = s_home(r, workdir, err);
    }
    if (!rc && !(r->ws = wh_strdup_printf("%s/ws/", workdir)))
        rc = WH_ENOMEM;
    if (!rc && base && base->bwrap && !(r->bwrap = strdup(base->bwrap)))
        rc = WH_ENOMEM;
    for (int i = 0; !rc && base && i < base->nhide; i++) {
        if (!(r->hide[i] = strdup(base->hide[i])))
            rc = WH_ENOMEM;
        r->hide_dir[i] = base->hide_dir[i];
        r->nhide = i + 1;
    }
    if (rc) {
        if (!*err)
            *err = wh_strdup_printf("--job-uids: uid %u: %s", uid, wh_strerror(rc));
        wh_runas_destroy(&r);
    }
    return r;
}

int wh_runas_sandboxed(const wh_runas_t *r)
{
    return r && r->bwrap;
}

void wh_runas_destroy(wh_runas_t **rp)
{
    wh_runas_t *r = *rp;
    if (!r)
        return;
    free(r->user);
    free(r->home);
    free(r->bwrap);
    free(r->ws);
    for (int i = 0; i < r->nhide; i++)
        free(r->hide[i]);
    free(r->env_home);
    free(r->env_user);
    free(r->env_logname);
    free(r);
    *rp = NULL;
}

unsigned wh_runas_uid(const wh_runas_t *r)
{
    return r && r->drop ? (unsigned)r->uid : (unsigned)geteuid();
}

const char *wh_runas_user(const wh_runas_t *r)
{
    return r && r->drop ? r->user : NULL;
}

const char *const *wh_runas_env(const wh_runas_t *r)
{
    static const char *const none[] = {NULL};
    return r && r->drop ? r->env : none;
}

/* ---- grant ---- */

static int s_chown_at(int at, const char *name, uid_t uid, gid_t gid, int deep, int depth)
{
    if (fchownat(at, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
        return -errno;
    struct stat st;
    if (!deep || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    if (depth > S_MAX_DEPTH)
        return -ELOOP;
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int rc = -errno;
        if (fd >= 0)
            close(fd);
        return rc;
    }
    int rc = 0;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc = s_chown_at(dirfd(d), e->d_name, uid, gid, 1, depth + 1);
    }
    closedir(d);
    return rc;
}

int wh_runas_grant(const wh_runas_t *r, const char *path, int deep)
{
    if (!r || !r->drop)
        return 0;
    return s_chown_at(AT_FDCWD, path, r->uid, r->gid, deep, 0);
}

/* ---- file access as the user ---- */

typedef struct {
    const wh_runas_t *r;
    int (*fn)(void *);
    void *arg;
    int rc;
} s_as_t;

/* The thread of wh_runas_as_user. Linux keeps credentials per thread; the
 * raw system calls change this thread's alone (glibc's wrappers would
 * change every thread's). setfsuid to a non-zero uid drops the thread's
 * CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER and CAP_CHOWN, so
 * the kernel checks its file access as the user's. */
static void *s_as_main(void *p)
{
    s_as_t *a = p;
    const wh_runas_t *r = a->r;
    if (syscall(SYS_setgroups, (size_t)r->ngroups, r->groups) < 0) {
        a->rc = -errno;
        return NULL;
    }
    syscall(SYS_setfsgid, r->gid);
    syscall(SYS_setfsuid, r->uid);
    /* setfs*id say nothing of failure: ask back (-1 changes nothing). */
    if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) != r->uid ||
        (gid_t)syscall(SYS_setfsgid, (gid_t)-1) != r->gid) {
        a->rc = -EPERM;
        return NULL;
    }
    a->rc = a->fn(a->arg);
    return NULL;
}

int wh_runas_as_user(const wh_runas_t *r, int (*fn)(void *arg), void *arg)
{
    if (!r || !r->drop)
        return fn(arg);
    s_as_t a = {r, fn, arg, 0};
    pthread_t th;
    int e = pthread_create(&th, NULL, s_as_main, &a);
    if (e)
        return -e;
    pthread_join(th, NULL);
    return a.rc;
}

/* ---- spawn ---- */

/* The key folder's folders a command must not see: every one but its own
 * workspace (base), the folders beside it (base.*) and the stable mount
 * path ("at"), each under an empty tmpfs: other slots' workspaces and the
 * golden copy stay out of reach. Files are not masked: bwrap makes a
 * missing mount point, and another slot unlinks its report before each
 * run, so a mask over it made an empty report that cmocka would not
 * overwrite ("no report", InfraError, and the cart reduction ended at 7 -> 5
 * on a two-slot node); they are the same key's reports and logs. Returns
 * how many paths it put in masks (malloc'ed) and dirs (always 1). */
static int s_masks(const char *keydir, const char *base, char **masks, int *dirs)
{
    DIR *d = opendir(keydir);
    int n = 0;
    size_t bl = strlen(base);
    for (struct dirent *e; d && n < S_MAX_MASKS && (e = readdir(d));) {
        const char *nm = e->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strcmp(nm, "at") || !strcmp(nm, base) ||
            (!strncmp(nm, base, bl) && nm[bl] == '.'))
            continue;
        char *path = wh_path_join(keydir, nm);
        struct stat st;
        if (path && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            dirs[n] = 1;
            masks[n++] = path;
        } else {
            free(path);
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* bwrap's arguments for c (strings borrowed from r, c, keydir and masks). */
static int s_bwrap_argv(const wh_runas_t *r, const wh_runas_cmd_t *c, const char *keydir,
                        char *const *masks, const int *dirs, int nmasks, const char **v)
{
    int n = 0;
    v[n++] = r->bwrap;
    v[n++] = "--unshare-all";  /* its own network: loopback only */
    v[n++] = "--die-with-parent";
    for (const char *const *s = s_sys; *s; s++) {
        v[n++] = "--ro-bind-try";
        v[n++] = *s;
        v[n++] = *s;
    }
    for (int i = 0; i < r->nhide; i++) { /* the node's key: not the job's */
        v[n++] = r->hide_dir[i] ? "--tmpfs" : "--ro-bind";
        if (!r->hide_dir[i])
            v[n++] = "/dev/null";
        v[n++] = r->hide[i];
    }
    v[n++] = "--proc"; v[n++] = "/proc";
    v[n++] = "--dev"; v[n++] = "/dev";
    v[n++] = "--tmpfs"; v[n++] = "/tmp";
    if (r->home) {
        v[n++] = "--bind"; v[n++] = r->home; v[n++] = r->home;
    }
    v[n++] = "--bind"; v[n++] = keydir; v[n++] = keydir;
    for (int i = 0; i < nmasks; i++) {
        v[n++] = dirs[i] ? "--tmpfs" : "--ro-bind";
        if (!dirs[i])
            v[n++] = "/dev/null";
        v[n++] = masks[i];
    }
    const char *at = c->mount_at ? c->mount_at : c->cwd;
    if (c->mount_at) {
        v[n++] = "--bind"; v[n++] = c->cwd; v[n++] = c->mount_at;
    }
    v[n++] = "--remount-ro"; v[n++] = "/";
    v[n++] = "--chdir"; v[n++] = at;
    v[n++] = "/bin/sh"; v[n++] = "-c"; v[n++] = c->cmd;
    v[n] = NULL;
    return n;
}

/* The child: never returns. Raw system calls only (see the top). */
static void s_child(const wh_runas_t *r, const wh_runas_cmd_t *c, const char *const *argv,
                    int errfd)
{
    int e = 0;
    sigset_t none;
    sigemptyset(&none);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int null = open("/dev/null", O_RDONLY);
    if (setsid() < 0 || null < 0 || dup2(null, 0) < 0 || dup2(c->logfd, 1) < 0 ||
        dup2(c->logfd, 2) < 0)
        goto fail;
    if (errfd > 3)
        syscall(SYS_close_range, 3u, (unsigned)errfd - 1u, 0u);
    syscall(SYS_close_range, (unsigned)errfd + 1u, ~0u, 0u);
    int ns = c->mount_at && !r->bwrap;
    if (ns && (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
               mount(c->cwd, c->mount_at, NULL, MS_BIND | MS_REC, NULL) < 0))
        goto fail;
    if (r->drop && (syscall(SYS_setgroups, (size_t)r->ngroups, r->groups) < 0 ||
                    syscall(SYS_setresgid, r->gid, r->gid, r->gid) < 0 ||
                    syscall(SYS_setresuid, r->uid, r->uid, r->uid) < 0))
        goto fail;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        goto fail;
    if (chdir(ns ? c->mount_at : c->cwd) < 0)
        goto fail;
    execve(argv[0], (char *const *)argv, c->env);
fail:
    e = errno;
    if (write(errfd, &e, sizeof e) < 0) {
    }
    _exit(127);
}

int wh_runas_spawn(const wh_runas_t *r, const wh_runas_cmd_t *c, pid_t *pid)
{
    if (!r || !c || !c->cmd || !c->cwd)
        return WH_EINVAL;
    const char *argv[S_MAX_ARGS + 3 * S_MAX_MASKS];
    char *masks[S_MAX_MASKS];
    int dirs[S_MAX_MASKS], nmasks = 0;
    const char *slash = strrchr(c->cwd, '/');
    char *keydir = slash && slash != c->cwd ? strndup(c->cwd, (size_t)(slash - c->cwd))
                                            : strdup("/");
    if (!keydir)
        return WH_ENOMEM;
    if (r->bwrap) {
        if (!strncmp(keydir, r->ws, strlen(r->ws)))
            nmasks = s_masks(keydir, slash + 1, masks, dirs);
        s_bwrap_argv(r, c, keydir, masks, dirs, nmasks, argv);
    } else {
        argv[0] = "/bin/sh"; argv[1] = "-c"; argv[2] = c->cmd; argv[3] = NULL;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        for (int i = 0; i < nmasks; i++)
            free(masks[i]);
        free(keydir);
        return -errno;
    }
    pid_t child = fork();
    if (child == 0)
        s_child(r, c, argv, p[1]);
    int rc = child < 0 ? -errno : 0;
    close(p[1]);
    int e = 0;
    ssize_t n = 0;
    while (child > 0 && (n = read(p[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    close(p[0]);
    for (int i = 0; i < nmasks; i++)
        free(masks[i]);
    free(keydir);
    if (child > 0 && n == (ssize_t)sizeof e) {
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
        }
        rc = e ? -e : WH_EIO;
    }
    if (!rc)
        *pid = child;
    return rc;
}
