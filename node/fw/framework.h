/*
 * framework — test framework presets and their report parsers, behind a
 * small ops table. A preset knows how to run one test (a suffix for the run
 * command and environment, both templates with {test} and {report}) and how
 * to read one test's result from the report it writes (libxml2 for XML).
 *
 * Presets: "junit" (any JUnit XML at {report}), "cmocka", "gtest", "ctest".
 */
#ifndef WH_FRAMEWORK_H
#define WH_FRAMEWORK_H

#include <stddef.h>

#include "wh_common.h"

typedef enum {
    WH_TR_MISSING = 0,  /* the test is not in the report */
    WH_TR_PASSED,
    WH_TR_FAILED,       /* failure or error */
    WH_TR_SKIPPED,
} wh_test_status_t;

typedef struct {
    wh_test_status_t status;
    wh_fp_t fp;  /* for WH_TR_FAILED: test, kind, message (raw), location */
} wh_test_result_t;

void wh_test_result_clear(wh_test_result_t *r);
/* Starts a read: *err = NULL (when err is not NULL) and out zeroed with
 * status WH_TR_MISSING. */
void wh_test_result_init(wh_test_result_t *out, char **err);
/* Abandons a read that ran out of memory: clears out, sets *err to "out of
 * memory" unless it holds a reason already, and returns WH_ENOMEM. */
int wh_test_result_oom(wh_test_result_t *out, char **err);

/* Per-job options a reader may need. Any field may be NULL. */
typedef struct {
    const char *failure_regex;  /* console preset: PCRE2 with named groups (userrx.h) */
    const char *pass_regex;
    const char *root;           /* the workspace root, to make paths relative */
    const char *message_continuation; /* console: lines after a failure that belong to its message */
    /* console, plain: the function a registration runs as the test
     * (aws-c-common's AWS_TEST_CASE(test, fn)); a failure or pass that
     * names it is the test's own, as one naming the test is. */
    const char *test_fn;
} wh_fw_opts_t;

/* What a preset is, beside how it reads (wh_framework_t.flags). */
enum {
    /* Reads the console instead of a report file (console, plain): such a
     * reader cannot see how the process ended, so wh_evaluate turns its
     * PASSED or MISSING into a crash when the process died of a signal. */
    WH_FW_READS_CONSOLE = 1u << 0,
    /* Its harness's evidence of a pass is exit status 0 (plain): a run that
     * shows no failure and exits 0 passed, as with --pass-on-exit0. */
    WH_FW_EXIT0_PASSES = 1u << 1,
};

typedef struct wh_framework {
    const char *name;
    /* Appended (after a space) to the user's run command; may be NULL. */
    const char *run_suffix;
    /* Extra environment entries "K=V" (templates), NULL-terminated. */
    const char *const *env;
    /* Reads the result of `test` from the report at report_path (which may
     * not exist) and from the captured console output. Returns 0 and fills
     * *out (status WH_TR_MISSING when the test is not there, or for a
     * console reader, when the text shows neither a failure nor a pass:
     * PASSED needs evidence, a report or a pass line); returns
     * WH_EREPORT when there is no usable report at all, WH_EPARSE when the
     * report is malformed. */
    int (*read)(const char *report_path, const char *console, size_t console_len,
                const char *test, const wh_fw_opts_t *opts, wh_test_result_t *out,
                char **err);
    /* Checks the job's options before anything runs (e.g. a regex that does
     * not compile); NULL = nothing to check. 0 or WH_EINVAL with *err. */
    int (*check)(const wh_fw_opts_t *opts, char **err);
    unsigned flags; /* WH_FW_… bits */
} wh_framework_t;

/* More presets live in their own files (fw_xunit.c, fw_console.c); each
 * provides a table through one of these functions. They are weak: a build
 * without the file simply has fewer presets. */
const wh_framework_t *wh_fw_xunit_presets(size_t *n) __attribute__((weak));
const wh_framework_t *wh_fw_console_presets(size_t *n) __attribute__((weak));

/* Why a console regex found nothing for test although it matched: its
 * first match in text[0, len) whose test group names neither test nor
 * test_fn (NULL: none). Returns 1 with *match (the matched text, its first
 * line, at most 200 bytes) and *named (the test group) malloc'ed; 0 when it
 * matched no other test (or does not compile: check says so); negative
 * code (WH_ENOMEM). For the coordinator's error on the original run. */
int wh_fw_console_foreign(const char *regex, const char *test, const char *test_fn,
                          const char *text, size_t len, char **match, char **named);

/* The preset named name, or NULL. */
const wh_framework_t *wh_framework_find(const char *name);
/* Comma-separated names of every preset, for error messages. */
const char *wh_framework_names(void);

/* 1 when fw has the WH_FW_READS_CONSOLE flag. */
int wh_fw_reads_console(const wh_framework_t *fw);

/* The environment entries ("K=V", NULL-terminated) that make fw's harness
 * print each function's start and end on the console instead of writing
 * its report (fw_segment.h), for a run that died before the report was
 * written; NULL when fw prints them anyway or cannot. */
const char *const *wh_fw_console_env(const wh_framework_t *fw);

/* A failed result of test from its own part of the console (fw_segment.h:
 * cmocka's "[  ERROR   ] --- text" and "[   LINE   ] --- file:N: error:
 * Failure!", or any "file:N: message"), fingerprinted as fw's report
 * would: kind "assert", location "file:N", the message without cmocka's
 * "error: Failure!". 0 or WH_ENOMEM. */
int wh_fw_segment_result(const char *seg, size_t len, const char *test, wh_test_result_t *out);

/* The last C library assertion line in text[0, len) (glibc's "prog:
 * file.c:12: func: Assertion `x' failed.", musl's "Assertion failed: x
 * (file.c: func: 12)"): 1 with *loc ("file.c:12", or "") and *msg (the
 * "Assertion ..." text), both malloc'ed; 0 when there is none; WH_ENOMEM. */
int wh_fw_assert_in(const char *text, size_t len, char **loc, char **msg);

/* The first "path/file.c:LINE" in s[0, n) (a C or C++ source or header):
 * 1 with [*start, *end) and *loc ("file.c:LINE", malloc'ed), 0 when none,
 * -1 when out of memory. */
int wh_fw_find_location(const char *s, size_t n, size_t *start, size_t *end, char **loc);

/* Replaces {test} and {report} in tmpl; malloc'ed. */
char *wh_expand(const char *tmpl, const char *test, const char *report);

#endif
