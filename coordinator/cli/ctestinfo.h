/*
 * ctestinfo — what CMake and CTest recorded in a build folder, so that
 * `whittle reduce --from-ctest BUILD_DIR` needs no --setup, --build or
 * --run: CMakeCache.txt's source folder, generator and the options worth
 * keeping (a non-empty CMAKE_BUILD_TYPE, CMAKE_C_FLAGS, CMAKE_CXX_FLAGS, and
 * every entry CMake marks "variable specified on the command line"), each
 * test's command, working folder and environment from the
 * CTestTestfile.cmake files (followed through subdirs()), the sources of
 * the executable a test runs (from build.ninja or the target's
 * build.make), and a test's output in Testing/Temporary/LastTest.log.
 *
 * The commands it makes are for a workspace (a copy of the project, where
 * commands run from the root): the build folder is configured afresh there
 * (the user's, which lies in the user's tree, is never used), at the same
 * path relative to the project when the user's is inside it, else at
 * .whittle-build. Paths under the user's build and source folders are
 * moved to the workspace's ("$W" is the workspace root in the run
 * command).
 *
 * Everything is read once at open; the object is immutable afterwards.
 */
#ifndef WH_CTESTINFO_H
#define WH_CTESTINFO_H

#include <stddef.h>

typedef struct wh_ctest wh_ctest_t;

/* Reads build_dir. NULL with a one-line *err when it holds no
 * CMakeCache.txt or CTestTestfile.cmake, or they cannot be read. */
wh_ctest_t *wh_ctest_open(const char *build_dir, char **err);
void wh_ctest_close(wh_ctest_t **c);

/* The nearest folder at or above dir that holds a CMakeCache.txt and a
 * CTestTestfile.cmake (a JUnit report written by ctest sits in one);
 * malloc'ed, NULL when there is none. */
char *wh_ctest_find_build(const char *dir);

/* The commands for a workspace of project (absolute), which must hold the
 * build's source folder: setup configures and builds, build builds the
 * test's executable target (all when not known), run runs test as CTest
 * does (own: its command in its working folder with its environment) or
 * through ctest (!own: "ctest --test-dir BUILD", for the ctest preset).
 * Each malloc'ed. 0, or WH_EINVAL / WH_ENOTFOUND with a one-line *err
 * (source folder outside the project, test unknown). */
int wh_ctest_commands(const wh_ctest_t *c, const char *project, const char *test, int own,
                      char **setup, char **build, char **run, char **err);

/* The source files (relative to project, C or C++) of the executable that
 * test runs, as the build files list them; else the project's files named
 * like the executable (tests/NAME.c). 0 with *files (free each, then the
 * array) and *n, possibly 0. */
int wh_ctest_sources(const wh_ctest_t *c, const char *project, const char *test, char ***files,
                     size_t *n);

/* How CTest judges test (whole.h): its WILL_FAIL, and its PASS_ and
 * FAIL_REGULAR_EXPRESSION lists one regex per line (malloc'ed, NULL when
 * not set). 0, WH_ENOTFOUND (no such test) or WH_ENOMEM. */
int wh_ctest_judge(const wh_ctest_t *c, const char *test, int *will_fail, char **pass_rx,
                   char **fail_rx);

/* 1 when the last ctest run could not start test (LastTest.log: no
 * executable, "Command: \"\"": its target does not build). */
int wh_ctest_not_run(const wh_ctest_t *c, const char *test);

/* The output test printed in the last ctest run (LastTest.log, between
 * "Output:" and "<end of output>"); malloc'ed, NULL when not there. */
char *wh_ctest_output(const wh_ctest_t *c, const char *test);

#endif
