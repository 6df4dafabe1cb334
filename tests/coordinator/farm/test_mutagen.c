/*
 * test_mutagen — mutation points of the farm fixture's shop.c, counted by
 * hand per operator (see the comments), and a few exact mutants.
 */
#include "mutagen.h"
#include "wh_common.h"
#include "wh_test.h"

#include <stdlib.h>
#include <string.h>

static size_t s_count(const wh_mutant_list_t *l, const char *op)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += !strcmp(l->v[i].op, op);
    return n;
}

static const wh_mutant_t *s_find(const wh_mutant_list_t *l, const char *op, unsigned line, const char *after)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].op, op) && l->v[i].line == line && !strcmp(l->v[i].after, after))
            return &l->v[i];
    return NULL;
}

static void test_shop(void)
{
    char *file = wh_strdup_printf("%s/tests/fixtures/farm/src/shop.c", getenv("WH_SOURCE_DIR"));
    wh_mutant_list_t l = {0};
    char *err = NULL;
    CHECK_EQ_INT(wh_mutagen_scan(file, WH_MUT_ALL, NULL, 0, &l, &err), 0);
    if (err)
        fprintf(stderr, "%s\n", err);
    /* ROR: >= 8 (add), < n and == id (find), < n (total), >= 100 and
     * < 1000 (discount), > 0 and <= 50 (can_ship). */
    CHECK_EQ_INT(s_count(&l, "ROR"), 8);
    /* AOR: price * qty (total), total - ... and total / 10 (discount). */
    CHECK_EQ_INT(s_count(&l, "AOR"), 3);
    CHECK_EQ_INT(s_count(&l, "LCR"), 2);
    /* IN: the three ifs (add, find, discount); for loops are not ifs. */
    CHECK_EQ_INT(s_count(&l, "IN"), 3);
    /* RV: -1 and 0 (add), &items[i] and 0 (find), price, t, two in
     * discount, one in can_ship. */
    CHECK_EQ_INT(s_count(&l, "RV"), 9);
    CHECK_EQ_INT(l.n, 25);
    const wh_mutant_t *m = s_find(&l, "LCR", 42, "||");
    CHECK(m && !strcmp(m->before, "&&"));
    m = s_find(&l, "IN", 42, "!(total >= 100 && total < 1000)");
    CHECK(m != NULL);
    m = s_find(&l, "RV", 11, "0");
    CHECK(m && !strcmp(m->before, "-1"));
    wh_mutant_list_free(&l);
    CHECK_EQ_INT(wh_mutagen_scan(file, WH_MUT_AOR | WH_MUT_LCR, NULL, 0, &l, &err), 0);
    CHECK_EQ_INT(l.n, 5);
    wh_mutant_list_free(&l);
    CHECK_EQ_INT(wh_mutagen_parse_ops("ROR,RV"), WH_MUT_ROR | WH_MUT_RV);
    CHECK_EQ_INT(wh_mutagen_parse_ops("ROR,XYZ"), 0);
    free(file);
}

int main(void)
{
    RUN_TEST(test_shop);
    TEST_MAIN_END();
}
