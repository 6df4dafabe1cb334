/*
 * test_harden — what whittle takes from users and peers is checked before it
 * is used (issue 10's wire hardening):
 *  - numbers: NaN, infinities, 1e300, wrong JSON types and out-of-range
 *    integers are refused in job JSON and in the CLI's number parsers;
 *  - paths: a test-file path from a peer must be plain and relative;
 *  - sizes: a test file over the wire's content cap is refused at
 *    validation, with a message naming it;
 *  - a node refuses a job whose test-file path climbs out of its
 *    workspace (a fake coordinator sends it), and writes nothing outside;
 *  - frames: the pool's socket drops a peer sending an oversized frame
 *    before buffering it (peak resident memory does not grow by the frame),
 *    and keeps serving honest peers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "job.h"
#include "pool.h"
#include "wh_test.h"
#include "wire.h"
#include "worker.h"

static char s_tmp[] = "/tmp/wh-harden-XXXXXX";

static void test_plain_relative(void)
{
    CHECK(wh_path_is_plain_relative("tests/test_cart.c"));
    CHECK(wh_path_is_plain_relative("a"));
    CHECK(wh_path_is_plain_relative("..a/b..c/.d"));
    CHECK(!wh_path_is_plain_relative(NULL));
    CHECK(!wh_path_is_plain_relative(""));
    CHECK(!wh_path_is_plain_relative("/etc/passwd"));
    CHECK(!wh_path_is_plain_relative("../x.c"));
    CHECK(!wh_path_is_plain_relative("a/../../x.c"));
    CHECK(!wh_path_is_plain_relative("a/.."));
    CHECK(!wh_path_is_plain_relative("./a.c"));
    CHECK(!wh_path_is_plain_relative("a//b.c"));
    CHECK(!wh_path_is_plain_relative("a/"));
    CHECK(!wh_path_is_plain_relative("a\nb"));
}

static void test_numbers(void)
{
    unsigned ms = 7;
    CHECK_EQ_INT(wh_secs_to_ms(1.5, WH_JOB_MAX_SECS, &ms), 0);
    CHECK_EQ_INT(ms, 1500);
    CHECK_EQ_INT(wh_secs_to_ms(WH_JOB_MAX_SECS, WH_JOB_MAX_SECS, &ms), 0);
    CHECK_EQ_INT(ms, WH_JOB_MAX_SECS * 1000u);
    ms = 7;
    CHECK_EQ_INT(wh_secs_to_ms(NAN, WH_JOB_MAX_SECS, &ms), WH_EINVAL);
    CHECK_EQ_INT(wh_secs_to_ms(INFINITY, WH_JOB_MAX_SECS, &ms), WH_EINVAL);
    CHECK_EQ_INT(wh_secs_to_ms(-INFINITY, WH_JOB_MAX_SECS, &ms), WH_EINVAL);
    CHECK_EQ_INT(wh_secs_to_ms(1e300, WH_JOB_MAX_SECS, &ms), WH_EINVAL);
    CHECK_EQ_INT(wh_secs_to_ms(0, WH_JOB_MAX_SECS, &ms), WH_EINVAL);
    CHECK_EQ_INT(wh_secs_to_ms(-1, WH_JOB_MAX_SECS, &ms), WH_EINVAL);
    CHECK_EQ_INT(wh_secs_to_ms(1, 1e10, &ms), WH_EINVAL); /* a cap that overflows */
    CHECK_EQ_INT(ms, 7);

    long v = 0;
    CHECK_EQ_INT(wh_parse_long("42", 1, 100, &v), 0);
    CHECK_EQ_INT(v, 42);
    CHECK_EQ_INT(wh_parse_long("0", 1, 100, &v), WH_EINVAL);
    CHECK_EQ_INT(wh_parse_long("4x", 1, 100, &v), WH_EINVAL);
    CHECK_EQ_INT(wh_parse_long("", 1, 100, &v), WH_EINVAL);
    CHECK_EQ_INT(wh_parse_long("99999999999999999999999", 1, 100, &v), WH_EINVAL);
}

/* wh_job_from_json on text; returns its code and frees the error. */
static int s_job_json(const char *text, char **err_out)
{
    json_error_t je;
    json_t *o = json_loads(text, JSON_DECODE_ANY, &je);
    wh_job_t j;
    wh_job_init(&j);
    char *err = NULL;
    int rc = o ? wh_job_from_json(&j, o, &err) : WH_EPARSE;
    json_decref(o);
    wh_job_clear(&j);
    if (err_out)
        *err_out = err;
    else
        free(err);
    return rc;
}

static void test_job_json(void)
{
    char *err = NULL;
    CHECK_EQ_INT(s_job_json("{\"test_timeout\": 1e300}", &err), WH_EINVAL);
    CHECK(err && strstr(err, "test_timeout"));
    free(err);
    CHECK_EQ_INT(s_job_json("{\"build_timeout\": -3}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"setup_timeout\": \"10\"}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"test_timeout\": 2.5}", NULL), 0);
    CHECK_EQ_INT(s_job_json("{\"jobs\": 100000000000}", &err), WH_EINVAL);
    CHECK(err && strstr(err, "jobs"));
    free(err);
    CHECK_EQ_INT(s_job_json("{\"jobs\": 2.5}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"repeat\": -1}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"flaky_ok\": \"2\"}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"keep_fault\": \"yes\"}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"speculate\": 1}", NULL), WH_EINVAL);
    CHECK_EQ_INT(s_job_json("{\"jobs\": 4, \"repeat\": 3, \"speculate\": true}", NULL), 0);
}

static void test_validate_paths_and_sizes(void)
{
    char *proj = wh_path_join(s_tmp, "proj");
    CHECK_EQ_INT(wh_mkdir_p(proj), 0);
    char *small = wh_path_join(proj, "t.c");
    CHECK_EQ_INT(wh_write_file(small, "int main(void){return 0;}\n", 26), 0);

    /* An empty project path is refused, not taken as the current folder. */
    wh_job_t j;
    wh_job_init(&j);
    j.project = strdup("");
    j.file = strdup("t.c");
    j.test = strdup("main");
    j.run = strdup("true");
    char *err = NULL;
    CHECK_EQ_INT(wh_job_validate(&j, &err), WH_EINVAL);
    CHECK(err && strstr(err, "empty --project"));
    free(err);
    err = NULL;
    wh_job_clear(&j);

    /* A test file over the wire's cap. */
    char *big = wh_path_join(proj, "big.c");
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK_EQ_INT(ftruncate(fd, (off_t)WH_WIRE_MAX_CONTENT + 1), 0);
    close(fd);
    wh_job_init(&j);
    j.project = strdup(proj);
    j.file = strdup("big.c");
    j.test = strdup("main");
    j.run = strdup("true");
    CHECK_EQ_INT(wh_job_validate(&j, &err), WH_EINVAL);
    CHECK(err && strstr(err, "big.c") && strstr(err, "at most"));
    free(err);
    err = NULL;
    wh_job_clear(&j);

    /* The same job with the small file is fine. */
    wh_job_init(&j);
    j.project = strdup(proj);
    j.file = strdup("t.c");
    j.test = strdup("main");
    j.run = strdup("true");
    CHECK_EQ_INT(wh_job_validate(&j, &err), 0);
    CHECK_EQ_STR(j.file, "t.c");
    free(err);
    wh_job_clear(&j);

    /* A relative file that exists both in the current folder (outside the
     * project) and in the project is the project's. */
    char *outside = wh_path_join(s_tmp, "t.c");
    CHECK_EQ_INT(wh_write_file(outside, "int main(void){return 1;}\n", 26), 0);
    char here[4096];
    CHECK(getcwd(here, sizeof here) != NULL);
    CHECK_EQ_INT(chdir(s_tmp), 0);
    wh_job_init(&j);
    j.project = strdup(proj);
    j.file = strdup("t.c");
    j.test = strdup("main");
    j.run = strdup("true");
    err = NULL;
    CHECK_EQ_INT(wh_job_validate(&j, &err), 0);
    CHECK_EQ_STR(j.file, "t.c");
    CHECK(err == NULL);
    free(err);
    wh_job_clear(&j);
    CHECK_EQ_INT(chdir(here), 0);
    unlink(outside);
    free(outside);
    free(big);
    free(small);
    free(proj);
}

/* Peak resident set size of this process in kB (VmHWM). */
static long s_peak_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/* Child: sends n frames of mb MiB each to ep from its own context, then
 * exits. The frames are built here, so the parent's memory only grows if
 * it accepts them. */
static void s_flood(const char *ep, int n, int mb)
{
    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 5000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect(s, ep);
    size_t len = (size_t)mb << 20;
    char *buf = malloc(len);
    if (buf) {
        memset(buf, 'x', len);
        for (int i = 0; i < n; i++)
            zmq_send(s, buf, len, 0);
    }
    free(buf);
    zmq_close(s);
    zmq_ctx_term(ctx);
    _exit(0);
}

static void test_pool_drops_huge_frames(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 200, &err);
    CHECK(p != NULL);
    if (!p) {
        free(err);
        zmq_ctx_term(zctx);
        return;
    }
    const char *ep = wh_pool_endpoint(p);
    /* Reset the peak so that only what follows counts. */
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd >= 0) {
        (void)!write(fd, "5", 1);
        close(fd);
    }
    long before = s_peak_kb();
    pid_t pid = fork();
    if (pid == 0)
        s_flood(ep, 2, 200);
    CHECK(pid > 0);
    uint64_t t0 = wh_now_ms();
    int status = 0;
    while (wh_now_ms() - t0 < 20000) {
        wh_pool_poll(p, 50);
        if (waitpid(pid, &status, WNOHANG) == pid)
            break;
    }
    for (int i = 0; i < 10; i++)
        wh_pool_poll(p, 20);
    long grew = s_peak_kb() - before;
    fprintf(stderr, "  peak grew by %ld kB while 2 x 200 MiB frames were sent\n", grew);
    CHECK(before > 0);
    CHECK(grew < 64 * 1024);

    /* An honest peer is still served: a status request gets an answer. */
    void *c = zmq_socket(zctx, ZMQ_DEALER);
    int zero = 0, tmo = 5000;
    zmq_setsockopt(c, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(c, ZMQ_RCVTIMEO, &tmo, sizeof tmo);
    CHECK_EQ_INT(zmq_connect(c, ep), 0);
    wh_msg_t hello = {0};
    hello.type = WH_MSG_HELLO;
    hello.node_id = "honest";
    CHECK_EQ_INT(wh_wire_send(c, &hello, 0), 0);
    for (int i = 0; i < 20; i++)
        wh_pool_poll(p, 20);
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.slots, 1);
    zmq_close(c);
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

static int s_escaped;

static int s_find_escaped(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (strncmp(path + ftw->base, "escaped", 7) == 0) {
        fprintf(stderr, "  written outside the workspace: %s\n", path);
        s_escaped++;
    }
    return 0;
}

/* A fake coordinator (a bare ROUTER) hands a real node slot an EVALUATE
 * whose test file is "../<name>": the slot answers with a refusal and the
 * file is not written anywhere above its workspace. */
static void test_node_refuses_climbing_paths(void)
{
    char *proj = wh_path_join(s_tmp, "nproj");
    char *work = wh_path_join(s_tmp, "nwork");
    CHECK_EQ_INT(wh_mkdir_p(proj), 0);
    CHECK_EQ_INT(wh_mkdir_p(work), 0);
    char *t = wh_path_join(proj, "t.c");
    CHECK_EQ_INT(wh_write_file(t, "x\n", 2), 0);
    void *zctx = zmq_ctx_new();
    void *router = zmq_socket(zctx, ZMQ_ROUTER);
    int zero = 0, tmo = 20000;
    zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(router, ZMQ_RCVTIMEO, &tmo, sizeof tmo);
    CHECK_EQ_INT(zmq_bind(router, "inproc://harden-node"), 0);
    wh_node_opts_t o = {.endpoint = "inproc://harden-node", .node_id = "n1", .slots = 1,
                        .workdir = work, .heartbeat_ms = 200};
    char *err = NULL;
    wh_node_t *n = wh_node_start(zctx, &o, &err);
    CHECK(n != NULL);
    free(err);
    uint8_t id[WH_WIRE_MAX_IDENT];
    size_t idlen = 0;
    wh_msg_t m = {0};
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), 0);
    CHECK_EQ_INT(m.type, WH_MSG_HELLO);
    wh_msg_clear(&m);

    const char *bad[] = {"../escaped.c", "/tmp/wh-harden-abs.c", "a/../../escaped2.c"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wh_msg_t ev = {0};
        ev.type = WH_MSG_EVALUATE;
        ev.cand_id = 100 + i;
        ev.job.job_id = "j1";
        ev.job.project = proj;
        ev.job.test_file = (char *)bad[i];
        ev.job.test = "t";
        ev.job.run_cmd = "true";
        ev.job.framework = "plain";
        ev.baseline = 1;
        ev.content = (uint8_t *)"int x;\n";
        ev.content_len = 7;
        CHECK_EQ_INT(wh_wire_send_to(router, id, idlen, &ev, 0), 0);
        int got = 0;
        for (int k = 0; k < 200 && !got; k++) {
            if (wh_wire_recv_from(router, id, &idlen, &m, 0) != 0)
                break;
            if (m.type == WH_MSG_VERDICT && m.cand_id == 100 + i) {
                got = 1;
                CHECK_EQ_INT(m.verdict, WH_V_INFRA_ERROR);
                CHECK(m.detail && strstr(m.detail, "refused job spec"));
            }
            wh_msg_clear(&m);
        }
        CHECK(got);
    }
    s_escaped = 0;
    CHECK_EQ_INT(nftw(s_tmp, s_find_escaped, 16, FTW_PHYS), 0);
    CHECK_EQ_INT(s_escaped, 0);
    CHECK(!wh_is_file("/tmp/wh-harden-abs.c"));
    wh_node_stop(&n);
    zmq_close(router);
    zmq_ctx_term(zctx);
    free(t);
    free(proj);
    free(work);
}

int main(void)
{
    if (!mkdtemp(s_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_plain_relative);
    RUN_TEST(test_numbers);
    RUN_TEST(test_job_json);
    RUN_TEST(test_validate_paths_and_sizes);
    RUN_TEST(test_node_refuses_climbing_paths);
    RUN_TEST(test_pool_drops_huge_frames);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
