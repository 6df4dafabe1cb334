/*
 * test_journal — the coordinator's job journal (coordinator/journal.h):
 * the record codec, write then replay after a reopen (latest record wins),
 * finish, a corrupt line refused with an error naming file and line, a
 * cut-short last line dropped, the lock against a second coordinator, old
 * finished jobs dropped on open; and the same against a real redis-server
 * this test starts on a private port (tests/wh_redis.h), with the password
 * found as the cache finds it (common/wh_redisc.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "wh_redis.h"
#include "wh_test.h"

static char s_dir[] = "/tmp/whittle-test-journal.XXXXXX";

static char *s_path(const char *name)
{
    return wh_strdup_printf("%s/%s", s_dir, name);
}

static wh_journal_entry_t s_entry(const char *id, const char *owner, const char *job)
{
    wh_journal_entry_t e = {0};
    snprintf(e.id, sizeof e.id, "%s", id);
    e.owner = (char *)owner;
    e.job = (char *)job;
    return e;
}

static void s_append_raw(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static void test_codec(void)
{
    wh_journal_entry_t e = s_entry("0123456789abcdef", "client:alice", "{\"test\":\"t1\"}");
    e.state = WH_JOURNAL_FAILED;
    e.code = 3;
    e.result = "stopped: \"quoted\"\nsecond line";
    e.run_dir = "/runs/t1-1";
    e.resumed = 2;
    e.t = 1700000000;
    char *s = wh_journal_encode(&e);
    CHECK(s && !strchr(s, '\n'));
    wh_journal_entry_t d;
    char *why = NULL;
    CHECK_EQ_INT(wh_journal_decode(s, &d, &why), 0);
    CHECK_EQ_STR(d.id, "0123456789abcdef");
    CHECK_EQ_STR(d.owner, "client:alice");
    CHECK_EQ_STR(d.job, "{\"test\":\"t1\"}");
    CHECK_EQ_INT(d.state, WH_JOURNAL_FAILED);
    CHECK_EQ_INT(d.code, 3);
    CHECK_EQ_STR(d.result, "stopped: \"quoted\"\nsecond line");
    CHECK_EQ_STR(d.run_dir, "/runs/t1-1");
    CHECK_EQ_INT(d.resumed, 2);
    CHECK_EQ_INT(d.t, 1700000000);
    wh_journal_entry_clear(&d);
    free(s);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"{\"v\":1", "not JSON ("},
        {"[1]", "not a JSON object"},
        {"{\"v\":2,\"id\":\"0123456789abcdef\"}", "field 'v' is not 1"},
        {"{\"v\":1,\"id\":\"0123\",\"job\":{}}", "field 'id' is not a job id"},
        {"{\"v\":1,\"id\":\"0123456789ABCDEF\",\"job\":{}}", "field 'id' is not a job id"},
        {"{\"v\":1,\"id\":\"0123456789abcdef\",\"job\":\"x\"}", "field 'job' is not a JSON object"},
        {"{\"v\":1,\"id\":\"0123456789abcdef\",\"job\":{},\"code\":0,\"t\":1,\"resumed\":0,"
         "\"state\":\"lost\"}", "field 'state' is not running, done, failed or cancelled"},
        {"{\"v\":1,\"id\":\"0123456789abcdef\",\"job\":{},\"code\":1e300,\"t\":1,\"resumed\":0,"
         "\"state\":\"done\"}", "fields 'code', 't' and 'resumed' must be small whole numbers"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        CHECK_EQ_INT(wh_journal_decode(bad[i].text, &d, &why), WH_EINVAL);
        CHECK(why && !strncmp(why, bad[i].why, strlen(bad[i].why)));
        if (why && strncmp(why, bad[i].why, strlen(bad[i].why)))
            fprintf(stderr, "  case %zu: why = %s\n", i, why);
        free(why);
    }
}

/* Write, reopen, replay: the latest record of each id (in first-seen order
 * when ordered). */
static void s_check_replay(const char *where, int ordered)
{
    char *err = NULL;
    wh_journal_t *j = wh_journal_open(where, &err);
    CHECK(j != NULL);
    if (!j) {
        fprintf(stderr, "  %s\n", err);
        free(err);
        return;
    }
    CHECK_EQ_INT(wh_journal_count(j), 0);
    wh_journal_entry_t a = s_entry("aaaaaaaaaaaaaaaa", "client:alice", "{\"test\":\"a\"}");
    wh_journal_entry_t b = s_entry("bbbbbbbbbbbbbbbb", "", "{\"test\":\"b\"}");
    CHECK_EQ_INT(wh_journal_put(j, &a), 0);
    CHECK_EQ_INT(wh_journal_put(j, &b), 0);
    CHECK_EQ_INT(wh_journal_set_run(j, "aaaaaaaaaaaaaaaa", "/runs/a-1", 0), 0);
    CHECK_EQ_INT(wh_journal_finish(j, "bbbbbbbbbbbbbbbb", WH_JOURNAL_DONE, 0, "Reduced test:\nx;"), 0);
    CHECK_EQ_INT(wh_journal_finish(j, "cccccccccccccccc", WH_JOURNAL_DONE, 0, "x"), WH_ENOTFOUND);
    wh_journal_entry_t bad = s_entry("not-an-id", "", "{}");
    CHECK_EQ_INT(wh_journal_put(j, &bad), WH_EINVAL);
    CHECK_EQ_INT(wh_journal_count(j), 2);
    wh_journal_close(&j);

    j = wh_journal_open(where, &err);
    CHECK(j != NULL);
    if (!j)
        return;
    CHECK_EQ_INT(wh_journal_count(j), 2);
    const wh_journal_entry_t *ra = wh_journal_find(j, "aaaaaaaaaaaaaaaa");
    const wh_journal_entry_t *rb = wh_journal_find(j, "bbbbbbbbbbbbbbbb");
    CHECK(ra && rb);
    if (ra && rb) {
        CHECK_EQ_INT(ra->state, WH_JOURNAL_RUNNING);
        CHECK_EQ_STR(ra->owner, "client:alice");
        CHECK_EQ_STR(ra->job, "{\"test\":\"a\"}");
        CHECK_EQ_STR(ra->run_dir, "/runs/a-1");
        CHECK_EQ_INT(rb->state, WH_JOURNAL_DONE);
        CHECK_EQ_STR(rb->owner, "");
        CHECK_EQ_STR(rb->result, "Reduced test:\nx;");
        CHECK(ra->t > 0 && ra->t <= (int64_t)time(NULL));
    }
    /* a resumed job keeps its id and counts the resumption */
    CHECK_EQ_INT(wh_journal_set_run(j, "aaaaaaaaaaaaaaaa", "/runs/a-2", 1), 0);
    CHECK_EQ_INT(wh_journal_finish(j, "aaaaaaaaaaaaaaaa", WH_JOURNAL_CANCELLED, 5, "cancelled"), 0);
    wh_journal_close(&j);
    j = wh_journal_open(where, &err);
    CHECK(j != NULL);
    ra = j ? wh_journal_find(j, "aaaaaaaaaaaaaaaa") : NULL;
    CHECK(ra != NULL);
    if (ra) {
        CHECK_EQ_INT(ra->state, WH_JOURNAL_CANCELLED);
        CHECK_EQ_INT(ra->code, 5);
        CHECK_EQ_INT(ra->resumed, 1);
        CHECK_EQ_STR(ra->run_dir, "/runs/a-2");
    }
    /* a file keeps the order jobs came in; a Redis hash has none */
    if (ordered)
        CHECK_EQ_STR(j ? wh_journal_at(j, 0)->id : NULL, "aaaaaaaaaaaaaaaa");
    CHECK(j && wh_journal_at(j, 2) == NULL);
    wh_journal_close(&j);
}

static void test_file(void)
{
    char *path = s_path("runs/journal");
    s_check_replay(path, 1);
    /* compacted on open: one line per job */
    char *text = NULL;
    size_t len = 0;
    CHECK_EQ_INT(wh_read_file(path, 1 << 20, &text, &len), 0);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    CHECK_EQ_INT(lines, 2);
    free(text);

    /* a second coordinator on the same file is refused */
    char *err = NULL;
    wh_journal_t *j = wh_journal_open(path, &err), *j2 = NULL;
    CHECK(j != NULL);
    char *err2 = NULL;
    j2 = wh_journal_open(path, &err2);
    CHECK(j2 == NULL);
    char *want = wh_strdup_printf("journal '%s' is in use by another coordinator (give each "
                                  "coordinator its own --journal PATH, or --journal off)", path);
    CHECK_EQ_STR(err2, want);
    free(want);
    free(err2);
    wh_journal_close(&j);
    free(path);
}

static void test_corrupt(void)
{
    char *path = s_path("corrupt.journal"), *err = NULL;
    wh_journal_t *j = wh_journal_open(path, &err);
    wh_journal_entry_t a = s_entry("aaaaaaaaaaaaaaaa", "", "{\"test\":\"a\"}");
    CHECK(j && wh_journal_put(j, &a) == 0);
    wh_journal_close(&j);
    /* a cut-short last line (no newline) is dropped, the rest loads */
    s_append_raw(path, "{\"v\":1,\"id\":\"bbbb");
    j = wh_journal_open(path, &err);
    CHECK(j != NULL);
    CHECK_EQ_INT(j ? wh_journal_count(j) : -1, 1);
    wh_journal_close(&j);
    /* a whole line that is not a record stops the open */
    s_append_raw(path, "\ngarbage here\n");
    err = NULL;
    j = wh_journal_open(path, &err);
    CHECK(j == NULL);
    char *want = wh_strdup_printf("journal file %s: line 3 is not a job record: not JSON "
                                  "('[' or '{' expected near 'garbage'); move it away or fix that "
                                  "record (or run with --journal off)", path);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    free(path);
}

static void test_old_finished_dropped(void)
{
    char *path = s_path("old.journal"), *err = NULL;
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f, "{\"v\":1,\"id\":\"1111111111111111\",\"owner\":\"\",\"state\":\"done\",\"code\":0,"
               "\"resumed\":0,\"t\":1000,\"job\":{}}\n"
               "{\"v\":1,\"id\":\"2222222222222222\",\"owner\":\"\",\"state\":\"running\",\"code\":0,"
               "\"resumed\":0,\"t\":1000,\"job\":{}}\n");
    fclose(f);
    wh_journal_t *j = wh_journal_open(path, &err);
    CHECK(j != NULL);
    /* a finished job of 1970 is gone; a running one, however old, stays */
    CHECK_EQ_INT(j ? wh_journal_count(j) : -1, 1);
    CHECK(j && wh_journal_find(j, "2222222222222222") != NULL);
    wh_journal_close(&j);
    free(path);
}

static void test_redis(void)
{
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0); /* redis-server must be installed: this is a FAIL */
    if (pid <= 0)
        return;
    char url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/5", port);
    char *err = NULL;
    wh_journal_t *j = wh_journal_open(url, &err);
    CHECK(j != NULL);
    if (j) {
        char *want = wh_strdup_printf("redis 127.0.0.1:%d/5 hash whittle:v1:jobs", port);
        CHECK_EQ_STR(wh_journal_describe(j), want);
        free(want);
        wh_journal_close(&j);
        s_check_replay(url, 0);
    }
    free(err);
    err = NULL;
    /* the URL rules and messages are the cache's */
    CHECK(wh_journal_open("redis://127.0.0.1:99999/0", &err) == NULL);
    CHECK_EQ_STR(err, "journal: bad redis URL 'redis://127.0.0.1:99999/0' (expected "
                      "redis://[user[:password]@]host:port[/db])");
    free(err);
    err = NULL;
    CHECK(wh_journal_open("redis://u:p%zz@127.0.0.1:1/0", &err) == NULL);
    CHECK_EQ_STR(err, "journal: bad user or password escape in redis URL "
                      "'redis://***@127.0.0.1:1/0'");
    free(err);
    wh_redis_kill(pid);
}

/* The journal finds its Redis password as the cache does: the URL, else
 * $WHITTLE_REDIS_PASSWORD, else the password file. It used to read only
 * the URL, so a coordinator with --cache redis://HOST... and the password in
 * $WHITTLE_REDIS_PASSWORD (as doc/cluster.md shows) could not journal there. */
static void test_redis_password(void)
{
    unsetenv("WHITTLE_REDIS_PASSWORD");
    unsetenv("WHITTLE_REDIS_PASSWORD_FILE");
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    char r[256], url[64], want[256];
    wh_redis_raw(port, "CONFIG SET requirepass jr-Pw7", r, sizeof r);
    CHECK_EQ_STR(r, "+OK\r\n");
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/6", port);
    char *err = NULL;
    CHECK(wh_journal_open(url, &err) == NULL);
    snprintf(want, sizeof want,
             "journal: redis at %s refused access without a password: NOAUTH Authentication "
             "required.",
             url);
    CHECK_EQ_STR(err, want);
    free(err);
    err = NULL;

    setenv("WHITTLE_REDIS_PASSWORD", "jr-Pw7", 1);
    s_check_replay(url, 0); /* opens, writes, reopens, reads back */
    setenv("WHITTLE_REDIS_PASSWORD", "nope", 1);
    CHECK(wh_journal_open(url, &err) == NULL);
    snprintf(want, sizeof want,
             "journal: redis at %s refused the credentials: WRONGPASS invalid username-password "
             "pair or user is disabled.",
             url);
    CHECK_EQ_STR(err, want);
    free(err);
    err = NULL;
    unsetenv("WHITTLE_REDIS_PASSWORD");

    char *pw = s_path("redis.pw");
    CHECK_EQ_INT(wh_write_file(pw, "jr-Pw7\n", 7), 0);
    setenv("WHITTLE_REDIS_PASSWORD_FILE", pw, 1);
    wh_journal_t *j = wh_journal_open(url, &err);
    CHECK(j != NULL);
    CHECK_EQ_INT(j ? wh_journal_count(j) : -1, 2); /* what s_check_replay left */
    wh_journal_close(&j);
    unsetenv("WHITTLE_REDIS_PASSWORD_FILE");
    free(pw);
    free(err);
    wh_redis_kill(pid);
}

/* A finished job's older ("running") record appended again to the file:
 * the job stays finished, it is not resumed (issue 34). */
static void test_file_replay(void)
{
    char *path = s_path("replay/journal"), *err = NULL;
    wh_journal_t *j = wh_journal_open(path, &err);
    CHECK(j != NULL);
    if (!j)
        goto out;
    wh_journal_entry_t a = s_entry("abababababababab", "client:alice", "{\"test\":\"a\"}");
    CHECK_EQ_INT(wh_journal_put(j, &a), 0);
    CHECK_EQ_INT(wh_journal_finish(j, a.id, WH_JOURNAL_DONE, 0, "Reduced test:\nx;"), 0);
    wh_journal_close(&j);
    char *text = NULL;
    size_t len = 0;
    CHECK_EQ_INT(wh_read_file(path, 1 << 20, &text, &len), 0);
    char *nl = text ? strchr(text, '\n') : NULL;
    CHECK(nl != NULL);
    if (nl) {
        nl[1] = '\0';
        CHECK(strstr(text, "\"running\"") != NULL);
        s_append_raw(path, text); /* the running record, written back */
    }
    free(text);
    j = wh_journal_open(path, &err);
    CHECK(j != NULL);
    const wh_journal_entry_t *e = j ? wh_journal_find(j, a.id) : NULL;
    CHECK(e != NULL);
    CHECK_EQ_INT(e ? (int)e->state : -1, WH_JOURNAL_DONE);
    /* and the next put outnumbers every record read */
    CHECK_EQ_INT(j ? wh_journal_set_run(j, a.id, "/runs/a", 0) : -1, 0);
    e = j ? wh_journal_find(j, a.id) : NULL;
    CHECK(e && e->seq == 3);
    wh_journal_close(&j);
out:
    free(err);
    free(path);
}

/* The same against Redis: the record, MAC and all, HSET back over the
 * finished one is refused (not resumed, not answered). */
static void test_redis_replay(void)
{
    int port = wh_redis_free_port();
    pid_t pid = wh_redis_start(port);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    char url[64], cmd[2048], reply[1024];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", port); /* wh_redis_raw: db 0 */
    char *err = NULL;
    const char *id = "cdcdcdcdcdcdcdcd";
    wh_journal_t *j = wh_journal_open(url, &err);
    CHECK(j != NULL);
    if (!j)
        goto out;
    wh_journal_entry_t a = s_entry(id, "client:alice", "{\"test\":\"a\"}");
    wh_journal_entry_t b = s_entry("efefefefefefefef", "client:bob", "{\"test\":\"b\"}");
    CHECK_EQ_INT(wh_journal_put(j, &a), 0);
    CHECK_EQ_INT(wh_journal_put(j, &b), 0);
    snprintf(cmd, sizeof cmd, "HGET whittle:v1:jobs %s", id);
    wh_redis_raw(port, cmd, reply, sizeof reply);
    CHECK_EQ_INT(wh_journal_finish(j, id, WH_JOURNAL_DONE, 0, "Reduced test:\nx;"), 0);
    wh_journal_close(&j);
    /* "$N\r\n<record>\r\n": written back as it was, byte for byte */
    char *val = strstr(reply, "\r\n"), *end = val ? strstr(val + 2, "\r\n") : NULL;
    CHECK(val && end && strstr(val, "\"running\"") != NULL);
    if (val && end) {
        val += 2;
        *end = '\0';
        snprintf(cmd, sizeof cmd,
                 "*4\r\n$4\r\nHSET\r\n$15\r\nwhittle:v1:jobs\r\n$16\r\n%s\r\n$%zu\r\n%s", id,
                 strlen(val), val);
        wh_redis_raw(port, cmd, reply, sizeof reply);
        CHECK(strstr(reply, ":0") != NULL); /* the field was overwritten */
    }
    j = wh_journal_open(url, &err);
    CHECK(j != NULL);
    if (j) {
        const wh_journal_entry_t *e = wh_journal_find(j, id);
        CHECK(e == NULL || e->state != WH_JOURNAL_RUNNING);
        const wh_journal_entry_t *eb = wh_journal_find(j, b.id);
        CHECK(eb != NULL && eb->state == WH_JOURNAL_RUNNING); /* the other job: resumed */
    }
    wh_journal_close(&j);
    /* without its index, a record with a sequence number is refused too */
    wh_redis_raw(port, "HDEL whittle:v1:jobs _index", reply, sizeof reply);
    j = wh_journal_open(url, &err);
    CHECK(j != NULL);
    CHECK(j && wh_journal_find(j, b.id) == NULL);
    wh_journal_close(&j);
out:
    free(err);
    wh_redis_kill(pid);
}

int main(void)
{
    if (!mkdtemp(s_dir))
        return 1;
    wh_log_set_level(WH_LOG_ERROR);
    RUN_TEST(test_codec);
    RUN_TEST(test_file);
    RUN_TEST(test_corrupt);
    RUN_TEST(test_old_finished_dropped);
    RUN_TEST(test_redis);
    RUN_TEST(test_redis_password);
    RUN_TEST(test_file_replay);
    RUN_TEST(test_redis_replay);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
