/*
 * spend — a job's budget (`--budget builds=N`, `--budget time=DURATION`):
 * what the walk may spend before it stops with its best answer so far.
 * Counts the walk's builds (candidates a slot judged); the original's
 * runs, the verify run and the fault check are the answer's truth, not
 * its search, and are never cut short by a budget.
 *
 * Plain values and pure functions of the figures passed in: no I/O.
 */
#ifndef WH_SPEND_H
#define WH_SPEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int builds;  /* walk builds at most; 0: no limit */
    uint64_t ms; /* wall time from the job's start at most; 0: no limit */
} wh_spend_t;

/* Adds one `--budget` value to b: "builds=N" (1 to 1000000), "time=D"
 * (D: 90, 90s, 30m, 2h, 1h30m; at most 30 days), or both joined by a
 * comma. 0, or WH_EINVAL with *err a one-line reason naming the value
 * (malloc'ed). */
int wh_spend_parse(const char *arg, wh_spend_t *b, char **err);
/* As wh_spend_parse, for the option named opt ("--batch-budget"): the
 * same syntax, its error naming opt. */
int wh_spend_parse_opt(const char *opt, const char *arg, wh_spend_t *b, char **err);
/* A duration ("90", "90s", "30m", "2h", "1h30m", "1d"): 0 with *ms, or -1. */
int wh_spend_duration(const char *s, uint64_t *ms);
/* Writes "builds=N,time=D" (the parts set) into buf; "" for no budget. */
void wh_spend_format(const wh_spend_t *b, char *buf, size_t n);
/* When the budget is spent at builds and elapsed_ms: 1 with why (e.g.
 * "builds=3 spent: 3 builds") written into buf, else 0. */
int wh_spend_over(const wh_spend_t *b, int builds, uint64_t elapsed_ms, char *buf, size_t n);

/* A batch's budget (`--batch-budget`): the same test over the builds
 * every job of the batch spent and the time since the batch began; why
 * reads "batch budget builds=N spent: M builds of the batch". */
int wh_spend_batch_over(const wh_spend_t *b, int builds, uint64_t elapsed_ms, char *buf,
                        size_t n);

#endif
