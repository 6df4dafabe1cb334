/*
 * oracle — fingerprints and verdicts, and the evaluation of one candidate in
 * a workspace: write the test file, build, run the one test, read the
 * report, judge against the reference fingerprint. The verdict is read from
 * the framework's report, never from the test command's exit code.
 */
#ifndef WH_ORACLE_H
#define WH_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "framework.h"
#include "runner.h"
#include "wh_common.h"

typedef enum {
    WH_MATCH_FULL = 0,  /* test + kind + location + message */
    WH_MATCH_MESSAGE,   /* test + kind + message */
    WH_MATCH_TYPE,      /* test + kind */
} wh_match_t;

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

/* 1 when the observed fingerprint matches the reference under mode m. */
int wh_fp_match(const wh_fp_t *ref, const wh_fp_t *obs, wh_match_t m);

/* Verdict of a test result against the reference fingerprint. */
wh_verdict_t wh_oracle_judge(const wh_test_result_t *r, const wh_fp_t *ref, wh_match_t m);

/* What one evaluation needs; all strings borrowed. */
typedef struct {
    const char *root;          /* workspace root (absolute) */
    const char *test_file;     /* relative to root */
    const char *build_cmd;     /* may be NULL/"" (no build step) */
    const char *run_cmd;       /* template with {test} {report} */
    const wh_framework_t *fw;
    const char *test;          /* target test name */
    unsigned build_timeout_ms;
    unsigned test_timeout_ms;
    const char *report_path;   /* absolute path for {report}; removed before the run */
    const char *log_path;      /* build+run console log (truncated first); may be NULL */
    const char *failure_regex; /* console preset options; may be NULL */
    const char *pass_regex;
    wh_tick_fn tick;           /* heartbeats / cancellation; may be NULL */
    void *tick_arg;
} wh_eval_spec_t;

typedef struct {
    /* For a baseline run (ref == NULL): WH_V_NONE when the report was read
     * (see result), else WH_V_BUILD_FAILED or WH_V_INFRA_ERROR, so that the
     * caller can tell "does not build" from "could not be judged". */
    wh_verdict_t verdict;
    wh_test_result_t result;   /* what the report said */
    char *detail;              /* one line: why (e.g. "build exited 1", "test timed out after 5000 ms") */
    int build_ok;
    uint64_t build_ms, test_ms;
    int cancelled;
} wh_eval_result_t;

void wh_eval_result_clear(wh_eval_result_t *r);

/* ---- crash and sanitizer identity (implemented in fw_console.c) ----
 *
 * wh_evaluate runs every test with ASAN_OPTIONS / UBSAN_OPTIONS pointing
 * the sanitizer runtimes at per-run log files "<root>.san.<pid>" (and only
 * the test run, never the build); a report there overrides the framework's
 * result, and turns a missing report into a FAILED result. A test that died
 * of a signal without any report becomes FAILED with kind crash(SIGxxx). */

/* Parses the first sanitizer report (ASan, LSan, UBSan, MSan, TSan) in
 * text[0, len) into out->kind "sanitizer(asan,heap-buffer-overflow,WRITE)",
 * out->location (first project frame "file.c:12") and out->message (up to
 * three project frames "f@file.c:12 < g@test.c:40"); a project frame has its
 * source under root (NULL: outside the system folders). out->test is left
 * NULL. Returns 1 when a report was found, 0 when none, WH_ENOMEM. */
int wh_san_parse(const char *text, size_t len, const char *root, wh_fp_t *out);

/* Reads the "<prefix>.*" log files in name order; parses the first report
 * into out (as wh_san_parse) and appends every log, with a header line, to
 * raw (may be NULL). Returns 1 when a report was found, 0 when none (or no
 * files), negative on error. */
int wh_san_collect(const char *prefix, const char *root, wh_fp_t *out, wh_buf_t *raw);

/* Removes every "<prefix>.*" file. 0 or a negative error. */
int wh_san_remove(const char *prefix);

/* "crash(SIGSEGV)" for sig (malloc'ed; "crash(signal N)" when unnamed). */
char *wh_crash_kind(int sig);

/* The signal a shell reported in console text ("Segmentation fault",
 * "Aborted", … at a line start or after bash's pid), or 0. */
int wh_crash_text(const char *console, size_t len);

/* 1 when fw reads the console instead of a report file (console, plain):
 * such a reader cannot see how the process ended, so wh_evaluate turns its
 * PASSED or MISSING into a crash when the process died of a signal. */
int wh_fw_reads_console(const wh_framework_t *fw);

/* Writes content into root/test_file (in place), builds, runs, reads, judges
 * against ref (NULL: baseline, no verdict, but result filled). Returns 0
 * when an outcome was produced (including BuildFailed/InfraError), negative
 * when the workspace could not be written. */
int wh_evaluate(const wh_eval_spec_t *s, const char *content, size_t len,
                const wh_fp_t *ref, wh_match_t m, wh_eval_result_t *out);

#endif
