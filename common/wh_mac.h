/*
 * wh_mac — the MAC that every value whittle writes to Redis carries, so
 * that a value read back is believed only when it was written by someone
 * holding the cluster secret (DESIGN.md, "Trust"). A value is stored as
 *
 *     <value> mac=<64 lower-case hex>
 *
 * where the hex is HMAC-SHA-256(secret, field("whittle-v1") ‖ field(redis
 * key) ‖ field(value)), field(x) = "<decimal length of x>:" ‖ x, so that
 * neither a value moved to another key nor a MAC cut between key and
 * value checks. The check compares in constant time (CRYPTO_memcmp).
 *
 * The secret is read from a file, never from argv: the file set by
 * wh_mac_set_secret_file (--cache-secret-file), else
 * $WHITTLE_CACHE_SECRET_FILE. Its content without one trailing newline
 * (and carriage return) must be at least WH_MAC_SECRET_MIN bytes.
 *
 * A wh_mac_t is immutable once made: any thread may sign and verify.
 */
#ifndef WH_MAC_H
#define WH_MAC_H

#include <stddef.h>

#define WH_MAC_SECRET_MIN 32
#define WH_MAC_SECRET_MAX 4096
/* " mac=" and 64 hex chars. */
#define WH_MAC_SUFFIX_LEN (5 + 64)

typedef struct wh_mac wh_mac_t;

/* The file --cache-secret-file named (copied; NULL forgets it). Called by
 * the mains while parsing their options, before any thread starts. */
void wh_mac_set_secret_file(const char *path);

/* Reads the secret from path. NULL with *err set (one line): unreadable,
 * shorter than WH_MAC_SECRET_MIN, or no memory. */
wh_mac_t *wh_mac_new_file(const char *path, char **err);
/* From the secret bytes themselves (tests); NULL with *err set. */
wh_mac_t *wh_mac_new(const void *secret, size_t len, char **err);
/* The secret of wh_mac_set_secret_file, else $WHITTLE_CACHE_SECRET_FILE.
 * what names the user in the refusal ("a redis:// cache"). NULL with
 * *err set when there is none (the message says how to make one) or it
 * cannot be used. */
wh_mac_t *wh_mac_new_default(const char *what, char **err);
/* Wipes the secret, frees *m and sets it NULL. NULL is fine. */
void wh_mac_destroy(wh_mac_t **m);

/* Writes " mac=<64 hex>" for value val under Redis key key into out and a
 * terminator; returns WH_MAC_SUFFIX_LEN, or 0 when OpenSSL failed. */
size_t wh_mac_sign(const wh_mac_t *m, const char *key, size_t klen, const char *val,
                   size_t vlen, char out[WH_MAC_SUFFIX_LEN + 1]);
/* 1 when the stored s[0..n) ends in a valid " mac=..." for key; then
 * *body_len is the length of the value before it. 0 otherwise (no MAC, a
 * malformed or a wrong one). */
int wh_mac_verify(const wh_mac_t *m, const char *key, size_t klen, const char *s, size_t n,
                  size_t *body_len);

#endif
