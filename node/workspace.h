/*
 * workspace — the working copy. Copies a project tree into a folder the
 * node owns (the user's project is only ever read), and hashes a tree's
 * content into a snapshot id. Both walk the same files: everything except
 * `.git`, folders holding a CMakeCache.txt (build output, whose absolute
 * paths would break in a copy), `whittle-runs`, and the absolute paths in
 * `exclude`. Symlinks are copied as symlinks; file modes are kept.
 */
#ifndef WH_WORKSPACE_H
#define WH_WORKSPACE_H

#include <stddef.h>

/* Copies src into dst (created; must not exist or be empty). */
int wh_workspace_copy(const char *src, const char *dst, const char *const *exclude,
                      char **err);

/* sha256 over (relative path, mode, content) of every walked file, in sorted
 * path order; 64 hex chars + NUL. */
int wh_workspace_hash(const char *src, const char *const *exclude, char out[65],
                      char **err);

/* A caller's extra rule for a walk: skip(arg, rel, is_dir) returns 1 to
 * leave the entry (a folder: with everything under it) out. */
typedef int (*wh_workspace_skip_fn)(void *arg, const char *rel, int is_dir);
typedef struct {
    wh_workspace_skip_fn skip;
    void *arg;
} wh_workspace_filter_t;

/* wh_workspace_hash with filter's rule on top of the usual ones (filter
 * may be NULL: the same id as wh_workspace_hash). */
int wh_workspace_hash_filtered(const char *src, const char *const *exclude,
                               const wh_workspace_filter_t *filter, char out[65], char **err);

/* sha256 over (relative path, mode, content) of the n listed files of src,
 * in the given order (a listed file that is missing counts as missing);
 * for a project whose content is a list (a git project's tracked files). */
int wh_workspace_hash_list(const char *src, const char *const *rels, size_t n, char out[65],
                           char **err);

#endif
