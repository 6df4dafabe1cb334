/*
 * marks — the synthetic fixture's oracle as pure functions: reads the marker
 * comments of every `void test_...(void)` body of a test file's text (their
 * meaning is at the top of tests/test_synth.c) and decides what a compiler
 * and a test run would say. Used by the judge program (the fixture's build
 * and run commands) and by the in-process engine benchmark, so both judge
 * exactly alike. No I/O except the optional error stream; any thread.
 */
#ifndef SYN_MARKS_H
#define SYN_MARKS_H

#include <stddef.h>
#include <stdio.h>

#define SYN_MAX_TESTS 8
#define SYN_MAX_NAMES 64
#define SYN_NAME_LEN 32

typedef struct {
    char name[SYN_NAME_LEN];
    int line; /* first line it appears on, 1-based */
} syn_name_t;

/* The markers of one test function. Value type. */
typedef struct {
    char test[SYN_NAME_LEN];
    syn_name_t decl[SYN_MAX_NAMES], use[SYN_MAX_NAMES], tag[SYN_MAX_NAMES];
    int ndecl, nuse, ntag;
} syn_marks_t;

typedef enum {
    SYN_MISSING = 0, /* the test is not in the file */
    SYN_PASSED,
    SYN_FAILED,      /* the assert failed: message "expected 42, got <got>" at line */
    SYN_CRASHED,     /* X1 without G1: an error at line */
} syn_status_t;

typedef struct {
    syn_status_t status;
    int got;
    int line;
} syn_outcome_t;

/* Reads the markers of at most max test bodies of text (len bytes, need not
 * be NUL-terminated; a body ends at the first line starting with '}').
 * Returns the number of tests found. */
int syn_marks_parse(const char *text, size_t len, syn_marks_t *tests, int max);

/* 1 when every use in every test has its declaration in the same test;
 * else 0, and one compiler-like line per missing declaration goes to err
 * (NULL: quiet), naming file. */
int syn_build_ok(const syn_marks_t *tests, int n, const char *file, FILE *err);

/* What running test would report. */
syn_outcome_t syn_run(const syn_marks_t *tests, int n, const char *test);

#endif
