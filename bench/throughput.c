/*
 * throughput — the coordinator's per-candidate work in one process, with no
 * sockets, no nodes and no processes: the round engine, rendering, the cache
 * key, the batched cache lookup and store, and the protobuf encode/decode of
 * the EVALUATE and VERDICT messages a node would exchange; the oracle is the
 * synthetic fixture's own (bench/synthetic/marks.c) run on the rendered text
 * in memory. It walks the reduction sequentially (the first Preserved
 * candidate in canonical order wins, as with one slot) and prints how many
 * candidates per second that path sustains: the ceiling of the whole
 * distributed path (bench/throughput.sh), which adds ZeroMQ, the node and
 * two process starts per judged candidate.
 *
 *   whittle-bench-engine [--repeat N] [--test NAME] [--tsv] [FILE]
 *   whittle-bench-engine --spawn LANES N DIR BUILD RUN TEST
 *
 * FILE defaults to the fixture's tests/test_synth.c; libclang parses it once
 * (timed apart). --tsv prints one machine-readable line for throughput.sh.
 *
 * --spawn is the other end: no coordinator, no ZeroMQ, only the process
 * starts. LANES threads each run the BUILD then the RUN command N/LANES
 * times through the node's own runner (posix_spawn of `sh -c`, a process
 * group, a log file), lane k in folder DIR/lane<k> (which must hold the
 * fixture's tests/), with WHITTLE_TEST=TEST and WHITTLE_REPORT set. Prints
 * pairs per second: what this machine allows the whole path at best.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache.h"
#include "engine.h"
#include "marks.h"
#include "render.h"
#include "runner.h"
#include "tree.h"
#include "wh_common.h"
#include "wire.h"

#ifndef WH_BENCH_FIXTURE
#define WH_BENCH_FIXTURE "bench/synthetic/tests/test_synth.c"
#endif

typedef struct {
    long rounds, candidates, evaluated, cached, same;
    uint64_t judge_ns, wire_ns;
    size_t removed_after;
} s_stats_t;

static uint64_t s_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The fixture's verdict for one rendered candidate against the original's
 * failure (line ref_line, value 41). */
static wh_verdict_t s_judge(const char *text, size_t len, const char *test, int ref_line)
{
    syn_marks_t tests[SYN_MAX_TESTS];
    int n = syn_marks_parse(text, len, tests, SYN_MAX_TESTS);
    if (!syn_build_ok(tests, n, "", NULL))
        return WH_V_BUILD_FAILED;
    syn_outcome_t o = syn_run(tests, n, test);
    switch (o.status) {
    case SYN_MISSING: return WH_V_TEST_MISSING;
    case SYN_PASSED: return WH_V_TEST_PASSED;
    case SYN_CRASHED: return WH_V_DIFFERENT_FAILURE;
    case SYN_FAILED: return o.got == 41 && o.line == ref_line ? WH_V_PRESERVED : WH_V_DIFFERENT_FAILURE;
    }
    return WH_V_INFRA_ERROR;
}

/* The wire work of one judged candidate: EVALUATE encoded by the
 * coordinator and decoded by the node, VERDICT back the same way. */
static int s_wire(const wh_job_spec_t *job, uint64_t id, const char *content, size_t len,
                  wh_verdict_t v)
{
    wh_msg_t m = {0}, d = {0};
    uint8_t *buf = NULL;
    size_t blen = 0;
    m.type = WH_MSG_EVALUATE;
    m.job = *job;
    m.cand_id = id;
    m.content = (uint8_t *)content;
    m.content_len = len;
    m.ref.test = "test_synth";
    m.ref.kind = "assert";
    m.ref.message = "expected 42, got 41";
    m.ref.location = "test_synth.c:130";
    if (wh_msg_encode(&m, &buf, &blen) || wh_msg_decode(buf, blen, &d, NULL))
        return -1;
    free(buf);
    wh_msg_clear(&d);
    memset(&m, 0, sizeof m);
    m.type = WH_MSG_VERDICT;
    m.job.job_id = job->job_id;
    m.cand_id = id;
    m.verdict = (uint32_t)v;
    m.detail = "build exited 1";
    if (wh_msg_encode(&m, &buf, &blen) || wh_msg_decode(buf, blen, &d, NULL))
        return -1;
    free(buf);
    wh_msg_clear(&d);
    return 0;
}

/* One whole reduction, sequential. Returns 0 or -1. */
static int s_reduce(const wh_tree_t *t, const char *test, int ref_line, s_stats_t *st)
{
    int *parent = malloc((size_t)t->n * sizeof *parent);
    if (!parent)
        return -1;
    for (int i = 0; i < t->n; i++)
        parent[i] = t->units[i].parent;
    wh_engine_t *e = wh_engine_new(t->n, parent, WH_ALGO_HDD, WH_WALK_CHUNKED);
    free(parent);
    char *err = NULL;
    wh_cache_t *c = wh_cache_open("memory:", &err);
    if (!e || !c) {
        fprintf(stderr, "whittle-bench-engine: error: %s\n", err ? err : "out of memory");
        free(err);
        wh_engine_destroy(&e);
        wh_cache_close(&c);
        return -1;
    }
    const char *job_id = "5e1f0000000000000000000000000000000000000000000000000000000b3c4d";
    wh_job_spec_t job = {0};
    job.job_id = (char *)job_id;
    job.snapshot_id = (char *)job_id;
    job.project = "/work/project";
    job.test_file = "tests/test_synth.c";
    job.test = (char *)test;
    job.setup_cmd = "true";
    job.build_cmd = "/tmp/judge build 0.2";
    job.run_cmd = "/tmp/judge run";
    job.framework = "junit";
    uint64_t next_id = 1;
    int rc = 0;
    const wh_round_t *rd;
    while (rc == 0 && (rd = wh_engine_round(e)) != NULL) {
        int n = rd->n_cand;
        char **text = calloc((size_t)n, sizeof *text);
        size_t *len = calloc((size_t)n, sizeof *len);
        char (*key)[65] = calloc((size_t)n, sizeof *key);
        const char **keys = calloc((size_t)n, sizeof *keys);
        int *rep = calloc((size_t)n, sizeof *rep);
        wh_verdict_t *got = calloc((size_t)n, sizeof *got);
        if (!text || !len || !key || !keys || !rep || !got) {
            rc = -1;
            goto next;
        }
        /* Render and key every candidate; identical ones are judged once. */
        int nk = 0;
        for (int i = 0; i < n; i++) {
            if (!(text[i] = wh_render(t, rd->removed[i], &len[i]))) {
                rc = -1;
                goto next;
            }
            wh_cache_key(job_id, "tests/test_synth.c", text[i], len[i], key[i]);
            rep[i] = i;
            for (int k = 0; k < i; k++)
                if (rep[k] == k && strcmp(key[k], key[i]) == 0) {
                    rep[i] = k;
                    break;
                }
            if (rep[i] == i)
                keys[nk++] = key[i];
        }
        wh_verdict_t *look = calloc((size_t)(nk ? nk : 1), sizeof *look);
        if (!look) {
            rc = -1;
            goto next;
        }
        wh_cache_mget(c, keys, nk, look);
        for (int i = 0, k = 0; i < n; i++)
            if (rep[i] == i)
                got[i] = look[k++];
        free(look);
        /* The sequential walk: judge in canonical order up to the winner. */
        int winner = -1;
        for (int i = 0; i < n && winner < 0; i++) {
            st->candidates++;
            wh_verdict_t v;
            if (rep[i] != i) {
                v = got[rep[i]];
                st->same++;
            } else if (got[i] != WH_V_NONE) {
                v = got[i];
                st->cached++;
            } else {
                uint64_t t0 = s_ns();
                v = s_judge(text[i], len[i], test, ref_line);
                uint64_t t1 = s_ns();
                if (s_wire(&job, next_id++, text[i], len[i], v)) {
                    rc = -1;
                    goto next;
                }
                st->judge_ns += t1 - t0;
                st->wire_ns += s_ns() - t1;
                wh_cache_put(c, key[i], v);
                got[i] = v;
                st->evaluated++;
            }
            if (v == WH_V_PRESERVED)
                winner = i;
        }
        rc = wh_engine_resolve(e, winner) ? -1 : 0;
        st->rounds++;
    next:
        for (int i = 0; text && i < n; i++)
            free(text[i]);
        free(text);
        free(len);
        free(key);
        free(keys);
        free(rep);
        free(got);
    }
    const uint8_t *removed = wh_engine_removed(e);
    st->removed_after = 0;
    for (int i = 0; i < t->n; i++)
        st->removed_after += removed[i] != 0;
    wh_engine_destroy(&e);
    wh_cache_close(&c);
    return rc;
}

/* ---- --spawn: the process-start ceiling ---- */

typedef struct {
    const char *dir, *build, *run, *test;
    int lane, n;
    int failed;
    pthread_t th;
} s_lane_t;

static void *s_lane_main(void *arg)
{
    s_lane_t *l = arg;
    char *cwd = wh_strdup_printf("%s/lane%d", l->dir, l->lane);
    char *log = wh_strdup_printf("%s/lane%d.log", l->dir, l->lane);
    char *ev_test = wh_strdup_printf("WHITTLE_TEST=%s", l->test);
    char *ev_rep = wh_strdup_printf("WHITTLE_REPORT=%s/lane%d.report", l->dir, l->lane);
    if (!cwd || !log || !ev_test || !ev_rep) {
        l->failed = 1;
        goto out;
    }
    const char *env[] = {ev_test, ev_rep, NULL};
    for (int i = 0; i < l->n; i++) {
        wh_run_opts_t o = {l->build, cwd, env, 60000, log, NULL, NULL, NULL, NULL, NULL};
        wh_run_result_t r;
        if (wh_run(&o, &r)) {
            l->failed = 1;
            break;
        }
        o.cmd = l->run;
        if (wh_run(&o, &r)) {
            l->failed = 1;
            break;
        }
    }
out:
    free(cwd);
    free(log);
    free(ev_test);
    free(ev_rep);
    return NULL;
}

static int s_spawn(int lanes, int n, const char *dir, const char *build, const char *run,
                   const char *test, int tsv)
{
    if (lanes < 1 || lanes > 1024 || n < lanes) {
        fprintf(stderr, "whittle-bench-engine: error: --spawn wants 1 <= LANES <= N\n");
        return 2;
    }
    s_lane_t *l = calloc((size_t)lanes, sizeof *l);
    if (!l)
        return 1;
    uint64_t t0 = s_ns();
    int started = 0, failed = 0;
    for (int i = 0; i < lanes; i++) {
        l[i] = (s_lane_t){dir, build, run, test, i, n / lanes, 0, 0};
        if (pthread_create(&l[i].th, NULL, s_lane_main, &l[i]) != 0) {
            failed = 1;
            break;
        }
        started++;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(l[i].th, NULL);
        failed |= l[i].failed;
    }
    double s = (double)(s_ns() - t0) / 1e9;
    int pairs = (n / lanes) * lanes;
    free(l);
    if (failed) {
        fprintf(stderr, "whittle-bench-engine: error: a command could not be started\n");
        return 1;
    }
    if (tsv)
        printf("%.1f\n", pairs / s);
    else
        printf("%d build+run pairs on %d lanes in %.3f s: %.1f pairs/s\n", pairs, lanes, s, pairs / s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 8 && !strcmp(argv[1], "--spawn"))
        return s_spawn(atoi(argv[2]), atoi(argv[3]), argv[4], argv[5], argv[6], argv[7],
                       argc > 8 && !strcmp(argv[8], "--tsv"));
    const char *file = WH_BENCH_FIXTURE, *test = "test_synth";
    int repeat = 20, tsv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--test") && i + 1 < argc)
            test = argv[++i];
        else if (!strcmp(argv[i], "--tsv"))
            tsv = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: whittle-bench-engine [--repeat N] [--test NAME] [--tsv] [FILE]\n");
            return 2;
        } else
            file = argv[i];
    }
    if (repeat < 1)
        repeat = 1;
    uint64_t t0 = s_ns();
    wh_tree_t *t = NULL;
    char *err = NULL;
    /* The fixture's own compile command (bench/lib.sh, bench_fixture), so
     * the search upward from the file never reaches whittle's own build's
     * compile_commands.json (issue 36). */
    char *argv_cc[] = {"cc", "-std=c11", "-c", (char *)file, NULL};
    wh_compile_cmd_t cc = {(char *)".", (char *)file, argv_cc, 4};
    wh_tree_opts_t to = {.cmd = &cc};
    if (wh_tree_load(file, test, &to, &t, &err)) {
        fprintf(stderr, "whittle-bench-engine: error: %s\n", err ? err : "cannot load");
        free(err);
        return 1;
    }
    uint64_t parse_ns = s_ns() - t0;
    /* The original's failure, as the baseline would record it. */
    syn_marks_t tests[SYN_MAX_TESTS];
    syn_outcome_t base = syn_run(tests, syn_marks_parse(t->text, t->text_len, tests, SYN_MAX_TESTS), test);
    if (base.status != SYN_FAILED || base.got != 41) {
        fprintf(stderr, "whittle-bench-engine: error: %s does not fail in %s\n", test, file);
        wh_tree_destroy(&t);
        return 1;
    }
    s_stats_t st = {0};
    t0 = s_ns();
    for (int r = 0; r < repeat; r++) {
        s_stats_t one = {0};
        if (s_reduce(t, test, base.line, &one)) {
            fprintf(stderr, "whittle-bench-engine: error: reduction failed (out of memory?)\n");
            wh_tree_destroy(&t);
            return 1;
        }
        st.rounds += one.rounds;
        st.candidates += one.candidates;
        st.evaluated += one.evaluated;
        st.cached += one.cached;
        st.same += one.same;
        st.judge_ns += one.judge_ns;
        st.wire_ns += one.wire_ns;
        st.removed_after = one.removed_after;
    }
    double total_s = (double)(s_ns() - t0) / 1e9;
    double coord_s = total_s - (double)st.judge_ns / 1e9;
    int n = t->n;
    if (tsv) {
        /* rounds evaluated candidates total_s coord_s wire_s (per reduction counts) */
        printf("%ld\t%ld\t%ld\t%.6f\t%.6f\t%.6f\n", st.rounds / repeat, st.evaluated / repeat,
               st.candidates / repeat, total_s / repeat, coord_s / repeat,
               (double)st.wire_ns / 1e9 / repeat);
    } else {
        printf("in-process engine benchmark: %s in %s, %d statements -> %d, parse %.1f ms\n",
               test, file, n, n - (int)st.removed_after, (double)parse_ns / 1e6);
        printf("per reduction: %ld rounds, %ld candidates (%ld judged, %ld cached, %ld same in round)\n",
               st.rounds / repeat, st.candidates / repeat, st.evaluated / repeat,
               st.cached / repeat, st.same / repeat);
        printf("%d reductions in %.3f s: %.0f judged candidates/s in all, %.0f/s without the\n"
               "in-memory oracle (engine+render+key+cache+wire: %.1f us per judged candidate,\n"
               "of which protobuf %.1f us)\n",
               repeat, total_s, (double)st.evaluated / total_s, (double)st.evaluated / coord_s,
               coord_s * 1e6 / (double)st.evaluated, (double)st.wire_ns / 1e3 / (double)st.evaluated);
    }
    wh_tree_destroy(&t);
    return 0;
}
