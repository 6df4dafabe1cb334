/*
 * wsflags — the test file's exact compile command, recorded in a warm
 * workspace (DESIGN.md, "Statement tree": compile flags come from the
 * workspace by default).
 *
 * During --setup: CMake is asked to write compile_commands.json through the
 * environment (CMAKE_EXPORT_COMPILE_COMMANDS=ON, read by every fresh CMake
 * configure); a project without a top-level CMakeLists.txt (make, autotools,
 * anything else) runs its setup under `bear` when it is installed, which
 * records every compiler call into WH_COMPDB_BEAR_NAME in the workspace
 * root. After setup, a CMake project whose build folders still have no
 * database for the test file is re-configured once with
 * -DCMAKE_EXPORT_COMPILE_COMMANDS=ON (in the workspace: the user's project
 * never sees it). The baseline then looks the test file up (compdb.h).
 *
 * Called from a node's slot threads; no shared state.
 */
#ifndef WH_WSFLAGS_H
#define WH_WSFLAGS_H

#include "compdb.h"
#include "runner.h"

/* The extra environment of a setup run (NULL-terminated, static). */
const char *const *wh_wsflags_setup_env(void);

/* The command to run as the setup of the workspace at root: setup itself,
 * or `bear --output ROOT/.whittle-compdb.json -- sh -c SETUP` (see above).
 * malloc'ed; NULL on allocation failure. */
char *wh_wsflags_setup_cmd(const char *root, const char *setup);

/* After a successful setup: when root is a CMake project and no database
 * under root has an entry for test_file (relative to root), re-configures
 * each CMake build folder under root (a folder holding CMakeCache.txt, at
 * most 3 deep) with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, running with the
 * cwd, timeout, log and tick of tmpl. Failures are only logged: the
 * compile command is a help, not a requirement. */
void wh_wsflags_after_setup(const char *root, const char *test_file, const wh_run_opts_t *tmpl);

/* The test file's compile command from the databases under root. 0 or
 * WH_ENOTFOUND. */
int wh_wsflags_find(const char *root, const char *test_file, wh_compile_cmd_t *out);

#endif
