/*
 * ubarg — the UB guard's own rule over the AST (ubguard.h): a local
 * variable read before anything writes it, where the front end's
 * -Wuninitialized says nothing. clang's analysis ignores an argument given
 * to a `const T *` parameter (`json_t *a; json_array_size(a)`, `int v;
 * f(&v)`, `char b[8]; puts(b)`): it neither counts as a write nor as a
 * read. gcc -O2 warns there (-Wmaybe-uninitialized); a candidate that
 * drops the initialisation fails "the same way" only by reading garbage.
 *
 * What is flagged, conservatively (a false positive only makes an answer
 * bigger, never wrong): a local of automatic storage declared without an
 * initialiser whose first reference, along the statements that follow its
 * declaration in its own block, is an argument to a prototyped parameter of
 * pointer-to-const type: `&v`, or `v` itself when v is a pointer or an
 * array. Any other reference first (an assignment, `&v` to a non-const
 * pointer, sizeof) ends the search, and so does a label or a case that a
 * jump could reach; inside a loop every reference of the loop must be such
 * an argument (the first in source order is then the first executed).
 *
 * Internal to tree/ (ubscan.c is its user): it speaks libclang's types.
 */
#ifndef WH_UBARG_H
#define WH_UBARG_H

#include <clang-c/Index.h>

typedef struct {
    const char *function; /* the function the read is in */
    const char *var;      /* the variable read */
    const char *callee;   /* the function it is passed to ("" when unnamed) */
    unsigned line, col;   /* the argument's (expansion) location */
} wh_ubarg_t;

/* Calls found() once per flagged variable of every function defined in the
 * main file of tu, in source order. */
void wh_ubarg_run(CXTranslationUnit tu, void (*found)(void *ctx, const wh_ubarg_t *f),
                  void *ctx);

#endif
