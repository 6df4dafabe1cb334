/*
 * test_suite — kill-matrix parsing and the ILP/DIFF/FAST++ reductions.
 * ILP is checked against a brute force over all subsets on fixed and on
 * random matrices; DIFF against a matrix where greedy is known to lose.
 */
#include "suite.h"
#include "wh_common.h"
#include "wh_test.h"

#include <stdlib.h>
#include <string.h>

/* Smallest number of tests covering every killed mutant, by trying all
 * subsets (n_test <= 16). */
static size_t s_brute(const wh_kills_t *k, int pot)
{
    size_t nt = wh_kills_tests(k), best = nt, want = wh_suite_covered(k, NULL, pot);
    unsigned char sel[16];
    for (unsigned mask = 0; mask < (1u << nt); mask++) {
        size_t size = 0;
        for (size_t t = 0; t < nt; t++)
            size += sel[t] = (mask >> t) & 1;
        if (size < best && wh_suite_covered(k, sel, pot) == want)
            best = size;
    }
    return best;
}

static size_t s_size(const unsigned char *sel, size_t n)
{
    size_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += sel[i];
    return s;
}

static void test_parse(void)
{
    char *err = NULL;
    wh_kills_t *k = wh_kills_parse("mutant,test,verdict\n"
                                   "M1,ta,definite\nM1,tb,survived\nM2,tb,potential\r\nM3,ta,survived\n",
                                   &err);
    CHECK(k != NULL);
    CHECK_EQ_INT(wh_kills_mutants(k), 3);
    CHECK_EQ_INT(wh_kills_tests(k), 2);
    CHECK_EQ_STR(wh_kills_test_name(k, 1), "tb");
    CHECK_EQ_INT(wh_kills_get(k, 1, 1), WH_KILL_POTENTIAL);
    CHECK_EQ_INT(wh_kills_get(k, 2, 1), WH_KILL_SURVIVED);
    CHECK_EQ_INT(wh_suite_covered(k, NULL, 0), 1);
    CHECK_EQ_INT(wh_suite_covered(k, NULL, 1), 2);
    wh_kills_destroy(&k);
    CHECK(k == NULL);

    k = wh_kills_parse("M1,ta,definite\nM1,tb,killed\n", &err);
    CHECK(k == NULL);
    CHECK(err && strstr(err, "line 2") && strstr(err, "M1,tb,killed"));
    free(err);
    k = wh_kills_parse("M1,definite\n", &err);
    CHECK(k == NULL);
    free(err);
}

/* A matrix larger than the first allocation (8 x 8) in both directions,
 * rows and columns growing in turn: every cell keeps its value. */
static void test_parse_grows(void)
{
    wh_buf_t b = {0};
    for (int m = 0; m < 20; m++)
        for (int t = 0; t < 13; t++)
            wh_buf_printf(&b, "M%d,t%d,%s\n", m, t, (m * 7 + t) % 3 == 0 ? "definite" : (m + t) % 5 == 0 ? "potential" : "survived");
    char *err = NULL;
    wh_kills_t *k = wh_kills_parse(b.buf, &err);
    CHECK(k != NULL);
    CHECK_EQ_INT(wh_kills_mutants(k), 20);
    CHECK_EQ_INT(wh_kills_tests(k), 13);
    int bad = 0;
    for (size_t m = 0; m < 20; m++)
        for (size_t t = 0; t < 13; t++) {
            wh_kill_t want = (m * 7 + t) % 3 == 0 ? WH_KILL_DEFINITE : (m + t) % 5 == 0 ? WH_KILL_POTENTIAL : WH_KILL_SURVIVED;
            bad += wh_kills_get(k, m, t) != want;
        }
    CHECK_EQ_INT(bad, 0);
    wh_kills_destroy(&k);
    wh_buf_free(&b);
}

/* Greedy takes the test killing 4 first and then needs two more; the two
 * tests killing 3 each cover all six. */
static void test_greedy_loses(void)
{
    wh_kills_t *k = wh_kills_new(6, 3);
    int big[] = {0, 1, 4, 5}, a[] = {0, 1, 2}, b[] = {3, 4, 5};
    for (int i = 0; i < 4; i++)
        wh_kills_set(k, (size_t)big[i], 0, WH_KILL_DEFINITE);
    for (int i = 0; i < 3; i++) {
        wh_kills_set(k, (size_t)a[i], 1, WH_KILL_DEFINITE);
        wh_kills_set(k, (size_t)b[i], 2, WH_KILL_DEFINITE);
    }
    unsigned char sel[3];
    CHECK_EQ_INT(wh_suite_select(k, WH_SUITE_ILP, 0, 1, sel), 0);
    CHECK(!sel[0] && sel[1] && sel[2]);
    CHECK_EQ_INT(wh_suite_select(k, WH_SUITE_DIFF, 0, 1, sel), 0);
    CHECK(sel[0] && sel[1] && sel[2]);
    CHECK_EQ_INT(wh_suite_select(k, WH_SUITE_FAST, 0, 1, sel), 0);
    CHECK_EQ_INT(wh_suite_covered(k, sel, 0), 6);
    wh_kills_destroy(&k);
}

/* Random matrices: ILP equals the brute-force optimum; every method
 * covers every killed mutant; DIFF and FAST++ are never smaller. */
static void test_random(void)
{
    unsigned st = 12345;
    for (int round = 0; round < 200; round++) {
        size_t nm = 1 + (st = st * 1103515245u + 12345u) % 14, nt = 1 + (st >> 8) % 10;
        wh_kills_t *k = wh_kills_new(nm, nt);
        for (size_t m = 0; m < nm; m++)
            for (size_t t = 0; t < nt; t++) {
                st = st * 1103515245u + 12345u;
                unsigned r = (st >> 16) % 10;
                wh_kills_set(k, m, t, r < 2 ? WH_KILL_DEFINITE : r < 3 ? WH_KILL_POTENTIAL : WH_KILL_SURVIVED);
            }
        for (int pot = 0; pot < 2; pot++) {
            unsigned char ilp[16], diff[16], fast[16];
            size_t want = wh_suite_covered(k, NULL, pot), best = s_brute(k, pot);
            CHECK_EQ_INT(wh_suite_select(k, WH_SUITE_ILP, pot, 7, ilp), 0);
            CHECK_EQ_INT(wh_suite_select(k, WH_SUITE_DIFF, pot, 7, diff), 0);
            CHECK_EQ_INT(wh_suite_select(k, WH_SUITE_FAST, pot, (unsigned)round + 1, fast), 0);
            CHECK_EQ_INT(s_size(ilp, nt), best);
            CHECK_EQ_INT(wh_suite_covered(k, ilp, pot), want);
            CHECK_EQ_INT(wh_suite_covered(k, diff, pot), want);
            CHECK_EQ_INT(wh_suite_covered(k, fast, pot), want);
            CHECK(s_size(diff, nt) >= best);
            CHECK(s_size(fast, nt) >= best);
        }
        wh_kills_destroy(&k);
    }
}

int main(void)
{
    RUN_TEST(test_parse);
    RUN_TEST(test_parse_grows);
    RUN_TEST(test_greedy_loses);
    RUN_TEST(test_random);
    TEST_MAIN_END();
}
