/*
 * marks — the synthetic fixture's oracle. See marks.h.
 */
#include "marks.h"

#include <stdlib.h>
#include <string.h>

static int s_find(const syn_name_t *v, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, s) == 0)
            return i;
    return -1;
}

static void s_add(syn_name_t *v, int *n, const char *s, size_t len, int line)
{
    if (len == 0 || len >= SYN_NAME_LEN || *n >= SYN_MAX_NAMES)
        return;
    char buf[SYN_NAME_LEN];
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (s_find(v, *n, buf) >= 0)
        return;
    memcpy(v[*n].name, buf, len + 1);
    v[*n].line = line;
    (*n)++;
}

/* One marker comment's words: decl:NAME, use:A,B, or a tag (R1, FAIL=7, ...). */
static void s_parse_comment(syn_marks_t *m, const char *s, size_t len, int line)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t j = i;
        while (j < len && s[j] != ' ' && s[j] != '\t')
            j++;
        const char *w = s + i;
        size_t wl = j - i;
        if (wl > 5 && strncmp(w, "decl:", 5) == 0) {
            s_add(m->decl, &m->ndecl, w + 5, wl - 5, line);
        } else if (wl > 4 && strncmp(w, "use:", 4) == 0) {
            for (size_t a = 4; a < wl;) {
                size_t b = a;
                while (b < wl && w[b] != ',')
                    b++;
                s_add(m->use, &m->nuse, w + a, b - a, line);
                a = b + 1;
            }
        } else if (wl) {
            s_add(m->tag, &m->ntag, w, wl, line);
        }
        i = j;
    }
}

/* "void test_x(void)" at the start of [p, end): the name's length, else 0. */
static size_t s_test_header(const char *p, const char *end)
{
    if (end - p < 9 || memcmp(p, "void test", 9) != 0)
        return 0;
    const char *name = p + 5, *q = name;
    while (q < end && *q != '(' && *q != '\n')
        q++;
    if (end - q < 6 || memcmp(q, "(void)", 6) != 0 || (size_t)(q - name) >= SYN_NAME_LEN)
        return 0;
    return (size_t)(q - name);
}

int syn_marks_parse(const char *text, size_t len, syn_marks_t *tests, int max)
{
    const char *p = text, *end = text + len;
    int lineno = 0, n = 0;
    syn_marks_t *cur = NULL;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        lineno++;
        if (!cur) {
            size_t name_len = s_test_header(p, eol);
            if (name_len && n < max) {
                cur = &tests[n++];
                memset(cur, 0, sizeof *cur);
                memcpy(cur->test, p + 5, name_len);
            }
        } else if (*p == '}') {
            cur = NULL;
        } else {
            for (const char *c = p; c + 1 < eol;) {
                if (c[0] != '/' || c[1] != '*') {
                    c++;
                    continue;
                }
                const char *e = c + 2;
                while (e + 1 < eol && !(e[0] == '*' && e[1] == '/'))
                    e++;
                if (e + 1 >= eol)
                    break; /* markers never span lines */
                s_parse_comment(cur, c + 2, (size_t)(e - c - 2), lineno);
                c = e + 2;
            }
        }
        p = eol + 1;
    }
    return n;
}

int syn_build_ok(const syn_marks_t *tests, int n, const char *file, FILE *err)
{
    int ok = 1;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < tests[t].nuse; i++)
            if (s_find(tests[t].decl, tests[t].ndecl, tests[t].use[i].name) < 0) {
                if (err)
                    fprintf(err, "%s:%d: error: '%s' undeclared (first use in this function)\n",
                            file, tests[t].use[i].line, tests[t].use[i].name);
                ok = 0;
            }
    return ok;
}

syn_outcome_t syn_run(const syn_marks_t *tests, int n, const char *test)
{
    syn_outcome_t o = {SYN_MISSING, 0, 0};
    const syn_marks_t *m = NULL;
    for (int t = 0; t < n && !m; t++)
        if (strcmp(tests[t].test, test) == 0)
            m = &tests[t];
    if (!m)
        return o;
    int x1 = s_find(m->tag, m->ntag, "X1");
    if (x1 >= 0 && s_find(m->tag, m->ntag, "G1") < 0) {
        o.status = SYN_CRASHED;
        o.line = m->tag[x1].line;
        return o;
    }
    for (int i = 0; i < m->ntag; i++) {
        if (strncmp(m->tag[i].name, "FAIL=", 5) != 0)
            continue;
        int need = atoi(m->tag[i].name + 5), missing = 0;
        for (int r = 1; r <= need; r++) {
            char t[16];
            snprintf(t, sizeof t, "R%d", r);
            missing += s_find(m->tag, m->ntag, t) < 0;
        }
        o.status = SYN_FAILED;
        o.got = 41 - missing;
        o.line = m->tag[i].line;
        return o;
    }
    o.status = SYN_PASSED;
    return o;
}
