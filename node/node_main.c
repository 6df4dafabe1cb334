/*
 * whittle-node — a build node: N slot threads with warm workspaces that
 * connect to a coordinator.
 *
 * Its options are rows of common/cli_table.c (whittle-node --help).
 * Started as root, the node runs job commands as --run-as USER (default
 * nobody): a submitted job's setup must not run as root on every slot.
 *
 * Built with WH_NODE_TEST it is whittle-node-test, for the test suite only:
 * it also reads the switches that make a node misbehave on purpose
 * (WH_TEST_LIE, WH_TEST_BUSY). whittle-node never does.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "cli.h"
#include "runner.h"
#include "wh_common.h"
#include "worker.h"

static volatile sig_atomic_t s_stop;

static void s_on_signal(int sig)
{
    (void)sig;
    s_stop = 1;
}

/* Continued after a stop: the slots check whether their sessions survived. */
static void s_on_cont(int sig)
{
    (void)sig;
    wh_node_note_continued();
}

static int s_die(const char *msg, const char *arg)
{
    fprintf(stderr, "whittle-node: error: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

static int s_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || v <= 0)
        return -1;
    uint64_t mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    case 't': case 'T': mul = 1ull << 40; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return -1;
    *out = (uint64_t)(v * (double)mul);
    return 0;
}

/* A coordinator that refused the node's handshake WH_NODE_REFUSALS times in
 * a row refuses it for ever: one line saying which coordinator refused
 * which key, and 2 (a bad key, as for a bad option); else 0. */
static int s_refused(const wh_node_t *n, const wh_node_opts_t *o, const wh_auth_keys_t *keys,
                     const char *secret)
{
    wh_auth_refusal_t r = wh_node_refused(n);
    if (r == WH_AUTH_NOT_REFUSED)
        return 0;
    const char *file = secret ? secret : getenv("WHITTLE_SECRET_KEY");
    if (r == WH_AUTH_ROLE_REFUSED)
        fprintf(stderr, "whittle-node: error: coordinator at %s: %s (this node's key '%s'); "
                "stopping\n", o->endpoint, wh_node_refusal_detail(n), file ? file : "?");
    else if (r == WH_AUTH_KEY_REFUSED)
        fprintf(stderr, "whittle-node: error: coordinator at %s refused this node's key '%s' "
                "(public key %s) %d times in a row: it is not in the coordinator's --nodes "
                "folder; stopping\n", o->endpoint, file ? file : "?",
                keys ? keys->public_key : "?", WH_NODE_REFUSALS);
    else if (keys)
        fprintf(stderr, "whittle-node: error: coordinator at %s failed the security handshake "
                "with this node's key '%s' (public key %s) %d times in a row: --server-key is "
                "not its public key, or it runs without keys (--insecure); stopping\n",
                o->endpoint, file ? file : "?", keys->public_key, WH_NODE_REFUSALS);
    else
        fprintf(stderr, "whittle-node: error: coordinator at %s failed the security handshake "
                "with this node (--insecure, no key) %d times in a row: it runs with CURVE "
                "keys; give --secret-key and --server-key; stopping\n", o->endpoint,
                WH_NODE_REFUSALS);
    return 2;
}

/* Who runs job commands, and in which sandbox; a node that found none
 * under --sandbox auto says so plainly, with bwrap's reason. */
static void s_say_confinement(const wh_node_t *n, const wh_node_opts_t *o)
{
    const char *box = wh_node_sandboxed(n) ? " in a bwrap sandbox (loopback-only network)" : "";
    if (o->job_uid_hi)
        fprintf(stderr, "whittle-node: job commands run as a uid of their own per client key "
                "and workspace (%u-%u)%s\n", o->job_uid_lo, o->job_uid_hi, box);
    else if (o->run_as || *box)
        fprintf(stderr, "whittle-node: job commands run as %s%s\n",
                o->run_as ? o->run_as : "this node's user", box);
    if (!wh_node_sandbox_note(n))
        return;
    if (o->job_uid_hi)
        fprintf(stderr, "whittle-node: warning: no sandbox: %s; job commands see this host's "
                "files and network (their uids keep other jobs' workspaces out); --sandbox none "
                "silences this\n", wh_node_sandbox_note(n));
    else
        fprintf(stderr, "whittle-node: warning: no sandbox: %s; one job's commands can read and "
                "change another job's workspaces on this node; --sandbox none silences this\n",
                wh_node_sandbox_note(n));
}

int main(int argc, char **argv)
{
    wh_node_opts_t o = {0};
    const char *secret = NULL, *server = NULL;
    int insecure = 0;
    o.slots = 1;
    o.sandbox = WH_SANDBOX_AUTO; /* confined where bwrap works (issue 18) */
    o.workdir = "/var/lib/whittle";
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle-node", NULL, argc - 1, argv + 1);
    while ((rc = wh_cli_next(&c)) > 0) {
        const char *v = c.arg;
        long n = 0;
        if (wh_cli_is(&c, "connect"))
            o.endpoint = v;
        else if (wh_cli_is(&c, "slots")) {
            if (wh_parse_long(v, 1, 1024, &n))
                return s_die("--slots wants 1..1024, not", v);
            o.slots = (int)n;
        } else if (wh_cli_is(&c, "workdir"))
            o.workdir = v;
        else if (wh_cli_is(&c, "id"))
            o.node_id = v;
        else if (wh_cli_is(&c, "secret-key"))
            secret = v;
        else if (wh_cli_is(&c, "server-key"))
            server = v;
        else if (wh_cli_is(&c, "insecure"))
            insecure = 1;
        else if (wh_cli_is(&c, "run-as"))
            o.run_as = v;
        else if (wh_cli_is(&c, "pass-env")) {
            int rc = wh_run_env_pass(v);
            if (rc)
                return s_die(rc == WH_ETOOBIG ? "--pass-env takes at most 64 names; one too many:"
                                              : "--pass-env wants a variable name, not",
                             v);
        }
        else if (wh_cli_is(&c, "job-uids")) {
            unsigned long lo = 0, hi = 0;
            char tail = 0;
            if (sscanf(v, "%lu-%lu%c", &lo, &hi, &tail) != 2 || lo < 1000 || hi < lo ||
                hi > 2147483647ul)
                return s_die("--job-uids wants LO-HI with 1000 <= LO <= HI (like 900000-999999), "
                             "not", v);
            o.job_uid_lo = (unsigned)lo;
            o.job_uid_hi = (unsigned)hi;
        } else if (wh_cli_is(&c, "sandbox")) {
            if (strcmp(v, "auto") && strcmp(v, "bwrap") && strcmp(v, "none"))
                return s_die("--sandbox wants auto, bwrap or none, not", v);
            o.sandbox = !strcmp(v, "bwrap")  ? WH_SANDBOX_BWRAP
                        : !strcmp(v, "auto") ? WH_SANDBOX_AUTO
                                             : WH_SANDBOX_NONE;
        } else if (wh_cli_is(&c, "heartbeat")) {
            if (wh_parse_long(v, 10, 600000, &n))
                return s_die("--heartbeat wants milliseconds in 10..600000, not", v);
            o.heartbeat_ms = (unsigned)n;
        } else if (wh_cli_is(&c, "max-disk")) {
            if (s_parse_size(v, &o.max_disk))
                return s_die("--max-disk wants a size like 20G, not", v);
        } else if (wh_cli_is(&c, "verbose"))
            wh_log_set_level(WH_LOG_INFO);
    }
    if (rc < 0)
        return c.exit;
    if (!o.endpoint)
        return s_die("missing --connect ENDPOINT", NULL);
    if (o.job_uid_hi && geteuid() != 0) {
        char uid[32];
        snprintf(uid, sizeof uid, "%u", (unsigned)geteuid());
        return s_die("--job-uids needs a node started as root; this one runs as uid", uid);
    }
    /* Started as root without --run-as: a uid per client key and workspace
     * (issue 34: two tenants never share one). */
    if (!o.run_as && !o.job_uid_hi && geteuid() == 0) {
        o.job_uid_lo = 60000;
        o.job_uid_hi = 60999;
    }
    if (!o.run_as && geteuid() == 0)
        o.run_as = "nobody"; /* never a job's commands as root by default */
    wh_auth_keys_t keys;
    memset(&keys, 0, sizeof keys);
    char *aerr = NULL;
    int have = wh_auth_client_setup(&keys, secret, server, o.endpoint, insecure, &aerr);
    if (have < 0) {
        fprintf(stderr, "whittle-node: error: %s\n", aerr);
        free(aerr);
        return 2;
    }
    o.keys = have ? &keys : NULL;
    o.secret_key = have ? (secret ? secret : getenv("WHITTLE_SECRET_KEY")) : NULL;
#ifdef WH_NODE_TEST
    /* TEST ONLY, and only in whittle-node-test (built with WH_NODE_TEST):
     * a node that lies (tests/e2e/liar.sh): every candidate would be
     * answered Preserved unjudged. whittle-node reads no such switch. */
    const char *lie = getenv("WH_TEST_LIE");
    if (lie && *lie) {
        o.test_lie = strcmp(lie, "preserved") == 0     ? WH_V_PRESERVED
                     : strcmp(lie, "buildfailed") == 0 ? WH_V_BUILD_FAILED
                     : strcmp(lie, "testpassed") == 0  ? WH_V_TEST_PASSED
                                                       : WH_V_NONE;
        if (o.test_lie == WH_V_NONE)
            return s_die("WH_TEST_LIE (test only) must be 'preserved', 'buildfailed' or "
                         "'testpassed', not", lie);
        fprintf(stderr, "whittle-node: WH_TEST_LIE=%s: this node LIES (test only)\n", lie);
    }
    /* TEST ONLY: a node whose slots always say busy (tests/e2e/busy_node.sh). */
    const char *busy = getenv("WH_TEST_BUSY");
    if (busy && *busy) {
        if (strcmp(busy, "always") != 0)
            return s_die("WH_TEST_BUSY (test only) must be 'always', not", busy);
        o.test_busy = 1;
        fprintf(stderr, "whittle-node: WH_TEST_BUSY=always: this node answers busy to every "
                        "candidate (test only)\n");
    }
#endif
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A job's commands see an allow-listed environment, never the node's
     * secrets (WHITTLE_REDIS_PASSWORD, key paths): runner.h. */
    wh_run_confine_env(1);
    struct sigaction sc = {0};
    sc.sa_handler = s_on_cont;
    sc.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &sc, NULL);
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    wh_node_t *n = wh_node_start(zctx, &o, &err);
    if (!n) {
        fprintf(stderr, "whittle-node: error: %s\n", err ? err : "cannot start");
        free(err);
        zmq_ctx_term(zctx);
        return 1;
    }
    fprintf(stderr, "whittle-node: %d slot(s) connected to %s, workspaces in %s\n", o.slots,
            o.endpoint, o.workdir);
    s_say_confinement(n, &o);
    int code = 0;
    while (!s_stop && !(code = s_refused(n, &o, have ? &keys : NULL, secret)))
        usleep(100 * 1000);
    wh_node_stop(&n);
    zmq_ctx_term(zctx);
    memset(&keys, 0, sizeof keys);
    return code;
}
