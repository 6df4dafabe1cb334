/*
 * test_pool — liveness rules of the coordinator's slot pool, with real
 * ZeroMQ sockets and hand-driven slots:
 *  - a slot silent for 3 heartbeats is dead and its candidate is requeued
 *    on another slot;
 *  - a slot that comes back (a network cut, not a crash) while still
 *    judging the old candidate is not given new work until that ends, and
 *    its late verdict is not taken;
 *  - a candidate that loses its slot 3 times is answered InfraError;
 *  - jobs share the slots in turn;
 *  - an infrastructure fault (InfraError, code WH_ETAINT) is never passed
 *    on: the candidate goes to a slot of another node, the slot that keeps
 *    answering them is taken out of rotation (named in the description),
 *    and a candidate that runs out of slots or tries is answered
 *    InfraError with WH_ETAINT instead of waiting forever.
 *  - eager warm-up: an idle cold slot is sent WARM while a job has work,
 *    candidates go only to warm slots while any is warm, a slot joins when
 *    it answers WARMED, a failed WARM leaves it cold, the counts add up.
 *  - a lazy candidate's text is made when a slot takes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "pool.h"
#include "wh_test.h"
#include "wire.h"

typedef struct {
    int n;
    uint64_t cand[16];
    wh_verdict_t v[16];
    int code[16];
    char worker[16][64];
    int faults, outs;
    char out_worker[64];
} s_got_t;

static void s_on_verdict(void *ctx, uint64_t cand, const wh_msg_t *m, const char *worker)
{
    s_got_t *g = ctx;
    if (g->n < 16) {
        g->cand[g->n] = cand;
        g->v[g->n] = (wh_verdict_t)m->verdict;
        g->code[g->n] = m->code;
        snprintf(g->worker[g->n], sizeof g->worker[0], "%s", worker);
        g->n++;
    }
}

static void s_on_note(void *ctx, uint64_t cand, wh_pool_note_t what, const char *worker,
                      const char *detail)
{
    s_got_t *g = ctx;
    (void)cand;
    (void)detail;
    if (what == WH_POOL_NOTE_FAULT)
        g->faults++;
    if (what == WH_POOL_NOTE_OUT) {
        g->outs++;
        snprintf(g->out_worker, sizeof g->out_worker, "%s", worker);
    }
}

/* A hand-driven slot; an id starting with "old" is an older slot that does
 * not say it answers WARM. */
static void *s_slot(void *zctx, const char *ep, const char *id)
{
    void *s = zmq_socket(zctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, id, strlen(id));
    zmq_connect(s, ep);
    wh_msg_t h = {0};
    h.type = WH_MSG_HELLO;
    h.node_id = (char *)id;
    h.warms = strncmp(id, "old", 3) != 0;
    wh_wire_send(s, &h, 0);
    return s;
}

/* WARMs the hand-driven slots received; when s_warm_reply is set they
 * answer at once (a workspace that is already warm). */
static int s_warms[2];
static int s_warm_reply = 1;

/* Polls the pool for ms, keeping `alive` slots alive with heartbeats
 * (cand_id = what they are judging) and collecting EVALUATEs they get. */
static int s_pump(wh_pool_t *p, int ms, void **alive, uint64_t *busy, int n, uint64_t *got_eval)
{
    int evals = 0;
    uint64_t t0 = wh_now_ms();
    while ((int)(wh_now_ms() - t0) < ms) {
        wh_pool_poll(p, 10);
        for (int i = 0; i < n; i++) {
            if (!alive[i])
                continue;
            wh_msg_t m = {0};
            while (wh_wire_recv(alive[i], &m, ZMQ_DONTWAIT) == 0) {
                if (m.type == WH_MSG_EVALUATE) {
                    evals++;
                    if (got_eval)
                        got_eval[i] = m.cand_id;
                    busy[i] = m.cand_id;
                } else if (m.type == WH_MSG_WARM) {
                    s_warms[i < 2 ? i : 1]++;
                    if (s_warm_reply) {
                        wh_msg_t w = {0};
                        w.type = WH_MSG_WARMED;
                        w.job.job_id = m.job.job_id;
                        w.final = 1;
                        wh_wire_send(alive[i], &w, 0);
                    }
                }
                wh_msg_clear(&m);
            }
            wh_msg_clear(&m);
            wh_msg_t hb = {0};
            hb.type = WH_MSG_HEARTBEAT;
            hb.cand_id = busy[i];
            hb.warms = 1;
            wh_wire_send(alive[i], &hb, ZMQ_DONTWAIT);
        }
    }
    return evals;
}

/* Pumps until slot i was sent candidate want, or 10 s passed (a loaded
 * machine polls late; an idle one returns at once). */
static void s_pump_until(wh_pool_t *p, void **alive, uint64_t *busy, int n, uint64_t *got_eval,
                         int i, uint64_t want)
{
    uint64_t t0 = wh_now_ms();
    while (got_eval[i] != want && wh_now_ms() - t0 < 10000)
        s_pump(p, 20, alive, busy, n, got_eval);
}

static void s_verdict(void *sock, uint64_t cand, wh_verdict_t v)
{
    wh_msg_t m = {0};
    m.type = WH_MSG_VERDICT;
    m.cand_id = cand;
    m.verdict = v;
    wh_wire_send(sock, &m, 0);
}

static void s_taint(void *sock, uint64_t cand)
{
    wh_msg_t m = {0};
    m.type = WH_MSG_VERDICT;
    m.cand_id = cand;
    m.verdict = WH_V_INFRA_ERROR;
    m.code = WH_ETAINT;
    m.detail = "infrastructure fault (no space): build output: `No space left on device`";
    wh_wire_send(sock, &m, 0);
}

/* A slot with its own node id. */
static void *s_slot_on(void *zctx, const char *ep, const char *id, const char *node)
{
    void *s = zmq_socket(zctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s, ZMQ_ROUTING_ID, id, strlen(id));
    zmq_connect(s, ep);
    wh_msg_t h = {0};
    h.type = WH_MSG_HELLO;
    h.node_id = (char *)node;
    wh_wire_send(s, &h, 0);
    return s;
}

static void s_spec(wh_job_spec_t *spec, const char *id)
{
    memset(spec, 0, sizeof *spec);
    spec->job_id = (char *)id;
    spec->project = "/p";
    spec->test_file = "t.c";
    spec->test = "t";
    spec->run_cmd = "true";
}

/* Slot "bad" (node A) answers every candidate with an infrastructure
 * fault; "twin" is a healthy slot of the same node, "good" one of node B.
 * Ten candidates: every one gets a real verdict, none from bad; what bad
 * failed goes to node B, never to its twin; bad is out of rotation after
 * exactly 3 faults and gets nothing more. */
static void test_taint_goes_to_another_node(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "inproc://pool-taint", 1000, &err);
    s_got_t got = {0};
    wh_job_spec_t spec;
    s_spec(&spec, "job-t");
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
    CHECK_EQ_INT(wh_pool_set_note(p, "job-t", s_on_note), 0);
    CHECK_EQ_INT(wh_pool_set_note(p, "no-such-job", s_on_note), WH_ENOTFOUND);
    void *sl[3] = {s_slot_on(zctx, "inproc://pool-taint", "bad", "A"),
                   s_slot_on(zctx, "inproc://pool-taint", "twin", "A"),
                   s_slot_on(zctx, "inproc://pool-taint", "good", "B")};
    for (int k = 0; k < 20; k++)
        wh_pool_poll(p, 5);
    for (uint64_t c = 1; c <= 10; c++)
        CHECK_EQ_INT(wh_pool_submit(p, "job-t", c, "x", 1, 0), 0);
    int evals[3] = {0, 0, 0}, twin_got_failed = 0;
    uint64_t failed_on_bad[16] = {0};
    int nfailed = 0;
    uint64_t t0 = wh_now_ms();
    while (got.n < 10 && wh_now_ms() - t0 < 5000) {
        wh_pool_poll(p, 5);
        for (int i = 0; i < 3; i++) {
            wh_msg_t m = {0};
            while (wh_wire_recv(sl[i], &m, ZMQ_DONTWAIT) == 0) {
                if (m.type == WH_MSG_EVALUATE) {
                    evals[i]++;
                    if (i == 0) {
                        s_taint(sl[i], m.cand_id);
                        if (nfailed < 16)
                            failed_on_bad[nfailed++] = m.cand_id;
                    } else {
                        for (int k = 0; k < nfailed; k++)
                            twin_got_failed |= i == 1 && failed_on_bad[k] == m.cand_id;
                        s_verdict(sl[i], m.cand_id, WH_V_TEST_PASSED);
                    }
                }
                wh_msg_clear(&m);
            }
            wh_msg_clear(&m);
        }
    }
    CHECK_EQ_INT(got.n, 10);
    int from_bad = 0, infra = 0;
    for (int i = 0; i < got.n; i++) {
        from_bad += strcmp(got.worker[i], "bad") == 0;
        infra += got.v[i] == WH_V_INFRA_ERROR;
    }
    CHECK_EQ_INT(from_bad, 0);
    CHECK_EQ_INT(infra, 0);
    CHECK_EQ_INT(evals[0], 3);
    CHECK_EQ_INT(evals[0] + evals[1] + evals[2], 13);
    CHECK_EQ_INT(twin_got_failed, 0);
    CHECK_EQ_INT(got.faults, 3);
    CHECK_EQ_INT(got.outs, 1);
    CHECK_EQ_STR(got.out_worker, "bad");
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.out_of_rotation, 1);
    CHECK_EQ_INT(st.infra_faults, 3);
    CHECK_EQ_INT(st.slots, 3);
    wh_buf_t b = WH_BUF_INIT;
    wh_pool_describe(p, &b);
    CHECK(strstr(b.buf, "out of rotation: 1  infra faults: 3") != NULL);
    CHECK(strstr(b.buf, "slot bad") && strstr(b.buf, "OUT OF ROTATION: 3 infrastructure faults in "
                                                   "a row; last: infrastructure fault (no space)"));
    CHECK(strstr(strstr(b.buf, "slot twin"), "OUT OF ROTATION") == NULL);
    wh_buf_free(&b);
    for (int i = 0; i < 3; i++)
        zmq_close(sl[i]);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* The retry budget: on three nodes that all fail it, a candidate is
 * answered InfraError (WH_ETAINT) after 3 tries; with one slot, after the
 * first (nowhere else to go); and once every slot is out of rotation, the
 * queued candidates are answered rather than left waiting. */
static void test_taint_budget(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "inproc://pool-budget", 1000, &err);
    s_got_t got = {0};
    wh_job_spec_t spec;
    s_spec(&spec, "job-u");
    wh_pool_add_job(p, &spec, s_on_verdict, &got);
    void *sl[4] = {s_slot_on(zctx, "inproc://pool-budget", "b1", "n1"),
                   s_slot_on(zctx, "inproc://pool-budget", "b2", "n2"),
                   s_slot_on(zctx, "inproc://pool-budget", "b3", "n3"),
                   s_slot_on(zctx, "inproc://pool-budget", "b4", "n4")};
    for (int k = 0; k < 20; k++)
        wh_pool_poll(p, 5);
    wh_pool_submit(p, "job-u", 1, "x", 1, 0);
    int evals = 0;
    uint64_t t0 = wh_now_ms();
    while (got.n < 1 && wh_now_ms() - t0 < 3000) {
        wh_pool_poll(p, 5);
        for (int i = 0; i < 4; i++) {
            wh_msg_t m = {0};
            while (wh_wire_recv(sl[i], &m, ZMQ_DONTWAIT) == 0) {
                if (m.type == WH_MSG_EVALUATE) {
                    evals++;
                    s_taint(sl[i], m.cand_id);
                }
                wh_msg_clear(&m);
            }
            wh_msg_clear(&m);
        }
    }
    CHECK_EQ_INT(got.n, 1);
    CHECK_EQ_INT(evals, 3);
    CHECK_EQ_INT(got.v[0], WH_V_INFRA_ERROR);
    CHECK_EQ_INT(got.code[0], WH_ETAINT);
    for (int i = 0; i < 4; i++)
        zmq_close(sl[i]);
    wh_pool_destroy(&p);

    /* One slot: nowhere to retry; three candidates take it out of rotation,
     * and the fourth, queued behind them, is answered without a try. */
    p = wh_pool_new(zctx, "inproc://pool-single", 1000, &err);
    memset(&got, 0, sizeof got);
    wh_pool_add_job(p, &spec, s_on_verdict, &got);
    void *one = s_slot_on(zctx, "inproc://pool-single", "only", "n1");
    for (int k = 0; k < 20; k++)
        wh_pool_poll(p, 5);
    for (uint64_t c = 1; c <= 4; c++)
        wh_pool_submit(p, "job-u", c, "x", 1, 0);
    evals = 0;
    t0 = wh_now_ms();
    while (got.n < 4 && wh_now_ms() - t0 < 3000) {
        wh_pool_poll(p, 5);
        wh_msg_t m = {0};
        while (wh_wire_recv(one, &m, ZMQ_DONTWAIT) == 0) {
            if (m.type == WH_MSG_EVALUATE) {
                evals++;
                s_taint(one, m.cand_id);
            }
            wh_msg_clear(&m);
        }
        wh_msg_clear(&m);
    }
    CHECK_EQ_INT(got.n, 4);
    CHECK_EQ_INT(evals, 3);
    for (int i = 0; i < got.n; i++) {
        CHECK_EQ_INT(got.v[i], WH_V_INFRA_ERROR);
        CHECK_EQ_INT(got.code[i], WH_ETAINT);
    }
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.out_of_rotation, 1);
    CHECK_EQ_INT(st.queued, 0);
    zmq_close(one);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* The embedded cluster's slots are threads of its own process
 * (wh_pool_local_slots): one silent for 3 heartbeats and more (a loaded
 * machine) keeps its candidate and its place; a remote pool's is lost. */
static void test_local_slot_never_lost(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    for (int local = 0; local <= 1; local++) {
        wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
        CHECK(p != NULL);
        if (local)
            wh_pool_local_slots(p);
        s_got_t got = {0};
        wh_job_spec_t spec = {0};
        spec.job_id = "job-local";
        spec.project = "/p";
        spec.test_file = "t.c";
        spec.test = "t";
        spec.run_cmd = "true";
        CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
        void *a = s_slot(zctx, wh_pool_endpoint(p), "a");
        void *slots[1] = {a};
        uint64_t busy[1] = {0}, ev[1] = {0};
        s_pump(p, 100, slots, busy, 1, ev);
        CHECK_EQ_INT(wh_pool_submit(p, "job-local", 1, "x", 1, 0), 0);
        s_pump(p, 100, slots, busy, 1, ev);
        CHECK_EQ_INT(ev[0], 1);
        slots[0] = NULL; /* silent for 6 heartbeats */
        s_pump(p, 600, slots, busy, 1, ev);
        wh_pool_stats_t st;
        wh_pool_stats(p, &st);
        CHECK_EQ_INT(st.slots, local ? 1 : 0);
        CHECK_EQ_INT(got.n, 0); /* its candidate is neither answered nor lost */
        zmq_close(a);
        wh_pool_destroy(&p);
    }
    zmq_ctx_term(zctx);
}

/* A slot lost again and again (issue 10): the first loss costs nothing,
 * from the second on the slot is held back when it comes back (1 s after
 * the second), the fifth in a row takes it out of rotation. Its candidate,
 * lost 3 times, is an InfraError. */
static void test_lost_slot_budget(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_got_t got = {0};
    wh_job_spec_t spec = {0};
    spec.job_id = "job-l";
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
    void *a = s_slot(zctx, wh_pool_endpoint(p), "a");
    void *slots[1] = {a};
    uint64_t busy[1] = {0}, ev[1] = {0};
    wh_pool_stats_t st;
    s_pump(p, 100, slots, busy, 1, ev);
    for (int loss = 1; loss <= 5; loss++) {
        if (loss == 1) {
            CHECK_EQ_INT(wh_pool_submit(p, "job-l", 1, "x", 1, 0), 0);
            s_pump(p, 100, slots, busy, 1, ev);
            CHECK_EQ_INT(ev[0], 1);
        }
        slots[0] = NULL; /* silent: declared dead after 3 heartbeats */
        s_pump(p, 450, slots, busy, 1, ev);
        wh_pool_stats(p, &st);
        CHECK_EQ_INT(st.slots, 0);
        slots[0] = a;
        busy[0] = ev[0] = 0; /* back, idle */
        s_pump(p, 100, slots, busy, 1, ev);
        wh_pool_stats(p, &st);
        CHECK_EQ_INT(st.slots, 1);
        CHECK_EQ_INT(st.out_of_rotation, loss >= 5);
        if (loss == 1) {
            CHECK_EQ_INT(ev[0], 1); /* no hold after one loss */
        } else if (loss == 2) {
            CHECK_EQ_INT(ev[0], 0); /* held back ... */
            s_pump(p, 1000, slots, busy, 1, ev);
            CHECK_EQ_INT(ev[0], 1); /* ... for 1 s */
        } else {
            CHECK_EQ_INT(ev[0], 0);
        }
    }
    CHECK_EQ_INT(got.n, 1);
    CHECK_EQ_INT(got.cand[0], 1);
    CHECK_EQ_INT(got.v[0], WH_V_INFRA_ERROR);
    zmq_close(a);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

static void test_dead_slot_requeue_and_return(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_got_t got = {0};
    wh_job_spec_t spec = {0};
    spec.job_id = "job-a";
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);

    void *a = s_slot(zctx, wh_pool_endpoint(p), "a");
    void *slots[2] = {a, NULL};
    uint64_t busy[2] = {0, 0}, ev[2] = {0, 0};
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(wh_pool_submit(p, "job-a", 7, "x", 1, 0), 0);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[0], 7);

    /* a goes silent (a network cut): dead after 3 heartbeats, 7 requeued */
    slots[0] = NULL;
    s_pump(p, 450, slots, busy, 2, ev);
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.slots, 0);
    CHECK_EQ_INT(st.requeued, 1);
    CHECK_EQ_INT(st.queued, 1);

    /* a comes back, still judging 7, and b joins: 7 must go to b only */
    void *b = s_slot(zctx, wh_pool_endpoint(p), "b");
    slots[0] = a;
    slots[1] = b;
    ev[0] = ev[1] = 0;
    s_pump(p, 200, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[1], 7);
    CHECK_EQ_INT(ev[0], 0);
    /* a's late verdict for 7 is not taken */
    s_verdict(a, 7, WH_V_TEST_PASSED);
    busy[0] = 0;
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(got.n, 0);
    /* a is free again and gets new work; b's verdict for 7 is the one */
    CHECK_EQ_INT(wh_pool_submit(p, "job-a", 8, "y", 1, 0), 0);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[0], 8);
    s_verdict(b, 7, WH_V_PRESERVED);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(got.n, 1);
    CHECK_EQ_INT(got.cand[0], 7);
    CHECK_EQ_INT(got.v[0], WH_V_PRESERVED);
    CHECK(strncmp(got.worker[0], "b", 1) == 0);

    zmq_close(a);
    zmq_close(b);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

static void test_three_losses_is_infra_error(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "inproc://pool-losses", 100, &err);
    s_got_t got = {0};
    wh_job_spec_t spec = {0};
    spec.job_id = "job-b";
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    wh_pool_add_job(p, &spec, s_on_verdict, &got);
    wh_pool_submit(p, "job-b", 3, "z", 1, 0);
    for (int round = 0; round < 3; round++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", round);
        void *s = s_slot(zctx, "inproc://pool-losses", id);
        void *slots[1] = {s};
        uint64_t busy[1] = {0}, ev[1] = {0};
        s_pump(p, 100, slots, busy, 1, ev);
        CHECK_EQ_INT(ev[0], 3);
        zmq_close(s); /* dies holding it */
        slots[0] = NULL;
        s_pump(p, 450, slots, busy, 1, NULL);
    }
    CHECK_EQ_INT(got.n, 1);
    CHECK_EQ_INT(got.v[0], WH_V_INFRA_ERROR);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

static void test_jobs_take_turns(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "inproc://pool-fair", 1000, &err);
    s_got_t g1 = {0}, g2 = {0};
    wh_job_spec_t spec = {0};
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    spec.job_id = "j1";
    wh_pool_add_job(p, &spec, s_on_verdict, &g1);
    spec.job_id = "j2";
    wh_pool_add_job(p, &spec, s_on_verdict, &g2);
    for (uint64_t c = 1; c <= 4; c++) {
        wh_pool_submit(p, "j1", c, "a", 1, 0);
        wh_pool_submit(p, "j2", 100 + c, "b", 1, 0);
    }
    void *s = s_slot(zctx, "inproc://pool-fair", "only");
    /* one slot: judge 4 candidates one at a time; each job must get 2 */
    int j1 = 0, j2 = 0;
    for (int k = 0; k < 4; k++) {
        wh_msg_t m = {0};
        uint64_t t0 = wh_now_ms();
        int have = 0;
        while (!have && wh_now_ms() - t0 < 2000) {
            wh_pool_poll(p, 10);
            if (wh_wire_recv(s, &m, ZMQ_DONTWAIT) == 0 && m.type == WH_MSG_EVALUATE)
                have = 1;
            else
                wh_msg_clear(&m);
        }
        CHECK(have);
        if (m.job.job_id && !strcmp(m.job.job_id, "j1"))
            j1++;
        else
            j2++;
        s_verdict(s, m.cand_id, WH_V_TEST_PASSED);
        wh_msg_clear(&m);
    }
    CHECK_EQ_INT(j1, 2);
    CHECK_EQ_INT(j2, 2);
    zmq_close(s);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

static void s_warmed(void *sock, const char *job, int code, uint32_t ms, int cloned,
                     uint32_t setups, int final)
{
    wh_msg_t m = {0};
    m.type = WH_MSG_WARMED;
    m.job.job_id = (char *)job;
    m.code = code;
    m.warm_ms = ms;
    m.clone_ms = cloned ? ms : 0;
    m.cloned = cloned;
    m.setups = setups;
    m.final = final;
    wh_wire_send(sock, &m, 0);
}

static void test_warm_dispatch(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_got_t got = {0};
    wh_job_spec_t spec = {0};
    spec.job_id = "job-w";
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
    /* a joins first, so it is first in dispatch order */
    void *a = s_slot(zctx, wh_pool_endpoint(p), "a");
    void *slots[2] = {a, NULL};
    uint64_t busy[2] = {0, 0}, ev[2] = {0, 0};
    s_warm_reply = 0;
    s_warms[0] = s_warms[1] = 0;
    s_pump(p, 100, slots, busy, 2, ev);
    void *b = s_slot(zctx, wh_pool_endpoint(p), "b");
    slots[1] = b;
    s_pump(p, 100, slots, busy, 2, ev);
    /* no work yet: nobody is warmed */
    CHECK_EQ_INT(s_warms[0] + s_warms[1], 0);
    CHECK_EQ_INT(wh_pool_submit(p, "job-w", 1, "x", 1, 0), 0);
    s_pump(p, 100, slots, busy, 2, ev);
    /* no slot is warm: a takes 1 and prepares on the way; b is warmed */
    CHECK_EQ_INT(ev[0], 1);
    CHECK_EQ_INT(s_warms[1], 1);
    CHECK_EQ_INT(s_warms[0], 0);
    /* a reports its workspace (a setup); b's WARM is still running: 2
     * waits for a warm slot */
    s_warmed(a, "job-w", 0, 900, 0, 1, 0);
    CHECK_EQ_INT(wh_pool_submit(p, "job-w", 2, "y", 1, 0), 0);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[1], 0);
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.queued, 1);
    /* b is ready (a clone): it joins and takes 2 */
    s_warmed(b, "job-w", 0, 40, 1, 0, 0);
    s_warmed(b, "job-w", 0, 0, 0, 0, 1);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[1], 2);
    wh_pool_warm_t w;
    CHECK_EQ_INT(wh_pool_warm_stats(p, "job-w", &w), 0);
    CHECK_EQ_INT(w.setups, 1);
    CHECK_EQ_INT(w.clones, 1);
    CHECK_EQ_INT(w.setup_ms, 900);
    CHECK_EQ_INT(w.clone_ms, 40);
    CHECK(w.first_warm_ms > 0);

    /* A second job whose WARM fails on b: b stays cold for it and is not
     * warmed again; its candidate waits for a, the warm slot. */
    spec.job_id = "job-x";
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
    s_verdict(a, 1, WH_V_TEST_PASSED);
    busy[0] = 0;
    s_pump(p, 100, slots, busy, 2, ev);
    s_warms[0] = s_warms[1] = 0;
    CHECK_EQ_INT(wh_pool_submit(p, "job-x", 3, "z", 1, 0), 0);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[0], 3); /* a was idle and nobody was warm for job-x */
    s_warmed(a, "job-x", 0, 500, 0, 1, 0);
    s_verdict(b, 2, WH_V_TEST_PASSED);
    busy[1] = 0;
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(s_warms[1], 1); /* b: cold for job-x, which has work */
    s_warmed(b, "job-x", WH_ESETUP, 0, 0, 0, 1);
    CHECK_EQ_INT(wh_pool_submit(p, "job-x", 4, "w", 1, 0), 0);
    s_pump(p, 150, slots, busy, 2, ev);
    CHECK_EQ_INT(s_warms[1], 1);
    CHECK(ev[1] != 4);
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.queued, 1);
    /* A verify task of job-x that would rather go to another node than a
     * (a judged it): b is that node but will never take job-x's work, so
     * a takes it rather than wait for ever (CI: a rerun after a failed
     * setup hung in "verifying the reduced test"). */
    s_verdict(a, 3, WH_V_TEST_PASSED);
    busy[0] = 0;
    s_pump_until(p, slots, busy, 2, ev, 0, 4);
    CHECK_EQ_INT(ev[0], 4);
    s_verdict(a, 4, WH_V_TEST_PASSED);
    busy[0] = 0;
    CHECK_EQ_INT(wh_pool_submit_verify(p, "job-x", 5, "v", 1, "a"), 0);
    s_pump_until(p, slots, busy, 2, ev, 0, 5);
    CHECK_EQ_INT(ev[0], 5);
    /* job-x leaves and the same job comes again: b is warmed afresh. */
    s_verdict(a, 5, WH_V_TEST_PASSED);
    busy[0] = 0;
    s_pump(p, 50, slots, busy, 2, ev);
    wh_pool_remove_job(p, "job-x");
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
    s_warms[1] = 0;
    CHECK_EQ_INT(wh_pool_submit(p, "job-x", 6, "u", 1, 0), 0);
    s_pump_until(p, slots, busy, 2, ev, 0, 6);
    uint64_t t0 = wh_now_ms();
    while (!s_warms[1] && wh_now_ms() - t0 < 10000)
        s_pump(p, 20, slots, busy, 2, ev);
    CHECK_EQ_INT(s_warms[1], 1);
    s_warm_reply = 1;
    zmq_close(a);
    zmq_close(b);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* An older slot (no warms in its HELLO) is never sent WARM and takes
 * candidates cold, even while another slot is warm, as before warm-up. */
static void test_warm_older_slot(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_got_t got = {0};
    wh_job_spec_t spec = {0};
    spec.job_id = "job-o";
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, &got), 0);
    void *a = s_slot(zctx, wh_pool_endpoint(p), "a");
    void *slots[2] = {a, NULL};
    uint64_t busy[2] = {0, 0}, ev[2] = {0, 0};
    s_warm_reply = 0;
    s_warms[0] = s_warms[1] = 0;
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(wh_pool_submit(p, "job-o", 1, "x", 1, 0), 0);
    s_pump(p, 100, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[0], 1); /* a is warm for job-o from now on */
    void *o = s_slot(zctx, wh_pool_endpoint(p), "old");
    slots[1] = o;
    CHECK_EQ_INT(wh_pool_submit(p, "job-o", 2, "y", 1, 0), 0);
    s_pump(p, 150, slots, busy, 2, ev);
    CHECK_EQ_INT(ev[1], 2);
    CHECK_EQ_INT(s_warms[1], 0);
    s_warm_reply = 1;
    zmq_close(a);
    zmq_close(o);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* Lazy candidates: the text is made by the job's render function when a
 * slot takes the task; a NULL text drops the task with an InfraError. */
typedef struct {
    s_got_t got; /* first: s_on_verdict's view of the ctx */
    int renders;
} s_lazy_t;

static char *s_render(void *ctx, uint64_t cand, size_t *len)
{
    s_lazy_t *l = ctx;
    l->renders++;
    if (cand == 4)
        return NULL;
    char *t = wh_strdup_printf("text-%llu", (unsigned long long)cand);
    *len = t ? strlen(t) : 0;
    return t;
}

static void s_add_lazy_job(wh_pool_t *p, char *id, s_lazy_t *l)
{
    wh_job_spec_t spec = {0};
    spec.job_id = id;
    spec.project = "/p";
    spec.test_file = "t.c";
    spec.test = "t";
    spec.run_cmd = "true";
    CHECK_EQ_INT(wh_pool_add_job(p, &spec, s_on_verdict, l), 0);
}

static void test_lazy_render(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_lazy_t l = {0};
    s_add_lazy_job(p, "job-l", &l);
    CHECK_EQ_INT(wh_pool_submit_lazy(p, "job-l", 5), WH_EINVAL); /* no render function */
    CHECK_EQ_INT(wh_pool_set_render(p, "job-l", s_render), 0);
    CHECK_EQ_INT(wh_pool_set_render(p, "nope", s_render), WH_ENOTFOUND);
    CHECK_EQ_INT(wh_pool_submit_lazy(p, "job-l", 6), 0);
    CHECK_EQ_INT(wh_pool_submit_lazy(p, "job-l", 4), 0); /* goes before 6: queued by id */
    CHECK_EQ_INT(l.renders, 0); /* nothing rendered while queued */

    /* an older slot (no warm-up): it takes candidates as they come */
    void *a = s_slot(zctx, wh_pool_endpoint(p), "old-a");
    uint64_t t0 = wh_now_ms();
    int evals = 0;
    uint64_t cand = 0;
    char text[32] = "";
    while (wh_now_ms() - t0 < 300) {
        wh_pool_poll(p, 10);
        wh_msg_t m = {0};
        while (wh_wire_recv(a, &m, ZMQ_DONTWAIT) == 0) {
            if (m.type == WH_MSG_EVALUATE) {
                evals++;
                cand = m.cand_id;
                snprintf(text, sizeof text, "%.*s", (int)m.content_len, (const char *)m.content);
            }
            wh_msg_clear(&m);
        }
        wh_msg_clear(&m);
        wh_msg_t hb = {0};
        hb.type = WH_MSG_HEARTBEAT;
        hb.cand_id = cand;
        wh_wire_send(a, &hb, ZMQ_DONTWAIT);
    }
    /* 4 (queued later, taken first) rendered to NULL: dropped and answered
     * InfraError; 6 went out with its text. */
    CHECK_EQ_INT(l.got.n, 1);
    CHECK_EQ_INT(l.got.cand[0], 4);
    CHECK_EQ_INT(l.got.v[0], WH_V_INFRA_ERROR);
    CHECK_EQ_INT(evals, 1);
    CHECK_EQ_INT(cand, 6);
    CHECK(strcmp(text, "text-6") == 0);
    CHECK_EQ_INT(l.renders, 2);
    wh_pool_stats_t st;
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.queued, 0);
    zmq_close(a);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* A job's hold function keeps a queued lazy candidate from starting (the
 * slot waits, asked again at every poll) until it lets go. */
static int s_hold_on = 1, s_holds = 0;

static int s_hold(void *ctx, uint64_t cand)
{
    (void)ctx;
    s_holds++;
    return cand == 7 && s_hold_on;
}

/* Polls for up to ms; the cand_id of the first EVALUATE slot a receives,
 * or 0. The slot sends heartbeats meanwhile. */
static uint64_t s_first_eval(wh_pool_t *p, void *a, uint64_t ms)
{
    uint64_t t0 = wh_now_ms(), got = 0;
    while (!got && wh_now_ms() - t0 < ms) {
        wh_pool_poll(p, 10);
        wh_msg_t m = {0};
        while (wh_wire_recv(a, &m, ZMQ_DONTWAIT) == 0) {
            if (m.type == WH_MSG_EVALUATE && !got)
                got = m.cand_id;
            wh_msg_clear(&m);
        }
        wh_msg_clear(&m);
        wh_msg_t hb = {0};
        hb.type = WH_MSG_HEARTBEAT;
        wh_wire_send(a, &hb, ZMQ_DONTWAIT);
    }
    return got;
}

static void test_lazy_hold(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_lazy_t l = {0};
    s_add_lazy_job(p, "job-h", &l);
    CHECK_EQ_INT(wh_pool_set_render(p, "job-h", s_render), 0);
    CHECK_EQ_INT(wh_pool_set_hold(p, "job-h", s_hold), 0);
    CHECK_EQ_INT(wh_pool_set_hold(p, "nope", s_hold), WH_ENOTFOUND);
    CHECK_EQ_INT(wh_pool_submit_lazy(p, "job-h", 7), 0);
    void *a = s_slot(zctx, wh_pool_endpoint(p), "old-h");
    /* Held: the slot is free, yet nothing goes out, and nothing is rendered. */
    CHECK_EQ_INT((int)s_first_eval(p, a, 300), 0);
    CHECK(s_holds > 0);
    CHECK_EQ_INT(l.renders, 0);
    /* Let go: the next poll sends it. */
    s_hold_on = 0;
    CHECK_EQ_INT((int)s_first_eval(p, a, 5000), 7);
    CHECK_EQ_INT(l.renders, 1);
    zmq_close(a);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* A hold that changes its mind between the pool's choice of a job and its
 * take of the task (a hold is timed): the slot is not served this time,
 * and nothing breaks (it dereferenced a NULL task: test_sched crashed 4
 * times in 12 under load). Held on every second call, the first 4 calls. */
static int s_flips = 0;

static int s_hold_flip(void *ctx, uint64_t cand)
{
    (void)ctx;
    (void)cand;
    s_flips++;
    return s_flips <= 4 && s_flips % 2 == 0;
}

static void test_lazy_hold_flips(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    s_lazy_t l = {0};
    s_add_lazy_job(p, "job-f", &l);
    CHECK_EQ_INT(wh_pool_set_render(p, "job-f", s_render), 0);
    CHECK_EQ_INT(wh_pool_set_hold(p, "job-f", s_hold_flip), 0);
    CHECK_EQ_INT(wh_pool_submit_lazy(p, "job-f", 9), 0);
    void *a = s_slot(zctx, wh_pool_endpoint(p), "old-f");
    CHECK_EQ_INT((int)s_first_eval(p, a, 5000), 9);
    CHECK(s_flips > 4);
    zmq_close(a);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* wh_pool_wake_at: the poll returns when the time asked for comes, long
 * before its own timeout; the soonest of two times wins; a time already
 * past wakes the next poll at once. */
static void test_wake_at(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "inproc://pool-wake-at", 1000, &err);
    CHECK(p != NULL);
    if (!p) {
        free(err);
        zmq_ctx_term(zctx);
        return;
    }
    uint64_t t0 = wh_now_ms();
    wh_pool_wake_at(p, t0 + 60000);
    wh_pool_wake_at(p, t0 + 40); /* sooner: re-armed */
    wh_pool_wake_at(p, t0 + 50000); /* later: the sooner one stays */
    while (wh_now_ms() - t0 < 30000 && wh_now_ms() < t0 + 40)
        wh_pool_poll(p, 30000); /* a deadline, not a sleep */
    uint64_t took = wh_now_ms() - t0;
    CHECK(took >= 40);
    CHECK(took < 30000); /* woken by the timer, not the poll timeout */
    t0 = wh_now_ms();
    wh_pool_wake_at(p, t0 - 5); /* past: at once */
    wh_pool_poll(p, 30000);
    CHECK(wh_now_ms() - t0 < 30000);
    /* Run out but not drained yet: a later time asked then does not undo
     * the wake-up (the poll returns at once; the asker asks again). */
    t0 = wh_now_ms();
    wh_pool_wake_at(p, t0 + 20);
    while (wh_now_ms() < t0 + 25)
        ; /* until it has run out: a condition, not a sleep */
    wh_pool_wake_at(p, t0 + 60000);
    wh_pool_poll(p, 30000);
    CHECK(wh_now_ms() - t0 < 30000);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

/* An owner away from wh_pool_poll for longer than 3 heartbeats (a farm's
 * jobs tended in one long turn, a loaded machine): its slots still hear a
 * HEARTBEAT every hb_ms (the pool's own thread sends them), so none takes
 * the coordinator for lost; when the owner looks again, a slot that spoke
 * meanwhile is alive and one that was silent all along is dead. */
static void test_busy_owner(void)
{
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_pool_t *p = wh_pool_new(zctx, "tcp://127.0.0.1:*", 100, &err);
    CHECK(p != NULL);
    void *a = s_slot(zctx, wh_pool_endpoint(p), "a");
    void *b = s_slot(zctx, wh_pool_endpoint(p), "b");
    void *slots[2] = {a, b};
    uint64_t busy[2] = {0, 0}, ev[2] = {0, 0};
    wh_pool_stats_t st;
    uint64_t t0 = wh_now_ms();
    do {
        s_pump(p, 20, slots, busy, 2, ev);
        wh_pool_stats(p, &st);
    } while (st.slots < 2 && wh_now_ms() - t0 < 10000);
    CHECK_EQ_INT(st.slots, 2);
    /* Drain what the slots got so far: only heartbeats sent while the
     * owner is away count. */
    for (int i = 0; i < 2; i++) {
        wh_msg_t m = {0};
        while (wh_wire_recv(slots[i], &m, ZMQ_DONTWAIT) == 0)
            wh_msg_clear(&m);
        wh_msg_clear(&m);
    }
    /* The owner is away: until a has heard 3 heartbeats and more than 3
     * heartbeat times have passed (10 s at most). a keeps talking, b says
     * nothing. */
    int heard = 0;
    uint64_t away = wh_now_ms(), last_hb = 0;
    while ((heard < 3 || wh_now_ms() - away < 450) && wh_now_ms() - away < 10000) {
        zmq_pollitem_t it = {a, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 20) > 0) {
            wh_msg_t m = {0};
            while (wh_wire_recv(a, &m, ZMQ_DONTWAIT) == 0) {
                heard += m.type == WH_MSG_HEARTBEAT;
                wh_msg_clear(&m);
            }
            wh_msg_clear(&m);
        }
        if (wh_now_ms() - last_hb >= 50) {
            wh_msg_t hb = {0};
            hb.type = WH_MSG_HEARTBEAT;
            hb.warms = 1;
            wh_wire_send(a, &hb, ZMQ_DONTWAIT);
            last_hb = wh_now_ms();
        }
    }
    CHECK(heard >= 3);
    /* Back: a is alive. b's last heartbeats waited unread in the socket,
     * so its silence counts from now: it is dead 3 heartbeats later. */
    wh_pool_poll(p, 0);
    wh_pool_stats(p, &st);
    CHECK_EQ_INT(st.slots, 2);
    CHECK_EQ_INT((int)st.dead_slots, 0);
    slots[1] = NULL;
    t0 = wh_now_ms();
    do {
        s_pump(p, 20, slots, busy, 2, ev);
        wh_pool_stats(p, &st);
    } while (st.slots > 1 && wh_now_ms() - t0 < 10000);
    CHECK_EQ_INT(st.slots, 1);
    CHECK_EQ_INT((int)st.dead_slots, 1);
    wh_buf_t d = WH_BUF_INIT;
    wh_pool_describe(p, &d);
    CHECK(strstr(d.buf, "slot a ") != NULL);
    wh_buf_free(&d);
    zmq_close(a);
    zmq_close(b);
    wh_pool_destroy(&p);
    zmq_ctx_term(zctx);
}

int main(void)
{
    RUN_TEST(test_busy_owner);
    RUN_TEST(test_wake_at);
    RUN_TEST(test_dead_slot_requeue_and_return);
    RUN_TEST(test_lazy_hold);
    RUN_TEST(test_lazy_hold_flips);
    RUN_TEST(test_lost_slot_budget);
    RUN_TEST(test_local_slot_never_lost);
    RUN_TEST(test_three_losses_is_infra_error);
    RUN_TEST(test_jobs_take_turns);
    RUN_TEST(test_taint_goes_to_another_node);
    RUN_TEST(test_taint_budget);
    RUN_TEST(test_warm_dispatch);
    RUN_TEST(test_warm_older_slot);
    RUN_TEST(test_lazy_render);
    TEST_MAIN_END();
}
