/*
 * tarstore — the coordinator's store of tar snapshots (--snapshot tar):
 * gzip'd tars its clients upload in chunks (BLOB_PUT) and its nodes fetch
 * in chunks (BLOB_GET), content-addressed by their sha256 under
 * ROOT/blobs/<sha>.tgz, beside ROOT/blobs/<sha>.keys (the client keys that
 * uploaded it, one per line: a key may submit a job only on a tar it sent
 * itself, so knowing a hash gives no access to another tenant's files).
 *
 * An upload is written to a temporary file in order (a chunk at another
 * offset than the bytes held is answered with how much is held), checked
 * against its sha256 when whole and renamed into place. A tar is at most
 * WH_TAR_MAX_PACKED bytes; the store at most cap bytes: before an upload
 * starts, the least recently used tars not in use are removed until it
 * fits, and it is refused when it cannot. Uploads idle for 60 s are
 * dropped. One thread (the coordinator's loop).
 */
#ifndef WH_TARSTORE_H
#define WH_TARSTORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wh_tarstore wh_tarstore_t;

#define WH_TARSTORE_CAP (4ull << 30)

/* root: a folder of the coordinator's state (made when missing); cap 0:
 * WH_TARSTORE_CAP. NULL with *err. */
wh_tarstore_t *wh_tarstore_new(const char *root, uint64_t cap, char **err);
void wh_tarstore_destroy(wh_tarstore_t **ts);

/* A chunk of key's upload of sha (total bytes) at off. *held: the bytes
 * of it held in a row afterwards (total once whole and checked). 0, or a
 * negative code with *err (one line): a bad sha or size, a tar over
 * WH_TAR_MAX_PACKED, a full store, bytes that do not match the hash. */
int wh_tarstore_put(wh_tarstore_t *ts, const char *key, const char *sha, uint64_t total,
                    uint64_t off, const uint8_t *data, size_t len, uint64_t *held, char **err);
/* 1 when the tar sha is whole here and key uploaded it. */
int wh_tarstore_owned(wh_tarstore_t *ts, const char *key, const char *sha);
/* Up to cap bytes of tar sha from off into buf; *total its size. The
 * bytes read (0 at the end), or WH_ENOTFOUND. Marks it used. */
long wh_tarstore_read(wh_tarstore_t *ts, const char *sha, uint64_t off, uint8_t *buf, size_t cap,
                      uint64_t *total);
/* The file of tar sha (malloc'ed; it may not exist). */
char *wh_tarstore_path(const wh_tarstore_t *ts, const char *sha);
/* Marks sha in use by a live job (not evicted) or no longer (in = 0). */
void wh_tarstore_pin(wh_tarstore_t *ts, const char *sha, int in);
/* Drops uploads idle for 60 s; call now and then. */
void wh_tarstore_tick(wh_tarstore_t *ts);

#endif
