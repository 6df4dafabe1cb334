/*
 * tree — the statement hierarchy of one test function, built with libclang.
 * This is the only module that includes libclang headers.
 *
 * Units (DESIGN.md, "Statement tree"): statements directly inside a brace
 * block `{...}` whose braces are spelled in the test file. A statement that
 * comes from a macro invocation is one NonTree unit located by its expansion
 * range (never descend into a macro body). Braceless bodies (`if (x) return;`)
 * are not units of their own. An expression statement's range includes its
 * terminating `;`. Tree statements: if/else, for, while, do, switch, nested
 * blocks; in C++ also try/catch, range-for, statements holding a lambda with
 * a block body, and declarations of a local class or struct whose member
 * functions have brace bodies spelled in the file. Their child units are the
 * units in the blocks they own (then-block, else-block, catch blocks, lambda
 * bodies, member function bodies, ...).
 *
 * Test functions are found by name, including framework macros that define
 * them: plain/cmocka functions `void name(void **state)`, Check
 * `START_TEST(name)`, GoogleTest `TEST(Suite, Name)` / `TEST_F` / `TEST_P`
 * (accepted as "Suite.Name" or "Name"), CUnit/Unity plain functions,
 * Criterion `Test(suite, name)`, utest.h `UTEST(set, name)` ("set.name").
 */
#ifndef WH_TREE_H
#define WH_TREE_H

#include <stddef.h>
#include <stdio.h>

#include "compdb.h"

typedef enum {
    WH_STMT_EXPR = 0,  /* expression / call / assignment / return / other leaf */
    WH_STMT_DECL,      /* declaration */
    WH_STMT_MACRO,     /* macro invocation (always NonTree) */
    WH_STMT_IF,
    WH_STMT_FOR,
    WH_STMT_WHILE,
    WH_STMT_DO,
    WH_STMT_SWITCH,
    WH_STMT_BLOCK,     /* nested compound statement */
    WH_STMT_TRY,
    WH_STMT_RANGE_FOR,
    WH_STMT_LAMBDA,    /* statement holding a lambda with a block body */
    WH_STMT_CLASS,     /* declaration of a local class with member function bodies */
    WH_STMT_OTHER,
} wh_stmt_kind_t;

/* One unit. Value type. */
typedef struct {
    int parent;          /* index of the enclosing unit, -1 at level 0 */
    int level;           /* 0 = directly in the test function's body */
    int is_tree;         /* 1 when the unit has child units */
    wh_stmt_kind_t kind;
    size_t begin, end;   /* byte range [begin, end) in text; `;` included */
    unsigned line;       /* 1-based line of begin */
} wh_unit_t;

/* The data flow of the test body (tree_flow.c), for the walk's
 * expectations only (walk/prior.h), never its answer: each unit's
 * references to the body's local variables (ids 0 .. nvars-1) in its own
 * part (its extent less its child units'), each a WH_REF_* set, and the
 * jumps its own part holds. Approximate: no aliases, no globals. */
enum { WH_REF_READ = 1, WH_REF_WRITE = 2, WH_REF_DECL = 4 };
enum { WH_JUMP_LOOP = 1, /* break, continue */ WH_JUMP_FN = 2 /* return, goto, throw */ };
typedef struct {
    int nvars;
    int *first;          /* n + 1: unit u's refs are var[first[u] .. first[u+1]) */
    int *var;
    unsigned char *how;  /* WH_REF_* bits, per ref */
    unsigned char *jump; /* n: WH_JUMP_* bits, per unit */
} wh_flow_t;

void wh_flow_destroy(wh_flow_t **f);

/* The statement tree of one test function. Units are in pre-order: a parent
 * comes before its children, siblings in source order. Owned by the caller;
 * free with wh_tree_destroy. */
typedef struct {
    char *path;          /* the file as given */
    char *text;          /* pristine file content (NUL-terminated) */
    size_t text_len;
    char *test;          /* the resolved test name (e.g. "Suite.Name") */
    /* The function's own name when a registration runs it under another
     * (aws-c-common's AWS_TEST_CASE(test, fn): fn, which its harness prints
     * where test is what it is run by); NULL otherwise. */
    char *fn;
    size_t body_begin;   /* offset of the body's '{' */
    size_t body_end;     /* offset just past the body's '}' */
    int n;
    wh_unit_t *units;
    /* With opts->allow_errors: the first parse error that may hide
     * statements (a header not found, an error inside the test function),
     * "file:line:col: error: message"; NULL when the parse was clean. */
    char *diag;
    /* The compile arguments the file was parsed with, as the real build has
     * them (-Werror kept; no compiler, input, output or dependency-file
     * options), NULL-terminated, for the precheck. cc_exact: they hold the
     * file's own command (opts->cmd, or its compile_commands.json entry);
     * cc_clang: that command's compiler is clang. */
    char **cc_args;
    int cc_nargs;
    int cc_exact, cc_clang;
    /* The body's data flow; NULL for a tree not made by wh_tree_load. */
    wh_flow_t *flow;
} wh_tree_t;

typedef struct {
    /* Folder with compile_commands.json, or NULL to search upward from the
     * file's folder (and its `build/` subfolders). */
    const char *compdb_dir;
    /* Extra compiler arguments (after `--` on the command line). */
    const char *const *args;
    int nargs;
    /* The test file's exact compile command (the warm workspace's, moved to
     * the project: compdb.h); when set, compdb_dir is not searched and args
     * are appended to it. */
    const wh_compile_cmd_t *cmd;
    /* WH_TREE_ALLOW_ERRORS: a parse error that may hide statements does not
     * fail the load; it is kept in wh_tree_t.diag instead.
     * WH_TREE_ALLOW_MISSING_HEADERS: only a header that is not found is
     * allowed (flags still to come, e.g. from the warm workspace); other
     * errors fail. 0: every such error fails the load. */
    int allow_errors;
    /* The folder a relative path in args names a file under (the project,
     * as --file is): "-Iinclude", "-isystem x", "-include cfg.h" and the
     * other path options are made absolute against it, or against the
     * current folder when the path exists only there; NULL: as given (the
     * current folder, or the compile command's directory). */
    const char *base;
} wh_tree_opts_t;

enum { WH_TREE_ALLOW_ERRORS = 1, WH_TREE_ALLOW_MISSING_HEADERS = 2 };

/* Parses file and builds the tree of test function `test`. Compile flags:
 * the file's entry in compile_commands.json (opts->compdb_dir, or found by
 * searching upward from the file's folder, checking each folder and its
 * `build/` subfolder; the first database found is used). Without an entry,
 * the flags of an entry for another file in the same folder (same language
 * preferred); else defaults (C++ files: -x c++ -std=c++17). Output, -c,
 * dependency-file and input arguments are dropped (and -Werror, for this
 * parse only: it is kept in cc_args); the entry's
 * directory becomes libclang's working directory; opts->args are appended.
 * opts may be NULL; opts->cmd replaces the database search.
 * Parse errors: a header that is not found (anywhere) or an error-level
 * diagnostic inside the test function fails the load with WH_EPARSE and a
 * message naming it ("file:line:col: error: 'x.h' file not found")
 * and the fix (-p BUILD_DIR, -- -I..., --allow-parse-errors), because
 * libclang drops what it cannot resolve and statements would vanish from
 * the tree; with opts->allow_errors it is kept in t->diag instead. Errors
 * elsewhere in the file do not touch the test's statements and are ignored.
 * Thread-safe: each call creates its own CXIndex. On error returns
 * a negative WH_E* code and sets *err to a malloc'ed one-line message that
 * names the problem and the input (for an unknown test: lists the test names
 * the file defines; when the parse had an error that is not allowed, anywhere
 * in the file, since the test's macro may hide behind it, it fails with
 * WH_EPARSE and names that error too). */
int wh_tree_load(const char *file, const char *test, const wh_tree_opts_t *opts,
                 wh_tree_t **out, char **err);

/* Lists the test functions the file defines (framework macros included),
 * in source order, by resolved name. A function counts as a test when its
 * body braces are spelled in the file and
 *   - it is defined by TEST/TEST_F/TEST_P/GTEST_TEST/TYPED_TEST/TYPED_TEST_P
 *     ("Suite.Name"), Check's START_TEST ("name"), Criterion's Test
 *     ("suite::name") or ParameterizedTest/Theory ("suite::name"), utest.h's
 *     UTEST/UTEST_F/UTEST_I ("set.name", the function utest_run_set_name), or
 *   - its name starts with "test" (any case), or
 *   - it is registered in the file with cmocka_unit_test*(fn, ...),
 *     Unity's RUN_TEST(fn), CUnit's CU_add_test(s, "n", fn) / CU_ADD_TEST(s, fn).
 * wh_tree_load accepts any function defined in the file, listed or not, by
 * its resolved name, its own (expanded) function name (e.g. Check's
 * "name_fn"), or the name without the suite when exactly one test has it.
 * *names is a malloc'ed, NULL-terminated array of malloc'ed strings (free
 * each, then the array); on error *names is NULL and *n is 0. A missing
 * header or any error-level diagnostic fails it with WH_EPARSE (a test
 * macro from a missing header would go unseen) unless opts->allow_errors,
 * which warns instead. */
int wh_tree_list(const char *file, const wh_tree_opts_t *opts, char ***names,
                 int *n, char **err);

void wh_tree_destroy(wh_tree_t **t);

/* Totals over all units. */
typedef struct {
    int total, nontree, tree, deepest;
} wh_tree_totals_t;
void wh_tree_totals(const wh_tree_t *t, wh_tree_totals_t *out);

/* The first line of unit i's text, whitespace-trimmed, cut to max chars with
 * "..." appended when cut; malloc'ed. */
char *wh_tree_unit_head(const wh_tree_t *t, int i, size_t max);

/* Head length used by wh_tree_print. */
#define WH_TREE_HEAD_MAX 67 /* as in the thesis's Figure 3.1 */

/* "expr", "decl", "macro", "if", "for", "while", "do", "switch", "block",
 * "try", "range_for", "lambda", "class", "other" (static string). */
const char *wh_tree_kind_name(wh_stmt_kind_t k);

/* Prints the hierarchy as in the thesis's Figure 3.1:
 *   "Statement hierarchy for NAME:" then per unit
 *   "L<level> [Tree]|[NonTree] <head>" (indented two spaces per level)
 *   then "Totals: N statements | NonTree (#NTN): a | Tree (#TN): b | deepest level: d".
 * The head is wh_tree_unit_head(t, i, WH_TREE_HEAD_MAX). With json=1 prints
 * one JSON object instead:
 *   {"test":..,"file":..,"units":[{"level":0,"tree":false,"kind":"decl",
 *    "line":5,"parent":-1,"begin":..,"end":..,"text":"<head>"},...],
 *   "totals":{"statements":N,"nontree":a,"tree":b,"deepest":d}} */
void wh_tree_print(const wh_tree_t *t, FILE *fp, int json);

#endif
