/*
 * journal_file — the journal's file back end (journal_be.h): one record per
 * line, appended with one write(2) each and fdatasync'ed, so a record is
 * either whole on disk or (after a machine crash mid-write) a cut-short
 * last line, which load drops with a warning. The file is flock'ed for the
 * life of the handle: a second coordinator on the same file is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal_be.h"
#include "wh_common.h"

#define S_MAX_FILE (64u << 20)

typedef struct {
    char *path;
    char *desc;
    int fd;
} s_file_t;

/* Opens (creating) path for appending and takes its lock. */
static int s_open_locked(const char *path, int flags, char **err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | flags, 0600);
    if (fd < 0) {
        *err = wh_strdup_printf("cannot open journal '%s': %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        *err = errno == EWOULDBLOCK
                   ? wh_strdup_printf("journal '%s' is in use by another coordinator (give each "
                                      "coordinator its own --journal PATH, or --journal off)", path)
                   : wh_strdup_printf("cannot lock journal '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void *wh_journal_file_open(const char *path, char **err)
{
    s_file_t *f = calloc(1, sizeof *f);
    char *dir = strdup(path);
    if (!f || !dir) {
        free(f);
        free(dir);
        *err = strdup("out of memory");
        return NULL;
    }
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        wh_mkdir_p(dir);
    }
    free(dir);
    f->fd = s_open_locked(path, 0, err);
    f->path = strdup(path);
    f->desc = wh_strdup_printf("file %s", path);
    if (f->fd < 0 || !f->path || !f->desc) {
        if (f->fd >= 0)
            close(f->fd);
        free(f->path);
        free(f->desc);
        free(f);
        if (!*err)
            *err = strdup("out of memory");
        return NULL;
    }
    return f;
}

/* Reads the whole file; drops a cut-short last line (truncating it away,
 * so the next append starts a line of its own). */
static int s_slurp(s_file_t *f, char **text, size_t *len, char **err)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0 || (uint64_t)st.st_size > S_MAX_FILE) {
        *err = wh_strdup_printf("journal '%s' cannot be read or is over 64 MiB", f->path);
        return WH_EIO;
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *b = malloc(n + 1);
    while (b && got < n) {
        ssize_t r = pread(f->fd, b + got, n - got, (off_t)got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (!b || got != n) {
        free(b);
        *err = wh_strdup_printf("cannot read journal '%s'", f->path);
        return WH_EIO;
    }
    b[n] = '\0';
    size_t whole = n;
    while (whole > 0 && b[whole - 1] != '\n')
        whole--;
    if (whole < n) {
        wh_warn("journal '%s': dropped a cut-short last record (%zu bytes; the machine stopped "
                "while it was written)", f->path, n - whole);
        if (ftruncate(f->fd, (off_t)whole) != 0)
            wh_warn("journal '%s': cannot truncate: %s", f->path, strerror(errno));
        b[whole] = '\0';
    }
    *text = b;
    *len = whole;
    return 0;
}

static int s_load(void *be, wh_journal_visit_fn fn, void *ctx, char **err)
{
    s_file_t *f = be;
    char *text = NULL;
    size_t len = 0;
    int rc = s_slurp(f, &text, &len, err);
    int lineno = 0;
    for (char *p = text; !rc && p && p < text + len;) {
        char *nl = strchr(p, '\n');
        *nl = '\0';
        lineno++;
        if (*p) {
            char where[64];
            snprintf(where, sizeof where, "line %d", lineno);
            rc = fn(ctx, where, p, WH_JOURNAL_SEQ_ANY);
        }
        p = nl + 1;
    }
    free(text);
    return rc;
}

/* One write(2) of the record and its newline, then fdatasync. */
static int s_append(int fd, const char *record)
{
    size_t n = strlen(record);
    char *line = malloc(n + 1);
    if (!line)
        return WH_ENOMEM;
    memcpy(line, record, n);
    line[n] = '\n';
    ssize_t w = write(fd, line, n + 1);
    int e = w < 0 ? -errno : (size_t)w != n + 1 ? WH_EIO : 0;
    free(line);
    if (!e && fdatasync(fd) != 0)
        e = -errno;
    return e;
}

static int s_put(void *be, const char *id, const char *record, uint64_t seq, char **err)
{
    (void)id;
    (void)seq; /* in the record; the front refuses an older one read after a newer */
    s_file_t *f = be;
    int rc = s_append(f->fd, record);
    if (rc)
        *err = wh_strdup_printf("cannot append to '%s': %s", f->path, wh_strerror(rc));
    return rc;
}

/* Writes keep into PATH.tmp (locked before it is renamed over PATH), which
 * becomes the handle's file. */
static int s_compact(void *be, const char *const *keep, int nkeep, const char *const *drop,
                     int ndrop, char **err)
{
    (void)drop;
    (void)ndrop;
    s_file_t *f = be;
    char *tmp = wh_strdup_printf("%s.tmp", f->path);
    if (!tmp) {
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    unlink(tmp);
    int fd = s_open_locked(tmp, O_TRUNC, err), rc = fd < 0 ? WH_EIO : 0;
    for (int i = 0; !rc && i < nkeep; i++)
        rc = s_append(fd, keep[i]);
    if (!rc && rename(tmp, f->path) != 0)
        rc = -errno;
    if (rc && fd >= 0) {
        if (!*err)
            *err = wh_strdup_printf("cannot rewrite journal '%s': %s", f->path, wh_strerror(rc));
        close(fd);
        unlink(tmp);
    } else if (!rc) {
        close(f->fd);
        f->fd = fd;
    }
    free(tmp);
    return rc;
}

static const char *s_describe(const void *be)
{
    return ((const s_file_t *)be)->desc;
}

static void s_close(void *be)
{
    s_file_t *f = be;
    close(f->fd);
    free(f->path);
    free(f->desc);
    free(f);
}

const wh_journal_ops_t wh_journal_file_ops = {s_put, s_load, s_compact, s_describe, s_close};
