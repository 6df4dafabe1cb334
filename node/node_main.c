/*
 * whittle-node — a build node: N slot threads with warm workspaces that
 * connect to a coordinator.
 *
 * Its options are rows of common/cli_table.c (whittle-node --help).
 * Started as root, the node runs job commands as --run-as USER (default
 * nobody): a submitted job's setup must not run as root on every slot.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "cli.h"
#include "wh_common.h"
#include "worker.h"

static volatile sig_atomic_t s_stop;

static void s_on_signal(int sig)
{
    (void)sig;
    s_stop = 1;
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

int main(int argc, char **argv)
{
    wh_node_opts_t o = {0};
    const char *secret = NULL, *server = NULL;
    int insecure = 0;
    o.slots = 1;
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
        else if (wh_cli_is(&c, "sandbox")) {
            if (strcmp(v, "bwrap") && strcmp(v, "none"))
                return s_die("--sandbox wants bwrap or none, not", v);
            o.sandbox = !strcmp(v, "bwrap") ? WH_SANDBOX_BWRAP : WH_SANDBOX_NONE;
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
    if (!o.run_as && geteuid() == 0)
        o.run_as = "nobody"; /* never a job's commands as root by default */
    wh_auth_keys_t keys;
    char *aerr = NULL;
    int have = wh_auth_client_setup(&keys, secret, server, o.endpoint, insecure, &aerr);
    if (have < 0) {
        fprintf(stderr, "whittle-node: error: %s\n", aerr);
        free(aerr);
        return 2;
    }
    o.keys = have ? &keys : NULL;
    /* TEST ONLY: a node that lies (tests/e2e/liar.sh). Never set it on a
     * real node: every candidate would be answered Preserved unjudged. */
    const char *lie = getenv("WH_TEST_LIE");
    if (lie && *lie) {
        if (strcmp(lie, "preserved") != 0)
            return s_die("WH_TEST_LIE (test only) must be 'preserved', not", lie);
        o.test_lie = 1;
        fprintf(stderr, "whittle-node: WH_TEST_LIE=preserved: this node LIES (test only)\n");
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
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
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
    if (o.run_as || o.sandbox)
        fprintf(stderr, "whittle-node: job commands run as %s%s\n",
                o.run_as ? o.run_as : "this node's user",
                o.sandbox ? " in a bwrap sandbox (loopback-only network)" : "");
    while (!s_stop)
        usleep(100 * 1000);
    wh_node_stop(&n);
    zmq_ctx_term(zctx);
    return 0;
}
