/*
 * judge — the synthetic fixture's compiler and test runner in one small
 * program, so that a candidate costs its fixed latency plus two process
 * starts (the node's `sh -c` execs straight into it) and nothing else: on a
 * 2-core machine a shell script with sleep, grep or awk costs tens of
 * milliseconds of CPU per candidate, which would swamp what the benchmarks
 * measure.
 *
 *   judge build [SECONDS]   sleeps SECONDS (default 0.2; the "incremental
 *                           build"), then fails like a compiler when a
 *                           statement uses a name whose declaration the
 *                           candidate removed (every test function is
 *                           checked, each with its own declarations).
 *   judge run               writes a JUnit XML report for $WHITTLE_TEST to
 *                           $WHITTLE_REPORT (exit 1 when it failed; whittle
 *                           reads the report, not the exit code).
 *
 * Both read tests/test_synth.c from the current folder (the workspace root);
 * the decisions are marks.c's. Build: cc -O2 judge.c marks.c -o judge.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "marks.h"

#define FILE_PATH "tests/test_synth.c"
#define FILE_CAP (4u << 20)

static syn_marks_t s_tests[SYN_MAX_TESTS];

/* Reads FILE_PATH's markers; the number of tests, or -1. */
static int s_load(void)
{
    static char buf[FILE_CAP];
    FILE *f = fopen(FILE_PATH, "rb");
    if (!f) {
        fprintf(stderr, "judge: cannot open %s\n", FILE_PATH);
        return -1;
    }
    size_t len = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "judge: cannot read %s (or over %u bytes)\n", FILE_PATH, FILE_CAP);
        return -1;
    }
    return syn_marks_parse(buf, len, s_tests, SYN_MAX_TESTS);
}

static int s_build(const char *seconds)
{
    double s = seconds ? atof(seconds) : 0.2;
    if (s > 0) {
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    int n = s_load();
    if (n < 0)
        return 2;
    return syn_build_ok(s_tests, n, FILE_PATH, stderr) ? 0 : 1;
}

static int s_run(void)
{
    const char *test = getenv("WHITTLE_TEST");
    const char *report = getenv("WHITTLE_REPORT");
    if (!report || !*report) {
        fprintf(stderr, "judge: WHITTLE_REPORT is not set\n");
        return 2;
    }
    if (!test || !*test)
        test = "test_synth";
    int n = s_load();
    if (n < 0)
        return 2;
    syn_outcome_t o = syn_run(s_tests, n, test);
    FILE *r = fopen(report, "w");
    if (!r) {
        fprintf(stderr, "judge: cannot write %s\n", report);
        return 2;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
          "<testsuite name=\"synth\" tests=\"1\">\n", r);
    /* The test name comes from marks (a C identifier), never raw from the
     * environment, so it needs no XML escaping. */
    switch (o.status) {
    case SYN_MISSING:
        break;
    case SYN_PASSED:
        fprintf(r, "<testcase classname=\"synth\" name=\"%s\" time=\"0.001\"/>\n", test);
        break;
    case SYN_CRASHED:
        fprintf(r, "<testcase classname=\"synth\" name=\"%s\" time=\"0.001\">\n"
                   "<error message=\"signal 11: null pointer write\">%s:%d: Segmentation fault"
                   "</error>\n</testcase>\n", test, FILE_PATH, o.line);
        break;
    case SYN_FAILED:
        fprintf(r, "<testcase classname=\"synth\" name=\"%s\" time=\"0.001\">\n"
                   "<failure message=\"expected 42, got %d\">%s:%d: assertion failed"
                   "</failure>\n</testcase>\n", test, o.got, FILE_PATH, o.line);
        break;
    }
    fputs("</testsuite>\n</testsuites>\n", r);
    if (fclose(r) != 0)
        return 2;
    return o.status == SYN_FAILED || o.status == SYN_CRASHED;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && argc <= 3 && strcmp(argv[1], "build") == 0)
        return s_build(argc == 3 ? argv[2] : NULL);
    if (argc == 2 && strcmp(argv[1], "run") == 0)
        return s_run();
    fprintf(stderr, "usage: judge build [SECONDS] | judge run\n");
    return 2;
}
