/*
 * runner — one shell command in its own session and process group, with a
 * timeout and a cancel hook that kill the whole group.
 *
 * How it stays thread-safe: the child is started with posix_spawn (glibc
 * implements it with clone(CLONE_VM|CLONE_VFORK), so nothing but the file
 * actions and exec runs in the child), and everything the child needs —
 * argv, the merged environment, the log descriptor — is prepared before the
 * spawn. Every descriptor above 2 is closed in the child (closefrom file
 * action), so ZeroMQ sockets and other slots' log files never leak into a
 * build or a test.
 *
 * How nothing is left running: the child is a session leader (setsid), so
 * its pid is its process group id and everything it forks stays in that
 * group unless it calls setsid/setpgid itself (a daemonizing test escapes;
 * that needs cgroups and is out of scope). When the leader exits, the runner
 * first notices the exit without reaping it (waitid WNOWAIT), then kills the
 * group, then reaps. While the leader is an unreaped zombie its pid cannot be
 * reused, so the group kill can never hit an unrelated process.
 *
 * wh_run returns only when the whole group is gone, not just the leader:
 * a SIGKILLed linker or compiler of a timed-out build may still be finishing
 * a system call (an unlink, a write of the output) for a while on a loaded
 * machine, and the next candidate's build must not race it. The process is
 * made a child subreaper once, so members orphaned by the leader's death
 * become its children and are reaped here by group (waitpid(-pgid)), which
 * also works where PID 1 does not reap (a container). The group's id stays
 * reserved while any member, zombie or not, exists, so the repeated kill
 * cannot hit another group either.
 *
 * Requirements on the rest of the process: nobody calls wait(-1)/waitpid(-1)
 * (that would steal our child), SIGCHLD is not set to SIG_IGN (children
 * would be auto-reaped), and nobody calls setenv while a run starts (environ
 * is read to build the child's environment).
 *
 * A node's commands see an allow-listed environment (wh_run_confine_env):
 * the daemon's own variables (WHITTLE_REDIS_PASSWORD, key paths, a cloud
 * token) are the node's, never a job's.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wh_common.h"

extern char **environ;

/* How often tick is called while the command runs. */
#define S_TICK_MS 100u
/* How long a killed group may take to disappear before wh_run gives up
 * waiting for it (a member stuck in uninterruptible sleep, e.g. on a hung
 * network filesystem). */
#define S_GROUP_GONE_MS 30000u

static pthread_once_t s_subreaper_once = PTHREAD_ONCE_INIT;

static void s_become_subreaper(void)
{
    /* Best effort: without it, orphans go to PID 1, which usually reaps
     * them, and s_reap_group still waits for them to be gone. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* 1 when one of the first n NULL-terminated lists l[] sets the key of e
 * (klen bytes long). */
static int s_overridden(const char *e, size_t klen, const char *const *const *l, int n)
{
    for (int i = 0; i < n; i++)
        for (const char *const *x = l[i]; *x; x++)
            if (strncmp(*x, e, klen) == 0 && (*x)[klen] == '=')
                return 1;
    return 0;
}

/* wh_run_confine_env: 1 when a command sees only the allow-listed part of
 * this process's environment. Set once before any run starts. */
static int s_confined;

void wh_run_confine_env(int on)
{
    s_confined = on;
}

/* --pass-env's names, beside the fixed allow-list. */
#define S_PASS_MAX 64
static char s_pass[S_PASS_MAX][128];
static int s_npass;

int wh_run_env_pass(const char *name)
{
    size_t len = strlen(name);
    if (!len || len >= sizeof s_pass[0] || (name[0] >= '0' && name[0] <= '9') ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != len)
        return WH_EINVAL;
    if (s_npass == S_PASS_MAX)
        return WH_ETOOBIG;
    memcpy(s_pass[s_npass++], name, len + 1);
    return 0;
}

int wh_run_env_allowed(const char *entry)
{
    static const char *const names[] = {"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TERM",
                                        "TZ", "USER", "LOGNAME", "SHELL", NULL};
    const char *eq = strchr(entry, '=');
    size_t klen = eq ? (size_t)(eq - entry) : strlen(entry);
    if (klen > 3 && strncmp(entry, "LC_", 3) == 0)
        return 1;
    for (const char *const *n = names; *n; n++)
        if (strlen(*n) == klen && strncmp(*n, entry, klen) == 0)
            return 1;
    for (int i = 0; i < s_npass; i++)
        if (strlen(s_pass[i]) == klen && strncmp(s_pass[i], entry, klen) == 0)
            return 1;
    return 0;
}

/* The child's environment: the current one without every key the lists
 * l[0..S_ENV_LISTS) set, then the lists' entries, an entry only when no
 * earlier list sets its key (the caller's entries win over the workspace's
 * scratch, which wins over the runas user's HOME). Only the pointer array
 * is allocated; the strings are borrowed. */
#define S_ENV_LISTS 3
static char **s_build_env(const char *const *const *lists)
{
    static const char *const none[] = {NULL};
    const char *const *l[S_ENV_LISTS];
    size_t n = 0;
    for (int i = 0; i < S_ENV_LISTS; i++) {
        l[i] = lists[i] ? lists[i] : none;
        for (const char *const *e = l[i]; *e; e++)
            n++;
    }
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t klen = eq ? (size_t)(eq - *e) : strlen(*e);
        if (s_confined && !wh_run_env_allowed(*e))
            continue;
        if (!s_overridden(*e, klen, l, S_ENV_LISTS))
            env[k++] = *e;
    }
    for (int i = 0; i < S_ENV_LISTS; i++)
        for (const char *const *x = l[i]; *x; x++) {
            const char *eq = strchr(*x, '=');
            if (!s_overridden(*x, eq ? (size_t)(eq - *x) : strlen(*x), l, i))
                env[k++] = (char *)*x;
        }
    env[k] = NULL;
    return env;
}

static void s_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000u, (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* A descriptor that becomes readable when pid exits (Linux >= 5.3), or -1:
 * the caller then polls with short sleeps. */
static int s_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFD);
        if (fl >= 0)
            fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
    }
    return fd;
#else
    (void)pid;
    return -1;
#endif
}

/* Waits up to ms for pid to exit, without reaping it. 1 = exited. */
static int s_wait_exit(pid_t pid, int pidfd, unsigned ms)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
        return 1;
    if (pidfd >= 0) {
        struct pollfd p = {pidfd, POLLIN, 0};
        int rc = poll(&p, 1, (int)ms);
        if (rc < 0 && errno != EINTR)
            s_sleep_ms(ms);
    } else {
        /* Without a pidfd: short sleeps, so a quick command is not held up
         * by a whole tick period. */
        unsigned slept = 0;
        while (slept < ms) {
            unsigned step = ms - slept < 5u ? ms - slept : 5u;
            s_sleep_ms(step);
            slept += step;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == pid)
                return 1;
        }
    }
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Kills the group pgid until none of its members is left, reaping the
 * members that were orphaned to this process. The leader must already be
 * reaped. Returns 0 when the group is gone, WH_ETIMEOUT when some member
 * outlived S_GROUP_GONE_MS. */
static int s_reap_group(pid_t pgid)
{
    unsigned waited = 0, step = 1;
    for (;;) {
        while (waitpid(-pgid, NULL, WNOHANG) > 0) {
        }
        if (kill(-pgid, SIGKILL) < 0 && errno == ESRCH)
            return 0;
        if (waited >= S_GROUP_GONE_MS)
            return WH_ETIMEOUT;
        s_sleep_ms(step);
        waited += step;
        if (step < 20u)
            step *= 2u;
    }
}

int wh_run(const wh_run_opts_t *o, wh_run_result_t *r)
{
    if (!o || !o->cmd || !r)
        return WH_EINVAL;
    memset(r, 0, sizeof *r);
    pthread_once(&s_subreaper_once, s_become_subreaper);
    /* posix_spawn reports a failed chdir too, but not under every
     * emulation (valgrind turns the vfork into a fork and the child just
     * exits 127); checking first gives one clear error everywhere. */
    if (o->cwd && !wh_is_dir(o->cwd))
        return -ENOENT;

    int rc = 0;
    int logfd = -1;
    char **env = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int fa_ok = 0, attr_ok = 0;

    logfd = open(o->log_path ? o->log_path : "/dev/null",
                 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (logfd < 0) {
        rc = -errno;
        goto out;
    }
    const char *const *lists[S_ENV_LISTS] = {o->env, o->scratch_env, wh_runas_env(o->runas)};
    env = s_build_env(lists);
    if (!env) {
        rc = WH_ENOMEM;
        goto out;
    }

    if ((rc = -posix_spawn_file_actions_init(&fa)) != 0)
        goto out;
    fa_ok = 1;
    /* dup2 clears close-on-exec on the target, so 1 and 2 survive exec. */
    if ((rc = -posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
        (rc = -posix_spawn_file_actions_adddup2(&fa, logfd, 1)) != 0 ||
        (rc = -posix_spawn_file_actions_adddup2(&fa, logfd, 2)) != 0 ||
        (o->cwd && (rc = -posix_spawn_file_actions_addchdir_np(&fa, o->cwd)) != 0) ||
        (rc = -posix_spawn_file_actions_addclosefrom_np(&fa, 3)) != 0)
        goto out;

    if ((rc = -posix_spawnattr_init(&attr)) != 0)
        goto out;
    attr_ok = 1;
    /* A clean signal state: the daemon may block or ignore signals (a
     * signalfd loop, SIGPIPE ignored for sockets); the build must not
     * inherit that. */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    if ((rc = -posix_spawnattr_setsigmask(&attr, &none)) != 0 ||
        (rc = -posix_spawnattr_setsigdefault(&attr, &all)) != 0 ||
        (rc = -posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                                   POSIX_SPAWN_SETSIGDEF)) != 0)
        goto out;

    char *argv[] = {"sh", "-c", (char *)o->cmd, NULL};
    /* The stable path: unshare execs the shell (same pid, so the group
     * kill still reaches everything), which binds cwd over mount_at and
     * execs the user's command there. Paths go as arguments, never pasted. */
    char *nsv[] = {"unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                   "mount --bind \"$1\" \"$2\" && cd \"$2\" && exec /bin/sh -c \"$3\"",
                   "sh", (char *)o->cwd, (char *)o->mount_at, (char *)o->cmd, NULL};
    int ns = o->mount_at && o->cwd;
    pid_t pid = -1;
    uint64_t t0 = wh_now_ms();
    wh_runas_cmd_t rc_cmd = {o->cmd, o->cwd, o->mount_at, logfd, env};
    int serr = o->runas ? -wh_runas_spawn(o->runas, &rc_cmd, &pid)
               : ns     ? posix_spawnp(&pid, "unshare", &fa, &attr, nsv, env)
                        : posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, env);
    if (serr != 0) {
        rc = -serr;
        goto out;
    }
    /* The child has its own descriptors now; ours is not needed while
     * waiting. */
    close(logfd);
    logfd = -1;

    int pidfd = s_pidfd_open(pid);
    uint64_t next_tick = t0 + S_TICK_MS;
    for (;;) {
        uint64_t now = wh_now_ms();
        unsigned wait_ms = S_TICK_MS;
        if (o->tick && next_tick > now && next_tick - now < wait_ms)
            wait_ms = (unsigned)(next_tick - now);
        if (o->timeout_ms) {
            uint64_t deadline = t0 + o->timeout_ms;
            if (now >= deadline) {
                r->timed_out = 1;
                break;
            }
            if (deadline - now < wait_ms)
                wait_ms = (unsigned)(deadline - now);
        }
        if (s_wait_exit(pid, pidfd, wait_ms))
            break;
        now = wh_now_ms();
        if (o->tick && now >= next_tick) {
            next_tick = now + S_TICK_MS;
            if (o->tick(o->tick_arg)) {
                r->cancelled = 1;
                break;
            }
        }
    }
    /* Whether it timed out, was cancelled or exited: the leader is either
     * running or an unreaped zombie, so -pid still names our group. */
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r->group_lingered = s_reap_group(pid) != 0;
    if (pidfd >= 0)
        close(pidfd);
    r->ms = wh_now_ms() - t0;
    if (!r->timed_out && !r->cancelled) {
        if (WIFEXITED(status)) {
            r->exit_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            r->signaled = 1;
            r->term_signal = WTERMSIG(status);
        }
    }
    rc = 0;

out:
    if (attr_ok)
        posix_spawnattr_destroy(&attr);
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    free(env);
    if (logfd >= 0)
        close(logfd);
    return rc;
}
