/*
 * wh_redisc — whittle's one Redis client (wh_redisc.h): the URL, the
 * password, connect + AUTH + SELECT with timeouts, reconnects. One of the
 * three files that include hiredis (with the cache's and the journal's
 * Redis back ends).
 */
#define _GNU_SOURCE
#include "wh_redisc.h"

#include <ctype.h>
#include <errno.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wh_common.h"

#define S_PASSWORD_FILE_MAX 4096

struct wh_redisc {
    char *url;             /* as given, with the password masked */
    char *host;
    int port, db;
    char *user, *password; /* AUTH [user] password when password is set */
    unsigned connect_ms, command_ms;
    redisContext *ctx;     /* NULL while not connected */
    char why[256];         /* the last failure, bare */
};

/* ---- SIGPIPE ---- */

void wh_redisc_nopipe_begin(wh_redisc_nopipe_t *p)
{
    sigset_t set, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigemptyset(&pend);
    sigpending(&pend);
    p->was_pending = sigismember(&pend, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &set, &p->old);
}

void wh_redisc_nopipe_end(wh_redisc_nopipe_t *p)
{
    if (!p->was_pending) {
        sigset_t set, pend;
        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        sigemptyset(&pend);
        sigpending(&pend);
        if (sigismember(&pend, SIGPIPE) == 1) {
            struct timespec zero = {0, 0};
            while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
    }
    pthread_sigmask(SIG_SETMASK, &p->old, NULL);
}

/* ---- the URL and the password ---- */

/* Decodes %XX escapes of n bytes at s (so a password may hold ':', '@' or
 * '/'). NULL when out of memory or on a bad escape (%00 included). */
static char *s_pct_decode(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%') {
            *o++ = s[i];
            continue;
        }
        if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) ||
            !isxdigit((unsigned char)s[i + 2])) {
            free(out);
            return NULL;
        }
        char hex[3] = {s[i + 1], s[i + 2], 0};
        unsigned v = (unsigned)strtoul(hex, NULL, 16);
        if (v == 0) {
            free(out);
            return NULL;
        }
        *o++ = (char)v;
        i += 2;
    }
    *o = 0;
    return out;
}

/* The password file's content without its trailing newlines. 0, or
 * WH_EINVAL / WH_ENOMEM with *err set. */
static int s_read_password_file(wh_redisc_t *c, const char *path, char **err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = wh_read_file(path, S_PASSWORD_FILE_MAX, &buf, &len);
    if (rc) {
        *err = wh_strdup_printf("cannot read redis password file '%s': %s", path,
                                rc == WH_ETOOBIG ? "larger than 4096 bytes" : wh_strerror(rc));
        return rc == WH_ENOMEM ? rc : WH_EINVAL;
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
        buf[--len] = '\0';
    if (!len || memchr(buf, '\0', len)) {
        *err = wh_strdup_printf("redis password file '%s' %s", path,
                                len ? "holds a NUL byte" : "is empty");
        free(buf);
        return WH_EINVAL;
    }
    c->password = buf;
    return 0;
}

/* When the URL gave no password: $WHITTLE_REDIS_PASSWORD, else the
 * password file (file, else $WHITTLE_REDIS_PASSWORD_FILE), else none.
 * 0, or a negative code with *err set. */
static int s_password_fallback(wh_redisc_t *c, const char *file, char **err)
{
    const char *env = getenv("WHITTLE_REDIS_PASSWORD");
    if (env && *env) {
        c->password = strdup(env);
        if (!c->password) {
            *err = wh_strdup0("out of memory");
            return WH_ENOMEM;
        }
        return 0;
    }
    if (!file || !*file)
        file = getenv("WHITTLE_REDIS_PASSWORD_FILE");
    return file && *file ? s_read_password_file(c, file, err) : 0;
}

/* Splits "[user[:password]@]" off the URL: sets c->user/c->password (the
 * password may also come from s_password_fallback) and the masked c->url.
 * Returns the rest (host...) or NULL with *err set. */
static const char *s_userinfo(wh_redisc_t *c, const char *url, const char *file, char **err)
{
    const char *p = url + strlen("redis://");
    const char *at = NULL;
    for (const char *q = p; *q && *q != '/'; q++)
        if (*q == '@')
            at = q;
    if (!at) {
        c->url = strdup(url);
        if (!c->url) {
            *err = wh_strdup0("out of memory");
            return NULL;
        }
        return s_password_fallback(c, file, err) ? NULL : p;
    }
    const char *colon = memchr(p, ':', (size_t)(at - p));
    const char *uend = colon ? colon : at;
    if (uend > p && !(c->user = s_pct_decode(p, (size_t)(uend - p))))
        goto bad;
    if (colon && !(c->password = s_pct_decode(colon + 1, (size_t)(at - colon - 1))))
        goto bad;
    if (c->password && !*c->password) {
        free(c->password);
        c->password = NULL;
    }
    if (!c->password && s_password_fallback(c, file, err))
        return NULL;
    if (!c->password) {
        *err = wh_strdup_printf("redis URL names user '%s' but no password (add :PASSWORD or set "
                                "WHITTLE_REDIS_PASSWORD)", c->user ? c->user : "");
        return NULL;
    }
    c->url = wh_strdup_printf("redis://%.*s%s@%s", (int)(uend - p), p, colon ? ":***" : "", at + 1);
    if (!c->url) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    return at + 1;
bad:
    *err = wh_strdup_printf("bad user or password escape in redis URL 'redis://***@%s'", at + 1);
    return NULL;
}

/* A decimal number of digits only (no sign, no blank) in [lo, hi]; *end
 * past it. 0 or -1. */
static int s_number(const char *s, long lo, long hi, long *out, const char **end)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno || v < lo || v > hi)
        return -1;
    *out = v;
    *end = e;
    return 0;
}

/* Parses redis://[user[:password]@]host[:port][/db] (host may be [ipv6]).
 * 0 or a negative code with *err set (never showing the password). */
static int s_parse(wh_redisc_t *c, const char *url, const char *file, char **err)
{
    if (strncmp(url, "redis://", 8) != 0)
        goto bad;
    const char *p = s_userinfo(c, url, file, err);
    const char *host, *hend;
    long v;
    if (!p)
        return WH_EINVAL;
    if (*p == '[') {
        host = p + 1;
        hend = strchr(host, ']');
        if (!hend)
            goto bad;
        p = hend + 1;
    } else {
        host = p;
        hend = p + strcspn(p, ":/");
        p = hend;
    }
    if (hend == host)
        goto bad;
    c->port = 6379;
    c->db = 0;
    if (*p == ':') {
        if (s_number(p + 1, 1, 65535, &v, &p))
            goto bad;
        c->port = (int)v;
    }
    if (*p == '/' && p[1]) {
        if (s_number(p + 1, 0, INT_MAX, &v, &p) || *p)
            goto bad;
        c->db = (int)v;
    } else if (*p == '/') {
        p++;
    }
    if (*p)
        goto bad;
    c->host = strndup(host, (size_t)(hend - host));
    if (!c->host) {
        *err = wh_strdup0("out of memory");
        return WH_ENOMEM;
    }
    return 0;
bad:
    *err = wh_strdup_printf("bad redis URL '%s' (expected redis://[user[:password]@]host:port[/db])",
                            c->url ? c->url : "redis://***");
    return WH_EINVAL;
}

wh_redisc_t *wh_redisc_new(const char *url, const wh_redisc_opts_t *opts, char **err)
{
    wh_redisc_t *c = calloc(1, sizeof *c);
    if (!c) {
        *err = wh_strdup0("out of memory");
        return NULL;
    }
    c->connect_ms = opts && opts->connect_ms ? opts->connect_ms : WH_REDISC_TIMEOUT_MS;
    c->command_ms = opts && opts->command_ms ? opts->command_ms : WH_REDISC_TIMEOUT_MS;
    if (s_parse(c, url, opts ? opts->password_file : NULL, err)) {
        wh_redisc_destroy(&c);
        return NULL;
    }
    return c;
}

void wh_redisc_destroy(wh_redisc_t **cp)
{
    wh_redisc_t *c = cp ? *cp : NULL;
    if (!c)
        return;
    wh_redisc_disconnect(c);
    if (c->password) {
        memset(c->password, 0, strlen(c->password));
        free(c->password);
    }
    free(c->user);
    free(c->host);
    free(c->url);
    free(c);
    *cp = NULL;
}

const char *wh_redisc_url(const wh_redisc_t *c)
{
    return c->url;
}

const char *wh_redisc_host(const wh_redisc_t *c)
{
    return c->host;
}

int wh_redisc_port(const wh_redisc_t *c)
{
    return c->port;
}

int wh_redisc_db(const wh_redisc_t *c)
{
    return c->db;
}

const char *wh_redisc_why(const wh_redisc_t *c)
{
    return c->why;
}

struct redisContext *wh_redisc_context(wh_redisc_t *c)
{
    return c->ctx;
}

void wh_redisc_reply_free(struct redisReply *reply)
{
    if (reply)
        freeReplyObject(reply);
}

/* ---- connecting ---- */

static const char *s_ctx_err(const redisContext *x)
{
    return x->err && x->errstr[0] ? x->errstr : "connection lost";
}

/* 1 when Redis's error text says the credentials are wrong or missing, or
 * the ACL user may not do this: no retry will help. */
static int s_is_auth_error(const char *e)
{
    return !strncmp(e, "NOAUTH", 6) || !strncmp(e, "WRONGPASS", 9) || !strncmp(e, "NOPERM", 6) ||
           strstr(e, "invalid password") || strstr(e, "invalid username-password");
}

/* Frees rep; 0 when it is a non-error reply, else WH_EAUTH (credentials)
 * or WH_EUNAVAIL, with c->why set. */
static int s_reply_ok(wh_redisc_t *c, redisContext *x, redisReply *rep)
{
    if (!rep) {
        snprintf(c->why, sizeof c->why, "%s", s_ctx_err(x));
        return WH_EUNAVAIL;
    }
    int rc = 0;
    if (rep->type == REDIS_REPLY_ERROR) {
        const char *e = rep->str ? rep->str : "error reply";
        snprintf(c->why, sizeof c->why, "%s", e);
        rc = s_is_auth_error(e) ? WH_EAUTH : WH_EUNAVAIL;
    }
    freeReplyObject(rep);
    return rc;
}

static struct timeval s_tv(unsigned ms)
{
    struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000};
    return tv;
}

void wh_redisc_disconnect(wh_redisc_t *c)
{
    if (c->ctx) {
        redisFree(c->ctx);
        c->ctx = NULL;
    }
}

int wh_redisc_connect(wh_redisc_t *c, char **err)
{
    wh_redisc_disconnect(c);
    wh_redisc_nopipe_t np;
    wh_redisc_nopipe_begin(&np);
    redisContext *x = redisConnectWithTimeout(c->host, c->port, s_tv(c->connect_ms));
    int rc = WH_EUNAVAIL;
    if (!x) {
        snprintf(c->why, sizeof c->why, "out of memory");
    } else if (x->err || redisSetTimeout(x, s_tv(c->command_ms)) != REDIS_OK) {
        snprintf(c->why, sizeof c->why, "%s", s_ctx_err(x));
    } else {
        redisEnableKeepAlive(x);
        rc = 0;
        /* AUTH before SELECT: with requirepass, SELECT is refused until then. */
        if (c->password)
            rc = s_reply_ok(c, x,
                            c->user ? redisCommand(x, "AUTH %s %s", c->user, c->password)
                                    : redisCommand(x, "AUTH %s", c->password));
        if (!rc)
            rc = s_reply_ok(c, x, c->db ? redisCommand(x, "SELECT %d", c->db)
                                        : redisCommand(x, "PING"));
    }
    wh_redisc_nopipe_end(&np);
    if (!rc) {
        c->ctx = x;
        return 0;
    }
    if (x)
        redisFree(x);
    if (err && rc == WH_EAUTH)
        *err = wh_strdup_printf("redis at %s refused %s: %s", c->url,
                                c->password ? "the credentials" : "access without a password",
                                c->why);
    else if (err)
        *err = wh_strdup_printf("redis at %s unavailable (%s)", c->url, c->why);
    return rc;
}

/* ---- commands ---- */

int wh_redisc_command(wh_redisc_t *c, int argc, const char **argv, const size_t *argl,
                      struct redisReply **reply, char **err)
{
    if (reply)
        *reply = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!c->ctx) {
            int crc = wh_redisc_connect(c, NULL);
            if (crc == WH_EAUTH) {
                if (err)
                    *err = wh_strdup_printf("redis at %s refused %s: %s", c->url,
                                            c->password ? "the credentials"
                                                        : "access without a password",
                                            c->why);
                return crc;
            }
            if (crc)
                continue;
        }
        wh_redisc_nopipe_t np;
        wh_redisc_nopipe_begin(&np);
        redisReply *rep = redisCommandArgv(c->ctx, argc, argv, argl);
        wh_redisc_nopipe_end(&np);
        if (!rep) {
            snprintf(c->why, sizeof c->why, "%s", s_ctx_err(c->ctx));
            wh_redisc_disconnect(c); /* unusable after an I/O error */
            continue;
        }
        if (rep->type == REDIS_REPLY_ERROR) {
            const char *e = rep->str ? rep->str : "error reply";
            snprintf(c->why, sizeof c->why, "%s", e);
            int rc = s_is_auth_error(e) ? WH_EAUTH : WH_EIO;
            if (err)
                *err = wh_strdup_printf("redis at %s refused %s: %s", c->url, argv[0], e);
            freeReplyObject(rep);
            return rc;
        }
        if (reply)
            *reply = rep;
        else
            freeReplyObject(rep);
        return 0;
    }
    if (err)
        *err = wh_strdup_printf("redis at %s does not answer (%s)", c->url, c->why);
    return WH_EUNAVAIL;
}
