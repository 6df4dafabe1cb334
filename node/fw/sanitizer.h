/*
 * sanitizer — the identity of a test that died instead of failing: a
 * signal's crash kind, a shell's crash line, and the first sanitizer report
 * (ASan, LSan, UBSan, MSan, TSan) as a fingerprint. Text and files only: it
 * knows nothing of frameworks or verdicts, and every function may be called
 * from any thread.
 */
#ifndef WH_SANITIZER_H
#define WH_SANITIZER_H

#include <stddef.h>

#include "wh_common.h"

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

#endif
