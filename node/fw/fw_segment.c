/*
 * fw_segment — each test function's own part of a program's console
 * output; see fw_segment.h.
 */
#define _GNU_SOURCE
#include "fw_segment.h"
#include "fw_util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define S_LINE_MAX 4096

typedef enum { S_OTHER = 0, S_START, S_END } s_kind_t;

/* What one cleaned line is: a start or an end (with the name's span in
 * l and, for an end, the state), or neither. A start whose state is not
 * WH_SEG_OPEN ends on its own line (CUnit's "Test: NAME ...passed"). */
typedef struct {
    s_kind_t kind;
    const char *name;
    size_t name_len;
    wh_seg_state_t state;
} s_line_t;

static int s_starts(const char *l, const char *prefix)
{
    return strncmp(l, prefix, strlen(prefix)) == 0;
}

/* The name at s: up to a blank, a comma or the end; 0 when empty. */
static size_t s_name_len(const char *s)
{
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]) && s[n] != ',')
        n++;
    return n;
}

static int s_bracket(const char *l, s_line_t *out)
{
    static const struct {
        const char *mark;
        s_kind_t kind;
        wh_seg_state_t state;
    } marks[] = {
        {"[ RUN      ] ", S_START, WH_SEG_OPEN},
        {"[       OK ] ", S_END, WH_SEG_PASSED},
        {"[  FAILED  ] ", S_END, WH_SEG_FAILED},
        {"[  SKIPPED ] ", S_END, WH_SEG_SKIPPED},
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        if (!s_starts(l, marks[i].mark))
            continue;
        const char *s = l + strlen(marks[i].mark);
        /* gtest's and utest.h's summaries ("[  FAILED  ] 2 tests, listed
         * below:") are no name. */
        if (isdigit((unsigned char)*s))
            return 0;
        size_t n = s_name_len(s);
        if (!n)
            return 0;
        *out = (s_line_t){marks[i].kind, s, n, marks[i].state};
        return 1;
    }
    return 0;
}

/* CUnit's verbose basic mode: "  Test: NAME ...passed" on one line, or
 * "  Test: NAME ..." with the verdict on a later line of its own. */
static int s_cunit(const char *l, s_line_t *out, int *pending)
{
    const char *p = l;
    while (*p == ' ')
        p++;
    if (s_starts(p, "Test: ")) {
        const char *s = p + 6, *e = strstr(s, " ...");
        if (!e || e == s)
            return 0;
        const char *v = e + 4;
        *out = (s_line_t){S_START, s, (size_t)(e - s), WH_SEG_OPEN};
        /* A verdict on the same line: a start that ends at once. */
        if (s_starts(v, "passed"))
            out->state = WH_SEG_PASSED;
        else if (s_starts(v, "FAILED"))
            out->state = WH_SEG_FAILED;
        *pending = out->state == WH_SEG_OPEN;
        return 1;
    }
    if (*pending && (s_starts(p, "passed") || s_starts(p, "FAILED"))) {
        *out = (s_line_t){S_END, NULL, 0, *p == 'p' ? WH_SEG_PASSED : WH_SEG_FAILED};
        *pending = 0;
        return 1;
    }
    return 0;
}

int wh_seg_name_is(const char *name, const char *test)
{
    if (!name || !test)
        return 0;
    if (!strcmp(name, test))
        return 1;
    /* "Suite.Name" against "Name" (and back): a harness or the user may
     * spell the suite or leave it out. */
    size_t a = strlen(name), b = strlen(test);
    if (a == b)
        return 0; /* not equal, and neither can be the other's suffix */
    const char *lng = a > b ? name : test, *sht = a > b ? test : name;
    size_t ln = a > b ? a : b, sn = a > b ? b : a;
    return lng[ln - sn - 1] == '.' && !strcmp(lng + ln - sn, sht);
}

/* Walks text's lines; calls fn for each start and end line (CUnit's
 * verdict line names no function: the open one). */
typedef void (*s_visit_fn)(void *ctx, const s_line_t *ln, size_t line_start, size_t line_end);

static void s_walk(const char *text, size_t len, s_visit_fn fn, void *ctx)
{
    char *line = malloc(S_LINE_MAX + 1);
    if (!line)
        return;
    int pending = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t e = nl ? (size_t)(nl - text) : len;
        wh_fwu_clean_line(text + pos, e - pos, line, S_LINE_MAX);
        s_line_t ln;
        if (s_bracket(line, &ln) || s_cunit(line, &ln, &pending))
            fn(ctx, &ln, pos, e < len ? e + 1 : len);
        pos = e + 1;
    }
    free(line);
}

/* The open function: the last start line's name while no end followed. */
struct s_open {
    char *name;
};

static void s_open_visit(void *ctx, const s_line_t *ln, size_t ls, size_t le)
{
    (void)ls, (void)le;
    struct s_open *o = ctx;
    if (ln->kind == S_START) {
        free(o->name);
        o->name = ln->state == WH_SEG_OPEN ? strndup(ln->name, ln->name_len) : NULL;
    } else if (o->name &&
               (!ln->name || (strlen(o->name) == ln->name_len &&
                              !memcmp(o->name, ln->name, ln->name_len)))) {
        free(o->name);
        o->name = NULL;
    }
}

char *wh_seg_open(const char *text, size_t len)
{
    struct s_open o = {NULL};
    if (text)
        s_walk(text, len, s_open_visit, &o);
    return o.name;
}

static void s_any_visit(void *ctx, const s_line_t *ln, size_t ls, size_t le)
{
    (void)ls, (void)le;
    if (ln->kind == S_START)
        *(int *)ctx = 1;
}

int wh_seg_any(const char *text, size_t len)
{
    int any = 0;
    if (text)
        s_walk(text, len, s_any_visit, &any);
    return any;
}

struct s_find {
    const char *test;
    wh_seg_t *out;
    int in; /* inside test's part */
};

static int s_is(const s_line_t *ln, const char *test)
{
    char buf[S_LINE_MAX + 1];
    size_t n = ln->name_len < S_LINE_MAX ? ln->name_len : S_LINE_MAX;
    memcpy(buf, ln->name, n);
    buf[n] = '\0';
    return wh_seg_name_is(buf, test);
}

static void s_find_visit(void *ctx, const s_line_t *ln, size_t ls, size_t le)
{
    struct s_find *f = ctx;
    if (ln->kind == S_START) {
        if (s_is(ln, f->test)) {
            f->out->state = ln->state;
            f->out->start = le;
            f->out->end = le;
            f->in = ln->state == WH_SEG_OPEN;
        } else if (f->in) {
            /* Another function started: test's part ended without an end
             * line (a harness that prints none for some outcome). */
            f->in = 0;
        }
        return;
    }
    if (f->in && (!ln->name || s_is(ln, f->test))) {
        f->out->state = ln->state;
        f->out->end = ls;
        f->in = 0;
    }
}

void wh_seg_find(const char *text, size_t len, const char *test, wh_seg_t *out)
{
    memset(out, 0, sizeof *out);
    struct s_find f = {test, out, 0};
    if (text && test)
        s_walk(text, len, s_find_visit, &f);
    if (f.in)
        out->end = len; /* open to the end */
}
