/*
 * render — candidate test files from the pristine text.
 *
 * A candidate is rendered from the pristine file by deleting the byte ranges
 * of the removed units; removed bytes become spaces except '\n' and '\r'
 * (kept as is, so LF and CRLF line ends survive), so the output has the
 * text's length and every surviving statement stays on its original line and
 * column. Never rendered from a previous candidate. Pure functions of their
 * arguments; any thread may call.
 */
#ifndef WH_RENDER_H
#define WH_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "tree.h"

/* Line-true rendering. removed[i] != 0 marks unit i removed (descendants of a
 * removed unit are removed whatever their flag says). Returns a malloc'ed
 * NUL-terminated buffer of the same length as text; NULL on ENOMEM. */
char *wh_render(const wh_tree_t *t, const uint8_t *removed, size_t *out_len);

/* Compact rendering for people: like wh_render, then every line that was
 * non-blank in the original and is blank now is dropped (with its line end),
 * and runs of blank lines inside the test body (lines lying strictly between
 * body_begin and body_end) are squeezed to one. A surviving line whose
 * trailing whitespace a removal touched loses that trailing whitespace.
 * Blank means only ' ', '\t', '\r', '\v', '\f'. *out_len gets the length. */
char *wh_render_compact(const wh_tree_t *t, const uint8_t *removed, size_t *out_len);

#endif
