/*
 * tree_parse — one parse of a test file (tr_parse): read it, build its
 * flags, parse it with libclang, collect its error diagnostics, record its
 * macro invocations and find its test functions. The result (tr_parsed_t)
 * is what wh_tree_load and wh_tree_list start from; tr_hiding_diag and
 * tr_refusal let them refuse a parse whose errors may hide statements.
 */
#define _GNU_SOURCE
#include "clang_index.h"
#include "tree_int.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

/* Test files are small; anything bigger than this is not a unit test. */
#define S_MAX_FILE (16u << 20)

static void s_diags_free(tr_diag_t *d, int n)
{
    for (int i = 0; i < n; i++)
        free(d[i].msg);
    free(d);
}

void tr_parsed_free(tr_parsed_t *p)
{
    tr_fns_free(&p->fns);
    s_diags_free(p->diags, p->ndiags);
    tr_argv_free(&p->cc);
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
static int s_collect_diags(CXTranslationUnit tu, const char *file, CXFile main, tr_diag_t **out,
                           int *nout)
{
    unsigned n = clang_getNumDiagnostics(tu);
    tr_diag_t *v = calloc(n ? n : 1, sizeof *v);
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
const tr_diag_t *tr_hiding_diag(const tr_diag_t *v, int n, size_t b, size_t e)
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
char *tr_refusal(const tr_diag_t *d, const char *test)
{
    if (d->missing)
        return wh_strdup_printf("%s; what depends on it would be missing from the statement tree: "
                                S_FIX, d->msg);
    if (test)
        return wh_strdup_printf("%s (in test '%s'); the statement tree may be incomplete: " S_FIX,
                                d->msg, test);
    return wh_strdup_printf("%s; " S_FIX, d->msg);
}

int tr_parse(const char *file, const wh_tree_opts_t *opts, tr_parsed_t *p, char **err)
{
    memset(p, 0, sizeof *p);
    int rc = wh_read_file(file, S_MAX_FILE, &p->text, &p->len);
    if (rc < 0) {
        *err = wh_strdup_printf("cannot read '%s': %s", file, wh_strerror(rc));
        return rc;
    }
    char *abs = wh_abspath(file);
    tr_argv_t a = {0};
    if (!abs) {
        rc = WH_ENOMEM;
        goto fail;
    }
    rc = tr_build_args(abs, opts, &p->cc, &p->cc_exact, &p->cc_clang, err);
    /* The tree's own parse: the same without the build's -Werror. */
    int nuser = opts ? opts->nargs : 0;
    for (int i = 0; rc == 0 && i < p->cc.n; i++)
        if (i >= p->cc.n - nuser || !tr_is_werror(p->cc.v[i]))
            rc = tr_argv_push(&a, p->cc.v[i]);
    if (rc < 0)
        goto fail;
    p->index = wh_clang_index();
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
    if (tr_lines_build(&p->c) < 0) {
        rc = WH_ENOMEM;
        goto fail;
    }
    p->c.cxx = tr_is_cxx_path(abs);
    for (int i = 0; i < a.n; i++)
        if (strcmp(a.v[i], "c++") == 0 || strncmp(a.v[i], "-std=c++", 8) == 0 ||
            strncmp(a.v[i], "-std=gnu++", 10) == 0)
            p->c.cxx = 1;
    clang_visitChildren(clang_getTranslationUnitCursor(p->c.tu), tr_find_macros, &p->c);
    if (p->c.oom) {
        rc = WH_ENOMEM;
        goto fail;
    }
    if (p->c.nmac > 1)
        qsort(p->c.mac, (size_t)p->c.nmac, sizeof *p->c.mac, tr_macro_cmp);
    /* Keep the widest invocation per start: the outermost one. */
    int k = 0;
    for (int i = 0; i < p->c.nmac; i++)
        if (k == 0 || p->c.mac[k - 1].b != p->c.mac[i].b)
            p->c.mac[k++] = p->c.mac[i];
    p->c.nmac = k;
    p->fns.c = &p->c;
    clang_visitChildren(clang_getTranslationUnitCursor(p->c.tu), tr_find_fns, &p->fns);
    if (p->fns.oom) {
        rc = WH_ENOMEM;
        goto fail;
    }
    tr_mark_registered(&p->fns);
    tr_argv_free(&a);
    free(abs);
    return 0;
fail:
    if (rc == WH_ENOMEM && !*err)
        *err = wh_strdup_printf("%s: out of memory", file);
    tr_argv_free(&a);
    free(abs);
    tr_parsed_free(p);
    return rc;
}
