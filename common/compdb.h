/*
 * compdb — one source file's exact compile command, read from a compilation
 * database (compile_commands.json, as CMake, Meson or `bear` write it), and
 * moved from the folder where it was recorded (a node's warm workspace) to
 * the folder where it is used (the project the coordinator parses).
 *
 * This module does no parsing of C and knows nothing of libclang: it reads
 * JSON (jansson), splits `command` strings the way a POSIX shell would, and
 * rewrites paths. Users: the node (finds the test file's entry after setup),
 * the statement tree (parses with it), the build-avoidance precheck.
 *
 * All functions are thread-safe (no shared state).
 */
#ifndef WH_COMPDB_H
#define WH_COMPDB_H

/* One entry of a compilation database. Owned strings; free with
 * wh_compile_cmd_clear. A zeroed struct is "no command" (argc == 0). */
typedef struct {
    char *directory;   /* absolute folder the compiler ran in */
    char *file;        /* absolute path of the source file */
    char **argv;       /* argv[0] is the compiler; argv[argc] is NULL */
    int argc;
} wh_compile_cmd_t;

void wh_compile_cmd_clear(wh_compile_cmd_t *c);
/* Deep copy into dst (overwritten, not freed). 0 or WH_ENOMEM. */
int wh_compile_cmd_copy(wh_compile_cmd_t *dst, const wh_compile_cmd_t *src);

/* Reads the database at db_path and fills *out with the first entry whose
 * file is `file` (absolute; compared after resolving both against the
 * entry's directory, symlinks and `..`). Entries with `arguments` and with
 * `command` are both read. Returns 0, WH_ENOTFOUND when the database has no
 * entry for the file, or WH_EPARSE / -errno with *err (malloc'ed, one line
 * naming db_path) when it cannot be read. */
int wh_compdb_lookup(const char *db_path, const char *file, wh_compile_cmd_t *out, char **err);

/* Searches the tree under root (at most 3 folders deep, not into `.git`)
 * for compile_commands.json files, preferring root/.whittle-compdb.json (what
 * a node's `bear` run records), then root/compile_commands.json, then the
 * others in sorted path order, and fills *out from the first that has an
 * entry for file. *db_path (may be NULL) gets the database's path. Returns 0
 * or WH_ENOTFOUND. */
int wh_compdb_find(const char *root, const char *file, wh_compile_cmd_t *out, char **db_path);

/* The name of the database a node records with `bear` in a workspace root. */
#define WH_COMPDB_BEAR_NAME ".whittle-compdb.json"

/* Moves c from the tree `from` (where it was recorded) to the tree `to`
 * (a copy of the same project). Every path in it (directory, file, and the
 * values of -I, -isystem, -iquote, -idirafter, -include, -imacros,
 * --sysroot, -isysroot, in both the joined and the separate spelling) is
 * made absolute against c->directory and normalized; a path under `from` is
 * then moved under `to` when the moved path exists, or kept when only the
 * original exists (a header generated in the workspace's build folder, seen
 * from the same machine). A header search folder that exists in both gives
 * both, the project's first (headers the build generated in a folder the
 * project also has are still found). directory becomes its copy under `to` when that
 * exists, else `to` itself.
 * 0 or WH_ENOMEM. */
int wh_compile_cmd_rebase(wh_compile_cmd_t *c, const char *from, const char *to);

/* Splits a shell command line into words (quotes, backslashes; no
 * expansion). Returns the number of words and a NULL-terminated malloc'ed
 * array of malloc'ed words in *argv, or WH_ENOMEM. */
int wh_compdb_split(const char *cmd, char ***argv);

/* {"directory":..,"file":..,"arguments":[..]} (malloc'ed), and back. A
 * string "{}" means no command. from_json returns 0 (c zeroed for "{}"),
 * or WH_EPARSE. */
char *wh_compile_cmd_to_json(const wh_compile_cmd_t *c);
int wh_compile_cmd_from_json(const char *s, wh_compile_cmd_t *c);

#endif
