/*
 * tree_flow — the data flow of the test body (tree.h, wh_flow_t): which
 * local variables each unit's own part declares, writes and reads, and
 * which units hold a jump. One walk over the body's cursors while the
 * parse is alive; every cursor is owned by the innermost unit whose extent
 * holds its start (a macro's tokens by the invocation's unit).
 *
 * Approximate on purpose, for expectations only (walk/prior.h): a write
 * is an assignment, ++ or -- to a variable's lvalue (x, x[i], x.f, *x),
 * its address taken, a pointer to it or an array passed to a call (a
 * pointer whose pointee is const excepted), a non-const reference
 * parameter, or the object of a member call. No alias or global analysis.
 */
#define _GNU_SOURCE
#include "tree_int.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const tr_ctx_t *c;
    size_t bb, be;
    int *owner;          /* be - bb: the innermost unit at each offset, -1 none */
    size_t *voff;        /* each variable's declaration offset */
    int nvars, capvars;
    int *ru, *rv;        /* refs: unit, variable, how */
    unsigned char *rh;
    int nrefs, caprefs;
    unsigned char *jump;
    size_t skip;         /* + 1: the offset of a DeclRefExpr that is only stored to */
    int oom;
} s_flow_t;

static int s_owner(const s_flow_t *f, CXCursor cur)
{
    size_t off;
    if (tr_loc(f->c, clang_getRangeStart(clang_getCursorExtent(cur)), &off) < 0 || off < f->bb ||
        off >= f->be)
        return -1;
    return f->owner[off - f->bb];
}

/* The id of the body's local variable decl declares, registered on first
 * sight; -1 when decl is none (a global, a function, a field). */
static int s_var(s_flow_t *f, CXCursor decl)
{
    enum CXCursorKind k = clang_getCursorKind(decl);
    size_t off;
    if ((k != CXCursor_VarDecl && k != CXCursor_ParmDecl) ||
        tr_loc(f->c, clang_getCursorLocation(decl), &off) < 0 || off < f->bb || off >= f->be)
        return -1;
    for (int i = f->nvars; i-- > 0;)
        if (f->voff[i] == off)
            return i;
    if (f->nvars == f->capvars) {
        int cap = f->capvars ? 2 * f->capvars : 32;
        size_t *nv = realloc(f->voff, (size_t)cap * sizeof *nv);
        if (!nv) {
            f->oom = 1;
            return -1;
        }
        f->voff = nv;
        f->capvars = cap;
    }
    f->voff[f->nvars] = off;
    return f->nvars++;
}

static void s_ref(s_flow_t *f, int unit, int var, unsigned how)
{
    if (unit < 0 || var < 0)
        return;
    if (f->nrefs == f->caprefs) {
        int cap = f->caprefs ? 2 * f->caprefs : 128;
        int *ru = realloc(f->ru, (size_t)cap * sizeof *ru);
        if (ru)
            f->ru = ru;
        int *rv = ru ? realloc(f->rv, (size_t)cap * sizeof *rv) : NULL;
        if (rv)
            f->rv = rv;
        unsigned char *rh = rv ? realloc(f->rh, (size_t)cap) : NULL;
        if (!rh) {
            f->oom = 1;
            return;
        }
        f->rh = rh;
        f->caprefs = cap;
    }
    f->ru[f->nrefs] = unit;
    f->rv[f->nrefs] = var;
    f->rh[f->nrefs++] = (unsigned char)how;
}

static CXCursor s_first_child(CXCursor cur, int last)
{
    tr_cursors_t cs;
    CXCursor r = clang_getNullCursor();
    if (tr_children(cur, &cs) == 0 && cs.n > 0)
        r = cs.v[last ? cs.n - 1 : 0];
    free(cs.v);
    return r;
}

/* The variable an lvalue expression stores into: x in x, x[i], x.f, x->f,
 * *x, &x, (x), (T)x; -1 when it is none of the body's. */
static int s_base(s_flow_t *f, CXCursor e)
{
    for (int depth = 0; depth < 64 && !clang_Cursor_isNull(e); depth++) {
        switch (clang_getCursorKind(e)) {
        case CXCursor_DeclRefExpr:
            return s_var(f, clang_getCursorReferenced(e));
        case CXCursor_UnexposedExpr:
        case CXCursor_ParenExpr:
        case CXCursor_MemberRefExpr:
        case CXCursor_ArraySubscriptExpr:
        case CXCursor_UnaryOperator:
            e = s_first_child(e, 0);
            break;
        case CXCursor_CStyleCastExpr:
            e = s_first_child(e, 1);
            break;
        default:
            return -1;
        }
    }
    return -1;
}

/* The text at off, when it is spelled in the file (not a macro's). */
static const char *s_text_at(const s_flow_t *f, CXSourceLocation loc)
{
    size_t off;
    if (tr_loc(f->c, loc, &off) != 1 || off >= f->c->len)
        return NULL;
    return f->c->text + off;
}

/* 1 when binary operator cur is a plain assignment `=`. */
static int s_is_assign(const s_flow_t *f, CXCursor cur)
{
    CXCursor lhs = s_first_child(cur, 0);
    if (clang_Cursor_isNull(lhs))
        return 0;
    size_t off;
    if (tr_loc(f->c, clang_getRangeEnd(clang_getCursorExtent(lhs)), &off) != 1)
        return 0;
    off = tr_skip_trivia(f->c->text, f->c->len, off);
    return off + 1 < f->c->len && f->c->text[off] == '=' && f->c->text[off + 1] != '=';
}

/* 1 when unary operator cur is ++ or --. (An address taken is a write
 * only where it is passed to a call: s_call.) */
static int s_unary_writes(const s_flow_t *f, CXCursor cur)
{
    CXSourceRange r = clang_getCursorExtent(cur);
    const char *b = s_text_at(f, clang_getRangeStart(r));
    if (b && (strncmp(b, "++", 2) == 0 || strncmp(b, "--", 2) == 0))
        return 1;
    size_t e;
    if (tr_loc(f->c, clang_getRangeEnd(r), &e) != 1 || e < 2 || e > f->c->len)
        return 0;
    const char *t = f->c->text + e - 2;
    return strncmp(t, "++", 2) == 0 || strncmp(t, "--", 2) == 0;
}

/* 1 when passing an argument of type t (or binding parameter type t) may
 * let the callee write the argument's variable. */
static int s_may_write(CXType t)
{
    t = clang_getCanonicalType(t);
    switch (t.kind) {
    case CXType_Pointer:
    case CXType_LValueReference:
    case CXType_RValueReference:
        return !clang_isConstQualifiedType(clang_getPointeeType(t));
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
    case CXType_VariableArray:
        return 1;
    default:
        return 0;
    }
}

static void s_call(s_flow_t *f, int u, CXCursor call)
{
    CXCursor fn = clang_getCursorReferenced(call);
    int nfp = clang_Cursor_isNull(fn) ? -1 : clang_Cursor_getNumArguments(fn);
    int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n; i++) {
        /* The parameter's type when the callee declares it (a pointer to
         * const is no write), else the argument's (variadic, no prototype) */
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
        int w = i < nfp ? s_may_write(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)))
                        : s_may_write(clang_getCursorType(a));
        if (w)
            s_ref(f, u, s_base(f, a), WH_REF_WRITE);
    }
    CXCursor callee = s_first_child(call, 0);
    if (clang_getCursorKind(callee) == CXCursor_MemberRefExpr)
        s_ref(f, u, s_base(f, s_first_child(callee, 0)), WH_REF_WRITE);
}

static enum CXChildVisitResult s_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    s_flow_t *f = data;
    int u = s_owner(f, cur);
    if (u < 0)
        return CXChildVisit_Recurse;
    switch (clang_getCursorKind(cur)) {
    case CXCursor_VarDecl:
        s_ref(f, u, s_var(f, cur), WH_REF_DECL | WH_REF_WRITE);
        break;
    case CXCursor_DeclRefExpr: {
        size_t off;
        if (f->skip && tr_loc(f->c, clang_getCursorLocation(cur), &off) >= 0 && off + 1 == f->skip) {
            f->skip = 0; /* `x = ...`: x is stored to, not read */
            break;
        }
        s_ref(f, u, s_var(f, clang_getCursorReferenced(cur)), WH_REF_READ);
        break;
    }
    case CXCursor_CompoundAssignOperator:
        s_ref(f, u, s_base(f, s_first_child(cur, 0)), WH_REF_WRITE);
        break;
    case CXCursor_BinaryOperator:
        if (s_is_assign(f, cur)) {
            CXCursor lhs = s_first_child(cur, 0);
            s_ref(f, u, s_base(f, lhs), WH_REF_WRITE);
            size_t off;
            if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr &&
                tr_loc(f->c, clang_getCursorLocation(lhs), &off) >= 0)
                f->skip = off + 1;
        }
        break;
    case CXCursor_UnaryOperator:
        if (s_unary_writes(f, cur))
            s_ref(f, u, s_base(f, s_first_child(cur, 0)), WH_REF_WRITE);
        break;
    case CXCursor_CallExpr:
        s_call(f, u, cur);
        break;
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
        f->jump[u] |= WH_JUMP_LOOP;
        break;
    case CXCursor_ReturnStmt:
    case CXCursor_GotoStmt:
    case CXCursor_CXXThrowExpr:
        f->jump[u] |= WH_JUMP_FN;
        break;
    default:
        break;
    }
    return f->oom ? CXChildVisit_Break : CXChildVisit_Recurse;
}

void wh_flow_destroy(wh_flow_t **pf)
{
    if (!pf || !*pf)
        return;
    free((*pf)->first);
    free((*pf)->var);
    free((*pf)->how);
    free((*pf)->jump);
    free(*pf);
    *pf = NULL;
}

/* The refs grouped by unit (a counting sort), duplicates merged. */
static wh_flow_t *s_finish(s_flow_t *f, int n)
{
    wh_flow_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->nvars = f->nvars;
    w->first = calloc((size_t)n + 1, sizeof *w->first);
    w->var = malloc((size_t)(f->nrefs ? f->nrefs : 1) * sizeof *w->var);
    w->how = malloc((size_t)(f->nrefs ? f->nrefs : 1));
    w->jump = f->jump;
    if (!w->first || !w->var || !w->how) {
        w->jump = NULL;
        wh_flow_destroy(&w);
        return NULL;
    }
    f->jump = NULL;
    for (int i = 0; i < f->nrefs; i++)
        w->first[f->ru[i] + 1]++;
    for (int u = 0; u < n; u++)
        w->first[u + 1] += w->first[u];
    int *at = calloc((size_t)n + 1, sizeof *at);
    if (!at) {
        wh_flow_destroy(&w);
        return NULL;
    }
    for (int i = 0; i < f->nrefs; i++) {
        int u = f->ru[i], k = w->first[u], e = k + at[u], j;
        for (j = k; j < e && w->var[j] != f->rv[i]; j++)
            ;
        if (j < e) {
            w->how[j] |= f->rh[i];
            continue;
        }
        w->var[e] = f->rv[i];
        w->how[e] = f->rh[i];
        at[u]++;
    }
    /* Close the gaps merging left. */
    int o = 0;
    for (int u = 0; u < n; u++) {
        int k = w->first[u];
        w->first[u] = o;
        for (int j = 0; j < at[u]; j++, o++) {
            w->var[o] = w->var[k + j];
            w->how[o] = w->how[k + j];
        }
    }
    w->first[n] = o;
    free(at);
    return w;
}

int tr_flow(const tr_ctx_t *c, CXCursor body, const wh_unit_t *units, int n, size_t bb,
            size_t be, wh_flow_t **out)
{
    *out = NULL;
    if (be <= bb)
        return 0;
    s_flow_t f = {.c = c, .bb = bb, .be = be};
    f.owner = malloc((be - bb) * sizeof *f.owner);
    f.jump = calloc((size_t)(n ? n : 1), 1);
    if (!f.owner || !f.jump) {
        free(f.owner);
        free(f.jump);
        return WH_ENOMEM;
    }
    for (size_t i = 0; i < be - bb; i++)
        f.owner[i] = -1;
    /* Pre-order: a child's range overwrites its parent's. */
    for (int u = 0; u < n; u++)
        for (size_t o = units[u].begin; o < units[u].end && o < be; o++)
            if (o >= bb)
                f.owner[o - bb] = u;
    clang_visitChildren(body, s_visit, &f);
    wh_flow_t *w = f.oom ? NULL : s_finish(&f, n);
    free(f.owner);
    free(f.voff);
    free(f.ru);
    free(f.rv);
    free(f.rh);
    free(f.jump);
    if (!w)
        return WH_ENOMEM;
    *out = w;
    return 0;
}
