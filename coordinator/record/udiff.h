/*
 * udiff — a unified diff of two texts, line by line (Myers' O(ND)
 * algorithm in linear space, "An O(ND) Difference Algorithm and Its
 * Variations", 1986, section 4b), in the format patch(1) reads: `---`/`+++`
 * header lines, `@@ -l,s +l,s @@` hunks with `context` lines around each
 * change, and "\ No newline at end of file" after a last line without one.
 *
 * A pure function of its arguments: no I/O; any thread may call.
 */
#ifndef WH_UDIFF_H
#define WH_UDIFF_H

#include <stddef.h>

/* The diff from a (old_name) to b (new_name), malloc'ed and NUL-terminated;
 * *out_len (may be NULL) gets its length. Identical texts give "" (no
 * header). Lines end at '\n'; a '\r' before it is part of the line. NULL
 * on ENOMEM. */
char *wh_udiff(const char *a, size_t alen, const char *b, size_t blen, const char *old_name,
               const char *new_name, int context, size_t *out_len);

/* Counts of a diff text: lines added ('+') and removed ('-'), header lines
 * not counted. */
void wh_udiff_count(const char *diff, int *added, int *removed);

#endif
