/*
 * test_cache_node — who produced each verdict, and forgetting one node's
 * verdicts: the value format round trip (and values of older whittles),
 * forget in the embedded log (reopen, a second handle, the generation
 * line), and forget in a real Redis with the generation keeping every
 * embedded fallback from answering (or writing back) what Redis forgot,
 * even after Redis comes back empty.
 */
#define _GNU_SOURCE
#include "cache.h"
#include "wh_redis.h"
#include "wh_test.h"

static char s_tmp[256];

static void s_key(int i, char out[65])
{
    char content[64];
    snprintf(content, sizeof content, "node candidate %d", i);
    wh_cache_key("job-node", "tests/t.c", content, strlen(content), out);
}

static wh_verdict_t s_get1(wh_cache_t *c, const char *key)
{
    wh_verdict_t v = (wh_verdict_t)99;
    const char *keys[1] = {key};
    CHECK_EQ_INT(wh_cache_mget(c, keys, 1, &v), 0);
    return v;
}

static char *s_read(const char *path)
{
    char *s = NULL;
    size_t n;
    return wh_read_file(path, 64u << 20, &s, &n) ? NULL : s;
}

static int s_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void s_append(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    CHECK(fd >= 0);
    CHECK_EQ_INT(write(fd, text, strlen(text)), (long long)strlen(text));
    close(fd);
}

/* ---- value format ---- */

static void test_value_round_trip(void)
{
    static const wh_verdict_t vs[] = {WH_V_PRESERVED, WH_V_TEST_PASSED, WH_V_DIFFERENT_FAILURE,
                                      WH_V_BUILD_FAILED, WH_V_TEST_MISSING};
    static const char *const nodes[] = {"alice", "local", "n-1.farm_b@x+y"};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        for (size_t j = 0; j < 3; j++) {
            char buf[WH_CACHE_VALUE_MAX + 1], node[WH_CACHE_NODE_MAX + 1];
            int n = wh_cache_value_format(vs[i], nodes[j], buf, sizeof buf);
            char *want = wh_strdup_printf("%s node=%s", wh_verdict_name(vs[i]), nodes[j]);
            CHECK_EQ_STR(buf, want);
            CHECK_EQ_INT(n, strlen(want));
            free(want);
            wh_verdict_t v = WH_V_NONE;
            CHECK_EQ_INT(wh_cache_value_parse(buf, (size_t)n, &v, node), 0);
            CHECK_EQ_INT(v, vs[i]);
            CHECK_EQ_STR(node, nodes[j]);
        }
    char buf[WH_CACHE_VALUE_MAX + 1], node[WH_CACHE_NODE_MAX + 1];
    wh_verdict_t v;
    /* NULL and "" are local; characters outside the set become '_'. */
    wh_cache_value_format(WH_V_PRESERVED, NULL, buf, sizeof buf);
    CHECK_EQ_STR(buf, "Preserved node=local");
    wh_cache_value_format(WH_V_PRESERVED, "a b/c=d", buf, sizeof buf);
    CHECK_EQ_STR(buf, "Preserved node=a_b_c_d");
    /* A value of an older whittle: the verdict, no node. */
    CHECK_EQ_INT(wh_cache_value_parse("TestPassed", 10, &v, node), 0);
    CHECK_EQ_INT(v, WH_V_TEST_PASSED);
    CHECK_EQ_STR(node, "");
    /* Tokens other than node= are ignored; n bounds the parse. */
    CHECK_EQ_INT(wh_cache_value_parse("BuildFailed gen=4 node=bob", 26, &v, node), 0);
    CHECK_EQ_INT(v, WH_V_BUILD_FAILED);
    CHECK_EQ_STR(node, "bob");
    CHECK_EQ_INT(wh_cache_value_parse("Preserved node=bobXYZ", 18, &v, node), 0);
    CHECK_EQ_STR(node, "bob");
    /* Never a verdict that is not stored. */
    CHECK_EQ_INT(wh_cache_value_parse("InfraError node=x", 17, &v, node), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_value_parse("None", 4, &v, node), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_value_parse("", 0, &v, node), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_value_parse("Preserve", 8, &v, node), WH_EINVAL);
    CHECK_EQ_INT(v, WH_V_NONE);
    CHECK_EQ_INT(wh_cache_node_ok("alice"), 1);
    CHECK_EQ_INT(wh_cache_node_ok(""), 0);
    CHECK_EQ_INT(wh_cache_node_ok("a b"), 0);
    CHECK_EQ_INT(wh_cache_node_ok("x=y"), 0);
}

/* ---- forget, embedded ---- */

/* Puts key i with the node of i % 3: alice, bob, local (NULL). */
static const char *s_node_for(int i)
{
    static const char *const n[] = {"alice", "bob", NULL};
    return n[i % 3];
}

static void test_forget_embedded(void)
{
    char *dir = wh_path_join(s_tmp, "emb"), *spec = wh_strdup_printf("dir:%s", dir);
    char *log = wh_path_join(dir, "verdicts.log");
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(spec, &err), *other = wh_cache_open(spec, &err);
    CHECK(c && other);
    if (!c || !other)
        goto out;
    enum { N = 30 };
    char k[N][65];
    for (int i = 0; i < N; i++) {
        s_key(i, k[i]);
        CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[i], WH_V_PRESERVED, s_node_for(i)),
                     0);
    }
    /* A line of an older whittle (no node) and a prediction: neither is bob's. */
    char kold[65], kp[65];
    s_key(100, kold);
    s_key(101, kp);
    char *line = wh_strdup_printf("%s TestPassed\n", kold);
    s_append(log, line);
    free(line);
    CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_PREDICTED, kp, WH_V_BUILD_FAILED, "bob"), 0);
    CHECK_EQ_INT(s_get1(other, k[1]), WH_V_PRESERVED); /* other has read them */

    wh_cache_forgot_t f;
    CHECK_EQ_INT(wh_cache_forget_node(c, "bob", &f), 0);
    CHECK_EQ_INT(f.embedded, N / 3);
    CHECK_EQ_INT(f.redis, 0);
    CHECK_EQ_INT(f.generation, 1);
    for (int i = 0; i < N; i++) {
        wh_verdict_t want = i % 3 == 1 ? WH_V_NONE : WH_V_PRESERVED;
        CHECK_EQ_INT(s_get1(c, k[i]), want);
        CHECK_EQ_INT(s_get1(other, k[i]), want); /* another process sees the drops */
    }
    CHECK_EQ_INT(s_get1(c, kold), WH_V_TEST_PASSED);
    const char *pk[1] = {kp};
    wh_verdict_t pv;
    CHECK_EQ_INT(wh_cache_mget_ns(c, WH_CACHE_PREDICTED, pk, 1, &pv), 0);
    CHECK_EQ_INT(pv, WH_V_BUILD_FAILED);
    /* Forgetting again finds nothing; the generation still moves. */
    CHECK_EQ_INT(wh_cache_forget_node(other, "bob", &f), 0);
    CHECK_EQ_INT(f.embedded, 0);
    CHECK_EQ_INT(f.generation, 2);
    CHECK_EQ_INT(wh_cache_forget_node(c, "no body", &f), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_forget_node(c, "", &f), WH_EINVAL);
    wh_cache_close(&c);
    wh_cache_close(&other);

    /* The log says it all: a node on every verdict line, one Dropped line
     * per forgotten verdict, the generation lines. */
    char *text = s_read(log);
    CHECK_EQ_INT(s_count(text, " Preserved node=alice\n"), N / 3);
    CHECK_EQ_INT(s_count(text, " Preserved node=bob\n"), N / 3);
    CHECK_EQ_INT(s_count(text, " Preserved node=local\n"), N / 3);
    CHECK_EQ_INT(s_count(text, " Dropped\n"), N / 3);
    CHECK(text && strstr(text, "\n@generation 1\n@generation 2\n"));
    free(text);
    /* Reopen: the same answers, the generation where it was. */
    c = wh_cache_open(spec, &err);
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(s_get1(c, k[i]), i % 3 == 1 ? WH_V_NONE : WH_V_PRESERVED);
    CHECK_EQ_INT(wh_cache_forget_node(c, "alice", &f), 0);
    CHECK_EQ_INT(f.embedded, N / 3);
    CHECK_EQ_INT(f.generation, 3);
    /* bob judges one again: it is a verdict like any other. */
    CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[1], WH_V_TEST_PASSED, "bob"), 0);
    wh_cache_close(&c);
    c = wh_cache_open(spec, &err);
    CHECK_EQ_INT(s_get1(c, k[1]), WH_V_TEST_PASSED);
    CHECK_EQ_INT(s_get1(c, k[0]), WH_V_NONE);
    CHECK_EQ_INT(s_get1(c, k[2]), WH_V_PRESERVED);
    wh_cache_close(&c);
out:
    free(log);
    free(spec);
    free(dir);
}

/* ---- forget, Redis ---- */

/* A GET's value is compared without its MAC (which must be there). */
static void s_raw_eq(int port, const char *cmd, const char *want)
{
    char reply[256];
    if (!strncmp(cmd, "GET whittle:v1:verdict:", 23))
        wh_redis_raw_value(port, cmd, reply, sizeof reply);
    else
        wh_redis_raw(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, want);
}

static void test_forget_redis(void)
{
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed */
    if (pid <= 0)
        return;
    char url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    char *dira = wh_path_join(s_tmp, "redis-a"), *dirb = wh_path_join(s_tmp, "redis-b");
    char *err = NULL;
    /* a: a coordinator whose fallback keeps every verdict it stored; b:
     * the operator's `whittle cache forget`, with a fallback of its own. */
    setenv("WHITTLE_CACHE_DIR", dira, 1);
    wh_cache_t *a = wh_cache_open(url, &err);
    setenv("WHITTLE_CACHE_DIR", dirb, 1);
    wh_cache_t *b = wh_cache_open(url, &err);
    CHECK(a && b);
    if (!a || !b)
        goto out;
    enum { N = 1200 }; /* more than one SCAN page */
    static char k[N][65];
    for (int i = 0; i < N; i++) {
        s_key(i, k[i]);
        CHECK_EQ_INT(wh_cache_put_node(a, WH_CACHE_VERDICTS, k[i], WH_V_PRESERVED, s_node_for(i)),
                     0);
    }
    char cmd[160];
    snprintf(cmd, sizeof cmd, "GET whittle:v1:verdict:%s", k[1]);
    s_raw_eq(port, cmd, "$18\r\nPreserved node=bob\r\n");
    s_raw_eq(port, "GET whittle:v1:generation", "$-1\r\n");
    /* A value without a MAC (an older whittle's, or forged) is not
     * believed: a miss, and not bob's to forget. */
    char kold[65];
    s_key(5000, kold);
    snprintf(cmd, sizeof cmd, "SET whittle:v1:verdict:%s TestPassed", kold);
    s_raw_eq(port, cmd, "+OK\r\n");

    wh_cache_forgot_t f;
    CHECK_EQ_INT(wh_cache_forget_node(b, "bob", &f), 0);
    CHECK_EQ_INT(f.redis, N / 3);
    CHECK_EQ_INT(f.embedded, 0); /* b's fallback never held them */
    CHECK_EQ_INT(f.generation, 1);
    s_raw_eq(port, "GET whittle:v1:generation", "$1\r\n1\r\n");
    s_raw_eq(port, "DBSIZE", ":802\r\n"); /* 800 + old + generation */

    /* a's fallback still holds bob's verdicts (stored under generation 0):
     * they never answer a Redis miss, and never go back into Redis. */
    static const char *ks[N];
    wh_verdict_t out[N];
    for (int i = 0; i < N; i++)
        ks[i] = k[i];
    CHECK_EQ_INT(wh_cache_mget(a, ks, N, out), 0);
    int hits = 0, bob_hits = 0;
    for (int i = 0; i < N; i++) {
        hits += out[i] == WH_V_PRESERVED;
        bob_hits += i % 3 == 1 && out[i] != WH_V_NONE;
    }
    CHECK_EQ_INT(hits, N - N / 3);
    CHECK_EQ_INT(bob_hits, 0);
    CHECK_EQ_INT(s_get1(a, kold), WH_V_NONE);
    snprintf(cmd, sizeof cmd, "EXISTS whittle:v1:verdict:%s", k[1]);
    s_raw_eq(port, cmd, ":0\r\n");

    /* Redis comes back empty (restart, FLUSHALL): the generation goes
     * back to 0 there, but a remembers 1 and writes it back, so bob's old
     * verdicts still do not answer from its fallback; alice's (stored
     * under 0 too) do not either: a miss costs time, never an answer. */
    s_raw_eq(port, "FLUSHALL", "+OK\r\n");
    CHECK_EQ_INT(wh_cache_mget(a, ks, N, out), 0);
    hits = 0;
    for (int i = 0; i < N; i++)
        hits += out[i] != WH_V_NONE;
    CHECK_EQ_INT(hits, 0);
    s_raw_eq(port, "GET whittle:v1:generation", "$1\r\n1\r\n");
    /* What a stores now (generation 1) answers from its fallback after the
     * next flush. */
    CHECK_EQ_INT(wh_cache_put_node(a, WH_CACHE_VERDICTS, k[0], WH_V_TEST_MISSING, "alice"), 0);
    s_raw_eq(port, "FLUSHALL", "+OK\r\n");
    CHECK_EQ_INT(s_get1(a, k[0]), WH_V_TEST_MISSING);
    CHECK_EQ_INT(s_get1(a, k[3]), WH_V_NONE);
    wh_cache_close(&a);

    /* A restarted coordinator reads its fallback's generations at open: an
     * empty Redis gets generation 1 back from it. */
    s_raw_eq(port, "FLUSHALL", "+OK\r\n");
    setenv("WHITTLE_CACHE_DIR", dira, 1);
    a = wh_cache_open(url, &err);
    s_raw_eq(port, "GET whittle:v1:generation", "$1\r\n1\r\n");
    CHECK_EQ_INT(s_get1(a, k[1]), WH_V_NONE);
    CHECK_EQ_INT(s_get1(a, k[0]), WH_V_TEST_MISSING);

    /* Redis down: forget says so, and still forgets in the fallback. */
    wh_redis_kill(pid);
    pid = -1;
    CHECK_EQ_INT(wh_cache_forget_node(a, "alice", &f), WH_EUNAVAIL);
    CHECK_EQ_INT(f.redis, 0);
    CHECK_EQ_INT(f.embedded, N / 3); /* alice's, k[0] stored again included */
    CHECK_EQ_INT(s_get1(a, k[0]), WH_V_NONE);
out:
    wh_cache_close(&a);
    wh_cache_close(&b);
    wh_redis_kill(pid);
    unsetenv("WHITTLE_CACHE_DIR");
    free(dira);
    free(dirb);
}

/* Who gave a cached verdict, as the verify step and the claims check ask
 * (wh_cache_get_node): the embedded store, a second handle reading the
 * log, Redis, a forged Redis value (not believed: the fallback answers),
 * Redis down. */
static void s_node_eq(wh_cache_t *c, const char *key, wh_verdict_t want_v, const char *want)
{
    wh_verdict_t v = (wh_verdict_t)99;
    char node[WH_CACHE_NODE_MAX + 1] = "x";
    CHECK_EQ_INT(wh_cache_get_node(c, key, &v, node), 0);
    CHECK_EQ_INT(v, want_v);
    CHECK_EQ_STR(node, want);
}

static void test_get_node(void)
{
    char k[4][65], *err = NULL;
    for (int i = 0; i < 4; i++)
        s_key(7000 + i, k[i]);
    char spec[600];
    snprintf(spec, sizeof spec, "dir:%s/getnode", s_tmp);
    wh_cache_t *c = wh_cache_open(spec, &err), *other = wh_cache_open(spec, &err);
    CHECK(c && other);
    if (!c || !other)
        goto redis;
    CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[0], WH_V_BUILD_FAILED, "liar"), 0);
    CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[1], WH_V_PRESERVED, NULL), 0);
    s_node_eq(c, k[0], WH_V_BUILD_FAILED, "liar");
    s_node_eq(c, k[1], WH_V_PRESERVED, WH_CACHE_NODE_LOCAL);
    s_node_eq(c, k[2], WH_V_NONE, "");
    s_node_eq(other, k[0], WH_V_BUILD_FAILED, "liar"); /* read from the log */
    CHECK_EQ_INT(wh_cache_drop(c, k[0]), 0);
    s_node_eq(c, k[0], WH_V_NONE, "");
    wh_verdict_t v;
    char node[WH_CACHE_NODE_MAX + 1];
    CHECK_EQ_INT(wh_cache_get_node(c, "not-a-key", &v, node), WH_EINVAL);
redis:
    wh_cache_close(&c);
    wh_cache_close(&other);

    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed */
    if (pid <= 0)
        return;
    char url[64], cmd[200];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    char *dir = wh_path_join(s_tmp, "redis-getnode");
    setenv("WHITTLE_CACHE_DIR", dir, 1);
    c = wh_cache_open(url, &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(wh_cache_put_node(c, WH_CACHE_VERDICTS, k[0], WH_V_TEST_PASSED, "bob"), 0);
        s_node_eq(c, k[0], WH_V_TEST_PASSED, "bob");
        /* Forged in Redis (no MAC): not believed; the fallback still
         * holds what this handle stored. */
        snprintf(cmd, sizeof cmd, "SET whittle:v1:verdict:%s \"Preserved node=mallory\"", k[0]);
        s_raw_eq(port, cmd, "+OK\r\n");
        s_node_eq(c, k[0], WH_V_TEST_PASSED, "bob");
        snprintf(cmd, sizeof cmd, "SET whittle:v1:verdict:%s \"Preserved node=mallory\"", k[3]);
        s_raw_eq(port, cmd, "+OK\r\n");
        s_node_eq(c, k[3], WH_V_NONE, "");
        wh_redis_kill(pid);
        pid = -1;
        s_node_eq(c, k[0], WH_V_TEST_PASSED, "bob"); /* Redis down: the fallback */
    }
    wh_cache_close(&c);
    wh_redis_kill(pid);
    unsetenv("WHITTLE_CACHE_DIR");
    free(dir);
}

int main(void)
{
    snprintf(s_tmp, sizeof s_tmp, "/tmp/whittle-test-cache-node-XXXXXX");
    if (!mkdtemp(s_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_value_round_trip);
    RUN_TEST(test_forget_embedded);
    RUN_TEST(test_forget_redis);
    RUN_TEST(test_get_node);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
