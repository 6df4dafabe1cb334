/*
 * batchgroup — a batch's failures grouped by root cause before any of them
 * is reduced (`whittle reduce --from-ctest` / `--from-junit`, issue 35).
 * Each failure comes with the fingerprint its own run of the original gave
 * (a fingerprint-only job: the check comes first, so a failure that only
 * looked like the others never joins them); two failures share a group
 * when their root-cause keys are equal:
 *
 *   kind | location | the message's shape
 *
 * The location is the failing line the oracle names: a shared helper's
 * assertion, or the library frame a crash or sanitizer report stops in,
 * is the same line for every test that trips over it, while a test's own
 * assertion is a line of its own. The shape is the normalized message with
 * the test's name masked and every run of digits made "N" (a helper's
 * values differ per test; "7 != 6" and "9 != 8" are one failure, "N != -N"
 * another). A sanitizer report's shape is its frames outside the test
 * file (wh_bg_outside). A failure that names no line (a signal a harness caught:
 * cmocka's "Test failed with exception: Segmentation fault(11)") is a group
 * of its own: any two crashes would share its kind and message.
 *
 * Pure: no I/O, no allocation beyond the keys.
 */
#ifndef WH_BATCHGROUP_H
#define WH_BATCHGROUP_H

#include <stddef.h>

#include "wh_common.h"

/* msg with every occurrence of word (NULL: none) made "<test>", and with
 * digits, every run of digits "N" (malloc'ed; NULL: out of memory). */
char *wh_bg_mask(const char *msg, const char *word, int digits);
/* The bare function name of a test id ("suite/name", "Suite.Name",
 * "suite::name"). */
const char *wh_bg_bare(const char *test);

/* A sanitizer report's frames ("func@file:line < func@file:line < ...",
 * innermost first) cut before the first frame in test_file (by its base
 * name), so that the top frames outside the test file are left: the
 * library function every test trips over, not the test that called it
 * (ClusterFuzz's crash state, minus the test). The top frame always
 * stays. A message with no frames, or no test_file: a copy (malloc'ed;
 * NULL: out of memory). */
char *wh_bg_outside(const char *msg, const char *test_file);
/* The root-cause key of a failure (malloc'ed), or NULL when it has none
 * (no location) or memory ran out. test_file: the failing test's file
 * (project-relative or a base name; NULL: unknown), whose frames a
 * sanitizer report's key leaves out. */
char *wh_bg_key(const wh_fp_t *fp, const char *test_file);

/* Groups n failures by their keys (keys[i] may be NULL: alone). size[i]
 * is failure i's test size (statements; < 0 unknown, counted as largest).
 * On return rep[i] is the index of failure i's group representative: the
 * smallest test of the group, the first of equals; rep[r] == r for a
 * representative. Returns the number of groups. */
size_t wh_bg_group(char *const *keys, const int *size, size_t n, size_t *rep);

#endif
