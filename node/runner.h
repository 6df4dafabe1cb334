/*
 * runner — runs one shell command (`sh -c`) in its own process group with a
 * timeout that kills the whole group, capturing stdout+stderr to a file.
 * Whatever the command leaves running in its group (a forked sleeper) is
 * killed when it exits too, and wh_run returns only once every process of
 * the group is gone, so nothing of one run can race the next. Safe to call
 * from several threads at once. The first call makes the process a child
 * subreaper (orphans of a run are reaped by the runner, not PID 1).
 */
#ifndef WH_RUNNER_H
#define WH_RUNNER_H

#include <stdint.h>

#include "runas.h"

/* Called about every 100 ms while the command runs, on the calling thread.
 * Return nonzero to cancel the run (the group is killed). */
typedef int (*wh_tick_fn)(void *arg);

typedef struct {
    const char *cmd;             /* run with /bin/sh -c */
    const char *cwd;             /* working folder */
    const char *const *env;      /* extra "K=V" entries, NULL-terminated, or NULL */
    unsigned timeout_ms;         /* 0 = none */
    const char *log_path;        /* stdout+stderr appended here; NULL = /dev/null */
    wh_tick_fn tick;
    void *tick_arg;
    /* When set, the command runs in a private mount namespace (util-linux
     * `unshare --mount`, needs CAP_SYS_ADMIN) where cwd is bind-mounted at
     * mount_at, and starts in mount_at: every slot's workspace is then seen
     * at one stable path, so a cloned build tree's absolute paths hold.
     * Nothing leaks to the caller's namespace (propagation is private). */
    const char *mount_at;
    /* When set, the command runs as its user and in its sandbox (runas.h);
     * NULL: as this process. */
    const wh_runas_t *runas;
    /* NULL, or "K=V" entries of the workspace's private TMPDIR and HOME
     * (scratch.h), NULL-terminated: they win over the runas user's HOME. */
    const char *const *scratch_env;
} wh_run_opts_t;

typedef struct {
    int exit_code;   /* valid when !signaled && !timed_out && !cancelled */
    int signaled;    /* terminated by signal term_signal */
    int term_signal;
    int timed_out;
    int cancelled;
    int group_lingered; /* a group member outlived the kill by 30 s */
    uint64_t ms;
} wh_run_result_t;

/* From now on every command this process starts sees only the allow-listed
 * part of its environment (PATH, HOME, TMPDIR, LANG, LANGUAGE, LC_*, TERM,
 * TZ, USER, LOGNAME, SHELL) plus the entries of its wh_run_opts_t (the
 * node's own: scratch TMPDIR and HOME, the runas user's, the setup's):
 * nothing of a daemon's secrets (WHITTLE_REDIS_PASSWORD, WHITTLE_CACHE_SECRET*,
 * key paths). whittle-node calls it once before its slots start; the
 * embedded mode, on the user's own machine, keeps the whole environment. */
void wh_run_confine_env(int on);
/* Adds NAME to the allow-list (whittle-node --pass-env): 0, WH_EINVAL for
 * a name that is no variable name ([A-Za-z_][A-Za-z0-9_]*), WH_ETOOBIG
 * past 64 names. Before any run starts. */
int wh_run_env_pass(const char *name);
/* 1 when "NAME=value" (or "NAME") passes the allow-list above. */
int wh_run_env_allowed(const char *entry);

/* Returns 0 when the command was started and waited for (whatever its
 * outcome), negative on failure to start. */
int wh_run(const wh_run_opts_t *o, wh_run_result_t *r);

#endif
