/*
 * tree_lex — a tiny C/C++ lexer over the pristine text, for what libclang's
 * extents do not give directly (part of the tree module, tree_int.h). It
 * only needs to skip trivia, step over one token and match brackets: the
 * `;` after an expression, the end of a macro invocation whose last token is
 * a macro argument, the arguments of a test or registration macro.
 */
#define _GNU_SOURCE
#include "tree_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

size_t tr_skip_trivia(const char *t, size_t len, size_t off)
{
    while (off < len) {
        char c = t[off];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            off++;
        } else if (c == '\\' && off + 1 < len && (t[off + 1] == '\n' || t[off + 1] == '\r')) {
            off += 2;
        } else if (c == '/' && off + 1 < len && t[off + 1] == '/') {
            while (off < len && t[off] != '\n')
                off++;
        } else if (c == '/' && off + 1 < len && t[off + 1] == '*') {
            off += 2;
            while (off + 1 < len && !(t[off] == '*' && t[off + 1] == '/'))
                off++;
            off = off + 2 <= len ? off + 2 : len;
        } else {
            break;
        }
    }
    return off;
}

int tr_is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* End of the token starting at off (off itself when off is at the end). */
size_t tr_token_end(const char *t, size_t len, size_t off)
{
    if (off >= len)
        return off;
    char c = t[off];
    if (tr_is_ident_char(c)) {
        size_t e = off;
        while (e < len && tr_is_ident_char(t[e]))
            e++;
        /* Raw string literal: R"delim( ... )delim" (also u8R, LR, ...). */
        if (e < len && t[e] == '"' && t[e - 1] == 'R') {
            size_t d = e + 1;
            while (d < len && t[d] != '(' && d - e <= 17)
                d++;
            if (d < len && t[d] == '(') {
                size_t dl = d - (e + 1);
                for (size_t p = d + 1; p < len; p++) {
                    if (t[p] == ')' && p + 1 + dl < len &&
                        memcmp(t + p + 1, t + e + 1, dl) == 0 && t[p + 1 + dl] == '"')
                        return p + 2 + dl;
                }
                return len;
            }
        }
        return e;
    }
    if (c == '"' || c == '\'') {
        size_t e = off + 1;
        while (e < len && t[e] != c && t[e] != '\n') {
            if (t[e] == '\\' && e + 1 < len)
                e++;
            e++;
        }
        return e < len ? e + 1 : len;
    }
    return off + 1;
}

/* Offset just past the bracket matching the one at off ('(', '[' or '{'). */
static size_t s_match_bracket(const char *t, size_t len, size_t off)
{
    int depth = 0;
    while (off < len) {
        off = tr_skip_trivia(t, len, off);
        if (off >= len)
            break;
        char c = t[off];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return off + 1;
        }
        off = tr_token_end(t, len, off);
    }
    return len;
}

/* For a macro invocation starting at off (the macro's name), the offset just
 * past the invocation: past the matching ')' for a function-like call, past
 * the name otherwise. Returns off when off is not at an identifier. */
size_t tr_invocation_end(const char *t, size_t len, size_t off)
{
    if (off >= len || !tr_is_ident_char(t[off]))
        return off;
    size_t e = tr_token_end(t, len, off);
    size_t p = tr_skip_trivia(t, len, e);
    if (p < len && t[p] == '(')
        return s_match_bracket(t, len, p);
    return e;
}

/* The identifier at off, malloc'ed ("" when none). */
char *tr_ident_at(const char *t, size_t len, size_t off)
{
    size_t e = off;
    while (e < len && tr_is_ident_char(t[e]))
        e++;
    return strndup(t + off, e - off);
}

/* Splits the argument list of the macro invocation at off into trimmed,
 * malloc'ed strings. Returns the number of arguments (0 when there is no
 * argument list), -1 on allocation failure. */
int tr_macro_args(const char *t, size_t len, size_t off, char ***out)
{
    *out = NULL;
    size_t e = tr_token_end(t, len, off);
    size_t p = tr_skip_trivia(t, len, e);
    if (p >= len || t[p] != '(')
        return 0;
    size_t close = s_match_bracket(t, len, p);
    if (close == len && t[len - 1] != ')')
        return 0;
    close--; /* at ')' */
    int n = 0, cap = 0;
    char **v = NULL;
    size_t start = p + 1, q = p + 1;
    int depth = 0;
    for (;;) {
        q = tr_skip_trivia(t, len, q);
        int at_end = q >= close;
        if (at_end || (depth == 0 && t[q] == ',')) {
            size_t a = tr_skip_trivia(t, len, start), b = at_end ? close : q;
            while (b > a && isspace((unsigned char)t[b - 1]))
                b--;
            if (n == cap) {
                cap = cap ? cap * 2 : 4;
                char **nv = realloc(v, (size_t)cap * sizeof *v);
                if (!nv)
                    goto oom;
                v = nv;
            }
            if (!(v[n] = strndup(t + a, b > a ? b - a : 0)))
                goto oom;
            n++;
            if (at_end)
                break;
            start = ++q;
            continue;
        }
        if (t[q] == '(' || t[q] == '[' || t[q] == '{')
            depth++;
        else if (t[q] == ')' || t[q] == ']' || t[q] == '}')
            depth--;
        q = tr_token_end(t, len, q);
    }
    *out = v;
    return n;
oom:
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return -1;
}

void tr_free_strv(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
