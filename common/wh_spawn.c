/*
 * wh_spawn — external tools run with an argv through posix_spawnp.
 */
#define _GNU_SOURCE
#include "wh_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wh_common.h"

extern char **environ;

/* fd onto slot, or /dev/null opened there when fd is -1. */
static int s_redirect(posix_spawn_file_actions_t *fa, int fd, int slot, int flags)
{
    if (fd < 0)
        return posix_spawn_file_actions_addopen(fa, slot, "/dev/null", flags, 0);
    return posix_spawn_file_actions_adddup2(fa, fd, slot);
}

int wh_spawn(const char *const *argv, int in_fd, int out_fd, pid_t *pid)
{
    if (!argv || !argv[0] || !pid)
        return WH_EINVAL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc)
        return -rc;
    rc = posix_spawnattr_init(&attr);
    if (rc) {
        posix_spawn_file_actions_destroy(&fa);
        return -rc;
    }
    /* The child starts with default signal handling and nothing blocked,
     * whatever the calling thread has set up. */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (!(rc = s_redirect(&fa, in_fd, 0, O_RDONLY)) &&
        !(rc = s_redirect(&fa, out_fd, 1, O_WRONLY)) &&
        !(rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)) &&
        !(rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) &&
        !(rc = posix_spawnattr_setsigmask(&attr, &none)) &&
        !(rc = posix_spawnattr_setsigdefault(&attr, &all)) &&
        !(rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))
        rc = posix_spawnp(pid, argv[0], &fa, &attr, (char *const *)argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return -rc;
}

int wh_spawn_wait(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Reads fd to its end, keeping at most cap bytes in b. */
static int s_drain(int fd, wh_buf_t *b, size_t cap)
{
    char chunk[4096];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        size_t keep = b->len < cap ? cap - b->len : 0;
        if (keep && wh_buf_append(b, chunk, (size_t)n < keep ? (size_t)n : keep))
            return WH_ENOMEM;
    }
}

int wh_spawn_run(const char *const *argv, char **out, size_t *len, size_t cap)
{
    if (out)
        *out = NULL;
    if (len)
        *len = 0;
    int p[2] = {-1, -1};
    if (out && pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    pid_t pid;
    int rc = wh_spawn(argv, -1, p[1], &pid);
    if (p[1] >= 0)
        close(p[1]);
    if (rc) {
        if (p[0] >= 0)
            close(p[0]);
        return rc;
    }
    wh_buf_t b = WH_BUF_INIT;
    int drc = out ? s_drain(p[0], &b, cap) : 0;
    if (p[0] >= 0)
        close(p[0]);
    rc = wh_spawn_wait(pid);
    if (rc >= 0 && drc)
        rc = drc;
    if (rc < 0 || !out)
        wh_buf_free(&b);
    else {
        if (len)
            *len = b.len;
        *out = wh_buf_detach(&b);
    }
    return rc;
}

char *wh_spawn_line(const char *const *argv)
{
    char *out = NULL;
    if (wh_spawn_run(argv, &out, NULL, 4096) != 0 || !out[0]) {
        free(out);
        return NULL;
    }
    out[strcspn(out, "\r\n")] = '\0';
    return out;
}

int wh_spawn_pipe(const char *const *a, const char *const *b)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    pid_t pa, pb;
    int rc = wh_spawn(a, -1, p[1], &pa);
    close(p[1]);
    if (rc) {
        close(p[0]);
        return rc;
    }
    rc = wh_spawn(b, p[0], -1, &pb);
    close(p[0]);
    int ra = wh_spawn_wait(pa);
    if (rc)
        return rc;
    int rb = wh_spawn_wait(pb);
    return ra ? ra : rb;
}
