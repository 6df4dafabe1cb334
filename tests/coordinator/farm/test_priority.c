/* The order of a night's groups and the history of root causes
 * (coordinator/farm/priority.c, issue 35): the history file's parser
 * (good, missing, corrupt, duplicate keys), its load and save in a
 * folder (atomic, merged, a corrupt file kept aside), and the order. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priority.h"
#include "wh_common.h"
#include "wh_test.h"

static void test_parse_good(void)
{
    wh_seen_t s = {0};
    char *err = NULL;
    CHECK_EQ_INT(wh_seen_parse("{\"version\": 1, \"seen\": ["
                               "{\"key\": \"a | x.c:3 | m\", \"first_seen\": \"2026-12-01T01:00:00Z\"},"
                               "{\"key\": \"b\", \"first_seen\": \"2026-12-02T01:00:00Z\"}]}",
                               &s, &err), 0);
    CHECK(err == NULL);
    CHECK_EQ_INT((int)s.n, 2);
    CHECK_EQ_STR(wh_seen_get(&s, "a | x.c:3 | m"), "2026-12-01T01:00:00Z");
    CHECK_EQ_STR(wh_seen_get(&s, "b"), "2026-12-02T01:00:00Z");
    CHECK(wh_seen_get(&s, "c") == NULL);
    CHECK(wh_seen_get(&s, NULL) == NULL);
    CHECK_EQ_INT(wh_seen_parse("{\"version\": 1, \"seen\": []}", &s, &err), 0);
    CHECK_EQ_INT((int)s.n, 0);
    wh_seen_clear(&s);
}

/* A key written twice keeps its earliest date, whichever comes first. */
static void test_parse_duplicates(void)
{
    wh_seen_t s = {0};
    char *err = NULL;
    CHECK_EQ_INT(wh_seen_parse("{\"version\": 1, \"seen\": ["
                               "{\"key\": \"k\", \"first_seen\": \"2026-12-05T00:00:00Z\"},"
                               "{\"key\": \"k\", \"first_seen\": \"2026-12-03T00:00:00Z\"},"
                               "{\"key\": \"k\", \"first_seen\": \"2026-12-04T00:00:00Z\"}]}",
                               &s, &err), 0);
    CHECK_EQ_INT((int)s.n, 1);
    CHECK_EQ_STR(wh_seen_get(&s, "k"), "2026-12-03T00:00:00Z");
    /* adding later dates changes nothing; an earlier one wins */
    CHECK_EQ_INT(wh_seen_add(&s, "k", "2026-12-09T00:00:00Z"), 0);
    CHECK_EQ_STR(wh_seen_get(&s, "k"), "2026-12-03T00:00:00Z");
    CHECK_EQ_INT(wh_seen_add(&s, "k", "2026-11-30T00:00:00Z"), 0);
    CHECK_EQ_STR(wh_seen_get(&s, "k"), "2026-11-30T00:00:00Z");
    CHECK_EQ_INT((int)s.n, 1);
    wh_seen_clear(&s);
}

/* Whatever is not a history is refused with one line, s left empty. */
static void test_parse_corrupt(void)
{
    const char *bad[] = {
        "",
        "{",
        "not json",
        "[]",
        "{\"seen\": []}",
        "{\"version\": 2, \"seen\": []}",
        "{\"version\": 1, \"seen\": {\"k\": \"2026-12-05T00:00:00Z\"}}",
        "{\"version\": 1, \"seen\": [{\"key\": \"k\"}]}",
        "{\"version\": 1, \"seen\": [{\"key\": \"\", \"first_seen\": \"2026-12-05T00:00:00Z\"}]}",
        "{\"version\": 1, \"seen\": [{\"key\": 3, \"first_seen\": \"2026-12-05T00:00:00Z\"}]}",
        "{\"version\": 1, \"seen\": [{\"key\": \"k\", \"first_seen\": \"yesterday\"}]}",
        "{\"version\": 1, \"seen\": [{\"key\": \"k\", \"first_seen\": \"2026-12-05 00:00:00\"}]}",
        "{\"version\": 1, \"seen\": [\"k\"]}",
        NULL};
    for (int i = 0; bad[i]; i++) {
        wh_seen_t s = {0};
        CHECK_EQ_INT(wh_seen_add(&s, "left", "2026-12-01T00:00:00Z"), 0);
        char *err = NULL;
        CHECK_EQ_INT(wh_seen_parse(bad[i], &s, &err), WH_EINVAL);
        CHECK(err != NULL && *err && !strchr(err, '\n'));
        CHECK_EQ_INT((int)s.n, 0);
        free(err);
        wh_seen_clear(&s);
    }
}

/* Format then parse: the same history. */
static void test_roundtrip(void)
{
    wh_seen_t s = {0}, t = {0};
    CHECK_EQ_INT(wh_seen_add(&s, "z \"quoted\" | a\\b", "2026-12-02T00:00:00Z"), 0);
    CHECK_EQ_INT(wh_seen_add(&s, "a", "2026-12-01T00:00:00Z"), 0);
    char *text = wh_seen_format(&s), *err = NULL;
    CHECK(text != NULL);
    CHECK_EQ_INT(wh_seen_parse(text, &t, &err), 0);
    CHECK_EQ_INT((int)t.n, 2);
    CHECK_EQ_STR(wh_seen_get(&t, "z \"quoted\" | a\\b"), "2026-12-02T00:00:00Z");
    CHECK(strstr(text, "\"a\"") < strstr(text, "quoted")); /* keys sorted */
    char now[32];
    wh_seen_now(now);
    CHECK_EQ_INT(wh_seen_add(&t, "now", now), 0);
    free(text);
    text = wh_seen_format(&t);
    CHECK_EQ_INT(wh_seen_parse(text, &s, &err), 0); /* its own date parses */
    CHECK_EQ_INT((int)s.n, 3);
    free(text);
    wh_seen_clear(&s);
    wh_seen_clear(&t);
}

static char *s_file(const char *dir)
{
    char *p = wh_path_join(dir, WH_SEEN_FILE), *text = NULL;
    size_t len = 0;
    if (wh_read_file(p, 1 << 20, &text, &len))
        text = NULL;
    free(p);
    return text;
}

/* Missing: empty, no warning. Saved: merged with the file, never losing a
 * key. Corrupt: one warning line, empty, and saving keeps it aside. */
static void test_load_save(void)
{
    char dir[] = "/tmp/whittle-prio.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    wh_seen_t s = {0}, t = {0};
    char *warn = NULL;
    CHECK_EQ_INT(wh_seen_load(dir, &s, &warn), 0);
    CHECK(warn == NULL);
    CHECK_EQ_INT((int)s.n, 0);

    CHECK_EQ_INT(wh_seen_add(&s, "one", "2026-12-01T00:00:00Z"), 0);
    CHECK_EQ_INT(wh_seen_save(dir, &s), 0);
    /* another run saves only its own key: the first stays */
    CHECK_EQ_INT(wh_seen_add(&t, "two", "2026-12-02T00:00:00Z"), 0);
    CHECK_EQ_INT(wh_seen_add(&t, "one", "2026-12-07T00:00:00Z"), 0);
    CHECK_EQ_INT(wh_seen_save(dir, &t), 0);
    wh_seen_clear(&s);
    CHECK_EQ_INT(wh_seen_load(dir, &s, &warn), 0);
    CHECK_EQ_INT((int)s.n, 2);
    CHECK_EQ_STR(wh_seen_get(&s, "one"), "2026-12-01T00:00:00Z");
    CHECK_EQ_STR(wh_seen_get(&s, "two"), "2026-12-02T00:00:00Z");

    char *p = wh_path_join(dir, WH_SEEN_FILE);
    CHECK_EQ_INT(wh_write_file(p, "{\"version\": 1, \"seen\": [", 24), 0);
    CHECK_EQ_INT(wh_seen_load(dir, &s, &warn), 1);
    CHECK(warn != NULL && strstr(warn, p) && !strchr(warn, '\n'));
    CHECK_EQ_INT((int)s.n, 0);
    free(warn);
    warn = NULL;
    CHECK_EQ_INT(wh_seen_save(dir, &t), 0);
    char *text = s_file(dir);
    CHECK(text && strstr(text, "\"two\""));
    free(text);
    char *q = wh_path_join(dir, WH_SEEN_FILE ".corrupt");
    CHECK_EQ_INT(access(q, F_OK), 0);
    CHECK_EQ_INT(wh_seen_load(dir, &s, &warn), 0);
    CHECK_EQ_INT((int)s.n, 2);
    free(p);
    free(q);
    wh_seen_clear(&s);
    wh_seen_clear(&t);
    wh_rm_rf(dir);
}

static void test_order(void)
{
    const wh_prio_item_t it[] = {
        {1, "2026-12-01T00:00:00Z", 10}, /* 0: alone, seen long ago */
        {3, NULL, 40},                   /* 1: three, new */
        {1, NULL, 30},                   /* 2: alone, new */
        {4, "2026-12-01T00:00:00Z", 50}, /* 3: four, seen */
        {1, "2026-12-05T00:00:00Z", 20}, /* 4: alone, seen lately */
        {1, NULL, 5},                    /* 5: alone, new, smaller */
        {1, NULL, -1},                   /* 6: alone, new, size unknown */
        {3, NULL, 40},                   /* 7: as 1: after it */
    };
    size_t order[8];
    wh_prio_order(it, 8, order);
    const size_t want[] = {3, 1, 7, 5, 2, 6, 4, 0};
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT((int)order[i], (int)want[i]);
    wh_prio_order(it, 0, order);
}

int main(void)
{
    RUN_TEST(test_parse_good);
    RUN_TEST(test_parse_duplicates);
    RUN_TEST(test_parse_corrupt);
    RUN_TEST(test_roundtrip);
    RUN_TEST(test_load_save);
    RUN_TEST(test_order);
    TEST_MAIN_END();
}
