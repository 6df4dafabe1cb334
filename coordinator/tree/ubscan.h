/*
 * ubscan — the UB guard's reading of one parse (ubguard.h): the guarded
 * diagnostics of a translation unit counted by identity (warning option,
 * the function it is in, message; no location), against the original's
 * counts, with the reads the front end does not warn about that ubarg.h
 * finds in the AST. Shared by ubguard.c (a parse of its own) and precheck.c (the
 * precheck's parse answers the guard too, so a candidate is parsed once on
 * a precheck thread and never on the poll thread). Internal to tree/: it
 * speaks libclang's types.
 */
#ifndef WH_UBSCAN_H
#define WH_UBSCAN_H

#include <clang-c/Index.h>

/* The option a read the front end does not see is counted under: an
 * uninitialized local given to a `const T *` parameter (ubarg.h; gcc -O2
 * calls it -Wmaybe-uninitialized). */
#define WH_UBSCAN_CONST_ARG "whittle-uninitialized-const-arg"

/* Guarded diagnostics counted on one text; more are not told apart. */
#define WH_UBSCAN_MAX_IDS 256

/* The warnings a removed initialisation or return raises (NULL-ended). */
extern const char *const wh_ubscan_warnings[];
/* The arguments a guarded parse appends to the user's (NULL-ended): no
 * limit on errors (clang stops at 20 by default, and which 20 would depend
 * on -Werror), the warnings, and -Wno-error=<each> (they stay warnings
 * whatever -Werror the user gives, and never count as the precheck's
 * errors). Both guarded parses use exactly these, so they see the same
 * guarded diagnostics. */
extern const char *const wh_ubscan_args[];

typedef struct {
    char *id[WH_UBSCAN_MAX_IDS]; /* "option|function|message" */
    int count[WH_UBSCAN_MAX_IDS];
    int n;
} wh_ubscan_ids_t;

void wh_ubscan_ids_clear(wh_ubscan_ids_t *s);
/* The total count of guarded diagnostics in s. */
int wh_ubscan_ids_total(const wh_ubscan_ids_t *s);

/* One scan of a TU's diagnostics and of its main file's function bodies
 * (ubarg.h: the guard's own rule, counted like a diagnostic). Set
 * `against` (the original's counts) to find the first new one; the rest
 * is filled in. */
typedef struct {
    wh_ubscan_ids_t ids;
    char *error;                     /* the first hard error, "FILE:line:col: message"
                                      * (wh_ubscan_where) */
    int hard;                        /* hard errors: of error severity without a warning
                                      * option (a warning made an error by -Werror is
                                      * not one: it stops no analysis), or fatal */
    const wh_ubscan_ids_t *against;  /* the original: a diagnostic beyond its count is new */
    char *first_new;                 /* "line:col: message [-Wopt]" */
} wh_ubscan_t;

void wh_ubscan_run(CXTranslationUnit tu, wh_ubscan_t *s);
/* Where diagnostic d of tu is, "FILE:LINE:COL" (malloc'ed; NULL when out
 * of memory): FILE is the file it is really in, the test file as tu was
 * parsed (its spelling) or a header it includes (an #error in test.h is
 * test.h's, never the test file's at test.h's line). */
char *wh_ubscan_where(CXTranslationUnit tu, CXDiagnostic d);
/* Frees what a scan holds (not `against`). */
void wh_ubscan_free(wh_ubscan_t *s);

#endif
