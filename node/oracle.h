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
#include "normalize.h"
#include "runner.h"
#include "sanitizer.h"
#include "whole.h"
#include "wh_common.h"

typedef enum {
    WH_MATCH_FULL = 0,  /* test + kind + location + message */
    WH_MATCH_MESSAGE,   /* test + kind + message */
    WH_MATCH_TYPE,      /* test + kind */
} wh_match_t;

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
    const char *test_fn;       /* NULL, or the function registered as test, which the
                                  output may name instead (wh_fw_opts_t.test_fn) */
    unsigned build_timeout_ms;
    unsigned test_timeout_ms;
    const char *report_path;   /* absolute path for {report}; removed before the run */
    const char *log_path;      /* build+run console log (truncated first); may be NULL */
    const char *failure_regex; /* console preset options; may be NULL */
    const char *pass_regex;
    const char *message_continuation;
    int pass_on_exit0;         /* a console reader's run that exits 0 and shows no failure passed */
    wh_tick_fn tick;           /* heartbeats / cancellation; may be NULL */
    void *tick_arg;
    const char *mount_at;      /* NULL, or the stable path the commands see root at
                                  (runner.h); paths in reports are read relative to it */
    const wh_runas_t *runas;   /* NULL, or the user and sandbox of the build and test (runas.h) */
    const char *const *scratch_env; /* NULL, or the workspace's private TMPDIR and HOME
                                       (scratch.h) for the build and the test */
    const wh_whole_t *whole;   /* NULL, or judge the whole CTest test too (a reference run) */
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
    /* How the build and the test run ended, for the infrastructure-fault
     * classifier (node/taint.h); valid when build_ran / test_ran. The
     * test's output starts at byte test_log_from of log_path. */
    wh_run_result_t build_run, test_run;
    int build_ran, test_ran;
    long long test_log_from;
    /* With spec->whole: why the whole CTest test fails ("exit status 23
     * (sanitizer(lsan,...))"), NULL when it passes. A test that passed
     * while its whole test failed is FAILED, kind "whole-test", this its
     * message. */
    char *whole_fail;
    /* The other functions of the program that failed in this run (their
     * reports' or their output's names, and the one a death belongs to),
     * one per line, sorted; "" when none; NULL when not known. A candidate
     * that makes another function fail fails another way. */
    char *others;
} wh_eval_result_t;

void wh_eval_result_clear(wh_eval_result_t *r);

/* wh_evaluate runs every test with ASAN_OPTIONS / UBSAN_OPTIONS pointing
 * the sanitizer runtimes at per-run log files "<root>.san.<pid>" (and only
 * the test run, never the build); a report there overrides the framework's
 * result, and turns a missing report into a FAILED result. A test that died
 * of a signal without any report becomes FAILED with kind crash(SIGxxx)
 * (see sanitizer.h). */

/* Writes content into root/test_file (in place), builds, runs, reads, judges
 * against ref (NULL: baseline, no verdict, but result filled). Returns 0
 * when an outcome was produced (including BuildFailed/InfraError), negative
 * when the workspace could not be written. */
int wh_evaluate(const wh_eval_spec_t *s, const char *content, size_t len,
                const wh_fp_t *ref, wh_match_t m, wh_eval_result_t *out);

#endif
