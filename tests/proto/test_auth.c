/*
 * test_auth — CURVE keys in czmq's zcert format, the loopback rule for
 * --insecure, the role table, and the ZAP handler over real tcp sockets:
 * listed keys arrive with their role and name as the user id, an unlisted
 * key gets nothing through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "auth.h"
#include "wh_test.h"
#include "wire.h"

static char s_dir[] = "/tmp/whittle-test-auth.XXXXXX";

static char *s_path(const char *name)
{
    return wh_path_join(s_dir, name);
}

static int s_check(const char *ep, int keys, int insecure, char **err)
{
    free(*err);
    *err = NULL;
    return wh_auth_endpoint_check(ep, keys, insecure, err);
}

static void test_endpoint_rule(void)
{
    char *err = NULL;
    CHECK_EQ_INT(s_check("inproc://x", 0, 0, &err), 0);
    CHECK_EQ_INT(s_check("ipc:///tmp/x", 0, 0, &err), 0);
    CHECK_EQ_INT(s_check("tcp://127.0.0.1:7700", 0, 1, &err), 0);
    CHECK_EQ_INT(s_check("tcp://127.8.9.10:7700", 0, 1, &err), 0);
    CHECK_EQ_INT(s_check("tcp://[::1]:7700", 0, 1, &err), 0);
    CHECK_EQ_INT(s_check("tcp://localhost:7700", 0, 1, &err), 0);
    CHECK_EQ_INT(s_check("tcp://0.0.0.0:7700", 1, 0, &err), 0);
    CHECK_EQ_INT(s_check("tcp://127.0.0.1:7700", 0, 0, &err), WH_EINVAL);
    CHECK_EQ_STR(err, "'tcp://127.0.0.1:7700' without keys needs --insecure (or --secret-key ...)");
    CHECK_EQ_INT(s_check("tcp://0.0.0.0:7700", 0, 1, &err), WH_EINVAL);
    CHECK_EQ_STR(err, "refusing 'tcp://0.0.0.0:7700' without keys: only loopback (127.x, [::1], "
                      "localhost) may run --insecure; give --secret-key and the other side's keys");
    CHECK_EQ_INT(s_check("tcp://0.0.0.0:7700", 0, 0, &err), WH_EINVAL);
    CHECK_EQ_INT(s_check("tcp://127.0.0.1.evil.com:7700", 0, 1, &err), WH_EINVAL);
    CHECK_EQ_INT(s_check("tcp://10.0.0.1;127.0.0.1:7700", 0, 1, &err), WH_EINVAL);
    CHECK_EQ_INT(s_check("tcp://*:7700", 0, 1, &err), WH_EINVAL);
    CHECK_EQ_INT(s_check("tcp://eth0:7700", 0, 1, &err), WH_EINVAL);
    CHECK_EQ_INT(s_check("tcp://127.0.0.1:7700", 1, 1, &err), WH_EINVAL);
    CHECK_EQ_STR(err, "--insecure and keys exclude each other (endpoint 'tcp://127.0.0.1:7700')");
    free(err);
}

static void test_roles(void)
{
    CHECK_EQ_INT(wh_auth_role_of(""), WH_ROLE_ANY);
    CHECK_EQ_INT(wh_auth_role_of(NULL), WH_ROLE_ANY);
    CHECK_EQ_INT(wh_auth_role_of("node:n1"), WH_ROLE_NODE);
    CHECK_EQ_INT(wh_auth_role_of("client:alice"), WH_ROLE_CLIENT);
    CHECK_EQ_INT(wh_auth_role_of("admin:x"), WH_ROLE_NONE);
    int node_ok = 0, client_ok = 0, any_ok = 0, none_ok = 0;
    for (int t = WH_MSG_HELLO; t <= WH_MSG_WATCH; t++) {
        node_ok |= wh_auth_role_allows(WH_ROLE_NODE, t) << t;
        client_ok |= wh_auth_role_allows(WH_ROLE_CLIENT, t) << t;
        any_ok += wh_auth_role_allows(WH_ROLE_ANY, t);
        none_ok += wh_auth_role_allows(WH_ROLE_NONE, t);
    }
    CHECK_EQ_INT(node_ok, (1 << WH_MSG_HELLO) | (1 << WH_MSG_HEARTBEAT) | (1 << WH_MSG_VERDICT) |
                              (1 << WH_MSG_WARMED) | (1 << WH_MSG_BYE));
    CHECK_EQ_INT(client_ok, (1 << WH_MSG_SUBMIT) | (1 << WH_MSG_STATUS_REQ) | (1 << WH_MSG_WATCH) |
                                (1 << WH_MSG_CANCEL));
    CHECK_EQ_INT(any_ok, WH_MSG_WATCH);
    CHECK_EQ_INT(none_ok, 0);
    char *n = wh_auth_peer_name("node:n1", 3, "x/3/ab", 6);
    CHECK_EQ_STR(n, "n1/3");
    free(n);
    n = wh_auth_peer_name("", 3, "x/3/ab", 6);
    CHECK_EQ_STR(n, "x/3/ab");
    free(n);
}

static void test_keygen_and_files(void)
{
    char *err = NULL, *prefix = s_path("coord"), *sec = s_path("coord.secret"),
         *pub = s_path("coord.public");
    CHECK_EQ_INT(wh_auth_keygen(prefix, &err), 0);
    struct stat st;
    CHECK(stat(sec, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(stat(pub, &st) == 0 && (st.st_mode & 0077) == 0044);
    CHECK(wh_auth_keygen(prefix, &err) == -EEXIST);
    free(err);
    err = NULL;
    wh_auth_keys_t k;
    char pubkey[WH_AUTH_Z85_LEN + 1];
    CHECK_EQ_INT(wh_auth_keys_load(&k, sec, pub, &err), 0);
    CHECK_EQ_INT(wh_auth_public_load(pub, pubkey, &err), 0);
    CHECK_EQ_INT((int)strlen(k.secret_key), WH_AUTH_Z85_LEN);
    CHECK_EQ_STR(k.public_key, pubkey);
    CHECK_EQ_STR(k.server_key, pubkey);
    /* the public file holds no secret */
    char *text = NULL;
    size_t len = 0;
    CHECK(wh_read_file(pub, 4096, &text, &len) == 0 && !strstr(text, "secret-key =") &&
          !strstr(text, k.secret_key));
    free(text);
    /* a bare key line (czmq style, no section) is accepted too */
    char *bare = s_path("bare.public");
    char *line = wh_strdup_printf("public-key = \"%s\"\n", pubkey);
    wh_write_file(bare, line, strlen(line));
    char got[WH_AUTH_Z85_LEN + 1];
    CHECK_EQ_INT(wh_auth_public_load(bare, got, &err), 0);
    CHECK_EQ_STR(got, pubkey);
    /* a short key is refused by name */
    wh_write_file(bare, "public-key = \"abc\"\n", 19);
    CHECK_EQ_INT(wh_auth_public_load(bare, got, &err), WH_EINVAL);
    char *want = wh_strdup_printf("key file '%s' has no valid public-key = \"<40 Z85 characters>\" line", bare);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    err = NULL;
    /* the public file has no secret key */
    CHECK(wh_auth_keys_load(&k, pub, NULL, &err) == WH_ENOTFOUND);
    free(err);
    free(line);
    free(bare);
    free(prefix);
    free(sec);
    free(pub);
}

/* A DEALER with keys `name` sending HELLO; returns the user id the ROUTER
 * saw, or "" when nothing arrived within 700 ms. */
static void s_hello(void *zctx, void *router, const char *ep, const char *name, char *user)
{
    char *sec = wh_strdup_printf("%s/%s.secret", s_dir, name), *srv = s_path("coord.public");
    char *err = NULL;
    wh_auth_keys_t k;
    CHECK_EQ_INT(wh_auth_keys_load(&k, sec, srv, &err), 0);
    void *d = zmq_socket(zctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(d, ZMQ_LINGER, &zero, sizeof zero);
    CHECK_EQ_INT(wh_auth_client_apply(&k, d), 0);
    CHECK_EQ_INT(zmq_connect(d, ep), 0);
    wh_msg_t m = {0};
    m.type = WH_MSG_HELLO;
    m.node_id = (char *)name;
    wh_wire_send(d, &m, 0);
    user[0] = 0;
    zmq_pollitem_t it = {router, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&it, 1, 700) > 0) {
        uint8_t ident[WH_WIRE_MAX_IDENT];
        size_t il = 0;
        wh_msg_t r = {0};
        CHECK_EQ_INT(wh_wire_recv_from_peer(router, ident, &il, user, WH_WIRE_MAX_USER, &r, 0), 0);
        CHECK_EQ_STR(r.node_id, name);
        wh_msg_clear(&r);
    }
    zmq_close(d);
    free(err);
    free(sec);
    free(srv);
}

static void test_zap(void)
{
    char *err = NULL, *nodes = s_path("nodes"), *clients = s_path("clients");
    wh_mkdir_p(nodes);
    wh_mkdir_p(clients);
    const char *names[] = {"n1", "alice", "rogue"};
    const char *dirs[] = {"nodes/n1", "clients/alice", "rogue"};
    for (int i = 0; i < 3; i++) {
        char *p = s_path(dirs[i]);
        CHECK_EQ_INT(wh_auth_keygen(p, &err), 0);
        free(p);
        /* wh_hello loads DIR/NAME.secret */
        char *from = wh_strdup_printf("%s/%s.secret", s_dir, dirs[i]);
        char *to = wh_strdup_printf("%s/%s.secret", s_dir, names[i]);
        if (strcmp(from, to))
            CHECK_EQ_INT(rename(from, to), 0);
        free(from);
        free(to);
    }
    void *zctx = zmq_ctx_new();
    char *sec = s_path("coord.secret");
    wh_auth_t *a = wh_auth_server_new(zctx, sec, nodes, clients, &err);
    CHECK(a != NULL);
    CHECK_EQ_INT(wh_auth_count(a, WH_ROLE_NODE), 1);
    CHECK_EQ_INT(wh_auth_count(a, WH_ROLE_CLIENT), 1);
    void *r = zmq_socket(zctx, ZMQ_ROUTER);
    int zero = 0;
    zmq_setsockopt(r, ZMQ_LINGER, &zero, sizeof zero);
    CHECK_EQ_INT(wh_auth_server_apply(a, r), 0);
    CHECK_EQ_INT(zmq_bind(r, "tcp://127.0.0.1:*"), 0);
    char ep[256];
    size_t epl = sizeof ep;
    zmq_getsockopt(r, ZMQ_LAST_ENDPOINT, ep, &epl);
    char user[WH_WIRE_MAX_USER];
    s_hello(zctx, r, ep, "n1", user);
    CHECK_EQ_STR(user, "node:n1");
    s_hello(zctx, r, ep, "alice", user);
    CHECK_EQ_STR(user, "client:alice");
    s_hello(zctx, r, ep, "rogue", user);
    CHECK_EQ_STR(user, "");
    zmq_close(r);
    wh_auth_destroy(&a);
    CHECK(a == NULL);
    /* the same key under both roles is refused */
    char *dup_from = s_path("nodes/n1.public"), *dup_to = s_path("clients/n1.public");
    char *text = NULL;
    size_t len = 0;
    wh_read_file(dup_from, 4096, &text, &len);
    wh_write_file(dup_to, text, len);
    free(text);
    a = wh_auth_server_new(zctx, sec, nodes, clients, &err);
    CHECK(a == NULL);
    CHECK(err && strstr(err, "key 'n1.public' in '") && strstr(err, "is already allowed as node:n1"));
    free(err);
    zmq_ctx_term(zctx);
    free(dup_from);
    free(dup_to);
    free(sec);
    free(nodes);
    free(clients);
}

int main(void)
{
    if (!mkdtemp(s_dir))
        return 1;
    RUN_TEST(test_endpoint_rule);
    RUN_TEST(test_roles);
    RUN_TEST(test_keygen_and_files);
    RUN_TEST(test_zap);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
