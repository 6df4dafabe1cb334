/* wh_snapshot: base64 round trips, the id, and the receiver's refusals of
 * inputs from the wire (no git run for those). */
#define _GNU_SOURCE
#include <stdint.h>

#include "wh_snapshot.h"
#include "wh_test.h"

static void test_base64(void)
{
    const char *vec[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
                            {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        char *e = wh_base64_encode((const uint8_t *)vec[i][0], strlen(vec[i][0]));
        CHECK_EQ_STR(e, vec[i][1]);
        size_t n = 99;
        uint8_t *d = wh_base64_decode(vec[i][1], &n);
        CHECK(d && n == strlen(vec[i][0]) && !memcmp(d, vec[i][0], n));
        free(e);
        free(d);
    }
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    char *e = wh_base64_encode(all, sizeof all);
    size_t n = 0;
    uint8_t *d = wh_base64_decode(e, &n);
    CHECK(d && n == 256 && !memcmp(d, all, 256));
    free(e);
    free(d);
    const char *bad[] = {"Zg=", "Z===", "Zm9v!A==", "=Zm9", "Zg==Zg==", "Zm 9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *x = wh_base64_decode(bad[i], &n);
        CHECK(x == NULL);
        free(x);
    }
}

static void test_id(void)
{
    char a[65], b[65], c[65], d[65];
    wh_snapshot_id("git://h/p", "0123456789012345678901234567890123456789", NULL, 0, a);
    wh_snapshot_id("git://h/p", "0123456789012345678901234567890123456789", (const uint8_t *)"x", 1, b);
    wh_snapshot_id("git://h/q", "0123456789012345678901234567890123456789", NULL, 0, c);
    wh_snapshot_id("git://h/p", "0123456789012345678901234567890123456789", NULL, 0, d);
    CHECK(strcmp(a, b) && strcmp(a, c));
    CHECK_EQ_STR(a, d);
    CHECK_EQ_INT(strlen(a), 64);
}

static void test_refusals(void)
{
    const char *rev = "0123456789abcdef0123456789abcdef01234567";
    struct {
        const char *url, *rev, *subdir, *want;
    } cases[] = {
        {"--upload-pack=touch /tmp/x", rev, "", "refused snapshot URL '--upload-pack=touch /tmp/x'"},
        {"", rev, "", "refused snapshot URL ''"},
        {"git://h/p", "HEAD", "", "refused snapshot revision 'HEAD' (not a full commit id)"},
        {"git://h/p", "0123456789ABCDEF0123456789ABCDEF01234567", "", "refused snapshot revision"},
        {"git://h/p", rev, "../up", "refused snapshot folder '../up'"},
        {"git://h/p", rev, "/abs", "refused snapshot folder '/abs'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = NULL, *err = NULL;
        int rc = wh_snapshot_checkout("/nonexistent/whittle-test", cases[i].url, cases[i].rev, NULL, 0,
                                      cases[i].subdir, &p, &err);
        CHECK_EQ_INT(rc, -1);
        CHECK(p == NULL);
        CHECK(err && !strncmp(err, cases[i].want, strlen(cases[i].want)));
        if (err && strncmp(err, cases[i].want, strlen(cases[i].want)))
            fprintf(stderr, "  got: %s\n", err);
        free(err);
    }
    char *p = NULL, *err = NULL;
    CHECK_EQ_INT(wh_snapshot_checkout("/nonexistent/x", "git://h/p", rev, (const uint8_t *)"x",
                                      WH_SNAPSHOT_MAX_PATCH + 1, "", &p, &err), -1);
    CHECK(err && strstr(err, "over the 1048576 cap"));
    free(err);
}

int main(void)
{
    RUN_TEST(test_base64);
    RUN_TEST(test_id);
    RUN_TEST(test_refusals);
    TEST_MAIN_END();
}
