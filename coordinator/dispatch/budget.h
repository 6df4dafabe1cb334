/*
 * budget — retry budgets with exponential backoff, for the pool's dealings
 * with slots that answer "busy" or keep getting lost (disconnects). A
 * budget counts failures in a row; each failure pushes the next try back
 * (base, 2*base, 4*base, ... capped); after `max` failures the budget is
 * spent and the caller gives up (InfraError, out of rotation).
 *
 * Plain value types and pure functions of the clock passed in: no I/O, no
 * allocation except in the loss registry, testable without sockets.
 * Not thread-safe (the pool's poll thread owns them).
 */
#ifndef WH_BUDGET_H
#define WH_BUDGET_H

#include <stdint.h>

typedef struct {
    unsigned base_ms;   /* delay after the first failure */
    unsigned cap_ms;    /* longest delay */
    int max;            /* failures in a row that spend the budget */
} wh_budget_rule_t;

typedef struct {
    int n;              /* failures in a row */
    uint64_t until_ms;  /* no new try before this (monotonic ms) */
} wh_budget_t;

/* One more failure at now: counts it and sets the backoff. Returns 1 when
 * the budget is now spent (n >= rule->max), else 0. */
int wh_budget_fail(wh_budget_t *b, const wh_budget_rule_t *rule, uint64_t now);
/* A success: the count and the backoff start over. */
void wh_budget_reset(wh_budget_t *b);
/* 1 while a try must wait (now < until_ms). */
int wh_budget_waiting(const wh_budget_t *b, uint64_t now);
/* The delay the next failure would set: base << n, capped. */
unsigned wh_budget_delay(const wh_budget_t *b, const wh_budget_rule_t *rule);

/* Losses of slots by name, kept across their reconnects (the slot's own
 * record goes away with the connection). At most WH_LOSSES_MAX names; the
 * oldest is forgotten first. */
#define WH_LOSSES_MAX 256
typedef struct wh_losses wh_losses_t;

wh_losses_t *wh_losses_new(void);
void wh_losses_destroy(wh_losses_t **l);
/* The budget of name (created at zero), or NULL on allocation failure. */
wh_budget_t *wh_losses_get(wh_losses_t *l, const char *name);

#endif
