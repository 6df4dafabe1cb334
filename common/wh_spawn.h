/*
 * wh_spawn — running the external tools whittle itself needs (git, tar)
 * with an argument vector, never through a shell string: a path with a
 * space, a quote or a `$` in it is one argument and nothing else.
 *
 * The user's own --setup/--build/--run commands are shell commands by
 * design and go through node/runner.c, not through here.
 *
 * Children start with posix_spawnp (safe from any thread), stdin from
 * /dev/null, every descriptor above 2 closed, and stderr to /dev/null
 * unless the caller captures it.
 */
#ifndef WH_SPAWN_H
#define WH_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* Starts argv[0] (looked up in PATH) with argv. in_fd/out_fd become the
 * child's stdin/stdout; -1 means /dev/null. stderr goes to /dev/null.
 * 0 and *pid set, or a negative error (-errno). */
int wh_spawn(const char *const *argv, int in_fd, int out_fd, pid_t *pid);

/* Waits for pid. Its exit status (0..255), 128+N when signal N killed it,
 * or -errno when it cannot be waited for. */
int wh_spawn_wait(pid_t pid);

/* Runs argv to its end. When out is not NULL, *out receives its stdout
 * (malloc'ed, NUL-terminated, at most cap bytes kept; the rest is read and
 * dropped) and *len (may be NULL) its length, which tells a NUL inside
 * from the end. Returns like wh_spawn_wait; on a negative return *out is
 * NULL. */
int wh_spawn_run(const char *const *argv, char **out, size_t *len, size_t cap);

/* The first line of argv's output, without its line end (malloc'ed); NULL
 * when argv fails or prints nothing. */
char *wh_spawn_line(const char *const *argv);

/* Runs `a | b` (a's stdout into b's stdin). Returns a's status when it is
 * not 0, else b's (like `set -o pipefail`). */
int wh_spawn_pipe(const char *const *a, const char *const *b);

#endif
