/*
 * Tests of wh_record_final_line: the console's and run.log's closing count.
 * Its numbers must add up as printed: extras (judged in parallel after a
 * round's winner) are counted in summary.json's "evaluated" but are not
 * candidates of the walk, so they are named apart.
 */
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "wh_test.h"

static void test_no_extra(void)
{
    wh_summary_t s;
    memset(&s, 0, sizeof s);
    s.before = 13, s.after = 3, s.candidates = 11, s.evaluated = 9, s.predicted = 2;
    s.rounds = 6, s.sweeps = 2, s.wall_ms = 26230;
    char *line = wh_record_final_line(&s);
    CHECK_EQ_STR(line, "13 -> 3 statements. 11 candidates: 9 evaluated, 2 predicted, 0 from the "
                       "cache. 6 rounds, 2 sweeps, 26230 ms.");
    free(line);
}

/* cJSON's misc_tests with --jobs 2: 11 candidates, 10 built of which 1 extra. */
static void test_extra_named_apart(void)
{
    wh_summary_t s;
    memset(&s, 0, sizeof s);
    s.before = 13, s.after = 3, s.candidates = 11, s.evaluated = 10, s.predicted = 2;
    s.extra = 1, s.rounds = 6, s.sweeps = 2, s.wall_ms = 9920;
    char *line = wh_record_final_line(&s);
    CHECK_EQ_STR(line, "13 -> 3 statements. 11 candidates: 9 evaluated, 2 predicted, 0 from the "
                       "cache; 1 extra built beside them (after a round's winner, in parallel). "
                       "6 rounds, 2 sweeps, 9920 ms.");
    free(line);
    s.extra = 3, s.evaluated = 12, s.cached = 1, s.candidates = 12;
    line = wh_record_final_line(&s);
    CHECK_EQ_STR(line, "13 -> 3 statements. 12 candidates: 9 evaluated, 2 predicted, 1 from the "
                       "cache; 3 extra built beside them (after a round's winner, in parallel). "
                       "6 rounds, 2 sweeps, 9920 ms.");
    free(line);
}

int main(void)
{
    RUN_TEST(test_no_extra);
    RUN_TEST(test_extra_named_apart);
    TEST_MAIN_END();
}
