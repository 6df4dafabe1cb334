/*
 * test_progress — the status line (progress.h) and the rounds-left count
 * behind its ETA (wh_engine_rounds_left).
 */
#include <stdint.h>
#include <stdlib.h>

#include "engine.h"
#include "progress.h"
#include "wh_test.h"

static void test_eta_arithmetic(void)
{
    CHECK_EQ_INT(wh_progress_eta_ms(12, 2500), 30000);
    CHECK_EQ_INT(wh_progress_eta_ms(0, 2500), 0);
    CHECK_EQ_INT(wh_progress_eta_ms(7, 0), 0);
    uint64_t v[] = {900, 100, 4000, 300, 500};
    CHECK_EQ_INT(wh_progress_median(v, 5), 500);
    uint64_t w[] = {10, 40, 20, 30};
    CHECK_EQ_INT(wh_progress_median(w, 4), 20); /* the lower middle one */
    CHECK_EQ_INT(wh_progress_median(NULL, 0), 0);
    char d[32];
    wh_progress_duration(45 * 1000, d, sizeof d);
    CHECK_EQ_STR(d, "45s");
    wh_progress_duration(65 * 1000, d, sizeof d);
    CHECK_EQ_STR(d, "1m05s");
    wh_progress_duration(59600, d, sizeof d); /* rounds to the second */
    CHECK_EQ_STR(d, "1m00s");
    wh_progress_duration((2 * 3600 + 3 * 60 + 40) * 1000ull, d, sizeof d);
    CHECK_EQ_STR(d, "2h03m");
    wh_progress_duration(200, d, sizeof d);
    CHECK_EQ_STR(d, "1s");
    wh_progress_duration(0, d, sizeof d);
    CHECK_EQ_STR(d, "?");
}

static void test_line_format(void)
{
    wh_progress_t p = {NULL, 2, 1, 14, 23, 57, 31, 4, 12, 26, 2500};
    wh_buf_t b = WH_BUF_INIT;
    wh_progress_format(&p, &b);
    CHECK_EQ_STR(b.buf, "sweep 2 level 1 round 14 | 23/57 units left | 31 built, 4 predicted, "
                        "12 cached | ETA 1m05s");
    wh_buf_reset(&b);
    p.median_ms = 0;
    wh_progress_format(&p, &b);
    CHECK_EQ_STR(b.buf, "sweep 2 level 1 round 14 | 23/57 units left | 31 built, 4 predicted, "
                        "12 cached | ETA ?");
    wh_buf_reset(&b);
    p.phase = "verifying the reduced test";
    wh_progress_format(&p, &b);
    CHECK_EQ_STR(b.buf, "verifying the reduced test | 23/57 units left | 31 built, 4 predicted, "
                        "12 cached");
    wh_buf_free(&b);
}

/* A forest of n units: parent[i] a random earlier unit, or a root with
 * probability 1/k (k 1: flat, so levels wider than a round's window). */
static int *s_forest(int n, unsigned k, unsigned *seed)
{
    int *parent = malloc((size_t)n * sizeof *parent);
    for (int i = 0; i < n; i++)
        parent[i] = i == 0 || rand_r(seed) % k == 0 ? -1 : (int)(rand_r(seed) % (unsigned)i);
    return parent;
}

/* Walks e to its end with no candidate Preserved; the rounds it took.
 * Along the way rounds_left must count down by one per round. */
static int s_fruitless(wh_engine_t *e, int *count_ok)
{
    int rounds = 0;
    while (wh_engine_round(e)) {
        int left = wh_engine_rounds_left(e);
        wh_engine_resolve(e, -1);
        rounds++;
        *count_ok &= wh_engine_rounds_left(e) == left - 1;
    }
    return rounds;
}

/* For random forests, algorithms and walks, and after a random number of
 * rounds where the first candidate wins: rounds_left equals the rounds a
 * walk where nothing more is Preserved really takes. */
static void test_rounds_left_exact_when_nothing_more_goes(void)
{
    static const wh_algo_t algos[] = {WH_ALGO_HDD, WH_ALGO_DD, WH_ALGO_LINEAR};
    static const wh_walk_t walks[] = {WH_WALK_CHUNKED, WH_WALK_CLASSIC};
    unsigned seed = 12;
    int cases = 0, exact = 0, count_ok = 1;
    for (int t = 0; t < 60; t++) {
        int n = 1 + (int)(rand_r(&seed) % 300);
        int *parent = s_forest(n, 1 + (unsigned)t % 5, &seed);
        for (int a = 0; a < 3; a++) {
            for (int w = 0; w < 2; w++) {
                wh_engine_t *e = wh_engine_new(n, parent, algos[a], walks[w]);
                int wins = (int)(rand_r(&seed) % 4);
                for (int k = 0; k < wins && wh_engine_round(e); k++)
                    wh_engine_resolve(e, 0);
                int predicted = wh_engine_rounds_left(e);
                int real = s_fruitless(e, &count_ok);
                cases++;
                exact += predicted == real;
                if (predicted != real)
                    fprintf(stderr, "n=%d algo=%d walk=%d wins=%d: predicted %d, real %d\n", n, a,
                            w, wins, predicted, real);
                CHECK_EQ_INT(wh_engine_rounds_left(e), 0);
                wh_engine_destroy(&e);
            }
        }
        free(parent);
    }
    CHECK_EQ_INT(exact, cases);
    CHECK(count_ok);
}

/* A flat level of 10 statements, chunked: the pass of two halves, then
 * one window of single removals: 2 rounds if nothing goes. */
static void test_rounds_left_by_hand(void)
{
    int parent[10];
    for (int i = 0; i < 10; i++)
        parent[i] = -1;
    wh_engine_t *e = wh_engine_new(10, parent, WH_ALGO_HDD, WH_WALK_CHUNKED);
    CHECK_EQ_INT(wh_engine_rounds_left(e), 2);
    wh_engine_destroy(&e);
    /* Classic ddmin over 10: granularity 2, 4, 8, 10. */
    e = wh_engine_new(10, parent, WH_ALGO_DD, WH_WALK_CLASSIC);
    CHECK_EQ_INT(wh_engine_rounds_left(e), 4);
    wh_engine_destroy(&e);
}

int main(void)
{
    RUN_TEST(test_eta_arithmetic);
    RUN_TEST(test_line_format);
    RUN_TEST(test_rounds_left_by_hand);
    RUN_TEST(test_rounds_left_exact_when_nothing_more_goes);
    TEST_MAIN_END();
}
