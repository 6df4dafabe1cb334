/*
 * tree_cursor — libclang helpers of the tree module (tree_int.h): where a
 * cursor is in the main file (spelled there, or from a macro invocation
 * there), its direct children, its statement kind, whether it may need the
 * `;` libclang's extent leaves out, and the brace blocks a statement owns
 * (then/else blocks, loop bodies, catch blocks, lambda bodies, the member
 * function bodies of a local class), which give its child units one level
 * down.
 */
#define _GNU_SOURCE
#include "tree_int.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

/* The macro invocation that starts at off (binary search over the
 * invocations recorded in the main file); -1 when none does. */
int tr_macro_at(const tr_ctx_t *c, size_t off)
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
int tr_loc(const tr_ctx_t *c, CXSourceLocation loc, size_t *off)
{
    CXFile ef = NULL;
    unsigned eo = 0;
    clang_getExpansionLocation(loc, &ef, NULL, NULL, &eo);
    if (!ef || !clang_File_isEqual(ef, c->main) || eo > c->len)
        return -1;
    *off = eo;
    return tr_macro_at(c, eo) < 0 ? 1 : 0;
}

static enum CXChildVisitResult s_collect_child(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    tr_cursors_t *cs = data;
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
int tr_children(CXCursor cur, tr_cursors_t *cs)
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
int tr_is_file_block(const tr_ctx_t *c, CXCursor cur, size_t *b, size_t *e)
{
    if (clang_getCursorKind(cur) != CXCursor_CompoundStmt)
        return 0;
    CXSourceRange r = clang_getCursorExtent(cur);
    size_t bo, eo;
    if (tr_loc(c, clang_getRangeStart(r), &bo) != 1 || tr_loc(c, clang_getRangeEnd(r), &eo) != 1)
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

wh_stmt_kind_t tr_kind_of(CXCursor cur)
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
int tr_needs_semi(CXCursor cur)
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
        tr_cursors_t cs;
        if (tr_children(cur, &cs) < 0 || cs.n == 0) {
            free(cs.v);
            return 1;
        }
        int r = tr_needs_semi(cs.v[cs.n - 1]);
        free(cs.v);
        return r;
    }
    default:
        return 1;
    }
}

/* 1 when cur was added, 0 when it is there already (or out of memory). */
static int s_blocks_push(tr_blocks_t *bl, CXCursor cur)
{
    /* `struct S { ... } s;` shows the struct twice (the declaration and
     * the variable's type), its member bodies too: each block counts once. */
    for (int i = 0; i < bl->n; i++)
        if (clang_equalCursors(bl->v[i], cur))
            return 0;
    if (bl->n == bl->cap) {
        int cap = bl->cap ? bl->cap * 2 : 4;
        CXCursor *nv = realloc(bl->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            bl->oom = 1;
            return 0;
        }
        bl->v = nv;
        bl->cap = cap;
    }
    bl->v[bl->n++] = cur;
    return 1;
}

/* A function whose body a local class or struct spells: its body is a
 * block like a lambda's. Templates cannot be members of a local class. */
static int s_is_member_fn(enum CXCursorKind k)
{
    return k == CXCursor_CXXMethod || k == CXCursor_Constructor || k == CXCursor_Destructor ||
           k == CXCursor_ConversionFunction;
}

/* Lambda bodies inside an expression or declaration, and the member
 * function bodies of a local class or struct it declares: each body is a
 * block the statement owns. Lambdas and classes nested in such a body
 * belong to that body's own units, so the search stops there. */
static enum CXChildVisitResult s_find_bodies(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    tr_blocks_t *bl = data;
    enum CXCursorKind k = clang_getCursorKind(cur);
    if (k == CXCursor_LambdaExpr || s_is_member_fn(k)) {
        tr_cursors_t cs;
        if (tr_children(cur, &cs) < 0) {
            bl->oom = 1;
            return CXChildVisit_Break;
        }
        for (int i = cs.n - 1; i >= 0; i--) {
            if (clang_getCursorKind(cs.v[i]) == CXCursor_CompoundStmt) {
                if (tr_is_file_block(bl->c, cs.v[i], NULL, NULL) && s_blocks_push(bl, cs.v[i]))
                    bl->members += k != CXCursor_LambdaExpr;
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
static void s_sub_statement(tr_blocks_t *bl, CXCursor sub)
{
    size_t off;
    CXSourceRange r = clang_getCursorExtent(sub);
    enum CXCursorKind k = clang_getCursorKind(sub);
    if (k == CXCursor_CompoundStmt) {
        if (tr_is_file_block(bl->c, sub, NULL, NULL))
            s_blocks_push(bl, sub);
        return;
    }
    /* Never descend into what a macro produced. */
    if (tr_loc(bl->c, clang_getRangeStart(r), &off) != 1)
        return;
    tr_owned_blocks(bl, sub);
}

void tr_owned_blocks(tr_blocks_t *bl, CXCursor cur)
{
    enum CXCursorKind k = clang_getCursorKind(cur);
    if (k == CXCursor_CompoundStmt) {
        if (tr_is_file_block(bl->c, cur, NULL, NULL))
            s_blocks_push(bl, cur);
        return;
    }
    if (!s_is_control(k)) {
        if (bl->c->cxx)
            clang_visitChildren(cur, s_find_bodies, bl);
        return;
    }
    tr_cursors_t cs;
    if (tr_children(cur, &cs) < 0) {
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
            size_t p = tr_stmt_end(bl->c, clang_getCursorExtent(cs.v[cs.n - 2]));
            p = tr_skip_trivia(t, len, p);
            if (p < len && t[p] == ';')
                p = tr_skip_trivia(t, len, p + 1);
            has_else = p + 4 <= len && memcmp(t + p, "else", 4) == 0 &&
                       (p + 4 == len || !tr_is_ident_char(t[p + 4]));
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
