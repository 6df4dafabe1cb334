/*
 * progress — the reduction's status as one line, and where it is drawn.
 *
 *   sweep 2 level 1 round 14 | 23/57 units left | 31 built, 4 predicted, 12 cached | ETA 1m05s
 *   verifying the reduced test | 6/57 units left | 40 built, 4 predicted, 12 cached
 *
 * The ETA is the engine's rounds left if nothing more is removed
 * (wh_engine_rounds_left: each later removal adds rounds) times the median
 * time of a built candidate; "ETA ?" until a candidate has been built.
 *
 * Drawn on stdout in one of three modes: on a terminal one live line,
 * redrawn in place ("\r", erase to end of line); elsewhere a plain line
 * when the sweep, level or phase changes and at most every period otherwise;
 * quiet: nothing. Other console output calls wh_progress_erase() first, so
 * the live line never gets mixed into it. One drawer per process (there is
 * one terminal); call from one thread.
 */
#ifndef WH_PROGRESS_H
#define WH_PROGRESS_H

#include <stdint.h>

#include "wh_common.h"

typedef struct {
    const char *phase;        /* NULL while reducing; else what runs (static) */
    int sweep, level, round;  /* round: rounds resolved so far + 1 */
    int units_left, units;    /* statements still alive / in the test */
    int built, predicted, cached;
    int rounds_left;          /* wh_engine_rounds_left */
    uint64_t median_ms;       /* of built candidates; 0 = none yet */
} wh_progress_t;

/* rounds_left x median_ms; 0 when either is unknown (0). */
uint64_t wh_progress_eta_ms(int rounds_left, uint64_t median_ms);

/* "45s", "1m05s", "2h03m"; "?" for an unknown (0 median) ETA. */
void wh_progress_duration(uint64_t ms, char *out, size_t cap);

/* The median of v[0, n) (the lower middle one for even n); 0 when n is 0.
 * v is reordered. */
uint64_t wh_progress_median(uint64_t *v, int n);

/* The status line (no newline) appended to b. */
void wh_progress_format(const wh_progress_t *p, wh_buf_t *b);

typedef enum { WH_PROGRESS_TTY, WH_PROGRESS_PLAIN, WH_PROGRESS_QUIET } wh_progress_mode_t;

/* TTY when stdout is a terminal, else PLAIN; QUIET when quiet. */
wh_progress_mode_t wh_progress_mode_auto(int quiet);

/* Starts drawing in mode; plain lines at most every period_ms. */
void wh_progress_begin(wh_progress_mode_t mode, unsigned period_ms);
/* Draws p (a live line at most 10 times a second; plain as described). */
void wh_progress_update(const wh_progress_t *p);
/* Draws a line given whole (a remote coordinator's status). */
void wh_progress_update_line(const char *line, int changed);
/* Erases the live line, if one is drawn; call before printing. */
void wh_progress_erase(void);
/* Erases the live line and stops drawing. */
void wh_progress_end(void);

#endif
