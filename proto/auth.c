/*
 * auth — CURVE keys, the coordinator's allow-lists and its ZAP handler. See
 * auth.h for the file format and the roles.
 */
#define _GNU_SOURCE
#include "auth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "wire.h"

#define S_ZAP_ENDPOINT "inproc://zeromq.zap.01"
#define S_ZAP_DOMAIN "whittle"
#define S_KEYFILE_CAP (64u << 10)
#define S_MAX_KEYS 100000

typedef struct {
    char key[WH_AUTH_Z85_LEN + 1];
    char *user_id;         /* "node:NAME" / "client:NAME" */
} s_entry_t;

struct wh_auth {
    wh_auth_keys_t keys;
    s_entry_t *allow;
    int nallow, nnodes, nclients;
    void *zctx;
    pthread_t th;
    int started;
    atomic_int stop;
    atomic_int ready;      /* 1 bound, -errno failed */
};

/* ---- key files ---- */

/* Finds `name = "VALUE"` in text; copies a 40-char Z85 VALUE into out. */
static int s_find_key(const char *text, const char *name, char out[WH_AUTH_Z85_LEN + 1])
{
    size_t nl = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += nl) {
        if (p != text && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n')
            continue;
        const char *q = p + nl;
        q += strspn(q, " \t");
        if (*q++ != '=')
            continue;
        q += strspn(q, " \t");
        if (*q++ != '"')
            continue;
        size_t n = strcspn(q, "\"\n");
        if (n != WH_AUTH_Z85_LEN || q[n] != '"')
            return WH_EINVAL;
        uint8_t bin[32];
        memcpy(out, q, n);
        out[n] = 0;
        return zmq_z85_decode(bin, out) ? 0 : WH_EINVAL;
    }
    return WH_ENOTFOUND;
}

static int s_read_key(const char *file, const char *name, char out[WH_AUTH_Z85_LEN + 1],
                      char **err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = wh_read_file(file, S_KEYFILE_CAP, &text, &len);
    if (rc) {
        *err = wh_strdup_printf("cannot read key file '%s': %s", file, wh_strerror(rc));
        return rc;
    }
    rc = s_find_key(text, name, out);
    free(text);
    if (rc)
        *err = wh_strdup_printf("key file '%s' has no valid %s = \"<40 Z85 characters>\" line",
                                file, name);
    return rc;
}

int wh_auth_public_load(const char *file, char out[WH_AUTH_Z85_LEN + 1], char **err)
{
    return s_read_key(file, "public-key", out, err);
}

int wh_auth_keys_load(wh_auth_keys_t *k, const char *secret_file, const char *server_file,
                      char **err)
{
    memset(k, 0, sizeof *k);
    struct stat st;
    if (stat(secret_file, &st) == 0 && (st.st_mode & 077))
        wh_warn("secret key file '%s' is readable by others (mode %03o); chmod 600 it",
                secret_file, (unsigned)(st.st_mode & 0777));
    int rc = s_read_key(secret_file, "secret-key", k->secret_key, err);
    if (rc)
        return rc;
    /* The public half is derived, so a secret file without it still works. */
    if (zmq_curve_public(k->public_key, k->secret_key) != 0) {
        *err = wh_strdup_printf("key file '%s': cannot derive the public key", secret_file);
        return WH_EINVAL;
    }
    if (server_file && (rc = wh_auth_public_load(server_file, k->server_key, err)) != 0)
        return rc;
    return 0;
}

static int s_write_cert(const char *path, const wh_auth_keys_t *k, int secret, char **err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, secret ? 0600 : 0644);
    if (fd < 0) {
        int e = -errno;
        *err = wh_strdup_printf("cannot create '%s': %s", path, wh_strerror(e));
        return e;
    }
    char *text = wh_strdup_printf("#   whittle CURVE certificate (%s); czmq zcert format\n"
                                  "#   %s\n"
                                  "curve\n"
                                  "    public-key = \"%s\"\n%s%s%s",
                                  secret ? "secret: keep it private" : "public",
                                  secret ? "give the .public file to the coordinator's allow-list"
                                         : "list it in the coordinator's --nodes or --clients folder",
                                  k->public_key, secret ? "    secret-key = \"" : "",
                                  secret ? k->secret_key : "", secret ? "\"\n" : "");
    size_t n = text ? strlen(text) : 0;
    int rc = text && write(fd, text, n) == (ssize_t)n ? 0 : WH_EIO;
    free(text);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc)
        *err = wh_strdup_printf("cannot write '%s': %s", path, wh_strerror(rc));
    return rc;
}

int wh_auth_keygen(const char *prefix, char **err)
{
    wh_auth_keys_t k = {0};
    if (zmq_curve_keypair(k.public_key, k.secret_key) != 0) {
        *err = wh_strdup_printf("this libzmq has no CURVE support: %s", zmq_strerror(errno));
        return WH_EINVAL;
    }
    char *sec = wh_strdup_printf("%s.secret", prefix);
    char *pub = wh_strdup_printf("%s.public", prefix);
    int rc = s_write_cert(sec, &k, 1, err);
    if (rc == 0 && (rc = s_write_cert(pub, &k, 0, err)) != 0)
        unlink(sec);
    free(sec);
    free(pub);
    memset(&k, 0, sizeof k);
    return rc;
}

int wh_auth_client_apply(const wh_auth_keys_t *k, void *sock)
{
    if (zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, k->server_key, WH_AUTH_Z85_LEN + 1) < 0 ||
        zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, k->public_key, WH_AUTH_Z85_LEN + 1) < 0 ||
        zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, k->secret_key, WH_AUTH_Z85_LEN + 1) < 0)
        return -errno;
    return 0;
}

/* ---- endpoints ---- */

static int s_loopback_host(const char *h, size_t n)
{
    if (n == 9 && !strncmp(h, "localhost", 9))
        return 1;
    if ((n == 5 && !strncmp(h, "[::1]", 5)) || (n == 3 && !strncmp(h, "::1", 3)))
        return 1;
    if (n < 4 || strncmp(h, "127.", 4))
        return 0;
    for (size_t i = 4; i < n; i++)
        if (!(h[i] == '.' || (h[i] >= '0' && h[i] <= '9')))
            return 0;
    return 1;
}

int wh_auth_endpoint_check(const char *ep, int have_keys, int insecure, char **err)
{
    if (have_keys && insecure) {
        *err = wh_strdup_printf("--insecure and keys exclude each other (endpoint '%s')", ep);
        return WH_EINVAL;
    }
    if (have_keys || !strncmp(ep, "inproc://", 9) || !strncmp(ep, "ipc://", 6))
        return 0;
    int loopback = 0;
    if (!strncmp(ep, "tcp://", 6) && !strchr(ep, ';')) {
        const char *h = ep + 6, *colon = strrchr(h, ':');
        loopback = colon && s_loopback_host(h, (size_t)(colon - h));
    }
    if (!loopback) {
        *err = wh_strdup_printf("refusing '%s' without keys: only loopback (127.x, [::1], "
                                "localhost) may run --insecure; give --secret-key and the "
                                "other side's keys", ep);
        return WH_EINVAL;
    }
    if (!insecure) {
        *err = wh_strdup_printf("'%s' without keys needs --insecure (or --secret-key ...)", ep);
        return WH_EINVAL;
    }
    return 0;
}

/* ---- roles ---- */

wh_role_t wh_auth_role_of(const char *uid)
{
    if (!uid || !*uid)
        return WH_ROLE_ANY;
    if (!strncmp(uid, "node:", 5))
        return WH_ROLE_NODE;
    if (!strncmp(uid, "client:", 7))
        return WH_ROLE_CLIENT;
    return WH_ROLE_NONE;
}

int wh_auth_role_allows(wh_role_t role, int type)
{
    switch (role) {
    case WH_ROLE_ANY:
        return 1;
    case WH_ROLE_NODE:
        return type == WH_MSG_HELLO || type == WH_MSG_HEARTBEAT || type == WH_MSG_VERDICT ||
               type == WH_MSG_WARMED || type == WH_MSG_BYE || type == WH_MSG_BLOB_GET;
    case WH_ROLE_CLIENT:
        /* CANCEL and WATCH name a job; the coordinator lets a client act
         * only on the jobs its key submitted. */
        return type == WH_MSG_SUBMIT || type == WH_MSG_STATUS_REQ || type == WH_MSG_WATCH ||
               type == WH_MSG_CANCEL || type == WH_MSG_BLOB_PUT;
    default:
        return 0;
    }
}

/* ---- allow-lists ---- */

static int s_load_dir(wh_auth_t *a, const char *dir, const char *role, char **err)
{
    DIR *d = opendir(dir);
    if (!d) {
        int e = -errno;
        *err = wh_strdup_printf("cannot read key folder '%s': %s", dir, wh_strerror(e));
        return e;
    }
    int rc = 0, n = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= 7 || strcmp(de->d_name + len - 7, ".public") || de->d_name[0] == '.')
            continue;
        if (a->nallow >= S_MAX_KEYS) {
            *err = wh_strdup_printf("key folder '%s' holds more than %d keys", dir, S_MAX_KEYS);
            rc = WH_ETOOBIG;
            break;
        }
        char *path = wh_path_join(dir, de->d_name);
        s_entry_t e = {0};
        rc = path ? wh_auth_public_load(path, e.key, err) : WH_ENOMEM;
        free(path);
        if (rc)
            break;
        for (int i = 0; i < a->nallow; i++)
            if (!strcmp(a->allow[i].key, e.key)) {
                *err = wh_strdup_printf("key '%s' in '%s' is already allowed as %s", de->d_name,
                                        dir, a->allow[i].user_id);
                rc = WH_EINVAL;
            }
        if (rc)
            break;
        e.user_id = wh_strdup_printf("%s:%.*s", role, (int)(len - 7), de->d_name);
        s_entry_t *grown = realloc(a->allow, (size_t)(a->nallow + 1) * sizeof *grown);
        if (!grown || !e.user_id) {
            free(e.user_id);
            rc = WH_ENOMEM;
            break;
        }
        a->allow = grown;
        a->allow[a->nallow++] = e;
        n++;
    }
    closedir(d);
    if (role[0] == 'n')
        a->nnodes = n;
    else
        a->nclients = n;
    return rc;
}

static const char *s_lookup(const wh_auth_t *a, const char *key)
{
    for (int i = 0; i < a->nallow; i++)
        if (!strcmp(a->allow[i].key, key))
            return a->allow[i].user_id;
    return NULL;
}

/* ---- the ZAP handler (RFC 27) ---- */

/* Reads one multipart request into at most 8 frames; returns the count
 * (frames beyond 8 are dropped). */
static int s_zap_read(void *sock, zmq_msg_t *f, int max)
{
    int n = 0, more = 1;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, sock, 0) < 0) {
            zmq_msg_close(&m);
            break;
        }
        more = zmq_msg_more(&m);
        if (n < max)
            f[n++] = m;
        else
            zmq_msg_close(&m);
    }
    return n;
}

static void s_zap_reply(void *sock, zmq_msg_t *reqid, const char *code, const char *text,
                        const char *uid)
{
    zmq_send(sock, "1.0", 3, ZMQ_SNDMORE);
    zmq_send(sock, zmq_msg_data(reqid), zmq_msg_size(reqid), ZMQ_SNDMORE);
    zmq_send(sock, code, strlen(code), ZMQ_SNDMORE);
    zmq_send(sock, text, strlen(text), ZMQ_SNDMORE);
    zmq_send(sock, uid, strlen(uid), ZMQ_SNDMORE);
    zmq_send(sock, "", 0, 0);
}

static void s_zap_handle(wh_auth_t *a, void *sock)
{
    zmq_msg_t f[8];
    int n = s_zap_read(sock, f, 8);
    if (n < 2) {
        for (int i = 0; i < n; i++)
            zmq_msg_close(&f[i]);
        return;
    }
    const char *uid = NULL;
    char key[WH_AUTH_Z85_LEN + 1] = "", addr[64] = "?";
    if (n >= 4) {
        size_t al = zmq_msg_size(&f[3]) < sizeof addr - 1 ? zmq_msg_size(&f[3]) : sizeof addr - 1;
        memcpy(addr, zmq_msg_data(&f[3]), al);
        addr[al] = 0;
    }
    if (n == 7 && zmq_msg_size(&f[5]) == 5 && !memcmp(zmq_msg_data(&f[5]), "CURVE", 5) &&
        zmq_msg_size(&f[6]) == 32 && zmq_z85_encode(key, zmq_msg_data(&f[6]), 32))
        uid = s_lookup(a, key);
    if (uid) {
        wh_info("auth: %s connected from %s", uid, addr);
        s_zap_reply(sock, &f[1], "200", "OK", uid);
    } else {
        static uint64_t last;
        uint64_t now = wh_now_ms();
        if (!last || now - last >= 1000) {
            wh_warn("auth: refused %s key %s from %s: not in --nodes or --clients",
                    key[0] ? "unlisted" : "a non-CURVE", key[0] ? key : "-", addr);
            last = now;
        }
        s_zap_reply(sock, &f[1], "400", "key not allowed", "");
    }
    for (int i = 0; i < n; i++)
        zmq_msg_close(&f[i]);
}

static void *s_zap_main(void *arg)
{
    wh_auth_t *a = arg;
    void *sock = zmq_socket(a->zctx, ZMQ_REP);
    int zero = 0;
    if (sock)
        zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    if (!sock || zmq_bind(sock, S_ZAP_ENDPOINT) < 0) {
        atomic_store(&a->ready, -errno ? -errno : -EINVAL);
        if (sock)
            zmq_close(sock);
        return NULL;
    }
    atomic_store(&a->ready, 1);
    while (!atomic_load(&a->stop)) {
        zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 100) > 0)
            s_zap_handle(a, sock);
    }
    zmq_close(sock);
    return NULL;
}

wh_auth_t *wh_auth_server_new(void *zctx, const char *secret_file, const char *nodes_dir,
                              const char *clients_dir, char **err)
{
    wh_auth_t *a = calloc(1, sizeof *a);
    if (!a) {
        *err = strdup("out of memory");
        return NULL;
    }
    a->zctx = zctx;
    if (wh_auth_keys_load(&a->keys, secret_file, NULL, err) != 0 ||
        (nodes_dir && s_load_dir(a, nodes_dir, "node", err) != 0) ||
        (clients_dir && s_load_dir(a, clients_dir, "client", err) != 0))
        goto fail;
    if (pthread_create(&a->th, NULL, s_zap_main, a) != 0) {
        *err = strdup("cannot start the ZAP handler thread");
        goto fail;
    }
    a->started = 1;
    while (atomic_load(&a->ready) == 0)
        usleep(1000);
    if (atomic_load(&a->ready) < 0) {
        *err = wh_strdup_printf("cannot bind the ZAP handler %s: %s", S_ZAP_ENDPOINT,
                                wh_strerror(atomic_load(&a->ready)));
        goto fail;
    }
    return a;
fail:
    wh_auth_destroy(&a);
    return NULL;
}

void wh_auth_destroy(wh_auth_t **ap)
{
    wh_auth_t *a = *ap;
    if (!a)
        return;
    if (a->started) {
        atomic_store(&a->stop, 1);
        pthread_join(a->th, NULL);
    }
    for (int i = 0; i < a->nallow; i++)
        free(a->allow[i].user_id);
    free(a->allow);
    memset(&a->keys, 0, sizeof a->keys);
    free(a);
    *ap = NULL;
}

int wh_auth_server_apply(const wh_auth_t *a, void *sock)
{
    int one = 1;
    if (zmq_setsockopt(sock, ZMQ_ZAP_DOMAIN, S_ZAP_DOMAIN, strlen(S_ZAP_DOMAIN)) < 0 ||
        zmq_setsockopt(sock, ZMQ_CURVE_SERVER, &one, sizeof one) < 0 ||
        zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, a->keys.secret_key, WH_AUTH_Z85_LEN + 1) < 0)
        return -errno;
    return 0;
}

int wh_auth_count(const wh_auth_t *a, wh_role_t role)
{
    return role == WH_ROLE_NODE ? a->nnodes : role == WH_ROLE_CLIENT ? a->nclients : a->nallow;
}

/* ---- the coordinator's per-message checks ---- */

static const char *s_type_name(int t)
{
    static const char *names[] = {"NONE", "HELLO", "EVALUATE", "VERDICT", "CANCEL", "HEARTBEAT",
                                  "BYE", "SUBMIT", "STATUS_REQ", "STATUS", "PROGRESS",
                                  "WARM", "WARMED", "WATCH"};
    if (t == WH_MSG_BLOB_PUT || t == WH_MSG_BLOB_GET)
        return t == WH_MSG_BLOB_PUT ? "BLOB_PUT" : "BLOB_GET";
    return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "UNKNOWN";
}

/* At most one line a second per kind, so a peer cannot flood the log. */
static int s_log_ok(_Atomic uint64_t *last)
{
    uint64_t now = wh_now_ms(), prev = atomic_load(last);
    if (prev && now - prev < 1000)
        return 0;
    atomic_store(last, now);
    return 1;
}

int wh_auth_admit(const char *user_id, int msg_type)
{
    wh_role_t role = wh_auth_role_of(user_id);
    if (wh_auth_role_allows(role, msg_type))
        return 1;
    /* one clock per message type: a chatty peer cannot hide another's refusal */
    static _Atomic uint64_t last[16];
    if (s_log_ok(&last[(unsigned)msg_type & 15u]))
        wh_warn("auth: dropped %s from %s: a %s key may only send %s", s_type_name(msg_type),
                user_id, role == WH_ROLE_NODE ? "node" : role == WH_ROLE_CLIENT ? "client" : "unknown",
                role == WH_ROLE_NODE     ? "HELLO, HEARTBEAT, VERDICT, WARMED, BLOB_GET and BYE"
                : role == WH_ROLE_CLIENT ? "SUBMIT, STATUS_REQ, WATCH, CANCEL and BLOB_PUT"
                                         : "nothing");
    return 0;
}

char *wh_auth_refusal_text(const char *user_id, int msg_type)
{
    if (msg_type == WH_MSG_BYE || msg_type == WH_MSG_NONE)
        return NULL;
    wh_role_t role = wh_auth_role_of(user_id);
    const char *colon = user_id ? strchr(user_id, ':') : NULL;
    const char *name = colon ? colon + 1 : user_id ? user_id : "?";
    /* The role the peer acted in is the one its message belongs to. */
    int as_node = wh_auth_role_allows(WH_ROLE_NODE, msg_type);
    const char *has = role == WH_ROLE_NODE     ? "a node key (in the coordinator's --nodes)"
                      : role == WH_ROLE_CLIENT ? "a client key (in the coordinator's --clients)"
                                               : "a key of no role";
    return wh_strdup_printf("the coordinator refused key '%s' as a %s: it is %s, not a %s key; "
                            "use a key from its %s folder",
                            name, as_node ? "node" : "client", has,
                            as_node ? "node" : "client", as_node ? "--nodes" : "--clients");
}

void wh_auth_refuse_claim(const char *owner, const char *user_id, const void *ident,
                          size_t ident_len)
{
    static _Atomic uint64_t last;
    if (s_log_ok(&last))
        wh_warn("auth: %s claimed routing id '%.*s' owned by slot %s; refused (no takeover)",
                user_id && *user_id ? user_id : "an unauthenticated peer", (int)ident_len,
                (const char *)ident, owner);
}

char *wh_auth_peer_name(const char *user_id, unsigned slot, const void *ident, size_t ident_len)
{
    const char *colon = user_id ? strchr(user_id, ':') : NULL;
    if (colon && colon[1])
        return wh_strdup_printf("%s/%u", colon + 1, slot);
    return strndup((const char *)ident, ident_len);
}

int wh_auth_client_setup(wh_auth_keys_t *k, const char *secret_file, const char *server_file,
                         const char *endpoint, int insecure, char **err)
{
    if (!secret_file && !insecure)
        secret_file = getenv("WHITTLE_SECRET_KEY");
    if (!server_file && !insecure)
        server_file = getenv("WHITTLE_SERVER_KEY");
    if (secret_file && !*secret_file)
        secret_file = NULL;
    if (server_file && !*server_file)
        server_file = NULL;
    if (!secret_file != !server_file) {
        *err = wh_strdup_printf("--secret-key and --server-key go together (%s is missing)",
                                secret_file ? "--server-key" : "--secret-key");
        return WH_EINVAL;
    }
    int rc = wh_auth_endpoint_check(endpoint, secret_file != NULL, insecure, err);
    if (rc || !secret_file)
        return rc < 0 ? rc : 0;
    rc = wh_auth_keys_load(k, secret_file, server_file, err);
    return rc ? rc : 1;
}

/* ---- the client's view of a refused handshake ---- */

void *wh_auth_watch(void *zctx, void *sock)
{
    static atomic_uint seq;
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://wh-auth-watch-%d-%u", (int)getpid(), atomic_fetch_add(&seq, 1));
    if (zmq_socket_monitor(sock, ep, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                                         ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                                         ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_RETRIED) != 0)
        return NULL;
    void *mon = zmq_socket(zctx, ZMQ_PAIR);
    int zero = 0;
    if (mon)
        zmq_setsockopt(mon, ZMQ_LINGER, &zero, sizeof zero);
    if (mon && zmq_connect(mon, ep) != 0) {
        zmq_close(mon);
        mon = NULL;
    }
    return mon;
}

void wh_auth_close(void *sock, void *mon)
{
    if (sock && mon)
        zmq_socket_monitor(sock, NULL, 0);
    if (mon)
        zmq_close(mon);
    if (sock)
        zmq_close(sock);
}

const char *wh_auth_refusal_why(wh_auth_refusal_t r)
{
    return r == WH_AUTH_KEY_REFUSED
               ? "the coordinator refused this key (it is not in its allow-list for this role)"
           : r == WH_AUTH_HANDSHAKE_FAILED
               ? "the security handshake failed (keys on one side, --insecure on the other, or "
                 "the wrong --server-key)"
           : r == WH_AUTH_ROLE_REFUSED
               ? "the coordinator refused this key's role (a client key as a node, or the other "
                 "way round)"
               : NULL;
}

const char *wh_auth_refused(void *mon)
{
    return wh_auth_refusal_why(wh_auth_refusal(mon));
}

wh_auth_refusal_t wh_auth_refusal(void *mon)
{
    if (!mon)
        return WH_AUTH_NOT_REFUSED;
    wh_auth_refusal_t why = WH_AUTH_NOT_REFUSED;
    for (;;) {
        zmq_msg_t f;
        zmq_msg_init(&f);
        if (zmq_msg_recv(&f, mon, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&f);
            return why;
        }
        int more = zmq_msg_more(&f);
        if (zmq_msg_size(&f) >= 2) {
            uint16_t ev;
            memcpy(&ev, zmq_msg_data(&f), 2);
            if (ev == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
                why = WH_AUTH_KEY_REFUSED;
            else if (ev & (ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
                why = why ? why : WH_AUTH_HANDSHAKE_FAILED;
        }
        zmq_msg_close(&f);
        while (more) { /* the event's second frame: the endpoint */
            zmq_msg_init(&f);
            if (zmq_msg_recv(&f, mon, 0) < 0)
                more = 0;
            else
                more = zmq_msg_more(&f);
            zmq_msg_close(&f);
        }
    }
}

/* Reads one monitor event (both frames) within timeout_ms: its id, or 0. */
static uint16_t s_next_event(void *mon, int timeout_ms)
{
    zmq_pollitem_t it = {mon, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&it, 1, timeout_ms) <= 0)
        return 0;
    uint16_t ev = 0;
    zmq_msg_t f;
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, mon, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&f);
        return 0;
    }
    int more = zmq_msg_more(&f);
    if (zmq_msg_size(&f) >= 2)
        memcpy(&ev, zmq_msg_data(&f), 2);
    zmq_msg_close(&f);
    while (more) {
        zmq_msg_init(&f);
        more = zmq_msg_recv(&f, mon, 0) >= 0 && zmq_msg_more(&f);
        zmq_msg_close(&f);
    }
    return ev;
}

int wh_auth_wait_connected(void *mon, int timeout_ms)
{
    if (!mon)
        return 0;
    uint64_t end = wh_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        uint64_t now = wh_now_ms();
        if (now >= end)
            return WH_ETIMEOUT;
        uint16_t ev = s_next_event(mon, (int)(end - now));
        if (ev == ZMQ_EVENT_CONNECTED)
            return 0;
        if (ev == ZMQ_EVENT_CONNECT_RETRIED)
            return -ECONNREFUSED;
        /* A handshake event comes only after CONNECTED; none is lost. */
    }
}
