/*
 * udiff — unified diffs. See udiff.h.
 */
#include "udiff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

typedef struct {
    const char *p;
    size_t len;     /* with its '\n', when it has one */
    uint64_t hash;
} s_line_t;

typedef struct {
    const s_line_t *a, *b;
    char *del, *ins;    /* del[i]: a's line i is removed; ins[j]: b's line j is added */
    long *fv, *rv;      /* furthest reach per diagonal, forward and reverse */
} s_ctx_t;

/* Splits text into lines (the last may lack '\n'); *n gets the count. */
static s_line_t *s_lines(const char *t, size_t len, long *n)
{
    long cnt = 0;
    for (size_t i = 0; i < len; i++)
        cnt += t[i] == '\n';
    if (len && t[len - 1] != '\n')
        cnt++;
    s_line_t *v = calloc((size_t)cnt + 1, sizeof *v);
    if (!v)
        return NULL;
    size_t start = 0;
    long k = 0;
    for (size_t i = 0; i < len; i++) {
        if (t[i] != '\n' && i + 1 < len)
            continue;
        s_line_t *l = &v[k++];
        l->p = t + start;
        l->len = i + 1 - start;
        uint64_t h = 1469598103934665603ull; /* FNV-1a */
        for (size_t j = 0; j < l->len; j++)
            h = (h ^ (unsigned char)l->p[j]) * 1099511628211ull;
        l->hash = h;
        start = i + 1;
    }
    *n = cnt;
    return v;
}

static int s_eq(const s_ctx_t *c, long i, long j)
{
    const s_line_t *x = &c->a[i], *y = &c->b[j];
    return x->hash == y->hash && x->len == y->len && !memcmp(x->p, y->p, x->len);
}

/* The middle snake of a[a0,a1) against b[b0,b1) (both non-empty, first
 * and last lines differing), after the bisection of diff-match-patch: the
 * forward and the reverse search (rv in mirrored coordinates) run until
 * they overlap; diagonals that leave the grid are dropped. *sx, *sy get a
 * point on an optimal path with edits on both sides of it, so both halves
 * are smaller; 0 when no split was found (the caller replaces all). */
static int s_split(s_ctx_t *c, long a0, long a1, long b0, long b1, long *sx, long *sy)
{
    long n = a1 - a0, m = b1 - b0, delta = n - m, front = delta & 1;
    long maxd = (n + m + 1) / 2, vlen = 2 * maxd + 2;
    long *fv = c->fv, *rv = c->rv;
    for (long i = 0; i < vlen; i++)
        fv[i] = rv[i] = -1;
    fv[maxd + 1] = rv[maxd + 1] = 0;
    long f0 = 0, f1 = 0, r0 = 0, r1 = 0;
    for (long d = 0; d < maxd; d++) {
        for (long k = -d + f0; k <= d - f1; k += 2) {
            long o = maxd + k;
            long x = k == -d || (k != d && fv[o - 1] < fv[o + 1]) ? fv[o + 1] : fv[o - 1] + 1;
            long y = x - k;
            while (x < n && y < m && s_eq(c, a0 + x, b0 + y))
                x++, y++;
            fv[o] = x;
            if (x > n)
                f1 += 2;
            else if (y > m)
                f0 += 2;
            else if (front) {
                long o2 = maxd + delta - k;
                if (o2 >= 0 && o2 < vlen && rv[o2] != -1 && x >= n - rv[o2]) {
                    *sx = a0 + x;
                    *sy = b0 + y;
                    return 1;
                }
            }
        }
        for (long k = -d + r0; k <= d - r1; k += 2) {
            long o = maxd + k;
            long x = k == -d || (k != d && rv[o - 1] < rv[o + 1]) ? rv[o + 1] : rv[o - 1] + 1;
            long y = x - k;
            while (x < n && y < m && s_eq(c, a1 - x - 1, b1 - y - 1))
                x++, y++;
            rv[o] = x;
            if (x > n)
                r1 += 2;
            else if (y > m)
                r0 += 2;
            else if (!front) {
                long o1 = maxd + delta - k;
                if (o1 >= 0 && o1 < vlen && fv[o1] != -1 && fv[o1] >= n - x) {
                    *sx = a0 + fv[o1];
                    *sy = b0 + fv[o1] - (o1 - maxd);
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* Marks the lines of a[a0,a1) and b[b0,b1) that a shortest edit script
 * removes and adds. */
static void s_compare(s_ctx_t *c, long a0, long a1, long b0, long b1)
{
    while (a0 < a1 && b0 < b1 && s_eq(c, a0, b0))
        a0++, b0++;
    while (a0 < a1 && b0 < b1 && s_eq(c, a1 - 1, b1 - 1))
        a1--, b1--;
    if (a0 == a1) {
        memset(c->ins + b0, 1, (size_t)(b1 - b0));
        return;
    }
    if (b0 == b1) {
        memset(c->del + a0, 1, (size_t)(a1 - a0));
        return;
    }
    long x, y;
    if (!s_split(c, a0, a1, b0, b1, &x, &y)) {
        memset(c->del + a0, 1, (size_t)(a1 - a0));
        memset(c->ins + b0, 1, (size_t)(b1 - b0));
        return;
    }
    s_compare(c, a0, x, b0, y);
    s_compare(c, x, a1, y, b1);
}

/* One line of the diff, with the marker patch(1) wants after a last line
 * that has no '\n'. */
static void s_emit(wh_buf_t *o, char tag, const s_line_t *l)
{
    wh_buf_append(o, &tag, 1);
    wh_buf_append(o, l->p, l->len);
    if (!l->len || l->p[l->len - 1] != '\n')
        wh_buf_puts(o, "\n\\ No newline at end of file\n");
}

/* "l,s" of a hunk side: a side with no lines names the line before it. */
static void s_range(wh_buf_t *o, long first, long count)
{
    if (count == 1)
        wh_buf_printf(o, "%ld", first + 1);
    else
        wh_buf_printf(o, "%ld,%ld", count ? first + 1 : first, count);
}

/* Writes the hunks: runs of changes closer than 2 * ctx unchanged lines
 * share one. i and j walk a and b together. */
static void s_hunks(const s_ctx_t *c, long na, long nb, long ctx, wh_buf_t *o)
{
    long i = 0, j = 0;
    while (i < na || j < nb) {
        if ((i < na && c->del[i]) || (j < nb && c->ins[j])) {
            /* the hunk starts ctx lines back (those lines are unchanged) */
            long back = i < ctx ? i : ctx;
            if (j - back < 0)
                back = j;
            long hi = i - back, hj = j - back;
            /* find the hunk's end: ctx unchanged lines after the last change,
             * unless another change comes within 2 * ctx */
            long ei = i, ej = j, same = 0;
            while (ei < na || ej < nb) {
                if ((ei < na && c->del[ei]) || (ej < nb && c->ins[ej])) {
                    while (ei < na && c->del[ei])
                        ei++;
                    while (ej < nb && c->ins[ej])
                        ej++;
                    same = 0;
                    continue;
                }
                if (same == 2 * ctx)
                    break;
                same++, ei++, ej++;
            }
            long tail = same < ctx ? same : ctx;
            ei -= same - tail;
            ej -= same - tail;
            wh_buf_puts(o, "@@ -");
            s_range(o, hi, ei - hi);
            wh_buf_puts(o, " +");
            s_range(o, hj, ej - hj);
            wh_buf_puts(o, " @@\n");
            long x = hi, y = hj;
            while (x < ei || y < ej) {
                if (x < ei && c->del[x])
                    s_emit(o, '-', &c->a[x++]);
                else if (y < ej && c->ins[y])
                    s_emit(o, '+', &c->b[y++]);
                else {
                    s_emit(o, ' ', &c->a[x++]);
                    y++;
                }
            }
            i = ei;
            j = ej;
            continue;
        }
        i++, j++;
    }
}

char *wh_udiff(const char *a, size_t alen, const char *b, size_t blen, const char *old_name,
               const char *new_name, int context, size_t *out_len)
{
    long na = 0, nb = 0;
    s_ctx_t c = {0};
    char *out = NULL;
    s_line_t *la = s_lines(a, alen, &na), *lb = s_lines(b, blen, &nb);
    c.a = la;
    c.b = lb;
    c.del = calloc((size_t)na + 1, 1);
    c.ins = calloc((size_t)nb + 1, 1);
    c.fv = calloc((size_t)(na + nb + 4), sizeof *c.fv);
    c.rv = calloc((size_t)(na + nb + 4), sizeof *c.rv);
    if (!la || !lb || !c.del || !c.ins || !c.fv || !c.rv)
        goto out;
    s_compare(&c, 0, na, 0, nb);
    wh_buf_t o = WH_BUF_INIT;
    if (memchr(c.del, 1, (size_t)na) || memchr(c.ins, 1, (size_t)nb)) {
        wh_buf_printf(&o, "--- %s\n+++ %s\n", old_name ? old_name : "a", new_name ? new_name : "b");
        s_hunks(&c, na, nb, context < 0 ? 0 : context, &o);
    }
    if (out_len)
        *out_len = o.len;
    out = wh_buf_detach(&o);
out:
    free(la);
    free(lb);
    free(c.del);
    free(c.ins);
    free(c.fv);
    free(c.rv);
    return out;
}

void wh_udiff_count(const char *diff, int *added, int *removed)
{
    int ad = 0, rm = 0, in_hunk = 0;
    for (const char *p = diff; p && *p;) {
        const char *nl = strchr(p, '\n');
        in_hunk |= !strncmp(p, "@@ ", 3);
        if (in_hunk) {
            ad += *p == '+';
            rm += *p == '-';
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    *added = ad;
    *removed = rm;
}
