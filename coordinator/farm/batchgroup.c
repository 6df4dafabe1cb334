/* A batch's failures by root cause before reducing (batchgroup.h). */
#include "batchgroup.h"

#include <stdlib.h>
#include <string.h>

#include "normalize.h"

char *wh_bg_mask(const char *msg, const char *word, int digits)
{
    wh_buf_t b = WH_BUF_INIT;
    size_t wl = word ? strlen(word) : 0;
    for (const char *p = msg; *p;) {
        if (wl && !strncmp(p, word, wl)) {
            wh_buf_append(&b, "<test>", 6);
            p += wl;
        } else if (digits && *p >= '0' && *p <= '9') {
            wh_buf_append(&b, "N", 1);
            while (*p >= '0' && *p <= '9')
                p++;
        } else {
            wh_buf_append(&b, p++, 1);
        }
    }
    return wh_buf_detach(&b);
}

const char *wh_bg_bare(const char *test)
{
    const char *p = test;
    for (const char *q = test; *q; q++)
        if (*q == '/' || *q == '.' || *q == ':')
            p = q + 1;
    return *p ? p : test;
}

/* "func@file:line" frame i of a " < " list: is its file `base`? */
static int s_frame_in(const char *f, size_t len, const char *base)
{
    const char *at = memchr(f, '@', len);
    if (!at)
        return 0;
    const char *file = at + 1, *colon = memchr(file, ':', len - (size_t)(file - f));
    size_t fl = colon ? (size_t)(colon - file) : len - (size_t)(file - f);
    return fl == strlen(base) && memcmp(file, base, fl) == 0;
}

char *wh_bg_outside(const char *msg, const char *test_file)
{
    const char *base = test_file ? strrchr(test_file, '/') : NULL;
    base = base ? base + 1 : test_file;
    if (!base || !*base || !strchr(msg, '@'))
        return strdup(msg);
    static const char sep[] = " < ";
    /* frames up to the first in the test file; the top frame stays */
    for (const char *f = msg, *next; *f; f = next + sizeof sep - 1) {
        next = strstr(f, sep);
        size_t len = next ? (size_t)(next - f) : strlen(f);
        if (f != msg && s_frame_in(f, len, base))
            return strndup(msg, (size_t)(f - sizeof sep + 1 - msg));
        if (!next)
            break;
    }
    return strdup(msg);
}

char *wh_bg_key(const wh_fp_t *fp, const char *test_file)
{
    const char *loc = fp->location ? fp->location : "";
    if (!*loc)
        return NULL; /* a crash the harness caught names no line: alone */
    /* a sanitizer's frames: the test's own frames and its callers say
     * which test tripped, not what broke */
    int stack = fp->kind && strncmp(fp->kind, "sanitizer", 9) == 0;
    char *msg = stack ? wh_bg_outside(fp->message ? fp->message : "", test_file)
                      : strdup(fp->message ? fp->message : "");
    if (!msg)
        return NULL;
    char *norm = wh_fp_normalized(msg, NULL);
    free(msg);
    char *shape = norm ? wh_bg_mask(norm, fp->test && *fp->test ? wh_bg_bare(fp->test) : NULL, 1)
                       : NULL;
    char *key = shape ? wh_strdup_printf("%s | %s | %s", fp->kind ? fp->kind : "", loc, shape)
                      : NULL;
    free(norm);
    free(shape);
    return key;
}

/* The size to compare: unknown (< 0) counts as the largest. */
static unsigned s_size(const int *size, size_t i)
{
    return size[i] < 0 ? ~0u : (unsigned)size[i];
}

static int s_same(char *const *keys, size_t i, size_t j)
{
    return i == j || (keys[i] && keys[j] && strcmp(keys[i], keys[j]) == 0);
}

size_t wh_bg_group(char *const *keys, const int *size, size_t n, size_t *rep)
{
    size_t groups = 0;
    for (size_t i = 0; i < n; i++)
        rep[i] = n; /* not placed yet */
    for (size_t i = 0; i < n; i++) {
        if (rep[i] != n)
            continue; /* in an earlier one's group */
        groups++;
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (rep[j] == n && s_same(keys, i, j) && s_size(size, j) < s_size(size, best))
                best = j;
        /* the smallest test leads: every member points at it */
        for (size_t j = i; j < n; j++)
            if (rep[j] == n && s_same(keys, i, j))
                rep[j] = best;
    }
    return groups;
}
