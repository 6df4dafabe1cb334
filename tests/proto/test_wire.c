/*
 * test_wire — the envelope codec (round trips, version and size caps,
 * hostile bytes) and the DEALER/ROUTER framing over inproc:// and tcp://.
 * Hostile frames are written by hand in protobuf wire format so that the
 * test does not depend on the generated code.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "wh_test.h"
#include "wire.h"

/* ---- helpers ---- */

static int s_streq0(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static int s_fp_eq(const wh_fp_t *a, const wh_fp_t *b)
{
    return s_streq0(a->test, b->test) && s_streq0(a->kind, b->kind) &&
           s_streq0(a->message, b->message) && s_streq0(a->location, b->location);
}

static int s_job_eq(const wh_job_spec_t *a, const wh_job_spec_t *b)
{
    if (!s_streq0(a->job_id, b->job_id) || !s_streq0(a->snapshot_id, b->snapshot_id) ||
        !s_streq0(a->project, b->project) || !s_streq0(a->test_file, b->test_file) ||
        !s_streq0(a->test, b->test) || !s_streq0(a->setup_cmd, b->setup_cmd) ||
        !s_streq0(a->build_cmd, b->build_cmd) || !s_streq0(a->run_cmd, b->run_cmd) ||
        !s_streq0(a->framework, b->framework) || a->build_timeout_ms != b->build_timeout_ms ||
        a->test_timeout_ms != b->test_timeout_ms || a->setup_timeout_ms != b->setup_timeout_ms ||
        a->match != b->match || a->n_exclude != b->n_exclude ||
        !s_streq0(a->failure_regex, b->failure_regex) || !s_streq0(a->pass_regex, b->pass_regex) ||
        !s_streq0(a->message_continuation, b->message_continuation) ||
        !s_streq0(a->test_fn, b->test_fn) || !s_streq0(a->tar_sha, b->tar_sha) ||
        a->tar_size != b->tar_size ||
        a->pass_on_exit0 != b->pass_on_exit0)
        return 0;
    for (int i = 0; i < a->n_exclude; i++)
        if (!s_streq0(a->exclude[i], b->exclude[i]))
            return 0;
    return 1;
}

static int s_bytes_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    if (!a || !b)
        return a == b && an == bn;
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* Field-by-field equality of two messages (all fields, so a field that is
 * not carried by a type must come back zero). */
static int s_msg_eq(const wh_msg_t *a, const wh_msg_t *b)
{
    return a->type == b->type && s_streq0(a->node_id, b->node_id) && a->slot == b->slot &&
           a->slots == b->slots && s_job_eq(&a->job, &b->job) && a->cand_id == b->cand_id &&
           s_bytes_eq(a->content, a->content_len, b->content, b->content_len) &&
           a->baseline == b->baseline && a->on_reference == b->on_reference &&
           a->fresh == b->fresh && s_fp_eq(&a->ref, &b->ref) && a->verdict == b->verdict &&
           a->test_status == b->test_status && s_fp_eq(&a->observed, &b->observed) &&
           s_streq0(a->detail, b->detail) && s_streq0(a->status, b->status) &&
           a->build_ms == b->build_ms &&
           a->test_ms == b->test_ms &&
           s_bytes_eq(a->report, a->report_len, b->report, b->report_len) &&
           s_streq0(a->json, b->json) && a->final == b->final && a->code == b->code &&
           a->on_reference == b->on_reference && a->warm_ms == b->warm_ms && a->clone_ms == b->clone_ms &&
           a->cloned == b->cloned && a->setups == b->setups && a->warms == b->warms &&
           a->journaled == b->journaled && s_streq0(a->blob_sha, b->blob_sha) &&
           a->blob_off == b->blob_off && a->blob_total == b->blob_total &&
           s_bytes_eq((const uint8_t *)a->summary, a->summary_len, (const uint8_t *)b->summary,
                      b->summary_len);
}

static int s_roundtrip(const wh_msg_t *in)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = wh_msg_encode(in, &buf, &len);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        return 0;
    wh_msg_t out;
    char *err = NULL;
    rc = wh_msg_decode(buf, len, &out, &err);
    CHECK_EQ_INT(rc, 0);
    if (err)
        fprintf(stderr, "decode: %s\n", err);
    free(err);
    free(buf);
    int eq = rc == 0 && s_msg_eq(in, &out);
    wh_msg_clear(&out);
    return eq;
}

static char *s_exclude[] = {"/abs/build", "/abs/.git", ""};

static void s_fill_job(wh_job_spec_t *j)
{
    j->job_id = "0123abcd";
    j->snapshot_id = "feedbeef";
    j->project = "/src/proj";
    j->test_file = "tests/test_x.c";
    j->test = "suite.test_x";
    j->setup_cmd = NULL; /* absent stays absent */
    j->build_cmd = "cmake --build build";
    j->run_cmd = "";     /* empty stays empty */
    j->framework = "cmocka";
    j->build_timeout_ms = 600000;
    j->test_timeout_ms = 30000;
    j->setup_timeout_ms = 0xffffffffu;
    j->match = 2;
    j->exclude = s_exclude;
    j->n_exclude = 3;
    j->failure_regex = "^(?<file>\\w+\\.c):(?<line>\\d+): (?<message>.*)$";
    j->message_continuation = "^\\s+\\S";
    j->pass_on_exit0 = 1;
    j->test_fn = "s_test_add_fn";
    j->tar_sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    j->tar_size = 123456789;
}

/* ---- codec ---- */

static void test_roundtrip_all_types(void)
{
    uint8_t content[] = "int main(void)\n{\n    return 0;\n}\n\0tail";
    uint8_t report[] = {'<', 'x', 0, 0xff, '>'};

    wh_msg_t m = {0};
    m.type = WH_MSG_HELLO;
    m.node_id = "node-7";
    m.slot = 3;
    m.slots = 64;
    m.warms = 1;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_EVALUATE;
    s_fill_job(&m.job);
    m.cand_id = UINT64_MAX - 1;
    m.content = content;
    m.content_len = sizeof content; /* binary, with a NUL inside */
    m.baseline = 1;
    m.fresh = 1;
    m.ref.test = "suite.test_x";
    m.ref.kind = "assert";
    m.ref.message = "0x1 != 0x2";
    m.ref.location = "tests/test_x.c:12";
    CHECK(s_roundtrip(&m));

    /* Empty content is not "no content". */
    m.content = (uint8_t *)"";
    m.content_len = 0;
    m.baseline = 0;
    m.fresh = 0;
    m.on_reference = 1;
    m.ref.kind = NULL;
    CHECK(s_roundtrip(&m));
    m.content = NULL;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_VERDICT;
    m.cand_id = 42;
    m.verdict = WH_V_DIFFERENT_FAILURE;
    m.test_status = 3;
    m.observed.test = "suite.test_x";
    m.observed.kind = "crash(SIGSEGV)";
    m.observed.message = "";
    m.observed.location = NULL;
    m.detail = "different failure: crash";
    m.build_ms = 1234;
    m.test_ms = 56;
    m.report = report;
    m.report_len = sizeof report;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_CANCEL;
    m.cand_id = 99;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_HEARTBEAT;
    m.node_id = "n1";
    m.slot = 0;
    m.cand_id = 5;
    m.warms = 1;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_BYE;
    m.node_id = "n1";
    m.detail = "shutting down";
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_SUBMIT;
    m.json = "{\"project\": \"/p\", \"test\": \"t\"}";
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_STATUS_REQ;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_STATUS;
    m.detail = "2 jobs\n  a: running\n  b: done\n";
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_PROGRESS;
    m.detail = "reduced 120 -> 7 statements";
    m.final = 1;
    m.code = -3;
    CHECK(s_roundtrip(&m));
    m.job.job_id = "0123456789abcdef"; /* the coordinator's job id */
    m.journaled = 1;
    CHECK(s_roundtrip(&m));
    /* A final Progress carries the run's summary for the client's batch report. */
    m.summary = "{\"run\": \"t-1\", \"summary\": {\"statements_before\": 4}}";
    m.summary_len = strlen(m.summary);
    CHECK(s_roundtrip(&m));
    m.summary = NULL;
    m.summary_len = 0;

    /* A running job's Progress carries its status line. */
    m.final = 0;
    m.code = 0;
    m.status = "sweep 2 level 1 round 14 | 23/57 units left | 31 built, 4 predicted, 12 cached | "
               "ETA 1m05s";
    CHECK(s_roundtrip(&m));
    m.status = NULL;

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_WATCH;
    m.job.job_id = "0123456789abcdef";
    m.cand_id = 3;
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_WARM;
    s_fill_job(&m.job);
    CHECK(s_roundtrip(&m));

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_WARMED;
    m.job.job_id = "0123abcd";
    m.code = WH_ESETUP;
    m.detail = "setup exited 2 (log: /w/ws/k/golden.tmp.setup.log)";
    m.warm_ms = 123456;
    m.clone_ms = 456;
    m.cloned = 1;
    m.on_reference = 1;
    m.setups = 1;
    m.final = 1;
    CHECK(s_roundtrip(&m));

    /* a tar snapshot's chunks, both ways */
    static uint8_t chunk[WH_WIRE_MAX_CHUNK];
    for (size_t i = 0; i < sizeof chunk; i++)
        chunk[i] = (uint8_t)(i * 7);
    int types[] = {WH_MSG_BLOB_PUT, WH_MSG_BLOB_GET, WH_MSG_BLOB};
    for (int i = 0; i < 3; i++) {
        memset(&m, 0, sizeof m);
        m.type = (wh_msg_type_t)types[i];
        m.blob_sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        m.blob_off = 3u << 20;
        m.blob_total = 60u << 20;
        m.content = i == 1 ? NULL : chunk;
        m.content_len = i == 1 ? 0 : sizeof chunk;
        m.code = i == 2 ? WH_ENOTFOUND : 0;
        m.detail = i == 2 ? "no such tar" : NULL;
        CHECK(s_roundtrip(&m));
    }
    /* a chunk over the cap is not sent */
    memset(&m, 0, sizeof m);
    m.type = WH_MSG_BLOB_PUT;
    uint8_t *big = calloc(1, WH_WIRE_MAX_CHUNK + 1);
    m.content = big;
    m.content_len = WH_WIRE_MAX_CHUNK + 1;
    uint8_t *buf = NULL;
    size_t blen = 0;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &blen), WH_ETOOBIG);
    free(big);
}

static void test_fields_not_carried_are_dropped(void)
{
    /* A CANCEL carries cand_id only: other fields set by mistake are not
     * sent (and so cannot leak, e.g. a whole report). */
    wh_msg_t m = {0};
    m.type = WH_MSG_CANCEL;
    m.cand_id = 7;
    m.detail = "not sent";
    m.json = "not sent";
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), 0);
    wh_msg_t out;
    CHECK_EQ_INT(wh_msg_decode(buf, len, &out, NULL), 0);
    CHECK_EQ_INT(out.type, WH_MSG_CANCEL);
    CHECK_EQ_INT(out.cand_id, 7);
    CHECK(out.detail == NULL && out.json == NULL);
    wh_msg_clear(&out);
    free(buf);
}

static void test_job_spec_copy(void)
{
    wh_job_spec_t src = {0}, dst;
    s_fill_job(&src);
    CHECK_EQ_INT(wh_job_spec_copy(&dst, &src), 0);
    CHECK(s_job_eq(&src, &dst));
    CHECK(dst.exclude != src.exclude && dst.job_id != src.job_id);
    CHECK(dst.setup_cmd == NULL);
    wh_job_spec_clear(&dst);
    CHECK(dst.job_id == NULL && dst.n_exclude == 0);
}

static void test_encode_rejects(void)
{
    uint8_t *buf = (uint8_t *)"x";
    size_t len = 1;
    wh_msg_t m = {0};
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_EINVAL); /* NONE */
    CHECK(buf == NULL && len == 0);
    m.type = (wh_msg_type_t)14;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_EINVAL);

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_EVALUATE;
    m.content_len = WH_WIRE_MAX_CONTENT + 1;
    m.content = calloc(1, m.content_len);
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_ETOOBIG);
    free(m.content);

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_VERDICT;
    m.report_len = WH_WIRE_MAX_REPORT + 1;
    m.report = calloc(1, m.report_len);
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_ETOOBIG);
    free(m.report);

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_STATUS;
    m.detail = malloc(WH_WIRE_MAX_STRING + 2);
    memset(m.detail, 'a', WH_WIRE_MAX_STRING + 1);
    m.detail[WH_WIRE_MAX_STRING + 1] = 0;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_ETOOBIG);
    m.detail[WH_WIRE_MAX_STRING] = 0; /* exactly at the cap: fine */
    CHECK(s_roundtrip(&m));
    free(m.detail);

    memset(&m, 0, sizeof m);
    m.type = WH_MSG_EVALUATE;
    char *ex[WH_WIRE_MAX_EXCLUDE + 1];
    for (int i = 0; i <= WH_WIRE_MAX_EXCLUDE; i++)
        ex[i] = "/x";
    m.job.exclude = ex;
    m.job.n_exclude = WH_WIRE_MAX_EXCLUDE + 1;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_ETOOBIG);
    m.job.n_exclude = WH_WIRE_MAX_EXCLUDE;
    CHECK(s_roundtrip(&m));
}

/* A hand-written protobuf writer for hostile frames. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} s_pb_t;

static void s_pb_raw(s_pb_t *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void s_pb_varint(s_pb_t *b, uint64_t v)
{
    uint8_t t[10];
    int k = 0;
    do {
        t[k] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            t[k] |= 0x80;
        k++;
    } while (v);
    s_pb_raw(b, t, (size_t)k);
}

static void s_pb_uint(s_pb_t *b, unsigned field, uint64_t v)
{
    s_pb_varint(b, (uint64_t)field << 3);
    s_pb_varint(b, v);
}

static void s_pb_bytes(s_pb_t *b, unsigned field, const void *d, size_t n)
{
    s_pb_varint(b, ((uint64_t)field << 3) | 2);
    s_pb_varint(b, n);
    s_pb_raw(b, d, n);
}

/* An envelope with version, type and a body (field type+10) made of inner. */
static s_pb_t s_envelope(unsigned version, unsigned type, const s_pb_t *inner)
{
    s_pb_t b = {0};
    s_pb_uint(&b, 1, version);
    s_pb_uint(&b, 2, type);
    if (inner)
        s_pb_bytes(&b, type + 10, inner->p, inner->n);
    return b;
}

static int s_decode_rc(const s_pb_t *b, char **err)
{
    wh_msg_t m;
    int rc = wh_msg_decode(b->p, b->n, &m, err);
    if (rc) {
        /* m must be left zeroed on failure. */
        wh_msg_t zero;
        memset(&zero, 0, sizeof zero);
        CHECK(memcmp(&m, &zero, sizeof m) == 0);
    }
    wh_msg_clear(&m);
    return rc;
}

static void test_hand_written_frame_decodes(void)
{
    /* Sanity for the hand writer: a well-formed SUBMIT decodes. */
    s_pb_t in = {0};
    s_pb_bytes(&in, 1, "{}", 2);
    s_pb_t env = s_envelope(WH_WIRE_VERSION, WH_MSG_SUBMIT, &in);
    wh_msg_t m;
    CHECK_EQ_INT(wh_msg_decode(env.p, env.n, &m, NULL), 0);
    CHECK_EQ_STR(m.json, "{}");
    wh_msg_clear(&m);
    free(in.p);
    free(env.p);
}

static void test_version_mismatch(void)
{
    s_pb_t in = {0};
    s_pb_bytes(&in, 1, "{}", 2);
    s_pb_t env = s_envelope(WH_WIRE_VERSION + 1, WH_MSG_SUBMIT, &in);
    char *err = NULL;
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_EPROTO);
    CHECK(err && strstr(err, "unsupported protocol version 2"));
    free(err);
    free(env.p);

    /* Also when the peer's encoder produced it: patch the version byte of
     * a real encoding (field 1 is written first). */
    wh_msg_t m = {0};
    m.type = WH_MSG_STATUS_REQ;
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), 0);
    CHECK(len >= 2 && buf[0] == 0x08 && buf[1] == WH_WIRE_VERSION);
    buf[1] = 0;
    wh_msg_t out;
    CHECK_EQ_INT(wh_msg_decode(buf, len, &out, NULL), WH_EPROTO);
    free(buf);

    /* A missing version (required) is malformed. */
    s_pb_t nov = {0};
    s_pb_uint(&nov, 2, WH_MSG_STATUS_REQ);
    s_pb_bytes(&nov, 18, "", 0);
    CHECK_EQ_INT(s_decode_rc(&nov, NULL), WH_EPROTO);
    free(nov.p);
    free(in.p);
}

static void test_type_body_mismatch(void)
{
    char *err = NULL;
    s_pb_t env = s_envelope(WH_WIRE_VERSION, WH_MSG_HELLO, NULL); /* no body */
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_EPROTO);
    CHECK(err && strstr(err, "HELLO"));
    free(err);
    free(env.p);

    s_pb_t in = {0};
    s_pb_uint(&in, 1, 5);
    env = (s_pb_t){0};
    s_pb_uint(&env, 1, WH_WIRE_VERSION);
    s_pb_uint(&env, 2, WH_MSG_HELLO);
    s_pb_bytes(&env, 14, in.p, in.n); /* a CANCEL body */
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_EPROTO);
    free(env.p);

    env = s_envelope(WH_WIRE_VERSION, 0, NULL);
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_EPROTO);
    free(env.p);
    env = (s_pb_t){0};
    s_pb_uint(&env, 1, WH_WIRE_VERSION);
    s_pb_uint(&env, 2, 77);
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_EPROTO);
    free(env.p);

    /* An out-of-range verdict. */
    s_pb_t v = {0};
    s_pb_uint(&v, 2, 99);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_VERDICT, &v);
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_EPROTO);
    free(env.p);
    free(v.p);
    free(in.p);
}

/* A baseline's compile command crosses the wire whole; over the argument
 * cap it is refused on both sides. */
static void test_compile_command(void)
{
    char *argv[] = {"/usr/bin/cc", "-I/ws/slot-0/include", "-DX=a b", "-c", "t.c", NULL};
    wh_msg_t m = {0};
    m.type = WH_MSG_VERDICT;
    m.cand_id = 1;
    m.compile.directory = "/ws/slot-0";
    m.compile.file = "/ws/slot-0/t.c";
    m.compile.argv = argv;
    m.compile.argc = 5;
    m.compile_root = "/ws/slot-0";
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), 0);
    wh_msg_t out;
    char *err = NULL;
    CHECK_EQ_INT(wh_msg_decode(buf, len, &out, &err), 0);
    free(err);
    free(buf);
    CHECK_EQ_INT(out.compile.argc, 5);
    CHECK_EQ_STR(out.compile.directory, "/ws/slot-0");
    CHECK_EQ_STR(out.compile.file, "/ws/slot-0/t.c");
    CHECK_EQ_STR(out.compile_root, "/ws/slot-0");
    for (int i = 0; i < 5 && i < out.compile.argc; i++)
        CHECK_EQ_STR(out.compile.argv[i], argv[i]);
    CHECK(out.compile.argv && out.compile.argv[5] == NULL);
    wh_msg_clear(&out);
    /* Without a command nothing is sent. */
    memset(&m, 0, sizeof m);
    m.type = WH_MSG_VERDICT;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), 0);
    CHECK_EQ_INT(wh_msg_decode(buf, len, &out, NULL), 0);
    CHECK_EQ_INT(out.compile.argc, 0);
    CHECK(out.compile_root == NULL);
    free(buf);
    wh_msg_clear(&out);
    /* Over the cap. */
    char **many = calloc(WH_WIRE_MAX_ARGS + 2, sizeof *many);
    for (int i = 0; many && i < WH_WIRE_MAX_ARGS + 1; i++)
        many[i] = "-DX";
    m.compile.argv = many;
    m.compile.argc = WH_WIRE_MAX_ARGS + 1;
    m.compile.directory = m.compile.file = m.compile_root = "/";
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), WH_ETOOBIG);
    free(many);
}

static void test_caps_on_decode(void)
{
    char *err = NULL;

    /* Frame cap: rejected before looking at the bytes. */
    uint8_t one = 0;
    wh_msg_t m;
    CHECK_EQ_INT(wh_msg_decode(&one, WH_WIRE_MAX_FRAME + 1, &m, NULL), WH_ETOOBIG);

    /* Content one byte over. */
    size_t big = WH_WIRE_MAX_CONTENT + 1;
    uint8_t *blob = calloc(1, WH_WIRE_MAX_CONTENT + 2);
    s_pb_t ev = {0};
    s_pb_bytes(&ev, 3, blob, big);
    s_pb_t env = s_envelope(WH_WIRE_VERSION, WH_MSG_EVALUATE, &ev);
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_ETOOBIG);
    CHECK(err && strstr(err, "evaluate.content"));
    free(err);
    free(env.p);
    free(ev.p);
    /* Content at the cap decodes. */
    ev = (s_pb_t){0};
    s_pb_bytes(&ev, 3, blob, WH_WIRE_MAX_CONTENT);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_EVALUATE, &ev);
    CHECK_EQ_INT(wh_msg_decode(env.p, env.n, &m, NULL), 0);
    CHECK_EQ_INT(m.content_len, WH_WIRE_MAX_CONTENT);
    wh_msg_clear(&m);
    free(env.p);
    free(ev.p);

    /* A Progress's summary one byte over: dropped, said, the rest kept. */
    s_pb_t pg = {0};
    s_pb_bytes(&pg, 1, "the detail", 10);
    s_pb_bytes(&pg, 120, blob, WH_WIRE_MAX_SUMMARY + 1);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_PROGRESS, &pg);
    CHECK_EQ_INT(wh_msg_decode(env.p, env.n, &m, NULL), 0);
    CHECK(m.summary == NULL && m.summary_len == 0);
    CHECK(m.summary_bad && strstr(m.summary_bad, "summary"));
    CHECK(m.detail && !strcmp(m.detail, "the detail"));
    wh_msg_clear(&m);
    free(env.p);
    free(pg.p);
    /* At the cap it decodes. */
    pg = (s_pb_t){0};
    s_pb_bytes(&pg, 120, blob, WH_WIRE_MAX_SUMMARY);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_PROGRESS, &pg);
    CHECK_EQ_INT(wh_msg_decode(env.p, env.n, &m, NULL), 0);
    CHECK_EQ_INT(m.summary_len, WH_WIRE_MAX_SUMMARY);
    CHECK(m.summary_bad == NULL);
    wh_msg_clear(&m);
    free(env.p);
    free(pg.p);

    /* Report one byte over. */
    s_pb_t vd = {0};
    s_pb_bytes(&vd, 8, blob, WH_WIRE_MAX_REPORT + 1);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_VERDICT, &vd);
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_ETOOBIG);
    CHECK(err && strstr(err, "verdict.report"));
    free(err);
    free(env.p);
    free(vd.p);

    /* A string one byte over, at top level and nested in the job spec. */
    memset(blob, 'a', WH_WIRE_MAX_STRING + 1);
    s_pb_t sb = {0};
    s_pb_bytes(&sb, 1, blob, WH_WIRE_MAX_STRING + 1);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_SUBMIT, &sb);
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_ETOOBIG);
    CHECK(err && strstr(err, "submit.json"));
    free(err);
    free(env.p);
    free(sb.p);

    s_pb_t job = {0};
    s_pb_bytes(&job, 4, blob, WH_WIRE_MAX_STRING + 1);
    ev = (s_pb_t){0};
    s_pb_bytes(&ev, 1, job.p, job.n);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_EVALUATE, &ev);
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_ETOOBIG);
    CHECK(err && strstr(err, "job.test_file"));
    free(err);
    free(env.p);
    free(ev.p);
    free(job.p);

    /* A string with a NUL inside. */
    sb = (s_pb_t){0};
    s_pb_bytes(&sb, 1, "a\0b", 3);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_SUBMIT, &sb);
    CHECK_EQ_INT(s_decode_rc(&env, &err), WH_EPROTO);
    CHECK(err && strstr(err, "NUL"));
    free(err);
    free(env.p);
    free(sb.p);
    /* ... also inside a fingerprint. */
    s_pb_t fp = {0};
    s_pb_bytes(&fp, 3, "msg\0", 4);
    vd = (s_pb_t){0};
    s_pb_bytes(&vd, 4, fp.p, fp.n);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_VERDICT, &vd);
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_EPROTO);
    free(env.p);
    free(vd.p);
    free(fp.p);

    /* Exclude list: 256 entries fine, 257 rejected. */
    for (int count = WH_WIRE_MAX_EXCLUDE; count <= WH_WIRE_MAX_EXCLUDE + 1; count++) {
        job = (s_pb_t){0};
        for (int i = 0; i < count; i++)
            s_pb_bytes(&job, 14, "/x", 2);
        ev = (s_pb_t){0};
        s_pb_bytes(&ev, 1, job.p, job.n);
        env = s_envelope(WH_WIRE_VERSION, WH_MSG_EVALUATE, &ev);
        int rc = wh_msg_decode(env.p, env.n, &m, NULL);
        if (count <= WH_WIRE_MAX_EXCLUDE) {
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(m.job.n_exclude, count);
            wh_msg_clear(&m);
        } else {
            CHECK_EQ_INT(rc, WH_ETOOBIG);
        }
        free(env.p);
        free(ev.p);
        free(job.p);
    }

    /* Millions of empty exclude entries in a frame under the cap: the
     * unpack budget stops it before protobuf-c allocates far more than
     * the frame. */
    job = (s_pb_t){0};
    for (int i = 0; i < 3000000; i++)
        s_pb_bytes(&job, 14, "", 0);
    ev = (s_pb_t){0};
    s_pb_bytes(&ev, 1, job.p, job.n);
    env = s_envelope(WH_WIRE_VERSION, WH_MSG_EVALUATE, &ev);
    CHECK(env.n <= WH_WIRE_MAX_FRAME);
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_ETOOBIG);
    free(env.p);
    free(ev.p);
    free(job.p);
    free(blob);
}

static void test_truncated_and_garbage(void)
{
    /* Every proper prefix of a rich message is rejected or (when it ends
     * on a field boundary after the required fields) decodes; none
     * crashes or leaks. */
    uint8_t content[300];
    for (size_t i = 0; i < sizeof content; i++)
        content[i] = (uint8_t)('a' + i % 26);
    wh_msg_t m = {0};
    m.type = WH_MSG_EVALUATE;
    s_fill_job(&m.job);
    m.cand_id = 123456789;
    m.content = content;
    m.content_len = sizeof content;
    m.ref.message = "boom";
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), 0);
    int rejected = 0;
    for (size_t n = 0; n < len; n++) {
        wh_msg_t out;
        int rc = wh_msg_decode(buf, n, &out, NULL);
        CHECK(rc == 0 || rc == WH_EPROTO || rc == WH_ETOOBIG);
        if (rc)
            rejected++;
        wh_msg_clear(&out);
    }
    /* Cutting inside the body (everything after the first 5 bytes) must
     * always be caught: the body is one length-prefixed field. */
    CHECK_EQ_INT(rejected, (int)len);
    free(buf);

    /* Random garbage, and random single-byte corruptions of a valid
     * frame. Fixed seed: reproducible. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint8_t g[512];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = (size_t)(iter % 512);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            g[i] = (uint8_t)x;
        }
        /* Start half of them like an envelope to get past the first tag. */
        if (iter % 2 && n >= 4) {
            g[0] = 0x08;
            g[1] = WH_WIRE_VERSION;
            g[2] = 0x10;
            g[3] = (uint8_t)(1 + iter % 10);
        }
        wh_msg_t out;
        int rc = wh_msg_decode(g, n, &out, NULL);
        CHECK(rc == 0 || rc == WH_EPROTO || rc == WH_ETOOBIG);
        wh_msg_clear(&out);
    }
    CHECK_EQ_INT(wh_msg_encode(&m, &buf, &len), 0);
    for (int iter = 0; iter < 5000; iter++) {
        uint8_t *c = malloc(len);
        memcpy(c, buf, len);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c[x % len] = (uint8_t)(x >> 32);
        wh_msg_t out;
        int rc = wh_msg_decode(c, len, &out, NULL);
        CHECK(rc == 0 || rc == WH_EPROTO || rc == WH_ETOOBIG);
        wh_msg_clear(&out);
        free(c);
    }
    free(buf);

    /* A length prefix that claims more than the frame holds. */
    s_pb_t env = {0};
    s_pb_uint(&env, 1, WH_WIRE_VERSION);
    s_pb_uint(&env, 2, WH_MSG_SUBMIT);
    s_pb_varint(&env, (17u << 3) | 2);
    s_pb_varint(&env, 0xffffffffull);
    s_pb_raw(&env, "xx", 2);
    CHECK_EQ_INT(s_decode_rc(&env, NULL), WH_EPROTO);
    free(env.p);

    /* Empty input. */
    wh_msg_t out;
    CHECK_EQ_INT(wh_msg_decode(NULL, 0, &out, NULL), WH_EPROTO);
}

/* ---- sockets ---- */

static void s_pair_exchange(void *ctx, const char *bind_ep)
{
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    void *dealer = zmq_socket(ctx, ZMQ_DEALER);
    void *raw = zmq_socket(ctx, ZMQ_DEALER); /* sends hostile framing */
    CHECK(router && dealer && raw);
    int linger = 0;
    zmq_setsockopt(router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(dealer, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(raw, ZMQ_LINGER, &linger, sizeof linger);
    int tmo = 5000;
    zmq_setsockopt(router, ZMQ_RCVTIMEO, &tmo, sizeof tmo);
    zmq_setsockopt(dealer, ZMQ_RCVTIMEO, &tmo, sizeof tmo);
    CHECK_EQ_INT(wh_wire_limit(router), 0);
    CHECK_EQ_INT(wh_wire_limit(dealer), 0);
    zmq_setsockopt(dealer, ZMQ_ROUTING_ID, "slot-1", 6);
    CHECK_EQ_INT(zmq_bind(router, bind_ep), 0);
    char ep[256];
    size_t eplen = sizeof ep;
    CHECK_EQ_INT(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, ep, &eplen), 0);
    CHECK_EQ_INT(zmq_connect(dealer, ep), 0);
    CHECK_EQ_INT(zmq_connect(raw, ep), 0);

    /* Nothing waiting yet. */
    wh_msg_t m;
    uint8_t id[WH_WIRE_MAX_IDENT];
    size_t idlen = 0;
    CHECK_EQ_INT(wh_wire_recv(dealer, &m, ZMQ_DONTWAIT), -EAGAIN);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, ZMQ_DONTWAIT), -EAGAIN);

    /* DEALER -> ROUTER */
    wh_msg_t hello = {0};
    hello.type = WH_MSG_HELLO;
    hello.node_id = "node-a";
    hello.slot = 1;
    hello.slots = 4;
    CHECK_EQ_INT(wh_wire_send(dealer, &hello, 0), 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), 0);
    CHECK_EQ_INT(idlen, 6);
    CHECK(memcmp(id, "slot-1", 6) == 0);
    CHECK(s_msg_eq(&hello, &m));
    wh_msg_clear(&m);

    /* ROUTER -> DEALER, with a large content. */
    wh_msg_t ev = {0};
    ev.type = WH_MSG_EVALUATE;
    s_fill_job(&ev.job);
    ev.cand_id = 77;
    ev.content_len = 1u << 20;
    ev.content = malloc(ev.content_len);
    for (size_t i = 0; i < ev.content_len; i++)
        ev.content[i] = (uint8_t)(i * 31);
    CHECK_EQ_INT(wh_wire_send_to(router, id, idlen, &ev, 0), 0);
    CHECK_EQ_INT(wh_wire_recv(dealer, &m, 0), 0);
    CHECK(s_msg_eq(&ev, &m));
    wh_msg_clear(&m);
    free(ev.content);

    /* A verdict back. */
    wh_msg_t vd = {0};
    vd.type = WH_MSG_VERDICT;
    vd.cand_id = 77;
    vd.verdict = WH_V_PRESERVED;
    vd.report = (uint8_t *)"<testsuites/>";
    vd.report_len = 13;
    CHECK_EQ_INT(wh_wire_send(dealer, &vd, 0), 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), 0);
    CHECK(s_msg_eq(&vd, &m));
    wh_msg_clear(&m);

    /* Hostile framing from a raw DEALER: the ROUTER sees [id][a][b]. */
    zmq_send(raw, "junk", 4, ZMQ_SNDMORE);
    zmq_send(raw, "more", 4, 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), WH_EPROTO);
    CHECK(idlen > 0);
    /* REQ-style empty delimiter: [id][""][envelope] is not our framing. */
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(wh_msg_encode(&hello, &buf, &len), 0);
    zmq_send(raw, "", 0, ZMQ_SNDMORE);
    zmq_send(raw, buf, len, 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), WH_EPROTO);
    /* Garbage in the envelope frame. */
    zmq_send(raw, "\xff\xff\xff", 3, 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), WH_EPROTO);
    /* An empty frame. */
    zmq_send(raw, "", 0, 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), WH_EPROTO);
    /* ... and the socket still works afterwards. */
    zmq_send(raw, buf, len, 0);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, 0), 0);
    CHECK(s_msg_eq(&hello, &m));
    wh_msg_clear(&m);

    /* Hostile framing towards a DEALER: [id][envelope][extra]. */
    uint8_t did[] = "slot-1";
    zmq_send(router, did, 6, ZMQ_SNDMORE);
    zmq_send(router, buf, len, ZMQ_SNDMORE);
    zmq_send(router, "extra", 5, 0);
    CHECK_EQ_INT(wh_wire_recv(dealer, &m, 0), WH_EPROTO);
    zmq_send(router, did, 6, ZMQ_SNDMORE);
    zmq_send(router, "\x08\x02\x10\x01", 4, 0); /* version 2 */
    CHECK_EQ_INT(wh_wire_recv(dealer, &m, 0), WH_EPROTO);
    CHECK_EQ_INT(wh_wire_send_to(router, did, 6, &hello, 0), 0);
    CHECK_EQ_INT(wh_wire_recv(dealer, &m, 0), 0);
    CHECK(s_msg_eq(&hello, &m));
    wh_msg_clear(&m);
    free(buf);

    /* Bad arguments. */
    CHECK_EQ_INT(wh_wire_send_to(router, id, 0, &hello, 0), WH_EINVAL);
    wh_msg_t none = {0};
    CHECK_EQ_INT(wh_wire_send(dealer, &none, 0), WH_EINVAL);

    /* Nothing left over. */
    CHECK_EQ_INT(wh_wire_recv(dealer, &m, ZMQ_DONTWAIT), -EAGAIN);
    CHECK_EQ_INT(wh_wire_recv_from(router, id, &idlen, &m, ZMQ_DONTWAIT), -EAGAIN);

    zmq_close(raw);
    zmq_close(dealer);
    zmq_close(router);
}

static void test_inproc(void)
{
    void *ctx = zmq_ctx_new();
    s_pair_exchange(ctx, "inproc://test-wire");
    zmq_ctx_term(ctx);
}

static void test_tcp(void)
{
    void *ctx = zmq_ctx_new();
    s_pair_exchange(ctx, "tcp://127.0.0.1:*");
    zmq_ctx_term(ctx);
}

static void test_closed_socket_errno(void)
{
    void *ctx = zmq_ctx_new();
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    zmq_close(s);
    zmq_ctx_term(ctx);
    /* zmq errors come back as -errno: a terminated context refuses new
     * sockets; use a socket of the wrong type instead. */
    ctx = zmq_ctx_new();
    void *pub = zmq_socket(ctx, ZMQ_PUB);
    wh_msg_t m;
    CHECK_EQ_INT(wh_wire_recv(pub, &m, ZMQ_DONTWAIT), -ENOTSUP);
    zmq_close(pub);
    zmq_ctx_term(ctx);
}

int main(void)
{
    RUN_TEST(test_roundtrip_all_types);
    RUN_TEST(test_fields_not_carried_are_dropped);
    RUN_TEST(test_job_spec_copy);
    RUN_TEST(test_encode_rejects);
    RUN_TEST(test_hand_written_frame_decodes);
    RUN_TEST(test_version_mismatch);
    RUN_TEST(test_type_body_mismatch);
    RUN_TEST(test_caps_on_decode);
    RUN_TEST(test_compile_command);
    RUN_TEST(test_truncated_and_garbage);
    RUN_TEST(test_inproc);
    RUN_TEST(test_tcp);
    RUN_TEST(test_closed_socket_errno);
    TEST_MAIN_END();
}
