/*
 * tree_int — what the files of the tree module share. The module is tree.c
 * (the public entry, tree.h), tree_int.h, and one file per phase of
 * wh_tree_load / wh_tree_list:
 *   tree_parse.c   one parse of the file (tr_parse), its error diagnostics;
 *   tree_flags.c   the compile flags it is parsed with;
 *   tree_fns.c     its macro invocations and test functions;
 *   tree_units.c   the units of the chosen test function, and their lines;
 *   tree_cursor.c  libclang cursor helpers: locations, kinds, owned blocks;
 *   tree_flow.c    the body's data flow (wh_flow_t);
 *   tree_lex.c     a tiny lexer over the pristine text.
 * Private to coordinator/tree/tree*.c: nothing else includes it. The tr_
 * helpers keep no state of their own; each is documented at its
 * definition.
 */
#ifndef WH_TREE_INT_H
#define WH_TREE_INT_H

#include <stddef.h>

#include <clang-c/Index.h>

#include "tree.h"

/* ---- shared types ------------------------------------------------------ */

typedef struct {
    size_t b, e; /* [b, e): a macro invocation in the main file */
} tr_macro_t;

/* One parsed file, as the phases see it. */
typedef struct {
    CXTranslationUnit tu;
    CXFile main;
    const char *text;
    size_t len;
    int cxx;
    tr_macro_t *mac; /* sorted by b */
    int nmac, capmac;
    size_t *nl;      /* offsets of every '\n' in text, ascending */
    size_t nnl;
    int oom;
} tr_ctx_t;

typedef struct {
    CXCursor *v;
    int n, cap;
    int oom;
} tr_cursors_t;

/* The brace blocks a statement owns, in source order. members counts
 * those that are member function bodies of a local class (the statement's
 * kind is then "class", else "lambda" for a declaration or expression). */
typedef struct {
    CXCursor *v;
    int n, cap;
    int oom;
    int members;
    const tr_ctx_t *c;
} tr_blocks_t;

typedef struct {
    const tr_ctx_t *c;
    wh_unit_t *v;
    int n, cap;
} tr_units_t;

typedef struct {
    char *full;      /* resolved name: "Suite.Name", "suite::name", "name" */
    char *alias;     /* the function's own (expanded) name */
    const char *shrt;/* points into full: the part after the suite */
    int listed;      /* counts as a test for wh_tree_list */
    int registered;  /* full is the name a registration gave it (AWS_TEST_CASE) */
    size_t def_off;  /* offset of the definition (for ordering) */
    CXCursor body;
} tr_fn_t;

typedef struct {
    const tr_ctx_t *c;
    tr_fn_t *v;
    int n, cap;
    int oom;
} tr_fns_t;

typedef struct {
    char **v;
    int n, cap;
} tr_argv_t;

/* One error-level diagnostic of the parse. */
typedef struct {
    char *msg;      /* "file:line:col: error: message" */
    int missing;    /* an #include that was not found */
    int in_main;    /* located in the test file, at offset off */
    size_t off;
} tr_diag_t;

typedef struct {
    CXIndex index;
    tr_ctx_t c;
    char *text;
    size_t len;
    tr_fns_t fns;
    tr_diag_t *diags;
    int ndiags;
    tr_argv_t cc;         /* the real build's arguments, for wh_tree_t */
    int cc_exact, cc_clang;
} tr_parsed_t;

/* ---- tree_lex.c: the lexer over the pristine text ---------------------- */

size_t tr_skip_trivia(const char *t, size_t len, size_t off);
int tr_is_ident_char(char c);
size_t tr_token_end(const char *t, size_t len, size_t off);
size_t tr_invocation_end(const char *t, size_t len, size_t off);
char *tr_ident_at(const char *t, size_t len, size_t off);
int tr_macro_args(const char *t, size_t len, size_t off, char ***out);
void tr_free_strv(char **v, int n);

/* ---- tree_cursor.c: libclang helpers ----------------------------------- */

int tr_macro_at(const tr_ctx_t *c, size_t off);
int tr_loc(const tr_ctx_t *c, CXSourceLocation loc, size_t *off);
int tr_children(CXCursor cur, tr_cursors_t *cs);
int tr_is_file_block(const tr_ctx_t *c, CXCursor cur, size_t *b, size_t *e);
wh_stmt_kind_t tr_kind_of(CXCursor cur);
int tr_needs_semi(CXCursor cur);
void tr_owned_blocks(tr_blocks_t *bl, CXCursor cur);

/* ---- tree_units.c: building the units ---------------------------------- */

int tr_lines_build(tr_ctx_t *c);
size_t tr_stmt_end(const tr_ctx_t *c, CXSourceRange r);
int tr_add_block(tr_units_t *u, CXCursor block, int level, int parent);

/* ---- tree_flow.c: the body's data flow -------------------------------- */

int tr_flow(const tr_ctx_t *c, CXCursor body, const wh_unit_t *units, int n, size_t bb,
            size_t be, wh_flow_t **out);

/* ---- tree_fns.c: finding test functions -------------------------------- */

enum CXChildVisitResult tr_find_fns(CXCursor cur, CXCursor parent, CXClientData data);
enum CXChildVisitResult tr_find_macros(CXCursor cur, CXCursor parent, CXClientData data);
int tr_macro_cmp(const void *a, const void *b);
void tr_fns_free(tr_fns_t *fs);
void tr_mark_registered(tr_fns_t *fs);

/* ---- tree_flags.c: compile flags --------------------------------------- */

int tr_argv_push(tr_argv_t *a, const char *s);
void tr_argv_free(tr_argv_t *a);
int tr_is_cxx_path(const char *path);
int tr_is_werror(const char *arg);
int tr_build_args(const char *abs, const wh_tree_opts_t *opts, tr_argv_t *a, int *exact,
                  int *is_clang, char **err);

/* ---- tree_parse.c: parsing --------------------------------------------- */

void tr_parsed_free(tr_parsed_t *p);
const tr_diag_t *tr_hiding_diag(const tr_diag_t *v, int n, size_t b, size_t e);
char *tr_refusal(const tr_diag_t *d, const char *test);
int tr_parse(const char *file, const wh_tree_opts_t *opts, tr_parsed_t *p, char **err);

#endif
