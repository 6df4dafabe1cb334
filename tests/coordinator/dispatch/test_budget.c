/* Retry budgets with backoff (coordinator/budget.c, issue 10). */
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "wh_test.h"

static void test_backoff_doubles_to_the_cap(void)
{
    const wh_budget_rule_t r = {100, 2000, 7};
    wh_budget_t b = {0};
    const unsigned want[] = {100, 200, 400, 800, 1600, 2000, 2000};
    uint64_t now = 1000;
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT((int)wh_budget_delay(&b, &r), (int)want[i]);
        int spent = wh_budget_fail(&b, &r, now);
        CHECK_EQ_INT(spent, i == 6);
        CHECK_EQ_INT(b.n, i + 1);
        CHECK(b.until_ms == now + want[i]);
        CHECK(wh_budget_waiting(&b, now + want[i] - 1));
        CHECK(!wh_budget_waiting(&b, now + want[i]));
        now += want[i];
    }
    /* Spent stays spent, and the count does not run past max. */
    CHECK_EQ_INT(wh_budget_fail(&b, &r, now), 1);
    CHECK_EQ_INT(b.n, 7);
    wh_budget_reset(&b);
    CHECK_EQ_INT(b.n, 0);
    CHECK(!wh_budget_waiting(&b, 0));
    CHECK_EQ_INT((int)wh_budget_delay(&b, &r), 100);
}

static void test_losses_by_name(void)
{
    wh_losses_t *l = wh_losses_new();
    CHECK(l != NULL);
    const wh_budget_rule_t r = {100, 2000, 3};
    wh_budget_t *a = wh_losses_get(l, "n1/0");
    CHECK(a && a->n == 0);
    wh_budget_fail(a, &r, 0);
    wh_budget_fail(a, &r, 0);
    /* The same name finds the same record (a reconnect keeps its history). */
    CHECK(wh_losses_get(l, "n1/0") == a && a->n == 2);
    CHECK_EQ_INT(wh_losses_get(l, "n1/1")->n, 0);
    /* Past the cap the least recently used name is forgotten first. */
    char name[32];
    for (int i = 0; i < WH_LOSSES_MAX; i++) {
        snprintf(name, sizeof name, "other/%d", i);
        CHECK(wh_losses_get(l, name) != NULL);
        if (i == 10)
            CHECK(wh_losses_get(l, "n1/0")->n == 2); /* used again: kept */
    }
    CHECK_EQ_INT(wh_losses_get(l, "n1/0")->n, 2);
    CHECK_EQ_INT(wh_losses_get(l, "n1/1")->n, 0); /* forgotten and made anew */
    wh_losses_destroy(&l);
    CHECK(l == NULL);
}

int main(void)
{
    RUN_TEST(test_backoff_doubles_to_the_cap);
    RUN_TEST(test_losses_by_name);
    TEST_MAIN_END();
}
