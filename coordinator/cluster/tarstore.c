/* The coordinator's tar snapshots: see tarstore.h. */
#define _GNU_SOURCE
#include "tarstore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <utime.h>
#include <unistd.h>

#include "wh_common.h"
#include "wh_tar.h"

#define S_MAX_UPLOADS 16
#define S_IDLE_MS 60000

typedef struct {
    char key[256];
    char sha[65];
    uint64_t total, held, last_ms;
    int fd;
    char *tmp;
    wh_sha256_t *h;
} s_up_t;

typedef struct {
    char sha[65];
    int n;
} s_pin_t;

struct wh_tarstore {
    char *dir;
    uint64_t cap;
    s_up_t up[S_MAX_UPLOADS];
    s_pin_t *pins;
    int npins;
};

wh_tarstore_t *wh_tarstore_new(const char *root, uint64_t cap, char **err)
{
    wh_tarstore_t *ts = calloc(1, sizeof *ts);
    if (!ts || !(ts->dir = wh_path_join(root, "blobs"))) {
        free(ts);
        *err = strdup("out of memory");
        return NULL;
    }
    int rc = wh_mkdir_p(ts->dir);
    if (rc) {
        *err = wh_strdup_printf("cannot create the tar snapshot store %s: %s", ts->dir,
                                wh_strerror(rc));
        free(ts->dir);
        free(ts);
        return NULL;
    }
    chmod(ts->dir, 0700);
    ts->cap = cap ? cap : WH_TARSTORE_CAP;
    for (int i = 0; i < S_MAX_UPLOADS; i++)
        ts->up[i].fd = -1;
    return ts;
}

static void s_up_drop(s_up_t *u)
{
    if (u->fd >= 0)
        close(u->fd);
    if (u->tmp) {
        unlink(u->tmp);
        free(u->tmp);
    }
    if (u->h) {
        char hex[65];
        wh_sha256_final_hex(&u->h, hex);
    }
    memset(u, 0, sizeof *u);
    u->fd = -1;
}

void wh_tarstore_destroy(wh_tarstore_t **p)
{
    if (!p || !*p)
        return;
    wh_tarstore_t *ts = *p;
    for (int i = 0; i < S_MAX_UPLOADS; i++)
        if (ts->up[i].last_ms)
            s_up_drop(&ts->up[i]);
    free(ts->pins);
    free(ts->dir);
    free(ts);
    *p = NULL;
}

char *wh_tarstore_path(const wh_tarstore_t *ts, const char *sha)
{
    return wh_strdup_printf("%s/%s.tgz", ts->dir, sha);
}

void wh_tarstore_pin(wh_tarstore_t *ts, const char *sha, int in)
{
    for (int i = 0; i < ts->npins; i++) {
        if (!strcmp(ts->pins[i].sha, sha)) {
            ts->pins[i].n += in ? 1 : -1;
            return;
        }
    }
    if (!in)
        return;
    s_pin_t *v = realloc(ts->pins, (size_t)(ts->npins + 1) * sizeof *v);
    if (!v)
        return;
    ts->pins = v;
    snprintf(v[ts->npins].sha, sizeof v[ts->npins].sha, "%s", sha);
    v[ts->npins++].n = 1;
}

static int s_pinned(const wh_tarstore_t *ts, const char *sha)
{
    for (int i = 0; i < ts->npins; i++)
        if (!strcmp(ts->pins[i].sha, sha) && ts->pins[i].n > 0)
            return 1;
    return 0;
}

/* Bytes the store holds (whole tars and uploads under way). */
static uint64_t s_used(const wh_tarstore_t *ts, char *oldest, struct timespec *when)
{
    uint64_t sum = 0;
    DIR *d = opendir(ts->dir);
    struct dirent *e;
    oldest[0] = 0;
    while (d && (e = readdir(d))) {
        struct stat st;
        char *p = wh_path_join(ts->dir, e->d_name);
        if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            sum += (uint64_t)st.st_size;
            size_t n = strlen(e->d_name);
            if (n == 68 && !strcmp(e->d_name + 64, ".tgz")) {
                char sha[65];
                memcpy(sha, e->d_name, 64);
                sha[64] = 0;
                if (!s_pinned(ts, sha) &&
                    (!oldest[0] || st.st_mtim.tv_sec < when->tv_sec)) {
                    memcpy(oldest, sha, 65);
                    *when = st.st_mtim;
                }
            }
        }
        free(p);
    }
    if (d)
        closedir(d);
    for (int i = 0; i < S_MAX_UPLOADS; i++)
        if (ts->up[i].last_ms)
            sum += ts->up[i].total - ts->up[i].held; /* what it will take */
    return sum;
}

/* Makes room for want more bytes; 0 or WH_ETOOBIG. */
static int s_room(wh_tarstore_t *ts, uint64_t want)
{
    for (int guard = 0; guard < 100000; guard++) {
        char oldest[65];
        struct timespec when = {0, 0};
        uint64_t used = s_used(ts, oldest, &when);
        if (used + want <= ts->cap)
            return 0;
        if (!oldest[0])
            return WH_ETOOBIG;
        char *p = wh_tarstore_path(ts, oldest);
        char *k = wh_strdup_printf("%s/%s.keys", ts->dir, oldest);
        wh_info("tar snapshot store over %llu bytes: removed %s",
                (unsigned long long)ts->cap, oldest);
        if (p)
            unlink(p);
        if (k)
            unlink(k);
        free(p);
        free(k);
    }
    return WH_ETOOBIG;
}

static int s_add_key(const wh_tarstore_t *ts, const char *sha, const char *key)
{
    char *k = wh_strdup_printf("%s/%s.keys", ts->dir, sha);
    int fd = k ? open(k, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
    free(k);
    if (fd < 0)
        return -errno;
    char *line = wh_strdup_printf("%s\n", key);
    ssize_t n = line ? write(fd, line, strlen(line)) : -1;
    int ok = line && n == (ssize_t)strlen(line);
    free(line);
    close(fd);
    return ok ? 0 : WH_EIO;
}

int wh_tarstore_owned(wh_tarstore_t *ts, const char *key, const char *sha)
{
    if (!wh_tar_sha_ok(sha))
        return 0;
    char *p = wh_tarstore_path(ts, sha);
    char *k = wh_strdup_printf("%s/%s.keys", ts->dir, sha);
    char *text = NULL;
    size_t len = 0;
    int ok = p && k && wh_is_file(p) && wh_read_file(k, 1 << 20, &text, &len) == 0;
    int found = 0;
    for (char *s = ok ? text : NULL, *e; s && *s && !found; s = e ? e + 1 : NULL) {
        e = strchr(s, '\n');
        if (e)
            *e = 0;
        found = !strcmp(s, key);
    }
    free(text);
    free(p);
    free(k);
    return found;
}

static s_up_t *s_find(wh_tarstore_t *ts, const char *key, const char *sha)
{
    for (int i = 0; i < S_MAX_UPLOADS; i++)
        if (ts->up[i].last_ms && !strcmp(ts->up[i].key, key) && !strcmp(ts->up[i].sha, sha))
            return &ts->up[i];
    return NULL;
}

int wh_tarstore_put(wh_tarstore_t *ts, const char *key, const char *sha, uint64_t total,
                    uint64_t off, const uint8_t *data, size_t len, uint64_t *held, char **err)
{
    *held = 0;
    char a[32], b[32];
    if (!wh_tar_sha_ok(sha)) {
        *err = strdup("a tar snapshot is named by its sha256 (64 lower-case hex digits)");
        return WH_EINVAL;
    }
    if (!total || total > WH_TAR_MAX_PACKED) {
        *err = wh_strdup_printf("tar snapshot %.12s is %s; this coordinator takes 1 byte to %s",
                                sha, wh_tar_size_str(total, a, sizeof a),
                                wh_tar_size_str(WH_TAR_MAX_PACKED, b, sizeof b));
        return WH_ETOOBIG;
    }
    s_up_t *u = s_find(ts, key, sha);
    if (!u) {
        char *p = wh_tarstore_path(ts, sha);
        struct stat st;
        int have = p && stat(p, &st) == 0 && (uint64_t)st.st_size == total;
        if (have) {
            /* Whole here already: this key must still send every byte
             * (the hash alone proves nothing), but nothing is stored. */
            utime(p, NULL);
        }
        free(p);
        for (int i = 0; i < S_MAX_UPLOADS && !u; i++)
            if (!ts->up[i].last_ms)
                u = &ts->up[i];
        if (!u) {
            *err = strdup("too many tar snapshot uploads at once; try again");
            return WH_EUNAVAIL;
        }
        if (off != 0) {
            *held = 0;
            return 0; /* start from the start */
        }
        if (s_room(ts, total) != 0) {
            *err = wh_strdup_printf("tar snapshot %.12s (%s) does not fit the coordinator's "
                                    "store (%s, in use by running jobs)", sha,
                                    wh_tar_size_str(total, a, sizeof a),
                                    wh_tar_size_str(ts->cap, b, sizeof b));
            return WH_ETOOBIG;
        }
        memset(u, 0, sizeof *u);
        snprintf(u->key, sizeof u->key, "%s", key);
        memcpy(u->sha, sha, 65);
        u->total = total;
        u->tmp = wh_strdup_printf("%s/up-%s-%d.tmp", ts->dir, sha, (int)(u - ts->up));
        u->fd = u->tmp ? open(u->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
        u->h = wh_sha256_new();
        u->last_ms = wh_now_ms();
        if (u->fd < 0 || !u->h) {
            *err = wh_strdup_printf("cannot store a tar snapshot under %s", ts->dir);
            s_up_drop(u);
            return WH_EIO;
        }
    }
    u->last_ms = wh_now_ms();
    if (off != u->held || off + len > u->total) {
        *held = u->held; /* out of order: say where to go on */
        if (off + len > u->total) {
            *err = wh_strdup_printf("tar snapshot %.12s: a chunk past its size", sha);
            s_up_drop(u);
            return WH_EINVAL;
        }
        return 0;
    }
    if (len && write(u->fd, data, len) != (ssize_t)len) {
        *err = wh_strdup_printf("cannot store a tar snapshot under %s: %s", ts->dir,
                                strerror(errno));
        s_up_drop(u);
        return WH_EIO;
    }
    wh_sha256_update(u->h, data, len);
    u->held += len;
    *held = u->held;
    if (u->held < u->total)
        return 0;
    char hex[65];
    wh_sha256_final_hex(&u->h, hex);
    int rc = 0;
    if (strcmp(hex, sha) != 0) {
        *err = wh_strdup_printf("tar snapshot %.12s: the bytes sent hash to %.12s; refused", sha,
                                hex);
        rc = WH_EINVAL;
    } else {
        char *p = wh_tarstore_path(ts, sha);
        if (fsync(u->fd) != 0 || !p || rename(u->tmp, p) != 0 || s_add_key(ts, sha, key) != 0) {
            *err = wh_strdup_printf("cannot store a tar snapshot under %s", ts->dir);
            rc = WH_EIO;
        } else {
            free(u->tmp);
            u->tmp = NULL;
        }
        free(p);
    }
    s_up_drop(u);
    *held = rc ? 0 : total;
    return rc;
}

long wh_tarstore_read(wh_tarstore_t *ts, const char *sha, uint64_t off, uint8_t *buf, size_t cap,
                      uint64_t *total)
{
    if (!wh_tar_sha_ok(sha))
        return WH_ENOTFOUND;
    char *p = wh_tarstore_path(ts, sha);
    int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        free(p);
        return WH_ENOTFOUND;
    }
    if (off == 0)
        utime(p, NULL);
    free(p);
    *total = (uint64_t)st.st_size;
    ssize_t n = off < *total ? pread(fd, buf, cap, (off_t)off) : 0;
    close(fd);
    return n < 0 ? WH_EIO : (long)n;
}

void wh_tarstore_tick(wh_tarstore_t *ts)
{
    uint64_t now = wh_now_ms();
    for (int i = 0; i < S_MAX_UPLOADS; i++)
        if (ts->up[i].last_ms && now - ts->up[i].last_ms > S_IDLE_MS)
            s_up_drop(&ts->up[i]);
}
