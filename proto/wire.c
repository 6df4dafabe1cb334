/*
 * wire — maps wh_msg_t to and from the protobuf-c Envelope of
 * proto/whittle.proto, and moves envelopes over ZeroMQ sockets.
 *
 * Decoding trusts nothing from the peer. The frame is capped before
 * unpacking; protobuf_c_message_unpack runs with a budget allocator (so a
 * frame full of tiny repeated fields cannot make it allocate far more than
 * the frame) that also remembers each allocation's size, which is how a
 * string field's true wire length is recovered after unpack: protobuf-c
 * NUL-terminates strings, so an embedded NUL would otherwise go unseen.
 * Every field is then checked against its cap and copied into plain
 * malloc'ed memory that wh_msg_clear can free; the generated structs never
 * leave this file.
 */
#define _GNU_SOURCE
#include "wire.h"

#include <errno.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "whittle.pb-c.h"

/* ---- owned fields ---- */

void wh_job_spec_clear(wh_job_spec_t *j)
{
    if (!j)
        return;
    free(j->job_id);
    free(j->snapshot_id);
    free(j->project);
    free(j->test_file);
    free(j->test);
    free(j->setup_cmd);
    free(j->build_cmd);
    free(j->run_cmd);
    free(j->framework);
    free(j->failure_regex);
    free(j->pass_regex);
    free(j->message_continuation);
    free(j->ctest_pass_regex);
    free(j->ctest_fail_regex);
    free(j->test_fn);
    free(j->reference);
    free(j->git_url);
    free(j->git_rev);
    free(j->git_subdir);
    free(j->git_reference);
    free(j->tenant);
    free(j->tar_sha);
    free(j->git_patch);
    for (int i = 0; i < j->n_exclude && j->exclude; i++)
        free(j->exclude[i]);
    free(j->exclude);
    memset(j, 0, sizeof *j);
}

void wh_msg_clear(wh_msg_t *m)
{
    if (!m)
        return;
    free(m->node_id);
    wh_job_spec_clear(&m->job);
    free(m->content);
    wh_fp_clear(&m->ref);
    wh_fp_clear(&m->observed);
    free(m->detail);
    free(m->status);
    free(m->report);
    free(m->json);
    wh_compile_cmd_clear(&m->compile);
    free(m->compile_root);
    free(m->others);
    free(m->blob_sha);
    free(m->summary);
    memset(m, 0, sizeof *m);
}

/* Copies a string that may be NULL; sets *bad on allocation failure. */
static char *s_dup(const char *s, int *bad)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *bad = 1;
    return d;
}

int wh_job_spec_copy(wh_job_spec_t *dst, const wh_job_spec_t *src)
{
    wh_job_spec_t t = *src;
    int bad = 0;
    t.job_id = s_dup(src->job_id, &bad);
    t.snapshot_id = s_dup(src->snapshot_id, &bad);
    t.project = s_dup(src->project, &bad);
    t.test_file = s_dup(src->test_file, &bad);
    t.test = s_dup(src->test, &bad);
    t.setup_cmd = s_dup(src->setup_cmd, &bad);
    t.build_cmd = s_dup(src->build_cmd, &bad);
    t.run_cmd = s_dup(src->run_cmd, &bad);
    t.framework = s_dup(src->framework, &bad);
    t.failure_regex = s_dup(src->failure_regex, &bad);
    t.pass_regex = s_dup(src->pass_regex, &bad);
    t.message_continuation = s_dup(src->message_continuation, &bad);
    t.ctest_pass_regex = s_dup(src->ctest_pass_regex, &bad);
    t.ctest_fail_regex = s_dup(src->ctest_fail_regex, &bad);
    t.test_fn = s_dup(src->test_fn, &bad);
    t.reference = s_dup(src->reference, &bad);
    t.git_url = s_dup(src->git_url, &bad);
    t.git_rev = s_dup(src->git_rev, &bad);
    t.git_subdir = s_dup(src->git_subdir, &bad);
    t.git_reference = s_dup(src->git_reference, &bad);
    t.tenant = s_dup(src->tenant, &bad);
    t.tar_sha = s_dup(src->tar_sha, &bad);
    t.tar_size = src->tar_size;
    t.git_patch = NULL;
    t.git_patch_len = 0;
    if (src->git_patch) {
        if (!(t.git_patch = malloc(src->git_patch_len + 1)))
            bad = 1;
        else {
            memcpy(t.git_patch, src->git_patch, src->git_patch_len);
            t.git_patch[src->git_patch_len] = 0;
            t.git_patch_len = src->git_patch_len;
        }
    }
    t.exclude = NULL;
    t.n_exclude = 0;
    if (src->n_exclude > 0 && src->exclude) {
        t.exclude = calloc((size_t)src->n_exclude, sizeof *t.exclude);
        if (!t.exclude)
            bad = 1;
        else {
            t.n_exclude = src->n_exclude;
            for (int i = 0; i < src->n_exclude; i++)
                t.exclude[i] = s_dup(src->exclude[i], &bad);
        }
    }
    if (bad) {
        wh_job_spec_clear(&t);
        return WH_ENOMEM;
    }
    *dst = t;
    return 0;
}

/* ---- encode ---- */

static const char *const s_type_names[] = {
    "NONE", "HELLO", "EVALUATE", "VERDICT", "CANCEL", "HEARTBEAT",
    "BYE", "SUBMIT", "STATUS_REQ", "STATUS", "PROGRESS", "WARM", "WARMED", "WATCH",
};

static const char *s_type_name(uint32_t t)
{
    if (t < sizeof s_type_names / sizeof *s_type_names)
        return s_type_names[t];
    return t == WH_MSG_BLOB_PUT ? "BLOB_PUT" : t == WH_MSG_BLOB_GET ? "BLOB_GET" : "BLOB";
}

/* A string we are about to send must fit the receiver's cap. */
static int s_str_ok(const char *s)
{
    return !s || strlen(s) <= WH_WIRE_MAX_STRING;
}

static int s_fp_ok(const wh_fp_t *fp)
{
    return s_str_ok(fp->test) && s_str_ok(fp->kind) && s_str_ok(fp->message) &&
           s_str_ok(fp->location);
}

/* protobuf-c wants char * even for packing, which only reads. */
#define S_W(s) ((char *)(uintptr_t)(s))

static void s_fp_out(Whittle__Fingerprint *o, const wh_fp_t *fp)
{
    whittle__fingerprint__init(o);
    o->test = S_W(fp->test);
    o->kind = S_W(fp->kind);
    o->message = S_W(fp->message);
    o->location = S_W(fp->location);
}

static int s_job_out(Whittle__JobSpec *o, const wh_job_spec_t *j)
{
    if (!s_str_ok(j->job_id) || !s_str_ok(j->snapshot_id) || !s_str_ok(j->project) ||
        !s_str_ok(j->test_file) || !s_str_ok(j->test) || !s_str_ok(j->setup_cmd) ||
        !s_str_ok(j->build_cmd) || !s_str_ok(j->run_cmd) || !s_str_ok(j->framework) ||
        !s_str_ok(j->failure_regex) || !s_str_ok(j->pass_regex) || !s_str_ok(j->reference) ||
        !s_str_ok(j->message_continuation) || !s_str_ok(j->test_fn) || !s_str_ok(j->git_url) || !s_str_ok(j->git_rev) ||
        !s_str_ok(j->git_subdir) || !s_str_ok(j->git_reference) || !s_str_ok(j->tenant) || !s_str_ok(j->tar_sha) ||
        !s_str_ok(j->ctest_pass_regex) || !s_str_ok(j->ctest_fail_regex) ||
        j->git_patch_len > WH_WIRE_MAX_PATCH)
        return WH_ETOOBIG;
    if (j->n_exclude < 0 || (j->n_exclude > 0 && !j->exclude))
        return WH_EINVAL;
    if (j->n_exclude > WH_WIRE_MAX_EXCLUDE)
        return WH_ETOOBIG;
    for (int i = 0; i < j->n_exclude; i++) {
        if (!j->exclude[i])
            return WH_EINVAL;
        if (!s_str_ok(j->exclude[i]))
            return WH_ETOOBIG;
    }
    whittle__job_spec__init(o);
    o->job_id = S_W(j->job_id);
    o->snapshot_id = S_W(j->snapshot_id);
    o->project = S_W(j->project);
    o->test_file = S_W(j->test_file);
    o->test = S_W(j->test);
    o->setup_cmd = S_W(j->setup_cmd);
    o->build_cmd = S_W(j->build_cmd);
    o->run_cmd = S_W(j->run_cmd);
    o->framework = S_W(j->framework);
    o->has_build_timeout_ms = o->has_test_timeout_ms = o->has_setup_timeout_ms = 1;
    o->build_timeout_ms = j->build_timeout_ms;
    o->test_timeout_ms = j->test_timeout_ms;
    o->setup_timeout_ms = j->setup_timeout_ms;
    o->has_match = 1;
    o->match = j->match;
    o->failure_regex = S_W(j->failure_regex);
    o->pass_regex = S_W(j->pass_regex);
    o->reference = S_W(j->reference);
    o->has_repeat = o->has_flaky_ok = o->has_keep_fault = 1;
    o->repeat = j->repeat;
    o->flaky_ok = j->flaky_ok;
    o->keep_fault = j->keep_fault != 0;
    o->message_continuation = S_W(j->message_continuation);
    o->has_pass_on_exit0 = 1;
    o->pass_on_exit0 = j->pass_on_exit0 != 0;
    o->has_whole_test = o->has_will_fail = 1;
    o->whole_test = j->whole_test != 0;
    o->will_fail = j->will_fail != 0;
    o->ctest_pass_regex = S_W(j->ctest_pass_regex);
    o->ctest_fail_regex = S_W(j->ctest_fail_regex);
    o->test_fn = S_W(j->test_fn);
    o->git_url = S_W(j->git_url);
    o->git_rev = S_W(j->git_rev);
    o->git_subdir = S_W(j->git_subdir);
    o->git_reference = S_W(j->git_reference);
    o->tenant = S_W(j->tenant);
    o->tar_sha256 = S_W(j->tar_sha);
    o->has_tar_size = j->tar_sha != NULL;
    o->tar_size = j->tar_size;
    if (j->git_patch) {
        o->has_git_patch = 1;
        o->git_patch.data = j->git_patch;
        o->git_patch.len = j->git_patch_len;
    }
    o->n_exclude = (size_t)j->n_exclude;
    o->exclude = j->exclude;
    return 0;
}

/* The bodies of one envelope being encoded; only those of m->type are
 * filled in (a VERDICT also uses fp and cc, an EVALUATE job and fp). */
typedef struct {
    Whittle__Hello hello;
    Whittle__Evaluate eval;
    Whittle__JobSpec job;
    Whittle__Fingerprint fp;
    Whittle__Verdict verdict;
    Whittle__CompileCommand cc;
    Whittle__Cancel cancel;
    Whittle__Heartbeat hb;
    Whittle__Bye bye;
    Whittle__Submit submit;
    Whittle__StatusReq sreq;
    Whittle__Status status;
    Whittle__Progress prog;
    Whittle__Warm warm;
    Whittle__Warmed warmed;
    Whittle__Watch watch;
    Whittle__Blob blob;
} s_bodies_t;

static int s_enc_hello(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->node_id))
        return WH_ETOOBIG;
    whittle__hello__init(&b->hello);
    b->hello.node_id = S_W(m->node_id);
    b->hello.has_slot = b->hello.has_slots = 1;
    b->hello.slot = m->slot;
    b->hello.slots = m->slots;
    b->hello.has_warms = 1;
    b->hello.warms = m->warms != 0;
    env->body_case = WHITTLE__ENVELOPE__BODY_HELLO;
    env->hello = &b->hello;
    return 0;
}

static int s_enc_evaluate(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    int rc;
    if ((rc = s_job_out(&b->job, &m->job)))
        return rc;
    if (!s_fp_ok(&m->ref) || m->content_len > WH_WIRE_MAX_CONTENT)
        return WH_ETOOBIG;
    if (m->content_len && !m->content)
        return WH_EINVAL;
    whittle__evaluate__init(&b->eval);
    s_fp_out(&b->fp, &m->ref);
    b->eval.job = &b->job;
    b->eval.has_cand_id = 1;
    b->eval.cand_id = m->cand_id;
    b->eval.has_content = m->content != NULL;
    b->eval.content.data = m->content;
    b->eval.content.len = m->content_len;
    b->eval.has_baseline = 1;
    b->eval.baseline = m->baseline != 0;
    b->eval.has_on_reference = 1;
    b->eval.on_reference = m->on_reference != 0;
    b->eval.has_fresh = 1;
    b->eval.fresh = m->fresh != 0;
    b->eval.ref = &b->fp;
    env->body_case = WHITTLE__ENVELOPE__BODY_EVALUATE;
    env->evaluate = &b->eval;
    return 0;
}

static int s_enc_verdict(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_fp_ok(&m->observed) || !s_str_ok(m->detail) || !s_str_ok(m->others) ||
        m->report_len > WH_WIRE_MAX_REPORT)
        return WH_ETOOBIG;
    if (m->report_len && !m->report)
        return WH_EINVAL;
    whittle__verdict__init(&b->verdict);
    s_fp_out(&b->fp, &m->observed);
    b->verdict.has_cand_id = b->verdict.has_verdict = b->verdict.has_test_status = 1;
    b->verdict.cand_id = m->cand_id;
    b->verdict.verdict = m->verdict;
    b->verdict.test_status = m->test_status;
    b->verdict.observed = &b->fp;
    b->verdict.detail = S_W(m->detail);
    b->verdict.others = S_W(m->others);
    b->verdict.has_build_ms = b->verdict.has_test_ms = 1;
    b->verdict.build_ms = m->build_ms;
    b->verdict.test_ms = m->test_ms;
    b->verdict.has_report = m->report != NULL;
    b->verdict.report.data = m->report;
    b->verdict.report.len = m->report_len;
    b->verdict.has_code = 1;
    b->verdict.code = m->code;
    b->verdict.has_runs = b->verdict.has_agreeing_runs = 1;
    b->verdict.runs = m->runs;
    b->verdict.agreeing_runs = m->agreeing_runs;
    if (!s_str_ok(m->job.job_id))
        return WH_ETOOBIG;
    b->verdict.job_id = S_W(m->job.job_id);
    if (m->compile.argc > 0) {
        if (m->compile.argc > WH_WIRE_MAX_ARGS || !s_str_ok(m->compile.directory) ||
            !s_str_ok(m->compile.file) || !s_str_ok(m->compile_root))
            return WH_ETOOBIG;
        for (int i = 0; i < m->compile.argc; i++)
            if (!m->compile.argv[i] || !s_str_ok(m->compile.argv[i]))
                return WH_ETOOBIG;
        whittle__compile_command__init(&b->cc);
        b->cc.directory = S_W(m->compile.directory);
        b->cc.file = S_W(m->compile.file);
        b->cc.n_arguments = (size_t)m->compile.argc;
        b->cc.arguments = m->compile.argv;
        b->cc.workspace = S_W(m->compile_root);
        b->verdict.compile = &b->cc;
    }
    env->body_case = WHITTLE__ENVELOPE__BODY_VERDICT;
    env->verdict = &b->verdict;
    return 0;
}

static int s_enc_cancel(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    whittle__cancel__init(&b->cancel);
    b->cancel.has_cand_id = 1;
    b->cancel.cand_id = m->cand_id;
    if (!s_str_ok(m->job.job_id))
        return WH_ETOOBIG;
    b->cancel.job_id = S_W(m->job.job_id);
    env->body_case = WHITTLE__ENVELOPE__BODY_CANCEL;
    env->cancel = &b->cancel;
    return 0;
}

static int s_enc_warm(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    int rc;
    if ((rc = s_job_out(&b->job, &m->job)))
        return rc;
    whittle__warm__init(&b->warm);
    b->warm.job = &b->job;
    env->body_case = WHITTLE__ENVELOPE__BODY_WARM;
    env->warm = &b->warm;
    return 0;
}

static int s_enc_warmed(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->job.job_id) || !s_str_ok(m->detail))
        return WH_ETOOBIG;
    whittle__warmed__init(&b->warmed);
    b->warmed.job_id = S_W(m->job.job_id);
    b->warmed.detail = S_W(m->detail);
    b->warmed.has_code = b->warmed.has_ms = b->warmed.has_cloned = 1;
    b->warmed.has_on_reference = b->warmed.has_setups = b->warmed.has_final = 1;
    b->warmed.final = m->final != 0;
    b->warmed.has_clone_ms = 1;
    b->warmed.clone_ms = m->clone_ms;
    b->warmed.code = m->code;
    b->warmed.ms = m->warm_ms;
    b->warmed.cloned = m->cloned != 0;
    b->warmed.on_reference = m->on_reference != 0;
    b->warmed.setups = m->setups;
    env->body_case = WHITTLE__ENVELOPE__BODY_WARMED;
    env->warmed = &b->warmed;
    return 0;
}

static int s_enc_heartbeat(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->node_id))
        return WH_ETOOBIG;
    whittle__heartbeat__init(&b->hb);
    b->hb.node_id = S_W(m->node_id);
    b->hb.has_slot = b->hb.has_cand_id = 1;
    b->hb.slot = m->slot;
    b->hb.cand_id = m->cand_id;
    b->hb.has_warms = 1;
    b->hb.warms = m->warms != 0;
    env->body_case = WHITTLE__ENVELOPE__BODY_HEARTBEAT;
    env->heartbeat = &b->hb;
    return 0;
}

static int s_enc_bye(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->node_id) || !s_str_ok(m->detail))
        return WH_ETOOBIG;
    whittle__bye__init(&b->bye);
    b->bye.node_id = S_W(m->node_id);
    b->bye.detail = S_W(m->detail);
    b->bye.has_refused = m->refused != 0;
    b->bye.refused = m->refused != 0;
    env->body_case = WHITTLE__ENVELOPE__BODY_BYE;
    env->bye = &b->bye;
    return 0;
}

static int s_enc_submit(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->json))
        return WH_ETOOBIG;
    whittle__submit__init(&b->submit);
    b->submit.json = S_W(m->json);
    b->submit.has_tag = 1;
    b->submit.tag = m->cand_id;
    env->body_case = WHITTLE__ENVELOPE__BODY_SUBMIT;
    env->submit = &b->submit;
    return 0;
}

static int s_enc_status_req(const wh_msg_t *m __attribute__((unused)), Whittle__Envelope *env,
                            s_bodies_t *b)
{
    whittle__status_req__init(&b->sreq);
    env->body_case = WHITTLE__ENVELOPE__BODY_STATUS_REQ;
    env->status_req = &b->sreq;
    return 0;
}

static int s_enc_status(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->detail))
        return WH_ETOOBIG;
    whittle__status__init(&b->status);
    b->status.detail = S_W(m->detail);
    env->body_case = WHITTLE__ENVELOPE__BODY_STATUS;
    env->status = &b->status;
    return 0;
}

static int s_enc_progress(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->detail) || !s_str_ok(m->status))
        return WH_ETOOBIG;
    whittle__progress__init(&b->prog);
    b->prog.detail = S_W(m->detail);
    b->prog.status = S_W(m->status);
    b->prog.has_final = b->prog.has_code = 1;
    b->prog.final = m->final != 0;
    b->prog.code = m->code;
    b->prog.has_tag = 1;
    b->prog.tag = m->cand_id;
    b->prog.job_id = S_W(m->job.job_id);
    b->prog.has_journaled = m->journaled != 0;
    b->prog.journaled = m->journaled != 0;
    if (m->content_len > WH_WIRE_MAX_CONTENT || (m->content_len && !m->content))
        return WH_ETOOBIG;
    b->prog.has_reduced = m->content != NULL;
    b->prog.reduced.data = m->content;
    b->prog.reduced.len = m->content_len;
    if (m->summary_len > WH_WIRE_MAX_SUMMARY || (m->summary_len && !m->summary))
        return WH_ETOOBIG;
    b->prog.has_summary = m->summary != NULL;
    b->prog.summary.data = (uint8_t *)m->summary;
    b->prog.summary.len = m->summary_len;
    env->body_case = WHITTLE__ENVELOPE__BODY_PROGRESS;
    env->progress = &b->prog;
    return 0;
}

static int s_enc_watch(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->job.job_id))
        return WH_ETOOBIG;
    whittle__watch__init(&b->watch);
    b->watch.job_id = S_W(m->job.job_id);
    b->watch.has_tag = 1;
    b->watch.tag = m->cand_id;
    env->body_case = WHITTLE__ENVELOPE__BODY_WATCH;
    env->watch = &b->watch;
    return 0;
}

static int s_enc_blob(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    if (!s_str_ok(m->blob_sha) || !s_str_ok(m->detail) || m->content_len > WH_WIRE_MAX_CHUNK ||
        (m->content_len && !m->content))
        return WH_ETOOBIG;
    whittle__blob__init(&b->blob);
    b->blob.sha256 = S_W(m->blob_sha);
    b->blob.has_offset = b->blob.has_total = b->blob.has_code = 1;
    b->blob.offset = m->blob_off;
    b->blob.total = m->blob_total;
    b->blob.code = m->code;
    b->blob.detail = S_W(m->detail);
    b->blob.has_data = m->content != NULL;
    b->blob.data.data = m->content;
    b->blob.data.len = m->content_len;
    if (m->type == WH_MSG_BLOB_PUT) {
        env->body_case = WHITTLE__ENVELOPE__BODY_BLOB_PUT;
        env->blob_put = &b->blob;
    } else if (m->type == WH_MSG_BLOB_GET) {
        env->body_case = WHITTLE__ENVELOPE__BODY_BLOB_GET;
        env->blob_get = &b->blob;
    } else {
        env->body_case = WHITTLE__ENVELOPE__BODY_BLOB;
        env->blob = &b->blob;
    }
    return 0;
}

static int s_enc_body(const wh_msg_t *m, Whittle__Envelope *env, s_bodies_t *b)
{
    switch (m->type) {
    case WH_MSG_HELLO:
        return s_enc_hello(m, env, b);
    case WH_MSG_EVALUATE:
        return s_enc_evaluate(m, env, b);
    case WH_MSG_VERDICT:
        return s_enc_verdict(m, env, b);
    case WH_MSG_CANCEL:
        return s_enc_cancel(m, env, b);
    case WH_MSG_WARM:
        return s_enc_warm(m, env, b);
    case WH_MSG_WARMED:
        return s_enc_warmed(m, env, b);
    case WH_MSG_HEARTBEAT:
        return s_enc_heartbeat(m, env, b);
    case WH_MSG_BYE:
        return s_enc_bye(m, env, b);
    case WH_MSG_SUBMIT:
        return s_enc_submit(m, env, b);
    case WH_MSG_STATUS_REQ:
        return s_enc_status_req(m, env, b);
    case WH_MSG_STATUS:
        return s_enc_status(m, env, b);
    case WH_MSG_PROGRESS:
        return s_enc_progress(m, env, b);
    case WH_MSG_WATCH:
        return s_enc_watch(m, env, b);
    case WH_MSG_BLOB_PUT:
    case WH_MSG_BLOB_GET:
    case WH_MSG_BLOB:
        return s_enc_blob(m, env, b);
    case WH_MSG_NONE:
    default:
        return WH_EINVAL;
    }
}

int wh_msg_encode(const wh_msg_t *m, uint8_t **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    Whittle__Envelope env;
    whittle__envelope__init(&env);
    env.version = WH_WIRE_VERSION;
    env.type = (Whittle__MsgType)m->type;
    s_bodies_t b;
    int rc = s_enc_body(m, &env, &b);
    if (rc)
        return rc;

    size_t n = whittle__envelope__get_packed_size(&env);
    if (n > WH_WIRE_MAX_FRAME)
        return WH_ETOOBIG;
    uint8_t *out = malloc(n ? n : 1);
    if (!out)
        return WH_ENOMEM;
    size_t w = whittle__envelope__pack(&env, out);
    if (w != n) {
        free(out);
        return WH_EPROTO;
    }
    *buf = out;
    *len = n;
    return 0;
}

/* ---- decode ---- */

/* Budget allocator for protobuf_c_message_unpack. Each block carries its
 * requested size in a header so that s_wire_len can recover a string's
 * length on the wire. */
#define S_HDR ((size_t)alignof(max_align_t) > sizeof(size_t) ? (size_t)alignof(max_align_t) : sizeof(size_t))

typedef struct {
    size_t used, budget;
    int over;
} s_arena_t;

static void *s_arena_alloc(void *ud, size_t n)
{
    s_arena_t *a = ud;
    if (n > a->budget || S_HDR + n > a->budget - a->used) {
        a->over = 1;
        return NULL;
    }
    unsigned char *p = malloc(S_HDR + n);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    a->used += S_HDR + n;
    return p + S_HDR;
}

static void s_arena_free(void *ud, void *ptr)
{
    s_arena_t *a = ud;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - S_HDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    a->used -= S_HDR + n;
    free(p);
}

/* The wire length of a string unpacked by protobuf-c: it allocated len+1. */
static size_t s_wire_len(const char *s)
{
    size_t n;
    memcpy(&n, (const unsigned char *)s - S_HDR, sizeof n);
    return n ? n - 1 : 0;
}

typedef struct {
    int rc;        /* first error */
    char *err;     /* its text, malloc'ed */
} s_dec_t;

static void s_fail(s_dec_t *d, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void s_fail(s_dec_t *d, int rc, const char *fmt, ...)
{
    if (d->rc)
        return;
    d->rc = rc;
    wh_buf_t b = WH_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    if (wh_buf_vprintf(&b, fmt, ap) == 0)
        d->err = wh_buf_detach(&b);
    else
        wh_buf_free(&b);
    va_end(ap);
}

static char *s_str_in(s_dec_t *d, const char *s, const char *field);

/* A baseline's compile command: capped, every part present. */
static void s_compile_in(s_dec_t *d, wh_msg_t *m, const Whittle__CompileCommand *c)
{
    if (!c || d->rc || c->n_arguments == 0)
        return;
    if (c->n_arguments > WH_WIRE_MAX_ARGS) {
        s_fail(d, WH_ETOOBIG, "verdict.compile has %zu arguments (cap %d)", c->n_arguments,
               WH_WIRE_MAX_ARGS);
        return;
    }
    if (!c->directory || !c->file || !c->workspace) {
        s_fail(d, WH_EPROTO, "verdict.compile is incomplete");
        return;
    }
    m->compile.directory = s_str_in(d, c->directory, "verdict.compile.directory");
    m->compile.file = s_str_in(d, c->file, "verdict.compile.file");
    m->compile_root = s_str_in(d, c->workspace, "verdict.compile.workspace");
    m->compile.argv = calloc(c->n_arguments + 1, sizeof *m->compile.argv);
    if (!m->compile.argv) {
        s_fail(d, WH_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < c->n_arguments && !d->rc; i++) {
        if (!c->arguments[i]) {
            s_fail(d, WH_EPROTO, "verdict.compile.arguments[%zu] is missing", i);
            return;
        }
        m->compile.argv[i] = s_str_in(d, c->arguments[i], "verdict.compile.arguments");
        m->compile.argc = (int)i + 1;
    }
}

/* Checks and copies one unpacked string field (NULL when absent). */
static char *s_str_in(s_dec_t *d, const char *s, const char *field)
{
    if (!s || d->rc)
        return NULL;
    size_t n = s_wire_len(s);
    if (n > WH_WIRE_MAX_STRING) {
        s_fail(d, WH_ETOOBIG, "field '%s' is %zu bytes (cap %u)", field, n,
               (unsigned)WH_WIRE_MAX_STRING);
        return NULL;
    }
    if (strlen(s) != n) {
        s_fail(d, WH_EPROTO, "field '%s' contains a NUL byte", field);
        return NULL;
    }
    char *r = malloc(n + 1);
    if (!r) {
        s_fail(d, WH_ENOMEM, "out of memory");
        return NULL;
    }
    memcpy(r, s, n + 1);
    return r;
}

static uint8_t *s_bytes_in(s_dec_t *d, int has, const ProtobufCBinaryData *b,
                           size_t cap, const char *field, size_t *len)
{
    *len = 0;
    if (!has || d->rc)
        return NULL;
    if (b->len > cap) {
        s_fail(d, WH_ETOOBIG, "field '%s' is %zu bytes (cap %zu)", field, b->len, cap);
        return NULL;
    }
    uint8_t *r = malloc(b->len + 1);
    if (!r) {
        s_fail(d, WH_ENOMEM, "out of memory");
        return NULL;
    }
    if (b->len)
        memcpy(r, b->data, b->len);
    r[b->len] = 0;
    *len = b->len;
    return r;
}

static void s_fp_in(s_dec_t *d, wh_fp_t *fp, const Whittle__Fingerprint *o, const char *what)
{
    if (!o)
        return;
    char name[64];
    snprintf(name, sizeof name, "%s.test", what);
    fp->test = s_str_in(d, o->test, name);
    snprintf(name, sizeof name, "%s.kind", what);
    fp->kind = s_str_in(d, o->kind, name);
    snprintf(name, sizeof name, "%s.message", what);
    fp->message = s_str_in(d, o->message, name);
    snprintf(name, sizeof name, "%s.location", what);
    fp->location = s_str_in(d, o->location, name);
}

static void s_job_in(s_dec_t *d, wh_job_spec_t *j, const Whittle__JobSpec *o)
{
    if (!o)
        return;
    j->job_id = s_str_in(d, o->job_id, "job.job_id");
    j->snapshot_id = s_str_in(d, o->snapshot_id, "job.snapshot_id");
    j->project = s_str_in(d, o->project, "job.project");
    j->test_file = s_str_in(d, o->test_file, "job.test_file");
    j->test = s_str_in(d, o->test, "job.test");
    j->setup_cmd = s_str_in(d, o->setup_cmd, "job.setup_cmd");
    j->build_cmd = s_str_in(d, o->build_cmd, "job.build_cmd");
    j->run_cmd = s_str_in(d, o->run_cmd, "job.run_cmd");
    j->framework = s_str_in(d, o->framework, "job.framework");
    j->build_timeout_ms = o->build_timeout_ms;
    j->test_timeout_ms = o->test_timeout_ms;
    j->setup_timeout_ms = o->setup_timeout_ms;
    j->match = o->match;
    j->failure_regex = s_str_in(d, o->failure_regex, "job.failure_regex");
    j->pass_regex = s_str_in(d, o->pass_regex, "job.pass_regex");
    j->reference = s_str_in(d, o->reference, "job.reference");
    j->repeat = o->repeat;
    j->flaky_ok = o->flaky_ok;
    j->keep_fault = o->keep_fault != 0;
    j->message_continuation = s_str_in(d, o->message_continuation, "job.message_continuation");
    j->pass_on_exit0 = o->pass_on_exit0 != 0;
    j->whole_test = o->whole_test != 0;
    j->will_fail = o->will_fail != 0;
    j->ctest_pass_regex = s_str_in(d, o->ctest_pass_regex, "job.ctest_pass_regex");
    j->ctest_fail_regex = s_str_in(d, o->ctest_fail_regex, "job.ctest_fail_regex");
    j->test_fn = s_str_in(d, o->test_fn, "job.test_fn");
    j->git_url = s_str_in(d, o->git_url, "job.git_url");
    j->git_rev = s_str_in(d, o->git_rev, "job.git_rev");
    j->git_subdir = s_str_in(d, o->git_subdir, "job.git_subdir");
    j->git_reference = s_str_in(d, o->git_reference, "job.git_reference");
    j->tenant = s_str_in(d, o->tenant, "job.tenant");
    j->tar_sha = s_str_in(d, o->tar_sha256, "job.tar_sha256");
    j->tar_size = o->tar_size;
    j->git_patch = s_bytes_in(d, o->has_git_patch, &o->git_patch, WH_WIRE_MAX_PATCH,
                              "job.git_patch", &j->git_patch_len);
    if (o->n_exclude > WH_WIRE_MAX_EXCLUDE) {
        s_fail(d, WH_ETOOBIG, "job.exclude has %zu entries (cap %d)", o->n_exclude,
               WH_WIRE_MAX_EXCLUDE);
        return;
    }
    if (o->n_exclude == 0 || d->rc)
        return;
    j->exclude = calloc(o->n_exclude, sizeof *j->exclude);
    if (!j->exclude) {
        s_fail(d, WH_ENOMEM, "out of memory");
        return;
    }
    j->n_exclude = (int)o->n_exclude;
    for (size_t i = 0; i < o->n_exclude; i++) {
        if (!o->exclude[i]) {
            s_fail(d, WH_EPROTO, "job.exclude[%zu] is missing", i);
            return;
        }
        j->exclude[i] = s_str_in(d, o->exclude[i], "job.exclude");
    }
}

/* The oneof case that goes with each message type. */
static Whittle__Envelope__BodyCase s_case_of(uint32_t type)
{
    switch (type) {
    case WH_MSG_HELLO: return WHITTLE__ENVELOPE__BODY_HELLO;
    case WH_MSG_EVALUATE: return WHITTLE__ENVELOPE__BODY_EVALUATE;
    case WH_MSG_VERDICT: return WHITTLE__ENVELOPE__BODY_VERDICT;
    case WH_MSG_CANCEL: return WHITTLE__ENVELOPE__BODY_CANCEL;
    case WH_MSG_HEARTBEAT: return WHITTLE__ENVELOPE__BODY_HEARTBEAT;
    case WH_MSG_BYE: return WHITTLE__ENVELOPE__BODY_BYE;
    case WH_MSG_SUBMIT: return WHITTLE__ENVELOPE__BODY_SUBMIT;
    case WH_MSG_STATUS_REQ: return WHITTLE__ENVELOPE__BODY_STATUS_REQ;
    case WH_MSG_STATUS: return WHITTLE__ENVELOPE__BODY_STATUS;
    case WH_MSG_PROGRESS: return WHITTLE__ENVELOPE__BODY_PROGRESS;
    case WH_MSG_WARM: return WHITTLE__ENVELOPE__BODY_WARM;
    case WH_MSG_WARMED: return WHITTLE__ENVELOPE__BODY_WARMED;
    case WH_MSG_WATCH: return WHITTLE__ENVELOPE__BODY_WATCH;
    case WH_MSG_BLOB_PUT: return WHITTLE__ENVELOPE__BODY_BLOB_PUT;
    case WH_MSG_BLOB_GET: return WHITTLE__ENVELOPE__BODY_BLOB_GET;
    case WH_MSG_BLOB: return WHITTLE__ENVELOPE__BODY_BLOB;
    default: return WHITTLE__ENVELOPE__BODY__NOT_SET;
    }
}

static void s_env_in(s_dec_t *d, wh_msg_t *m, const Whittle__Envelope *e)
{
    if (e->version != WH_WIRE_VERSION) {
        s_fail(d, WH_EPROTO, "unsupported protocol version %u (this side speaks %d)",
               (unsigned)e->version, WH_WIRE_VERSION);
        return;
    }
    uint32_t type = (uint32_t)e->type;
    Whittle__Envelope__BodyCase want = s_case_of(type);
    if (want == WHITTLE__ENVELOPE__BODY__NOT_SET) {
        s_fail(d, WH_EPROTO, "unknown message type %u", (unsigned)type);
        return;
    }
    if (e->body_case != want) {
        s_fail(d, WH_EPROTO, "%s message without its body", s_type_name(type));
        return;
    }
    m->type = (wh_msg_type_t)type;
    switch (m->type) {
    case WH_MSG_HELLO:
        m->node_id = s_str_in(d, e->hello->node_id, "hello.node_id");
        m->slot = e->hello->slot;
        m->slots = e->hello->slots;
        m->warms = e->hello->warms != 0;
        break;
    case WH_MSG_EVALUATE:
        s_job_in(d, &m->job, e->evaluate->job);
        m->cand_id = e->evaluate->cand_id;
        m->content = s_bytes_in(d, e->evaluate->has_content, &e->evaluate->content,
                                WH_WIRE_MAX_CONTENT, "evaluate.content", &m->content_len);
        m->baseline = e->evaluate->baseline != 0;
        m->on_reference = e->evaluate->on_reference != 0;
        m->fresh = e->evaluate->fresh != 0;
        s_fp_in(d, &m->ref, e->evaluate->ref, "evaluate.ref");
        break;
    case WH_MSG_VERDICT:
        m->cand_id = e->verdict->cand_id;
        m->verdict = e->verdict->verdict;
        if (m->verdict >= WH_V_COUNT)
            s_fail(d, WH_EPROTO, "unknown verdict %u", (unsigned)m->verdict);
        m->test_status = e->verdict->test_status;
        s_fp_in(d, &m->observed, e->verdict->observed, "verdict.observed");
        m->detail = s_str_in(d, e->verdict->detail, "verdict.detail");
        m->others = s_str_in(d, e->verdict->others, "verdict.others");
        m->build_ms = e->verdict->build_ms;
        m->test_ms = e->verdict->test_ms;
        m->report = s_bytes_in(d, e->verdict->has_report, &e->verdict->report,
                               WH_WIRE_MAX_REPORT, "verdict.report", &m->report_len);
        m->code = e->verdict->code;
        m->runs = e->verdict->runs;
        m->agreeing_runs = e->verdict->agreeing_runs;
        m->job.job_id = s_str_in(d, e->verdict->job_id, "verdict.job_id");
        s_compile_in(d, m, e->verdict->compile);
        break;
    case WH_MSG_CANCEL:
        m->cand_id = e->cancel->cand_id;
        m->job.job_id = s_str_in(d, e->cancel->job_id, "cancel.job_id");
        break;
    case WH_MSG_HEARTBEAT:
        m->node_id = s_str_in(d, e->heartbeat->node_id, "heartbeat.node_id");
        m->slot = e->heartbeat->slot;
        m->cand_id = e->heartbeat->cand_id;
        m->warms = e->heartbeat->warms != 0;
        break;
    case WH_MSG_BYE:
        m->node_id = s_str_in(d, e->bye->node_id, "bye.node_id");
        m->detail = s_str_in(d, e->bye->detail, "bye.detail");
        m->refused = e->bye->refused != 0;
        break;
    case WH_MSG_SUBMIT:
        m->json = s_str_in(d, e->submit->json, "submit.json");
        m->cand_id = e->submit->tag;
        break;
    case WH_MSG_STATUS_REQ:
        break;
    case WH_MSG_STATUS:
        m->detail = s_str_in(d, e->status->detail, "status.detail");
        break;
    case WH_MSG_PROGRESS:
        m->detail = s_str_in(d, e->progress->detail, "progress.detail");
        m->status = s_str_in(d, e->progress->status, "progress.status");
        m->final = e->progress->final != 0;
        m->code = e->progress->code;
        m->cand_id = e->progress->tag;
        m->job.job_id = s_str_in(d, e->progress->job_id, "progress.job_id");
        m->journaled = e->progress->journaled != 0;
        m->content = s_bytes_in(d, e->progress->has_reduced, &e->progress->reduced,
                                WH_WIRE_MAX_CONTENT, "progress.reduced", &m->content_len);
        /* An oversized summary costs only itself: the job's end still counts. */
        if (e->progress->has_summary && e->progress->summary.len > WH_WIRE_MAX_SUMMARY)
            m->summary_bad = "its run summary is over the 1 MiB cap";
        else
            m->summary = (char *)s_bytes_in(d, e->progress->has_summary, &e->progress->summary,
                                            WH_WIRE_MAX_SUMMARY, "progress.summary",
                                            &m->summary_len);
        break;
    case WH_MSG_WATCH:
        m->job.job_id = s_str_in(d, e->watch->job_id, "watch.job_id");
        m->cand_id = e->watch->tag;
        break;
    case WH_MSG_WARM:
        s_job_in(d, &m->job, e->warm->job);
        break;
    case WH_MSG_BLOB_PUT:
    case WH_MSG_BLOB_GET:
    case WH_MSG_BLOB: {
        const Whittle__Blob *b = m->type == WH_MSG_BLOB_PUT   ? e->blob_put
                                 : m->type == WH_MSG_BLOB_GET ? e->blob_get
                                                              : e->blob;
        m->blob_sha = s_str_in(d, b->sha256, "blob.sha256");
        m->blob_off = b->offset;
        m->blob_total = b->total;
        m->code = b->code;
        m->detail = s_str_in(d, b->detail, "blob.detail");
        m->content = s_bytes_in(d, b->has_data, &b->data, WH_WIRE_MAX_CHUNK, "blob.data",
                                &m->content_len);
        break;
    }
    case WH_MSG_WARMED:
        m->job.job_id = s_str_in(d, e->warmed->job_id, "warmed.job_id");
        m->detail = s_str_in(d, e->warmed->detail, "warmed.detail");
        m->code = e->warmed->code;
        m->warm_ms = e->warmed->ms;
        m->cloned = e->warmed->cloned != 0;
        m->on_reference = e->warmed->on_reference != 0;
        m->setups = e->warmed->setups;
        m->final = e->warmed->final != 0;
        m->clone_ms = e->warmed->clone_ms;
        break;
    case WH_MSG_NONE:
        break;
    }
}

int wh_msg_decode(const uint8_t *buf, size_t len, wh_msg_t *m, char **err)
{
    memset(m, 0, sizeof *m);
    if (err)
        *err = NULL;
    s_dec_t d = {0, NULL};
    if (len > WH_WIRE_MAX_FRAME) {
        s_fail(&d, WH_ETOOBIG, "frame of %zu bytes (cap %u)", len, (unsigned)WH_WIRE_MAX_FRAME);
    } else if (len && !buf) {
        s_fail(&d, WH_EINVAL, "no buffer");
    } else {
        /* Unpacking needs about the frame's size plus the structs; the
         * slack covers the fixed structs of one envelope. */
        s_arena_t arena = {0, 2 * len + (64u << 10), 0};
        ProtobufCAllocator alloc = {s_arena_alloc, s_arena_free, &arena};
        Whittle__Envelope *e = whittle__envelope__unpack(&alloc, len, buf);
        if (!e) {
            if (arena.over)
                s_fail(&d, WH_ETOOBIG, "envelope of %zu bytes unpacks too large", len);
            else
                s_fail(&d, WH_EPROTO, "malformed envelope (%zu bytes)", len);
        } else {
            s_env_in(&d, m, e);
            whittle__envelope__free_unpacked(e, &alloc);
        }
    }
    if (d.rc) {
        wh_msg_clear(m);
        if (err && !d.err)
            d.err = wh_strdup0(wh_strerror(d.rc));
        if (err)
            *err = d.err;
        else
            free(d.err);
        return d.rc;
    }
    free(d.err);
    return 0;
}

/* ---- sockets ---- */

int wh_wire_limit(void *sock)
{
    int64_t max = (int64_t)WH_WIRE_MAX_FRAME;
    return zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &max, sizeof max) < 0 ? -errno : 0;
}

/* Logs why a message was dropped, at most once a second per process so
 * that a misbehaving peer cannot flood the log. */
static void s_warn_drop(const char *why)
{
    static _Atomic uint64_t last;
    uint64_t now = wh_now_ms(), prev = atomic_load(&last);
    if (prev && now - prev < 1000)
        return;
    if (atomic_compare_exchange_strong(&last, &prev, now ? now : 1))
        wh_warn("dropped a message from a peer: %s", why);
}

/* Discards the remaining frames of a multipart message; returns how many. */
static int s_drain(void *sock)
{
    int n = 0;
    int more = 1;
    size_t sz = sizeof more;
    while (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
        zmq_msg_t f;
        zmq_msg_init(&f);
        int r = zmq_msg_recv(&f, sock, 0);
        zmq_msg_close(&f);
        if (r < 0)
            break;
        n++;
        sz = sizeof more;
    }
    return n;
}

static int s_decode_frame(zmq_msg_t *f, wh_msg_t *m)
{
    char *err = NULL;
    int rc = wh_msg_decode(zmq_msg_data(f), zmq_msg_size(f), m, &err);
    if (rc)
        s_warn_drop(err ? err : wh_strerror(rc));
    free(err);
    return rc;
}

static void s_zfree(void *data, void *hint)
{
    (void)hint;
    free(data);
}

/* Sends buf (taken over: freed in every case) as one frame. */
static int s_send_buf(void *sock, uint8_t *buf, size_t len, int flags)
{
    zmq_msg_t f;
    if (zmq_msg_init_data(&f, buf, len, s_zfree, NULL) < 0) {
        int e = -errno;
        free(buf);
        return e;
    }
    if (zmq_msg_send(&f, sock, flags) < 0) {
        int e = -errno;
        zmq_msg_close(&f);
        return e;
    }
    return 0;
}

int wh_wire_send(void *sock, const wh_msg_t *m, int flags)
{
    uint8_t *buf;
    size_t len;
    int rc = wh_msg_encode(m, &buf, &len);
    if (rc)
        return rc;
    return s_send_buf(sock, buf, len, flags);
}

int wh_wire_recv(void *sock, wh_msg_t *m, int flags)
{
    memset(m, 0, sizeof *m);
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, flags) < 0) {
        int e = -errno;
        zmq_msg_close(&f);
        return e;
    }
    if (zmq_msg_more(&f)) {
        zmq_msg_close(&f);
        int n = s_drain(sock);
        char why[96];
        snprintf(why, sizeof why, "a %d-frame message where one frame was expected", n + 1);
        s_warn_drop(why);
        return WH_EPROTO;
    }
    int rc = s_decode_frame(&f, m);
    zmq_msg_close(&f);
    return rc;
}

int wh_wire_send_to(void *sock, const void *ident, size_t ident_len,
                    const wh_msg_t *m, int flags)
{
    if (!ident || ident_len == 0 || ident_len > WH_WIRE_MAX_IDENT)
        return WH_EINVAL;
    uint8_t *buf;
    size_t len;
    int rc = wh_msg_encode(m, &buf, &len);
    if (rc)
        return rc;
    if (zmq_send(sock, ident, ident_len, flags | ZMQ_SNDMORE) < 0) {
        int e = -errno;
        free(buf);
        return e;
    }
    /* A ROUTER queues whole messages: once the identity frame is accepted,
     * the envelope frame is too. */
    return s_send_buf(sock, buf, len, flags);
}

int wh_wire_recv_from(void *sock, void *ident, size_t *ident_len,
                      wh_msg_t *m, int flags)
{
    return wh_wire_recv_from_peer(sock, ident, ident_len, NULL, 0, m, flags);
}

/* Copies the ZAP user id the frame arrived with ("" without one). */
static void s_user_id(zmq_msg_t *f, char *user, size_t cap)
{
    if (!user || !cap)
        return;
    const char *u = zmq_msg_gets(f, "User-Id");
    snprintf(user, cap, "%s", u ? u : "");
}

int wh_wire_recv_from_peer(void *sock, void *ident, size_t *ident_len, char *user,
                           size_t user_cap, wh_msg_t *m, int flags)
{
    memset(m, 0, sizeof *m);
    if (user && user_cap)
        user[0] = 0;
    *ident_len = 0;
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, flags) < 0) {
        int e = -errno;
        zmq_msg_close(&f);
        return e;
    }
    size_t idn = zmq_msg_size(&f);
    int more = zmq_msg_more(&f);
    if (idn > 0 && idn <= WH_WIRE_MAX_IDENT) {
        memcpy(ident, zmq_msg_data(&f), idn);
        *ident_len = idn;
    }
    zmq_msg_close(&f);
    if (!more || idn == 0 || idn > WH_WIRE_MAX_IDENT) {
        s_drain(sock);
        s_warn_drop(!more ? "a message without an envelope frame" : "a bad routing id");
        return WH_EPROTO;
    }
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, 0) < 0) {
        int e = -errno;
        zmq_msg_close(&f);
        return e;
    }
    if (zmq_msg_more(&f)) {
        zmq_msg_close(&f);
        int n = s_drain(sock);
        char why[96];
        snprintf(why, sizeof why, "a %d-frame message where [identity][envelope] was expected",
                 n + 2);
        s_warn_drop(why);
        return WH_EPROTO;
    }
    s_user_id(&f, user, user_cap);
    int rc = s_decode_frame(&f, m);
    zmq_msg_close(&f);
    return rc;
}
