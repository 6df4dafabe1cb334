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
 * blocks; in C++ also try/catch, range-for, and expression statements holding
 * a lambda with a block body. Their child units are the units in the blocks
 * they own (then-block, else-block, catch blocks, lambda bodies, ...).
 *
 * Test functions are found by name, including framework macros that define
 * them: plain/cmocka functions `void name(void **state)`, Check
 * `START_TEST(name)`, GoogleTest `TEST(Suite, Name)` / `TEST_F` / `TEST_P`
 * (accepted as "Suite.Name" or "Name"), CUnit/Unity plain functions,
 * Criterion `Test(suite, name)`.
 */
#ifndef WH_TREE_H
#define WH_TREE_H

#include <stddef.h>
#include <stdio.h>

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

/* The statement tree of one test function. Units are in pre-order: a parent
 * comes before its children, siblings in source order. Owned by the caller;
 * free with wh_tree_destroy. */
typedef struct {
    char *path;          /* the file as given */
    char *text;          /* pristine file content (NUL-terminated) */
    size_t text_len;
    char *test;          /* the resolved test name (e.g. "Suite.Name") */
    size_t body_begin;   /* offset of the body's '{' */
    size_t body_end;     /* offset just past the body's '}' */
    int n;
    wh_unit_t *units;
} wh_tree_t;

typedef struct {
    /* Folder with compile_commands.json, or NULL to search upward from the
     * file's folder (and its `build/` subfolders). */
    const char *compdb_dir;
    /* Extra compiler arguments (after `--` on the command line). */
    const char *const *args;
    int nargs;
} wh_tree_opts_t;

/* Parses file and builds the tree of test function `test`. On error returns
 * a negative WH_E* code and sets *err to a malloc'ed one-line message that
 * names the problem and the input (for an unknown test: lists the test names
 * the file defines). */
int wh_tree_load(const char *file, const char *test, const wh_tree_opts_t *opts,
                 wh_tree_t **out, char **err);

/* Lists the test functions the file defines (framework macros included).
 * *names is a malloc'ed array of malloc'ed strings. */
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

/* Prints the hierarchy as in the thesis's Figure 3.1:
 *   "Statement hierarchy for NAME:" then per unit
 *   "L<level> [Tree]|[NonTree] <head>" (indented two spaces per level)
 *   then "Totals: N statements | NonTree (#NTN): a | Tree (#TN): b | deepest level: d".
 * With json=1 prints one JSON object instead. */
void wh_tree_print(const wh_tree_t *t, FILE *fp, int json);

#endif
