/*
 * test_cache_mac — authenticated Redis values (issue 18, item 2): the MAC
 * format and its check (wh_mac.h), the secret file's rules, and the Redis
 * back end against a private redis-server whose values are rewritten by
 * hand: a value without a valid MAC is a miss, counted, named by the
 * stats, and overwritten by the next honest put. A forgotten node's
 * MAC-valid value written back after the forget is refused too (issue
 * 34: values carry the forget generation), while the other nodes'
 * verdicts and the predictions survive the forget.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "wh_mac.h"
#include "wh_redis.h"
#include "wh_test.h"

static char s_tmp[256];
static const char s_secret[] = "0123456789abcdef0123456789abcdef";

static void s_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_format_verify(void)
{
    char *err = NULL;
    wh_mac_t *m = wh_mac_new(s_secret, 32, &err);
    CHECK(m != NULL);
    if (!m)
        return;
    const char *k = "whittle:v1:verdict:ab", *v = "Preserved node=n1";
    char stored[128], mac[WH_MAC_SUFFIX_LEN + 1];
    CHECK_EQ_INT(wh_mac_sign(m, k, strlen(k), v, strlen(v), mac), WH_MAC_SUFFIX_LEN);
    CHECK_EQ_INT(strncmp(mac, " mac=", 5), 0);
    CHECK_EQ_INT(strspn(mac + 5, "0123456789abcdef"), 64);
    /* HMAC-SHA-256(secret, "10:whittle-v1" "21:<key>" "17:<value>"),
     * pinned: openssl dgst -sha256 -hmac 0123...cdef */
    CHECK_EQ_STR(mac + 5, "808889d03a59dc6f87189e740cb82ac111b9e90f5342bd8eb86c9025c511a96d");
    snprintf(stored, sizeof stored, "%s%s", v, mac);
    size_t body = 0;
    CHECK_EQ_INT(wh_mac_verify(m, k, strlen(k), stored, strlen(stored), &body), 1);
    CHECK_EQ_INT(body, strlen(v));
    /* another key, another value, a flipped hex digit, upper case, a cut
     * MAC, none at all: all refused */
    const char *k2 = "whittle:v1:verdict:ac";
    CHECK_EQ_INT(wh_mac_verify(m, k2, strlen(k2), stored, strlen(stored), &body), 0);
    char bad[128];
    snprintf(bad, sizeof bad, "BuildFailed node=n1%s", mac);
    CHECK_EQ_INT(wh_mac_verify(m, k, strlen(k), bad, strlen(bad), &body), 0);
    snprintf(bad, sizeof bad, "%s", stored);
    bad[strlen(bad) - 1] = bad[strlen(bad) - 1] == '0' ? '1' : '0';
    CHECK_EQ_INT(wh_mac_verify(m, k, strlen(k), bad, strlen(bad), &body), 0);
    snprintf(bad, sizeof bad, "%s", stored);
    for (char *p = bad + strlen(v) + 5; *p; p++)
        *p = (char)(*p >= 'a' ? *p - 32 : *p);
    CHECK_EQ_INT(wh_mac_verify(m, k, strlen(k), bad, strlen(bad), &body), 0);
    CHECK_EQ_INT(wh_mac_verify(m, k, strlen(k), stored, strlen(stored) - 1, &body), 0);
    CHECK_EQ_INT(wh_mac_verify(m, k, strlen(k), v, strlen(v), &body), 0);
    /* another secret does not check */
    wh_mac_t *o = wh_mac_new("another secret, also 32 bytes long", 34, &err);
    CHECK(o != NULL);
    if (o)
        CHECK_EQ_INT(wh_mac_verify(o, k, strlen(k), stored, strlen(stored), &body), 0);
    wh_mac_destroy(&o);
    wh_mac_destroy(&m);
    CHECK(m == NULL);
}

static void test_secret_file(void)
{
    char *path = wh_path_join(s_tmp, "secret"), *err = NULL;
    /* 31 bytes and a newline: too short, said in one line with the how-to */
    s_write(path, "0123456789abcdef0123456789abcde\n");
    CHECK(wh_mac_new_file(path, &err) == NULL);
    CHECK(err && strstr(err, "holds 31 bytes; at least 32") && !strchr(err, '\n') &&
          strstr(err, "head -c 32 /dev/urandom | base64"));
    free(err), err = NULL;
    /* 32 and a newline: the newline is not the secret's */
    s_write(path, "0123456789abcdef0123456789abcdef\n");
    wh_mac_t *a = wh_mac_new_file(path, &err), *b = wh_mac_new(s_secret, 32, &err);
    CHECK(a && b);
    char ma[WH_MAC_SUFFIX_LEN + 1], mb[WH_MAC_SUFFIX_LEN + 1];
    if (a && b) {
        wh_mac_sign(a, "k", 1, "v", 1, ma);
        wh_mac_sign(b, "k", 1, "v", 1, mb);
        CHECK_EQ_STR(ma, mb);
    }
    wh_mac_destroy(&a);
    wh_mac_destroy(&b);
    /* none named: a redis:// cache is refused, saying how to make one */
    unsetenv("WHITTLE_CACHE_SECRET_FILE");
    wh_mac_set_secret_file(NULL);
    CHECK(wh_cache_open("redis://127.0.0.1:1", &err) == NULL);
    CHECK_EQ_STR(err, "a redis:// cache needs the cluster secret: make one with `head -c 32 "
                      "/dev/urandom | base64 > secret` and pass --cache-secret-file secret (or "
                      "set WHITTLE_CACHE_SECRET_FILE)");
    free(err), err = NULL;
    /* a missing file is named */
    wh_mac_set_secret_file("/nonexistent/secret");
    CHECK(wh_cache_open("redis://127.0.0.1:1", &err) == NULL);
    CHECK(err && strstr(err, "cannot read cache secret file '/nonexistent/secret'"));
    free(err), err = NULL;
    /* the option's file beats the environment's */
    setenv("WHITTLE_CACHE_SECRET_FILE", "/nonexistent/env", 1);
    wh_mac_set_secret_file(path);
    wh_cache_t *c = wh_cache_open("redis://127.0.0.1:1", &err); /* down: fallback */
    CHECK(c != NULL);
    wh_cache_close(&c);
    wh_mac_set_secret_file(NULL);
    unsetenv("WHITTLE_CACHE_SECRET_FILE");
    free(err);
    free(path);
}

static wh_verdict_t s_get1(wh_cache_t *c, const char *k)
{
    wh_verdict_t v = WH_V_NONE;
    CHECK_EQ_INT(wh_cache_mget(c, &k, 1, &v), 0);
    return v;
}

/* Every value rewritten by hand: misses, counted, overwritten by a put. */
static void test_redis_forged(void)
{
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed */
    if (pid <= 0)
        return;
    char url[64], cmd[400], reply[512];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    char *dir = wh_path_join(s_tmp, "fb"), *err = NULL;
    setenv("WHITTLE_CACHE_DIR", dir, 1);
    wh_cache_t *a = wh_cache_open(url, &err);
    CHECK(a != NULL);
    if (!a)
        goto out;
    char k[3][65];
    for (int i = 0; i < 3; i++)
        wh_cache_key("job", "t.c", &i, sizeof i, k[i]);
    CHECK_EQ_INT(wh_cache_put_node(a, WH_CACHE_VERDICTS, k[0], WH_V_PRESERVED, "n1"), 0);
    CHECK_EQ_INT(wh_cache_put_node(a, WH_CACHE_VERDICTS, k[1], WH_V_TEST_PASSED, "n1"), 0);
    CHECK_EQ_INT(wh_cache_put_blob(a, "fp:job", "{\"x\": 1}"), 0);
    wh_cache_close(&a);
    /* forged: no MAC; a MAC of another value; the blob's value replaced */
    snprintf(cmd, sizeof cmd, "SET whittle:v1:verdict:%s \"BuildFailed node=n1\"",
             k[0]);
    wh_redis_raw(port, cmd, reply, sizeof reply);
    char genuine[512];
    snprintf(cmd, sizeof cmd, "GET whittle:v1:verdict:%s", k[1]);
    wh_redis_raw(port, cmd, genuine, sizeof genuine);
    char *mac = strstr(genuine, " mac=");
    CHECK(mac != NULL);
    if (mac) {
        mac[69] = '\0';
        snprintf(cmd, sizeof cmd, "SET whittle:v1:verdict:%s \"BuildFailed node=n1%s\"",
                 k[1], mac);
        wh_redis_raw(port, cmd, reply, sizeof reply);
    }
    wh_redis_raw(port, "SET whittle:v1:blob:fp:job \"{}\"", reply, sizeof reply);

    /* a fresh process with an empty fallback: nothing forged believed */
    char *dir2 = wh_path_join(s_tmp, "fb2");
    setenv("WHITTLE_CACHE_DIR", dir2, 1);
    free(dir2);
    wh_cache_t *b = wh_cache_open(url, &err);
    CHECK(b != NULL);
    if (!b)
        goto out;
    CHECK_EQ_INT(s_get1(b, k[0]), WH_V_NONE);
    CHECK_EQ_INT(s_get1(b, k[1]), WH_V_NONE);
    char *bv = NULL;
    CHECK_EQ_INT(wh_cache_get_blob(b, "fp:job", &bv), WH_ENOTFOUND);
    free(bv);
    wh_cache_stats_t st[2];
    int n = 0;
    CHECK_EQ_INT(wh_cache_stats(b, st, &n), 0);
    CHECK_EQ_INT(st[0].unauthenticated, 3);
    CHECK_EQ_INT(st[0].rejected, 3);
    CHECK_EQ_INT(st[0].verdicts[WH_V_BUILD_FAILED], 0);
    CHECK_EQ_INT(st[0].misses, 2);
    /* re-judged: the honest verdict overwrites the forged one */
    CHECK_EQ_INT(wh_cache_put_node(b, WH_CACHE_VERDICTS, k[0], WH_V_PRESERVED, "n2"), 0);
    wh_cache_close(&b);
    char *dir3 = wh_path_join(s_tmp, "fb3");
    setenv("WHITTLE_CACHE_DIR", dir3, 1);
    free(dir3);
    b = wh_cache_open(url, &err);
    CHECK(b != NULL);
    if (b) {
        CHECK_EQ_INT(s_get1(b, k[0]), WH_V_PRESERVED);
        CHECK_EQ_INT(wh_cache_stats(b, st, &n), 0);
        CHECK_EQ_INT(st[0].unauthenticated, 2);
        CHECK_EQ_INT(st[0].verdicts[WH_V_PRESERVED], 1);
    }
    wh_cache_close(&b);
out:
    free(err);
    unsetenv("WHITTLE_CACHE_DIR");
    free(dir);
    wh_redis_kill(pid);
}

/* Fresh fallback folder NAME under s_tmp, then the cache at url. */
static wh_cache_t *s_open_fresh(const char *url, const char *name)
{
    char *dir = wh_path_join(s_tmp, name), *err = NULL;
    setenv("WHITTLE_CACHE_DIR", dir, 1);
    free(dir);
    wh_cache_t *c = wh_cache_open(url, &err);
    CHECK(c != NULL);
    free(err);
    return c;
}

/* A forgotten node's values, saved before `cache forget` and written back
 * after it (SET of the very bytes: MAC-valid), are not believed. */
static void test_redis_replay(void)
{
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    char url[64], cmd[600], reply[512], saved[2][512];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    wh_cache_t *a = s_open_fresh(url, "r1");
    char k[3][65];
    for (int i = 0; i < 3; i++)
        wh_cache_key("job", "t.c", &i, sizeof i, k[i]);
    if (!a)
        goto out;
    CHECK_EQ_INT(wh_cache_put_node(a, WH_CACHE_VERDICTS, k[0], WH_V_PRESERVED, "liar"), 0);
    CHECK_EQ_INT(wh_cache_put_node(a, WH_CACHE_VERDICTS, k[1], WH_V_TEST_PASSED, "honest"), 0);
    CHECK_EQ_INT(wh_cache_put_ns(a, WH_CACHE_PREDICTED, k[2], WH_V_BUILD_FAILED), 0);
    /* the liar's value as it stands, and the generation key's */
    snprintf(cmd, sizeof cmd, "GET whittle:v1:verdict:%s", k[0]);
    wh_redis_raw(port, cmd, saved[0], sizeof saved[0]);
    CHECK(strstr(saved[0], "Preserved node=liar mac=") != NULL);
    wh_cache_forgot_t f = {0};
    CHECK_EQ_INT(wh_cache_forget_node(a, "liar", &f), 0);
    CHECK_EQ_INT(f.redis, 1);
    CHECK_EQ_INT((int)f.generation, 1);
    wh_cache_close(&a);
    /* the survivors carry the new generation under their MAC */
    snprintf(cmd, sizeof cmd, "GET whittle:v1:verdict:%s", k[1]);
    wh_redis_raw(port, cmd, saved[1], sizeof saved[1]);
    CHECK(strstr(saved[1], "TestPassed node=honest gen=1 mac=") != NULL);
    /* written back: the saved bytes, MAC and all (a "$N\r\n...\r\n" bulk
     * reply: the value is its second line) */
    char *val = strstr(saved[0], "\r\n");
    CHECK(val != NULL);
    if (val) {
        val += 2;
        char *end = strstr(val, "\r\n");
        if (end)
            *end = '\0';
        snprintf(cmd, sizeof cmd, "SET whittle:v1:verdict:%s \"%s\"", k[0], val);
        wh_redis_raw(port, cmd, reply, sizeof reply);
        CHECK(strstr(reply, "OK") != NULL);
    }
    wh_cache_t *b = s_open_fresh(url, "r2");
    if (!b)
        goto out;
    CHECK_EQ_INT(s_get1(b, k[0]), WH_V_NONE);        /* the replay: refused */
    CHECK_EQ_INT(s_get1(b, k[1]), WH_V_TEST_PASSED); /* the honest node's: kept */
    wh_verdict_t pv = WH_V_NONE;
    const char *pk = k[2];
    CHECK_EQ_INT(wh_cache_mget_ns(b, WH_CACHE_PREDICTED, &pk, 1, &pv), 0);
    CHECK_EQ_INT(pv, WH_V_BUILD_FAILED);
    wh_verdict_t nv = WH_V_NONE;
    char node[WH_CACHE_NODE_MAX + 1];
    CHECK_EQ_INT(wh_cache_get_node(b, k[0], &nv, node), 0);
    CHECK_EQ_INT(nv, WH_V_NONE);
    wh_cache_stats_t st[2];
    int n = 0;
    CHECK_EQ_INT(wh_cache_stats(b, st, &n), 0);
    CHECK_EQ_INT(st[0].stale, 1);
    CHECK_EQ_INT(st[0].verdicts[WH_V_PRESERVED], 0);
    CHECK_EQ_INT(st[0].verdicts[WH_V_TEST_PASSED], 1);
    CHECK(st[0].rejected >= 1);
    /* a second forget deletes the replayed value (two generations old) */
    CHECK_EQ_INT(wh_cache_forget_node(b, "nobody", &f), 0);
    CHECK_EQ_INT(f.redis, 0);
    snprintf(cmd, sizeof cmd, "EXISTS whittle:v1:verdict:%s", k[0]);
    wh_redis_raw(port, cmd, reply, sizeof reply);
    CHECK(strstr(reply, ":0") != NULL);
    CHECK_EQ_INT(s_get1(b, k[1]), WH_V_TEST_PASSED);
    wh_cache_close(&b);
out:
    unsetenv("WHITTLE_CACHE_DIR");
    wh_redis_kill(pid);
}

int main(void)
{
    snprintf(s_tmp, sizeof s_tmp, "/tmp/whittle-test-cache-mac-XXXXXX");
    if (!mkdtemp(s_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_format_verify);
    RUN_TEST(test_secret_file);
    RUN_TEST(test_redis_forged);
    RUN_TEST(test_redis_replay);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
