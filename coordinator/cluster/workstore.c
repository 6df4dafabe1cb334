/*
 * workstore — the embedded default's warm workspaces kept across runs; see
 * workstore.h.
 */
#define _GNU_SOURCE
#include "workstore.h"
#include "cache_value.h"
#include "wh_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define S_DEFAULT_MAX ((uint64_t)10 << 30)

static char *s_dir(void)
{
    char *c = wh_cache_default_dir();
    char *d = c ? wh_path_join(c, "work") : NULL;
    free(c);
    return d;
}

/* The folder's ".lock", opened and flock'ed (exclusive, without waiting);
 * -1 when it cannot be. */
static int s_lock(const char *dir)
{
    char *p = wh_path_join(dir, ".lock");
    int fd = p ? open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
    free(p);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

char *wh_workstore_open(int *lock_fd)
{
    *lock_fd = -1;
    char *d = s_dir();
    if (!d || wh_mkdir_p(d) != 0 || (*lock_fd = s_lock(d)) < 0) {
        free(d);
        return NULL;
    }
    return d;
}

uint64_t wh_workstore_max(void)
{
    const char *v = getenv("WHITTLE_WORK_MAX");
    if (!v || !*v)
        return S_DEFAULT_MAX;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v)
        return S_DEFAULT_MAX;
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
                : *end == 'G' || *end == 'g' ? 30 : 0;
    if ((shift && end[1]) || (!shift && *end))
        return S_DEFAULT_MAX;
    return (uint64_t)n << shift;
}

static _Thread_local uint64_t s_bytes;
static _Thread_local int s_ready;

static int s_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)flag, (void)ftw;
    s_bytes += (uint64_t)st->st_blocks * 512u;
    const char *base = strrchr(path, '/');
    /* node/worker_ws.c's ready mark of a set-up workspace */
    if (base && !strcmp(base + 1, ".whittle-ready"))
        s_ready++;
    return 0;
}

char *wh_workstore_stats(int *workspaces, uint64_t *bytes)
{
    *workspaces = 0;
    *bytes = 0;
    char *d = s_dir();
    if (d && wh_is_dir(d)) {
        s_bytes = 0;
        s_ready = 0;
        nftw(d, s_visit, 32, FTW_PHYS);
        *workspaces = s_ready;
        *bytes = s_bytes;
    }
    return d;
}

int wh_workstore_clear(void)
{
    char *d = s_dir();
    if (!d)
        return WH_ENOTFOUND;
    if (!wh_is_dir(d)) {
        free(d);
        return 0;
    }
    int fd = s_lock(d);
    if (fd < 0) {
        free(d);
        return WH_EUNAVAIL;
    }
    int n = 0, rc = 0;
    uint64_t b;
    free(wh_workstore_stats(&n, &b));
    DIR *dir = opendir(d);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".lock"))
            continue;
        char *p = wh_path_join(d, e->d_name);
        int r = p ? wh_rm_rf(p) : WH_ENOMEM;
        rc = rc ? rc : r;
        free(p);
    }
    if (dir)
        closedir(dir);
    close(fd);
    free(d);
    return rc ? rc : n;
}
