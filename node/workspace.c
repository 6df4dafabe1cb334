/*
 * workspace — copying a project tree into a node-owned folder, and hashing
 * a tree into a snapshot id. Both go through one walker (s_walk) so that
 * they can never disagree about which files belong to the project.
 *
 * The walk visits entries in byte-wise sorted name order (strcmp, not the
 * locale's collation) so that the hash is the same on every machine.
 * Copies keep modes and mtimes (like `cp -a`): in-source generated files
 * (autotools' Makefile.in next to Makefile.am) must not look stale in the
 * copy, or the first build would try to regenerate them.
 */
#define _GNU_SOURCE
#include "workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "wh_common.h"

/* Called for every walked entry; rel is relative to the root ("" never
 * passed), abs is the absolute source path. For a directory, post is 0
 * before its children and 1 after them. */
typedef int (*s_visit_fn)(void *arg, const char *rel, const char *abs, const struct stat *st,
                          int post, char **err);

typedef struct {
    char **exclude;  /* normalized absolute paths */
    size_t n_exclude;
    s_visit_fn visit;
    void *arg;
    wh_workspace_skip_fn skip; /* the caller's extra rule, or NULL */
    void *skip_arg;
} s_walker_t;

static int s_set_err(char **err, const char *what, const char *path, int rc)
{
    if (err && !*err)
        *err = wh_strdup_printf("%s '%s': %s", what, path, wh_strerror(rc));
    return rc;
}

static int s_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir (without . and ..). */
static int s_list_dir(const char *dir, char ***names_out, size_t *n_out)
{
    *names_out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            if (errno)
                rc = -errno;
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            char **nn = realloc(names, ncap * sizeof *nn);
            if (!nn) {
                rc = WH_ENOMEM;
                break;
            }
            names = nn;
            cap = ncap;
        }
        if (!(names[n] = strdup(de->d_name))) {
            rc = WH_ENOMEM;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc) {
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return rc;
    }
    if (n)
        qsort(names, n, sizeof *names, s_cmp_names);
    *names_out = names;
    *n_out = n;
    return 0;
}

static int s_skipped(const s_walker_t *w, const char *name, const char *abs,
                     const struct stat *st)
{
    /* .git may be a folder or, in worktrees and submodules, a file. */
    if (strcmp(name, ".git") == 0)
        return 1;
    for (size_t i = 0; i < w->n_exclude; i++)
        if (strcmp(abs, w->exclude[i]) == 0)
            return 1;
    if (S_ISDIR(st->st_mode)) {
        if (strcmp(name, "whittle-runs") == 0)
            return 1;
        char *cache = wh_path_join(abs, "CMakeCache.txt");
        struct stat cs;
        int is_build = cache && lstat(cache, &cs) == 0;
        free(cache);
        if (is_build)
            return 1;
    }
    return 0;
}

static int s_walk_dir(s_walker_t *w, const char *abs_dir, const char *rel_dir, char **err)
{
    char **names = NULL;
    size_t n = 0;
    int rc = s_list_dir(abs_dir, &names, &n);
    if (rc)
        return s_set_err(err, "cannot read folder", abs_dir, rc);
    for (size_t i = 0; i < n && !rc; i++) {
        char *abs = wh_path_join(abs_dir, names[i]);
        char *rel = rel_dir[0] ? wh_path_join(rel_dir, names[i]) : strdup(names[i]);
        struct stat st;
        if (!abs || !rel) {
            rc = WH_ENOMEM;
        } else if (lstat(abs, &st) < 0) {
            rc = s_set_err(err, "cannot stat", abs, -errno);
        } else if (!s_skipped(w, names[i], abs, &st) &&
                   !(w->skip && w->skip(w->skip_arg, rel, S_ISDIR(st.st_mode)))) {
            if (S_ISDIR(st.st_mode)) {
                rc = w->visit(w->arg, rel, abs, &st, 0, err);
                if (!rc)
                    rc = s_walk_dir(w, abs, rel, err);
                if (!rc)
                    rc = w->visit(w->arg, rel, abs, &st, 1, err);
            } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
                rc = w->visit(w->arg, rel, abs, &st, 0, err);
            }
            /* Sockets, fifos and devices are not project content. */
        }
        free(abs);
        free(rel);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Walks src (which must be a folder) with the skip rules; extra_exclude is
 * one more absolute path to leave out (the copy's destination). */
static int s_walk(const char *src, const char *const *exclude, const char *extra_exclude,
                  s_visit_fn visit, void *arg, const wh_workspace_filter_t *f, char **err)
{
    int rc = 0;
    s_walker_t w = {NULL, 0, visit, arg, f ? f->skip : NULL, f ? f->arg : NULL};
    char *root = wh_abspath(src);
    if (!root)
        return WH_ENOMEM;
    if (!wh_is_dir(root)) {
        rc = s_set_err(err, "not a folder", src, -ENOTDIR);
        goto out;
    }
    size_t n = 0;
    for (const char *const *e = exclude; e && *e; e++)
        n++;
    w.exclude = calloc(n + 2, sizeof *w.exclude);
    if (!w.exclude) {
        rc = WH_ENOMEM;
        goto out;
    }
    for (const char *const *e = exclude; e && *e; e++) {
        if (!(w.exclude[w.n_exclude] = wh_abspath(*e))) {
            rc = WH_ENOMEM;
            goto out;
        }
        w.n_exclude++;
    }
    if (extra_exclude) {
        if (!(w.exclude[w.n_exclude] = wh_abspath(extra_exclude))) {
            rc = WH_ENOMEM;
            goto out;
        }
        w.n_exclude++;
    }
    rc = s_walk_dir(&w, root, "", err);
out:
    for (size_t i = 0; i < w.n_exclude; i++)
        free(w.exclude[i]);
    free(w.exclude);
    free(root);
    return rc;
}

/* ---- copy ---- */

typedef struct {
    const char *dst;
} s_copy_t;

static int s_copy_data(int in, int out)
{
    int use_cfr = 1;
    char buf[65536];
    for (;;) {
        if (use_cfr) {
            ssize_t n = copy_file_range(in, NULL, out, NULL, 1u << 30, 0);
            if (n > 0)
                continue;
            if (n == 0)
                return 0;
            if (errno == EINTR)
                continue;
            if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP &&
                errno != EPERM)
                return -errno;
            /* Not supported between these file systems: nothing was
             * copied by the failed call, go on with read/write. */
            use_cfr = 0;
        }
        ssize_t n = read(in, buf, sizeof buf);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t k = write(out, buf + off, (size_t)(n - off));
            if (k < 0) {
                if (errno == EINTR)
                    continue;
                return -errno;
            }
            off += k;
        }
    }
}

static int s_copy_file(const char *from, const char *to, const struct stat *st, char **err)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return s_set_err(err, "cannot open", from, -errno);
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        int rc = -errno;
        close(in);
        return s_set_err(err, "cannot create", to, rc);
    }
    int rc = s_copy_data(in, out);
    if (rc)
        s_set_err(err, "cannot copy", from, rc);
    if (!rc && fchmod(out, st->st_mode & 07777) < 0)
        rc = s_set_err(err, "cannot chmod", to, -errno);
    if (!rc) {
        struct timespec ts[2] = {st->st_atim, st->st_mtim};
        if (futimens(out, ts) < 0)
            rc = s_set_err(err, "cannot set times of", to, -errno);
    }
    close(in);
    if (close(out) < 0 && !rc)
        rc = s_set_err(err, "cannot write", to, -errno);
    return rc;
}

static int s_copy_visit(void *arg, const char *rel, const char *abs, const struct stat *st,
                        int post, char **err)
{
    s_copy_t *c = arg;
    char *to = wh_path_join(c->dst, rel);
    if (!to)
        return WH_ENOMEM;
    int rc = 0;
    if (S_ISDIR(st->st_mode)) {
        if (!post) {
            /* Writable while its children are copied; the real mode (which
             * may be read-only) is set afterwards. */
            if (mkdir(to, 0700) < 0)
                rc = s_set_err(err, "cannot create folder", to, -errno);
        } else {
            struct timespec ts[2] = {st->st_atim, st->st_mtim};
            if (chmod(to, st->st_mode & 07777) < 0)
                rc = s_set_err(err, "cannot chmod", to, -errno);
            else if (utimensat(AT_FDCWD, to, ts, 0) < 0)
                rc = s_set_err(err, "cannot set times of", to, -errno);
        }
    } else if (S_ISLNK(st->st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(abs, target, sizeof target - 1);
        if (n < 0) {
            rc = s_set_err(err, "cannot read link", abs, -errno);
        } else {
            target[n] = '\0';
            struct timespec ts[2] = {st->st_atim, st->st_mtim};
            if (symlink(target, to) < 0)
                rc = s_set_err(err, "cannot create link", to, -errno);
            else
                utimensat(AT_FDCWD, to, ts, AT_SYMLINK_NOFOLLOW); /* best effort */
        }
    } else {
        rc = s_copy_file(abs, to, st, err);
    }
    free(to);
    return rc;
}

int wh_workspace_copy(const char *src, const char *dst, const char *const *exclude, char **err)
{
    if (err)
        *err = NULL;
    if (!src || !dst)
        return WH_EINVAL;
    int rc = wh_mkdir_p(dst);
    if (rc)
        return s_set_err(err, "cannot create folder", dst, rc);
    char **names = NULL;
    size_t n = 0;
    rc = s_list_dir(dst, &names, &n);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc)
        return s_set_err(err, "cannot read folder", dst, rc);
    if (n) {
        if (err)
            *err = wh_strdup_printf("destination '%s' is not empty", dst);
        return -EEXIST;
    }
    char *dst_abs = wh_abspath(dst);
    if (!dst_abs)
        return WH_ENOMEM;
    s_copy_t c = {dst_abs};
    /* A destination inside the source must not copy itself. */
    rc = s_walk(src, exclude, dst_abs, s_copy_visit, &c, NULL, err);
    free(dst_abs);
    return rc;
}

/* ---- hash ---- */

static int s_hash_file(wh_sha256_t *h, const char *abs, const struct stat *st, char **err)
{
    int fd = open(abs, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return s_set_err(err, "cannot open", abs, -errno);
    /* Same framing as wh_sha256_field ("<len>:" then the bytes), streamed
     * so that large files are not read into memory. */
    char len[32];
    int k = snprintf(len, sizeof len, "%lld:", (long long)st->st_size);
    wh_sha256_update(h, len, (size_t)k);
    char buf[65536];
    long long total = 0;
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = s_set_err(err, "cannot read", abs, -errno);
            break;
        }
        total += n;
        if (total > (long long)st->st_size)
            break;
        wh_sha256_update(h, buf, (size_t)n);
    }
    close(fd);
    if (!rc && total != (long long)st->st_size) {
        if (err && !*err)
            *err = wh_strdup_printf("file '%s' changed while hashing", abs);
        rc = WH_EIO;
    }
    return rc;
}

static int s_hash_visit(void *arg, const char *rel, const char *abs, const struct stat *st,
                        int post, char **err)
{
    wh_sha256_t *h = arg;
    if (post)
        return 0;
    char mode[32];
    char type = S_ISDIR(st->st_mode) ? 'd' : S_ISLNK(st->st_mode) ? 'l' : 'f';
    /* Only whether a file is executable counts: the rest of the
     * permission bits come from the umask of the checkout (664 against
     * 644 is no other project), a folder's and a symlink's own bits never
     * change what builds. */
    char exe = type == 'f' && (st->st_mode & S_IXUSR) ? 'x' : '-';
    snprintf(mode, sizeof mode, "%c%c", type, exe);
    wh_sha256_field_str(h, rel);
    wh_sha256_field_str(h, mode);
    if (type == 'f')
        return s_hash_file(h, abs, st, err);
    if (type == 'l') {
        char target[PATH_MAX];
        ssize_t n = readlink(abs, target, sizeof target - 1);
        if (n < 0)
            return s_set_err(err, "cannot read link", abs, -errno);
        wh_sha256_field(h, target, (size_t)n);
    }
    return 0;
}

int wh_workspace_hash_filtered(const char *src, const char *const *exclude,
                               const wh_workspace_filter_t *filter, char out[65], char **err)
{
    if (err)
        *err = NULL;
    if (!src || !out)
        return WH_EINVAL;
    wh_sha256_t *h = wh_sha256_new();
    if (!h)
        return WH_ENOMEM;
    wh_sha256_field_str(h, "whittle-tree-v2"); /* v2: only the executable bit */
    int rc = s_walk(src, exclude, NULL, s_hash_visit, h, filter, err);
    char hex[65];
    wh_sha256_final_hex(&h, hex);
    if (!rc)
        memcpy(out, hex, 65);
    return rc;
}

int wh_workspace_hash(const char *src, const char *const *exclude, char out[65], char **err)
{
    return wh_workspace_hash_filtered(src, exclude, NULL, out, err);
}

int wh_workspace_hash_list(const char *src, const char *const *rels, size_t n, char out[65],
                           char **err)
{
    if (err)
        *err = NULL;
    if (!src || !out)
        return WH_EINVAL;
    wh_sha256_t *h = wh_sha256_new();
    if (!h)
        return WH_ENOMEM;
    wh_sha256_field_str(h, "whittle-list-v2");
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char *abs = wh_path_join(src, rels[i]);
        struct stat st;
        if (!abs) {
            rc = WH_ENOMEM;
        } else if (lstat(abs, &st) < 0) {
            /* Listed but gone (a deleted tracked file): its absence counts. */
            wh_sha256_field_str(h, rels[i]);
            wh_sha256_field_str(h, "-");
        } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)) {
            rc = s_hash_visit(h, rels[i], abs, &st, 0, err);
        }
        free(abs);
    }
    char hex[65];
    wh_sha256_final_hex(&h, hex);
    if (!rc)
        memcpy(out, hex, 65);
    return rc;
}
