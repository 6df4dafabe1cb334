/*
 * wh_mac — HMAC-SHA-256 of Redis values under the cluster secret (see
 * wh_mac.h for the format). OpenSSL's EVP_MAC: one context keyed at
 * creation, duplicated for each MAC so that the object stays read-only.
 */
#define _GNU_SOURCE
#include "wh_mac.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

#define S_DOMAIN "whittle-v1"
#define S_HOWTO                                                                          \
    "make one with `head -c 32 /dev/urandom | base64 > secret` and pass "                \
    "--cache-secret-file secret (or set WHITTLE_CACHE_SECRET_FILE)"

struct wh_mac {
    EVP_MAC *mac;
    EVP_MAC_CTX *ctx; /* keyed; duplicated per MAC */
};

static char *s_secret_file;

void wh_mac_set_secret_file(const char *path)
{
    free(s_secret_file);
    s_secret_file = path ? strdup(path) : NULL;
}

wh_mac_t *wh_mac_new(const void *secret, size_t len, char **err)
{
    if (len < WH_MAC_SECRET_MIN) {
        *err = wh_strdup_printf("cache secret has %zu bytes; at least %d are needed (" S_HOWTO ")",
                                len, WH_MAC_SECRET_MIN);
        return NULL;
    }
    wh_mac_t *m = calloc(1, sizeof *m);
    if (!m)
        goto oom;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    m->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    m->ctx = m->mac ? EVP_MAC_CTX_new(m->mac) : NULL;
    if (!m->ctx || EVP_MAC_init(m->ctx, secret, len, params) != 1) {
        wh_mac_destroy(&m);
        *err = wh_strdup0("cannot set up HMAC-SHA-256 (OpenSSL)");
        return NULL;
    }
    return m;
oom:
    *err = wh_strdup0("out of memory");
    return NULL;
}

wh_mac_t *wh_mac_new_file(const char *path, char **err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = wh_read_file(path, WH_MAC_SECRET_MAX, &buf, &len);
    if (rc) {
        *err = wh_strdup_printf("cannot read cache secret file '%s': %s", path,
                                rc == WH_ETOOBIG ? "larger than 4096 bytes" : wh_strerror(rc));
        return NULL;
    }
    if (len && buf[len - 1] == '\n')
        len--;
    if (len && buf[len - 1] == '\r')
        len--;
    wh_mac_t *m = NULL;
    if (len < WH_MAC_SECRET_MIN)
        *err = wh_strdup_printf("cache secret file '%s' holds %zu bytes; at least %d are needed "
                                "(" S_HOWTO ")",
                                path, len, WH_MAC_SECRET_MIN);
    else
        m = wh_mac_new(buf, len, err);
    OPENSSL_cleanse(buf, len);
    free(buf);
    return m;
}

wh_mac_t *wh_mac_new_default(const char *what, char **err)
{
    const char *file = s_secret_file;
    if (!file || !*file)
        file = getenv("WHITTLE_CACHE_SECRET_FILE");
    if (!file || !*file) {
        *err = wh_strdup_printf("%s needs the cluster secret: " S_HOWTO, what);
        return NULL;
    }
    return wh_mac_new_file(file, err);
}

void wh_mac_destroy(wh_mac_t **mp)
{
    wh_mac_t *m = mp ? *mp : NULL;
    if (!m)
        return;
    EVP_MAC_CTX_free(m->ctx); /* wipes the key */
    EVP_MAC_free(m->mac);
    free(m);
    *mp = NULL;
}

static int s_field(EVP_MAC_CTX *c, const void *data, size_t n)
{
    char len[32];
    int k = snprintf(len, sizeof len, "%zu:", n);
    return EVP_MAC_update(c, (const unsigned char *)len, (size_t)k) == 1 &&
           EVP_MAC_update(c, data, n) == 1;
}

/* The raw MAC of val under key. 1, or 0 when OpenSSL failed. */
static int s_compute(const wh_mac_t *m, const char *key, size_t klen, const char *val,
                     size_t vlen, unsigned char md[32])
{
    EVP_MAC_CTX *c = EVP_MAC_CTX_dup(m->ctx);
    size_t mdlen = 0;
    int ok = c && s_field(c, S_DOMAIN, sizeof S_DOMAIN - 1) && s_field(c, key, klen) &&
             s_field(c, val, vlen) && EVP_MAC_final(c, md, &mdlen, 32) == 1 && mdlen == 32;
    EVP_MAC_CTX_free(c);
    return ok;
}

size_t wh_mac_sign(const wh_mac_t *m, const char *key, size_t klen, const char *val,
                   size_t vlen, char out[WH_MAC_SUFFIX_LEN + 1])
{
    unsigned char md[32];
    out[0] = '\0';
    if (!s_compute(m, key, klen, val, vlen, md))
        return 0;
    memcpy(out, " mac=", 5);
    for (int i = 0; i < 32; i++)
        snprintf(out + 5 + 2 * i, 3, "%02x", md[i]);
    return WH_MAC_SUFFIX_LEN;
}

static int s_unhex(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

int wh_mac_verify(const wh_mac_t *m, const char *key, size_t klen, const char *s, size_t n,
                  size_t *body_len)
{
    if (!m || n < WH_MAC_SUFFIX_LEN)
        return 0;
    size_t body = n - WH_MAC_SUFFIX_LEN;
    if (memcmp(s + body, " mac=", 5) != 0)
        return 0;
    unsigned char got[32], want[32];
    for (int i = 0; i < 32; i++) {
        int hi = s_unhex(s[body + 5 + 2 * i]), lo = s_unhex(s[body + 6 + 2 * i]);
        if (hi < 0 || lo < 0)
            return 0;
        got[i] = (unsigned char)(hi << 4 | lo);
    }
    if (!s_compute(m, key, klen, s, body, want) || CRYPTO_memcmp(got, want, 32) != 0)
        return 0;
    *body_len = body;
    return 1;
}
