/*
 * wh_snapshot — a project that travels to the coordinator and the nodes
 * without a shared filesystem, as a git snapshot: a revision of a URL they
 * can fetch, plus the uncommitted changes of the client's work tree as a
 * binary patch (DESIGN.md, "No shared filesystem").
 *
 * The client (wh_snapshot_make) picks the revision (the merge base with the
 * branch's upstream when there is one, else HEAD: a commit the remote should
 * have) and diffs the work tree against it: tracked files only, the same
 * files the job identity counts, so stray untracked files neither travel
 * nor change the answer. The patch is capped (WH_SNAPSHOT_MAX_PATCH).
 *
 * A receiver (wh_snapshot_checkout) keeps one bare mirror per URL under its
 * root (cloned once, fetched when a revision is missing) and one exported
 * tree per snapshot id (sha256 of url, revision and patch): git archive of
 * the revision, the patch applied, renamed into place when complete. Slots
 * of one node share both; a file lock serializes them. The tree has no
 * .git: workspaces copy only the project.
 *
 * git runs with an argv (wh_spawn), URLs starting with '-' are refused,
 * revisions must be full hex object names, and only the git, http(s), ssh
 * and file transports are allowed (no ext::).
 */
#ifndef WH_SNAPSHOT_H
#define WH_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#define WH_SNAPSHOT_MAX_PATCH (1u << 20)

typedef struct {
    char *url;        /* where the receivers fetch from */
    char *rev;        /* full commit id */
    char *subdir;     /* the project's folder inside the repository ("" = top) */
    uint8_t *patch;   /* `git diff --binary` of the tracked files against rev */
    size_t patch_len;
} wh_snapshot_t;

/* Client side: the snapshot of project (a folder in a git work tree). url
 * NULL: the repository's "origin" remote. 0, or -1 and *err. */
int wh_snapshot_make(const char *project, const char *url, wh_snapshot_t *out, char **err);
/* The full commit id of rev in project's repository, or NULL. */
char *wh_snapshot_resolve_rev(const char *project, const char *rev);
void wh_snapshot_clear(wh_snapshot_t *s);
/* sha256 hex of url, rev and patch. */
void wh_snapshot_id(const char *url, const char *rev, const uint8_t *patch, size_t patch_len,
                    char out[65]);

/* Receiver side: the exported tree of the snapshot under root (made on
 * first use), *project = its subdir (malloc'ed). 0, or -1 and *err. */
int wh_snapshot_checkout(const char *root, const char *url, const char *rev,
                         const uint8_t *patch, size_t patch_len, const char *subdir,
                         char **project, char **err);
/* An export of commit rev (subdir of it) of url under root, for a
 * reference project; *path malloc'ed. 0, or -1 and *err. */
int wh_snapshot_export(const char *root, const char *url, const char *rev, const char *subdir,
                       char **path, char **err);

/* Base64 (RFC 4648, padded) for carrying a patch in job JSON. */
char *wh_base64_encode(const uint8_t *data, size_t len);
/* NULL on a malformed input. */
uint8_t *wh_base64_decode(const char *text, size_t *len);

#endif
