/*
 * precheck — predicts BuildFailed without a build (DESIGN.md, "Predicted
 * verdicts"). Most built candidates fail to compile (a declaration removed
 * while its uses stay); the compiler front end says so in milliseconds.
 * This module parses each candidate's text with libclang, as an unsaved
 * in-memory file, against a precompiled preamble of the test file's
 * #includes built once from the original, so a check re-parses only the
 * file itself.
 *
 * Why a second libclang module beside tree: tree reads the statement
 * structure once and is done; this one holds a translation unit for the
 * whole run and re-parses it per candidate with other rules (diagnostics
 * decide, not cursors). Keeping it apart keeps tree a pure loader and keeps
 * the reduction driver (reduce.c) free of libclang headers.
 *
 * A prediction says BuildFailed only when a real build would fail:
 *   - hard errors (no warning option) count;
 *   - a warning turned into an error (-Werror, -Werror=x, or a warning that
 *     is an error by default) counts only when the real compiler is clang,
 *     or, for another compiler (gcc), when it is one gcc raises in the same
 *     cases (a short list in precheck.c); warnings are errors only when the
 *     given arguments say so, so without -Werror they never count;
 *   - a warning option that fires as an error on the original (which the
 *     real compiler built) is never counted: the real compiler disagrees;
 *   - diagnostics without a location (the driver on an unknown option) and
 *     a few hard errors of clang 14 that gcc accepts (a label at the end of
 *     a block) are ignored;
 *   - if the original has any counted error, prediction is off for the job
 *     (wh_precheck_enabled() is 0 and wh_precheck_why() says why).
 *
 * One owner thread at a time: create it on one thread (the daemon's prepare
 * thread) and check on another (a precheck worker, precheck_pool.h) is
 * fine; never two at once.
 * wh_precheck_start does the setup on a thread of its own (building the
 * preamble of a C++ test takes about a second), so the poll thread never
 * waits for it.
 */
#ifndef WH_PRECHECK_H
#define WH_PRECHECK_H

#include <stddef.h>

typedef enum {
    WH_PRECHECK_OFF = 0,
    WH_PRECHECK_ON = 1,    /* predicted failures are not built */
    WH_PRECHECK_AUDIT = 2, /* every candidate is built; predictions are compared */
} wh_precheck_mode_t;

/* "off", "on", "audit" (static). */
const char *wh_precheck_mode_name(wh_precheck_mode_t m);
/* 0 and *m for "on", "off" or "audit"; WH_EINVAL otherwise. */
int wh_precheck_mode_parse(const char *s, wh_precheck_mode_t *m);

typedef struct {
    const char *file;           /* the test file (its path names the TU) */
    const char *const *args;    /* compile arguments: no compiler, input or -o */
    int nargs;
    int clang_compiler;         /* 1 when the real build compiles with clang */
    int ub_guard;               /* 1: the same parse answers the UB guard too
                                 * (wh_precheck_check_ub) */
    /* wh_precheck_start: called on the setup's thread once wh_precheck_ready
     * says 1, so that the owner's loop wakes up at once (it only writes to
     * an fd); NULL: none */
    void (*on_ready)(void *ctx);
    void *ready_ctx;
} wh_precheck_opts_t;

typedef struct wh_precheck wh_precheck_t;

/* Parses the original text (the pristine test file) with the arguments and
 * builds the preamble. NULL and *err (one line) when libclang cannot parse
 * at all; a handle that is disabled (see wh_precheck_why) when the original
 * has errors. */
wh_precheck_t *wh_precheck_new(const wh_precheck_opts_t *o, const char *text, size_t len,
                               char **err);
/* The same setup on a thread of its own: the handle is disabled (checks
 * return WH_EINVAL, wh_precheck_why NULL) until wh_precheck_ready says 1;
 * then it is what wh_precheck_new would have returned, and a setup that
 * failed leaves it disabled with wh_precheck_why saying why. NULL when out
 * of memory or no thread can be started. destroy joins the thread. */
wh_precheck_t *wh_precheck_start(const wh_precheck_opts_t *o, const char *text, size_t len);
int wh_precheck_ready(const wh_precheck_t *p);
void wh_precheck_destroy(wh_precheck_t **p);

/* 1 when predictions are made for this job. */
int wh_precheck_enabled(const wh_precheck_t *p);
/* Why prediction is off (the original's first error), or NULL. */
const char *wh_precheck_why(const wh_precheck_t *p);
/* Warning options ignored because they fire on the original: "" or
 * "-Wfoo -Wbar" (static to the handle). */
const char *wh_precheck_ignored(const wh_precheck_t *p);

/* Checks one candidate: 1 when it has a counted front-end error (*first, if
 * given, gets "line:col: message", malloc'ed), 0 when it has none, a
 * negative WH_E code when libclang failed (then the handle disables itself:
 * no prediction is better than a wrong one). */
int wh_precheck_check(wh_precheck_t *p, const char *text, size_t len, char **first);

/* wh_precheck_check, and with opts.ub_guard the UB guard's answer
 * (ubguard.h) from the same parse: *ub is 1 when the candidate raises a
 * guarded diagnostic the original does not (*ub_first, if given, gets
 * "line:col: message [-Wopt]", malloc'ed), 0 when it raises none, -1 when
 * this parse cannot say: the guard was not asked for, the arguments hold
 * -w (the guard's parse drops it), the original has a hard error (the
 * guard is off then), or the check failed. Where it says 0 or 1 it says
 * what wh_ubguard_check says of the same text: the parse has the guard's
 * arguments (ubscan.h: wh_ubscan_args) after the user's, which differ only
 * in -Werror (dropped with flags that are not the file's own), and a
 * warning made an error stops no analysis in clang, so both see the same
 * guarded diagnostics, counted the same way. */
int wh_precheck_check_ub(wh_precheck_t *p, const char *text, size_t len, char **first, int *ub,
                         char **ub_first);
/* Checks done and the total time they took, and the time the original's
 * parse and preamble took, in microseconds. */
void wh_precheck_stats(const wh_precheck_t *p, int *checks, unsigned long long *us,
                       unsigned long long *setup_us);

#endif
