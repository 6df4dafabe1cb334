/*
 * normalize — failure messages made comparable. See normalize.h.
 */
#define _GNU_SOURCE
#include "normalize.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

static int s_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static int s_path_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '/' ||
           c == '+' || c == '~' || c == '@' || c == '%';
}

/* Decodes one XML entity at p ("&lt;", "&#60;", "&#x3c;") into b; returns
 * the bytes consumed, 0 when p is not an entity. */
static size_t s_entity(const char *p, wh_buf_t *b)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].name);
        if (strncmp(p, named[i].name, n) == 0) {
            wh_buf_append(b, &named[i].c, 1);
            return n;
        }
    }
    if (p[1] != '#')
        return 0;
    int hex = p[2] == 'x' || p[2] == 'X';
    const char *d = p + 2 + hex, *e = d;
    unsigned long cp = 0;
    while (hex ? isxdigit((unsigned char)*e) : isdigit((unsigned char)*e)) {
        cp = cp * (hex ? 16 : 10) +
             (unsigned long)(isdigit((unsigned char)*e) ? *e - '0' : (tolower((unsigned char)*e) - 'a' + 10));
        if (cp > 0x10FFFF)
            return 0;
        e++;
    }
    if (e == d || *e != ';' || cp == 0)
        return 0;
    unsigned char u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (unsigned char)(0xC0 | (cp >> 6)), u[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (unsigned char)(0xE0 | (cp >> 12)), u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)),
        u[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (unsigned char)(0xF0 | (cp >> 18)), u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F)),
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (unsigned char)(0x80 | (cp & 0x3F)),
        n = 4;
    wh_buf_append(b, u, n);
    return (size_t)(e + 1 - p);
}

/* Bytes of an ANSI escape sequence at p (CSI "ESC [ … final", OSC
 * "ESC ] … BEL|ESC \\", or a two-byte "ESC x"), 0 when none. */
static size_t s_ansi(const char *p)
{
    if (p[0] != '\033')
        return 0;
    if (p[1] == '[') {
        const char *q = p + 2;
        while (*q >= 0x20 && *q <= 0x3F)
            q++;
        return *q >= 0x40 && *q <= 0x7E ? (size_t)(q + 1 - p) : (size_t)(q - p);
    }
    if (p[1] == ']') {
        const char *q = p + 2;
        while (*q && *q != '\a' && !(q[0] == '\033' && q[1] == '\\'))
            q++;
        return (size_t)(q - p) + (*q == '\a' ? 1 : *q ? 2 : 0);
    }
    return p[1] ? 2 : 1;
}

/* "root/" (or root at a word end) at p: its length, else 0. */
static size_t s_root_at(const char *p, const char *root)
{
    if (!root || !*root)
        return 0;
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    if (rl < 2 || strncmp(p, root, rl) != 0)
        return 0;
    if (p[rl] == '/')
        return rl + 1;
    return s_path_char(p[rl]) ? 0 : rl;
}

/* A duration at p ("12 ms", "0.034s", "12.3 sec"): its length, else 0. */
static size_t s_duration(const char *p)
{
    static const char *const units[] = {"seconds", "second", "secs", "sec", "ms", "us", "ns",
                                        "\xc2\xb5s", "min", "s", NULL};
    const char *q = p;
    while (isdigit((unsigned char)*q))
        q++;
    if (q == p)
        return 0;
    if (*q == '.' && isdigit((unsigned char)q[1])) {
        q++;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if (*q == ' ')
        q++;
    for (const char *const *u = units; *u; u++) {
        size_t n = strlen(*u);
        if (strncmp(q, *u, n) == 0 && !s_word_char(q[n]))
            return (size_t)(q + n - p);
    }
    return 0;
}

/* In place: every run of white space in s becomes one space; leading and
 * trailing white space goes. */
static void s_squeeze_space(char *s)
{
    char *w = s;
    int pending_space = 0;
    for (const char *r = s; *r; r++) {
        if (isspace((unsigned char)*r)) {
            pending_space = w != s;
            continue;
        }
        if (pending_space)
            *w++ = ' ';
        pending_space = 0;
        *w++ = *r;
    }
    *w = '\0';
}

char *wh_fp_normalized(const char *msg, const char *root)
{
    wh_buf_t a = WH_BUF_INIT, b = WH_BUF_INIT;
    const char *m = msg ? msg : "";
    char real_root[PATH_MAX];
    const char *rr = root && realpath(root, real_root) && strcmp(real_root, root) ? real_root : NULL;
    int rc = wh_buf_puts(&a, "");
    /* 1. Entities and escape sequences: what the text says, not how it was
     * transported or coloured. */
    for (const char *p = m; *p && !rc;) {
        size_t n = 0;
        if (*p == '&' && (n = s_entity(p, &a)) != 0)
            p += n;
        else if ((n = s_ansi(p)) != 0)
            p += n;
        else
            rc = wh_buf_append(&a, p++, 1);
    }
    /* 2. Masks for what differs from run to run and from slot to slot. */
    rc = rc ? rc : wh_buf_puts(&b, "");
    for (const char *p = a.buf ? a.buf : ""; *p && !rc;) {
        char prev = p > a.buf ? p[-1] : ' ';
        size_t n;
        if ((n = s_root_at(p, root)) != 0 || (n = s_root_at(p, rr)) != 0) {
            if (!s_path_char(prev) || prev == '/') {
                p += n;
                continue;
            }
        }
        if (*p == '/' && !s_path_char(prev) &&
            (strncmp(p, "/tmp/", 5) == 0 || strncmp(p, "/var/tmp/", 9) == 0)) {
            const char *e = p, *last = p;
            while (s_path_char(*e)) {
                if (*e == '/')
                    last = e;
                e++;
            }
            p = last + 1;
            continue;
        }
        if (p[0] == '=' && p[1] == '=' && isdigit((unsigned char)p[2])) {
            const char *e = p + 2;
            while (isdigit((unsigned char)*e))
                e++;
            if (e[0] == '=' && e[1] == '=') {
                rc = wh_buf_puts(&b, "==PID==");
                p = e + 2;
                continue;
            }
        }
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && !s_word_char(prev)) {
            const char *e = p + 2;
            while (isxdigit((unsigned char)*e))
                e++;
            if (e - p - 2 >= 8) {
                rc = wh_buf_puts(&b, "0x\xe2\x80\xa6");
                p = e;
                continue;
            }
        }
        if (isdigit((unsigned char)*p) && !s_word_char(prev) && prev != '.' &&
            (n = s_duration(p)) != 0) {
            rc = wh_buf_puts(&b, "<time>");
            p += n;
            continue;
        }
        rc = wh_buf_append(&b, p++, 1);
    }
    wh_buf_free(&a);
    if (rc) {
        wh_buf_free(&b);
        return NULL;
    }
    /* 3. Whitespace. */
    char *out = wh_buf_detach(&b);
    s_squeeze_space(out);
    return out;
}

void wh_fp_normalize_message(char *msg)
{
    if (!msg)
        return;
    char *n = wh_fp_normalized(msg, NULL);
    if (n && strlen(n) <= strlen(msg)) {
        strcpy(msg, n);
        free(n);
        return;
    }
    free(n);
    s_squeeze_space(msg);
}
