/* A batch's failures by root cause before reducing (batchgroup.h). */
#include "batchgroup.h"

#include <stdlib.h>
#include <string.h>

#include "normalize.h"

/* msg with every occurrence of word made "<test>" and every run of digits
 * "N" (malloc'ed). */
static char *s_shape(const char *msg, const char *word)
{
    wh_buf_t b = WH_BUF_INIT;
    size_t wl = word ? strlen(word) : 0;
    for (const char *p = msg; *p;) {
        if (wl && !strncmp(p, word, wl)) {
            wh_buf_append(&b, "<test>", 6);
            p += wl;
        } else if (*p >= '0' && *p <= '9') {
            wh_buf_append(&b, "N", 1);
            while (*p >= '0' && *p <= '9')
                p++;
        } else {
            wh_buf_append(&b, p++, 1);
        }
    }
    return wh_buf_detach(&b);
}

/* The bare function name of a test id ("suite/name", "Suite.Name"). */
static const char *s_bare(const char *test)
{
    const char *p = test;
    for (const char *q = test; *q; q++)
        if (*q == '/' || *q == '.' || *q == ':')
            p = q + 1;
    return *p ? p : test;
}

char *wh_bg_key(const wh_fp_t *fp)
{
    const char *loc = fp->location ? fp->location : "";
    const char *msg = fp->message ? fp->message : "";
    if (!*loc)
        return NULL; /* a crash the harness caught names no line: alone */
    char *norm = wh_fp_normalized(msg, NULL);
    char *shape = norm ? s_shape(norm, fp->test && *fp->test ? s_bare(fp->test) : NULL) : NULL;
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
