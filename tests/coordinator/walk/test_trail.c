/*
 * test_trail — the verify step's bookkeeping without pool, cache or builds:
 * who judged what, which verdicts a wrong step takes down with it, and the
 * walk given back exactly as it was after the last good step.
 */
#include <stdlib.h>
#include <string.h>

#include "trail.h"
#include "wh_test.h"

typedef struct {
    char dropped[16][65];
    int ndropped;
    char excluded[4][32];
    int nexcluded;
} s_log_t;

static void s_drop(void *ctx, const char *key)
{
    s_log_t *l = ctx;
    snprintf(l->dropped[l->ndropped++], 65, "%s", key);
}

static void s_exclude(void *ctx, const char *node)
{
    s_log_t *l = ctx;
    snprintf(l->excluded[l->nexcluded++], 32, "%s", node);
}

static int s_has(const s_log_t *l, const char *key)
{
    for (int i = 0; i < l->ndropped; i++)
        if (!strcmp(l->dropped[i], key))
            return 1;
    return 0;
}

/* Two engines give the same next rounds. */
static int s_same_rounds(wh_engine_t *a, wh_engine_t *b, int n, int steps)
{
    for (int s = 0; s < steps; s++) {
        const wh_round_t *ra = wh_engine_round(a), *rb = wh_engine_round(b);
        if (!ra || !rb)
            return !ra && !rb;
        if (ra->n_cand != rb->n_cand || ra->kind != rb->kind || ra->level != rb->level)
            return 0;
        for (int c = 0; c < ra->n_cand; c++)
            if (memcmp(ra->removed[c], rb->removed[c], (size_t)n))
                return 0;
        wh_engine_resolve(a, -1);
        wh_engine_resolve(b, -1);
    }
    return 1;
}

static void test_liar_node(void)
{
    int parent[4] = {-1, -1, -1, -1};
    wh_engine_t *e = wh_engine_new(4, parent, WH_ALGO_HDD, WH_WALK_CLASSIC);
    wh_engine_t *fresh = wh_engine_new(4, parent, WH_ALGO_HDD, WH_WALK_CLASSIC);
    wh_trail_t *t = wh_trail_new(e);
    CHECK(e && fresh && t);
    CHECK_EQ_INT(wh_trail_steps(t), 1);
    CHECK(wh_trail_judge(t, 0) == NULL);
    CHECK_EQ_INT(wh_trail_cand(t, 0), 0);

    /* The liar (node L) judges the prune Preserved: everything removed. */
    CHECK_EQ_INT(wh_trail_judged(t, "k-prune", "L/0", "L"), 0);
    CHECK_EQ_INT(wh_trail_judged(t, "k-extra", "L/0", "L"), 0);
    CHECK_EQ_INT(wh_trail_judged(t, "k-honest", "A/0", "A"), 0);
    wh_engine_resolve(e, 0);
    CHECK_EQ_INT(wh_trail_accept(t, e, "k-prune", 1), 0);
    CHECK_EQ_INT(wh_trail_steps(t), 2);
    CHECK_EQ_STR(wh_trail_judge(t, 1), "L/0");
    CHECK_EQ_STR(wh_trail_judge_node(t, 1), "L");
    CHECK_EQ_INT(wh_trail_cand(t, 1), 1);
    const uint8_t *rm = wh_trail_removed(t, 1);
    CHECK(rm[0] && rm[1] && rm[2] && rm[3]);
    CHECK(!wh_trail_removed(t, 0)[0]);

    /* Node A refutes it: every verdict of L goes, L is excluded, A's stay. */
    s_log_t log = {0};
    wh_trail_blame_t how = {s_drop, s_exclude, &log};
    CHECK_EQ_INT(wh_trail_blame(t, 0, "A", &how), 2);
    CHECK_EQ_INT(log.ndropped, 2);
    CHECK(s_has(&log, "k-prune") && s_has(&log, "k-extra") && !s_has(&log, "k-honest"));
    CHECK_EQ_INT(log.nexcluded, 1);
    CHECK_EQ_STR(log.excluded[0], "L");
    /* Blaming again drops nothing twice. */
    memset(&log, 0, sizeof log);
    CHECK_EQ_INT(wh_trail_blame(t, 0, "A", &how), 0);

    /* The walk comes back as it was at the start: the same rounds as a
     * fresh engine. */
    wh_engine_t *back = wh_trail_rewind(t, 0);
    CHECK(back != NULL);
    CHECK_EQ_INT(wh_trail_steps(t), 1);
    CHECK(back && s_same_rounds(back, fresh, 4, 4));
    wh_engine_destroy(&back);
    wh_engine_destroy(&fresh);
    wh_engine_destroy(&e);
    wh_trail_destroy(&t);
    CHECK(t == NULL);
}

static void test_slot_and_cache(void)
{
    int parent[4] = {-1, -1, -1, -1};
    wh_engine_t *e = wh_engine_new(4, parent, WH_ALGO_HDD, WH_WALK_CLASSIC);
    wh_trail_t *t = wh_trail_new(e);
    /* Prune rejected, then ddmin at n = 2: subset 0 accepted from the cache
     * (nobody in this run judged its key). */
    wh_engine_resolve(e, -1);
    wh_engine_t *after_prune = wh_engine_clone(e);
    wh_engine_resolve(e, 0);
    CHECK_EQ_INT(wh_trail_accept(t, e, "k-cached", 2), 0);
    CHECK(wh_trail_judge(t, 1) == NULL);
    /* Then a step judged by slot A/1; A/1 judged another key too, A/0 one. */
    CHECK_EQ_INT(wh_trail_judged(t, "k-a1", "A/1", "A"), 0);
    CHECK_EQ_INT(wh_trail_judged(t, "k-a1-other", "A/1", "A"), 0);
    CHECK_EQ_INT(wh_trail_judged(t, "k-a0", "A/0", "A"), 0);
    wh_engine_t *after_step1 = wh_engine_clone(e);
    wh_engine_resolve(e, 0);
    CHECK_EQ_INT(wh_trail_accept(t, e, "k-a1", 3), 0);
    CHECK_EQ_STR(wh_trail_judge(t, 2), "A/1");

    /* Refuted on the same node (one node, several slots): the slot is
     * blamed, not the node; nothing is excluded. */
    s_log_t log = {0};
    wh_trail_blame_t how = {s_drop, s_exclude, &log};
    CHECK_EQ_INT(wh_trail_blame(t, 1, "A", &how), 2);
    CHECK(s_has(&log, "k-a1") && s_has(&log, "k-a1-other") && !s_has(&log, "k-a0"));
    CHECK_EQ_INT(log.nexcluded, 0);
    wh_engine_t *back = wh_trail_rewind(t, 1);
    CHECK(back && s_same_rounds(back, after_step1, 4, 3));
    wh_engine_destroy(&back);

    /* The cached step found wrong: only its key can be dropped. */
    memset(&log, 0, sizeof log);
    CHECK_EQ_INT(wh_trail_blame(t, 0, "A", &how), 1);
    CHECK(s_has(&log, "k-cached"));
    back = wh_trail_rewind(t, 0);
    CHECK(back && s_same_rounds(back, after_prune, 4, 1) == 0); /* the start, not after the prune */
    wh_engine_destroy(&back);
    CHECK(wh_trail_rewind(t, 5) == NULL);
    wh_engine_destroy(&after_prune);
    wh_engine_destroy(&after_step1);
    wh_engine_destroy(&e);
    wh_trail_destroy(&t);
}

int main(void)
{
    RUN_TEST(test_liar_node);
    RUN_TEST(test_slot_and_cache);
    TEST_MAIN_END();
}
