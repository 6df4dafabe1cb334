/*
 * progress — the reduction's status as one line, and where it is drawn.
 *
 *   sweep 2 level 1 round 14 | 23/57 units left | 31 built, 4 predicted, 12 cached | ETA 1m05s
 *   verifying the reduced test | 6/57 units left | 40 built, 4 predicted, 12 cached
 *
 * The ETA (wh_progress_eta) is the time the walk's remaining rounds take
 * on the job's slots: each round's candidates that need a build (the share
 * the cache and the precheck left to build so far), in waves of as many as
 * there are slots, each wave the time a wave has taken so far; the
 * remaining rounds are those left if nothing more is removed, and a
 * removal still to come (as likely as recent rounds say) brings one more
 * pass over the statements left. "ETA ?" until a candidate has been built.
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
    uint64_t eta_ms;          /* wh_progress_eta; 0 = unknown (then rounds_left x median) */
} wh_progress_t;

/* rounds_left x median_ms; 0 when either is unknown (0). The estimate for
 * unlimited slots. */
uint64_t wh_progress_eta_ms(int rounds_left, uint64_t median_ms);

/* What the estimate is made from. */
typedef struct {
    const int *cands;   /* candidates of each remaining round if nothing more is removed */
    int rounds;         /* entries of cands */
    double built;       /* share of judged candidates that needed a build (0..1) */
    int slots;          /* slots building for the job at once (>= 1) */
    uint64_t median_ms; /* of a built candidate; 0 = none yet */
    int units_left;     /* statements still alive */
    int last_sweep;     /* the last rounds of cands that are of the plan's last sweep */
    double win_rate;    /* share of recent rounds that removed something (0..1) */
    uint64_t wave_ms;   /* the walk's time so far over its waves so far (it holds
                           what a build costs besides the node's time); 0: median_ms */
    uint64_t into_ms;   /* time spent on the current round (the plan's first) */
} wh_progress_plan_t;

/* The waves of builds a round of b builds takes on slots slots: b / slots
 * when b >= slots, else min(1, b). */
double wh_progress_waves(double b, int slots);

/* The time left, in ms: a round of c candidates needs b = c x built
 * builds, in wh_progress_waves(b, slots) waves; each wave takes wave_ms
 * (else median_ms), less what the current round took already. The plan
 * holds only what is left if nothing more is removed; but a removal in
 * any of its rounds (each with chance win_rate) makes the walk sweep the
 * levels again, one at a time over the statements left, unless the plan
 * holds a next sweep already (last_sweep < rounds): with chance
 * 1 - (1 - win_rate)^rounds, units_left candidates more. 0 when
 * median_ms is 0; 1 when only waves of nothing are left but the walk is
 * not over. */
uint64_t wh_progress_eta(const wh_progress_plan_t *pl);

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
