/*
 * cache_log — an append-only log shared by processes; see cache_log.h.
 */
#define _GNU_SOURCE
#include "cache_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int wh_cache_lock_open(const char *dir, char **err)
{
    char *path = wh_path_join(dir, "lock");
    int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd < 0)
        *err = path ? wh_strdup_printf("cannot open '%s': %s", path, strerror(errno))
                    : wh_strdup0("out of memory");
    free(path);
    return fd;
}

int wh_cache_lock(int lockfd, int exclusive)
{
    if (lockfd < 0)
        return 0;
    while (flock(lockfd, exclusive ? LOCK_EX : LOCK_SH) < 0)
        if (errno != EINTR)
            return -errno;
    return 0;
}

void wh_cache_unlock(int lockfd)
{
    if (lockfd >= 0)
        flock(lockfd, LOCK_UN);
}

/* Opens l->path, remembering which file it is. 0 or -errno. */
static int s_open(wh_cache_log_t *l)
{
    int fd = open(l->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        int e = -errno;
        if (fd >= 0)
            close(fd);
        return e;
    }
    if (l->fd >= 0)
        close(l->fd);
    l->fd = fd;
    l->dev = st.st_dev;
    l->ino = st.st_ino;
    l->loaded = 0;
    return 0;
}

/* When the path names another file now (replaced by a compaction or a
 * clear), switches to it and resets the reader. 0 or -errno. */
static int s_follow(wh_cache_log_t *l)
{
    struct stat st;
    if (stat(l->path, &st) < 0)
        return errno == ENOENT ? 0 : -errno; /* removed by hand: keep ours */
    if (st.st_dev == l->dev && st.st_ino == l->ino)
        return 0;
    int rc = s_open(l);
    if (rc == 0)
        l->fn->reset(l->ctx);
    return rc;
}

int wh_cache_log_open(wh_cache_log_t *l, const char *dir, const char *name, int lockfd,
                      size_t cap, int keep_tail, const wh_cache_log_fn_t *fn, void *ctx,
                      char **err)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->lockfd = lockfd;
    l->cap = cap;
    l->keep_tail = keep_tail;
    l->fn = fn;
    l->ctx = ctx;
    if (!(l->path = wh_path_join(dir, name))) {
        *err = wh_strdup0("out of memory");
        return -1;
    }
    int rc = s_open(l);
    if (rc) {
        *err = wh_strdup_printf("cannot open '%s': %s", l->path, wh_strerror(rc));
        return -1;
    }
    if ((rc = wh_cache_log_read(l))) {
        *err = wh_strdup_printf("cannot read '%s': %s", l->path, wh_strerror(rc));
        return -1;
    }
    return 0;
}

void wh_cache_log_close(wh_cache_log_t *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    free(l->path);
    l->path = NULL;
}

/* Adds n bytes to the line being read, keeping at most l->cap of them:
 * the last ones (keep_tail), or none and *skip set. */
static int s_line_add(wh_cache_log_t *l, wh_buf_t *line, int *skip, const char *p, size_t n)
{
    if (*skip)
        return 0;
    if (line->len + n <= l->cap)
        return wh_buf_append(line, p, n);
    if (!l->keep_tail) {
        *skip = 1;
        wh_buf_reset(line);
        return 0;
    }
    if (n >= l->cap) {
        wh_buf_reset(line);
        return wh_buf_append(line, p + n - l->cap, l->cap);
    }
    size_t drop = line->len + n - l->cap;
    memmove(line->buf, line->buf + drop, line->len - drop);
    line->len -= drop;
    return wh_buf_append(line, p, n);
}

/* Reads from l->loaded to the end; a partial last line is left for later. */
static int s_read_new(wh_cache_log_t *l)
{
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return WH_ENOMEM;
    wh_buf_t line = WH_BUF_INIT;
    int skip = 0, rc = 0;
    off_t off = l->loaded, line_start = l->loaded;
    for (;;) {
        ssize_t got = pread(l->fd, buf, CHUNK, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            rc = got < 0 ? -errno : 0;
            break;
        }
        for (const char *p = buf, *end = buf + got; p < end && !rc;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            rc = s_line_add(l, &line, &skip, p, (size_t)((nl ? nl : end) - p));
            if (!nl || rc)
                break;
            if (!skip)
                l->fn->line(l->ctx, line.buf ? line.buf : "", line.len);
            skip = 0;
            wh_buf_reset(&line);
            line_start = off + (nl + 1 - buf);
            p = nl + 1;
        }
        if (rc)
            break;
        off += got;
    }
    l->loaded = line_start;
    wh_buf_free(&line);
    free(buf);
    return rc;
}

int wh_cache_log_read(wh_cache_log_t *l)
{
    if (l->fd < 0)
        return 0;
    int rc = s_follow(l);
    struct stat st;
    if (rc || fstat(l->fd, &st) < 0)
        return rc ? rc : -errno;
    return st.st_size > l->loaded ? s_read_new(l) : 0;
}

int wh_cache_log_append(wh_cache_log_t *l, const char *line, size_t n)
{
    if (l->fd < 0)
        return 0;
    int rc = wh_cache_lock(l->lockfd, 0);
    if (rc)
        return rc;
    if (!(rc = s_follow(l))) {
        ssize_t w;
        do
            w = write(l->fd, line, n);
        while (w < 0 && errno == EINTR);
        /* Retrying the rest of a short write would split the line: end it
         * instead; readers ignore the torn line. */
        if (w >= 0 && (size_t)w != n && write(l->fd, "\n", 1) >= 0)
            rc = WH_EIO;
        else if (w < 0 || (size_t)w != n)
            rc = w < 0 ? -errno : WH_EIO;
    }
    wh_cache_unlock(l->lockfd);
    return rc;
}

off_t wh_cache_log_size(const wh_cache_log_t *l)
{
    struct stat st;
    return l->fd >= 0 && fstat(l->fd, &st) == 0 ? st.st_size : 0;
}

int wh_cache_log_rewrite(wh_cache_log_t *l, int (*fill)(void *wctx, FILE *f), void *wctx)
{
    if (l->fd < 0)
        return 0;
    char *tmp = wh_strdup_printf("%s.new", l->path);
    if (!tmp)
        return WH_ENOMEM;
    int rc = 0;
    FILE *f = fopen(tmp, "we");
    if (!f)
        rc = -errno;
    else {
        rc = fill(wctx, f);
        if (!rc && (fflush(f) != 0 || fsync(fileno(f)) != 0))
            rc = -errno;
        if (fclose(f) != 0 && !rc)
            rc = -errno;
    }
    if (!rc && rename(tmp, l->path) < 0)
        rc = -errno;
    if (rc)
        unlink(tmp);
    free(tmp);
    if (rc)
        return rc;
    /* Ours now: what it holds is what the caller wrote from its tables. */
    if ((rc = s_open(l)))
        return rc;
    l->loaded = wh_cache_log_size(l);
    return 0;
}
