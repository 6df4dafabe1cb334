/*
 * taint — classifies infrastructure faults: whether a finished setup,
 * build or test run says something about the node rather than about the
 * candidate (DESIGN.md, "Trust: what a verdict is worth"). A verdict whose
 * run shows one is tainted: the node answers InfraError with code
 * WH_ETAINT, the coordinator never caches it, retries the candidate on
 * another slot and takes a slot that keeps producing them out of rotation.
 *
 * What counts (each with a one-line reason quoting the evidence):
 *   - no space: "No space left on device"/ENOSPC in the output, or the
 *     workspace's file system is full (wh_taint_disk);
 *   - quota: "Disk quota exceeded"/EDQUOT in the output;
 *   - out of memory (setup and build only): a compiler killed
 *     ("Killed signal terminated program", "unable to execute command:
 *     Killed"), "virtual memory exhausted", "out of memory allocating";
 *   - a signal from outside: the command, or a child its shell reported
 *     (exit 128+N, a "Killed" line), ended by SIGKILL, SIGTERM, SIGHUP or
 *     SIGINT that whittle did not send (its timeout and cancel kills are
 *     flagged by the runner and are not taints); for the test step not
 *     when the failure being reduced is that very signal;
 *   - a stuck process: a member of the step's process group outlived its
 *     kill (the runner's group_lingered; a process stuck in the kernel);
 *   - a missing tool: exit 126 or 127 with "not found", "Permission
 *     denied", "No such file or directory", "cannot execute" or
 *     "error while loading shared libraries" in the output.
 * Patterns found in `own` (the text of the failure being reduced) are the
 * test's own business and do not count for the test step.
 *
 * The classifier does no I/O and keeps no state: safe from any thread.
 */
#ifndef WH_TAINT_H
#define WH_TAINT_H

#include <stddef.h>

#include "runner.h"

typedef enum {
    WH_TAINT_NONE = 0,
    WH_TAINT_NO_SPACE,
    WH_TAINT_QUOTA,
    WH_TAINT_OOM,
    WH_TAINT_SIGNAL,
    WH_TAINT_NO_TOOL,
    WH_TAINT_STUCK,
    WH_TAINT_SANDBOX,   /* bwrap could not set the sandbox up (runas.h) */
} wh_taint_t;

typedef enum { WH_STEP_SETUP, WH_STEP_BUILD, WH_STEP_TEST } wh_step_t;

typedef struct {
    wh_step_t step;
    const wh_run_result_t *run; /* how the step ended; NULL when it did not run */
    const char *out;            /* what it printed (may be NULL) */
    size_t out_len;
    const char *own;            /* the failure being reduced ("kind message"); may be NULL */
} wh_taint_step_t;

/* "no space", "disk quota", "out of memory", "signal from outside",
 * "missing tool", "stuck process", or "none". */
const char *wh_taint_name(wh_taint_t t);

/* Classifies one step. On a taint, writes "<step> <evidence>" (one line,
 * e.g. "build output: `...: No space left on device`") into why[0, n). */
wh_taint_t wh_taint_classify(const wh_taint_step_t *st, char *why, size_t n);

/* Free space a workspace needs to be judged in (bytes). */
#define WH_TAINT_MIN_FREE ((unsigned long long)256 << 10)

/* WH_TAINT_NO_SPACE when the file system holding path has fewer than
 * WH_TAINT_MIN_FREE bytes (or no inodes) free for this process, with why;
 * WH_TAINT_NONE otherwise, also when path cannot be examined. */
wh_taint_t wh_taint_disk(const char *path, char *why, size_t n);

#endif
