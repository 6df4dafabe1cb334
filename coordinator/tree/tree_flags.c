/*
 * tree_flags — the compile flags a test file is parsed with (tree.h,
 * wh_tree_load): the file's exact command (opts->cmd), or its
 * compile_commands.json entry (given, or found by searching upward), or an
 * entry for a file in the same folder, or defaults; output, -c,
 * dependency-file and input arguments dropped. The tree module's only user
 * of libclang's compilation database.
 */
#define _GNU_SOURCE
#include "tree_int.h"
#include "compdb.h"
#include "wh_common.h"

#include <clang-c/CXCompilationDatabase.h>

#include <stdlib.h>
#include <string.h>

int tr_argv_push(tr_argv_t *a, const char *s)
{
    if (a->n + 1 >= a->cap) {
        int cap = a->cap ? a->cap * 2 : 32;
        char **nv = realloc(a->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return WH_ENOMEM;
        a->v = nv;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s)))
        return WH_ENOMEM;
    a->n++;
    a->v[a->n] = NULL;
    return 0;
}

void tr_argv_free(tr_argv_t *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

int tr_is_cxx_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    return strcmp(dot, ".cc") == 0 || strcmp(dot, ".cpp") == 0 || strcmp(dot, ".cxx") == 0 ||
           strcmp(dot, ".C") == 0 || strcmp(dot, ".c++") == 0 || strcmp(dot, ".hpp") == 0 ||
           strcmp(dot, ".hh") == 0;
}

static int s_is_source_arg(const char *a)
{
    const char *dot = strrchr(a, '.');
    if (!dot)
        return 0;
    return strcmp(dot, ".c") == 0 || tr_is_cxx_path(a) || strcmp(dot, ".m") == 0 ||
           strcmp(dot, ".mm") == 0;
}

static char *s_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* The absolute path of an entry's file (relative to its directory). */
static char *s_entry_file(CXCompileCommand cmd)
{
    CXString f = clang_CompileCommand_getFilename(cmd);
    CXString d = clang_CompileCommand_getDirectory(cmd);
    const char *fs = clang_getCString(f), *ds = clang_getCString(d);
    char *joined = fs[0] == '/' ? strdup(fs) : wh_path_join(ds, fs);
    clang_disposeString(f);
    clang_disposeString(d);
    if (!joined)
        return NULL;
    char *abs = wh_abspath(joined);
    free(joined);
    return abs;
}

/* A libclang database entry as a plain compile command. */
static int s_cmd_of(CXCompileCommand cmd, wh_compile_cmd_t *out)
{
    memset(out, 0, sizeof *out);
    unsigned n = clang_CompileCommand_getNumArgs(cmd);
    CXString d = clang_CompileCommand_getDirectory(cmd);
    out->directory = strdup(clang_getCString(d));
    clang_disposeString(d);
    out->argv = calloc((size_t)n + 1, sizeof *out->argv);
    if (!out->directory || !out->argv)
        goto oom;
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_CompileCommand_getArg(cmd, i);
        out->argv[i] = strdup(clang_getCString(s));
        clang_disposeString(s);
        if (!out->argv[i])
            goto oom;
        out->argc = (int)i + 1;
    }
    return 0;
oom:
    wh_compile_cmd_clear(out);
    return WH_ENOMEM;
}

/* 1 for -Werror, -Werror=x and -pedantic-errors: the real build's, kept
 * for the precheck, dropped for the tree's own parse (libclang warns about
 * things the project's compiler does not, and a warning must not stop it). */
int tr_is_werror(const char *arg)
{
    return strncmp(arg, "-Werror", 7) == 0 || strcmp(arg, "-pedantic-errors") == 0;
}

/* 1 when a command's compiler is clang (its warnings are ours). */
static int s_cmd_is_clang(const wh_compile_cmd_t *cmd)
{
    if (cmd->argc == 0 || !cmd->argv[0])
        return 0;
    const char *base = strrchr(cmd->argv[0], '/');
    return strstr(base ? base + 1 : cmd->argv[0], "clang") != NULL;
}

/* The options whose value is a path (joined "-Idir" or apart "-I dir"),
 * longest first where one is a prefix of another. */
static const char *const s_path_opts[] = {
    "-idirafter", "-iframework", "-isysroot", "-isystem", "-iquote", "-include",
    "-imacros", "--sysroot=", "--sysroot", "-I", "-F", NULL};

/* The option of s_path_opts that arg is (or starts with), or NULL; one
 * whose value is relative to the sysroot (-iframeworkwithsysroot) is not. */
static const char *s_path_opt(const char *arg)
{
    if (strncmp(arg, "-iframeworkwithsysroot", 22) == 0)
        return NULL;
    for (int k = 0; s_path_opts[k]; k++)
        if (strncmp(arg, s_path_opts[k], strlen(s_path_opts[k])) == 0)
            return s_path_opts[k];
    return NULL;
}

/* path (relative) under base, or under the current folder when it exists
 * only there (wh_job_validate's rule for --file); malloc'ed. */
static char *s_abs_under(const char *base, const char *path)
{
    char *in_base = wh_path_join(base, path);
    if (in_base && (wh_is_dir(in_base) || wh_is_file(in_base)))
        return in_base;
    if (wh_is_dir(path) || wh_is_file(path)) {
        free(in_base);
        return wh_abspath(path);
    }
    return in_base;
}

/* Pushes opts->args, the relative path of a path option made absolute
 * (wh_tree_opts_t.base). */
static int s_push_user_args(tr_argv_t *a, const wh_tree_opts_t *opts)
{
    int rc = 0;
    for (int i = 0; rc == 0 && opts && i < opts->nargs; i++) {
        const char *arg = opts->args[i];
        const char *opt = opts->base ? s_path_opt(arg) : NULL;
        if (!opt) {
            rc = tr_argv_push(a, arg);
            continue;
        }
        size_t ol = strlen(opt);
        if (arg[ol] == '\0' && opt[ol - 1] != '=') {
            /* Apart: the value is the next argument. */
            if ((rc = tr_argv_push(a, arg)) != 0 || i + 1 >= opts->nargs)
                continue;
            arg = opts->args[++i];
            ol = 0;
        }
        const char *path = arg + ol;
        /* Absolute, empty, or relative to the sysroot ("-I=dir"): as given. */
        if (!*path || path[0] == '/' || path[0] == '=') {
            rc = tr_argv_push(a, arg);
            continue;
        }
        /* A file -include'd (or -imacros) that is in neither folder is
         * searched for on the include path, as #include "path" is: as
         * given (an includer's "-include art.h", art.h in src/). */
        int searched = !strcmp(opt, "-include") || !strcmp(opt, "-imacros");
        char *in_base = searched ? wh_path_join(opts->base, path) : NULL;
        if (searched && !(in_base && wh_is_file(in_base)) && !wh_is_file(path)) {
            free(in_base);
            rc = tr_argv_push(a, arg);
            continue;
        }
        free(in_base);
        char *abs = s_abs_under(opts->base, path);
        char *joined = abs ? wh_strdup_printf("%.*s%s", (int)ol, arg, abs) : NULL;
        rc = joined ? tr_argv_push(a, joined) : WH_ENOMEM;
        free(joined);
        free(abs);
    }
    return rc;
}

/* Appends the arguments of a compile command that matter for parsing: the
 * compiler, output, dependency-file and input arguments are dropped.
 * same_lang=0 drops the language standard and -Werror too, for flags
 * borrowed from an entry of the other language. */
static int s_append_cmd(tr_argv_t *a, const wh_compile_cmd_t *cmd, int same_lang, int *has_x)
{
    int n = cmd->argc;
    int rc = 0;
    char *wd = wh_strdup_printf("-working-directory=%s", cmd->directory ? cmd->directory : "/");
    if (!wd)
        return WH_ENOMEM;
    for (int i = 1; i < n && rc == 0; i++) {
        const char *arg = cmd->argv[i];
        int skip_next = 0, drop = 0;
        if (strcmp(arg, "-c") == 0 || strcmp(arg, "-M") == 0 || strcmp(arg, "-MM") == 0 ||
            strcmp(arg, "-MD") == 0 || strcmp(arg, "-MMD") == 0 || strcmp(arg, "-MP") == 0 ||
            strcmp(arg, "--") == 0 || (!same_lang && tr_is_werror(arg)))
            drop = 1;
        else if (strcmp(arg, "-o") == 0 || strcmp(arg, "-MF") == 0 || strcmp(arg, "-MT") == 0 ||
                 strcmp(arg, "-MQ") == 0)
            drop = skip_next = 1;
        else if (strncmp(arg, "-o", 2) == 0 || strncmp(arg, "-MF", 3) == 0 ||
                 strncmp(arg, "-MT", 3) == 0 || strncmp(arg, "-MQ", 3) == 0)
            drop = 1;
        else if (!same_lang && (strncmp(arg, "-std=", 5) == 0 || strcmp(arg, "-x") == 0))
            drop = 1, skip_next = strcmp(arg, "-x") == 0;
        else if (arg[0] != '-' && s_is_source_arg(arg))
            drop = 1;
        if (!drop) {
            if (strcmp(arg, "-x") == 0 || strncmp(arg, "-x", 2) == 0)
                *has_x = 1;
            rc = tr_argv_push(a, arg);
            /* Keep the value of a two-part option with it. */
            if (rc == 0 && i + 1 < n &&
                (strcmp(arg, "-I") == 0 || strcmp(arg, "-D") == 0 || strcmp(arg, "-U") == 0 ||
                 strcmp(arg, "-isystem") == 0 || strcmp(arg, "-iquote") == 0 ||
                 strcmp(arg, "-idirafter") == 0 || strcmp(arg, "-include") == 0 ||
                 strcmp(arg, "-imacros") == 0 || strcmp(arg, "-x") == 0 ||
                 strcmp(arg, "-target") == 0 || strcmp(arg, "-isysroot") == 0 ||
                 strcmp(arg, "--sysroot") == 0 || strcmp(arg, "-Xclang") == 0))
                rc = tr_argv_push(a, cmd->argv[++i]);
        }
        if (skip_next)
            i++;
    }
    if (rc == 0)
        rc = tr_argv_push(a, wd);
    free(wd);
    return rc;
}

/* s_append_cmd for a libclang database entry; *is_clang (may be NULL)
 * gets whether its compiler is clang. */
static int s_append_db_cmd(tr_argv_t *a, CXCompileCommand cmd, int same_lang, int *has_x,
                           int *is_clang)
{
    wh_compile_cmd_t c;
    int rc = s_cmd_of(cmd, &c);
    if (rc == 0)
        rc = s_append_cmd(a, &c, same_lang, has_x);
    if (rc == 0 && is_clang)
        *is_clang = s_cmd_is_clang(&c);
    wh_compile_cmd_clear(&c);
    return rc;
}

/* Loads compile_commands.json from dir; NULL when there is none. */
static CXCompilationDatabase s_db_open(const char *dir)
{
    char *p = wh_path_join(dir, "compile_commands.json");
    int ok = p && wh_is_file(p);
    free(p);
    if (!ok)
        return NULL;
    CXCompilationDatabase_Error e = CXCompilationDatabase_NoError;
    CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &e);
    if (e != CXCompilationDatabase_NoError) {
        if (db)
            clang_CompilationDatabase_dispose(db);
        return NULL;
    }
    return db;
}

/* Finds the compilation database for abs (or in opts->compdb_dir). */
static int s_db_find(const char *abs, const wh_tree_opts_t *opts, CXCompilationDatabase *out,
                     char **err)
{
    *out = NULL;
    if (opts && opts->compdb_dir) {
        *out = s_db_open(opts->compdb_dir);
        if (!*out) {
            *err = wh_strdup_printf("no usable compile_commands.json in '%s'", opts->compdb_dir);
            return WH_ENOTFOUND;
        }
        return 0;
    }
    char *dir = s_dirname(abs);
    while (dir) {
        if ((*out = s_db_open(dir)))
            break;
        char *b = wh_path_join(dir, "build");
        if (b && (*out = s_db_open(b))) {
            free(b);
            break;
        }
        free(b);
        if (strcmp(dir, "/") == 0 || strcmp(dir, ".") == 0)
            break;
        char *up = s_dirname(dir);
        free(dir);
        dir = up;
    }
    free(dir);
    return 0;
}

/* Does the database list abs itself (not a command inferred for it)? */
static int s_db_lists(CXCompilationDatabase db, const char *abs)
{
    CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(db);
    unsigned n = all ? clang_CompileCommands_getSize(all) : 0;
    char *want = wh_abspath(abs);
    int found = 0;
    for (unsigned i = 0; want && i < n && !found; i++) {
        char *f = s_entry_file(clang_CompileCommands_getCommand(all, i));
        found = f && strcmp(f, want) == 0;
        free(f);
    }
    free(want);
    if (all)
        clang_CompileCommands_dispose(all);
    return found;
}

/* Builds the argument list used to parse abs: the real build's (see
 * wh_tree_t.cc_args). *exact = 1 when they are the file's own command (the
 * warm workspace's, or its compile_commands.json entry), *is_clang = 1 when
 * that command compiles with clang. */
int tr_build_args(const char *abs, const wh_tree_opts_t *opts, tr_argv_t *a, int *exact,
                  int *is_clang, char **err)
{
    CXCompilationDatabase db = NULL;
    int rc = 0;
    if (opts && opts->cmd && opts->cmd->argc > 0) {
        /* The exact command: no database search, no language guess. */
        int has_x = 0;
        rc = s_append_cmd(a, opts->cmd, 1, &has_x);
        *exact = 1;
        *is_clang = s_cmd_is_clang(opts->cmd);
        if (rc == 0)
            rc = tr_argv_push(a, "-Wno-unknown-warning-option");
        return rc ? rc : s_push_user_args(a, opts);
    }
    rc = s_db_find(abs, opts, &db, err);
    if (rc < 0)
        return rc;
    int cxx = tr_is_cxx_path(abs), has_x = 0, from_db = 0;
    if (db) {
        CXCompileCommands cmds = clang_CompilationDatabase_getCompileCommands(db, abs);
        if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
            rc = s_append_db_cmd(a, clang_CompileCommands_getCommand(cmds, 0), 1, &has_x,
                                 is_clang);
            from_db = 1;
            /* libclang's JSON database infers a command for a file it
             * does not list (a neighbour's, its file name swapped in):
             * that is not the file's own, and its -Werror does not hold */
            *exact = s_db_lists(db, abs);
        }
        if (cmds)
            clang_CompileCommands_dispose(cmds);
        if (!from_db && rc == 0) {
            /* No entry for the file: borrow the flags of an entry in the same
             * folder, preferring one of the same language. */
            CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(db);
            unsigned n = all ? clang_CompileCommands_getSize(all) : 0;
            char *dir = s_dirname(abs);
            int best = -1, best_same = 0;
            for (unsigned i = 0; dir && i < n; i++) {
                char *f = s_entry_file(clang_CompileCommands_getCommand(all, i));
                char *fd = f ? s_dirname(f) : NULL;
                if (fd && strcmp(fd, dir) == 0) {
                    int same = tr_is_cxx_path(f) == cxx;
                    if (best < 0 || (same && !best_same)) {
                        best = (int)i;
                        best_same = same;
                    }
                }
                free(fd);
                free(f);
            }
            free(dir);
            if (best >= 0) {
                rc = s_append_db_cmd(a, clang_CompileCommands_getCommand(all, (unsigned)best),
                                     best_same, &has_x, NULL);
                from_db = best_same;
            }
            if (all)
                clang_CompileCommands_dispose(all);
        }
        clang_CompilationDatabase_dispose(db);
    }
    if (rc == 0 && cxx && !from_db && !has_x) {
        rc = tr_argv_push(a, "-x");
        if (rc == 0)
            rc = tr_argv_push(a, "c++");
        if (rc == 0)
            rc = tr_argv_push(a, "-std=c++17");
    }
    if (rc == 0)
        rc = tr_argv_push(a, "-Wno-unknown-warning-option");
    return rc ? rc : s_push_user_args(a, opts);
}
