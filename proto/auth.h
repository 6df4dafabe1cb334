/*
 * auth — who may talk to a coordinator, and as what. Peers authenticate with
 * libzmq's CURVE mechanism (RFC 26); the coordinator runs a ZAP handler
 * (RFC 27) that accepts only public keys found in its two allow-lists and
 * stamps each connection with a ZAP user id "node:NAME" or "client:NAME"
 * (NAME is the key file's base name). The coordinator reads that user id
 * on every message (wh_wire_recv_from_peer) and asks wh_auth_role_allows
 * whether the sender's role may send it: nodes HELLO/HEARTBEAT/VERDICT/BYE,
 * clients SUBMIT/STATUS_REQ.
 *
 * Key files follow czmq's zcert format (ZPL text), so czmq tools read them:
 *
 *     #   whittle CURVE certificate (public part)
 *     curve
 *         public-key = "<40 Z85 characters>"
 *
 * and the secret file (mode 0600) holds both public-key and secret-key. Only
 * the `public-key = "…"` / `secret-key = "…"` lines are read; anything else
 * (comments, metadata) is ignored.
 *
 * Without keys (--insecure) only loopback tcp://, ipc:// and inproc://
 * endpoints are allowed: wh_auth_endpoint_check.
 *
 * Only transport code (proto/) includes zmq.h; this module is part of it.
 */
#ifndef WH_AUTH_H
#define WH_AUTH_H

#include <stddef.h>

#include "wh_common.h"

#define WH_AUTH_Z85_LEN 40

/* A peer's key pair plus the server key it expects (value type). */
typedef struct {
    char public_key[WH_AUTH_Z85_LEN + 1];
    char secret_key[WH_AUTH_Z85_LEN + 1];
    char server_key[WH_AUTH_Z85_LEN + 1]; /* "" on the coordinator */
} wh_auth_keys_t;

typedef enum {
    WH_ROLE_ANY = 0,   /* no authentication (embedded, --insecure): everything allowed */
    WH_ROLE_NODE = 1,
    WH_ROLE_CLIENT = 2,
    WH_ROLE_NONE = 3,  /* authenticated but of no known role: nothing allowed */
} wh_role_t;

/* Writes PREFIX.secret (mode 0600, refuses to overwrite) and PREFIX.public.
 * 0 or a negative code with *err set (malloc'ed). */
int wh_auth_keygen(const char *prefix, char **err);

/* Reads the key pair from a secret file and, when server_file is not NULL,
 * the server's public key from it. 0 or WH_EINVAL/-errno with *err set. */
int wh_auth_keys_load(wh_auth_keys_t *k, const char *secret_file, const char *server_file,
                      char **err);

/* Reads the public key of a *.public (or secret) file into out. */
int wh_auth_public_load(const char *file, char out[WH_AUTH_Z85_LEN + 1], char **err);

/* A node's or client's keys from its options: secret_file/server_file,
 * else $WHITTLE_SECRET_KEY/$WHITTLE_SERVER_KEY (unless insecure); both or
 * neither; then wh_auth_endpoint_check. 1 keys loaded into k, 0 no keys
 * (allowed), negative with a one-line *err. */
int wh_auth_client_setup(wh_auth_keys_t *k, const char *secret_file, const char *server_file,
                         const char *endpoint, int insecure, char **err);

/* Makes sock a CURVE client of k->server_key. Call before connect. */
int wh_auth_client_apply(const wh_auth_keys_t *k, void *sock);

/* Watches sock's security handshakes (call before connect): returns a PAIR
 * socket to pass to wh_auth_refused and to zmq_close when done, or NULL. */
void *wh_auth_watch(void *zctx, void *sock);
/* Closes a watched socket and its watcher (either may be NULL): the
 * monitor stopped first, then its PAIR, then the socket, as libzmq asks
 * (a monitor left attached to a closed socket can hold zmq_ctx_term). */
void wh_auth_close(void *sock, void *mon);

/* Waits up to timeout_ms for the watched socket to connect (call once,
 * right after zmq_connect, before wh_auth_refused): 0 when connected (or
 * mon is NULL), -ECONNREFUSED when an attempt failed (nobody listens
 * there), WH_ETIMEOUT when no answer came at all. */
int wh_auth_wait_connected(void *mon, int timeout_ms);
/* What the watched socket's handshakes met since the last call (the events
 * are drained; never blocks): a refused key wins over a failed handshake. */
typedef enum {
    WH_AUTH_NOT_REFUSED = 0,
    WH_AUTH_KEY_REFUSED = 1,      /* the coordinator's ZAP handler refused the key */
    WH_AUTH_HANDSHAKE_FAILED = 2, /* keys on one side only, or the wrong server key */
    WH_AUTH_ROLE_REFUSED = 3,     /* let in, but the key's role is the other one (a BYE
                                     with refused said so; never from the monitor) */
} wh_auth_refusal_t;
wh_auth_refusal_t wh_auth_refusal(void *mon);
/* A refusal's one-line reason (static); NULL for WH_AUTH_NOT_REFUSED. */
const char *wh_auth_refusal_why(wh_auth_refusal_t r);
/* NULL, or why the coordinator refused the handshake since the last call
 * (wh_auth_refusal_why of wh_auth_refusal). Never blocks. */
const char *wh_auth_refused(void *mon);

/* Refuses an endpoint that would carry traffic off this machine without
 * keys: without keys tcp:// needs a loopback host (127.x, [::1], localhost)
 * and insecure set; inproc:// and ipc:// are always fine. insecure together
 * with keys is refused too. 0 or WH_EINVAL with a one-line *err. */
int wh_auth_endpoint_check(const char *endpoint, int have_keys, int insecure, char **err);

/* The coordinator's side: its key pair, the allow-lists and the ZAP handler
 * thread (one per zmq context). */
typedef struct wh_auth wh_auth_t;

/* Loads the secret key and every *.public file of nodes_dir and clients_dir
 * (either may be NULL: that role has nobody), then starts the ZAP handler on
 * zctx. A key listed under both roles is an error. NULL with *err set. */
wh_auth_t *wh_auth_server_new(void *zctx, const char *secret_file, const char *nodes_dir,
                              const char *clients_dir, char **err);
/* Stops the ZAP thread (before zmq_ctx_term) and frees. */
void wh_auth_destroy(wh_auth_t **a);
/* Makes sock a CURVE server with the ZAP domain "whittle". Call before bind. */
int wh_auth_server_apply(const wh_auth_t *a, void *sock);
/* Number of keys allowed per role (for the start-up line). */
int wh_auth_count(const wh_auth_t *a, wh_role_t role);

/* The role of a ZAP user id as set by the handler ("node:NAME" → NODE,
 * "client:NAME" → CLIENT); "" or NULL (no authentication) → ANY. */
wh_role_t wh_auth_role_of(const char *user_id);
/* Whether a peer of this role may send a message of this wh_msg_type_t. */
int wh_auth_role_allows(wh_role_t role, int msg_type);
/* wh_auth_role_allows for a user id; a refusal is logged (at most once a
 * second) naming the message type and the key. 1 admit, 0 drop. */
int wh_auth_admit(const char *user_id, int msg_type);
/* What the coordinator tells a peer whose message wh_auth_admit dropped
 * (a BYE with refused set, whose detail this is): one line naming the key
 * and the role it has and the role it acted in ("key 'cli' is a client
 * key (--clients), not a node key: ..."). NULL when no answer is due (a
 * BYE, which must not start a ping-pong) or out of memory; malloc'ed. */
char *wh_auth_refusal_text(const char *user_id, int msg_type);
/* Logs that user_id claimed a routing id owned by slot owner. */
void wh_auth_refuse_claim(const char *owner, const char *user_id, const void *ident,
                          size_t ident_len);
/* The printable name of a peer: "NAME/SLOT" for user id "role:NAME", else
 * the routing id. malloc'ed, NULL when out of memory. */
char *wh_auth_peer_name(const char *user_id, unsigned slot, const void *ident, size_t ident_len);

#endif
