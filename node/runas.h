/*
 * runas — least privilege for the commands a job brings (setup, build, test
 * run). A node started as root runs them as an unprivileged user
 * (`whittle-node --run-as USER`, default `nobody`), with HOME in a folder of
 * that user under the node's workdir (a workspace's commands get their own
 * HOME and TMPDIR over it: scratch.h), in workspaces handed over to it; with
 * `--sandbox bwrap` each command also runs in a bubblewrap sandbox that
 * sees only the system folders (read-only), a private /tmp, its own
 * workspace and the files beside it in its key folder (the report and
 * sanitizer logs the node reads; the key folder's other folders, other
 * slots' workspaces and the golden copy, are masked; other keys' folders
 * are not there at all; nor is the node's secret key) and a network with
 * nothing but loopback.
 * whittle-node's default, --sandbox auto, is bwrap wherever it starts.
 *
 * The coordinator, the embedded default and a node started without root
 * and without a sandbox never create one: a NULL wh_runas_t means "run as
 * the node itself", and every function below accepts it.
 *
 * Threads: wh_runas_new/destroy on one thread before/after the slots run;
 * wh_runas_grant and wh_runas_spawn from any thread at once (the object is
 * read-only after new).
 */
#ifndef WH_RUNAS_H
#define WH_RUNAS_H

#include <sys/types.h>

/* WH_SANDBOX_AUTO (whittle-node's default) is bwrap where a sandbox starts
 * and none, said once, where it does not: wh_node_start resolves it; the
 * functions below take NONE or BWRAP. */
typedef enum { WH_SANDBOX_NONE = 0, WH_SANDBOX_BWRAP = 1, WH_SANDBOX_AUTO = 2 } wh_sandbox_t;

typedef struct wh_runas wh_runas_t;

/* user: the account to run as (NULL: the node's own); sb: the sandbox;
 * workdir: the node's workdir (exists), where the user's HOME is made
 * (workdir/home-USER, mode 0700, owned by the user); secret: the node's
 * secret key file, or NULL. Checks that the user can enter workdir and,
 * with bwrap, that a sandbox starts. With bwrap, a secret inside a system
 * folder the sandbox shows (a Kubernetes Secret mounted under /etc) is not
 * there: its folder is an empty tmpfs in the sandbox (the file is
 * /dev/null when it lies right in the system folder), so a job running as
 * the node's own uid cannot read the node's key. Returns NULL with *err
 * (one line) on failure. */
wh_runas_t *wh_runas_new(const char *user, wh_sandbox_t sb, const char *workdir,
                         const char *secret, char **err);
void wh_runas_destroy(wh_runas_t **r);

/* The user of one workspace key (whittle-node --job-uids): uid and gid
 * uid, no supplementary group, no passwd entry needed, HOME
 * workdir/home-whittle-UID (mode 0700, its own), base's sandbox (and what
 * it hides). Needs a
 * node running as root. NULL with *err (one line) on failure. */
wh_runas_t *wh_runas_for_uid(const wh_runas_t *base, unsigned uid, const char *workdir,
                             char **err);

/* 1 when r's commands run in a bwrap sandbox. */
int wh_runas_sandboxed(const wh_runas_t *r);
/* The uid commands run as (the node's own when r is NULL). */
unsigned wh_runas_uid(const wh_runas_t *r);
/* "nobody", or NULL when commands run as the node's own user. */
const char *wh_runas_user(const wh_runas_t *r);

/* Hands path to the user (lchown, never following links), and everything
 * under it when deep. 0 (also when r is NULL or keeps the node's user), or
 * a negative errno. */
int wh_runas_grant(const wh_runas_t *r, const char *path, int deep);

/* Calls fn(arg) on a thread of its own whose file-system identity is r's
 * user (fsuid, fsgid and supplementary groups, set with raw per-thread
 * system calls, so no other thread of the node changes): every file it
 * opens, reads or creates is checked and owned as that user's, never
 * root's. The thread ends with fn, and its identity with it. Runs fn on
 * the calling thread when r is NULL or keeps the node's user. Returns fn's
 * result, or a negative errno when the thread or the identity could not be
 * had (fn not called). */
int wh_runas_as_user(const wh_runas_t *r, int (*fn)(void *arg), void *arg);

/* One command to start: `/bin/sh -c cmd` in cwd, in a new session, stdin
 * /dev/null, stdout and stderr on logfd, every other descriptor closed,
 * signals at their defaults, environment env (the caller adds
 * wh_runas_env). mount_at: as in wh_run_opts_t (cwd seen at mount_at,
 * privately). */
typedef struct {
    const char *cmd;
    const char *cwd;
    const char *mount_at;
    int logfd;
    char *const *env;
} wh_runas_cmd_t;

/* Starts c under r's user and sandbox and sets *pid (the session leader;
 * the caller waits for it). 0, or a negative errno when it could not
 * start (the child is reaped then). */
int wh_runas_spawn(const wh_runas_t *r, const wh_runas_cmd_t *c, pid_t *pid);

/* The environment entries wh_runas_spawn adds (HOME=, USER=, LOGNAME=),
 * NULL-terminated; an empty list for NULL r or the node's own user. */
const char *const *wh_runas_env(const wh_runas_t *r);

#endif
