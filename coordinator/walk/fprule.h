/*
 * fprule — the fingerprint-location rule (DESIGN.md, "Trust"): a candidate
 * that removes the statement at the failure's location cannot fail the
 * same way, so a Preserved verdict for it is a lie (or a broken node), never
 * a verdict to believe. Rendering keeps every surviving statement on its
 * original line (render.h), so the candidate removes the failing statement
 * exactly when the failure's line of its text holds no code any more.
 *
 * Pure: no pool, cache or I/O. Any thread.
 */
#ifndef WH_FPRULE_H
#define WH_FPRULE_H

#include <stdint.h>

#include "tree.h"

/* The line of tree t's test file that the fingerprint's location names
 * ("file:line" of the test file), when a statement of the test body is on
 * it and the fingerprint compares locations (match_full: --match full); 0
 * when the rule does not apply: the failure is in a helper or a library,
 * has no location, or only a console harness's bare "line N" (a number
 * the output printed, which may be another file's __LINE__). */
int wh_fprule_line(const wh_tree_t *t, const char *location, int match_full);

/* 1 when the candidate removed[] (of t; rendered line-true) leaves line
 * `line` without code (only blanks or a // comment); 0 when some code stays
 * there, or line is 0. */
int wh_fprule_removes(const wh_tree_t *t, const uint8_t *removed, int line);

/* The same for a rendered candidate text. */
int wh_fprule_blank(const char *text, size_t len, int line);

#endif
