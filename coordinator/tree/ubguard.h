/*
 * ubguard — the UB guard (DESIGN.md, "Trust"): a candidate that reads an
 * indeterminate value fails "the same way" only by accident. A removed
 * initialisation (`int expect; assert(total == expect);`) or a removed
 * `return` in a helper leaves a test whose failure depends on stack
 * garbage: it may well fail the same way here and pass in a Release build.
 * The compiler front end sees most of these as a warning, so this module
 * parses each candidate with libclang, the test file's compile arguments
 * plus -Wuninitialized -Wsometimes-uninitialized -Wconditional-uninitialized
 * -Wreturn-type (and -Wno-error: they stay warnings), and says whether the
 * candidate raises one that the original does not.
 *
 * "One the original does not": each such diagnostic is counted by its
 * identity without location (the warning option, the function it is in,
 * its message, which names the variable), for the original once and for
 * each candidate; a candidate with more of any identity than the original
 * has a new one. So a warning the original already has (the user's own
 * code) never blocks anything, and moving lines around changes nothing.
 *
 * Like precheck.h (whose preamble and threading this copies): one owner
 * thread at a time; wh_ubguard_start does the setup on a thread of its own.
 * The guard is off (wh_ubguard_enabled 0, wh_ubguard_why says why) when
 * libclang cannot parse the original or the original has a front-end error
 * with these arguments (its analysis would see nothing).
 */
#ifndef WH_UBGUARD_H
#define WH_UBGUARD_H

#include <stddef.h>

typedef struct {
    const char *file;        /* the test file (its path names the TU) */
    const char *const *args; /* compile arguments: no compiler, input or -o */
    int nargs;
    /* wh_ubguard_start: called on the setup's thread once wh_ubguard_ready
     * says 1 (it only writes to an fd, to wake the owner's loop); NULL:
     * none */
    void (*on_ready)(void *ctx);
    void *ready_ctx;
} wh_ubguard_opts_t;

typedef struct wh_ubguard wh_ubguard_t;

/* Parses the original text with the arguments and counts its guarded
 * diagnostics. NULL and *err (one line) when libclang cannot parse at all;
 * a disabled handle (see wh_ubguard_why) when the original has errors. */
wh_ubguard_t *wh_ubguard_new(const wh_ubguard_opts_t *o, const char *text, size_t len,
                             char **err);
/* The same setup on a thread of its own: disabled until wh_ubguard_ready
 * says 1. NULL when out of memory or no thread can be started. destroy
 * joins the thread. */
wh_ubguard_t *wh_ubguard_start(const wh_ubguard_opts_t *o, const char *text, size_t len);
int wh_ubguard_ready(const wh_ubguard_t *g);
void wh_ubguard_destroy(wh_ubguard_t **g);

/* 1 when candidates are checked. */
int wh_ubguard_enabled(const wh_ubguard_t *g);
/* Why the guard is off, or NULL. */
const char *wh_ubguard_why(const wh_ubguard_t *g);
/* The guarded diagnostics of the original (its own, never held against a
 * candidate). */
int wh_ubguard_original(const wh_ubguard_t *g);

/* Checks one candidate: 1 when it raises a guarded diagnostic the original
 * does not (*first, if given, gets "line:col: message [-Wopt]",
 * malloc'ed), 0 when not, a negative WH_E code when the guard is off or
 * libclang failed (then the handle disables itself and says why). */
int wh_ubguard_check(wh_ubguard_t *g, const char *text, size_t len, char **first);

/* Checks done and their total time; the original's setup time (us). */
void wh_ubguard_stats(const wh_ubguard_t *g, int *checks, unsigned long long *us,
                      unsigned long long *setup_us);

/* The sanitizers a compile command builds with: "address,undefined" from
 * its -fsanitize= options, in order, without duplicates (a later
 * -fno-sanitize=x drops x); malloc'ed, NULL when none. */
char *wh_ubguard_sanitizers(const char *const *args, int nargs);

#endif
