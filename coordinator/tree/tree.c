/*
 * tree — builds the statement hierarchy of one test function with libclang
 * (DESIGN.md, "Statement tree"). This is the only module that includes the
 * libclang headers.
 *
 * How it works. The file is parsed once with the flags of its
 * compile_commands.json entry. The test function is found among the function
 * definitions of the main file whose body braces are spelled in the file;
 * framework macros (TEST, START_TEST, Test, ...) are recognized by reading the
 * macro invocation that the function's name expands from. Units are then
 * collected block by block: every direct child statement of a brace block
 * spelled in the file becomes a unit, and the brace blocks a unit owns
 * (then/else blocks, loop bodies, catch blocks, lambda bodies, ...) give its
 * children one level down.
 *
 * Offsets come from libclang's expansion locations, so a statement that
 * comes from a macro invocation is located by the invocation in the file. The
 * few places where libclang's extents are not what a reducer needs (the `;`
 * after an expression, the end of a macro invocation whose last token is a
 * macro argument) are fixed with a small lexer over the pristine text.
 */
#define _GNU_SOURCE
#include "tree.h"
#include "compdb.h"
#include "wh_common.h"

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Test files are small; anything bigger than this is not a unit test. */
#define S_MAX_FILE (16u << 20)

/* ------------------------------------------------------------------------ */
/* A tiny C/C++ lexer over the pristine text, for what libclang's extents do
 * not give directly. It only needs to skip trivia, step over one token and
 * match brackets. */

static size_t s_skip_trivia(const char *t, size_t len, size_t off)
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

static int s_is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* End of the token starting at off (off itself when off is at the end). */
static size_t s_token_end(const char *t, size_t len, size_t off)
{
    if (off >= len)
        return off;
    char c = t[off];
    if (s_is_ident_char(c)) {
        size_t e = off;
        while (e < len && s_is_ident_char(t[e]))
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
        off = s_skip_trivia(t, len, off);
        if (off >= len)
            break;
        char c = t[off];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return off + 1;
        }
        off = s_token_end(t, len, off);
    }
    return len;
}

/* For a macro invocation starting at off (the macro's name), the offset just
 * past the invocation: past the matching ')' for a function-like call, past
 * the name otherwise. Returns off when off is not at an identifier. */
static size_t s_invocation_end(const char *t, size_t len, size_t off)
{
    if (off >= len || !s_is_ident_char(t[off]))
        return off;
    size_t e = s_token_end(t, len, off);
    size_t p = s_skip_trivia(t, len, e);
    if (p < len && t[p] == '(')
        return s_match_bracket(t, len, p);
    return e;
}

/* The identifier at off, malloc'ed ("" when none). */
static char *s_ident_at(const char *t, size_t len, size_t off)
{
    size_t e = off;
    while (e < len && s_is_ident_char(t[e]))
        e++;
    return strndup(t + off, e - off);
}

/* Splits the argument list of the macro invocation at off into trimmed,
 * malloc'ed strings. Returns the number of arguments (0 when there is no
 * argument list), -1 on allocation failure. */
static int s_macro_args(const char *t, size_t len, size_t off, char ***out)
{
    *out = NULL;
    size_t e = s_token_end(t, len, off);
    size_t p = s_skip_trivia(t, len, e);
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
        q = s_skip_trivia(t, len, q);
        int at_end = q >= close;
        if (at_end || (depth == 0 && t[q] == ',')) {
            size_t a = s_skip_trivia(t, len, start), b = at_end ? close : q;
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
        q = s_token_end(t, len, q);
    }
    *out = v;
    return n;
oom:
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return -1;
}

static void s_free_strv(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* ------------------------------------------------------------------------ */
/* libclang helpers */

typedef struct {
    size_t b, e; /* [b, e): a macro invocation in the main file */
} s_macro_t;

typedef struct {
    CXTranslationUnit tu;
    CXFile main;
    const char *text;
    size_t len;
    int cxx;
    s_macro_t *mac; /* sorted by b */
    int nmac, capmac;
    size_t *nl;     /* offsets of every '\n' in text, ascending */
    size_t nnl;
    int oom;
} s_ctx_t;

/* The macro invocation that starts at off (binary search over the
 * invocations recorded in the main file); -1 when none does. */
static int s_macro_at(const s_ctx_t *c, size_t off)
{
    int lo = 0, hi = c->nmac - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (c->mac[mid].b == off)
            return mid;
        if (c->mac[mid].b < off)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Where loc is in the main file. *off gets the expansion offset; the return
 * value is 1 when loc is spelled directly in the main file (not from a macro
 * body or argument), 0 when it comes from a macro expanded in the main file,
 * -1 when it is not in the main file at all.
 *
 * libclang 14's clang_getSpellingLocation is really getFileLoc (see the
 * FIXME in CXSourceLocation.cpp): for a token of a macro body it answers the
 * invocation, so it cannot tell. Instead: the expansion location of any
 * token that comes from a macro (body or argument) is the name of the
 * outermost invocation, and the preprocessing record lists where every
 * invocation in the file starts. */
static int s_loc(const s_ctx_t *c, CXSourceLocation loc, size_t *off)
{
    CXFile ef = NULL;
    unsigned eo = 0;
    clang_getExpansionLocation(loc, &ef, NULL, NULL, &eo);
    if (!ef || !clang_File_isEqual(ef, c->main) || eo > c->len)
        return -1;
    *off = eo;
    return s_macro_at(c, eo) < 0 ? 1 : 0;
}

typedef struct {
    CXCursor *v;
    int n, cap;
    int oom;
} s_cursors_t;

static enum CXChildVisitResult s_collect_child(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    s_cursors_t *cs = data;
    if (cs->n == cs->cap) {
        int cap = cs->cap ? cs->cap * 2 : 8;
        CXCursor *nv = realloc(cs->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            cs->oom = 1;
            return CXChildVisit_Break;
        }
        cs->v = nv;
        cs->cap = cap;
    }
    cs->v[cs->n++] = cur;
    return CXChildVisit_Continue;
}

/* Direct children of cur; free cs->v. Returns WH_ENOMEM on failure. */
static int s_children(CXCursor cur, s_cursors_t *cs)
{
    memset(cs, 0, sizeof *cs);
    clang_visitChildren(cur, s_collect_child, cs);
    if (cs->oom) {
        free(cs->v);
        cs->v = NULL;
        return WH_ENOMEM;
    }
    return 0;
}

/* 1 when cur is a brace block whose braces are both spelled in the file. */
static int s_is_file_block(const s_ctx_t *c, CXCursor cur, size_t *b, size_t *e)
{
    if (clang_getCursorKind(cur) != CXCursor_CompoundStmt)
        return 0;
    CXSourceRange r = clang_getCursorExtent(cur);
    size_t bo, eo;
    if (s_loc(c, clang_getRangeStart(r), &bo) != 1 || s_loc(c, clang_getRangeEnd(r), &eo) != 1)
        return 0;
    if (bo >= c->len || c->text[bo] != '{' || eo == 0 || eo > c->len || c->text[eo - 1] != '}')
        return 0;
    if (b)
        *b = bo;
    if (e)
        *e = eo;
    return 1;
}

static int s_is_control(enum CXCursorKind k)
{
    switch (k) {
    case CXCursor_IfStmt:
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_SwitchStmt:
    case CXCursor_CXXForRangeStmt:
    case CXCursor_CXXTryStmt:
    case CXCursor_CXXCatchStmt:
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
    case CXCursor_LabelStmt:
        return 1;
    default:
        return 0;
    }
}

static wh_stmt_kind_t s_kind_of(CXCursor cur)
{
    enum CXCursorKind k = clang_getCursorKind(cur);
    switch (k) {
    case CXCursor_DeclStmt:
        return WH_STMT_DECL;
    case CXCursor_IfStmt:
        return WH_STMT_IF;
    case CXCursor_ForStmt:
        return WH_STMT_FOR;
    case CXCursor_WhileStmt:
        return WH_STMT_WHILE;
    case CXCursor_DoStmt:
        return WH_STMT_DO;
    case CXCursor_SwitchStmt:
        return WH_STMT_SWITCH;
    case CXCursor_CompoundStmt:
        return WH_STMT_BLOCK;
    case CXCursor_CXXTryStmt:
        return WH_STMT_TRY;
    case CXCursor_CXXForRangeStmt:
        return WH_STMT_RANGE_FOR;
    case CXCursor_ReturnStmt:
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
    case CXCursor_GotoStmt:
    case CXCursor_IndirectGotoStmt:
        return WH_STMT_EXPR;
    default:
        if (clang_isExpression(k))
            return WH_STMT_EXPR;
        return WH_STMT_OTHER;
    }
}

/* 1 when the statement is ended by an explicit `;` that libclang's extent
 * may leave out: anything but a block, a try, or a statement whose own last
 * sub-statement is one of those. */
static int s_needs_semi(CXCursor cur)
{
    enum CXCursorKind k = clang_getCursorKind(cur);
    switch (k) {
    case CXCursor_CompoundStmt:
    case CXCursor_CXXTryStmt:
    case CXCursor_NullStmt:
        return 0;
    case CXCursor_DoStmt:
        return 1;
    case CXCursor_IfStmt:
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_SwitchStmt:
    case CXCursor_CXXForRangeStmt:
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
    case CXCursor_LabelStmt: {
        s_cursors_t cs;
        if (s_children(cur, &cs) < 0 || cs.n == 0) {
            free(cs.v);
            return 1;
        }
        int r = s_needs_semi(cs.v[cs.n - 1]);
        free(cs.v);
        return r;
    }
    default:
        return 1;
    }
}

/* The brace blocks a statement owns, in source order. */
typedef struct {
    CXCursor *v;
    int n, cap;
    int oom;
    const s_ctx_t *c;
} s_blocks_t;

static void s_blocks_push(s_blocks_t *bl, CXCursor cur)
{
    if (bl->n == bl->cap) {
        int cap = bl->cap ? bl->cap * 2 : 4;
        CXCursor *nv = realloc(bl->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            bl->oom = 1;
            return;
        }
        bl->v = nv;
        bl->cap = cap;
    }
    bl->v[bl->n++] = cur;
}

static void s_owned_blocks(s_blocks_t *bl, CXCursor cur);
static size_t s_stmt_end(const s_ctx_t *c, CXSourceRange r);

/* Lambda bodies inside an expression: a lambda's body is a block the
 * statement owns; lambdas nested in that body belong to its own units. */
static enum CXChildVisitResult s_find_lambdas(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    s_blocks_t *bl = data;
    if (clang_getCursorKind(cur) == CXCursor_LambdaExpr) {
        s_cursors_t cs;
        if (s_children(cur, &cs) < 0) {
            bl->oom = 1;
            return CXChildVisit_Break;
        }
        for (int i = cs.n - 1; i >= 0; i--) {
            if (clang_getCursorKind(cs.v[i]) == CXCursor_CompoundStmt) {
                if (s_is_file_block(bl->c, cs.v[i], NULL, NULL))
                    s_blocks_push(bl, cs.v[i]);
                break;
            }
        }
        free(cs.v);
        return CXChildVisit_Continue;
    }
    return CXChildVisit_Recurse;
}

/* A sub-statement of a control statement (a body, a branch): a block is
 * owned; a braceless control statement or expression is looked through, so
 * that the blocks it owns belong to the enclosing unit. This is how
 * `else if` chains work: the nested if is not a unit, its braced branches'
 * statements are children of the outer if. The same holds for
 * `for (...) if (c) { ... }` and the like. */
static void s_sub_statement(s_blocks_t *bl, CXCursor sub)
{
    size_t off;
    CXSourceRange r = clang_getCursorExtent(sub);
    enum CXCursorKind k = clang_getCursorKind(sub);
    if (k == CXCursor_CompoundStmt) {
        if (s_is_file_block(bl->c, sub, NULL, NULL))
            s_blocks_push(bl, sub);
        return;
    }
    /* Never descend into what a macro produced. */
    if (s_loc(bl->c, clang_getRangeStart(r), &off) != 1)
        return;
    s_owned_blocks(bl, sub);
}

static void s_owned_blocks(s_blocks_t *bl, CXCursor cur)
{
    enum CXCursorKind k = clang_getCursorKind(cur);
    if (k == CXCursor_CompoundStmt) {
        if (s_is_file_block(bl->c, cur, NULL, NULL))
            s_blocks_push(bl, cur);
        return;
    }
    if (!s_is_control(k)) {
        if (bl->c->cxx)
            clang_visitChildren(cur, s_find_lambdas, bl);
        return;
    }
    s_cursors_t cs;
    if (s_children(cur, &cs) < 0) {
        bl->oom = 1;
        return;
    }
    if (cs.n == 0) {
        free(cs.v);
        return;
    }
    switch (k) {
    case CXCursor_IfStmt: {
        /* The last child is the else branch when the token after the
         * child before it (and its `;`) is `else`; that child is then the
         * then-branch. Earlier children are the init statement, condition
         * variable and condition. */
        int has_else = 0;
        if (cs.n >= 3) {
            const char *t = bl->c->text;
            size_t len = bl->c->len;
            size_t p = s_stmt_end(bl->c, clang_getCursorExtent(cs.v[cs.n - 2]));
            p = s_skip_trivia(t, len, p);
            if (p < len && t[p] == ';')
                p = s_skip_trivia(t, len, p + 1);
            has_else = p + 4 <= len && memcmp(t + p, "else", 4) == 0 &&
                       (p + 4 == len || !s_is_ident_char(t[p + 4]));
        }
        if (has_else)
            s_sub_statement(bl, cs.v[cs.n - 2]);
        s_sub_statement(bl, cs.v[cs.n - 1]);
        break;
    }
    case CXCursor_DoStmt:
        s_sub_statement(bl, cs.v[0]);
        break;
    case CXCursor_CXXTryStmt:
        for (int i = 0; i < cs.n; i++)
            s_sub_statement(bl, cs.v[i]);
        break;
    default: /* for, while, switch, range-for, catch, labels: the body is last */
        s_sub_statement(bl, cs.v[cs.n - 1]);
        break;
    }
    free(cs.v);
}

/* ------------------------------------------------------------------------ */
/* Building the units */

typedef struct {
    const s_ctx_t *c;
    wh_unit_t *v;
    int n, cap;
} s_units_t;

/* The line table: the offset of every newline, built once per parse, so
 * that a statement's line is a binary search, not a count from the start
 * of the file (which made big test functions quadratic). */
static int s_lines_build(s_ctx_t *c)
{
    size_t n = 0;
    for (const char *p = c->text; (p = memchr(p, '\n', c->len - (size_t)(p - c->text))); p++)
        n++;
    c->nl = malloc((n ? n : 1) * sizeof *c->nl);
    if (!c->nl)
        return WH_ENOMEM;
    c->nnl = 0;
    for (const char *p = c->text; (p = memchr(p, '\n', c->len - (size_t)(p - c->text))); p++)
        c->nl[c->nnl++] = (size_t)(p - c->text);
    return 0;
}

/* 1-based line of off: one plus the number of newlines before it. */
static unsigned s_line_of(const s_ctx_t *c, size_t off)
{
    size_t lo = 0, hi = c->nnl;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->nl[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (unsigned)lo + 1;
}

static int s_unit_push(s_units_t *u, const wh_unit_t *unit)
{
    if (u->n == u->cap) {
        int cap = u->cap ? u->cap * 2 : 32;
        wh_unit_t *nv = realloc(u->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return WH_ENOMEM;
        u->v = nv;
        u->cap = cap;
    }
    u->v[u->n++] = *unit;
    return u->n - 1;
}

/* The end offset of a statement's extent, corrected for macros: when the
 * extent ends inside a macro invocation, the end is the end of the
 * invocation in the file. */
static size_t s_stmt_end(const s_ctx_t *c, CXSourceRange r)
{
    CXSourceLocation end = clang_getRangeEnd(r);
    CXFile ff = NULL;
    unsigned fo = 0;
    size_t eo = 0;
    int where = s_loc(c, end, &eo);
    if (where < 0)
        return 0;
    if (where == 1)
        return eo;
    /* From a macro: eo is where the outermost invocation starts. */
    int m = s_macro_at(c, eo);
    size_t best = m >= 0 && c->mac[m].e > eo ? c->mac[m].e : s_invocation_end(c->text, c->len, eo);
    clang_getFileLocation(end, &ff, NULL, NULL, &fo);
    if (ff && clang_File_isEqual(ff, c->main) && fo <= c->len && fo > best)
        best = fo;
    return best > eo ? best : eo;
}

static int s_add_block(s_units_t *u, CXCursor block, int level, int parent);

/* A macro invocation followed by a braced body, `list_for_each(p, head) {
 * ... }`: the macro expands to a loop (or an if, a switch) whose body is a
 * block spelled in the file after the invocation. That block is the
 * statement's own, like a for's; blocks that come from the macro itself or
 * from its arguments never are. cur starts at the invocation at begin. */
static void s_macro_loop_blocks(s_blocks_t *bl, CXCursor cur, size_t begin)
{
    switch (clang_getCursorKind(cur)) {
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_IfStmt:
    case CXCursor_SwitchStmt:
    case CXCursor_CXXForRangeStmt:
        break;
    default:
        return;
    }
    const s_ctx_t *c = bl->c;
    int m = s_macro_at(c, begin);
    size_t inv_end = m >= 0 ? c->mac[m].e : s_invocation_end(c->text, c->len, begin);
    s_owned_blocks(bl, cur);
    int k = 0;
    for (int i = 0; i < bl->n; i++) {
        size_t b = 0;
        if (s_is_file_block(c, bl->v[i], &b, NULL) && b >= inv_end)
            bl->v[k++] = bl->v[i];
    }
    bl->n = k;
}

/* Adds the unit for statement cur (a direct child of a block) and its
 * children. limit is where the next sibling begins (or the block's '}'). */
static int s_add_stmt(s_units_t *u, CXCursor cur, size_t begin, size_t limit, int level,
                      int parent)
{
    const s_ctx_t *c = u->c;
    CXSourceRange r = clang_getCursorExtent(cur);
    size_t off;
    int is_macro = s_loc(c, clang_getRangeStart(r), &off) == 0;

    /* A `case X:` / `default:` / `label:` is one unit together with the
     * statement it labels (a switch body's units are "case + statement",
     * then the statements up to the next label): removing a label alone
     * rarely compiles into anything meaningful, and removing the labeled
     * statement alone leaves `case X: case Y:` runs that are harmless but
     * noisy. The unit's kind and children are those of the labeled
     * statement. */
    CXCursor inner = cur;
    while (!is_macro) {
        enum CXCursorKind k = clang_getCursorKind(inner);
        if (k != CXCursor_CaseStmt && k != CXCursor_DefaultStmt && k != CXCursor_LabelStmt)
            break;
        s_cursors_t cs;
        if (s_children(inner, &cs) < 0)
            return WH_ENOMEM;
        if (cs.n == 0) {
            free(cs.v);
            break;
        }
        inner = cs.v[cs.n - 1];
        free(cs.v);
        if (s_loc(c, clang_getRangeStart(clang_getCursorExtent(inner)), &off) == 0)
            is_macro = 1;
    }

    size_t end = s_stmt_end(c, r);
    if (end > limit)
        end = limit;
    if (end < begin)
        end = begin;
    if ((is_macro || s_needs_semi(inner)) && (end == 0 || c->text[end - 1] != ';')) {
        size_t p = s_skip_trivia(c->text, c->len, end);
        if (p < limit && c->text[p] == ';')
            end = p + 1;
    }

    wh_unit_t unit = {
        .parent = parent,
        .level = level,
        .is_tree = 0,
        .kind = is_macro ? WH_STMT_MACRO : s_kind_of(inner),
        .begin = begin,
        .end = end,
        .line = s_line_of(c, begin),
    };
    int idx = s_unit_push(u, &unit);
    if (idx < 0)
        return idx;

    s_blocks_t bl = {.c = c};
    if (is_macro) {
        s_macro_loop_blocks(&bl, inner, begin);
        if (bl.n > 0)
            u->v[idx].kind = s_kind_of(inner);
    } else {
        s_owned_blocks(&bl, inner);
    }
    if (bl.oom || bl.n == 0) {
        free(bl.v);
        return bl.oom ? WH_ENOMEM : 0;
    }
    /* An expression or declaration that owns blocks owns lambda bodies. */
    if (bl.n > 0 && (unit.kind == WH_STMT_EXPR || unit.kind == WH_STMT_DECL ||
                     unit.kind == WH_STMT_OTHER))
        u->v[idx].kind = WH_STMT_LAMBDA;
    for (int i = 0; i < bl.n; i++) {
        int rc = s_add_block(u, bl.v[i], level + 1, idx);
        if (rc < 0) {
            free(bl.v);
            return rc;
        }
    }
    free(bl.v);
    u->v[idx].is_tree = u->n > idx + 1;
    return 0;
}

/* Adds a unit for every direct child statement of block. */
static int s_add_block(s_units_t *u, CXCursor block, int level, int parent)
{
    const s_ctx_t *c = u->c;
    size_t bb, be;
    if (!s_is_file_block(c, block, &bb, &be))
        return 0;
    s_cursors_t cs;
    if (s_children(block, &cs) < 0)
        return WH_ENOMEM;
    /* Begin offsets first, so that each statement's end can be bounded by
     * the next statement's begin. Empty statements (`;`) are not units. */
    size_t *begins = calloc((size_t)cs.n + 1, sizeof *begins);
    if (!begins) {
        free(cs.v);
        return WH_ENOMEM;
    }
    int rc = 0;
    for (int i = 0; i < cs.n; i++) {
        size_t off = 0;
        if (clang_getCursorKind(cs.v[i]) == CXCursor_NullStmt ||
            s_loc(c, clang_getRangeStart(clang_getCursorExtent(cs.v[i])), &off) < 0 ||
            off <= bb || off >= be)
            begins[i] = (size_t)-1;
        else
            begins[i] = off;
    }
    for (int i = 0; i < cs.n && rc == 0; i++) {
        if (begins[i] == (size_t)-1)
            continue;
        size_t limit = be - 1;
        for (int j = i + 1; j < cs.n; j++) {
            if (begins[j] != (size_t)-1 && begins[j] > begins[i]) {
                limit = begins[j];
                break;
            }
        }
        /* A macro that expands to several statements yields several
         * children starting at the same invocation: one unit only. */
        if (i > 0 && begins[i - 1] == begins[i])
            continue;
        rc = s_add_stmt(u, cs.v[i], begins[i], limit, level, parent);
    }
    free(begins);
    free(cs.v);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Finding test functions */

typedef struct {
    char *full;      /* resolved name: "Suite.Name", "suite::name", "name" */
    char *alias;     /* the function's own (expanded) name */
    const char *shrt;/* points into full: the part after the suite */
    int listed;      /* counts as a test for wh_tree_list */
    size_t def_off;  /* offset of the definition (for ordering) */
    CXCursor body;
} s_fn_t;

typedef struct {
    const s_ctx_t *c;
    s_fn_t *v;
    int n, cap;
    int oom;
} s_fns_t;

static int s_istarts(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static int s_in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static const char *const s_gtest_macros[] = {
    "TEST", "TEST_F", "TEST_P", "GTEST_TEST", "TYPED_TEST", "TYPED_TEST_P", NULL};
static const char *const s_criterion_macros[] = {"Test", NULL};
static const char *const s_criterion3_macros[] = {"ParameterizedTest", "Theory", NULL};
static const char *const s_check_macros[] = {"START_TEST", NULL};

/* Records one function definition (cur) whose body is block. */
static void s_add_fn(s_fns_t *fs, CXCursor cur, CXCursor block)
{
    const s_ctx_t *c = fs->c;
    size_t noff = 0;
    int where = s_loc(c, clang_getCursorLocation(cur), &noff);
    if (where < 0)
        return;
    CXString sp = clang_getCursorSpelling(cur);
    char *spelling = strdup(clang_getCString(sp));
    clang_disposeString(sp);
    if (!spelling) {
        fs->oom = 1;
        return;
    }
    char *full = NULL;
    size_t shrt_at = 0;
    int listed = 0;
    if (where == 0) {
        /* Defined by a macro invocation starting at noff. */
        char *macro = s_ident_at(c->text, c->len, noff);
        char **args = NULL;
        int na = macro ? s_macro_args(c->text, c->len, noff, &args) : -1;
        if (!macro || na < 0) {
            free(macro);
            free(spelling);
            fs->oom = 1;
            return;
        }
        if (s_in_list(macro, s_gtest_macros) && na >= 2 && strcmp(spelling, "TestBody") == 0) {
            full = wh_strdup_printf("%s.%s", args[0], args[1]);
            shrt_at = strlen(args[0]) + 1;
            listed = 1;
        } else if (s_in_list(macro, s_criterion_macros) && na >= 2) {
            full = wh_strdup_printf("%s::%s", args[0], args[1]);
            shrt_at = strlen(args[0]) + 2;
            listed = 1;
        } else if (s_in_list(macro, s_criterion3_macros) && na >= 3) {
            full = wh_strdup_printf("%s::%s", args[1], args[2]);
            shrt_at = strlen(args[1]) + 2;
            listed = 1;
        } else if (s_in_list(macro, s_check_macros) && na >= 1) {
            full = strdup(args[0]);
            listed = 1;
        } else {
            full = strdup(spelling);
            listed = s_istarts(spelling, "test");
        }
        s_free_strv(args, na);
        free(macro);
    } else {
        full = strdup(spelling);
        listed = s_istarts(spelling, "test");
    }
    if (!full) {
        free(spelling);
        fs->oom = 1;
        return;
    }
    if (fs->n == fs->cap) {
        int cap = fs->cap ? fs->cap * 2 : 16;
        s_fn_t *nv = realloc(fs->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            free(full);
            free(spelling);
            fs->oom = 1;
            return;
        }
        fs->v = nv;
        fs->cap = cap;
    }
    fs->v[fs->n++] = (s_fn_t){
        .full = full,
        .alias = spelling,
        .shrt = full + shrt_at,
        .listed = listed,
        .def_off = noff,
        .body = block,
    };
}

static enum CXChildVisitResult s_find_fns(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    s_fns_t *fs = data;
    size_t off;
    enum CXCursorKind k = clang_getCursorKind(cur);
    if (s_loc(fs->c, clang_getCursorLocation(cur), &off) < 0)
        return CXChildVisit_Continue; /* declared in a header */
    switch (k) {
    case CXCursor_Namespace:
    case CXCursor_LinkageSpec:
    case CXCursor_UnexposedDecl:
        return CXChildVisit_Recurse;
    case CXCursor_FunctionDecl:
    case CXCursor_CXXMethod:
    case CXCursor_FunctionTemplate: {
        if (!clang_isCursorDefinition(cur))
            return CXChildVisit_Continue;
        s_cursors_t cs;
        if (s_children(cur, &cs) < 0) {
            fs->oom = 1;
            return CXChildVisit_Break;
        }
        for (int i = cs.n - 1; i >= 0; i--) {
            if (clang_getCursorKind(cs.v[i]) == CXCursor_CompoundStmt) {
                if (s_is_file_block(fs->c, cs.v[i], NULL, NULL))
                    s_add_fn(fs, cur, cs.v[i]);
                break;
            }
        }
        free(cs.v);
        return fs->oom ? CXChildVisit_Break : CXChildVisit_Continue;
    }
    default:
        return CXChildVisit_Continue;
    }
}

static enum CXChildVisitResult s_find_macros(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    s_ctx_t *c = data;
    if (clang_getCursorKind(cur) != CXCursor_MacroExpansion)
        return CXChildVisit_Continue;
    CXSourceRange r = clang_getCursorExtent(cur);
    CXFile f = NULL, f2 = NULL;
    unsigned b = 0, e = 0;
    clang_getExpansionLocation(clang_getRangeStart(r), &f, NULL, NULL, &b);
    clang_getExpansionLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &e);
    if (!f || !clang_File_isEqual(f, c->main) || b >= c->len)
        return CXChildVisit_Continue;
    if (!f2 || !clang_File_isEqual(f2, c->main) || e < b || e > c->len)
        e = (unsigned)s_invocation_end(c->text, c->len, b);
    if (c->nmac == c->capmac) {
        int cap = c->capmac ? c->capmac * 2 : 64;
        s_macro_t *nv = realloc(c->mac, (size_t)cap * sizeof *nv);
        if (!nv) {
            c->oom = 1;
            return CXChildVisit_Break;
        }
        c->mac = nv;
        c->capmac = cap;
    }
    c->mac[c->nmac++] = (s_macro_t){b, e};
    return CXChildVisit_Continue;
}

static int s_macro_cmp(const void *a, const void *b)
{
    const s_macro_t *x = a, *y = b;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->e < y->e ? 1 : x->e > y->e ? -1 : 0;
}

static void s_fns_free(s_fns_t *fs)
{
    for (int i = 0; i < fs->n; i++) {
        free(fs->v[i].full);
        free(fs->v[i].alias);
    }
    free(fs->v);
    fs->v = NULL;
    fs->n = fs->cap = 0;
}

/* Plain C test functions are also those registered with a framework's
 * registration macro or call, even when their names do not start with
 * "test": cmocka_unit_test*(fn, ...), Unity's RUN_TEST(fn),
 * CU_add_test(suite, "name", fn), CU_ADD_TEST(suite, fn). */
static void s_mark_registered(s_fns_t *fs)
{
    const char *t = fs->c->text;
    size_t len = fs->c->len, off = 0;
    while ((off = s_skip_trivia(t, len, off)) < len) {
        size_t e = s_token_end(t, len, off);
        if (!s_is_ident_char(t[off]) || e - off < 7) {
            off = e;
            continue;
        }
        int argi = -1;
        if (e - off >= 16 && memcmp(t + off, "cmocka_unit_test", 16) == 0)
            argi = 0;
        else if (e - off == 8 && memcmp(t + off, "RUN_TEST", 8) == 0)
            argi = 0;
        else if (e - off == 11 && memcmp(t + off, "CU_add_test", 11) == 0)
            argi = 2;
        else if (e - off == 11 && memcmp(t + off, "CU_ADD_TEST", 11) == 0)
            argi = 1;
        if (argi >= 0) {
            char **args = NULL;
            int na = s_macro_args(t, len, off, &args);
            if (na > argi) {
                for (int i = 0; i < fs->n; i++)
                    if (strcmp(fs->v[i].full, args[argi]) == 0)
                        fs->v[i].listed = 1;
            }
            if (na > 0)
                s_free_strv(args, na);
        }
        off = e;
    }
}

/* ------------------------------------------------------------------------ */
/* Compile flags */

typedef struct {
    char **v;
    int n, cap;
} s_argv_t;

static int s_argv_push(s_argv_t *a, const char *s)
{
    if (a->n + 1 >= a->cap) {
        int cap = a->cap ? a->cap * 2 : 32;
        char **nv = realloc(a->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return WH_ENOMEM;
        a->v = nv;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s)))
        return WH_ENOMEM;
    a->n++;
    a->v[a->n] = NULL;
    return 0;
}

static void s_argv_free(s_argv_t *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

static int s_is_cxx_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    return strcmp(dot, ".cc") == 0 || strcmp(dot, ".cpp") == 0 || strcmp(dot, ".cxx") == 0 ||
           strcmp(dot, ".C") == 0 || strcmp(dot, ".c++") == 0 || strcmp(dot, ".hpp") == 0 ||
           strcmp(dot, ".hh") == 0;
}

static int s_is_source_arg(const char *a)
{
    const char *dot = strrchr(a, '.');
    if (!dot)
        return 0;
    return strcmp(dot, ".c") == 0 || s_is_cxx_path(a) || strcmp(dot, ".m") == 0 ||
           strcmp(dot, ".mm") == 0;
}

static char *s_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* The absolute path of an entry's file (relative to its directory). */
static char *s_entry_file(CXCompileCommand cmd)
{
    CXString f = clang_CompileCommand_getFilename(cmd);
    CXString d = clang_CompileCommand_getDirectory(cmd);
    const char *fs = clang_getCString(f), *ds = clang_getCString(d);
    char *joined = fs[0] == '/' ? strdup(fs) : wh_path_join(ds, fs);
    clang_disposeString(f);
    clang_disposeString(d);
    if (!joined)
        return NULL;
    char *abs = wh_abspath(joined);
    free(joined);
    return abs;
}

/* A libclang database entry as a plain compile command. */
static int s_cmd_of(CXCompileCommand cmd, wh_compile_cmd_t *out)
{
    memset(out, 0, sizeof *out);
    unsigned n = clang_CompileCommand_getNumArgs(cmd);
    CXString d = clang_CompileCommand_getDirectory(cmd);
    out->directory = strdup(clang_getCString(d));
    clang_disposeString(d);
    out->argv = calloc((size_t)n + 1, sizeof *out->argv);
    if (!out->directory || !out->argv)
        goto oom;
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_CompileCommand_getArg(cmd, i);
        out->argv[i] = strdup(clang_getCString(s));
        clang_disposeString(s);
        if (!out->argv[i])
            goto oom;
        out->argc = (int)i + 1;
    }
    return 0;
oom:
    wh_compile_cmd_clear(out);
    return WH_ENOMEM;
}

/* 1 for -Werror, -Werror=x and -pedantic-errors: the real build's, kept
 * for the precheck, dropped for the tree's own parse (libclang warns about
 * things the project's compiler does not, and a warning must not stop it). */
static int s_is_werror(const char *arg)
{
    return strncmp(arg, "-Werror", 7) == 0 || strcmp(arg, "-pedantic-errors") == 0;
}

/* 1 when a command's compiler is clang (its warnings are ours). */
static int s_cmd_is_clang(const wh_compile_cmd_t *cmd)
{
    if (cmd->argc == 0 || !cmd->argv[0])
        return 0;
    const char *base = strrchr(cmd->argv[0], '/');
    return strstr(base ? base + 1 : cmd->argv[0], "clang") != NULL;
}

/* Appends the arguments of a compile command that matter for parsing: the
 * compiler, output, dependency-file and input arguments are dropped.
 * same_lang=0 drops the language standard and -Werror too, for flags
 * borrowed from an entry of the other language. */
static int s_append_cmd(s_argv_t *a, const wh_compile_cmd_t *cmd, int same_lang, int *has_x)
{
    int n = cmd->argc;
    int rc = 0;
    char *wd = wh_strdup_printf("-working-directory=%s", cmd->directory ? cmd->directory : "/");
    if (!wd)
        return WH_ENOMEM;
    for (int i = 1; i < n && rc == 0; i++) {
        const char *arg = cmd->argv[i];
        int skip_next = 0, drop = 0;
        if (strcmp(arg, "-c") == 0 || strcmp(arg, "-M") == 0 || strcmp(arg, "-MM") == 0 ||
            strcmp(arg, "-MD") == 0 || strcmp(arg, "-MMD") == 0 || strcmp(arg, "-MP") == 0 ||
            strcmp(arg, "--") == 0 || (!same_lang && s_is_werror(arg)))
            drop = 1;
        else if (strcmp(arg, "-o") == 0 || strcmp(arg, "-MF") == 0 || strcmp(arg, "-MT") == 0 ||
                 strcmp(arg, "-MQ") == 0)
            drop = skip_next = 1;
        else if (strncmp(arg, "-o", 2) == 0 || strncmp(arg, "-MF", 3) == 0 ||
                 strncmp(arg, "-MT", 3) == 0 || strncmp(arg, "-MQ", 3) == 0)
            drop = 1;
        else if (!same_lang && (strncmp(arg, "-std=", 5) == 0 || strcmp(arg, "-x") == 0))
            drop = 1, skip_next = strcmp(arg, "-x") == 0;
        else if (arg[0] != '-' && s_is_source_arg(arg))
            drop = 1;
        if (!drop) {
            if (strcmp(arg, "-x") == 0 || strncmp(arg, "-x", 2) == 0)
                *has_x = 1;
            rc = s_argv_push(a, arg);
            /* Keep the value of a two-part option with it. */
            if (rc == 0 && i + 1 < n &&
                (strcmp(arg, "-I") == 0 || strcmp(arg, "-D") == 0 || strcmp(arg, "-U") == 0 ||
                 strcmp(arg, "-isystem") == 0 || strcmp(arg, "-iquote") == 0 ||
                 strcmp(arg, "-idirafter") == 0 || strcmp(arg, "-include") == 0 ||
                 strcmp(arg, "-imacros") == 0 || strcmp(arg, "-x") == 0 ||
                 strcmp(arg, "-target") == 0 || strcmp(arg, "-isysroot") == 0 ||
                 strcmp(arg, "--sysroot") == 0 || strcmp(arg, "-Xclang") == 0))
                rc = s_argv_push(a, cmd->argv[++i]);
        }
        if (skip_next)
            i++;
    }
    if (rc == 0)
        rc = s_argv_push(a, wd);
    free(wd);
    return rc;
}

/* s_append_cmd for a libclang database entry; *is_clang (may be NULL)
 * gets whether its compiler is clang. */
static int s_append_db_cmd(s_argv_t *a, CXCompileCommand cmd, int same_lang, int *has_x,
                           int *is_clang)
{
    wh_compile_cmd_t c;
    int rc = s_cmd_of(cmd, &c);
    if (rc == 0)
        rc = s_append_cmd(a, &c, same_lang, has_x);
    if (rc == 0 && is_clang)
        *is_clang = s_cmd_is_clang(&c);
    wh_compile_cmd_clear(&c);
    return rc;
}

/* Loads compile_commands.json from dir; NULL when there is none. */
static CXCompilationDatabase s_db_open(const char *dir)
{
    char *p = wh_path_join(dir, "compile_commands.json");
    int ok = p && wh_is_file(p);
    free(p);
    if (!ok)
        return NULL;
    CXCompilationDatabase_Error e = CXCompilationDatabase_NoError;
    CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &e);
    if (e != CXCompilationDatabase_NoError) {
        if (db)
            clang_CompilationDatabase_dispose(db);
        return NULL;
    }
    return db;
}

/* Finds the compilation database for abs (or in opts->compdb_dir). */
static int s_db_find(const char *abs, const wh_tree_opts_t *opts, CXCompilationDatabase *out,
                     char **err)
{
    *out = NULL;
    if (opts && opts->compdb_dir) {
        *out = s_db_open(opts->compdb_dir);
        if (!*out) {
            *err = wh_strdup_printf("no usable compile_commands.json in '%s'", opts->compdb_dir);
            return WH_ENOTFOUND;
        }
        return 0;
    }
    char *dir = s_dirname(abs);
    while (dir) {
        if ((*out = s_db_open(dir)))
            break;
        char *b = wh_path_join(dir, "build");
        if (b && (*out = s_db_open(b))) {
            free(b);
            break;
        }
        free(b);
        if (strcmp(dir, "/") == 0 || strcmp(dir, ".") == 0)
            break;
        char *up = s_dirname(dir);
        free(dir);
        dir = up;
    }
    free(dir);
    return 0;
}

/* Builds the argument list used to parse abs: the real build's (see
 * wh_tree_t.cc_args). *exact = 1 when they are the file's own command (the
 * warm workspace's, or its compile_commands.json entry), *is_clang = 1 when
 * that command compiles with clang. */
static int s_build_args(const char *abs, const wh_tree_opts_t *opts, s_argv_t *a, int *exact,
                        int *is_clang, char **err)
{
    CXCompilationDatabase db = NULL;
    int rc = 0;
    if (opts && opts->cmd && opts->cmd->argc > 0) {
        /* The exact command: no database search, no language guess. */
        int has_x = 0;
        rc = s_append_cmd(a, opts->cmd, 1, &has_x);
        *exact = 1;
        *is_clang = s_cmd_is_clang(opts->cmd);
        if (rc == 0)
            rc = s_argv_push(a, "-Wno-unknown-warning-option");
        for (int i = 0; rc == 0 && i < opts->nargs; i++)
            rc = s_argv_push(a, opts->args[i]);
        return rc;
    }
    rc = s_db_find(abs, opts, &db, err);
    if (rc < 0)
        return rc;
    int cxx = s_is_cxx_path(abs), has_x = 0, from_db = 0;
    if (db) {
        CXCompileCommands cmds = clang_CompilationDatabase_getCompileCommands(db, abs);
        if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
            rc = s_append_db_cmd(a, clang_CompileCommands_getCommand(cmds, 0), 1, &has_x,
                                 is_clang);
            from_db = *exact = 1;
        }
        if (cmds)
            clang_CompileCommands_dispose(cmds);
        if (!from_db && rc == 0) {
            /* No entry for the file: borrow the flags of an entry in the same
             * folder, preferring one of the same language. */
            CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(db);
            unsigned n = all ? clang_CompileCommands_getSize(all) : 0;
            char *dir = s_dirname(abs);
            int best = -1, best_same = 0;
            for (unsigned i = 0; dir && i < n; i++) {
                char *f = s_entry_file(clang_CompileCommands_getCommand(all, i));
                char *fd = f ? s_dirname(f) : NULL;
                if (fd && strcmp(fd, dir) == 0) {
                    int same = s_is_cxx_path(f) == cxx;
                    if (best < 0 || (same && !best_same)) {
                        best = (int)i;
                        best_same = same;
                    }
                }
                free(fd);
                free(f);
            }
            free(dir);
            if (best >= 0) {
                rc = s_append_db_cmd(a, clang_CompileCommands_getCommand(all, (unsigned)best),
                                     best_same, &has_x, NULL);
                from_db = best_same;
            }
            if (all)
                clang_CompileCommands_dispose(all);
        }
        clang_CompilationDatabase_dispose(db);
    }
    if (rc == 0 && cxx && !from_db && !has_x) {
        rc = s_argv_push(a, "-x");
        if (rc == 0)
            rc = s_argv_push(a, "c++");
        if (rc == 0)
            rc = s_argv_push(a, "-std=c++17");
    }
    if (rc == 0)
        rc = s_argv_push(a, "-Wno-unknown-warning-option");
    for (int i = 0; rc == 0 && opts && i < opts->nargs; i++)
        rc = s_argv_push(a, opts->args[i]);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Parsing */

/* One error-level diagnostic of the parse. */
typedef struct {
    char *msg;      /* "file:line:col: error: message" */
    int missing;    /* an #include that was not found */
    int in_main;    /* located in the test file, at offset off */
    size_t off;
} s_diag_t;

static void s_diags_free(s_diag_t *d, int n)
{
    for (int i = 0; i < n; i++)
        free(d[i].msg);
    free(d);
}

typedef struct {
    CXIndex index;
    s_ctx_t c;
    char *text;
    size_t len;
    s_fns_t fns;
    s_diag_t *diags;
    int ndiags;
    s_argv_t cc;          /* the real build's arguments, for wh_tree_t */
    int cc_exact, cc_clang;
} s_parsed_t;

static void s_parsed_free(s_parsed_t *p)
{
    s_fns_free(&p->fns);
    s_diags_free(p->diags, p->ndiags);
    s_argv_free(&p->cc);
    free(p->c.mac);
    free(p->c.nl);
    if (p->c.tu)
        clang_disposeTranslationUnit(p->c.tu);
    if (p->index)
        clang_disposeIndex(p->index);
    free(p->text);
    memset(p, 0, sizeof *p);
}

/* Every error of the parse that has a location (errors without one are the
 * driver complaining about an option, not about the file), in order. */
static int s_collect_diags(CXTranslationUnit tu, const char *file, CXFile main, s_diag_t **out,
                           int *nout)
{
    unsigned n = clang_getNumDiagnostics(tu);
    s_diag_t *v = calloc(n ? n : 1, sizeof *v);
    int k = 0;
    if (!v)
        return WH_ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        CXFile f = NULL, ef = NULL;
        unsigned line = 0, col = 0, eoff = 0;
        CXSourceLocation loc = clang_getDiagnosticLocation(d);
        clang_getSpellingLocation(loc, &f, &line, &col, NULL);
        clang_getExpansionLocation(loc, &ef, NULL, NULL, &eoff);
        if (sev >= CXDiagnostic_Error && f) {
            CXString fn = clang_getFileName(f);
            CXString sp = clang_getDiagnosticSpelling(d);
            const char *text = clang_getCString(sp);
            const char *where = clang_File_isEqual(f, main) ? file : clang_getCString(fn);
            v[k].msg = wh_strdup_printf("%s:%u:%u: %s: %s", where, line, col,
                                        sev == CXDiagnostic_Fatal ? "fatal error" : "error", text);
            v[k].missing = text && strstr(text, "file not found") != NULL;
            v[k].in_main = ef && clang_File_isEqual(ef, main);
            v[k].off = eoff;
            clang_disposeString(sp);
            clang_disposeString(fn);
            if (!v[k].msg) {
                clang_disposeDiagnostic(d);
                s_diags_free(v, k);
                return WH_ENOMEM;
            }
            k++;
        }
        clang_disposeDiagnostic(d);
    }
    *out = v;
    *nout = k;
    return 0;
}

/* The fix named by every refusal. */
#define S_FIX "give -p BUILD_DIR (a compile_commands.json), -- -I... flags, or --allow-parse-errors"

/* The first diagnostic that may hide statements of the function spanning
 * [b, e) of the main file: a missing header anywhere first (it is the
 * cause of the errors that follow), else an error inside [b, e). With
 * b == e every error counts. NULL when there is none. */
static const s_diag_t *s_hiding_diag(const s_diag_t *v, int n, size_t b, size_t e)
{
    for (int i = 0; i < n; i++)
        if (v[i].missing)
            return &v[i];
    for (int i = 0; i < n; i++)
        if (b == e || (v[i].in_main && v[i].off >= b && v[i].off < e))
            return &v[i];
    return NULL;
}

/* The refusal message for d: what, why, and the fix. */
static char *s_refusal(const s_diag_t *d, const char *test)
{
    if (d->missing)
        return wh_strdup_printf("%s; what depends on it would be missing from the statement tree: "
                                S_FIX, d->msg);
    if (test)
        return wh_strdup_printf("%s (in test '%s'); the statement tree may be incomplete: " S_FIX,
                                d->msg, test);
    return wh_strdup_printf("%s; " S_FIX, d->msg);
}

static int s_parse(const char *file, const wh_tree_opts_t *opts, s_parsed_t *p, char **err)
{
    memset(p, 0, sizeof *p);
    int rc = wh_read_file(file, S_MAX_FILE, &p->text, &p->len);
    if (rc < 0) {
        *err = wh_strdup_printf("cannot read '%s': %s", file, wh_strerror(rc));
        return rc;
    }
    char *abs = wh_abspath(file);
    s_argv_t a = {0};
    if (!abs) {
        rc = WH_ENOMEM;
        goto fail;
    }
    rc = s_build_args(abs, opts, &p->cc, &p->cc_exact, &p->cc_clang, err);
    /* The tree's own parse: the same without the build's -Werror. */
    int nuser = opts ? opts->nargs : 0;
    for (int i = 0; rc == 0 && i < p->cc.n; i++)
        if (i >= p->cc.n - nuser || !s_is_werror(p->cc.v[i]))
            rc = s_argv_push(&a, p->cc.v[i]);
    if (rc < 0)
        goto fail;
    p->index = clang_createIndex(0, 0);
    if (!p->index) {
        rc = WH_ENOMEM;
        goto fail;
    }
    enum CXErrorCode ec = clang_parseTranslationUnit2(
        p->index, abs, (const char *const *)a.v, a.n, NULL, 0,
        CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing |
            CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
        &p->c.tu);
    if (ec != CXError_Success || !p->c.tu) {
        *err = wh_strdup_printf("%s: libclang could not parse the file (error %d)", file, (int)ec);
        rc = WH_EPARSE;
        goto fail;
    }
    p->c.main = clang_getFile(p->c.tu, abs);
    if (!p->c.main) {
        *err = wh_strdup_printf("%s: libclang did not load the file", file);
        rc = WH_EPARSE;
        goto fail;
    }
    /* Judged by the callers: only they know the test function's extent. */
    rc = s_collect_diags(p->c.tu, file, p->c.main, &p->diags, &p->ndiags);
    if (rc < 0)
        goto fail;
    p->c.text = p->text;
    p->c.len = p->len;
    if (s_lines_build(&p->c) < 0) {
        rc = WH_ENOMEM;
        goto fail;
    }
    p->c.cxx = s_is_cxx_path(abs);
    for (int i = 0; i < a.n; i++)
        if (strcmp(a.v[i], "c++") == 0 || strncmp(a.v[i], "-std=c++", 8) == 0 ||
            strncmp(a.v[i], "-std=gnu++", 10) == 0)
            p->c.cxx = 1;
    clang_visitChildren(clang_getTranslationUnitCursor(p->c.tu), s_find_macros, &p->c);
    if (p->c.oom) {
        rc = WH_ENOMEM;
        goto fail;
    }
    if (p->c.nmac > 1)
        qsort(p->c.mac, (size_t)p->c.nmac, sizeof *p->c.mac, s_macro_cmp);
    /* Keep the widest invocation per start: the outermost one. */
    int k = 0;
    for (int i = 0; i < p->c.nmac; i++)
        if (k == 0 || p->c.mac[k - 1].b != p->c.mac[i].b)
            p->c.mac[k++] = p->c.mac[i];
    p->c.nmac = k;
    p->fns.c = &p->c;
    clang_visitChildren(clang_getTranslationUnitCursor(p->c.tu), s_find_fns, &p->fns);
    if (p->fns.oom) {
        rc = WH_ENOMEM;
        goto fail;
    }
    s_mark_registered(&p->fns);
    s_argv_free(&a);
    free(abs);
    return 0;
fail:
    if (rc == WH_ENOMEM && !*err)
        *err = wh_strdup_printf("%s: out of memory", file);
    s_argv_free(&a);
    free(abs);
    s_parsed_free(p);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Public API */

static int s_names_match(const char *a, const char *b)
{
    /* "Suite.Name" and "suite::name" are the same name spelled two ways. */
    while (*a && *b) {
        if (a[0] == ':' && a[1] == ':' && b[0] == '.') {
            a += 2, b += 1;
        } else if (b[0] == ':' && b[1] == ':' && a[0] == '.') {
            a += 1, b += 2;
        } else if (*a == *b) {
            a++, b++;
        } else {
            return 0;
        }
    }
    return *a == *b;
}

/* "a, b, c" of the listed tests, malloc'ed. */
static char *s_listed_names(const s_fns_t *fs)
{
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < fs->n; i++) {
        if (!fs->v[i].listed)
            continue;
        if (b.len)
            wh_buf_puts(&b, ", ");
        wh_buf_puts(&b, fs->v[i].full);
    }
    if (!b.len)
        wh_buf_puts(&b, "(no tests)");
    return wh_buf_detach(&b);
}

int wh_tree_load(const char *file, const char *test, const wh_tree_opts_t *opts,
                 wh_tree_t **out, char **err)
{
    char *dummy = NULL;
    if (!err)
        err = &dummy;
    *err = NULL;
    if (out)
        *out = NULL;
    if (!file || !test || !out) {
        *err = wh_strdup_printf("wh_tree_load: missing argument");
        free(dummy);
        return WH_EINVAL;
    }
    s_parsed_t p;
    int rc = s_parse(file, opts, &p, err);
    if (rc < 0) {
        free(dummy);
        return rc;
    }
    /* Exact resolved name, then the function's own name, then the short
     * name (without the suite) when exactly one test has it. */
    int found = -1, nshort = 0;
    for (int i = 0; i < p.fns.n && found < 0; i++)
        if (s_names_match(p.fns.v[i].full, test))
            found = i;
    for (int i = 0; i < p.fns.n && found < 0; i++)
        if (strcmp(p.fns.v[i].alias, test) == 0)
            found = i;
    if (found < 0) {
        for (int i = 0; i < p.fns.n; i++) {
            if (p.fns.v[i].shrt != p.fns.v[i].full && strcmp(p.fns.v[i].shrt, test) == 0) {
                if (nshort++ == 0)
                    found = i;
            }
        }
        if (nshort > 1) {
            wh_buf_t b = WH_BUF_INIT;
            for (int i = 0; i < p.fns.n; i++)
                if (p.fns.v[i].shrt != p.fns.v[i].full && strcmp(p.fns.v[i].shrt, test) == 0)
                    wh_buf_printf(&b, "%s%s", b.len ? ", " : "", p.fns.v[i].full);
            char *names = wh_buf_detach(&b);
            *err = wh_strdup_printf("test '%s' is ambiguous in %s; it matches: %s", test, file,
                                    names);
            free(names);
            s_parsed_free(&p);
            free(dummy);
            return WH_ENOTFOUND;
        }
    }
    if (found < 0) {
        char *names = s_listed_names(&p.fns);
        *err = wh_strdup_printf("test '%s' not found in %s; it defines: %s", test, file, names);
        free(names);
        s_parsed_free(&p);
        free(dummy);
        return WH_ENOTFOUND;
    }

    wh_tree_t *t = calloc(1, sizeof *t);
    s_units_t u = {.c = &p.c};
    if (!t)
        goto oom;
    CXCursor body = p.fns.v[found].body;
    size_t bb = 0, be = 0;
    s_is_file_block(&p.c, body, &bb, &be);
    const s_diag_t *hide = s_hiding_diag(p.diags, p.ndiags, p.fns.v[found].def_off, be);
    int allow = opts ? opts->allow_errors : 0;
    if (hide && !(allow == WH_TREE_ALLOW_ERRORS ||
                  (allow == WH_TREE_ALLOW_MISSING_HEADERS && hide->missing))) {
        *err = s_refusal(hide, p.fns.v[found].full);
        free(t);
        s_parsed_free(&p);
        free(dummy);
        return *err ? WH_EPARSE : WH_ENOMEM;
    }
    if (hide && !(t->diag = strdup(hide->msg)))
        goto oom;
    rc = s_add_block(&u, body, 0, -1);
    if (rc < 0)
        goto oom;
    t->path = strdup(file);
    t->test = strdup(p.fns.v[found].full);
    if (!t->path || !t->test)
        goto oom;
    t->text = p.text;
    t->text_len = p.len;
    p.text = NULL;
    t->body_begin = bb;
    t->body_end = be;
    t->n = u.n;
    t->units = u.v;
    t->cc_args = p.cc.v;
    t->cc_nargs = p.cc.n;
    t->cc_exact = p.cc_exact;
    t->cc_clang = p.cc_clang;
    p.cc.v = NULL;
    p.cc.n = p.cc.cap = 0;
    s_parsed_free(&p);
    *out = t;
    free(dummy);
    return 0;
oom:
    free(u.v);
    if (t) {
        free(t->path);
        free(t->test);
        free(t->diag);
        free(t);
    }
    s_parsed_free(&p);
    *err = wh_strdup_printf("%s: out of memory", file);
    free(dummy);
    return WH_ENOMEM;
}

int wh_tree_list(const char *file, const wh_tree_opts_t *opts, char ***names, int *n, char **err)
{
    char *dummy = NULL;
    if (!err)
        err = &dummy;
    *err = NULL;
    if (!file || !names || !n) {
        *err = wh_strdup_printf("wh_tree_list: missing argument");
        free(dummy);
        return WH_EINVAL;
    }
    *names = NULL;
    *n = 0;
    s_parsed_t p;
    int rc = s_parse(file, opts, &p, err);
    if (rc < 0) {
        free(dummy);
        return rc;
    }
    const s_diag_t *hide = s_hiding_diag(p.diags, p.ndiags, 0, 0);
    int allow = opts ? opts->allow_errors : 0;
    if (hide && !(allow == WH_TREE_ALLOW_ERRORS ||
                  (allow == WH_TREE_ALLOW_MISSING_HEADERS && hide->missing))) {
        *err = s_refusal(hide, NULL);
        s_parsed_free(&p);
        free(dummy);
        return *err ? WH_EPARSE : WH_ENOMEM;
    }
    if (hide)
        wh_warn("%s (listing anyway: --allow-parse-errors)", hide->msg);
    int cnt = 0;
    for (int i = 0; i < p.fns.n; i++)
        cnt += p.fns.v[i].listed;
    char **v = calloc((size_t)cnt + 1, sizeof *v);
    int k = 0;
    for (int i = 0; v && i < p.fns.n; i++) {
        if (!p.fns.v[i].listed)
            continue;
        if (!(v[k] = strdup(p.fns.v[i].full))) {
            s_free_strv(v, k);
            v = NULL;
            break;
        }
        k++;
    }
    s_parsed_free(&p);
    if (!v) {
        *err = wh_strdup_printf("%s: out of memory", file);
        free(dummy);
        return WH_ENOMEM;
    }
    *names = v;
    *n = k;
    free(dummy);
    return 0;
}

void wh_tree_destroy(wh_tree_t **tp)
{
    if (!tp || !*tp)
        return;
    wh_tree_t *t = *tp;
    free(t->path);
    free(t->text);
    free(t->test);
    free(t->units);
    free(t->diag);
    for (int i = 0; i < t->cc_nargs; i++)
        free(t->cc_args[i]);
    free(t->cc_args);
    free(t);
    *tp = NULL;
}

void wh_tree_totals(const wh_tree_t *t, wh_tree_totals_t *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; t && i < t->n; i++) {
        out->total++;
        if (t->units[i].is_tree)
            out->tree++;
        else
            out->nontree++;
        if (t->units[i].level > out->deepest)
            out->deepest = t->units[i].level;
    }
}

char *wh_tree_unit_head(const wh_tree_t *t, int i, size_t max)
{
    if (!t || i < 0 || i >= t->n)
        return NULL;
    const char *s = t->text + t->units[i].begin, *e = t->text + t->units[i].end;
    const char *nl = memchr(s, '\n', (size_t)(e - s));
    if (nl)
        e = nl;
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    size_t n = (size_t)(e - s);
    if (n > max)
        return wh_strdup_printf("%.*s...", (int)max, s);
    return strndup(s, n);
}

const char *wh_tree_kind_name(wh_stmt_kind_t k)
{
    static const char *const names[] = {
        [WH_STMT_EXPR] = "expr",   [WH_STMT_DECL] = "decl",   [WH_STMT_MACRO] = "macro",
        [WH_STMT_IF] = "if",       [WH_STMT_FOR] = "for",     [WH_STMT_WHILE] = "while",
        [WH_STMT_DO] = "do",       [WH_STMT_SWITCH] = "switch", [WH_STMT_BLOCK] = "block",
        [WH_STMT_TRY] = "try",     [WH_STMT_RANGE_FOR] = "range_for",
        [WH_STMT_LAMBDA] = "lambda", [WH_STMT_OTHER] = "other",
    };
    if ((unsigned)k >= sizeof names / sizeof names[0] || !names[k])
        return "other";
    return names[k];
}

void wh_tree_print(const wh_tree_t *t, FILE *fp, int json)
{
    wh_tree_totals_t tot;
    wh_tree_totals(t, &tot);
    wh_buf_t b = WH_BUF_INIT;
    if (json) {
        wh_buf_puts(&b, "{\"test\":");
        wh_buf_json_str(&b, t->test);
        wh_buf_puts(&b, ",\"file\":");
        wh_buf_json_str(&b, t->path);
        wh_buf_puts(&b, ",\"units\":[");
    } else {
        wh_buf_printf(&b, "Statement hierarchy for %s:\n", t->test);
    }
    for (int i = 0; i < t->n; i++) {
        const wh_unit_t *u = &t->units[i];
        char *head = wh_tree_unit_head(t, i, WH_TREE_HEAD_MAX);
        if (json) {
            wh_buf_printf(&b,
                          "%s{\"level\":%d,\"tree\":%s,\"kind\":\"%s\",\"line\":%u,"
                          "\"parent\":%d,\"begin\":%zu,\"end\":%zu,\"text\":",
                          i ? "," : "", u->level, u->is_tree ? "true" : "false",
                          wh_tree_kind_name(u->kind), u->line, u->parent, u->begin, u->end);
            wh_buf_json_str(&b, head ? head : "");
            wh_buf_puts(&b, "}");
        } else {
            wh_buf_printf(&b, "%*sL%d [%s] %s\n", 2 * u->level, "", u->level,
                          u->is_tree ? "Tree" : "NonTree", head ? head : "");
        }
        free(head);
    }
    if (json)
        wh_buf_printf(&b,
                      "],\"totals\":{\"statements\":%d,\"nontree\":%d,\"tree\":%d,"
                      "\"deepest\":%d}}\n",
                      tot.total, tot.nontree, tot.tree, tot.deepest);
    else
        wh_buf_printf(&b,
                      "Totals: %d statements | NonTree (#NTN): %d | Tree (#TN): %d | "
                      "deepest level: %d\n",
                      tot.total, tot.nontree, tot.tree, tot.deepest);
    if (b.buf)
        fwrite(b.buf, 1, b.len, fp);
    wh_buf_free(&b);
}
