/*
 * test_cache_admin — looking after the verdict cache: compaction of the
 * embedded log past --cache-max (every live verdict kept, the file smaller,
 * a second handle following the new file and appending to it), stats and
 * clear for the embedded log and for a real Redis (private port), with
 * hits and misses recorded in Redis.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "cache.h"
#include "wh_redis.h"
#include "wh_test.h"

static char s_tmp[256];

static void s_key(int i, char out[65])
{
    char content[64];
    snprintf(content, sizeof content, "admin candidate %d", i);
    wh_cache_key("job-admin", "tests/t.c", content, strlen(content), out);
}

static wh_verdict_t s_get1(wh_cache_t *c, const char *key)
{
    wh_verdict_t v = (wh_verdict_t)99;
    const char *keys[1] = {key};
    CHECK_EQ_INT(wh_cache_mget(c, keys, 1, &v), 0);
    return v;
}

static long long s_size(const char *dir, const char *name)
{
    char *p = wh_path_join(dir, name);
    struct stat st;
    long long n = p && stat(p, &st) == 0 ? (long long)st.st_size : -1;
    free(p);
    return n;
}

static int s_lines(const char *dir, const char *name)
{
    char *p = wh_path_join(dir, name), *s = NULL;
    size_t n = 0;
    int lines = 0;
    if (p && wh_read_file(p, 64u << 20, &s, &n) == 0)
        for (size_t i = 0; i < n; i++)
            lines += s[i] == '\n';
    free(s);
    free(p);
    return lines;
}

static const wh_verdict_t s_vs[] = {WH_V_PRESERVED, WH_V_TEST_PASSED, WH_V_DIFFERENT_FAILURE,
                                    WH_V_BUILD_FAILED, WH_V_TEST_MISSING};

/* ---- compaction ---- */

static void test_compaction(void)
{
    char *dir = wh_path_join(s_tmp, "compact"), *spec = wh_strdup_printf("dir:%s", dir);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(spec, &err), *other = wh_cache_open(spec, &err);
    CHECK(c && other);
    if (!c || !other)
        goto out;
    enum { N = 100, ROUNDS = 5 };
    char k[N][65];
    /* No cap yet: every change is a line. */
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++) {
            s_key(i, k[i]);
            CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[i], s_vs[(i + r) % 5], "n1"), 0);
        }
    for (int i = 0; i < N; i += 10)
        CHECK_EQ_INT(wh_cache_drop(c, k[i]), 0);
    wh_cache_forgot_t f;
    CHECK_EQ_INT(wh_cache_forget_node(c, "nobody", &f), 0); /* generation 1 */
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:a", "one"), 0);
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:a", "two"), 0);
    CHECK_EQ_INT(s_lines(dir, "verdicts.log"), N * ROUNDS + N / 10 + 1);
    long long before = s_size(dir, "verdicts.log");
    CHECK_EQ_INT(s_get1(other, k[1]), s_vs[(1 + ROUNDS - 1) % 5]); /* other has read it all */

    /* A cap below the log's size compacts at once: the latest line per
     * live key, the generation first, no Dropped lines. */
    wh_cache_set_max(c, 8192);
    CHECK_EQ_INT(s_lines(dir, "verdicts.log"), 1 + N - N / 10);
    CHECK_EQ_INT(s_lines(dir, "blobs.log"), 1);
    long long after = s_size(dir, "verdicts.log");
    CHECK(after > 0 && after * 4 < before);
    fprintf(stderr, "     verdicts.log %lld -> %lld bytes\n", before, after);
    for (int i = 0; i < N; i++) {
        wh_verdict_t want = i % 10 == 0 ? WH_V_NONE : s_vs[(i + ROUNDS - 1) % 5];
        CHECK_EQ_INT(s_get1(c, k[i]), want);
        CHECK_EQ_INT(s_get1(other, k[i]), want); /* read afresh from the new file */
    }
    /* other appends to the new file, not the replaced one. */
    char kn[65];
    s_key(N + 1, kn);
    CHECK_EQ_INT(wh_cache_put_node(other, WH_CACHE_VERDICTS, kn, WH_V_PRESERVED, "n2"), 0);
    CHECK_EQ_INT(s_get1(c, kn), WH_V_PRESERVED);
    wh_cache_close(&c);
    wh_cache_close(&other);
    c = wh_cache_open(spec, &err);
    CHECK_EQ_INT(s_get1(c, kn), WH_V_PRESERVED);
    CHECK_EQ_INT(s_get1(c, k[3]), s_vs[(3 + ROUNDS - 1) % 5]);
    char *v = NULL;
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:a", &v), 0);
    CHECK_EQ_STR(v, "two");
    free(v);
    /* The generation survived: the next forget makes it 2. */
    CHECK_EQ_INT(wh_cache_forget_node(c, "nobody", &f), 0);
    CHECK_EQ_INT(f.generation, 2);

    /* Growing past the cap again compacts again, by itself: the logs never
     * hold more than the cap and one line. */
    wh_cache_set_max(c, 16384);
    long long most = 0;
    for (int r = 0; r < 20; r++)
        for (int i = 0; i < N; i++) {
            CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[i], s_vs[(i + r) % 5], "n1"), 0);
            long long now = s_size(dir, "verdicts.log") + s_size(dir, "predicted.log") +
                            s_size(dir, "blobs.log");
            most = now > most ? now : most;
        }
    CHECK(most > 12000 && most <= 16384 + 120);
    CHECK(s_lines(dir, "verdicts.log") < 20 * N / 5); /* 20 * N lines were appended */
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(s_get1(c, k[i]), s_vs[(i + 19) % 5]);
    wh_cache_close(&c);
out:
    free(spec);
    free(dir);
}

/* ---- stats and clear, embedded ---- */

static void test_stats_clear_embedded(void)
{
    char *dir = wh_path_join(s_tmp, "stats"), *spec = wh_strdup_printf("dir:%s", dir);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(spec, &err), *other = wh_cache_open(spec, &err);
    CHECK(c && other);
    if (!c || !other)
        goto out;
    char k[20][65];
    for (int i = 0; i < 20; i++) {
        s_key(i, k[i]);
        CHECK_EQ_INT(wh_cache_put(c, k[i], s_vs[i % 5]), 0);
    }
    CHECK_EQ_INT(wh_cache_drop(c, k[0]), 0);
    CHECK_EQ_INT(wh_cache_put_ns(c, WH_CACHE_PREDICTED, k[1], WH_V_BUILD_FAILED), 0);
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:x", "{}"), 0);
    wh_cache_stats_t st[2];
    int n = 0;
    CHECK_EQ_INT(wh_cache_stats(other, st, &n), 0);
    CHECK_EQ_INT(n, 1);
    char *where = wh_strdup_printf("embedded %s", dir);
    CHECK_EQ_STR(st[0].where, where);
    free(where);
    CHECK_EQ_INT(st[0].verdicts[WH_V_PRESERVED], 3); /* 4 of 20, one dropped */
    CHECK_EQ_INT(st[0].verdicts[WH_V_TEST_PASSED], 4);
    CHECK_EQ_INT(st[0].verdicts[WH_V_DIFFERENT_FAILURE], 4);
    CHECK_EQ_INT(st[0].verdicts[WH_V_BUILD_FAILED], 4);
    CHECK_EQ_INT(st[0].verdicts[WH_V_TEST_MISSING], 4);
    CHECK_EQ_INT(st[0].predicted, 1);
    CHECK_EQ_INT(st[0].dropped, 1);
    CHECK_EQ_INT(st[0].blobs, 1);
    CHECK_EQ_INT(st[0].bytes, s_size(dir, "verdicts.log") + s_size(dir, "predicted.log") +
                                  s_size(dir, "blobs.log"));
    CHECK_EQ_INT(st[0].generation, 0);
    CHECK_EQ_INT(st[0].hits, -1);

    wh_cache_forgot_t f;
    CHECK_EQ_INT(wh_cache_clear(c, &f), 0);
    CHECK_EQ_INT(f.embedded, 19);
    CHECK_EQ_INT(f.generation, 1);
    CHECK_EQ_INT(s_get1(other, k[5]), WH_V_NONE);
    char *v = NULL;
    CHECK_EQ_INT(wh_cache_get_blob(other, "fp:x", &v), WH_ENOTFOUND);
    CHECK_EQ_INT(wh_cache_stats(other, st, &n), 0);
    CHECK_EQ_INT(st[0].verdicts[WH_V_TEST_PASSED] + st[0].predicted + st[0].blobs, 0);
    CHECK_EQ_INT(st[0].generation, 1);
    CHECK_EQ_INT(s_lines(dir, "verdicts.log"), 1); /* "@generation 1" */
    CHECK_EQ_INT(s_size(dir, "predicted.log"), 0);
    wh_cache_close(&c);
    wh_cache_close(&other);
out:
    free(spec);
    free(dir);
}

/* ---- stats and clear, Redis ---- */

static void test_stats_clear_redis(void)
{
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed */
    if (pid <= 0)
        return;
    char url[64], reply[128];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/4", port);
    char *dir = wh_path_join(s_tmp, "redis-fb");
    setenv("WHITTLE_CACHE_DIR", dir, 1);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(url, &err);
    CHECK(c != NULL);
    if (!c)
        goto out;
    char k[30][65];
    const char *ks[30];
    for (int i = 0; i < 30; i++) {
        s_key(i, k[i]);
        ks[i] = k[i];
    }
    for (int i = 0; i < 20; i++)
        CHECK_EQ_INT(wh_cache_put(c, k[i], s_vs[i % 5]), 0);
    CHECK_EQ_INT(wh_cache_put_ns(c, WH_CACHE_PREDICTED, k[25], WH_V_BUILD_FAILED), 0);
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:r", "{\"a\": 1}"), 0);
    wh_verdict_t out[30];
    CHECK_EQ_INT(wh_cache_mget(c, ks, 30, out), 0); /* 20 hits, 10 misses */
    wh_cache_stats_t st[2];
    int n = 0;
    CHECK_EQ_INT(wh_cache_stats(c, st, &n), 0);
    CHECK_EQ_INT(n, 2);
    char *want = wh_strdup_printf("redis://127.0.0.1:%d/4", port);
    CHECK_EQ_STR(st[0].where, want);
    free(want);
    for (int v = WH_V_PRESERVED; v <= WH_V_TEST_MISSING; v++)
        if (v != WH_V_INFRA_ERROR)
            CHECK_EQ_INT(st[0].verdicts[v], 4);
    CHECK_EQ_INT(st[0].predicted, 1);
    CHECK_EQ_INT(st[0].blobs, 1);
    CHECK_EQ_INT(st[0].hits, 20);
    CHECK_EQ_INT(st[0].misses, 10);
    CHECK_EQ_INT(st[0].generation, 0);
    /* keys and values: 20 verdicts, 1 prediction, 1 blob */
    long long bytes = 0;
    for (int i = 0; i < 20; i++)
        bytes += (long long)strlen("whittle:v1:verdict:") + 64 +
                 (long long)strlen(wh_verdict_name(s_vs[i % 5])) + 11;
    bytes += (long long)strlen("whittle:v1:predicted:") + 64 + strlen("BuildFailed node=local");
    bytes += (long long)strlen("whittle:v1:blob:fp:r") + strlen("{\"a\": 1}");
    bytes += 22 * 69; /* " mac=<64 hex>" on every value */
    CHECK_EQ_INT(st[0].bytes, bytes);
    char *where = wh_strdup_printf("embedded %s", dir);
    CHECK_EQ_STR(st[1].where, where);
    free(where);
    CHECK_EQ_INT(st[1].verdicts[WH_V_PRESERVED], 4);

    wh_cache_forgot_t f;
    CHECK_EQ_INT(wh_cache_clear(c, &f), 0);
    CHECK_EQ_INT(f.redis, 20);
    CHECK_EQ_INT(f.embedded, 20);
    CHECK_EQ_INT(f.generation, 1);
    wh_redis_raw(port, "SELECT 4", reply, sizeof reply);
    CHECK_EQ_INT(wh_cache_mget(c, ks, 30, out), 0);
    int hits = 0;
    for (int i = 0; i < 30; i++)
        hits += out[i] != WH_V_NONE;
    CHECK_EQ_INT(hits, 0);
    CHECK_EQ_INT(wh_cache_stats(c, st, &n), 0);
    CHECK_EQ_INT(st[0].verdicts[WH_V_PRESERVED] + st[0].predicted + st[0].blobs, 0);
    CHECK_EQ_INT(st[0].generation, 1);
    CHECK_EQ_INT(st[1].verdicts[WH_V_PRESERVED], 0);

    /* Redis down: stats tells, and shows the fallback alone. */
    wh_redis_kill(pid);
    pid = -1;
    CHECK_EQ_INT(wh_cache_stats(c, st, &n), WH_EUNAVAIL);
    CHECK_EQ_INT(n, 1);
    where = wh_strdup_printf("embedded %s", dir);
    CHECK_EQ_STR(st[0].where, where);
    free(where);
out:
    wh_cache_close(&c);
    wh_redis_kill(pid);
    unsetenv("WHITTLE_CACHE_DIR");
    free(dir);
}

static void test_parse_size(void)
{
    uint64_t b = 0;
    CHECK_EQ_INT(wh_cache_parse_size("4096", &b), 0);
    CHECK_EQ_INT(b, 4096);
    CHECK_EQ_INT(wh_cache_parse_size("100K", &b), 0);
    CHECK_EQ_INT(b, 102400);
    CHECK_EQ_INT(wh_cache_parse_size("64M", &b), 0);
    CHECK_EQ_INT(b, 64ll << 20);
    CHECK_EQ_INT(wh_cache_parse_size("2g", &b), 0);
    CHECK_EQ_INT(b, 2ll << 30);
    CHECK_EQ_INT(wh_cache_parse_size("", &b), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_parse_size("-1", &b), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_parse_size("10T", &b), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_parse_size("1.5G", &b), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_parse_size("99999999999999999999", &b), WH_EINVAL);
}

int main(void)
{
    snprintf(s_tmp, sizeof s_tmp, "/tmp/whittle-test-cache-admin-XXXXXX");
    if (!mkdtemp(s_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_parse_size);
    RUN_TEST(test_compaction);
    RUN_TEST(test_stats_clear_embedded);
    RUN_TEST(test_stats_clear_redis);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
