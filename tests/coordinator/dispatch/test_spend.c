/* A job's budget (coordinator/dispatch/spend.c, issue 35). */
#include <stdlib.h>
#include <string.h>

#include "spend.h"
#include "wh_common.h"
#include "wh_test.h"

static void test_durations(void)
{
    uint64_t ms = 0;
    CHECK_EQ_INT(wh_spend_duration("90", &ms), 0);
    CHECK(ms == 90000);
    CHECK_EQ_INT(wh_spend_duration("90s", &ms), 0);
    CHECK(ms == 90000);
    CHECK_EQ_INT(wh_spend_duration("30m", &ms), 0);
    CHECK(ms == 1800000);
    CHECK_EQ_INT(wh_spend_duration("2h", &ms), 0);
    CHECK(ms == 7200000);
    CHECK_EQ_INT(wh_spend_duration("1h30m", &ms), 0);
    CHECK(ms == 5400000);
    CHECK_EQ_INT(wh_spend_duration("1d", &ms), 0);
    CHECK(ms == 86400000);
    CHECK_EQ_INT(wh_spend_duration("30d", &ms), 0);
    const char *bad[] = {"", "0", "0s", "-5", "5x", "1h30", "h", "31d", "1.5h", " 5", "5 ",
                         "99999999999999999999", NULL};
    for (int i = 0; bad[i]; i++) {
        ms = 7;
        CHECK_EQ_INT(wh_spend_duration(bad[i], &ms), -1);
    }
}

static void test_parse_and_format(void)
{
    wh_spend_t b = {0};
    char *err = NULL;
    char buf[64];
    CHECK_EQ_INT(wh_spend_parse("builds=3", &b, &err), 0);
    CHECK_EQ_INT(b.builds, 3);
    CHECK(b.ms == 0);
    wh_spend_format(&b, buf, sizeof buf);
    CHECK_EQ_STR(buf, "builds=3");
    /* a second --budget adds the other limit */
    CHECK_EQ_INT(wh_spend_parse("time=90m", &b, &err), 0);
    CHECK_EQ_INT(b.builds, 3);
    CHECK(b.ms == 5400000);
    wh_spend_format(&b, buf, sizeof buf);
    CHECK_EQ_STR(buf, "builds=3,time=90m");
    /* the format reads back to the same budget */
    wh_spend_t c = {0};
    CHECK_EQ_INT(wh_spend_parse(buf, &c, &err), 0);
    CHECK(c.builds == b.builds && c.ms == b.ms);
    wh_spend_t none = {0};
    wh_spend_format(&none, buf, sizeof buf);
    CHECK_EQ_STR(buf, "");
    const char *bad[] = {"", "builds=", "builds=0", "builds=-1", "builds=1000001", "builds=3x",
                         "time=", "time=5x", "speed=3", "builds=3,", ",", "builds=3,speed=1",
                         NULL};
    for (int i = 0; bad[i]; i++) {
        wh_spend_t d = {0};
        err = NULL;
        int rc = wh_spend_parse(bad[i], &d, &err);
        CHECK_EQ_INT(rc, WH_EINVAL);
        CHECK(err && strstr(err, "--budget '") == err && !strchr(err, '\n'));
        free(err);
    }
}

static void test_over(void)
{
    wh_spend_t b = {3, 0};
    char why[128];
    CHECK_EQ_INT(wh_spend_over(&b, 2, 1000000, why, sizeof why), 0);
    CHECK_EQ_INT(wh_spend_over(&b, 3, 0, why, sizeof why), 1);
    CHECK_EQ_STR(why, "builds=3 spent: 3 builds of the walk");
    wh_spend_t t = {0, 2000};
    CHECK_EQ_INT(wh_spend_over(&t, 500, 1999, why, sizeof why), 0);
    CHECK_EQ_INT(wh_spend_over(&t, 1, 2500, why, sizeof why), 1);
    CHECK_EQ_STR(why, "time=2s spent: 2.5 s, 1 build of the walk");
    wh_spend_t none = {0, 0};
    CHECK_EQ_INT(wh_spend_over(&none, 1000000, 1000000000, why, sizeof why), 0);
}

/* --batch-budget: the same syntax, errors naming its option, and the
 * batch's own words when spent. */
static void test_batch(void)
{
    wh_spend_t b = {0};
    char *err = NULL, why[160];
    CHECK_EQ_INT(wh_spend_parse_opt("--batch-budget", "builds=40,time=2h", &b, &err), 0);
    CHECK_EQ_INT(b.builds, 40);
    CHECK(b.ms == 7200000);
    CHECK_EQ_INT(wh_spend_parse_opt("--batch-budget", "builds=0", &b, &err), WH_EINVAL);
    CHECK(err && !strncmp(err, "--batch-budget 'builds=0': want builds=N", 40));
    free(err);
    err = NULL;
    CHECK_EQ_INT(wh_spend_parse("speed=3", &b, &err), WH_EINVAL);
    CHECK(err && !strncmp(err, "--budget 'speed=3': ", 20));
    free(err);
    wh_spend_t c = {12, 0};
    CHECK_EQ_INT(wh_spend_batch_over(&c, 11, 999999, why, sizeof why), 0);
    CHECK_EQ_INT(wh_spend_batch_over(&c, 12, 0, why, sizeof why), 1);
    CHECK_EQ_STR(why, "batch budget builds=12 spent: 12 builds of the batch");
    wh_spend_t t = {0, 90000};
    CHECK_EQ_INT(wh_spend_batch_over(&t, 3, 89999, why, sizeof why), 0);
    CHECK_EQ_INT(wh_spend_batch_over(&t, 1, 90000, why, sizeof why), 1);
    CHECK_EQ_STR(why, "batch budget time=90s spent: 90.0 s, 1 build of the batch");
}

int main(void)
{
    RUN_TEST(test_durations);
    RUN_TEST(test_parse_and_format);
    RUN_TEST(test_over);
    RUN_TEST(test_batch);
    TEST_MAIN_END();
}
