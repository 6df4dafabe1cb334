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

/* Copies src into dst (created; must not exist or be empty). */
int wh_workspace_copy(const char *src, const char *dst, const char *const *exclude,
                      char **err);

/* sha256 over (relative path, mode, content) of every walked file, in sorted
 * path order; 64 hex chars + NUL. */
int wh_workspace_hash(const char *src, const char *const *exclude, char out[65],
                      char **err);

#endif
