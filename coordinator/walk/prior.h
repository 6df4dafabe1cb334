/*
 * prior — what the walk expects of a removal no verdict speaks for yet
 * (chain.h: the memo's verdicts come first): a backward slice of the
 * failing statement over the test body's data flow (tree.h, wh_flow_t).
 *
 * The slice starts at the unit the fingerprint's location names (the
 * failing assert) and its enclosing units, and the variables they read.
 * A unit joins it when its own part writes a variable of the slice; its
 * reads and its enclosing units' (their conditions) then join too. A
 * break or continue joins when its loop or switch holds a unit of the
 * slice; a return, goto or throw when a unit of the slice comes after it.
 * Until nothing changes.
 *
 * A removal is expected Preserved when it takes no unit of the slice,
 * leaves no kept use of a variable it takes the declaration of (that
 * would not build), and, when the compile arguments make an unused
 * variable an error (-Werror with -Wall, -Wunused...), takes no last read
 * of a variable it keeps declared. It shapes how far slots run ahead, never the answer:
 * a wrong expectation costs builds, as a wrong memo entry does.
 *
 * Pure: no libclang, no I/O. Immutable once made; any thread may read it.
 */
#ifndef WH_PRIOR_H
#define WH_PRIOR_H

#include <stdint.h>

#include "tree.h"

typedef struct wh_prior wh_prior_t;

/* The unit that location ("file:line", the fingerprint's) points at: the
 * last unit in pre-order on that line of t's file (the same file name,
 * whatever the folder; "line N", a line without a file, is taken as the
 * test file's), or -1 (another file, a line outside the body, no
 * location). */
int wh_prior_seed(const wh_tree_t *t, const char *location);

/* The slice from unit seed. NULL when t has no data flow, seed is out of
 * range, or memory ran out: the walk then expects what the memo says. */
wh_prior_t *wh_prior_new(const wh_tree_t *t, int seed);
void wh_prior_destroy(wh_prior_t **p);

/* 1 when the candidate that removes `removed` from configuration `base`
 * (both closed under descendants, n units) is expected Preserved. */
int wh_prior_expect(const wh_prior_t *p, const uint8_t *removed, const uint8_t *base);

/* 1 when unit u is in the slice; the number of units in it. */
int wh_prior_in_slice(const wh_prior_t *p, int u);
int wh_prior_size(const wh_prior_t *p);

#endif
