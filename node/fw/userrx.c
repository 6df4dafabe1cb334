/*
 * userrx — users' regular expressions through PCRE2. See userrx.h.
 */
#define _GNU_SOURCE
#include "userrx.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

/* Matches looked at per search (a regex that matches every empty string of
 * a megabyte of output must still end). */
#define S_MAX_MATCHES 100000
/* Backtracking budget per match attempt, and its nesting depth (KiB of
 * heap): far above what any sane log regex needs, far below a hang. */
#define S_MATCH_LIMIT 10000000u
#define S_DEPTH_LIMIT 65536u

struct wh_urx {
    pcre2_code *code;
    pcre2_match_context *mctx;
    int whole;
};

/* 1 when the pattern sets (?s) or (?m) itself: an inline option group
 * "(?" letters [ "-" letters ] ")" or ":" whose set part holds s or m.
 * Escapes and bracket classes are skipped. */
static int s_sets_multiline(const char *p)
{
    while (*p) {
        if (*p == '\\') {
            p += p[1] ? 2 : 1;
        } else if (*p == '[') {
            p++;
            if (*p == '^')
                p++;
            if (*p == ']')
                p++;
            while (*p && *p != ']') {
                if (*p == '\\' && p[1])
                    p++;
                else if (*p == '[' && p[1] == ':') {
                    const char *e = strstr(p + 2, ":]");
                    if (e)
                        p = e + 1;
                }
                p++;
            }
            if (*p)
                p++;
        } else if (p[0] == '(' && p[1] == '?') {
            const char *q = p + 2;
            int sets = 0, unset = 0;
            if (*q == '^')
                q++;
            for (; (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '-'; q++) {
                if (*q == '-')
                    unset = 1;
                else if (!unset && (*q == 's' || *q == 'm'))
                    sets = 1;
            }
            if (sets && (*q == ')' || *q == ':'))
                return 1;
            p += 2;
        } else {
            p++;
        }
    }
    return 0;
}

wh_urx_t *wh_urx_new(const char *src, const char *what, char **err)
{
    if (err)
        *err = NULL;
    if (!src)
        src = "";
    wh_urx_t *rx = calloc(1, sizeof *rx);
    if (!rx)
        goto oom;
    int code = 0;
    PCRE2_SIZE off = 0;
    rx->code = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
    if (!rx->code) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", code);
        if (err)
            *err = wh_strdup_printf("bad %s '%s': %s at offset %zu", what, src, (char *)msg,
                                    (size_t)off);
        free(rx);
        return NULL;
    }
    rx->mctx = pcre2_match_context_create(NULL);
    if (!rx->mctx)
        goto oom;
    pcre2_set_match_limit(rx->mctx, S_MATCH_LIMIT);
    pcre2_set_depth_limit(rx->mctx, S_DEPTH_LIMIT);
    rx->whole = s_sets_multiline(src);
    return rx;
oom:
    wh_urx_destroy(&rx);
    if (err)
        *err = strdup("out of memory");
    return NULL;
}

void wh_urx_destroy(wh_urx_t **rxp)
{
    if (!rxp || !*rxp)
        return;
    wh_urx_t *rx = *rxp;
    pcre2_code_free(rx->code);
    pcre2_match_context_free(rx->mctx);
    free(rx);
    *rxp = NULL;
}

int wh_urx_whole(const wh_urx_t *rx)
{
    return rx && rx->whole;
}

/* Calls fn for each match in the subject text[base, base + n). *left
 * counts down the matches still allowed. */
static int s_each_in(const wh_urx_t *rx, pcre2_match_data *md, const char *text, size_t base,
                     size_t n, int *left, wh_urx_fn fn, void *arg)
{
    PCRE2_SPTR subj = (PCRE2_SPTR)(text + base);
    size_t off = 0;
    uint32_t opts = 0;
    while (off <= n && *left > 0) {
        (*left)--;
        int r = pcre2_match(rx->code, subj, n, off, opts, md, rx->mctx);
        if (r == PCRE2_ERROR_NOMATCH)
            return 0;
        if (r == PCRE2_ERROR_NOMEMORY)
            return WH_ENOMEM;
        if (r < 0)
            return WH_EPARSE;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        wh_urx_match_t m = {text, base + ov[0], base + ov[1], rx, md, base};
        int ret = fn(arg, &m);
        if (ret)
            return ret;
        /* An empty match is retried at the same place as non-empty and
         * anchored, as Perl's //g does; then one byte on. */
        if (ov[1] == ov[0]) {
            if (ov[0] >= n)
                return 0;
            opts = PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED;
            off = ov[1];
            r = pcre2_match(rx->code, subj, n, off, opts, md, rx->mctx);
            opts = 0;
            if (r >= 0) {
                ov = pcre2_get_ovector_pointer(md);
                wh_urx_match_t m2 = {text, base + ov[0], base + ov[1], rx, md, base};
                if ((ret = fn(arg, &m2)) != 0)
                    return ret;
                off = ov[1];
            } else if (r == PCRE2_ERROR_NOMATCH) {
                off++;
            } else {
                return r == PCRE2_ERROR_NOMEMORY ? WH_ENOMEM : WH_EPARSE;
            }
        } else {
            off = ov[1];
        }
    }
    return 0;
}

int wh_urx_each(const wh_urx_t *rx, const char *text, size_t len, wh_urx_fn fn, void *arg)
{
    if (!rx || !fn)
        return WH_EINVAL;
    if (!text)
        text = "", len = 0;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(rx->code, NULL);
    if (!md)
        return WH_ENOMEM;
    int left = S_MAX_MATCHES, ret = 0;
    if (rx->whole) {
        ret = s_each_in(rx, md, text, 0, len, &left, fn, arg);
    } else {
        for (size_t i = 0; i <= len && !ret && left > 0;) {
            const char *nl = memchr(text + i, '\n', len - i);
            size_t e = nl ? (size_t)(nl - text) : len;
            size_t n = e - i;
            if (n && text[i + n - 1] == '\r')
                n--;
            if (e > i || nl)
                ret = s_each_in(rx, md, text, i, n, &left, fn, arg);
            if (!nl)
                break;
            i = e + 1;
        }
    }
    pcre2_match_data_free(md);
    return ret;
}

char *wh_urx_group(const wh_urx_match_t *m, const char *name)
{
    if (!m || !name)
        return NULL;
    int g = pcre2_substring_number_from_name(m->rx->code, (PCRE2_SPTR)name);
    if (g < 0)
        return NULL;
    uint32_t count = pcre2_get_ovector_count(m->md);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
    if ((uint32_t)g >= count || ov[2 * g] == PCRE2_UNSET)
        return NULL;
    return strndup(m->text + m->base + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

static int s_stop(void *arg, const wh_urx_match_t *m)
{
    (void)arg, (void)m;
    return 1;
}

int wh_urx_test(const wh_urx_t *rx, const char *s, size_t n)
{
    if (!rx)
        return WH_EINVAL;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(rx->code, NULL);
    if (!md)
        return WH_ENOMEM;
    int left = 1;
    int r = s_each_in(rx, md, s ? s : "", 0, s ? n : 0, &left, s_stop, NULL);
    pcre2_match_data_free(md);
    return r;
}
