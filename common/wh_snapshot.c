/* Git snapshots of a project: see wh_snapshot.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "wh_common.h"
#include "wh_snapshot.h"
#include "wh_spawn.h"

/* git with the transports a snapshot may use; ext:: and the like never. */
#define S_GIT_PREFIX                                                                   \
    "git", "-c", "protocol.allow=never", "-c", "protocol.file.allow=always", "-c",     \
        "protocol.git.allow=always", "-c", "protocol.http.allow=always", "-c",         \
        "protocol.https.allow=always", "-c", "protocol.ssh.allow=always"

static int s_fail(char **err, char *msg)
{
    *err = msg ? msg : strdup("out of memory");
    return -1;
}

char *wh_snapshot_resolve_rev(const char *project, const char *rev)
{
    if (!rev || rev[0] == '-')
        return NULL;
    char *r = wh_strdup_printf("%s^{commit}", rev);
    const char *argv[] = {"git", "-C", project, "rev-parse", "--verify", "--quiet", r, NULL};
    char *sha = r ? wh_spawn_line(argv) : NULL;
    free(r);
    return sha;
}

/* The commit the snapshot starts from: the merge base with the upstream
 * (a commit the remote has) when the branch has one, else HEAD. */
static char *s_base_rev(const char *project)
{
    const char *mb[] = {"git", "-C", project, "merge-base", "HEAD", "@{upstream}", NULL};
    char *sha = wh_spawn_line(mb);
    return sha ? sha : wh_snapshot_resolve_rev(project, "HEAD");
}

static int s_make_patch(const char *project, wh_snapshot_t *s, char **err)
{
    const char *argv[] = {"git", "-C", project, "diff", "--binary", "--full-index", "--no-color",
                          "--no-ext-diff", "--no-textconv", s->rev, "--", NULL};
    char *out = NULL;
    size_t len = 0;
    if (wh_spawn_run(argv, &out, &len, WH_SNAPSHOT_MAX_PATCH + 1) != 0)
        return free(out), s_fail(err, wh_strdup_printf("git diff of %s against %s failed",
                                                       project, s->rev));
    if (len > WH_SNAPSHOT_MAX_PATCH) {
        free(out);
        return s_fail(err, wh_strdup_printf(
                               "the uncommitted changes of %s are over %u bytes, more than a git "
                               "snapshot carries; commit and push them first",
                               project, WH_SNAPSHOT_MAX_PATCH));
    }
    s->patch = (uint8_t *)out;
    s->patch_len = len;
    return 0;
}

int wh_snapshot_make(const char *project, const char *url, wh_snapshot_t *s, char **err)
{
    memset(s, 0, sizeof *s);
    const char *top[] = {"git", "-C", project, "rev-parse", "--show-prefix", NULL};
    char *prefix = wh_spawn_line(top);
    const char *inside[] = {"git", "-C", project, "rev-parse", "--is-inside-work-tree", NULL};
    char *in = wh_spawn_line(inside);
    int ok = in && !strcmp(in, "true");
    free(in);
    if (!ok) {
        free(prefix);
        return s_fail(err, wh_strdup_printf("--snapshot git: project %s is not in a git work "
                                            "tree", project));
    }
    s->subdir = prefix ? prefix : strdup("");
    size_t n = s->subdir ? strlen(s->subdir) : 0;
    if (n && s->subdir[n - 1] == '/')
        s->subdir[n - 1] = '\0';
    const char *origin[] = {"git", "-C", project, "remote", "get-url", "origin", NULL};
    s->url = url ? strdup(url) : wh_spawn_line(origin);
    if (!s->url) {
        wh_snapshot_clear(s);
        return s_fail(err, wh_strdup_printf("--snapshot git: %s has no 'origin' remote; give "
                                            "--git-url URL (one the nodes can fetch)", project));
    }
    s->rev = s_base_rev(project);
    if (!s->rev || !s->subdir) {
        wh_snapshot_clear(s);
        return s_fail(err, wh_strdup_printf("--snapshot git: %s has no commit to start from",
                                            project));
    }
    if (s_make_patch(project, s, err) != 0) {
        wh_snapshot_clear(s);
        return -1;
    }
    return 0;
}

void wh_snapshot_clear(wh_snapshot_t *s)
{
    free(s->url);
    free(s->rev);
    free(s->subdir);
    free(s->patch);
    memset(s, 0, sizeof *s);
}

void wh_snapshot_id(const char *url, const char *rev, const uint8_t *patch, size_t patch_len,
                    char out[65])
{
    wh_sha256_t *h = wh_sha256_new();
    wh_sha256_field_str(h, url);
    wh_sha256_field_str(h, rev);
    wh_sha256_field(h, patch ? patch : (const uint8_t *)"", patch ? patch_len : 0);
    wh_sha256_final_hex(&h, out);
}

/* ---- receiver ---- */

static int s_hex_rev(const char *rev)
{
    size_t n = rev ? strlen(rev) : 0;
    return (n == 40 || n == 64) && strspn(rev, "0123456789abcdef") == n;
}

static int s_check_inputs(const char *url, const char *rev, const char *subdir, char **err)
{
    if (!url || !*url || url[0] == '-')
        return s_fail(err, wh_strdup_printf("refused snapshot URL '%s'", url ? url : ""));
    if (!s_hex_rev(rev))
        return s_fail(err, wh_strdup_printf("refused snapshot revision '%s' (not a full commit id)",
                                            rev ? rev : ""));
    if (subdir && *subdir && !wh_path_is_plain_relative(subdir))
        return s_fail(err, wh_strdup_printf("refused snapshot folder '%s'", subdir));
    return 0;
}

/* Takes root's lock (one snapshot operation at a time on this root). */
static int s_lock(const char *root, char **err)
{
    char *p = wh_path_join(root, ".lock");
    int fd = p && wh_mkdir_p(root) == 0 ? open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        s_fail(err, wh_strdup_printf("cannot lock %s: %s", p ? p : root, strerror(errno)));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    free(p);
    return fd;
}

/* The bare mirror of url under root holding commit rev (cloned or fetched
 * as needed); malloc'ed path. Caller holds the lock. */
static char *s_mirror(const char *root, const char *url, const char *rev, char **err)
{
    char id[65];
    wh_sha256_hex(url, strlen(url), id);
    char *m = wh_strdup_printf("%s/mirrors/%.16s.git", root, id);
    char *tmp = m ? wh_strdup_printf("%s.tmp", m) : NULL;
    char *want = wh_strdup_printf("%s^{commit}", rev);
    char *gd = m ? wh_strdup_printf("--git-dir=%s", m) : NULL;
    if (!tmp || !want || !gd)
        goto oom;
    if (!wh_is_dir(m)) {
        wh_rm_rf(tmp);
        const char *clone[] = {S_GIT_PREFIX, "clone", "--bare", "--quiet", "--", url, tmp, NULL};
        if (wh_mkdir_p(root) != 0 || wh_spawn_run(clone, NULL, NULL, 0) != 0 ||
            rename(tmp, m) != 0) {
            wh_rm_rf(tmp);
            s_fail(err, wh_strdup_printf("cannot clone %s (is it reachable from here?)", url));
            goto fail;
        }
    }
    const char *has[] = {"git", gd, "cat-file", "-e", want, NULL};
    if (wh_spawn_run(has, NULL, NULL, 0) != 0) {
        const char *fetch[] = {S_GIT_PREFIX, gd, "fetch", "--quiet", "--", url,
                               "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", NULL};
        wh_spawn_run(fetch, NULL, NULL, 0);
        if (wh_spawn_run(has, NULL, NULL, 0) != 0) {
            s_fail(err, wh_strdup_printf("commit %s is not in %s (push it, or give --git-url "
                                         "of a repository that has it)", rev, url));
            goto fail;
        }
    }
    free(tmp);
    free(want);
    free(gd);
    return m;
oom:
    s_fail(err, NULL);
fail:
    free(m);
    free(tmp);
    free(want);
    free(gd);
    return NULL;
}

/* git archive of rev from mirror into a new folder dir. */
static int s_archive(const char *mirror, const char *rev, const char *dir)
{
    char *gd = wh_strdup_printf("--git-dir=%s", mirror);
    const char *git[] = {"git", gd, "archive", "--format=tar", rev, NULL};
    const char *tar[] = {"tar", "-x", "-C", dir, NULL};
    int rc = gd && wh_mkdir_p(dir) == 0 && wh_spawn_pipe(git, tar) == 0 ? 0 : -1;
    free(gd);
    return rc;
}

/* Applies patch to the files of dir, which is not a repository: git runs
 * in dir with the mirror as its explicit git dir, so it neither looks for
 * a repository above dir nor takes paths relative to one. */
static int s_apply(const char *mirror, const char *dir, const char *patch_path)
{
    char *gd = wh_strdup_printf("--git-dir=%s", mirror);
    const char *argv[] = {"git", "-C", dir, gd, "apply", "--binary", "--whitespace=nowarn",
                          patch_path, NULL};
    int rc = gd && wh_spawn_run(argv, NULL, NULL, 0) == 0 ? 0 : -1;
    free(gd);
    return rc;
}

/* Makes dir (absent) from rev of mirror plus the patch, atomically. */
static int s_make_tree(const char *mirror, const char *rev, const uint8_t *patch, size_t plen,
                       const char *dir, char **err)
{
    char *tmp = wh_strdup_printf("%s.tmp", dir);
    char *pp = wh_strdup_printf("%s.patch", dir);
    int rc = -1;
    if (!tmp || !pp) {
        s_fail(err, NULL);
        goto out;
    }
    wh_rm_rf(tmp);
    if (s_archive(mirror, rev, tmp) != 0) {
        s_fail(err, wh_strdup_printf("cannot export commit %s into %s", rev, tmp));
        goto out;
    }
    if (plen && (wh_write_file(pp, patch, plen) != 0 || s_apply(mirror, tmp, pp) != 0)) {
        s_fail(err, wh_strdup_printf("the snapshot's patch (%zu bytes) does not apply to %s",
                                     plen, rev));
        goto out;
    }
    if (rename(tmp, dir) != 0) {
        s_fail(err, wh_strdup_printf("cannot rename %s: %s", tmp, strerror(errno)));
        goto out;
    }
    rc = 0;
out:
    if (rc && tmp)
        wh_rm_rf(tmp);
    if (pp)
        unlink(pp);
    free(tmp);
    free(pp);
    return rc;
}

/* The tree dir of a snapshot (made under the lock unless present), then
 * its subdir as *out. */
static int s_tree(const char *root, const char *url, const char *rev, const uint8_t *patch,
                  size_t plen, const char *name, const char *subdir, char **out, char **err)
{
    char *aroot = wh_abspath(root); /* git runs with -C: every path absolute */
    char *dir = aroot ? wh_strdup_printf("%s/trees/%s", aroot, name) : NULL;
    if (!dir) {
        free(aroot);
        return s_fail(err, NULL);
    }
    root = aroot;
    int rc = 0;
    if (!wh_is_dir(dir)) {
        int fd = s_lock(root, err);
        if (fd < 0) {
            free(dir);
            return -1;
        }
        if (!wh_is_dir(dir)) {
            char *m = s_mirror(root, url, rev, err);
            rc = m ? s_make_tree(m, rev, patch, plen, dir, err) : -1;
            free(m);
        }
        close(fd);
    }
    if (!rc) {
        *out = subdir && *subdir ? wh_path_join(dir, subdir) : strdup(dir);
        if (!*out || !wh_is_dir(*out))
            rc = s_fail(err, wh_strdup_printf("folder '%s' is not in snapshot %s of %s",
                                              subdir ? subdir : "", rev, url));
        if (rc) {
            free(*out);
            *out = NULL;
        }
    }
    free(dir);
    free(aroot);
    return rc;
}

int wh_snapshot_checkout(const char *root, const char *url, const char *rev,
                         const uint8_t *patch, size_t patch_len, const char *subdir,
                         char **project, char **err)
{
    *project = NULL;
    if (s_check_inputs(url, rev, subdir, err) != 0)
        return -1;
    if (patch_len > WH_SNAPSHOT_MAX_PATCH)
        return s_fail(err, wh_strdup_printf("snapshot patch of %zu bytes is over the %u cap",
                                            patch_len, WH_SNAPSHOT_MAX_PATCH));
    char id[65];
    wh_snapshot_id(url, rev, patch, patch_len, id);
    return s_tree(root, url, rev, patch, patch_len, id, subdir, project, err);
}

int wh_snapshot_export(const char *root, const char *url, const char *rev, const char *subdir,
                       char **path, char **err)
{
    *path = NULL;
    if (s_check_inputs(url, rev, subdir, err) != 0)
        return -1;
    char id[65];
    wh_snapshot_id(url, rev, NULL, 0, id);
    char name[80];
    snprintf(name, sizeof name, "ref-%.16s", id);
    return s_tree(root, url, rev, NULL, 0, name, subdir, path, err);
}

/* ---- base64 ---- */

static const char s_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *wh_base64_encode(const uint8_t *d, size_t n)
{
    char *o = malloc((n + 2) / 3 * 4 + 1), *p = o;
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
                     (i + 2 < n ? d[i + 2] : 0);
        *p++ = s_b64[v >> 18 & 63];
        *p++ = s_b64[v >> 12 & 63];
        *p++ = i + 1 < n ? s_b64[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? s_b64[v & 63] : '=';
    }
    *p = 0;
    return o;
}

uint8_t *wh_base64_decode(const char *t, size_t *len)
{
    size_t n = strlen(t);
    if (n % 4)
        return NULL;
    uint8_t *o = malloc(n / 4 * 3 + 1);
    size_t k = 0;
    for (size_t i = 0; o && i < n; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            const char *c = t[i + j] == '=' ? NULL : strchr(s_b64, t[i + j]);
            if (t[i + j] == '=' && i + 4 == n && j >= 2)
                pad++;
            else if (!c || !t[i + j] || pad) {
                free(o);
                return NULL;
            }
            v = v << 6 | (c ? (uint32_t)(c - s_b64) : 0);
        }
        o[k++] = (uint8_t)(v >> 16);
        if (pad < 2)
            o[k++] = (uint8_t)(v >> 8);
        if (pad < 1)
            o[k++] = (uint8_t)v;
    }
    if (o) {
        o[k] = 0;
        *len = k;
    }
    return o;
}
