/*
 * identity — a project's snapshot id: git's tracked files, or the tree
 * minus outputs, build folders and --ignore globs.
 */
#define _GNU_SOURCE
#include "identity.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"
#include "wh_spawn.h"
#include "workspace.h"

/* `git ls-files -z` of a very large repository still fits. */
#define S_MAX_LIST (64u << 20)

static int s_glob_hits(const char *glob, const char *path)
{
    if (strchr(glob, '/'))
        return fnmatch(glob, path, FNM_PATHNAME | FNM_PERIOD) == 0;
    const char *base = strrchr(path, '/');
    return fnmatch(glob, base ? base + 1 : path, FNM_PERIOD) == 0;
}

int wh_identity_ignored(char *const *ignore, int nignore, const char *rel)
{
    if (!nignore)
        return 0;
    char *p = strdup(rel);
    int hit = 0;
    /* rel itself, then each of its folders ("a/b/c", "a/b", "a"). */
    for (char *cut = p; p && !hit;) {
        for (int i = 0; i < nignore && !hit; i++)
            hit = s_glob_hits(ignore[i], p);
        cut = strrchr(p, '/');
        if (!cut)
            break;
        *cut = '\0';
    }
    free(p);
    return hit;
}

typedef struct {
    char *const *ignore;
    int nignore;
} s_filter_t;

static int s_skip(void *arg, const char *rel, int is_dir)
{
    s_filter_t *f = arg;
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    if (is_dir && !strncmp(base, "build", 5))
        return 1;
    return wh_identity_ignored(f->ignore, f->nignore, rel);
}

/* The tracked files of a git project, relative to it, in git's order:
 * *list holds them NUL-separated (malloc'ed), *v points into it. 0 when
 * project is in a git work tree and file is tracked there; else -1 and
 * nothing to free. */
static int s_git_tracked(const char *project, const char *file, char **list, char ***v,
                         size_t *n)
{
    const char *argv[] = {"git", "-C", project, "ls-files", "-z", "--cached", NULL};
    size_t len = 0, count = 0;
    *v = NULL;
    *n = 0;
    if (wh_spawn_run(argv, list, &len, S_MAX_LIST) != 0 || !*list || len >= S_MAX_LIST)
        goto none;
    for (size_t off = 0; off < len; off += strlen(*list + off) + 1)
        count++;
    *v = count ? calloc(count, sizeof **v) : NULL;
    int tracked = 0;
    size_t i = 0;
    for (size_t off = 0; *v && off < len; off += strlen(*list + off) + 1) {
        (*v)[i++] = *list + off;
        tracked |= !strcmp(*list + off, file);
    }
    if (tracked) {
        *n = count;
        return 0;
    }
none:
    free(*v);
    free(*list);
    *v = NULL;
    *list = NULL;
    return -1;
}

int wh_identity_snapshot(const char *project, const char *file, const char *out,
                         char *const *ignore, int nignore, char hex[65],
                         wh_identity_basis_t *basis, char **err)
{
    char *list = NULL, **v = NULL;
    size_t n = 0;
    if (s_git_tracked(project, file, &list, &v, &n) == 0) {
        /* The ignore globs leave tracked files out too. */
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!wh_identity_ignored(ignore, nignore, v[i]))
                v[k++] = v[i];
        int rc = wh_workspace_hash_list(project, (const char *const *)v, k, hex, err);
        free(v);
        free(list);
        if (basis)
            *basis = WH_IDENTITY_GIT;
        return rc;
    }
    const char *excl[2] = {out, NULL};
    s_filter_t f = {ignore, nignore};
    wh_workspace_filter_t wf = {s_skip, &f};
    if (basis)
        *basis = WH_IDENTITY_TREE;
    return wh_workspace_hash_filtered(project, excl, &wf, hex, err);
}
