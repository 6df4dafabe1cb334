/*
 * identity — the project's content as the build sees it, as one snapshot id
 * (the "project snapshot" of DESIGN.md "Cache key").
 *
 * A git project (the test file is tracked) is its tracked files, with the
 * content they have in the working tree (modifications count, untracked
 * files do not). Any other project is every file under its folder minus
 * the run output (--out), whittle-runs, build folders (build*, or any
 * folder holding a CMakeCache.txt) and .git. In both cases the --ignore
 * globs leave out more: a glob without '/' matches a file or folder name
 * anywhere, one with '/' matches a path from the project root.
 *
 * So output redirected into the project, an editor's backup file or a
 * build log does not change the identity, and the cache still answers.
 */
#ifndef WH_IDENTITY_H
#define WH_IDENTITY_H

/* What the id was computed over: the names used in run.log. */
typedef enum { WH_IDENTITY_GIT, WH_IDENTITY_TREE } wh_identity_basis_t;

/* The snapshot id of project (absolute) into hex; file is the test file
 * (relative to project), out the absolute run-output folder (may be NULL),
 * ignore[0..nignore) the --ignore globs. 0, or a negative error with a
 * one-line *err (malloc'ed). *basis (may be NULL) says which rule applied. */
int wh_identity_snapshot(const char *project, const char *file, const char *out,
                         char *const *ignore, int nignore, char hex[65],
                         wh_identity_basis_t *basis, char **err);

/* 1 when rel (a path relative to the project) or one of its folders
 * matches one of the globs, as described above. */
int wh_identity_ignored(char *const *ignore, int nignore, const char *rel);

#endif
