/*
 * mutagen — finds the places in a C source file where the standard mutation
 * operators apply, by walking libclang's AST (never by pattern-matching
 * text): ROR (relational operator replacement), AOR (arithmetic), LCR
 * (&& <-> ||), IN (negate an if/while condition), RV (return value: the
 * returned expression becomes 0, or 1 when it is 0). Each mutant is one
 * text replacement at a byte range of the file. Thread-safe (each call
 * makes its own CXIndex).
 */
#ifndef WH_MUTAGEN_H
#define WH_MUTAGEN_H

#include <stddef.h>

enum {
    WH_MUT_ROR = 1 << 0,
    WH_MUT_AOR = 1 << 1,
    WH_MUT_LCR = 1 << 2,
    WH_MUT_IN = 1 << 3,
    WH_MUT_RV = 1 << 4,
    WH_MUT_ALL = 0x1f,
};

typedef struct {
    const char *op;   /* "ROR", "AOR", "LCR", "IN", "RV" (static) */
    unsigned line;    /* 1-based line of the replaced text */
    size_t off, len;  /* the replaced byte range */
    char *before;     /* the text replaced */
    char *after;      /* its replacement */
} wh_mutant_t;

typedef struct {
    wh_mutant_t *v;
    size_t n, cap;
} wh_mutant_list_t;

/* Appends the mutants of file (ops: WH_MUT_* bits) to out, in source
 * order. args are extra compiler arguments (e.g. -I folders). 0, or
 * WH_EPARSE with *err (malloc'ed, naming the file) when libclang cannot
 * parse it, WH_ENOMEM. */
int wh_mutagen_scan(const char *file, unsigned ops, const char *const *args, int nargs,
                    wh_mutant_list_t *out, char **err);
void wh_mutant_list_free(wh_mutant_list_t *l);
/* "ROR,AOR" -> bits; 0 with an unknown name. */
unsigned wh_mutagen_parse_ops(const char *list);

#endif
