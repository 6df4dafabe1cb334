/*
 * test_progress — the status line (progress.h) and the rounds-left count
 * behind its ETA (wh_engine_rounds_left).
 */
#include <stdint.h>
#include <stdlib.h>

#include "engine.h"
#include "progress.h"
#include "wh_test.h"

/* The case: one slot, a round of 64 candidates left, 1.5 s a
 * build: the old estimate said 1.5 s, this one 96 s; 8 slots: 8 waves;
 * more slots than candidates: one wave a round, the old estimate. */
static void test_eta_knows_the_slots(void)
{
    int one[] = {64};
    wh_progress_plan_t pl = {one, 1, 1.0, 1, 1500, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(wh_progress_eta_ms(1, 1500), 1500);
    CHECK_EQ_INT(wh_progress_eta(&pl), 96000);
    pl.slots = 8;
    CHECK_EQ_INT(wh_progress_eta(&pl), 12000);
    pl.slots = 100;
    CHECK_EQ_INT(wh_progress_eta(&pl), 1500);
    /* A quarter built (the rest cached or predicted): 16 builds. */
    pl.slots = 1;
    pl.built = 0.25;
    CHECK_EQ_INT(wh_progress_eta(&pl), 24000);
    /* Rounds of 1 (prunes) cost one build each whatever the slots. */
    int mixed[] = {1, 1, 10, 1};
    wh_progress_plan_t m = {mixed, 4, 1.0, 4, 1000, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(wh_progress_eta(&m), 1000 + 1000 + 2500 + 1000);
    /* Nothing built yet: unknown. */
    m.median_ms = 0;
    CHECK_EQ_INT(wh_progress_eta(&m), 0);
}

/* A removal still to come sweeps the levels again: with a win rate of
 * 1/2 over 2 rounds, 3/4 of a pass over the statements left is added;
 * none when recent rounds removed nothing; in waves of the slots. */
static void test_eta_sweep_again(void)
{
    int c[] = {5, 5};
    wh_progress_plan_t pl = {c, 2, 1.0, 1, 100, 8, 2, 0.5, 0, 0};
    CHECK_EQ_INT(wh_progress_eta(&pl), 1000 + 600);
    pl.win_rate = 0;
    CHECK_EQ_INT(wh_progress_eta(&pl), 1000);
    pl.win_rate = 1;
    pl.slots = 4;
    CHECK_EQ_INT(wh_progress_eta(&pl), 250 + 200);
    /* The plan holds the next sweep already (its last round): no more. */
    pl.win_rate = 0.5;
    pl.slots = 1;
    pl.last_sweep = 1;
    CHECK_EQ_INT(wh_progress_eta(&pl), 1000);
    pl.win_rate = 1;
    pl.slots = 4;
    pl.last_sweep = 2;
    /* The wave time measured (overheads included) wins over the median,
     * less what the current round took already. */
    pl.wave_ms = 150;
    pl.into_ms = 100;
    CHECK_EQ_INT(wh_progress_eta(&pl), 675 - 100);
}

/* The estimate on a real walk (the engine, chunked, one slot): 8 blocks of
 * 4 statements each, and a candidate is Preserved when it keeps every
 * fifth statement (and so its block); one slot judges a round's candidates
 * up to the first Preserved one. At the round where half the candidates
 * are judged, the ETA is within a factor 1.5 of what is still judged. */
static void test_eta_on_a_walk(void)
{
    enum { N = 40 };
    int parent[N];
    for (int i = 0; i < N; i++)
        parent[i] = i < 8 ? -1 : i % 8;
    wh_engine_t *e = wh_engine_new(N, parent, WH_ALGO_HDD, WH_WALK_CHUNKED);
    CHECK(e != NULL);
    /* Run it once to know the truth: candidates judged by one slot. */
    int judged_at[4096], ncands[4096], nr = 0, judged = 0;
    int plan[4096];
    uint64_t eta_at[4096];
    unsigned wins = 0;
    int nwins = 0;
    const wh_round_t *rd;
    while (e && (rd = wh_engine_round(e)) && nr < 4096) {
        /* the plan now */
        wh_engine_t *c = wh_engine_clone(e);
        int n = 0, sweep = -1, last = 0;
        for (const wh_round_t *x; c && (x = wh_engine_round(c)) && n < 4096; n++) {
            plan[n] = x->n_cand;
            last = x->sweep == sweep ? last + 1 : 1;
            sweep = x->sweep;
            wh_engine_resolve(c, -1);
        }
        wh_engine_destroy(&c);
        int alive = 0;
        for (int u = 0; u < N; u++)
            alive += !wh_engine_removed(e)[u];
        wh_progress_plan_t pl = {plan, n, 1.0, 1, 1, alive, last,
                                 nwins ? __builtin_popcount(wins) / (double)nwins : 0, 0, 0};
        eta_at[nr] = wh_progress_eta(&pl);
        judged_at[nr] = judged;
        int win = -1;
        for (int k = 0; k < rd->n_cand && win < 0; k++) {
            int keeps = 1;
            for (int u = 8; u < N && keeps; u += 5)
                keeps = !rd->removed[k][u];
            if (keeps)
                win = k;
        }
        ncands[nr] = win >= 0 ? win + 1 : rd->n_cand;
        judged += ncands[nr];
        wins = (wins << 1 | (win >= 0)) & 0xffu;
        nwins += nwins < 8;
        wh_engine_resolve(e, win);
        nr++;
    }
    CHECK(wh_engine_done(e));
    int half = -1;
    for (int k = 0; k < nr && half < 0; k++)
        if (judged_at[k] * 2 >= judged)
            half = k;
    CHECK(half > 0);
    double truth = judged - judged_at[half], est = (double)eta_at[half];
    fprintf(stderr, "  at half (%d of %d judged): ETA %.0f candidates, truth %.0f\n",
            judged_at[half], judged, est, truth);
    CHECK(est <= 1.5 * truth && est * 1.5 >= truth);
    wh_engine_destroy(&e);
}

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
    wh_progress_t p = {NULL, 2, 1, 14, 23, 57, 31, 4, 12, 26, 2500, 0};
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
    RUN_TEST(test_eta_knows_the_slots);
    RUN_TEST(test_eta_sweep_again);
    RUN_TEST(test_eta_on_a_walk);
    RUN_TEST(test_line_format);
    RUN_TEST(test_rounds_left_by_hand);
    RUN_TEST(test_rounds_left_exact_when_nothing_more_goes);
    TEST_MAIN_END();
}
