/*
 * mutagen — mutation points from libclang's AST. This is the second module
 * that includes libclang headers (besides tree): mutation needs the
 * operator and condition nodes of library code, which the tree module (a
 * statement hierarchy of one test function) does not model; keeping the
 * walk here leaves tree.c's contract unchanged. See mutagen.h.
 */
#include "mutagen.h"
#include "clang_index.h"

#include "wh_common.h"

#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *text;
    size_t text_len;
    unsigned ops;
    wh_mutant_list_t *out;
    int oom;
} s_walk_t;

static const struct {
    const char *from, *to, *op;
} s_swaps[] = {
    {"<", "<=", "ROR"}, {"<=", "<", "ROR"}, {">", ">=", "ROR"}, {">=", ">", "ROR"},
    {"==", "!=", "ROR"}, {"!=", "==", "ROR"}, {"+", "-", "AOR"}, {"-", "+", "AOR"},
    {"*", "/", "AOR"}, {"/", "*", "AOR"}, {"%", "*", "AOR"}, {"&&", "||", "LCR"},
    {"||", "&&", "LCR"},
};

static unsigned s_bit(const char *op)
{
    return !strcmp(op, "ROR") ? WH_MUT_ROR : !strcmp(op, "AOR") ? WH_MUT_AOR
         : !strcmp(op, "LCR") ? WH_MUT_LCR : !strcmp(op, "IN") ? WH_MUT_IN : WH_MUT_RV;
}

unsigned wh_mutagen_parse_ops(const char *list)
{
    unsigned bits = 0;
    char *copy = strdup(list);
    for (char *save = NULL, *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "ROR") && strcmp(t, "AOR") && strcmp(t, "LCR") && strcmp(t, "IN") && strcmp(t, "RV")) {
            free(copy);
            return 0;
        }
        bits |= s_bit(t);
    }
    free(copy);
    return bits;
}

void wh_mutant_list_free(wh_mutant_list_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].before), free(l->v[i].after);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static unsigned s_line(const s_walk_t *w, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off && i < w->text_len; i++)
        line += w->text[i] == '\n';
    return line;
}

static void s_add(s_walk_t *w, const char *op, size_t off, size_t len, const char *after)
{
    if (!(w->ops & s_bit(op)) || off + len > w->text_len)
        return;
    if (w->out->n == w->out->cap) {
        size_t nc = w->out->cap ? w->out->cap * 2 : 32;
        wh_mutant_t *v = realloc(w->out->v, nc * sizeof *v);
        if (!v) {
            w->oom = 1;
            return;
        }
        w->out->v = v, w->out->cap = nc;
    }
    wh_mutant_t *m = &w->out->v[w->out->n];
    m->op = op, m->off = off, m->len = len, m->line = s_line(w, off);
    m->before = strndup(w->text + off, len);
    m->after = strdup(after);
    if (!m->before || !m->after) {
        free(m->before), free(m->after);
        w->oom = 1;
        return;
    }
    w->out->n++;
}

/* Byte range of a cursor in the main file; 0 when it is not there or comes
 * from a macro (spelling and expansion differ). */
static int s_range(CXCursor c, size_t *b, size_t *e)
{
    CXSourceRange r = clang_getCursorExtent(c);
    CXSourceLocation lb = clang_getRangeStart(r), le = clang_getRangeEnd(r);
    if (!clang_Location_isFromMainFile(lb) || !clang_Location_isFromMainFile(le))
        return 0;
    unsigned ob, oe, sb, se;
    clang_getExpansionLocation(lb, NULL, NULL, NULL, &ob);
    clang_getExpansionLocation(le, NULL, NULL, NULL, &oe);
    clang_getSpellingLocation(lb, NULL, NULL, NULL, &sb);
    clang_getSpellingLocation(le, NULL, NULL, NULL, &se);
    if (ob != sb || oe != se || oe <= ob)
        return 0;
    *b = ob, *e = oe;
    return 1;
}

typedef struct {
    CXCursor kids[3];
    int n;
} s_kids_t;

static enum CXChildVisitResult s_kid(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    s_kids_t *k = d;
    if (k->n < 3)
        k->kids[k->n] = c;
    k->n++;
    return CXChildVisit_Continue;
}

/* The operator between the two operands of a binary expression. */
static void s_binary(s_walk_t *w, CXCursor c)
{
    s_kids_t k = {0};
    clang_visitChildren(c, s_kid, &k);
    size_t lb, le, rb, re;
    if (k.n != 2 || !s_range(k.kids[0], &lb, &le) || !s_range(k.kids[1], &rb, &re) || le > rb)
        return;
    size_t ob = le, oe = rb;
    while (ob < oe && (w->text[ob] == ' ' || w->text[ob] == '\t' || w->text[ob] == '\n'))
        ob++;
    while (oe > ob && (w->text[oe - 1] == ' ' || w->text[oe - 1] == '\t' || w->text[oe - 1] == '\n'))
        oe--;
    for (size_t i = 0; i < sizeof s_swaps / sizeof s_swaps[0]; i++)
        if (strlen(s_swaps[i].from) == oe - ob && !strncmp(w->text + ob, s_swaps[i].from, oe - ob))
            s_add(w, s_swaps[i].op, ob, oe - ob, s_swaps[i].to);
}

/* if/while: the condition (first child) becomes !(cond). */
static void s_negate(s_walk_t *w, CXCursor c)
{
    s_kids_t k = {0};
    clang_visitChildren(c, s_kid, &k);
    size_t b, e;
    if (k.n < 2 || !s_range(k.kids[0], &b, &e))
        return;
    char *after = wh_strdup_printf("!(%.*s)", (int)(e - b), w->text + b);
    if (!after) {
        w->oom = 1;
        return;
    }
    s_add(w, "IN", b, e - b, after);
    free(after);
}

static void s_return(s_walk_t *w, CXCursor c)
{
    s_kids_t k = {0};
    clang_visitChildren(c, s_kid, &k);
    size_t b, e;
    if (k.n != 1 || !s_range(k.kids[0], &b, &e))
        return;
    s_add(w, "RV", b, e - b, e - b == 1 && w->text[b] == '0' ? "1" : "0");
}

static enum CXChildVisitResult s_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    s_walk_t *w = d;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    switch (clang_getCursorKind(c)) {
    case CXCursor_BinaryOperator:
        s_binary(w, c);
        break;
    case CXCursor_IfStmt:
    case CXCursor_WhileStmt:
        s_negate(w, c);
        break;
    case CXCursor_ReturnStmt:
        s_return(w, c);
        break;
    default:
        break;
    }
    return w->oom ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int s_by_offset(const void *a, const void *b)
{
    const wh_mutant_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off ? 1 : strcmp(x->op, y->op);
}

int wh_mutagen_scan(const char *file, unsigned ops, const char *const *args, int nargs,
                    wh_mutant_list_t *out, char **err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = wh_read_file(file, 16u << 20, &text, &len);
    if (rc < 0) {
        *err = wh_strdup_printf("cannot read '%s': %s", file, wh_strerror(rc));
        return rc;
    }
    CXIndex idx = wh_clang_index();
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(idx, file, args, nargs, NULL, 0,
                                                      CXTranslationUnit_None, &tu);
    rc = 0;
    for (unsigned i = 0; tu && ec == CXError_Success && i < clang_getNumDiagnostics(tu); i++) {
        CXDiagnostic dg = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error && rc == 0) {
            CXString s = clang_formatDiagnostic(dg, CXDiagnostic_DisplaySourceLocation);
            *err = wh_strdup_printf("%s", clang_getCString(s));
            clang_disposeString(s);
            rc = WH_EPARSE;
        }
        clang_disposeDiagnostic(dg);
    }
    if (ec != CXError_Success || !tu) {
        *err = wh_strdup_printf("libclang cannot parse '%s'", file);
        rc = WH_EPARSE;
    }
    size_t first = out->n;
    if (rc == 0) {
        s_walk_t w = {text, len, ops, out, 0};
        clang_visitChildren(clang_getTranslationUnitCursor(tu), s_visit, &w);
        if (w.oom) {
            *err = strdup("out of memory");
            rc = WH_ENOMEM;
        }
        qsort(out->v + first, out->n - first, sizeof *out->v, s_by_offset);
    }
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    free(text);
    return rc;
}
