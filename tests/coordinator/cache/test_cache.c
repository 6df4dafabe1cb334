/*
 * test_cache — the verdict cache: memory and embedded back ends (reopen,
 * torn lines, several writers), the pinned cache key, and the Redis back
 * end against a real redis-server that this test starts, kills and
 * restarts to exercise the embedded fallback and the reconnect.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "wh_redis.h"
#include "wh_test.h"

static char s_tmp[256];

static void s_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* A distinct, valid key per (i, salt). */
static void s_key(int i, const char *salt, char out[65])
{
    char content[64];
    snprintf(content, sizeof content, "candidate %d", i);
    wh_cache_key(salt, "tests/t.c", content, strlen(content), out);
}

static wh_verdict_t s_verdict_for(int i)
{
    static const wh_verdict_t vs[] = {WH_V_PRESERVED, WH_V_TEST_PASSED, WH_V_DIFFERENT_FAILURE,
                                      WH_V_BUILD_FAILED, WH_V_TEST_MISSING};
    return vs[i % 5];
}

static wh_verdict_t s_get1(wh_cache_t *c, const char *key)
{
    wh_verdict_t v = (wh_verdict_t)99;
    const char *keys[1] = {key};
    int rc = wh_cache_mget(c, keys, 1, &v);
    CHECK_EQ_INT(rc, 0);
    return v;
}

static char *s_path(const char *name)
{
    return wh_path_join(s_tmp, name);
}

static char *s_read(const char *path)
{
    char *s = NULL;
    size_t n;
    if (wh_read_file(path, 64u << 20, &s, &n))
        return NULL;
    return s;
}

static void s_append(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    CHECK(fd >= 0);
    CHECK_EQ_INT(write(fd, text, strlen(text)), (long long)strlen(text));
    close(fd);
}

/* ---- key ---- */

static void test_key(void)
{
    const char *content = "int main(void) { return 1; }\n";
    char k[65], k2[65];
    wh_cache_key("job-1234", "tests/test_x.c", content, strlen(content), k);
    /* Pinned: computed once (and cross-checked with Python's hashlib over
     * "18:whittle-verdict-v1" "8:job-1234" "14:tests/test_x.c" "29:<content>").
     * If this changes, every stored verdict is orphaned: bump the key's
     * "v1" tag and the Redis prefix instead. */
    CHECK_EQ_STR(k, "54b3a741a7ba2a543b2aa79846d6c438c23ed0ec0416ed3ef7a44f9187bf030e");
    wh_cache_key("job-1234", "tests/test_x.c", content, strlen(content), k2);
    CHECK_EQ_STR(k, k2);

    wh_cache_key("job-1235", "tests/test_x.c", content, strlen(content), k2);
    CHECK(strcmp(k, k2) != 0);
    wh_cache_key("job-1234", "tests/test_y.c", content, strlen(content), k2);
    CHECK(strcmp(k, k2) != 0);
    wh_cache_key("job-1234", "tests/test_x.c", content, strlen(content) - 1, k2);
    CHECK(strcmp(k, k2) != 0);
    /* Field boundaries are unambiguous. */
    char a[65], b[65];
    wh_cache_key("ab", "c", "d", 1, a);
    wh_cache_key("a", "bc", "d", 1, b);
    CHECK(strcmp(a, b) != 0);
    wh_cache_key("a", "b", "cd", 2, a);
    wh_cache_key("a", "bc", "d", 1, b);
    CHECK(strcmp(a, b) != 0);
    /* Empty content: NULL and "" agree. */
    wh_cache_key("j", "t", NULL, 0, a);
    wh_cache_key("j", "t", "", 0, b);
    CHECK_EQ_STR(a, b);
    CHECK_EQ_INT(strlen(a), 64);
}

/* ---- memory ---- */

static void s_common_checks(wh_cache_t *c)
{
    char k1[65], k2[65], k3[65];
    s_key(1, "common", k1);
    s_key(2, "common", k2);
    s_key(3, "common", k3);
    CHECK_EQ_INT(s_get1(c, k1), WH_V_NONE);
    CHECK_EQ_INT(wh_cache_put(c, k1, WH_V_PRESERVED), 0);
    CHECK_EQ_INT(wh_cache_put(c, k2, WH_V_BUILD_FAILED), 0);
    CHECK_EQ_INT(wh_cache_put(c, k3, WH_V_INFRA_ERROR), 0); /* ignored */
    CHECK_EQ_INT(wh_cache_put(c, k3, WH_V_NONE), 0);        /* ignored */
    const char *keys[3] = {k1, k2, k3};
    wh_verdict_t out[3];
    CHECK_EQ_INT(wh_cache_mget(c, keys, 3, out), 0);
    CHECK_EQ_INT(out[0], WH_V_PRESERVED);
    CHECK_EQ_INT(out[1], WH_V_BUILD_FAILED);
    CHECK_EQ_INT(out[2], WH_V_NONE);
    /* Overwrite. */
    CHECK_EQ_INT(wh_cache_put(c, k2, WH_V_TEST_PASSED), 0);
    CHECK_EQ_INT(s_get1(c, k2), WH_V_TEST_PASSED);
    /* Upper-case hex names the same key. */
    char up[65];
    for (int i = 0; i < 65; i++)
        up[i] = (char)(k1[i] >= 'a' && k1[i] <= 'f' ? k1[i] - 32 : k1[i]);
    CHECK_EQ_INT(s_get1(c, up), WH_V_PRESERVED);
    /* Bad keys. */
    CHECK_EQ_INT(wh_cache_put(c, "abc", WH_V_PRESERVED), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_put(c, NULL, WH_V_PRESERVED), WH_EINVAL);
    char bad[65];
    memcpy(bad, k1, 65);
    bad[10] = 'g';
    CHECK_EQ_INT(wh_cache_put(c, bad, WH_V_PRESERVED), WH_EINVAL);
    const char *badkeys[2] = {k1, bad};
    CHECK_EQ_INT(wh_cache_mget(c, badkeys, 2, out), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_mget(c, keys, 0, out), 0);
    /* Many keys: the table grows. */
    enum { N = 5000 };
    static char many[N][65];
    static const char *mk[N];
    static wh_verdict_t mo[N];
    for (int i = 0; i < N; i++) {
        s_key(i, "many", many[i]);
        mk[i] = many[i];
        if (i % 3)
            CHECK_EQ_INT(wh_cache_put(c, many[i], s_verdict_for(i)), 0);
    }
    CHECK_EQ_INT(wh_cache_mget(c, mk, N, mo), 0);
    int bad_answers = 0;
    for (int i = 0; i < N; i++)
        bad_answers += mo[i] != (i % 3 ? s_verdict_for(i) : WH_V_NONE);
    CHECK_EQ_INT(bad_answers, 0);
}

static void test_memory(void)
{
    char *err = NULL;
    wh_cache_t *c = wh_cache_open("memory:", &err);
    CHECK(c != NULL);
    CHECK_EQ_STR(wh_cache_describe(c), "memory");
    s_common_checks(c);
    wh_cache_close(&c);
    CHECK(c == NULL);
    wh_cache_close(&c); /* NULL is fine */
}

static void test_bad_specs(void)
{
    char *err = NULL;
    CHECK(wh_cache_open("bogus", &err) == NULL);
    CHECK(err && strstr(err, "bogus"));
    free(err);
    const char *bad[] = {"redis://", "redis://:6379", "redis://h:0", "redis://h:99999",
                         "redis://h:12x", "redis://h:1/x", "redis://u:p@:1", "redis://u:p@h:0",
                         "redis://[::1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err = NULL;
        CHECK(wh_cache_open(bad[i], &err) == NULL);
        CHECK(err != NULL);
        free(err);
    }
    CHECK(wh_cache_open("dir:/proc/no/such/place", &err) == NULL);
    CHECK(err && strstr(err, "/proc/no/such/place"));
    free(err);
}

/* ---- embedded ---- */

static void test_embedded_reopen(void)
{
    char *dir = s_path("emb/nested"); /* created when missing */
    char *spec = wh_strdup_printf("dir:%s", dir);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(spec, &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "open: %s\n", err);
        free(err);
        goto out;
    }
    CHECK_EQ_STR(wh_cache_describe(c), "embedded");
    s_common_checks(c);
    wh_cache_close(&c);

    /* Reopen: everything is still there, including the overwrite. */
    c = wh_cache_open(spec, &err);
    CHECK(c != NULL);
    char k1[65], k2[65], k3[65];
    s_key(1, "common", k1);
    s_key(2, "common", k2);
    s_key(3, "common", k3);
    CHECK_EQ_INT(s_get1(c, k1), WH_V_PRESERVED);
    CHECK_EQ_INT(s_get1(c, k2), WH_V_TEST_PASSED);
    CHECK_EQ_INT(s_get1(c, k3), WH_V_NONE);
    char many[65];
    s_key(4999, "many", many);
    CHECK_EQ_INT(s_get1(c, many), s_verdict_for(4999));
    wh_cache_close(&c);

    /* The log: InfraError never written; every line well-formed; putting
     * a verdict that is already known writes nothing. */
    char *log = wh_path_join(dir, "verdicts.log");
    char *text = s_read(log);
    CHECK(text != NULL);
    CHECK(text && strstr(text, "InfraError") == NULL && strstr(text, "None") == NULL);
    int lines = 0, badlines = 0;
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        if (!nl) {
            badlines++;
            break;
        }
        if (nl - p < 66 || p[64] != ' ')
            badlines++;
        lines++;
        p = nl + 1;
    }
    CHECK_EQ_INT(badlines, 0);
    CHECK_EQ_INT(lines, 3 + 3333); /* k1, k2, k2 again, and 2/3 of 5000 */
    free(text);
    c = wh_cache_open(spec, &err);
    CHECK_EQ_INT(wh_cache_put(c, k1, WH_V_PRESERVED), 0);
    wh_cache_close(&c);
    struct stat st1, st2;
    CHECK(stat(log, &st1) == 0);
    text = s_read(log);
    CHECK(text && (size_t)st1.st_size == strlen(text));
    free(text);

    /* A torn last line (a writer died mid-line) and some garbage: both
     * ignored, and a line appended right after the torn one still counts. */
    char k5[65], k6[65];
    s_key(5, "torn", k5);
    s_key(6, "torn", k6);
    char torn[128];
    snprintf(torn, sizeof torn, "not a line\n\n%.40s", k5);
    s_append(log, torn);
    c = wh_cache_open(spec, &err);
    CHECK(c != NULL);
    CHECK_EQ_INT(s_get1(c, k1), WH_V_PRESERVED);
    CHECK_EQ_INT(s_get1(c, k5), WH_V_NONE);
    CHECK_EQ_INT(wh_cache_put(c, k6, WH_V_DIFFERENT_FAILURE), 0);
    wh_cache_close(&c);
    /* A torn line that ends in a plausible prefix of a verdict name. */
    snprintf(torn, sizeof torn, "%s Preser", k5);
    s_append(log, torn);
    c = wh_cache_open(spec, &err);
    CHECK_EQ_INT(s_get1(c, k6), WH_V_DIFFERENT_FAILURE);
    CHECK_EQ_INT(s_get1(c, k5), WH_V_NONE);
    CHECK_EQ_INT(s_get1(c, k2), WH_V_TEST_PASSED);
    wh_cache_close(&c);
    (void)st2;
    free(log);
out:
    free(spec);
    free(dir);
}

/* Predictions live in a key space of their own: a prediction is never
 * answered as a real verdict, nor the reverse, and it persists in
 * DIR/predicted.log. */
static void test_predicted_namespace(void)
{
    char *dir = s_path("emb-predicted");
    char *spec = wh_strdup_printf("dir:%s", dir);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(spec, &err);
    CHECK(c != NULL);
    if (!c) {
        free(err);
        goto out;
    }
    char kp[65], kv[65];
    s_key(1, "predicted", kp);
    s_key(2, "predicted", kv);
    const char *keys[2] = {kp, kv};
    CHECK_EQ_INT(wh_cache_put_ns(c, WH_CACHE_PREDICTED, kp, WH_V_BUILD_FAILED), 0);
    CHECK_EQ_INT(wh_cache_put(c, kv, WH_V_BUILD_FAILED), 0);
    wh_cache_close(&c);
    c = wh_cache_open(spec, &err);
    CHECK(c != NULL);
    wh_verdict_t got[2];
    CHECK_EQ_INT(wh_cache_mget_ns(c, WH_CACHE_PREDICTED, keys, 2, got), 0);
    CHECK_EQ_INT(got[0], WH_V_BUILD_FAILED);
    CHECK_EQ_INT(got[1], WH_V_NONE);
    CHECK_EQ_INT(wh_cache_mget(c, keys, 2, got), 0);
    CHECK_EQ_INT(got[0], WH_V_NONE);
    CHECK_EQ_INT(got[1], WH_V_BUILD_FAILED);
    CHECK_EQ_INT(wh_cache_put_ns(c, (wh_cache_ns_t)7, kp, WH_V_BUILD_FAILED), WH_EINVAL);
    wh_cache_close(&c);
    char *log = wh_path_join(dir, "predicted.log");
    char *text = s_read(log);
    char *want = wh_strdup_printf("%s BuildFailed node=local\n", kp);
    CHECK_EQ_STR(text, want);
    free(want);
    free(text);
    free(log);
out:
    free(spec);
    free(dir);
}

static void test_embedded_two_handles(void)
{
    char *dir = s_path("emb2");
    char *spec = wh_strdup_printf("dir:%s", dir);
    char *err = NULL;
    wh_cache_t *a = wh_cache_open(spec, &err);
    wh_cache_t *b = wh_cache_open(spec, &err);
    CHECK(a && b);
    if (!a || !b)
        goto out;
    char k[4][65];
    for (int i = 0; i < 4; i++)
        s_key(i, "two", k[i]);
    CHECK_EQ_INT(wh_cache_put(a, k[0], WH_V_PRESERVED), 0);
    CHECK_EQ_INT(wh_cache_put(b, k[1], WH_V_BUILD_FAILED), 0);
    CHECK_EQ_INT(wh_cache_put(a, k[2], WH_V_TEST_PASSED), 0);
    /* Each sees the other's verdicts (the log's tail is re-read on a miss). */
    CHECK_EQ_INT(s_get1(b, k[0]), WH_V_PRESERVED);
    CHECK_EQ_INT(s_get1(a, k[1]), WH_V_BUILD_FAILED);
    CHECK_EQ_INT(s_get1(b, k[2]), WH_V_TEST_PASSED);
    CHECK_EQ_INT(s_get1(a, k[3]), WH_V_NONE);
    /* Conflicting verdicts (a flaky test): the last line wins on reopen. */
    CHECK_EQ_INT(wh_cache_put(a, k[3], WH_V_PRESERVED), 0);
    CHECK_EQ_INT(wh_cache_put(b, k[3], WH_V_TEST_MISSING), 0);
    wh_cache_close(&a);
    wh_cache_close(&b);
    wh_cache_t *c = wh_cache_open(spec, &err);
    CHECK_EQ_INT(s_get1(c, k[0]), WH_V_PRESERVED);
    CHECK_EQ_INT(s_get1(c, k[1]), WH_V_BUILD_FAILED);
    CHECK_EQ_INT(s_get1(c, k[2]), WH_V_TEST_PASSED);
    CHECK_EQ_INT(s_get1(c, k[3]), WH_V_TEST_MISSING);
    /* A verdict found wrong is dropped: a "Dropped" line, seen on reopen;
     * dropping an unknown key is a no-op; a later put stores again. */
    CHECK_EQ_INT(wh_cache_drop(c, k[0]), 0);
    CHECK_EQ_INT(wh_cache_drop(c, k[0]), 0);
    CHECK_EQ_INT(s_get1(c, k[0]), WH_V_NONE);
    char kx[65];
    s_key(99, "two", kx);
    CHECK_EQ_INT(wh_cache_drop(c, kx), 0);
    CHECK_EQ_INT(wh_cache_drop(c, "not-a-key"), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_drop(c, k[3]), 0);
    CHECK_EQ_INT(wh_cache_put(c, k[3], WH_V_BUILD_FAILED), 0);
    wh_cache_close(&c);
    c = wh_cache_open(spec, &err);
    CHECK_EQ_INT(s_get1(c, k[0]), WH_V_NONE);
    CHECK_EQ_INT(s_get1(c, k[1]), WH_V_BUILD_FAILED);
    CHECK_EQ_INT(s_get1(c, k[3]), WH_V_BUILD_FAILED);
    char *log = wh_path_join(dir, "verdicts.log");
    char *text = s_read(log);
    char want[80];
    snprintf(want, sizeof want, "%s Dropped\n", k[0]);
    CHECK(text && strstr(text, want));
    free(text);
    free(log);
    wh_cache_close(&c);

    /* Several processes appending at once interleave whole lines. */
    enum { PROCS = 4, PER = 400 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            wh_cache_t *h = wh_cache_open(spec, NULL);
            if (!h)
                _exit(1);
            char salt[16];
            snprintf(salt, sizeof salt, "proc%d", p);
            for (int i = 0; i < PER; i++) {
                char key[65];
                s_key(i, salt, key);
                if (wh_cache_put(h, key, s_verdict_for(i + p)))
                    _exit(2);
            }
            wh_cache_close(&h);
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int st = -1;
        waitpid(pids[p], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    c = wh_cache_open(spec, &err);
    int wrong = 0;
    for (int p = 0; p < PROCS; p++) {
        char salt[16];
        snprintf(salt, sizeof salt, "proc%d", p);
        for (int i = 0; i < PER; i++) {
            char key[65];
            s_key(i, salt, key);
            wrong += s_get1(c, key) != s_verdict_for(i + p);
        }
    }
    CHECK_EQ_INT(wrong, 0);
    wh_cache_close(&c);
out:
    wh_cache_close(&a);
    wh_cache_close(&b);
    free(spec);
    free(dir);
}

static void test_default_dir(void)
{
    char *dir = s_path("default");
    setenv("WHITTLE_CACHE_DIR", dir, 1);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(NULL, &err);
    CHECK(c != NULL);
    CHECK_EQ_STR(wh_cache_describe(c), "embedded");
    char k[65];
    s_key(1, "default", k);
    CHECK_EQ_INT(wh_cache_put(c, k, WH_V_PRESERVED), 0);
    wh_cache_close(&c);
    char *log = wh_path_join(dir, "verdicts.log");
    CHECK(wh_is_file(log));
    free(log);
    c = wh_cache_open("", &err);
    CHECK_EQ_INT(s_get1(c, k), WH_V_PRESERVED);
    wh_cache_close(&c);
    unsetenv("WHITTLE_CACHE_DIR");
    free(dir);
}

/* ---- blobs ---- */

static void s_blob_checks(wh_cache_t *c)
{
    char *v = (char *)"x";
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:abc", &v), WH_ENOTFOUND);
    CHECK(v == NULL);
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:abc", "{\"test\": \"t 1\"}"), 0);
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:abc", &v), 0);
    CHECK_EQ_STR(v, "{\"test\": \"t 1\"}");
    free(v);
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:abc", "second"), 0);
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:abc", &v), 0);
    CHECK_EQ_STR(v, "second");
    free(v);
    CHECK_EQ_INT(wh_cache_put_blob(c, "fp:empty", ""), 0);
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:empty", &v), 0);
    CHECK_EQ_STR(v, "");
    free(v);
    /* Bad names and values. */
    CHECK_EQ_INT(wh_cache_put_blob(c, "has space", "v"), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_put_blob(c, "", "v"), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_put_blob(c, "k", "two\nlines"), WH_EINVAL);
    CHECK_EQ_INT(wh_cache_get_blob(c, "bad\nkey", &v), WH_EINVAL);
    char *big = malloc((64u << 10) + 2);
    memset(big, 'a', (64u << 10) + 1);
    big[(64u << 10) + 1] = 0;
    CHECK_EQ_INT(wh_cache_put_blob(c, "big", big), WH_ETOOBIG);
    big[64u << 10] = 0;
    CHECK_EQ_INT(wh_cache_put_blob(c, "big", big), 0);
    CHECK_EQ_INT(wh_cache_get_blob(c, "big", &v), 0);
    CHECK(v && strcmp(v, big) == 0);
    free(v);
    free(big);
}

static void test_blobs(void)
{
    wh_cache_t *c = wh_cache_open("memory:", NULL);
    s_blob_checks(c);
    wh_cache_close(&c);

    char *dir = s_path("blobs");
    char *spec = wh_strdup_printf("dir:%s", dir);
    c = wh_cache_open(spec, NULL);
    wh_cache_t *other = wh_cache_open(spec, NULL);
    CHECK(c && other);
    s_blob_checks(c);
    char *v = NULL;
    CHECK_EQ_INT(wh_cache_get_blob(other, "fp:abc", &v), 0); /* tail re-read */
    CHECK_EQ_STR(v, "second");
    free(v);
    wh_cache_close(&c);
    wh_cache_close(&other);
    /* A torn line, then reopen: the values survive, the torn one is gone. */
    char *log = wh_path_join(dir, "blobs.log");
    s_append(log, "fp:torn {\"par");
    c = wh_cache_open(spec, NULL);
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:abc", &v), 0);
    CHECK_EQ_STR(v, "second");
    free(v);
    CHECK_EQ_INT(wh_cache_get_blob(c, "fp:torn", &v), WH_ENOTFOUND);
    CHECK_EQ_INT(wh_cache_get_blob(c, "big", &v), 0);
    CHECK(v && strlen(v) == (64u << 10));
    free(v);
    wh_cache_close(&c);
    free(log);
    free(spec);
    free(dir);
}

/* ---- redis ---- */

/* Redirects stderr into a file while a block runs. */
typedef struct {
    int saved;
    char *path;
} s_capture_t;

static void s_capture_begin(s_capture_t *c, const char *name)
{
    fflush(stderr);
    c->path = s_path(name);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    c->saved = dup(2);
    dup2(fd, 2);
    close(fd);
}

static char *s_capture_end(s_capture_t *c)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    char *text = s_read(c->path);
    fprintf(stderr, "%s", text ? text : "");
    free(c->path);
    return text;
}

static int s_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

enum { RN = 1000 };
static char s_rkeys[RN][65];
static const char *s_rk[RN];

static void test_redis(void)
{
    int port = wh_redis_free_port();
    CHECK(port > 0);
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed: this is a FAIL */
    if (pid <= 0)
        return;
    char url[64], url3[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    snprintf(url3, sizeof url3, "redis://127.0.0.1:%d/3", port);
    setenv("WHITTLE_REDIS_RETRY_MS", "1500", 1);

    /* Two handles with separate embedded fallbacks, so that any verdict
     * one sees from the other came through Redis. */
    char *dira = s_path("redis-emb-a"), *dirb = s_path("redis-emb-b"), *dirc = s_path("redis-emb-c");
    char *err = NULL;
    setenv("WHITTLE_CACHE_DIR", dira, 1);
    wh_cache_t *a = wh_cache_open(url, &err);
    setenv("WHITTLE_CACHE_DIR", dirb, 1);
    wh_cache_t *b = wh_cache_open(url, &err);
    setenv("WHITTLE_CACHE_DIR", dirc, 1);
    wh_cache_t *c3 = wh_cache_open(url3, &err);
    CHECK(a && b && c3);
    if (!a || !b || !c3)
        goto out;
    CHECK_EQ_STR(wh_cache_describe(a), "redis");
    CHECK_EQ_STR(wh_cache_describe(c3), "redis");

    /* Round trip and the key layout. */
    char k1[65], k2[65];
    s_key(1, "redis", k1);
    s_key(2, "redis", k2);
    CHECK_EQ_INT(s_get1(b, k1), WH_V_NONE);
    CHECK_EQ_INT(wh_cache_put(a, k1, WH_V_PRESERVED), 0);
    CHECK_EQ_INT(wh_cache_put(a, k2, WH_V_INFRA_ERROR), 0);
    CHECK_EQ_INT(s_get1(b, k1), WH_V_PRESERVED);
    CHECK_EQ_INT(s_get1(b, k2), WH_V_NONE);
    CHECK_EQ_INT(s_get1(c3, k1), WH_V_NONE); /* another db */
    char cmd[160], reply[256];
    snprintf(cmd, sizeof cmd, "GET whittle:v1:verdict:%s", k1);
    wh_redis_raw_value(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, "$20\r\nPreserved node=local\r\n");
    snprintf(cmd, sizeof cmd, "TTL whittle:v1:verdict:%s", k1);
    wh_redis_raw(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, ":-1\r\n"); /* no expiry */
    snprintf(cmd, sizeof cmd, "EXISTS whittle:v1:verdict:%s", k2);
    wh_redis_raw(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, ":0\r\n"); /* InfraError not stored */
    /* A dropped verdict is deleted from Redis and the embedded store. */
    char kdrop[65];
    s_key(3, "redis", kdrop);
    CHECK_EQ_INT(wh_cache_put(a, kdrop, WH_V_PRESERVED), 0);
    CHECK_EQ_INT(s_get1(b, kdrop), WH_V_PRESERVED);
    CHECK_EQ_INT(wh_cache_drop(a, kdrop), 0);
    CHECK_EQ_INT(s_get1(a, kdrop), WH_V_NONE);
    CHECK_EQ_INT(s_get1(b, kdrop), WH_V_NONE);
    snprintf(cmd, sizeof cmd, "EXISTS whittle:v1:verdict:%s", kdrop);
    wh_redis_raw(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, ":0\r\n");
    /* Blobs go through Redis too. */
    char *bv = NULL;
    CHECK_EQ_INT(wh_cache_put_blob(a, "fp:job1", "{\"test\": \"x\"}"), 0);
    CHECK_EQ_INT(wh_cache_get_blob(b, "fp:job1", &bv), 0);
    CHECK_EQ_STR(bv, "{\"test\": \"x\"}");
    free(bv);
    wh_redis_raw_value(port, "GET whittle:v1:blob:fp:job1", reply, sizeof reply);
    CHECK_EQ_STR(reply, "$13\r\n{\"test\": \"x\"}\r\n");
    CHECK_EQ_INT(wh_cache_get_blob(b, "fp:nope", &bv), WH_ENOTFOUND);
    /* Predictions: their own key space in Redis. */
    CHECK_EQ_INT(wh_cache_put_ns(a, WH_CACHE_PREDICTED, k2, WH_V_BUILD_FAILED), 0);
    wh_verdict_t pv = WH_V_NONE;
    const char *pk = k2;
    CHECK_EQ_INT(wh_cache_mget_ns(b, WH_CACHE_PREDICTED, &pk, 1, &pv), 0);
    CHECK_EQ_INT(pv, WH_V_BUILD_FAILED);
    CHECK_EQ_INT(s_get1(b, k2), WH_V_NONE);
    snprintf(cmd, sizeof cmd, "GET whittle:v1:predicted:%s", k2);
    wh_redis_raw_value(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, "$22\r\nBuildFailed node=local\r\n");

    /* A batch of 1000: a writes 2/3 of them, b reads all at once. */
    for (int i = 0; i < RN; i++) {
        s_key(i, "batch", s_rkeys[i]);
        s_rk[i] = s_rkeys[i];
        if (i % 3)
            CHECK_EQ_INT(wh_cache_put(a, s_rkeys[i], s_verdict_for(i)), 0);
    }
    static wh_verdict_t out[RN];
    CHECK_EQ_INT(wh_cache_mget(b, s_rk, RN, out), 0);
    int wrong = 0;
    for (int i = 0; i < RN; i++)
        wrong += out[i] != (i % 3 ? s_verdict_for(i) : WH_V_NONE);
    CHECK_EQ_INT(wrong, 0);
    /* b writes too; a sees it. */
    char kb[65];
    s_key(1, "from-b", kb);
    CHECK_EQ_INT(wh_cache_put(b, kb, WH_V_BUILD_FAILED), 0);
    CHECK_EQ_INT(s_get1(a, kb), WH_V_BUILD_FAILED);

    /* Kill Redis mid-use. a keeps working from its embedded store with the
     * same answers, warning once. */
    wh_redis_kill(pid);
    pid = -1;
    s_capture_t cap;
    s_capture_begin(&cap, "redis-warn.txt");
    char kd[65];
    s_key(1, "while-down", kd);
    CHECK_EQ_INT(wh_cache_put(a, kd, WH_V_TEST_MISSING), 0);
    CHECK_EQ_STR(wh_cache_describe(a), "redis(down, embedded)");
    CHECK_EQ_INT(s_get1(a, kd), WH_V_TEST_MISSING);
    CHECK_EQ_INT(s_get1(a, k1), WH_V_PRESERVED);
    memset(out, 0, sizeof out);
    CHECK_EQ_INT(wh_cache_mget(a, s_rk, RN, out), 0);
    wrong = 0;
    for (int i = 0; i < RN; i++)
        wrong += out[i] != (i % 3 ? s_verdict_for(i) : WH_V_NONE);
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(wh_cache_get_blob(a, "fp:job1", &bv), 0);
    CHECK_EQ_STR(bv, "{\"test\": \"x\"}");
    free(bv);
    CHECK_EQ_INT(s_get1(b, kb), WH_V_BUILD_FAILED); /* b's own put */
    CHECK_EQ_STR(wh_cache_describe(b), "redis(down, embedded)");
    for (int i = 0; i < 20; i++)
        CHECK_EQ_INT(s_get1(a, k1), WH_V_PRESERVED);
    char *warn = s_capture_end(&cap);
    char expect[160];
    snprintf(expect, sizeof expect, "redis at %s unavailable (", url);
    CHECK_EQ_INT(s_count(warn, expect), 2); /* once for a, once for b */
    CHECK_EQ_INT(s_count(warn, "; using the embedded cache"), 2);
    free(warn);
    uint64_t down_at = wh_now_ms();

    /* Restart Redis (empty) on the same port. Within the retry interval
     * the cache stays on the fallback; after it, it reconnects and writes
     * back what was stored while Redis was down. */
    pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        goto out;
    CHECK(wh_now_ms() - down_at < 1200);
    CHECK_EQ_INT(s_get1(a, kd), WH_V_TEST_MISSING);
    CHECK_EQ_STR(wh_cache_describe(a), "redis(down, embedded)");
    s_sleep_ms((unsigned)(1700 - (wh_now_ms() - down_at)));
    CHECK_EQ_INT(s_get1(a, kd), WH_V_TEST_MISSING);
    CHECK_EQ_STR(wh_cache_describe(a), "redis");
    snprintf(cmd, sizeof cmd, "GET whittle:v1:verdict:%s", kd);
    wh_redis_raw_value(port, cmd, reply, sizeof reply);
    CHECK_EQ_STR(reply, "$22\r\nTestMissing node=local\r\n");
    /* Answers are still the same although this Redis is new and empty. */
    memset(out, 0, sizeof out);
    CHECK_EQ_INT(wh_cache_mget(a, s_rk, RN, out), 0);
    wrong = 0;
    for (int i = 0; i < RN; i++)
        wrong += out[i] != (i % 3 ? s_verdict_for(i) : WH_V_NONE);
    CHECK_EQ_INT(wrong, 0);
    /* And new puts go to Redis again: b (reconnecting too) sees them. */
    char kn[65];
    s_key(1, "after", kn);
    CHECK_EQ_INT(wh_cache_put(a, kn, WH_V_DIFFERENT_FAILURE), 0);
    CHECK_EQ_INT(s_get1(b, kn), WH_V_DIFFERENT_FAILURE);
    CHECK_EQ_STR(wh_cache_describe(b), "redis");
    CHECK_EQ_INT(s_get1(b, kd), WH_V_TEST_MISSING); /* written back by a */

out:
    wh_cache_close(&a);
    wh_cache_close(&b);
    wh_cache_close(&c3);
    wh_redis_kill(pid);
    unsetenv("WHITTLE_CACHE_DIR");
    unsetenv("WHITTLE_REDIS_RETRY_MS");
    free(dira);
    free(dirb);
    free(dirc);
}

static void test_redis_unreachable_at_open(void)
{
    int port = wh_redis_free_port(); /* nothing listens there */
    char url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    char *dir = s_path("redis-none");
    setenv("WHITTLE_CACHE_DIR", dir, 1);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(url, &err);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_STR(wh_cache_describe(c), "redis(down, embedded)");
        char k[65];
        s_key(1, "none", k);
        CHECK_EQ_INT(wh_cache_put(c, k, WH_V_PRESERVED), 0);
        CHECK_EQ_INT(s_get1(c, k), WH_V_PRESERVED);
        wh_cache_close(&c);
    }
    /* The fallback is the embedded default: the verdict is on disk. */
    c = wh_cache_open(NULL, &err);
    char k[65];
    s_key(1, "none", k);
    CHECK_EQ_INT(s_get1(c, k), WH_V_PRESERVED);
    wh_cache_close(&c);
    unsetenv("WHITTLE_CACHE_DIR");
    free(dir);
}

int main(void)
{
    snprintf(s_tmp, sizeof s_tmp, "/tmp/whittle-test-cache-XXXXXX");
    if (!mkdtemp(s_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_key);
    RUN_TEST(test_memory);
    RUN_TEST(test_bad_specs);
    RUN_TEST(test_embedded_reopen);
    RUN_TEST(test_predicted_namespace);
    RUN_TEST(test_embedded_two_handles);
    RUN_TEST(test_default_dir);
    RUN_TEST(test_blobs);
    RUN_TEST(test_redis);
    RUN_TEST(test_redis_unreachable_at_open);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
