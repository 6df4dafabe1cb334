/*
 * budget — retry budgets with exponential backoff. See budget.h.
 */
#define _GNU_SOURCE
#include "budget.h"

#include <stdlib.h>
#include <string.h>

unsigned wh_budget_delay(const wh_budget_t *b, const wh_budget_rule_t *rule)
{
    uint64_t d = rule->base_ms;
    for (int i = 0; i < b->n && d < rule->cap_ms; i++)
        d *= 2u;
    return (unsigned)(d < rule->cap_ms ? d : rule->cap_ms);
}

int wh_budget_fail(wh_budget_t *b, const wh_budget_rule_t *rule, uint64_t now)
{
    b->until_ms = now + wh_budget_delay(b, rule);
    if (b->n < rule->max)
        b->n++;
    return b->n >= rule->max;
}

void wh_budget_reset(wh_budget_t *b)
{
    b->n = 0;
    b->until_ms = 0;
}

int wh_budget_waiting(const wh_budget_t *b, uint64_t now)
{
    return now < b->until_ms;
}

/* ---- losses by slot name ---- */

typedef struct {
    char *name;
    wh_budget_t b;
    uint64_t seq;       /* last use, for forgetting the oldest */
} s_entry_t;

struct wh_losses {
    s_entry_t e[WH_LOSSES_MAX];
    int n;
    uint64_t seq;
};

wh_losses_t *wh_losses_new(void)
{
    return calloc(1, sizeof(wh_losses_t));
}

void wh_losses_destroy(wh_losses_t **lp)
{
    wh_losses_t *l = *lp;
    if (!l)
        return;
    for (int i = 0; i < l->n; i++)
        free(l->e[i].name);
    free(l);
    *lp = NULL;
}

wh_budget_t *wh_losses_get(wh_losses_t *l, const char *name)
{
    int oldest = 0;
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->e[i].name, name) == 0) {
            l->e[i].seq = ++l->seq;
            return &l->e[i].b;
        }
        if (l->e[i].seq < l->e[oldest].seq)
            oldest = i;
    }
    char *copy = strdup(name);
    if (!copy)
        return NULL;
    int k = oldest;
    if (l->n < WH_LOSSES_MAX)
        k = l->n++;
    else
        free(l->e[k].name);
    l->e[k].name = copy;
    memset(&l->e[k].b, 0, sizeof l->e[k].b);
    l->e[k].seq = ++l->seq;
    return &l->e[k].b;
}
