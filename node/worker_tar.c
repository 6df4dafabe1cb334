/*
 * worker_tar — a slot's side of a tar snapshot (--snapshot tar; common/
 * wh_tar.h): a job spec that carries tar_sha is pointed at this node's
 * unpacked copy, WORKDIR/ws/<key>/src-<sha>, in the workspace key's own
 * folder (mode 0700, its uid's). The tar is fetched from the coordinator
 * (BLOB_GET, chunk by chunk, on a DEALER of its own with the node's keys;
 * never from a path on this host), checked against its sha256 and
 * unpacked as the key's uid (wh_runas_as_user), so every file is that
 * uid's and the node never writes as root where a hostile archive points.
 * The work runs on a thread while the slot's tick keeps its heartbeats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "auth.h"
#include "runas.h"
#include "wh_tar.h"
#include "worker_int.h"

#define S_CHUNK_WAIT_MS 10000

typedef struct {
    wh_node_t *n;
    const char *sha;
    uint64_t size;
    const char *dir;        /* the final tree */
    const wh_runas_t *ru;
    uint8_t *data;
    size_t len;
    char *err;
    int rc;
    atomic_int done;
} s_fetch_t;

/* The tar's bytes from the coordinator. 0 or -1 with f->err. */
static int s_download(s_fetch_t *f)
{
    wh_node_t *n = f->n;
    if (!f->size || f->size > WH_TAR_MAX_PACKED) {
        f->err = wh_strdup_printf("tar snapshot %.12s: size %llu out of range", f->sha,
                                  (unsigned long long)f->size);
        return -1;
    }
    void *sock = zmq_socket(n->zctx, ZMQ_DEALER);
    int linger = 0;
    if (sock)
        zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    if (!sock || (n->has_keys && wh_auth_client_apply(&n->keys, sock) != 0) ||
        wh_wire_limit(sock) != 0 || zmq_connect(sock, n->endpoint) < 0) {
        f->err = wh_strdup_printf("cannot connect to %s for the tar snapshot", n->endpoint);
        if (sock)
            zmq_close(sock);
        return -1;
    }
    f->data = malloc((size_t)f->size);
    wh_sha256_t *h = wh_sha256_new();
    uint64_t off = 0;
    int rc = f->data && h ? 0 : -1;
    while (!rc && off < f->size && !atomic_load(&n->stop)) {
        wh_msg_t q = {0};
        q.type = WH_MSG_BLOB_GET;
        q.blob_sha = (char *)f->sha;
        q.blob_off = off;
        if (wh_wire_send(sock, &q, 0) != 0) {
            rc = -1;
            break;
        }
        zmq_pollitem_t it = {sock, 0, ZMQ_POLLIN, 0};
        int got = 0;
        uint64_t t0 = wh_now_ms();
        while (!got && wh_now_ms() - t0 < S_CHUNK_WAIT_MS && !atomic_load(&n->stop)) {
            if (zmq_poll(&it, 1, 200) <= 0)
                continue;
            wh_msg_t r = {0};
            if (wh_wire_recv(sock, &r, ZMQ_DONTWAIT) == 0 && r.type == WH_MSG_BLOB &&
                r.blob_sha && !strcmp(r.blob_sha, f->sha) && r.blob_off == off) {
                got = 1;
                if (r.code || r.blob_total != f->size || !r.content_len ||
                    r.content_len > f->size - off) {
                    f->err = wh_strdup_printf("tar snapshot %.12s: the coordinator %s", f->sha,
                                              r.code ? (r.detail ? r.detail : "refused")
                                                     : "sent a chunk that does not fit its size");
                    rc = -1;
                } else {
                    memcpy(f->data + off, r.content, r.content_len);
                    wh_sha256_update(h, r.content, r.content_len);
                    off += r.content_len;
                }
            }
            wh_msg_clear(&r);
        }
        if (!got && !rc) {
            f->err = wh_strdup_printf("tar snapshot %.12s: no answer from %s within %d s",
                                      f->sha, n->endpoint, S_CHUNK_WAIT_MS / 1000);
            rc = -1;
        }
    }
    zmq_close(sock);
    char hex[65] = "";
    if (h)
        wh_sha256_final_hex(&h, hex);
    if (!rc && off == f->size && strcmp(hex, f->sha) != 0) {
        f->err = wh_strdup_printf("tar snapshot %.12s: the bytes fetched hash to %.12s", f->sha,
                                  hex);
        rc = -1;
    }
    if (!rc && off != f->size)
        rc = -1;
    f->len = (size_t)off;
    if (rc && !f->err)
        f->err = strdup("tar snapshot fetch failed");
    return rc;
}

/* As the key's uid: unpack beside, rename into place. */
static int s_unpack_as_user(void *arg)
{
    s_fetch_t *f = arg;
    char *tmp = wh_strdup_printf("%s.tmp.%lx", f->dir, (unsigned long)pthread_self());
    if (!tmp)
        return WH_ENOMEM;
    wh_rm_rf(tmp);
    int rc = wh_tar_unpack(f->data, f->len, tmp, NULL, &f->err);
    if (!rc && rename(tmp, f->dir) != 0) {
        /* another slot got there first: its tree is the same bytes */
        wh_rm_rf(tmp);
        if (!wh_is_dir(f->dir))
            rc = WH_EIO;
    }
    free(tmp);
    return rc;
}

static void *s_main(void *arg)
{
    s_fetch_t *f = arg;
    f->rc = s_download(f);
    if (!f->rc) {
        int rc = wh_runas_as_user(f->ru, s_unpack_as_user, f);
        if (rc) {
            f->rc = -1;
            if (!f->err)
                f->err = wh_strdup_printf("cannot unpack the tar snapshot as uid %u: %s",
                                          wh_runas_uid(f->ru), wh_strerror(rc));
        }
    }
    atomic_store(&f->done, 1);
    return NULL;
}

int wk_tar_localize(wk_slot_t *s, wh_job_spec_t *j, void (*tick)(void *), char **err)
{
    wh_node_t *n = s->node;
    if (!wh_tar_sha_ok(j->tar_sha)) {
        *err = strdup("a tar snapshot is named by its sha256 (64 lower-case hex digits)");
        return -1;
    }
    char key[65];
    wk_ws_key(j, j->project, key);
    char *parent = wh_strdup_printf("%s/ws/%s", n->workdir, key);
    char *dir = parent ? wh_strdup_printf("%s/src-%s", parent, j->tar_sha) : NULL;
    if (!dir) {
        free(parent);
        *err = strdup("out of memory");
        return -1;
    }
    if (!wh_is_dir(dir)) {
        char *detail = NULL;
        const wh_runas_t *ru = wk_key_runas(n, key, &detail);
        int rc = 0;
        if (!ru && n->uid_hi) {
            *err = detail ? detail : strdup("no uid for the job");
            rc = -1;
        } else if ((rc = wh_mkdir_p(parent)) != 0 || (rc = wh_runas_grant(ru, parent, 0)) != 0 ||
                   (n->uid_hi && chmod(parent, 0700) < 0 && (rc = -errno) != 0)) {
            *err = wh_strdup_printf("cannot create workspace under %s: %s", n->workdir,
                                    wh_strerror(rc));
            rc = -1;
        }
        if (rc) {
            free(parent);
            free(dir);
            return -1;
        }
        s_fetch_t f = {.n = n, .sha = j->tar_sha, .size = j->tar_size, .dir = dir, .ru = ru};
        pthread_t th;
        if (pthread_create(&th, NULL, s_main, &f) != 0) {
            free(parent);
            free(dir);
            *err = strdup("cannot start the tar snapshot fetch");
            return -1;
        }
        while (!atomic_load(&f.done)) {
            if (tick)
                tick(s);
            usleep(100 * 1000);
        }
        pthread_join(th, NULL);
        free(f.data);
        if (f.rc) {
            *err = f.err ? f.err : strdup("tar snapshot fetch failed");
            free(parent);
            free(dir);
            return -1;
        }
        free(f.err);
    }
    free(parent);
    free(j->project);
    j->project = dir;
    return 0;
}
