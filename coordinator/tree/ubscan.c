/*
 * ubscan — the UB guard's reading of one parse. See ubscan.h.
 */
#define _GNU_SOURCE
#include "ubscan.h"
#include "ubarg.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

/* The options whose diagnostics are guarded (clang names the most specific
 * one: -Wsometimes-uninitialized, not -Wuninitialized). */
static const char *const s_guarded[] = {
    "-Wuninitialized", "-Wsometimes-uninitialized", "-Wconditional-uninitialized",
    "-Wreturn-type", "-Wuninitialized-const-reference", "-Wstatic-self-init", NULL,
};

const char *const wh_ubscan_warnings[] = {
    "-Wuninitialized", "-Wsometimes-uninitialized", "-Wconditional-uninitialized",
    "-Wreturn-type", NULL,
};

const char *const wh_ubscan_args[] = {
    "-ferror-limit=0",
    "-Wuninitialized", "-Wsometimes-uninitialized", "-Wconditional-uninitialized", "-Wreturn-type",
    "-Wno-error=uninitialized", "-Wno-error=sometimes-uninitialized",
    "-Wno-error=conditional-uninitialized", "-Wno-error=return-type", NULL,
};

void wh_ubscan_ids_clear(wh_ubscan_ids_t *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->id[i]);
    s->n = 0;
}

int wh_ubscan_ids_total(const wh_ubscan_ids_t *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->count[i];
    return n;
}

/* Adds one of id (taken); 0 when out of room or memory (then dropped). */
static int s_ids_add(wh_ubscan_ids_t *s, char *id)
{
    for (int i = 0; id && i < s->n; i++) {
        if (strcmp(s->id[i], id) == 0) {
            free(id);
            s->count[i]++;
            return 1;
        }
    }
    if (!id || s->n == WH_UBSCAN_MAX_IDS) {
        free(id);
        return 0;
    }
    s->id[s->n] = id;
    s->count[s->n++] = 1;
    return 1;
}

static int s_ids_count(const wh_ubscan_ids_t *s, const char *id)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->id[i], id) == 0)
            return s->count[i];
    return 0;
}

/* The name of the function a location is in ("" at file scope). */
static char *s_function_at(CXTranslationUnit tu, CXSourceLocation loc)
{
    CXCursor c = clang_getCursor(tu, loc);
    for (int depth = 0; depth < 64 && !clang_Cursor_isNull(c) &&
                        !clang_isTranslationUnit(clang_getCursorKind(c));
         depth++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
            k == CXCursor_Destructor || k == CXCursor_FunctionTemplate ||
            k == CXCursor_LambdaExpr) {
            CXString s = clang_getCursorSpelling(c);
            char *name = strdup(clang_getCString(s) ? clang_getCString(s) : "");
            clang_disposeString(s);
            return name;
        }
        c = clang_getCursorSemanticParent(c);
    }
    return strdup("");
}

/* Counts one guarded finding (option, function, message) at line:col. */
static void s_note(wh_ubscan_t *s, const char *opt, const char *fn, const char *msg,
                   unsigned line, unsigned col)
{
    char *id = wh_strdup_printf("%s|%s|%s", opt, fn, msg);
    if (id && s->against && !s->first_new)
        if (s_ids_count(&s->ids, id) + 1 > s_ids_count(s->against, id))
            s->first_new = wh_strdup_printf("%u:%u: %s [%s]", line, col, msg, opt);
    s_ids_add(&s->ids, id);
}

/* One read the front end does not warn about (ubarg.h). */
static void s_arg_found(void *ctx, const wh_ubarg_t *f)
{
    char *msg = wh_strdup_printf("variable '%s' is uninitialized when passed to '%s' through a "
                                 "pointer to const", f->var, f->callee);
    if (msg)
        s_note(ctx, WH_UBSCAN_CONST_ARG, f->function, msg, f->line, f->col);
    free(msg);
}

char *wh_ubscan_where(CXTranslationUnit tu, CXDiagnostic d)
{
    CXFile f = NULL;
    unsigned line = 0, col = 0;
    clang_getSpellingLocation(clang_getDiagnosticLocation(d), &f, &line, &col, NULL);
    CXString ts = clang_getTranslationUnitSpelling(tu);
    const char *main_name = clang_getCString(ts) ? clang_getCString(ts) : "";
    CXFile main = clang_getFile(tu, main_name);
    char *where;
    if (f && !(main && clang_File_isEqual(f, main))) {
        CXString fn = clang_getFileName(f);
        where = wh_strdup_printf("%s:%u:%u", clang_getCString(fn) ? clang_getCString(fn) : "?",
                                 line, col);
        clang_disposeString(fn);
    } else {
        where = wh_strdup_printf("%s:%u:%u", main_name, line, col);
    }
    clang_disposeString(ts);
    return where;
}

static void s_scan_one(CXTranslationUnit tu, CXDiagnostic d, wh_ubscan_t *s)
{
    CXSourceLocation loc = clang_getDiagnosticLocation(d);
    CXFile f = NULL;
    unsigned line = 0, col = 0;
    clang_getSpellingLocation(loc, &f, &line, &col, NULL);
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
    if (!f) {
        s->hard += sev == CXDiagnostic_Fatal;
        return; /* the driver, e.g. on an option it does not know */
    }
    CXString o = clang_getDiagnosticOption(d, NULL);
    const char *opt = clang_getCString(o);
    int hard = sev == CXDiagnostic_Fatal || (sev >= CXDiagnostic_Error && (!opt || !opt[0]));
    s->hard += hard;
    CXString sp = clang_getDiagnosticSpelling(d);
    const char *msg = clang_getCString(sp) ? clang_getCString(sp) : "";
    int guarded = 0;
    for (int i = 0; opt && s_guarded[i]; i++)
        guarded |= strcmp(opt, s_guarded[i]) == 0;
    if (hard && !guarded && !s->error) {
        char *where = wh_ubscan_where(tu, d);
        s->error = where ? wh_strdup_printf("%s: %s", where, msg) : NULL;
        free(where);
    } else if (guarded) {
        char *fn = s_function_at(tu, loc);
        s_note(s, opt, fn ? fn : "", msg, line, col);
        free(fn);
    }
    clang_disposeString(sp);
    clang_disposeString(o);
}

void wh_ubscan_run(CXTranslationUnit tu, wh_ubscan_t *s)
{
    unsigned n = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        s_scan_one(tu, d, s);
        clang_disposeDiagnostic(d);
    }
    wh_ubarg_run(tu, s_arg_found, s);
}

void wh_ubscan_free(wh_ubscan_t *s)
{
    wh_ubscan_ids_clear(&s->ids);
    free(s->error);
    free(s->first_new);
    s->error = s->first_new = NULL;
}
