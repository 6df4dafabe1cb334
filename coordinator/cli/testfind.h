/*
 * testfind — which test function of which test file a report's test case
 * names. The test files are one path or a glob pattern (with * ? [..]) inside the
 * project; each is listed once with libclang (wh_tree_list), then every
 * case is looked up among the names the files define.
 *
 * A case (name, classname, suite) matches a defined test, in this order:
 * classname + "." + name, classname + "::" + name, suite + "." + name,
 * suite + "::" + name (gtest's "Suite.Name", Criterion's "suite::name"),
 * then name itself, then a defined "X.name" or "X::name" when exactly one
 * test across the files ends that way, then any function called name (a
 * ctest harness's functions need not look like tests; each file is parsed
 * again for it). The first file (in glob order) that defines a match wins.
 */
#ifndef WH_TESTFIND_H
#define WH_TESTFIND_H

#include "job.h"

typedef struct wh_testfind wh_testfind_t;

/* Lists the tests of every file matching pattern (relative to project,
 * which is absolute) with the job's compile flags (-p, `--`, or the header
 * guess for each file). NULL with a one-line *err when no file matches or a
 * file cannot be parsed. */
wh_testfind_t *wh_testfind_open(const wh_job_t *tmpl, const char *project, const char *pattern,
                                char **err);
/* The same for a list of files (relative to project), as the build lists
 * a test program's sources. With names (nnames > 0), a text search comes
 * first: only the files that hold one of them as a word (a gtest
 * "Suite.Name" or "suite::name" by its last part), or are named like one,
 * are parsed; a program's library sources are not (uriparser: 5.5 minutes
 * of parsing before). A parse that takes long says so on stderr every
 * 10 s ("finding the test functions: parsing N of M files"). */
wh_testfind_t *wh_testfind_open_list(const wh_job_t *tmpl, const char *project,
                                     const char *const *files, size_t n,
                                     const char *const *names, size_t nnames, char **err);
void wh_testfind_close(wh_testfind_t **f);

/* Finds a case; classname and suite may be NULL or "". 0 with *file
 * (relative to the project) and *test (the name the file defines), both
 * owned by f; WH_ENOTFOUND when no file defines it. */
int wh_testfind_case(wh_testfind_t *f, const char *name, const char *classname,
                     const char *suite, const char **file, const char **test);

/* The listed file whose name without folder and extension is `name`
 * (relative to the project, owned by f), else NULL: a CTest or JUnit case
 * named like that is most likely the whole test program built from it
 * (cJSON's "misc_tests" runs tests/misc_tests.c), not one of its functions. */
const char *wh_testfind_program(const wh_testfind_t *f, const char *name);

/* Why a source file that a listed file #includes (a Check runner's
 * "test_art.c", listed with it) could not be listed, with its first parse
 * error; NULL when every one was. Owned by f. */
const char *wh_testfind_hidden(const wh_testfind_t *f);

/* Number of files listed and tests found in them. */
size_t wh_testfind_files(const wh_testfind_t *f);
size_t wh_testfind_tests(const wh_testfind_t *f);

#endif
