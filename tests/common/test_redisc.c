/*
 * test_redisc — the one Redis client (common/wh_redisc.h): URL forms and
 * refusals with their exact messages; the password from the URL, then
 * $WHITTLE_REDIS_PASSWORD, then a password file, against a real
 * redis-server with requirepass and Redis 6+ ACL users; SELECT; the
 * command timeout; reconnecting after the server is killed and restarted
 * on the same port.
 */
#define _GNU_SOURCE
#include "wh_test.h"
#include "wh_redis.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include "wh_common.h"
#include "wh_redisc.h"

static char s_dir[] = "/tmp/wh-test-redisc-XXXXXX";

static void s_env_clear(void)
{
    unsetenv("WHITTLE_REDIS_PASSWORD");
    unsetenv("WHITTLE_REDIS_PASSWORD_FILE");
}

/* A file in the test folder holding text; malloc'ed path. */
static char *s_file(const char *name, const char *text)
{
    char *p = wh_path_join(s_dir, name);
    CHECK(p && wh_write_file(p, text, strlen(text)) == 0);
    return p;
}

/* wh_redisc_new must refuse url with exactly want. */
static void s_refused(const char *url, const char *want)
{
    char *err = NULL;
    wh_redisc_t *c = wh_redisc_new(url, NULL, &err);
    CHECK(c == NULL);
    CHECK_EQ_STR(err, want);
    if (!err || !want || strcmp(err, want))
        fprintf(stderr, "  (url %s)\n", url);
    free(err);
    wh_redisc_destroy(&c);
}

static void s_bad_url(const char *url, const char *shown)
{
    char *want = wh_strdup_printf(
        "bad redis URL '%s' (expected redis://[user[:password]@]host:port[/db])", shown);
    s_refused(url, want);
    free(want);
}

static void test_url(void)
{
    s_env_clear();
    static const struct {
        const char *url, *host;
        int port, db;
        const char *shown;
    } ok[] = {
        {"redis://h", "h", 6379, 0, "redis://h"},
        {"redis://h:1", "h", 1, 0, "redis://h:1"},
        {"redis://h:65535/", "h", 65535, 0, "redis://h:65535/"},
        {"redis://h/3", "h", 6379, 3, "redis://h/3"},
        {"redis://10.0.0.7:6390/15", "10.0.0.7", 6390, 15, "redis://10.0.0.7:6390/15"},
        {"redis://[::1]:6390/2", "::1", 6390, 2, "redis://[::1]:6390/2"},
        {"redis://wh:p%40ss%3Aw%2Frd@h:7/1", "h", 7, 1, "redis://wh:***@h:7/1"},
        {"redis://:secret@h", "h", 6379, 0, "redis://:***@h"},
        /* the last '@' before the first '/' ends the user info */
        {"redis://wh:a@b@h:9", "h", 9, 0, "redis://wh:***@h:9"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        char *err = NULL;
        wh_redisc_t *c = wh_redisc_new(ok[i].url, NULL, &err);
        CHECK(c != NULL);
        if (!c) {
            fprintf(stderr, "  (url %s: %s)\n", ok[i].url, err ? err : "?");
            free(err);
            continue;
        }
        CHECK_EQ_STR(wh_redisc_host(c), ok[i].host);
        CHECK_EQ_INT(wh_redisc_port(c), ok[i].port);
        CHECK_EQ_INT(wh_redisc_db(c), ok[i].db);
        CHECK_EQ_STR(wh_redisc_url(c), ok[i].shown);
        CHECK(wh_redisc_context(c) == NULL); /* new does not connect */
        CHECK_EQ_STR(wh_redisc_why(c), "");
        wh_redisc_destroy(&c);
        CHECK(c == NULL);
    }
    wh_redisc_destroy(&(wh_redisc_t *){NULL}); /* NULL is fine */
    wh_redisc_destroy(NULL);

    /* bad ports */
    s_bad_url("redis://h:0", "redis://h:0");
    s_bad_url("redis://h:65536", "redis://h:65536");
    s_bad_url("redis://h:99999999999999999999", "redis://h:99999999999999999999");
    s_bad_url("redis://h:12x", "redis://h:12x");
    s_bad_url("redis://h:-1", "redis://h:-1");
    s_bad_url("redis://h:+1", "redis://h:+1");
    s_bad_url("redis://h: 1", "redis://h: 1");
    s_bad_url("redis://h:", "redis://h:");
    s_bad_url("redis://u:p@h:0", "redis://u:***@h:0"); /* never the password */
    /* bad dbs */
    s_bad_url("redis://h:1/x", "redis://h:1/x");
    s_bad_url("redis://h:1/-1", "redis://h:1/-1");
    s_bad_url("redis://h:1/3x", "redis://h:1/3x");
    s_bad_url("redis://h:1/3/4", "redis://h:1/3/4");
    s_bad_url("redis://h:1/ 3", "redis://h:1/ 3");
    s_bad_url("redis://h:1/2147483648", "redis://h:1/2147483648");
    /* missing hosts */
    s_bad_url("redis://", "redis://");
    s_bad_url("redis://:6379", "redis://:6379");
    s_bad_url("redis:///0", "redis:///0");
    s_bad_url("redis://u:p@:1", "redis://u:***@:1");
    s_bad_url("redis://[]:1", "redis://[]:1");
    s_bad_url("redis://[::1", "redis://[::1");
    s_bad_url("redis://[::1]x", "redis://[::1]x");
    /* not redis:// at all: nothing of it shown (it may hold a password) */
    s_bad_url("rediss://u:p@h", "redis://***");
    /* bad percent escapes, in the password or the user */
    const char *esc = "bad user or password escape in redis URL 'redis://***@h:1/0'";
    s_refused("redis://u:p%4@h:1/0", esc);
    s_refused("redis://u:p%@h:1/0", esc);
    s_refused("redis://u:p%zz@h:1/0", esc);
    s_refused("redis://u:%00@h:1/0", esc);
    s_refused("redis://u%4x:p@h:1/0", esc);
    /* a user but no password */
    const char *nopw = "redis URL names user 'wh' but no password (add :PASSWORD or set "
                       "WHITTLE_REDIS_PASSWORD)";
    s_refused("redis://wh@h:1/0", nopw);
    s_refused("redis://wh:@h:1/0", nopw);
    s_refused("redis://@h:1/0", "redis URL names user '' but no password (add :PASSWORD or "
                                "set WHITTLE_REDIS_PASSWORD)");
    /* ... which the environment may give */
    setenv("WHITTLE_REDIS_PASSWORD", "pw", 1);
    char *err = NULL;
    wh_redisc_t *c = wh_redisc_new("redis://wh@h:1/0", NULL, &err);
    CHECK(c != NULL);
    CHECK_EQ_STR(c ? wh_redisc_url(c) : NULL, "redis://wh@h:1/0");
    wh_redisc_destroy(&c);
    s_env_clear();

    /* password files that cannot be used are errors: they were named */
    char *none = wh_path_join(s_dir, "no-such-file");
    char *want = wh_strdup_printf("cannot read redis password file '%s': %s", none,
                                  wh_strerror(-ENOENT));
    setenv("WHITTLE_REDIS_PASSWORD_FILE", none, 1);
    s_refused("redis://h:1/0", want);
    s_refused("redis://wh@h:1/0", want);
    free(want);
    char *empty = s_file("empty.pw", "\n");
    want = wh_strdup_printf("redis password file '%s' is empty", empty);
    setenv("WHITTLE_REDIS_PASSWORD_FILE", empty, 1);
    s_refused("redis://h:1/0", want);
    free(want);
    /* ... but not looked at when the URL or the environment has one */
    err = NULL;
    c = wh_redisc_new("redis://:pw@h:1/0", NULL, &err);
    CHECK(c != NULL);
    wh_redisc_destroy(&c);
    free(err);
    setenv("WHITTLE_REDIS_PASSWORD", "pw", 1);
    err = NULL;
    c = wh_redisc_new("redis://h:1/0", NULL, &err);
    CHECK(c != NULL);
    wh_redisc_destroy(&c);
    free(err);
    s_env_clear();
    /* the option names the file when the environment does not */
    wh_redisc_opts_t o = {.password_file = none};
    err = NULL;
    CHECK(wh_redisc_new("redis://h:1/0", &o, &err) == NULL);
    CHECK(err && strstr(err, none));
    free(err);
    free(none);
    free(empty);
}

/* new + connect; the connect code (or 1 when new refused url), *err the
 * message. */
static int s_try(const char *url, const wh_redisc_opts_t *o, char **err)
{
    *err = NULL;
    wh_redisc_t *c = wh_redisc_new(url, o, err);
    if (!c)
        return 1;
    int rc = wh_redisc_connect(c, err);
    CHECK((wh_redisc_context(c) != NULL) == (rc == 0));
    wh_redisc_destroy(&c);
    return rc;
}

/* s_try must give rc; with want, exactly that message. */
static void s_expect(const char *url, const wh_redisc_opts_t *o, int rc, const char *want)
{
    char *err = NULL;
    int got = s_try(url, o, &err);
    CHECK_EQ_INT(got, rc);
    if (want)
        CHECK_EQ_STR(err, want);
    if (got != rc || (want && (!err || strcmp(err, want))))
        fprintf(stderr, "  (url %s: %s)\n", url, err ? err : "no error");
    CHECK(!err || !strstr(err, "p@ss")); /* the password is never shown */
    free(err);
}

#define S_ADMIN "admin-Xk29"
#define S_USERPW "p@ss:w/rd-Zq81"
#define S_USERPW_URL "p%40ss%3Aw%2Frd-Zq81"

static void test_auth(void)
{
    s_env_clear();
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed: this is a FAIL */
    if (pid <= 0)
        return;
    char r[512], url[256], want[512];
    /* ACL users (Redis 6+) before requirepass: wh_redis_raw cannot AUTH. */
    wh_redis_raw(port, "ACL SETUSER wh on >" S_USERPW " ~whittle:* +@all", r, sizeof r);
    CHECK_EQ_STR(r, "+OK\r\n");
    wh_redis_raw(port, "ACL SETUSER ro on >ro-pw -@all +ping", r, sizeof r); /* no SELECT */
    CHECK_EQ_STR(r, "+OK\r\n");
    wh_redis_raw(port, "CONFIG SET requirepass " S_ADMIN, r, sizeof r);
    CHECK_EQ_STR(r, "+OK\r\n");
    wh_redis_raw(port, "PING", r, sizeof r);
    CHECK(!strncmp(r, "-NOAUTH", 7));

    /* no password at all */
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    snprintf(want, sizeof want,
             "redis at %s refused access without a password: NOAUTH Authentication required.", url);
    s_expect(url, NULL, WH_EAUTH, want);
    /* a wrong password, refused with a clear message */
    snprintf(url, sizeof url, "redis://:nope@127.0.0.1:%d/0", port);
    snprintf(want, sizeof want,
             "redis at redis://:***@127.0.0.1:%d/0 refused the credentials: WRONGPASS invalid "
             "username-password pair or user is disabled.",
             port);
    s_expect(url, NULL, WH_EAUTH, want);
    snprintf(url, sizeof url, "redis://wh:nope@127.0.0.1:%d/0", port);
    snprintf(want, sizeof want,
             "redis at redis://wh:***@127.0.0.1:%d/0 refused the credentials: WRONGPASS invalid "
             "username-password pair or user is disabled.",
             port);
    s_expect(url, NULL, WH_EAUTH, want);
    /* the default user's password (requirepass) and the ACL user's, from
     * the URL, percent-decoded */
    snprintf(url, sizeof url, "redis://:" S_ADMIN "@127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    snprintf(url, sizeof url, "redis://wh:%s@127.0.0.1:%d/0", S_USERPW_URL, port);
    s_expect(url, NULL, 0, NULL);
    /* the user is sent: the default user's password is not wh's */
    snprintf(url, sizeof url, "redis://wh:" S_ADMIN "@127.0.0.1:%d/0", port);
    s_expect(url, NULL, WH_EAUTH, NULL);

    /* 1. the URL's password beats $WHITTLE_REDIS_PASSWORD */
    setenv("WHITTLE_REDIS_PASSWORD", "nope", 1);
    snprintf(url, sizeof url, "redis://:" S_ADMIN "@127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    setenv("WHITTLE_REDIS_PASSWORD", S_ADMIN, 1);
    snprintf(url, sizeof url, "redis://:nope@127.0.0.1:%d/0", port);
    s_expect(url, NULL, WH_EAUTH, NULL);
    /* 2. $WHITTLE_REDIS_PASSWORD, for the default user and for a named one */
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    setenv("WHITTLE_REDIS_PASSWORD", S_USERPW, 1);
    snprintf(url, sizeof url, "redis://wh@127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    /* ... beats the password file */
    char *good = s_file("admin.pw", S_ADMIN "\n"); /* the trailing newline is not part of it */
    char *bad = s_file("bad.pw", "nope");
    char *user = s_file("user.pw", S_USERPW "\r\n");
    setenv("WHITTLE_REDIS_PASSWORD", S_ADMIN, 1);
    setenv("WHITTLE_REDIS_PASSWORD_FILE", bad, 1);
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    setenv("WHITTLE_REDIS_PASSWORD", "nope", 1);
    setenv("WHITTLE_REDIS_PASSWORD_FILE", good, 1);
    s_expect(url, NULL, WH_EAUTH, NULL);
    /* 3. the password file when the environment has no password (an empty
     * $WHITTLE_REDIS_PASSWORD is none) */
    setenv("WHITTLE_REDIS_PASSWORD", "", 1);
    s_expect(url, NULL, 0, NULL);
    unsetenv("WHITTLE_REDIS_PASSWORD");
    s_expect(url, NULL, 0, NULL);
    setenv("WHITTLE_REDIS_PASSWORD_FILE", user, 1);
    snprintf(url, sizeof url, "redis://wh@127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    /* the option's file beats $WHITTLE_REDIS_PASSWORD_FILE */
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    wh_redisc_opts_t o = {.password_file = good};
    setenv("WHITTLE_REDIS_PASSWORD_FILE", bad, 1);
    s_expect(url, &o, 0, NULL);
    o.password_file = bad;
    setenv("WHITTLE_REDIS_PASSWORD_FILE", good, 1);
    s_expect(url, &o, WH_EAUTH, NULL);
    /* ... and loses to $WHITTLE_REDIS_PASSWORD */
    setenv("WHITTLE_REDIS_PASSWORD", S_ADMIN, 1);
    s_expect(url, &o, 0, NULL);
    s_env_clear();

    /* SELECT comes after AUTH (else NOAUTH); a user not allowed to SELECT
     * is a credentials error, a db that does not exist is not */
    snprintf(url, sizeof url, "redis://wh:%s@127.0.0.1:%d/2", S_USERPW_URL, port);
    s_expect(url, NULL, 0, NULL);
    snprintf(url, sizeof url, "redis://ro:ro-pw@127.0.0.1:%d/0", port);
    s_expect(url, NULL, 0, NULL);
    snprintf(url, sizeof url, "redis://ro:ro-pw@127.0.0.1:%d/2", port);
    s_expect(url, NULL, WH_EAUTH, NULL);
    snprintf(url, sizeof url, "redis://wh:%s@127.0.0.1:%d/99", S_USERPW_URL, port);
    snprintf(want, sizeof want,
             "redis at redis://wh:***@127.0.0.1:%d/99 unavailable (ERR DB index is out of range)",
             port);
    s_expect(url, NULL, WH_EUNAVAIL, want);

    /* wh_redisc_command reports a refused command as such */
    snprintf(url, sizeof url, "redis://wh:%s@127.0.0.1:%d/0", S_USERPW_URL, port);
    char *err = NULL;
    wh_redisc_t *c = wh_redisc_new(url, NULL, &err);
    CHECK(c != NULL);
    if (c) {
        const char *set[] = {"SET", "whittle:t:k", "v"};
        CHECK_EQ_INT(wh_redisc_command(c, 3, set, NULL, NULL, &err), 0); /* connects first */
        CHECK(wh_redisc_context(c) != NULL);
        const char *other[] = {"SET", "other:k", "v"}; /* outside ~whittle:* */
        CHECK_EQ_INT(wh_redisc_command(c, 3, other, NULL, NULL, &err), WH_EAUTH);
        CHECK(err && strstr(err, "refused SET: NOPERM"));
        free(err);
        err = NULL;
        const char *wrong[] = {"LPUSH", "whittle:t:k", "x"}; /* a string, not a list */
        CHECK_EQ_INT(wh_redisc_command(c, 3, wrong, NULL, NULL, &err), WH_EIO);
        snprintf(want, sizeof want,
                 "redis at redis://wh:***@127.0.0.1:%d/0 refused LPUSH: WRONGTYPE Operation "
                 "against a key holding the wrong kind of value",
                 port);
        CHECK_EQ_STR(err, want);
        free(err);
        err = NULL;
        wh_redisc_destroy(&c);
    }
    free(err);
    free(good);
    free(bad);
    free(user);
    wh_redis_kill(pid);
}

/* 1 when CLIENT LIST shows a connection in db (besides the raw one). */
static int s_client_in_db(int port, int db)
{
    char r[8192], want[32];
    wh_redis_raw(port, "CLIENT LIST", r, sizeof r);
    snprintf(want, sizeof want, " db=%d ", db);
    return strstr(r, want) != NULL;
}

static void test_select(void)
{
    s_env_clear();
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    char url[128], r[512];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/3", port);
    char *err = NULL;
    wh_redisc_t *c = wh_redisc_new(url, NULL, &err);
    CHECK(c != NULL);
    if (!c) {
        free(err);
        wh_redis_kill(pid);
        return;
    }
    CHECK(!s_client_in_db(port, 3));
    CHECK_EQ_INT(wh_redisc_connect(c, &err), 0);
    CHECK(s_client_in_db(port, 3));
    const char *set[] = {"SET", "whittle:t:db", "three"};
    size_t setl[] = {3, 12, 5};
    CHECK_EQ_INT(wh_redisc_command(c, 3, set, setl, NULL, &err), 0);
    wh_redis_raw(port, "GET whittle:t:db", r, sizeof r); /* db 0 */
    CHECK_EQ_STR(r, "$-1\r\n");
    wh_redis_raw(port, "DBSIZE", r, sizeof r);
    CHECK_EQ_STR(r, ":0\r\n");
    struct redisReply *rep = NULL;
    const char *get[] = {"GET", "whittle:t:db"};
    CHECK_EQ_INT(wh_redisc_command(c, 2, get, NULL, &rep, &err), 0);
    CHECK(rep != NULL);
    wh_redisc_reply_free(rep);
    wh_redisc_destroy(&c);
    free(err);
    wh_redis_kill(pid);
}

static double s_ms_since(uint64_t t0)
{
    return (double)(wh_now_ms() - t0);
}

static void test_timeout(void)
{
    s_env_clear();
    /* Without a working timeout the calls below would block for good:
     * then SIGALRM ends the program, a failure ctest sees. */
    alarm(20);
    /* A listener that never answers: the connection is accepted by the
     * kernel, the PING after it times out. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    char url[128];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", ntohs(a.sin_port));
    wh_redisc_opts_t o = {.command_ms = 200};
    char *err = NULL;
    wh_redisc_t *c = wh_redisc_new(url, &o, &err);
    CHECK(c != NULL);
    if (c) {
        uint64_t t0 = wh_now_ms();
        CHECK_EQ_INT(wh_redisc_connect(c, &err), WH_EUNAVAIL);
        double ms = s_ms_since(t0);
        CHECK(ms >= 150 && ms < 1500);
        CHECK(wh_redisc_why(c)[0] != '\0');
        CHECK(err && !strncmp(err, "redis at ", 9) && strstr(err, " unavailable ("));
        wh_redisc_destroy(&c);
    }
    free(err);
    close(fd);

    /* A command that blocks on the server: BLPOP of a list nobody fills
     * for 10 s gives up after the command timeout (tried twice: on the
     * connection, then on a fresh one). */
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port);
    o.command_ms = 300;
    err = NULL;
    c = wh_redisc_new(url, &o, &err);
    CHECK(c && wh_redisc_connect(c, &err) == 0);
    if (c) {
        const char *blpop[] = {"BLPOP", "whittle:t:empty", "10"};
        uint64_t t0 = wh_now_ms();
        CHECK_EQ_INT(wh_redisc_command(c, 3, blpop, NULL, NULL, &err), WH_EUNAVAIL);
        double ms = s_ms_since(t0);
        CHECK(ms >= 500 && ms < 3000);
        char *want = wh_strdup_printf("redis at %s does not answer (%s)", url, wh_redisc_why(c));
        CHECK_EQ_STR(err, want);
        free(want);
        free(err);
        err = NULL;
        CHECK(wh_redisc_context(c) == NULL); /* a timed-out connection is dropped */
        const char *ping[] = {"PING"};
        CHECK_EQ_INT(wh_redisc_command(c, 1, ping, NULL, NULL, &err), 0);
        wh_redisc_destroy(&c);
    }
    free(err);
    wh_redis_kill(pid);
    alarm(0);
}

static void test_reconnect(void)
{
    s_env_clear();
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    char url[128], want[256];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/3", port);
    char *err = NULL;
    wh_redisc_t *c = wh_redisc_new(url, NULL, &err);
    CHECK(c && wh_redisc_connect(c, &err) == 0);
    if (!c) {
        free(err);
        wh_redis_kill(pid);
        return;
    }
    const char *ping[] = {"PING"};
    CHECK_EQ_INT(wh_redisc_command(c, 1, ping, NULL, NULL, &err), 0);

    /* killed: the command fails (the one reconnect is refused) */
    wh_redis_kill(pid);
    CHECK_EQ_INT(wh_redisc_command(c, 1, ping, NULL, NULL, &err), WH_EUNAVAIL);
    snprintf(want, sizeof want, "redis at %s does not answer (Connection refused)", url);
    CHECK_EQ_STR(err, want);
    free(err);
    err = NULL;
    CHECK(wh_redisc_context(c) == NULL);
    CHECK_EQ_INT(wh_redisc_connect(c, &err), WH_EUNAVAIL);
    snprintf(want, sizeof want, "redis at %s unavailable (Connection refused)", url);
    CHECK_EQ_STR(err, want);
    CHECK_EQ_STR(wh_redisc_why(c), "Connection refused");
    free(err);
    err = NULL;

    /* restarted on the same port: the next command reconnects, and the
     * db is selected again */
    pid = wh_redis_start(port);
    CHECK(pid > 0);
    CHECK_EQ_INT(wh_redisc_command(c, 1, ping, NULL, NULL, &err), 0);
    CHECK(wh_redisc_context(c) != NULL);
    CHECK(s_client_in_db(port, 3));

    /* killed and restarted while connected: the stale connection fails,
     * the same call goes on on a fresh one */
    wh_redis_kill(pid);
    pid = wh_redis_start(port);
    CHECK(pid > 0);
    CHECK_EQ_INT(wh_redisc_command(c, 1, ping, NULL, NULL, &err), 0);
    CHECK(s_client_in_db(port, 3));
    /* and wh_redisc_connect reconnects at will */
    struct redisContext *before = wh_redisc_context(c);
    CHECK(before != NULL);
    CHECK_EQ_INT(wh_redisc_connect(c, &err), 0);
    CHECK(wh_redisc_context(c) != NULL);
    wh_redisc_disconnect(c);
    CHECK(wh_redisc_context(c) == NULL);
    wh_redisc_destroy(&c);
    free(err);
    wh_redis_kill(pid);
}

int main(void)
{
    if (!mkdtemp(s_dir))
        return 1;
    RUN_TEST(test_url);
    RUN_TEST(test_auth);
    RUN_TEST(test_select);
    RUN_TEST(test_timeout);
    RUN_TEST(test_reconnect);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
