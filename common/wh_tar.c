/* A project as a gzip'd tar: see wh_tar.h. */
#define _GNU_SOURCE
#include "wh_tar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include "wh_common.h"

#define S_BLOCK 512
#define S_MAX_PATH 4096

const char *wh_tar_size_str(uint64_t n, char *buf, size_t cap)
{
    if (n >= (1ull << 20))
        snprintf(buf, cap, "%.1f MiB", (double)n / (1 << 20));
    else if (n >= (1ull << 10))
        snprintf(buf, cap, "%.1f KiB", (double)n / (1 << 10));
    else
        snprintf(buf, cap, "%llu bytes", (unsigned long long)n);
    return buf;
}

int wh_tar_sha_ok(const char *s)
{
    if (!s || strlen(s) != 64)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

static uint64_t s_max_packed(const wh_tar_limits_t *l)
{
    return l && l->max_packed ? l->max_packed : WH_TAR_MAX_PACKED;
}

static uint64_t s_max_unpacked(const wh_tar_limits_t *l)
{
    return l && l->max_unpacked ? l->max_unpacked : WH_TAR_MAX_UNPACKED;
}

/* 1 when link target, seen from the folder of rel (both relative to the
 * tree's root), stays inside the tree by its spelling. */
static int s_link_inside(const char *rel, const char *target)
{
    if (!*target || target[0] == '/')
        return 0;
    int depth = 0;
    for (const char *p = rel; (p = strchr(p, '/')); p++)
        depth++;
    const char *p = target;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return 0;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return 1;
}

/* ---- packing ---- */

typedef struct {
    z_stream z;
    int z_ok;
    wh_buf_t out;
    uint64_t packed;      /* compressed bytes made (kept or not) */
    uint64_t unpacked;    /* file bytes read */
    unsigned files, entries;
    uint64_t max_packed, max_unpacked;
    int over;             /* past a limit: count on, keep nothing */
    const char *root;
    const char *const *skip;
    int nskip;
    wh_tar_ignored_fn ignored;
    char *const *ignore;
    int nignore;
    char *err;
} s_pack_t;

static int s_deflate(s_pack_t *p, const void *data, size_t n, int flush)
{
    uint8_t chunk[16384];
    p->z.next_in = (Bytef *)data;
    p->z.avail_in = (uInt)n;
    do {
        p->z.next_out = chunk;
        p->z.avail_out = sizeof chunk;
        int rc = deflate(&p->z, flush);
        if (rc == Z_STREAM_ERROR)
            return WH_EIO;
        size_t got = sizeof chunk - p->z.avail_out;
        p->packed += got;
        if (p->packed > p->max_packed)
            p->over = 1;
        if (!p->over && got && wh_buf_append(&p->out, chunk, got) != 0)
            return WH_ENOMEM;
    } while (p->z.avail_out == 0 || (flush == Z_FINISH && p->z.avail_in));
    return 0;
}

static void s_octal(char *dst, size_t w, uint64_t v)
{
    /* w-1 digits and a NUL, as ustar writes them */
    snprintf(dst, w, "%0*llo", (int)(w - 1), (unsigned long long)v);
}

static int s_pax(s_pack_t *p, const char *key, const char *val);

/* One header block (and the pax record before it when a name does not
 * fit ustar's fields). */
/* A header field: up to n bytes of src, not NUL-terminated when it fills
 * the field (ustar's fields are fixed-width; the header starts zeroed). */
static void s_field(char *dst, const char *src, size_t n)
{
    memcpy(dst, src, strnlen(src, n));
}

static int s_header(s_pack_t *p, const char *name, char type, unsigned mode, uint64_t size,
                    const char *link)
{
    int rc;
    size_t nl = strlen(name);
    const char *prefix = "", *base = name;
    char pre[156] = "";
    if (nl > 100) {
        /* split at a '/' so that prefix <= 155 and base <= 100 */
        const char *cut = NULL;
        for (const char *s = name; (s = strchr(s, '/')); s++)
            if ((size_t)(s - name) <= 155 && strlen(s + 1) <= 100 && s > name)
                cut = s;
        if (cut) {
            memcpy(pre, name, (size_t)(cut - name));
            pre[cut - name] = 0;
            prefix = pre;
            base = cut + 1;
        } else if ((rc = s_pax(p, "path", name)) != 0) {
            return rc;
        } else {
            base = "";
        }
    }
    if (link && strlen(link) > 100 && (rc = s_pax(p, "linkpath", link)) != 0)
        return rc;
    char h[S_BLOCK];
    memset(h, 0, sizeof h);
    s_field(h, *base ? base : "././@pax", 100);
    s_octal(h + 100, 8, mode);
    s_octal(h + 108, 8, 0);
    s_octal(h + 116, 8, 0);
    s_octal(h + 124, 12, size);
    s_octal(h + 136, 12, 0);
    h[156] = type;
    if (link && strlen(link) <= 100)
        s_field(h + 157, link, 100);
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    s_field(h + 345, prefix, 155);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < S_BLOCK; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    return s_deflate(p, h, sizeof h, Z_NO_FLUSH);
}

static int s_pad(s_pack_t *p, uint64_t size)
{
    static const char zero[S_BLOCK];
    size_t r = (size_t)(size % S_BLOCK);
    return r ? s_deflate(p, zero, S_BLOCK - r, Z_NO_FLUSH) : 0;
}

static int s_pax(s_pack_t *p, const char *key, const char *val)
{
    /* "LEN key=val\n", LEN counting itself */
    size_t body = strlen(key) + strlen(val) + 3, len = body + 1;
    while (snprintf(NULL, 0, "%zu", len) + body != len)
        len++;
    char *rec = wh_strdup_printf("%zu %s=%s\n", len, key, val);
    if (!rec)
        return WH_ENOMEM;
    int rc = s_header(p, "", 'x', 0644, len, NULL);
    rc = rc ? rc : s_deflate(p, rec, len, Z_NO_FLUSH);
    rc = rc ? rc : s_pad(p, len);
    free(rec);
    return rc;
}

static int s_skipped(const s_pack_t *p, const char *abs, const char *rel, const char *base,
                     int is_dir)
{
    if (!strcmp(base, ".git"))
        return 1;
    if (is_dir && (!strncmp(base, "build", 5) || !strcmp(rel, "whittle-runs")))
        return 1;
    for (int i = 0; i < p->nskip; i++)
        if (p->skip[i] && !strcmp(p->skip[i], abs))
            return 1;
    return p->ignored && p->ignored(p->ignore, p->nignore, rel);
}

static int s_file(s_pack_t *p, const char *abs, const char *rel, const struct stat *st)
{
    int fd = open(abs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = -errno;
        p->err = wh_strdup_printf("cannot read %s: %s", abs, wh_strerror(e));
        return e;
    }
    uint64_t size = (uint64_t)st->st_size;
    int rc = s_header(p, rel, '0', (st->st_mode & 0111) ? 0755 : 0644, size, NULL);
    uint64_t left = size;
    char buf[65536];
    while (!rc && left) {
        ssize_t n = read(fd, buf, left < sizeof buf ? left : sizeof buf);
        if (n <= 0) {
            rc = n < 0 ? -errno : WH_EIO;
            p->err = wh_strdup_printf("cannot read %s: %s", abs,
                                      n < 0 ? wh_strerror(rc) : "it shrank while packing");
            break;
        }
        left -= (uint64_t)n;
        p->unpacked += (uint64_t)n;
        rc = s_deflate(p, buf, (size_t)n, Z_NO_FLUSH);
    }
    close(fd);
    rc = rc ? rc : s_pad(p, size);
    p->files++;
    return rc;
}

static int s_walk(s_pack_t *p, const char *abs, const char *rel)
{
    struct dirent **v = NULL;
    int n = scandir(abs, &v, NULL, alphasort);
    if (n < 0) {
        int e = -errno;
        p->err = wh_strdup_printf("cannot read folder %s: %s", abs, wh_strerror(e));
        return e;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = v[i]->d_name;
        if (rc || !strcmp(nm, ".") || !strcmp(nm, ".."))
            continue;
        char *a = wh_path_join(abs, nm);
        char *r = *rel ? wh_strdup_printf("%s/%s", rel, nm) : strdup(nm);
        struct stat st;
        if (!a || !r) {
            rc = WH_ENOMEM;
        } else if (lstat(a, &st) != 0) {
            rc = -errno;
            p->err = wh_strdup_printf("cannot read %s: %s", a, wh_strerror(rc));
        } else if (strlen(r) >= S_MAX_PATH) {
            rc = WH_EINVAL;
            p->err = wh_strdup_printf("path %s is longer than %d bytes; refused", a, S_MAX_PATH);
        } else if (s_skipped(p, a, r, nm, S_ISDIR(st.st_mode))) {
            /* left home */
        } else if (++p->entries > WH_TAR_MAX_ENTRIES) {
            rc = WH_ETOOBIG;
            p->err = wh_strdup_printf("project %s has more than %u files and folders, the most "
                                      "a tar snapshot holds; --ignore what the job does not "
                                      "need", p->root, WH_TAR_MAX_ENTRIES);
        } else if (S_ISDIR(st.st_mode)) {
            rc = s_header(p, r, '5', 0755, 0, NULL);
            rc = rc ? rc : s_walk(p, a, r);
        } else if (S_ISREG(st.st_mode)) {
            rc = s_file(p, a, r, &st);
        } else if (S_ISLNK(st.st_mode)) {
            char t[S_MAX_PATH];
            ssize_t tl = readlink(a, t, sizeof t - 1);
            if (tl < 0) {
                rc = -errno;
                p->err = wh_strdup_printf("cannot read link %s: %s", a, wh_strerror(rc));
            } else {
                t[tl] = 0;
                if (!s_link_inside(r, t)) {
                    rc = WH_EINVAL;
                    p->err = wh_strdup_printf("symlink %s points out of the project (to '%s'); "
                                              "a tar snapshot keeps links inside it: --ignore "
                                              "it or make it relative",
                                              a, t);
                } else {
                    rc = s_header(p, r, '2', 0777, 0, t);
                }
            }
        } else {
            rc = WH_EINVAL;
            p->err = wh_strdup_printf("%s is a %s, not a file, folder or symlink; a tar snapshot "
                                      "refuses it: --ignore it",
                                      a, S_ISFIFO(st.st_mode)   ? "fifo"
                                         : S_ISSOCK(st.st_mode) ? "socket"
                                                                : "device");
        }
        free(a);
        free(r);
    }
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return rc;
}

int wh_tar_pack(const char *dir, const char *const *skip, int nskip, wh_tar_ignored_fn ignored,
                char *const *ignore, int nignore, const wh_tar_limits_t *lim, uint8_t **out,
                size_t *out_len, unsigned *files, char **err)
{
    s_pack_t p;
    memset(&p, 0, sizeof p);
    p.max_packed = s_max_packed(lim);
    p.max_unpacked = s_max_unpacked(lim);
    p.root = dir;
    p.skip = skip;
    p.nskip = nskip;
    p.ignored = ignored;
    p.ignore = ignore;
    p.nignore = nignore;
    *out = NULL;
    *out_len = 0;
    /* gzip wrapper (15 + 16): a plain .tar.gz anyone can list; zlib writes
     * mtime 0 in its header, so the bytes depend on the files alone. */
    if (deflateInit2(&p.z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        *err = strdup("cannot start zlib");
        return WH_ENOMEM;
    }
    int rc = s_walk(&p, dir, "");
    static const char end[2 * S_BLOCK];
    rc = rc ? rc : s_deflate(&p, end, sizeof end, Z_FINISH);
    deflateEnd(&p.z);
    char a[32], b[32];
    if (!rc && p.unpacked > p.max_unpacked) {
        rc = WH_ETOOBIG;
        p.err = wh_strdup_printf("project %s holds %s of files, over the %s a tar snapshot "
                                 "unpacks to; --ignore what the job does not need",
                                 dir, wh_tar_size_str(p.unpacked, a, sizeof a),
                                 wh_tar_size_str(p.max_unpacked, b, sizeof b));
    } else if (!rc && p.over) {
        rc = WH_ETOOBIG;
        p.err = wh_strdup_printf("project %s packs to %s (gzip'd tar), over the limit of %s "
                                 "(--snapshot-max); --ignore what the job does not need",
                                 dir, wh_tar_size_str(p.packed, a, sizeof a),
                                 wh_tar_size_str(p.max_packed, b, sizeof b));
    }
    if (rc) {
        wh_buf_free(&p.out);
        *err = p.err ? p.err : strdup(wh_strerror(rc));
        return rc;
    }
    free(p.err);
    *out_len = p.out.len;
    *out = (uint8_t *)wh_buf_detach(&p.out);
    if (files)
        *files = p.files;
    return 0;
}

/* ---- unpacking ---- */

typedef struct {
    z_stream z;
    uint8_t buf[65536];
    size_t have, pos;
    int eof;
    uint64_t inflated, max_inflated;
} s_in_t;

/* Exactly n bytes into dst (NULL: skip them). 0, or WH_EPARSE at a cut or
 * corrupt stream, WH_ETOOBIG past the cap. */
static int s_get(s_in_t *in, void *dst, size_t n)
{
    uint8_t *d = dst;
    while (n) {
        if (in->pos == in->have) {
            if (in->eof)
                return WH_EPARSE;
            in->z.next_out = in->buf;
            in->z.avail_out = sizeof in->buf;
            int rc = inflate(&in->z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END)
                in->eof = 1;
            else if (rc != Z_OK)
                return WH_EPARSE;
            in->have = sizeof in->buf - in->z.avail_out;
            in->pos = 0;
            in->inflated += in->have;
            if (in->inflated > in->max_inflated)
                return WH_ETOOBIG;
            if (!in->have && !in->eof && in->z.avail_in == 0)
                return WH_EPARSE;
            continue;
        }
        size_t k = in->have - in->pos < n ? in->have - in->pos : n;
        if (d) {
            memcpy(d, in->buf + in->pos, k);
            d += k;
        }
        in->pos += k;
        n -= k;
    }
    return 0;
}

static uint64_t s_oct(const char *f, size_t w, int *bad)
{
    uint64_t v = 0;
    size_t i = 0;
    while (i < w && f[i] == ' ')
        i++;
    for (; i < w && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            *bad = 1;
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    if (i < w && f[i] && f[i] != ' ')
        *bad = 1;
    return v;
}

/* Checks and normalizes an entry name in place ("./a//b/" -> "a/b"). 0 or
 * a reason. */
static const char *s_clean(char *name)
{
    if (!*name)
        return "an empty name";
    if (name[0] == '/')
        return "an absolute path";
    char *w = name;
    const char *r = name;
    while (*r) {
        const char *e = strchr(r, '/');
        size_t n = e ? (size_t)(e - r) : strlen(r);
        if (n == 2 && r[0] == '.' && r[1] == '.')
            return "a '..' component";
        if (n && !(n == 1 && r[0] == '.')) {
            if (w != name)
                *w++ = '/';
            memmove(w, r, n);
            w += n;
        }
        r += n;
        while (*r == '/')
            r++;
    }
    *w = 0;
    return *name ? NULL : "an empty name";
}

/* The folder fd of rel's parent, every folder on the way opened without
 * following a link (a missing one is made). -1 with errno. */
static int s_parent(int root, const char *rel, const char **leaf)
{
    int fd = dup(root);
    const char *p = rel;
    for (;;) {
        const char *e = strchr(p, '/');
        if (!e) {
            *leaf = p;
            return fd;
        }
        char comp[S_MAX_PATH];
        memcpy(comp, p, (size_t)(e - p));
        comp[e - p] = 0;
        int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (nfd < 0 && errno == ENOENT && mkdirat(fd, comp, 0755) == 0)
            nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e2 = errno;
        close(fd);
        if (nfd < 0) {
            errno = e2;
            return -1;
        }
        fd = nfd;
        p = e + 1;
    }
}

typedef struct {
    char **v;
    int n, cap;
} s_links_t;

/* Where a link really leads, resolved inside the tree by the kernel
 * (RESOLVE_BENEATH: any step above root fails with EXDEV). Links that
 * lead nowhere yet were checked by spelling. */
static int s_beneath(int root, const char *rel)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, root, rel, &how, sizeof how);
    if (fd >= 0) {
        close((int)fd);
        return 0;
    }
    return errno == EXDEV || errno == ELOOP ? -1 : 0;
}

/* A pax extended header's records: path and linkpath are kept for the
 * next entry, the rest ignored. */
static int s_pax_in(s_in_t *in, uint64_t size, char **path, char **link, char **err)
{
    if (size > S_MAX_PATH * 2 + 64) {
        *err = strdup("a pax record is too long");
        return WH_ETOOBIG;
    }
    char *rec = calloc(1, (size_t)size + 1);
    int rc = rec ? 0 : WH_ENOMEM;
    if (!rc && ((rc = s_get(in, rec, (size_t)size)) != 0 ||
                (rc = s_get(in, NULL, (S_BLOCK - size % S_BLOCK) % S_BLOCK)) != 0)) {
        free(rec);
        *err = strdup("a pax record is cut short");
        return rc;
    }
    for (char *q = rec; q && q < rec + size;) {
        char *sp = strchr(q, ' '), *eq = sp ? strchr(sp, '=') : NULL;
        long len = strtol(q, NULL, 10);
        if (!sp || !eq || len <= 0 || q + len > rec + size || q[len - 1] != '\n')
            break;
        q[len - 1] = 0;
        char **dst = !strncmp(sp + 1, "path=", 5)       ? path
                     : !strncmp(sp + 1, "linkpath=", 9) ? link
                                                         : NULL;
        if (dst) {
            free(*dst);
            *dst = strdup(eq + 1);
        }
        q += len;
    }
    free(rec);
    return rc;
}

/* A regular file's bytes into a new file leaf of dfd (never an existing
 * one, never through a link). */
static int s_file_in(s_in_t *in, int dfd, const char *leaf, const char *shown, unsigned mode,
                     uint64_t size, char **err)
{
    int rc = 0;
    int fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
        rc = -errno;
        *err = wh_strdup_printf("entry '%s': %s", shown,
                                errno == EEXIST ? "given twice" : strerror(errno));
    }
    uint64_t left = size;
    char buf[65536];
    while (!rc && left) {
        size_t k = left < sizeof buf ? (size_t)left : sizeof buf;
        if ((rc = s_get(in, buf, k)) != 0) {
            *err = wh_strdup_printf("entry '%s' is cut short", shown);
        } else if (write(fd, buf, k) != (ssize_t)k) {
            rc = -errno;
            *err = wh_strdup_printf("entry '%s': %s", shown, strerror(errno));
        }
        left -= k;
    }
    if (fd >= 0)
        close(fd);
    if (!rc && (rc = s_get(in, NULL, (S_BLOCK - size % S_BLOCK) % S_BLOCK)) != 0)
        *err = wh_strdup_printf("entry '%s' is cut short", shown);
    return rc;
}

static int s_unpack(s_in_t *in, int root, const wh_tar_limits_t *lim, s_links_t *links,
                    char **err)
{
    char h[S_BLOCK];
    char *pax_path = NULL, *pax_link = NULL;
    uint64_t total = 0;
    unsigned entries = 0;
    int rc = 0;
    for (;;) {
        if ((rc = s_get(in, h, sizeof h)) != 0) {
            *err = strdup(rc == WH_ETOOBIG ? "it unpacks to more than the cap"
                                           : "it is cut short or not a gzip'd tar");
            break;
        }
        int zero = 1;
        for (int i = 0; i < S_BLOCK && zero; i++)
            zero = !h[i];
        if (zero)
            break; /* the end (a second zero block may follow) */
        int bad = 0;
        unsigned sum = 0;
        for (int i = 0; i < S_BLOCK; i++)
            sum += (i >= 148 && i < 156) ? ' ' : (unsigned char)h[i];
        uint64_t size = s_oct(h + 124, 12, &bad);
        if (s_oct(h + 148, 8, &bad) != sum || bad || memcmp(h + 257, "ustar", 5) != 0) {
            rc = WH_EPARSE;
            *err = strdup("a header is not a valid ustar header");
            break;
        }
        char type = h[156] ? h[156] : '0';
        if (++entries > WH_TAR_MAX_ENTRIES) {
            rc = WH_ETOOBIG;
            *err = wh_strdup_printf("it has more than %u entries", WH_TAR_MAX_ENTRIES);
            break;
        }
        if (type == 'x') {
            if ((rc = s_pax_in(in, size, &pax_path, &pax_link, err)) != 0)
                break;
            continue;
        }
        char name[S_MAX_PATH + 160], link[S_MAX_PATH];
        if (pax_path) {
            snprintf(name, sizeof name, "%s", pax_path);
        } else if (h[345]) {
            snprintf(name, sizeof name, "%.155s/%.100s", h + 345, h);
        } else {
            snprintf(name, sizeof name, "%.100s", h);
        }
        snprintf(link, sizeof link, "%s", pax_link ? pax_link : "");
        if (!pax_link)
            snprintf(link, sizeof link, "%.100s", h + 157);
        free(pax_path);
        free(pax_link);
        pax_path = pax_link = NULL;
        char shown[S_MAX_PATH + 160];
        snprintf(shown, sizeof shown, "%s", name);
        const char *why = s_clean(name);
        if (why) {
            rc = WH_EINVAL;
            *err = wh_strdup_printf("entry '%s' has %s", shown, why);
            break;
        }
        if (type != '0' && type != '5' && type != '2') {
            rc = WH_EINVAL;
            *err = wh_strdup_printf("entry '%s' is a %s; only files, folders and symlinks are "
                                    "taken", shown, type == '1' ? "hard link"
                                                    : type == '3' || type == '4' ? "device"
                                                    : type == '6' ? "fifo" : "kind not taken");
            break;
        }
        if (type == '0') {
            total += size;
            if (total > s_max_unpacked(lim)) {
                rc = WH_ETOOBIG;
                char a[32];
                *err = wh_strdup_printf("it unpacks to more than %s",
                                        wh_tar_size_str(s_max_unpacked(lim), a, sizeof a));
                break;
            }
        }
        const char *leaf;
        int dfd = s_parent(root, name, &leaf);
        if (dfd < 0) {
            rc = -errno;
            *err = wh_strdup_printf("entry '%s' lies below something that is not a folder of "
                                    "the snapshot (%s)", shown, strerror(errno));
            break;
        }
        if (type == '5') {
            if (mkdirat(dfd, leaf, 0755) != 0 && errno != EEXIST)
                rc = -errno;
            struct stat st;
            if (!rc && (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)))
                rc = WH_EINVAL;
            if (rc)
                *err = wh_strdup_printf("entry '%s': cannot make the folder", shown);
        } else if (type == '2') {
            if (!s_link_inside(name, link)) {
                rc = WH_EINVAL;
                *err = wh_strdup_printf("symlink '%s' points out of the snapshot (to '%s')", shown,
                                        link);
            } else if (symlinkat(link, dfd, leaf) != 0) {
                rc = -errno;
                *err = wh_strdup_printf("entry '%s': %s", shown,
                                        errno == EEXIST ? "given twice" : strerror(errno));
            } else if (links->n < links->cap || (links->v = realloc(links->v,
                                                                      (size_t)(links->cap = links->cap * 2 + 16) * sizeof *links->v))) {
                links->v[links->n++] = strdup(name);
            }
        } else {
            unsigned mode = (s_oct(h + 100, 8, &bad) & 0111) ? 0755 : 0644;
            rc = s_file_in(in, dfd, leaf, shown, mode, size, err);
        }
        close(dfd);
        if (rc)
            break;
    }
    free(pax_path);
    free(pax_link);
    /* Every link resolved for real, now that all are there: "d -> ." and
     * "x -> d/../.." pass by spelling and still leave the tree. */
    for (int i = 0; !rc && i < links->n; i++) {
        if (links->v[i] && s_beneath(root, links->v[i]) != 0) {
            rc = WH_EINVAL;
            *err = wh_strdup_printf("symlink '%s' leads out of the snapshot", links->v[i]);
        }
    }
    return rc;
}

int wh_tar_unpack(const uint8_t *data, size_t len, const char *dest, const wh_tar_limits_t *lim,
                  char **err)
{
    if (mkdir(dest, 0755) != 0) {
        int e = -errno;
        *err = wh_strdup_printf("cannot create %s: %s", dest, wh_strerror(e));
        return e;
    }
    int root = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (root < 0) {
        int e = -errno;
        *err = wh_strdup_printf("cannot open %s: %s", dest, wh_strerror(e));
        rmdir(dest);
        return e;
    }
    s_in_t *in = calloc(1, sizeof *in);
    if (!in || inflateInit2(&in->z, 15 + 16) != Z_OK) {
        free(in);
        close(root);
        rmdir(dest);
        *err = strdup("cannot start zlib");
        return WH_ENOMEM;
    }
    in->z.next_in = (Bytef *)data;
    in->z.avail_in = (uInt)len;
    /* the files, their headers and padding: a little over the cap */
    in->max_inflated = s_max_unpacked(lim) + (uint64_t)WH_TAR_MAX_ENTRIES * 3 * S_BLOCK;
    s_links_t links = {0};
    char *why = NULL;
    int rc = s_unpack(in, root, lim, &links, &why);
    inflateEnd(&in->z);
    free(in);
    close(root);
    for (int i = 0; i < links.n; i++)
        free(links.v[i]);
    free(links.v);
    if (rc) {
        wh_rm_rf(dest);
        *err = wh_strdup_printf("tar snapshot refused: %s", why ? why : wh_strerror(rc));
        free(why);
        return rc;
    }
    return 0;
}
