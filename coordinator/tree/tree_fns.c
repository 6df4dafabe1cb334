/*
 * tree_fns — finding the test functions of the main file (tree.h,
 * wh_tree_list): every function definition whose body braces are spelled in
 * the file, named after the framework macro that defines it (TEST,
 * START_TEST, Test, UTEST, ...) by reading the invocation its name expands from,
 * and marked as a test by its name or by a registration call (cmocka,
 * Unity, CUnit). Also the record of the macro invocations in the file, which
 * tree_cursor.c locates statements by.
 */
#define _GNU_SOURCE
#include "tree_int.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

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
/* utest.h (json.h's tests): UTEST(SET, NAME) spells the body of
 * utest_run_SET_NAME, UTEST_F(FIXTURE, NAME) that of utest_run_FIXTURE_NAME,
 * UTEST_I(FIXTURE, NAME, INDEX) that of a template of it; utest prints them
 * as "SET.NAME". The other functions an invocation defines (the
 * registration) have their bodies in the macro and are never seen here. */
static const char *const s_utest_macros[] = {"UTEST", "UTEST_F", "UTEST_I", NULL};

/* Records one function definition (cur) whose body is block. */
static void s_add_fn(tr_fns_t *fs, CXCursor cur, CXCursor block)
{
    const tr_ctx_t *c = fs->c;
    size_t noff = 0;
    int where = tr_loc(c, clang_getCursorLocation(cur), &noff);
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
        char *macro = tr_ident_at(c->text, c->len, noff);
        char **args = NULL;
        int na = macro ? tr_macro_args(c->text, c->len, noff, &args) : -1;
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
        } else if (s_in_list(macro, s_utest_macros) && na >= 2 &&
                   strncmp(spelling, "utest_run_", 10) == 0) {
            full = wh_strdup_printf("%s.%s", args[0], args[1]);
            shrt_at = strlen(args[0]) + 1;
            listed = 1;
        } else if (s_in_list(macro, s_check_macros) && na >= 1) {
            full = strdup(args[0]);
            listed = 1;
        } else {
            full = strdup(spelling);
            listed = s_istarts(spelling, "test");
        }
        tr_free_strv(args, na);
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
        tr_fn_t *nv = realloc(fs->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            free(full);
            free(spelling);
            fs->oom = 1;
            return;
        }
        fs->v = nv;
        fs->cap = cap;
    }
    fs->v[fs->n++] = (tr_fn_t){
        .full = full,
        .alias = spelling,
        .shrt = full + shrt_at,
        .listed = listed,
        .def_off = noff,
        .body = block,
    };
}

enum CXChildVisitResult tr_find_fns(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    tr_fns_t *fs = data;
    size_t off;
    enum CXCursorKind k = clang_getCursorKind(cur);
    if (tr_loc(fs->c, clang_getCursorLocation(cur), &off) < 0)
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
        tr_cursors_t cs;
        if (tr_children(cur, &cs) < 0) {
            fs->oom = 1;
            return CXChildVisit_Break;
        }
        for (int i = cs.n - 1; i >= 0; i--) {
            if (clang_getCursorKind(cs.v[i]) == CXCursor_CompoundStmt) {
                if (tr_is_file_block(fs->c, cs.v[i], NULL, NULL))
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

enum CXChildVisitResult tr_find_macros(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    tr_ctx_t *c = data;
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
        e = (unsigned)tr_invocation_end(c->text, c->len, b);
    if (c->nmac == c->capmac) {
        int cap = c->capmac ? c->capmac * 2 : 64;
        tr_macro_t *nv = realloc(c->mac, (size_t)cap * sizeof *nv);
        if (!nv) {
            c->oom = 1;
            return CXChildVisit_Break;
        }
        c->mac = nv;
        c->capmac = cap;
    }
    c->mac[c->nmac++] = (tr_macro_t){b, e};
    return CXChildVisit_Continue;
}

int tr_macro_cmp(const void *a, const void *b)
{
    const tr_macro_t *x = a, *y = b;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->e < y->e ? 1 : x->e > y->e ? -1 : 0;
}

void tr_fns_free(tr_fns_t *fs)
{
    for (int i = 0; i < fs->n; i++) {
        free(fs->v[i].full);
        free(fs->v[i].alias);
    }
    free(fs->v);
    fs->v = NULL;
    fs->n = fs->cap = 0;
}

/* aws-c-common's harness: AWS_TEST_CASE(name, fn) and
 * AWS_TEST_CASE_FIXTURE(name, setup, fn, teardown, ctx) register fn as the
 * test `name` (the name CTest and the test runner use), so fn is listed
 * under that name and still found by its own (the alias). */
static void s_name_registered(tr_fns_t *fs, const char *fn, const char *name)
{
    for (int i = 0; i < fs->n; i++) {
        tr_fn_t *f = &fs->v[i];
        if (strcmp(f->full, fn) != 0)
            continue;
        char *full = strdup(name);
        if (!full) {
            fs->oom = 1;
            return;
        }
        free(f->full);
        f->full = full;
        f->shrt = full;
        f->listed = 1;
        f->registered = 1;
    }
}

/* Plain C test functions are also those registered with a framework's
 * registration macro or call, even when their names do not start with
 * "test": cmocka_unit_test*(fn, ...), Unity's RUN_TEST(fn),
 * CU_add_test(suite, "name", fn), CU_ADD_TEST(suite, fn), and
 * aws-c-common's AWS_TEST_CASE (s_name_registered). */
void tr_mark_registered(tr_fns_t *fs)
{
    const char *t = fs->c->text;
    size_t len = fs->c->len, off = 0;
    while ((off = tr_skip_trivia(t, len, off)) < len) {
        size_t e = tr_token_end(t, len, off);
        if (!tr_is_ident_char(t[off]) || e - off < 7) {
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
        int aws = e - off == 13 && memcmp(t + off, "AWS_TEST_CASE", 13) == 0 ? 1
                  : e - off == 21 && memcmp(t + off, "AWS_TEST_CASE_FIXTURE", 21) == 0 ? 2
                                                                                     : 0;
        if (aws) {
            char **args = NULL;
            int na = tr_macro_args(t, len, off, &args);
            if (na > aws)
                s_name_registered(fs, args[aws], args[0]);
            if (na > 0)
                tr_free_strv(args, na);
        }
        if (argi >= 0) {
            char **args = NULL;
            int na = tr_macro_args(t, len, off, &args);
            if (na > argi) {
                for (int i = 0; i < fs->n; i++)
                    if (strcmp(fs->v[i].full, args[argi]) == 0)
                        fs->v[i].listed = 1;
            }
            if (na > 0)
                tr_free_strv(args, na);
        }
        off = e;
    }
}
