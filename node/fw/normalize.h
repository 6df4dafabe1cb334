/*
 * normalize — failure messages made comparable across runs, workspaces and
 * machines, so that the same failure gives the same fingerprint on every
 * slot. Pure string work; every function may be called from any thread.
 */
#ifndef WH_NORMALIZE_H
#define WH_NORMALIZE_H

/* A failure message made comparable across runs, workspaces and machines
 * (malloc'ed; NULL only on allocation failure; msg NULL gives ""):
 *   - XML entities left in text are decoded (&lt; &gt; &amp; &quot; &apos;
 *     &#N; &#xN;), ANSI escape sequences are dropped;
 *   - the workspace root (root, may be NULL) and its real path are removed
 *     from paths ("/w/slot3/src/a.c" -> "src/a.c"), and paths under /tmp/
 *     or /var/tmp/ lose their folders ("/tmp/x.1/a.c" -> "a.c");
 *   - sanitizer pids "==12345==" become "==PID==", addresses of 8 or more
 *     hex digits "0x7ffd1234abcd" become "0x…" (short values such as
 *     cmocka's "0x4 != 0x5" stay), durations ("12 ms", "0.034s",
 *     "12.3 sec") become "<time>";
 *   - runs of whitespace collapse to one space, ends are trimmed.
 * Applying it twice changes nothing more. */
char *wh_fp_normalized(const char *msg, const char *root);

/* The same rules (without a root) in place. A mask can be longer than what
 * it replaces ("==7==" -> "==PID=="); when the result would not fit, only
 * the whitespace is collapsed. Prefer wh_fp_normalized. */
void wh_fp_normalize_message(char *msg);

#endif
