/*
 * includer — the project file that #includes a test file. A Check runner
 * (`runner.c`: `#include <check.h>` then `#include "test_art.c"`) compiles
 * its tests as part of itself: test_art.c alone does not parse
 * (START_TEST is unknown), and its tests look "not found". This module
 * finds the includer by a text search of the project's sources and says
 * what the test file sees there: the #include lines (and one-line object
 * #defines) before it, as compiler arguments (`-include check.h`,
 * `-D_GNU_SOURCE`) that make the test file parse on its own as it does
 * inside its includer. No libclang: the lines are read as text (an
 * #include under an #if is taken as if the #if held).
 */
#ifndef WH_INCLUDER_H
#define WH_INCLUDER_H

#include <stddef.h>

typedef struct {
    char *path;   /* the includer, relative to the project */
    unsigned line; /* of its #include of the test file */
    char **args;  /* what the test file sees before it: "-include", X, "-DNAME=V" */
    int nargs;
    char *flags;  /* the same, joined by spaces (for messages) */
} wh_includer_t;

/* Finds the first project file (the test file's folder first, then the
 * whole project, sorted; build folders and dot folders skipped, files up
 * to 1 MiB) with an `#include "..."` that names file (relative to the
 * project, or absolute). 0 and *out filled, WH_ENOTFOUND when no file
 * includes it, WH_ENOMEM. */
int wh_includer_find(const char *project, const char *file, wh_includer_t *out);
void wh_includer_clear(wh_includer_t *inc);

/* The project's C/C++ source files (.c .cc .cpp .cxx) that file #includes
 * by a quoted name found beside it, relative to the project, in order
 * (*v and each string malloc'ed); 0, or WH_ENOMEM. */
int wh_includer_sources(const char *project, const char *file, char ***v, size_t *n);

/* Appends to *msg (a parse error of file, one line) what would make file
 * parse: "tests/test_art.c is #included by tests/runner.c (line 4); parsed
 * there it sees -include check.h: give those flags after --" when an
 * includer is found (`applied`: its flags were given already, say so
 * instead), else the framework header its error names (START_TEST ->
 * check.h). *msg is left as it is when there is nothing to say. */
void wh_includer_advise(const char *project, const char *file, int applied, char **msg);

/* 1 when args hold an -include (the includer's flags, or the user's). */
int wh_includer_applied(const char *const *args, int nargs);

/* The header a framework macro named in a diagnostic comes from
 * ("START_TEST" -> "check.h"), or NULL. */
const char *wh_includer_macro_header(const char *diag);

#endif
