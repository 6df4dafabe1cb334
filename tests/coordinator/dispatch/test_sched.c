/*
 * test_sched — the whole coordinator path (libclang tree, engine, renderer,
 * cache, pool, wire, ZeroMQ) driven by simulated node slots with random
 * latencies, over inproc:// and tcp://. For many random tests and oracles,
 * the reduced test, the accepted configurations and the verdict of every
 * canonical candidate must be the same for 1, 2, 4 and 8 slots, whatever
 * order the verdicts arrive in.
 *
 * A simulated slot is a thread with a DEALER socket that speaks the wire
 * protocol: it judges a candidate from its content (which marked statements
 * survive), after a random delay, and honours CANCEL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "cache.h"
#include "job.h"
#include "pool.h"
#include "reduce.h"
#include "wh_test.h"
#include "wire.h"

#define MAXS 64

/* ---- the synthetic test and its oracle ---- */

typedef struct {
    int n;                 /* statements s0..s(n-1) */
    int required[MAXS];    /* 1: must survive for the failure */
    int needs[MAXS];       /* statement i does not build without statement needs[i] (-1: none) */
    int differs[MAXS];     /* 1: its absence changes the failure */
} s_oracle_t;

static unsigned s_rand(unsigned *st)
{
    *st = *st * 1103515245u + 12345u;
    return (*st >> 16) & 0x7fff;
}

/* Writes a C file whose test function holds n marked calls `s(i);`, some
 * grouped in if/for/while blocks (Tree statements) up to 3 deep. */
static void s_gen(const char *path, unsigned seed, s_oracle_t *o)
{
    unsigned st = seed;
    o->n = 8 + (int)(s_rand(&st) % 24);
    for (int i = 0; i < o->n; i++) {
        o->required[i] = s_rand(&st) % 6 == 0;
        o->needs[i] = i > 0 && s_rand(&st) % 4 == 0 ? (int)(s_rand(&st) % (unsigned)i) : -1;
        o->differs[i] = !o->required[i] && s_rand(&st) % 9 == 0;
    }
    o->required[s_rand(&st) % (unsigned)o->n] = 1;
    wh_buf_t b = WH_BUF_INIT;
    wh_buf_puts(&b, "void s(int);\nint c;\nvoid test_synthetic(void)\n{\n");
    int depth = 0;
    for (int i = 0; i < o->n; i++) {
        unsigned r = s_rand(&st) % 10;
        if (r < 2 && depth < 3) {
            static const char *const open[] = {"if (c) {", "for (;;) {", "while (c) {"};
            wh_buf_printf(&b, "%*s%s\n", 4 * (depth + 1), "", open[s_rand(&st) % 3]);
            depth++;
        }
        wh_buf_printf(&b, "%*ss(%d);\n", 4 * (depth + 1), "", i);
        if (depth > 0 && s_rand(&st) % 3 == 0) {
            depth--;
            wh_buf_printf(&b, "%*s}\n", 4 * (depth + 1), "");
        }
    }
    while (depth > 0) {
        depth--;
        wh_buf_printf(&b, "%*s}\n", 4 * (depth + 1), "");
    }
    wh_buf_puts(&b, "}\n");
    wh_write_file(path, b.buf, b.len);
    wh_buf_free(&b);
}

static void s_present(const char *content, size_t len, int *present, int n)
{
    memset(present, 0, sizeof(int) * (size_t)n);
    for (size_t i = 0; i + 2 < len; i++) {
        if (content[i] == 's' && content[i + 1] == '(' && (i == 0 || content[i - 1] == ' ')) {
            int k = atoi(content + i + 2);
            if (k >= 0 && k < n && content[i + 2] >= '0' && content[i + 2] <= '9')
                present[k] = 1;
        }
    }
}

/* Verdict + fingerprint for one candidate. */
static void s_judge(const s_oracle_t *o, const char *content, size_t len, wh_msg_t *v)
{
    int present[MAXS];
    s_present(content, len, present, o->n);
    for (int i = 0; i < o->n; i++)
        if (present[i] && o->needs[i] >= 0 && !present[o->needs[i]]) {
            v->verdict = WH_V_BUILD_FAILED;
            v->code = WH_EBUILD;
            return;
        }
    int all = 1, diff = 0;
    for (int i = 0; i < o->n; i++) {
        all &= !o->required[i] || present[i];
        diff |= o->differs[i] && !present[i];
    }
    v->test_status = all ? 2 : 1;
    v->observed.test = strdup("test_synthetic");
    v->observed.kind = strdup("assert");
    v->observed.message = strdup(diff ? "other failure" : "the failure");
    v->observed.location = strdup("synthetic.c:1");
    v->verdict = !all ? WH_V_TEST_PASSED : diff ? WH_V_DIFFERENT_FAILURE : WH_V_PRESERVED;
}

/* ---- simulated slots ---- */

typedef struct {
    void *zctx;
    const char *endpoint;
    const s_oracle_t *o;
    unsigned seed;
    int max_delay_ms;
    atomic_int *stop;
    atomic_int *judged;
    pthread_t th;
    int index;
} s_slot_t;

static void *s_slot_main(void *arg)
{
    s_slot_t *s = arg;
    void *sock = zmq_socket(s->zctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    char ident[64];
    snprintf(ident, sizeof ident, "sim/%d/%u", s->index, s->seed);
    zmq_setsockopt(sock, ZMQ_ROUTING_ID, ident, strlen(ident));
    zmq_connect(sock, s->endpoint);
    wh_msg_t hello = {0};
    hello.type = WH_MSG_HELLO;
    hello.node_id = "sim";
    hello.slot = (uint32_t)s->index;
    wh_wire_send(sock, &hello, 0);
    unsigned st = s->seed;
    while (!atomic_load(s->stop)) {
        zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 50) <= 0)
            continue;
        wh_msg_t m = {0};
        if (wh_wire_recv(sock, &m, ZMQ_DONTWAIT) != 0) {
            wh_msg_clear(&m);
            continue;
        }
        if (m.type == WH_MSG_EVALUATE) {
            int delay = s->max_delay_ms ? (int)(s_rand(&st) % (unsigned)s->max_delay_ms) : 0;
            int cancelled = 0;
            for (int t = 0; t < delay && !cancelled; t++) {
                wh_msg_t c = {0};
                if (wh_wire_recv(sock, &c, ZMQ_DONTWAIT) == 0 && c.type == WH_MSG_CANCEL &&
                    c.cand_id == m.cand_id)
                    cancelled = 1;
                wh_msg_clear(&c);
                usleep(1000);
            }
            wh_msg_t v = {0};
            v.type = WH_MSG_VERDICT;
            v.cand_id = m.cand_id;
            v.job.job_id = m.job.job_id;
            if (cancelled) {
                v.verdict = WH_V_INFRA_ERROR;
                v.code = WH_ECANCEL;
            } else {
                s_judge(s->o, (const char *)m.content, m.content_len, &v);
                if (m.baseline)
                    v.verdict = WH_V_NONE;
                atomic_fetch_add(s->judged, 1);
            }
            v.job.job_id = m.job.job_id;
            wh_wire_send(sock, &v, 0);
            v.job.job_id = NULL;
            wh_fp_clear(&v.observed);
        }
        wh_msg_clear(&m);
    }
    zmq_close(sock);
    return NULL;
}

/* ---- one reduction ---- */

typedef struct {
    char *reduced;   /* reduced.lines.c */
    char *csv;       /* candidates.csv, columns 1-6 */
    int ok;
    int judged;
} s_outcome_t;

static char *s_cut_csv(const char *csv)
{
    wh_buf_t b = WH_BUF_INIT;
    const char *p = csv;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        int commas = 0;
        size_t k = 0;
        while (k < len && commas < 6) {
            if (p[k] == ',')
                commas++;
            if (commas < 6)
                k++;
        }
        wh_buf_append(&b, p, k);
        wh_buf_puts(&b, "\n");
        p += len + (eol ? 1 : 0);
    }
    return wh_buf_detach(&b);
}

static void s_run(const char *dir, const char *file, const s_oracle_t *o, int slots, int tcp,
                  unsigned seed, int max_delay, s_outcome_t *out)
{
    memset(out, 0, sizeof *out);
    void *zctx = zmq_ctx_new();
    char ep[128];
    if (tcp)
        snprintf(ep, sizeof ep, "tcp://127.0.0.1:*");
    else
        snprintf(ep, sizeof ep, "inproc://sched-%u-%d", seed, slots);
    char *err = NULL;
    wh_pool_t *pool = wh_pool_new(zctx, ep, 1000, &err);
    wh_cache_t *cache = wh_cache_open("memory:", &err);
    CHECK(pool && cache);
    char *outdir = wh_strdup_printf("%s/runs-%d-%d", dir, slots, tcp);
    wh_job_t j;
    wh_job_init(&j);
    j.project = strdup(dir);
    j.file = strdup(file);
    j.test = strdup("test_synthetic");
    j.run = strdup("true");
    j.framework = strdup("junit");
    j.out = outdir;
    j.jobs = slots;
    /* With 4 and 8 slots, idle slots also judge the predicted next round:
     * the answer must not change. */
    j.speculate = slots >= 4;
    wh_reduction_t *r = wh_reduction_new(&j, pool, cache, 1, NULL, &err);
    CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "%s\n", err ? err : "?");
        free(err);
        goto out;
    }
    atomic_int stop = 0, judged = 0;
    s_slot_t sl[8];
    for (int i = 0; i < slots; i++) {
        sl[i] = (s_slot_t){zctx, wh_pool_endpoint(pool), o, seed * 31u + (unsigned)i,
                           max_delay, &stop, &judged, 0, i};
        pthread_create(&sl[i].th, NULL, s_slot_main, &sl[i]);
    }
    uint64_t t0 = wh_now_ms();
    while (!wh_reduction_done(r) && wh_now_ms() - t0 < 120000)
        wh_pool_poll(pool, 20);
    const char *msg = NULL;
    /* One simulated node judged everything and verified the answer: not
     * verified by a second node (WH_EXIT_UNVERIFIED), an answer all the
     * same; the walk is what this test checks. */
    int st = wh_reduction_done(r) ? wh_reduction_status(r, &msg) : -1;
    out->ok = st == 0 || st == WH_EXIT_UNVERIFIED;
    if (!out->ok)
        fprintf(stderr, "seed %u slots %d: %s\n", seed, slots, msg ? msg : "timeout");
    atomic_store(&stop, 1);
    for (int i = 0; i < slots; i++)
        pthread_join(sl[i].th, NULL);
    out->judged = atomic_load(&judged);
    char *p = wh_path_join(wh_reduction_dir(r), "reduced.lines.c");
    wh_read_file(p, 1 << 20, &out->reduced, NULL);
    free(p);
    p = wh_path_join(wh_reduction_dir(r), "candidates.csv");
    char *csv = NULL;
    if (wh_read_file(p, 1 << 24, &csv, NULL) == 0)
        out->csv = s_cut_csv(csv);
    free(csv);
    free(p);
    wh_reduction_destroy(&r);
out:
    wh_job_clear(&j);
    wh_cache_close(&cache);
    wh_pool_destroy(&pool);
    zmq_ctx_term(zctx);
}

static void test_parallel_equals_sequential(void)
{
    int seeds = getenv("WH_SCHED_SEEDS") ? atoi(getenv("WH_SCHED_SEEDS")) : 24;
    char tmpl[] = "/tmp/wh_sched_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    static const int slot_counts[] = {2, 4, 8};
    int runs = 0, extra_judged = 0;
    for (int s = 1; s <= seeds; s++) {
        unsigned seed = (unsigned)s * 7919u;
        char file[64];
        snprintf(file, sizeof file, "synthetic_%u.c", seed);
        char *path = wh_path_join(dir, file);
        s_oracle_t o;
        s_gen(path, seed, &o);
        free(path);
        int tcp = s % 2;
        s_outcome_t ref;
        s_run(dir, file, &o, 1, tcp, seed, 0, &ref);
        CHECK(ref.ok);
        for (size_t k = 0; k < sizeof slot_counts / sizeof slot_counts[0]; k++) {
            s_outcome_t par;
            s_run(dir, file, &o, slot_counts[k], tcp, seed, 6, &par);
            runs++;
            CHECK(par.ok);
            if (!ref.reduced || !par.reduced || strcmp(ref.reduced, par.reduced) != 0) {
                fprintf(stderr, "seed %u slots %d %s: different reduced test\n", seed,
                        slot_counts[k], tcp ? "tcp" : "inproc");
                CHECK(0);
            }
            if (!ref.csv || !par.csv || strcmp(ref.csv, par.csv) != 0) {
                fprintf(stderr, "seed %u slots %d %s: different candidates/verdicts\n", seed,
                        slot_counts[k], tcp ? "tcp" : "inproc");
                CHECK(0);
            }
            extra_judged += par.judged - ref.judged;
            free(par.reduced);
            free(par.csv);
        }
        free(ref.reduced);
        free(ref.csv);
        char *runs_glob = wh_strdup_printf("%s", dir);
        free(runs_glob);
    }
    fprintf(stderr, "%d parallel runs matched their sequential run (%d extra judgements)\n",
            runs, extra_judged);
    wh_rm_rf(dir);
}

int main(void)
{
    setenv("WHITTLE_CACHE_DIR", "/tmp/wh_sched_cache_unused", 0);
    RUN_TEST(test_parallel_equals_sequential);
    TEST_MAIN_END();
}
