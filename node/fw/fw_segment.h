/*
 * fw_segment — which test function a whole test program was running, and
 * each function's own part of its console output: from the function's
 * start line to its end line. A failure belongs to the function running
 * when it was raised; a program killed by a signal or a sanitizer report
 * (ASan aborts the whole process) was running the function that started
 * last and never ended.
 *
 * Grammars whose harness prints both a start and an end line:
 *
 *   bracket  cmocka (stdout output), GoogleTest, utest.h:
 *            "[ RUN      ] NAME" starts; "[       OK ] NAME",
 *            "[  FAILED  ] NAME", "[  SKIPPED ] NAME" end (gtest adds
 *            " (N ms)" or ", where ..."); cmocka's "[  ERROR   ] --- text"
 *            and "[   LINE   ] --- file:line" are lines of the part.
 *   cunit    CUnit basic mode, verbose: "  Test: NAME ..." starts, and the
 *            same line's "passed" / "FAILED" (or a later line's, when the
 *            test printed something) ends it.
 *
 * Unity, Check and Criterion are not here: Unity prints one line after a
 * test ends (no start line), Check and Criterion run each test in a child
 * process of its own, whose death their reports name.
 *
 * No I/O and no state: any thread may call these.
 */
#ifndef WH_FW_SEGMENT_H
#define WH_FW_SEGMENT_H

#include <stddef.h>

typedef enum {
    WH_SEG_NONE = 0, /* the function never started */
    WH_SEG_OPEN,     /* started, never ended: the program died in it */
    WH_SEG_PASSED,
    WH_SEG_FAILED,
    WH_SEG_SKIPPED,
} wh_seg_state_t;

typedef struct {
    wh_seg_state_t state;
    size_t start, end; /* its lines: [start, end) of the text, start line excluded */
} wh_seg_t;

/* The function that started last and never ended (malloc'ed), NULL when
 * none (every started function ended, no grammar matched, or no memory). */
char *wh_seg_open(const char *text, size_t len);

/* 1 when some start line of a grammar is in text. */
int wh_seg_any(const char *text, size_t len);

/* The part of test in text: its last start line's part. *out->state is
 * WH_SEG_NONE when test never started. A name matches as gtest and
 * Criterion spell it too ("Suite.Name" for "Name" and back). */
void wh_seg_find(const char *text, size_t len, const char *test, wh_seg_t *out);

/* 1 when a started function's name is test (the same matching). */
int wh_seg_name_is(const char *name, const char *test);

#endif
