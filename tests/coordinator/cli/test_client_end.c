/*
 * test_client_end — a job's end as the cluster client takes it (client.h,
 * on_end): the run summary of a final Progress is checked on receipt
 * (night.h); a good one reaches on_end, a malformed one does not and is
 * said in one line naming the job and the field, and the job's status
 * stands either way. A coordinator is played by a thread on a ROUTER
 * socket (inproc://), answering each Submit by its tag.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "client.h"
#include "wh_common.h"
#include "wh_test.h"
#include "wire.h"

#define S_JOBS 5

static const char *const s_sent[S_JOBS] = {
    "{\"run\":\"t-1\",\"summary\":{\"statements_before\":4,\"fingerprint\":{\"kind\":\"assert\"}}}",
    "{\"run\":\"t-2\",\"summary\":",                         /* cut short */
    "{\"run\":\"t-3\",\"summary\":{\"fingerprint\":{\"location\":7}}}", /* wrong type */
    NULL,                                                    /* none sent */
    "{\"run\":\"t-5\",\"summary\":{}}",                      /* with a failed job */
};

static void *s_coordinator(void *arg)
{
    void *router = arg;
    for (int answered = 0; answered < S_JOBS;) {
        uint8_t ident[WH_WIRE_MAX_IDENT];
        size_t ilen = 0;
        wh_msg_t m;
        if (wh_wire_recv_from(router, ident, &ilen, &m, 0) != 0)
            continue;
        if (m.type == WH_MSG_SUBMIT && m.cand_id < S_JOBS) {
            wh_msg_t r = {0};
            r.type = WH_MSG_PROGRESS;
            r.cand_id = m.cand_id;
            r.final = 1;
            r.code = m.cand_id == 4 ? 3 : 0;
            r.detail = "the job's text\n";
            r.summary = (char *)s_sent[m.cand_id];
            r.summary_len = r.summary ? strlen(r.summary) : 0;
            wh_wire_send_to(router, ident, ilen, &r, 0);
            answered++;
        }
        wh_msg_clear(&m);
    }
    return NULL;
}

typedef struct {
    int ends, code[S_JOBS];
    char *summary[S_JOBS];
} s_got_t;

static void s_on_end(void *ctx, int job, int code, const char *summary)
{
    s_got_t *g = ctx;
    g->ends++;
    g->code[job] = code;
    g->summary[job] = summary ? strdup(summary) : NULL;
}

static void test_summaries_checked(void)
{
    void *zctx = zmq_ctx_new();
    void *router = zmq_socket(zctx, ZMQ_ROUTER), *dealer = zmq_socket(zctx, ZMQ_DEALER);
    CHECK(zmq_bind(router, "inproc://coord") == 0);
    CHECK(zmq_connect(dealer, "inproc://coord") == 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, s_coordinator, router) == 0);
    char *jobs[S_JOBS];
    for (int i = 0; i < S_JOBS; i++)
        jobs[i] = "{}";
    s_got_t g = {0};
    volatile sig_atomic_t stop = 0;
    wh_client_t c = {dealer, NULL, "inproc://coord", &stop, 1, NULL, &g, s_on_end, 1};
    /* stderr to a file, to read the lines said */
    char path[] = "/tmp/wh_client_end_XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    int worst = wh_client_wait(&c, jobs, NULL, S_JOBS);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    pthread_join(th, NULL);
    CHECK_EQ_INT(worst, 3);
    CHECK_EQ_INT(g.ends, S_JOBS);
    CHECK(g.summary[0] && !strcmp(g.summary[0], s_sent[0]));
    CHECK(g.summary[1] == NULL && g.summary[2] == NULL && g.summary[3] == NULL);
    CHECK(g.summary[4] && !strcmp(g.summary[4], s_sent[4])); /* a failed job's run too */
    CHECK_EQ_INT(g.code[0], 0);
    CHECK_EQ_INT(g.code[1], 0); /* a bad summary costs the report, not the job */
    CHECK_EQ_INT(g.code[4], 3);
    char *said = NULL;
    size_t len = 0;
    CHECK(wh_read_file(path, 1u << 16, &said, &len) == 0);
    unlink(path);
    int lines = 0;
    for (const char *p = said; p && *p; p++)
        lines += *p == '\n';
    CHECK_EQ_INT(lines, 2); /* one per refused summary; quiet_ends: no job errors */
    CHECK(said && strstr(said, "whittle: error: job 1: coordinator at inproc://coord: the run "
                               "summary is malformed"));
    CHECK(said && strstr(said, "whittle: error: job 2: coordinator at inproc://coord: the run "
                               "summary is malformed: 'summary.fingerprint.location' is not a "
                               "string"));
    if (said && lines != 2)
        fprintf(stderr, "said:\n%s", said);
    free(said);
    for (int i = 0; i < S_JOBS; i++)
        free(g.summary[i]);
    zmq_close(dealer);
    zmq_close(router);
    zmq_ctx_term(zctx);
}

int main(void)
{
    RUN_TEST(test_summaries_checked);
    TEST_MAIN_END();
}
