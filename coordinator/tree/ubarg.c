/*
 * ubarg — an uninitialized local given to a `const T *` parameter. See
 * ubarg.h.
 *
 * Each block of a function is looked at once per local it declares
 * without an initialiser; the search for its first reference stops at the
 * first reference (almost always a statement or two below), so the cost is
 * a small multiple of the function bodies' size, on every candidate the
 * guard parses.
 */
#define _GNU_SOURCE
#include "ubarg.h"

#include <stdlib.h>
#include <string.h>

/* Deeper expressions or blocks are not looked into (their reads are not
 * flagged; nothing is flagged wrongly). */
#define S_MAX_DEPTH 200
/* Reads through a const pointer remembered per scan; more are not flagged. */
#define S_MAX_USES 32

typedef struct {
    CXCursor *v;
    int n, cap;
    int oom;
} s_cursors_t;

static enum CXChildVisitResult s_collect(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    s_cursors_t *l = d;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        CXCursor *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            l->oom = 1;
            return CXChildVisit_Break;
        }
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = c;
    return CXChildVisit_Continue;
}

/* The direct children of c (l->v freed by the caller). */
static void s_children(CXCursor c, s_cursors_t *l)
{
    memset(l, 0, sizeof *l);
    clang_visitChildren(c, s_collect, l);
}

/* The last expression among c's children, or a null cursor. */
static CXCursor s_sub_expr(CXCursor c)
{
    s_cursors_t l;
    s_children(c, &l);
    CXCursor sub = clang_getNullCursor();
    for (int i = 0; i < l.n; i++)
        if (clang_isExpression(clang_getCursorKind(l.v[i])))
            sub = l.v[i];
    free(l.v);
    return sub;
}

/* c without parentheses and casts (implicit ones are unexposed). */
static CXCursor s_strip(CXCursor c)
{
    for (int i = 0; i < 16; i++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr && k != CXCursor_CStyleCastExpr)
            break;
        CXCursor sub = s_sub_expr(c);
        if (clang_Cursor_isNull(sub))
            break;
        c = sub;
    }
    return c;
}

static int s_is_var_ref(CXCursor c, CXCursor var)
{
    return clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
           clang_equalCursors(clang_getCursorReferenced(c), var);
}

static int s_is_pointer_or_array(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Pointer || t.kind == CXType_ConstantArray ||
           t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray;
}

/* 1 when argument i of call goes to a prototyped parameter of type
 * pointer to const (not a variadic one). */
static int s_param_is_const_ptr(CXCursor call, unsigned i)
{
    CXCursor callee = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(callee))
        return 0;
    CXType ft = clang_getCanonicalType(clang_getCursorType(callee));
    if (ft.kind == CXType_Pointer)
        ft = clang_getCanonicalType(clang_getPointeeType(ft));
    if (ft.kind != CXType_FunctionProto)
        return 0;
    int n = clang_getNumArgTypes(ft);
    if (n < 0 || i >= (unsigned)n)
        return 0;
    CXType pt = clang_getCanonicalType(clang_getArgType(ft, i));
    return pt.kind == CXType_Pointer && clang_isConstQualifiedType(clang_getPointeeType(pt));
}

/* The reference to var that argument a reads through a const pointer
 * parameter: `&var`, or `var` when it is a pointer or an array; a null
 * cursor when a is something else. */
static CXCursor s_arg_read(CXCursor a, CXCursor var)
{
    a = s_strip(a);
    if (s_is_var_ref(a, var))
        return s_is_pointer_or_array(clang_getCursorType(var)) ? a : clang_getNullCursor();
    if (clang_getCursorKind(a) != CXCursor_UnaryOperator)
        return clang_getNullCursor();
    /* `&x` is the one unary operator whose type points to its operand's. */
    CXType t = clang_getCanonicalType(clang_getCursorType(a));
    CXCursor sub = s_sub_expr(a);
    while (clang_getCursorKind(sub) == CXCursor_ParenExpr)
        sub = s_sub_expr(sub);
    if (t.kind != CXType_Pointer || !s_is_var_ref(sub, var))
        return clang_getNullCursor();
    CXType operand = clang_getCanonicalType(clang_getCursorType(sub));
    return clang_equalTypes(clang_getCanonicalType(clang_getPointeeType(t)), operand)
               ? sub
               : clang_getNullCursor();
}

typedef struct {
    CXCursor var;
    CXCursor use[S_MAX_USES]; /* references read through a const pointer */
    CXCursor call[S_MAX_USES];
    int nuse;
    int done;          /* the first reference (or a stop) was seen */
    int flagged;       /* ... and it is a read */
    CXCursor at, callee;
    int loops;         /* loops around the walk's point, below where it started */
    CXCursor loop;     /* the outermost of them */
} s_scan_t;

static int s_is_use(const s_scan_t *s, CXCursor ref)
{
    for (int i = 0; i < s->nuse; i++)
        if (clang_equalCursors(s->use[i], ref))
            return i;
    return -1;
}

/* Remembers the arguments of call that read var through a const pointer. */
static void s_note_call(s_scan_t *s, CXCursor call)
{
    int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n && s->nuse < S_MAX_USES; i++) {
        CXCursor ref = s_arg_read(clang_Cursor_getArgument(call, (unsigned)i), s->var);
        if (!clang_Cursor_isNull(ref) && s_param_is_const_ptr(call, (unsigned)i)) {
            s->use[s->nuse] = ref;
            s->call[s->nuse++] = call;
        }
    }
}

static int s_is_loop(enum CXCursorKind k)
{
    return k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
           k == CXCursor_CXXForRangeStmt;
}

/* 1 when every reference to var inside c is a read through a const
 * pointer (s->use grows with the calls seen). */
static int s_only_reads(s_scan_t *s, CXCursor c, int depth)
{
    if (depth > S_MAX_DEPTH)
        return 0;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr)
        s_note_call(s, c);
    if (s_is_var_ref(c, s->var))
        return s_is_use(s, c) >= 0;
    s_cursors_t l;
    s_children(c, &l);
    int ok = !l.oom;
    for (int i = 0; ok && i < l.n; i++)
        ok = s_only_reads(s, l.v[i], depth + 1);
    free(l.v);
    return ok;
}

/* Walks c in source order until the first reference to s->var. */
static void s_walk(s_scan_t *s, CXCursor c, int depth)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (depth > S_MAX_DEPTH || k == CXCursor_LabelStmt || k == CXCursor_CaseStmt ||
        k == CXCursor_DefaultStmt) {
        s->done = 1; /* a jump may land here having written it */
        return;
    }
    if (k == CXCursor_CallExpr)
        s_note_call(s, c);
    if (s_is_var_ref(c, s->var)) {
        int u = s_is_use(s, c);
        s->done = 1;
        if (u >= 0 && s->loops) {
            /* The first reference in the loop's text need not be the first
             * one run, unless every reference in it reads. */
            s_scan_t all = {.var = s->var};
            s->flagged = s_only_reads(&all, s->loop, 0);
        } else {
            s->flagged = u >= 0;
        }
        if (s->flagged) {
            s->at = c;
            s->callee = s->call[u];
        }
        return;
    }
    int loop = s_is_loop(k);
    if (loop && s->loops++ == 0)
        s->loop = c;
    s_cursors_t l;
    s_children(c, &l);
    if (l.oom)
        s->done = 1;
    for (int i = 0; !s->done && i < l.n; i++)
        s_walk(s, l.v[i], depth + 1);
    free(l.v);
    s->loops -= loop;
}

/* 1 when c mentions var anywhere. */
static int s_mentions(CXCursor c, CXCursor var, int depth)
{
    if (depth > S_MAX_DEPTH || s_is_var_ref(c, var))
        return 1;
    s_cursors_t l;
    s_children(c, &l);
    int hit = l.oom;
    for (int i = 0; !hit && i < l.n; i++)
        hit = s_mentions(l.v[i], var, depth + 1);
    free(l.v);
    return hit;
}

static char *s_spelling(CXCursor c)
{
    CXString s = clang_getCursorSpelling(c);
    const char *t = clang_getCString(s);
    char *r = strdup(t ? t : "");
    clang_disposeString(s);
    return r;
}

typedef struct {
    CXCursor fn;
    void (*found)(void *ctx, const wh_ubarg_t *f);
    void *ctx;
} s_fn_t;

/* One local of the block's statement stmts[i] (a declaration). */
static void s_local(const s_fn_t *f, CXCursor var, const s_cursors_t *stmts, int i)
{
    if (!clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(var)) ||
        clang_Cursor_hasVarDeclGlobalStorage(var) == 1 ||
        clang_Cursor_getStorageClass(var) == CX_SC_Extern)
        return;
    /* `int a, *p = &a;`: the declaration itself uses it. */
    s_cursors_t decls;
    s_children(stmts->v[i], &decls);
    int used = decls.oom;
    for (int d = 0; !used && d < decls.n; d++)
        used = !clang_equalCursors(decls.v[d], var) && s_mentions(decls.v[d], var, 0);
    free(decls.v);
    s_scan_t s = {.var = var};
    for (int k = i + 1; !used && !s.done && k < stmts->n; k++)
        s_walk(&s, stmts->v[k], 0);
    if (used || !s.flagged)
        return;
    CXFile file = NULL;
    unsigned line = 0, col = 0;
    clang_getExpansionLocation(clang_getCursorLocation(s.at), &file, &line, &col, NULL);
    char *fn = s_spelling(f->fn), *vn = s_spelling(var), *cn = s_spelling(s.callee);
    if (fn && vn && cn) {
        wh_ubarg_t r = {fn, vn, cn, line, col};
        f->found(f->ctx, &r);
    }
    free(fn);
    free(vn);
    free(cn);
}

/* Every block under c (c included), each local it declares. */
static void s_blocks(const s_fn_t *f, CXCursor c, int depth)
{
    if (depth > S_MAX_DEPTH)
        return;
    s_cursors_t l;
    s_children(c, &l);
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt) {
        for (int i = 0; i < l.n; i++) {
            if (clang_getCursorKind(l.v[i]) != CXCursor_DeclStmt)
                continue;
            s_cursors_t vars;
            s_children(l.v[i], &vars);
            for (int v = 0; v < vars.n; v++)
                if (clang_getCursorKind(vars.v[v]) == CXCursor_VarDecl)
                    s_local(f, vars.v[v], &l, i);
            free(vars.v);
        }
    }
    for (int i = 0; i < l.n; i++)
        s_blocks(f, l.v[i], depth + 1);
    free(l.v);
}

typedef struct {
    void (*found)(void *ctx, const wh_ubarg_t *f);
    void *ctx;
} s_tu_t;

static enum CXChildVisitResult s_top(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    const s_tu_t *t = d;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
        return CXChildVisit_Recurse;
    if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
         k == CXCursor_Destructor) &&
        clang_isCursorDefinition(c)) {
        s_fn_t f = {c, t->found, t->ctx};
        s_blocks(&f, c, 0);
    }
    return CXChildVisit_Continue;
}

void wh_ubarg_run(CXTranslationUnit tu, void (*found)(void *ctx, const wh_ubarg_t *f),
                  void *ctx)
{
    s_tu_t t = {found, ctx};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), s_top, &t);
}
