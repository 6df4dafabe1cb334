/*
 * ctestinfo — a CMake build folder's record of its tests; see ctestinfo.h.
 */
#define _GNU_SOURCE
#include "ctestinfo.h"

#include "wh_common.h"

#include <ctype.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Caps on what a build folder may make us read. */
#define S_FILE_CAP ((size_t)16 << 20)
#define S_LOG_CAP ((size_t)64 << 20)
#define S_MAX_FILES 1000
#define S_MAX_DEPTH 32

typedef struct {
    char *name;
    char **argv; /* NULL-terminated */
    char *dir;   /* WORKING_DIRECTORY, else the folder of its CTestTestfile */
    char *env;   /* ENVIRONMENT ("A=1;B=2"), or NULL */
    char *will_fail, *pass_rx, *fail_rx; /* WILL_FAIL, PASS_/FAIL_REGULAR_EXPRESSION, or NULL */
} s_test_t;

struct wh_ctest {
    char *build;     /* absolute */
    char *source;    /* CMAKE_HOME_DIRECTORY */
    char *generator; /* CMAKE_GENERATOR */
    wh_buf_t dopts;  /* " -D'K:T=V'..." */
    s_test_t *tests;
    size_t n;
    size_t files;
};

static void s_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

void wh_ctest_close(wh_ctest_t **cp)
{
    if (!cp || !*cp)
        return;
    wh_ctest_t *c = *cp;
    for (size_t i = 0; i < c->n; i++) {
        free(c->tests[i].name), free(c->tests[i].dir), free(c->tests[i].env);
        free(c->tests[i].will_fail), free(c->tests[i].pass_rx), free(c->tests[i].fail_rx);
        s_strv_free(c->tests[i].argv);
    }
    free(c->tests);
    free(c->build), free(c->source), free(c->generator);
    wh_buf_free(&c->dopts);
    free(c);
    *cp = NULL;
}

/* Appends s to b in single quotes (sh). */
static void s_sq(wh_buf_t *b, const char *s)
{
    wh_buf_sh_quote(b, s);
}

/* ---- CMakeCache.txt ---- */

/* 1 when text (a CMakeCache.txt) marks key advanced: "KEY-ADVANCED:INTERNAL=1"
 * on a line of its own (find modules' results, CMake's own switches). */
static int s_advanced(const char *text, const char *key)
{
    char *line = wh_strdup_printf("\n%s-ADVANCED:INTERNAL=1", key);
    int yes = 0;
    for (const char *p = line ? strstr(text, line) : NULL; p && !yes; p = strstr(p + 1, line)) {
        char end = p[strlen(line)];
        yes = end == '\n' || end == '\r' || end == '\0';
    }
    free(line);
    return yes;
}

/* 1 when cache entry key is worth passing to the workspace's configure:
 * what the user gave with -D (CMake says so when the project did not
 * declare it; an option() the user set keeps the option's help), the
 * build type and flags, and every option() of the project (a BOOL that is
 * not CMake's own and not advanced), so -DWITH_TESTS=ON is not lost. */
static int s_keep(const char *text, const char *key, const char *type, const char *value,
                  int on_command_line)
{
    static const char *const keep[] = {"CMAKE_BUILD_TYPE", "CMAKE_C_FLAGS", "CMAKE_CXX_FLAGS",
                                       NULL};
    if (on_command_line)
        return 1;
    if (!strcmp(type, "BOOL") && strncmp(key, "CMAKE_", 6) && !s_advanced(text, key))
        return 1;
    for (int i = 0; keep[i]; i++)
        if (!strcmp(key, keep[i]))
            return *value != '\0';
    return 0;
}

static int s_read_cache(wh_ctest_t *c, char **err)
{
    char *path = wh_path_join(c->build, "CMakeCache.txt"), *text = NULL;
    size_t len = 0;
    int rc = path ? wh_read_file(path, S_FILE_CAP, &text, &len) : WH_ENOMEM;
    if (rc) {
        *err = wh_strdup_printf("no CMake build in '%s': cannot read %s (%s)", c->build,
                                path ? path : "CMakeCache.txt", wh_strerror(rc));
        free(path);
        return rc;
    }
    int cmdline = 0;
    char *whole = strdup(text); /* strtok_r cuts text; s_advanced reads all of it */
    if (!whole) {
        free(text);
        free(path);
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        l[strcspn(l, "\r")] = '\0';
        if (!strncmp(l, "//", 2)) {
            cmdline = strstr(l, "variable specified on the command line") != NULL;
            continue;
        }
        char *colon = strchr(l, ':'), *eq = colon ? strchr(colon, '=') : NULL;
        if (!colon || !eq || *l == '#') {
            cmdline = 0;
            continue;
        }
        *colon = '\0';
        const char *key = l, *type = colon + 1, *value = eq + 1;
        *eq = '\0';
        if (!strcmp(key, "CMAKE_HOME_DIRECTORY") && !c->source)
            c->source = strdup(value);
        else if (!strcmp(key, "CMAKE_GENERATOR") && !c->generator)
            c->generator = strdup(value);
        else if (strcmp(type, "INTERNAL") && strcmp(type, "STATIC") && s_keep(whole, key, type, value, cmdline)) {
            char *d = strcmp(type, "UNINITIALIZED") ? wh_strdup_printf("%s:%s=%s", key, type, value)
                                                    : wh_strdup_printf("%s=%s", key, value);
            wh_buf_puts(&c->dopts, " -D");
            s_sq(&c->dopts, d ? d : "");
            free(d);
        }
        cmdline = 0;
    }
    free(whole);
    free(text);
    if (!c->source) {
        *err = wh_strdup_printf("%s names no source folder (CMAKE_HOME_DIRECTORY)", path);
        rc = WH_EINVAL;
    }
    free(path);
    return rc;
}

/* ---- CTestTestfile.cmake ---- */

/* One CMake argument at *p (quoted, bracket or unquoted); malloc'ed, NULL
 * at ')' or the end. */
static char *s_arg(const char **pp)
{
    const char *p = *pp;
    wh_buf_t b = WH_BUF_INIT;
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++) {
            if (*p == '\\' && p[1]) {
                p++;
                char e = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
                wh_buf_append(&b, &e, 1);
            } else {
                wh_buf_append(&b, p, 1);
            }
        }
        p += *p == '"';
    } else if (*p == '[' && (p[1] == '[' || p[1] == '=')) {
        size_t eqs = 0;
        while (p[1 + eqs] == '=')
            eqs++;
        if (p[1 + eqs] != '[')
            goto unquoted;
        p += 2 + eqs;
        for (; *p; p++) {
            if (*p == ']' && strspn(p + 1, "=") >= eqs && p[1 + eqs] == ']')
                break;
            wh_buf_append(&b, p, 1);
        }
        p += *p ? 2 + eqs : 0;
    } else {
    unquoted:
        while (*p && !isspace((unsigned char)*p) && *p != ')' && *p != '(')
            wh_buf_append(&b, p++, 1);
    }
    *pp = p;
    char *s = wh_buf_detach(&b);
    return s ? s : strdup("");
}

/* The next command "name(args)" from *pp: its name (malloc'ed) and args
 * (NULL-terminated), or NULL at the end. */
static char *s_command(const char **pp, char ***args)
{
    const char *p = *pp;
    *args = NULL;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '#')
            break;
        p += strcspn(p, "\n");
    }
    const char *s = p;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    if (p == s || *p != '(') {
        *pp = p + strlen(p);
        return NULL;
    }
    char *name = strndup(s, (size_t)(p - s));
    size_t n = 0;
    char **v = calloc(1, sizeof *v);
    for (p++; v;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == ')')
            break;
        char *a = s_arg(&p);
        char **nv = realloc(v, (n + 2) * sizeof *nv);
        if (!nv) {
            free(a);
            break;
        }
        v = nv, v[n++] = a, v[n] = NULL;
    }
    p += *p == ')';
    *pp = p;
    *args = v;
    return name;
}

static s_test_t *s_test(wh_ctest_t *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->tests[i].name, name))
            return &c->tests[i];
    return NULL;
}

/* add_test(name cmd args...) in folder dir. */
static void s_add_test(wh_ctest_t *c, char **a, const char *dir)
{
    if (!a[0] || !a[1] || s_test(c, a[0]))
        return;
    s_test_t *nt = realloc(c->tests, (c->n + 1) * sizeof *nt);
    if (!nt)
        return;
    c->tests = nt;
    s_test_t *t = &nt[c->n++];
    size_t k = 0;
    while (a[k + 1])
        k++;
    t->argv = calloc(k + 1, sizeof *t->argv);
    for (size_t i = 0; t->argv && i < k; i++)
        t->argv[i] = strdup(a[i + 1]);
    t->name = strdup(a[0]);
    t->dir = strdup(dir);
    t->env = NULL;
    t->will_fail = t->pass_rx = t->fail_rx = NULL;
}

/* set_tests_properties(names... PROPERTIES key value ...). */
static void s_props(wh_ctest_t *c, char **a)
{
    size_t p = 0;
    while (a[p] && strcmp(a[p], "PROPERTIES"))
        p++;
    for (size_t k = p + 1; a[p] && a[k] && a[k + 1]; k += 2) {
        static const char *const keys[] = {"WORKING_DIRECTORY", "ENVIRONMENT", "WILL_FAIL",
                                           "PASS_REGULAR_EXPRESSION",
                                           "FAIL_REGULAR_EXPRESSION"};
        size_t key = 0;
        while (key < 5 && strcmp(a[k], keys[key]))
            key++;
        for (size_t i = 0; key < 5 && i < p; i++) {
            s_test_t *t = s_test(c, a[i]);
            char **fields[] = {t ? &t->dir : NULL, t ? &t->env : NULL,
                               t ? &t->will_fail : NULL, t ? &t->pass_rx : NULL,
                               t ? &t->fail_rx : NULL};
            char **field = fields[key];
            if (field) {
                free(*field);
                *field = strdup(a[k + 1]);
            }
        }
    }
}

static void s_read_testfile(wh_ctest_t *c, const char *dir, int depth)
{
    char *path = wh_path_join(dir, "CTestTestfile.cmake"), *text = NULL;
    size_t len = 0;
    if (depth > S_MAX_DEPTH || c->files >= S_MAX_FILES || !path ||
        wh_read_file(path, S_FILE_CAP, &text, &len)) {
        free(path);
        return;
    }
    c->files++;
    const char *p = text;
    char **a = NULL;
    for (char *cmd; (cmd = s_command(&p, &a)) != NULL; free(cmd), s_strv_free(a)) {
        if (!a)
            continue;
        if (!strcmp(cmd, "add_test"))
            s_add_test(c, a, dir);
        else if (!strcmp(cmd, "set_tests_properties"))
            s_props(c, a);
        else if (!strcmp(cmd, "subdirs"))
            for (size_t i = 0; a[i]; i++) {
                char *sub = a[i][0] == '/' ? strdup(a[i]) : wh_path_join(dir, a[i]);
                if (sub)
                    s_read_testfile(c, sub, depth + 1);
                free(sub);
            }
    }
    free(text);
    free(path);
}

wh_ctest_t *wh_ctest_open(const char *build_dir, char **err)
{
    wh_ctest_t *c = calloc(1, sizeof *c);
    if (!c || !(c->build = wh_abspath(build_dir))) {
        *err = wh_strdup_printf("build folder '%s' not found", build_dir);
        wh_ctest_close(&c);
        return NULL;
    }
    if (s_read_cache(c, err)) {
        wh_ctest_close(&c);
        return NULL;
    }
    s_read_testfile(c, c->build, 0);
    if (!c->files) {
        *err = wh_strdup_printf("'%s' has no CTestTestfile.cmake (no enable_testing()?)",
                                c->build);
        wh_ctest_close(&c);
    }
    return c;
}

char *wh_ctest_find_build(const char *dir)
{
    char *d = wh_abspath(dir);
    while (d && *d) {
        char *a = wh_path_join(d, "CMakeCache.txt"), *b = wh_path_join(d, "CTestTestfile.cmake");
        int hit = a && b && wh_is_file(a) && wh_is_file(b);
        free(a), free(b);
        if (hit)
            return d;
        char *slash = strrchr(d, '/');
        if (!slash || slash == d)
            break;
        *slash = '\0';
    }
    free(d);
    return NULL;
}

static void s_build_sources(const wh_ctest_t *c, const char *project, const char *target,
                            char ***files, size_t *n);

/* ---- commands ---- */

/* The rest of path after dir ("" or "/..."), when path is dir or inside it;
 * else NULL. */
static const char *s_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
        return NULL;
    return path + n;
}

/* Where things go in the workspace. */
typedef struct {
    const wh_ctest_t *c;
    char *build; /* the build folder, relative to the workspace root */
    char *src;   /* the source folder, relative ("." for the root) */
} s_ws_t;

static void s_ws_clear(s_ws_t *w)
{
    free(w->build), free(w->src);
}

static int s_ws(const wh_ctest_t *c, const char *project, s_ws_t *w, char **err)
{
    const char *rb = s_under(c->build, project), *rs = s_under(c->source, project);
    w->c = c;
    w->build = rb && *rb ? strdup(rb + 1) : strdup(".whittle-build");
    w->src = rs ? strdup(*rs ? rs + 1 : ".") : NULL;
    if (!rs) {
        *err = wh_strdup_printf("the source folder of build '%s' (%s) is not inside the project "
                                "'%s'; give --setup, --build and --run", c->build, c->source,
                                project);
        s_ws_clear(w);
        return WH_EINVAL;
    }
    return w->build && w->src ? 0 : WH_ENOMEM;
}

/* path as the workspace sees it: under the user's build or source folder,
 * "$W"/'moved'; else as it is. */
static void s_ws_path(wh_buf_t *b, const s_ws_t *w, const char *path)
{
    const char *rest = s_under(path, w->c->build);
    const char *base = w->build;
    if (!rest) {
        rest = s_under(path, w->c->source);
        base = w->src;
    }
    if (!rest) {
        s_sq(b, path);
        return;
    }
    char *moved = wh_strdup_printf("%s%s", base, rest);
    wh_buf_puts(b, "\"$W\"/");
    s_sq(b, moved ? moved : "");
    free(moved);
}

/* The executable target a test runs: the base name of its program when
 * that lies in the build folder (a wrapper such as valgrind is none);
 * malloc'ed or NULL. */
static char *s_target(const wh_ctest_t *c, const s_test_t *t)
{
    if (!t->argv || !t->argv[0])
        return NULL;
    char *abs = t->argv[0][0] == '/' ? strdup(t->argv[0]) : wh_path_join(t->dir, t->argv[0]);
    const char *in = abs ? s_under(abs, c->build) : NULL;
    char *name = NULL;
    if (in && *in) {
        const char *base = strrchr(in, '/') + 1;
        size_t n = strlen(base);
        if (n > 4 && !strcmp(base + n - 4, ".exe"))
            n -= 4;
        name = n ? strndup(base, n) : NULL;
    }
    free(abs);
    return name;
}

int wh_ctest_commands(const wh_ctest_t *c, const char *project, const char *test, int own,
                      char **setup, char **build, char **run, char **err)
{
    *setup = *build = *run = NULL;
    const s_test_t *t = NULL;
    for (size_t i = 0; i < c->n && !t; i++)
        if (!strcmp(c->tests[i].name, test))
            t = &c->tests[i];
    if (!t) {
        *err = wh_strdup_printf("no test '%s' in the CTestTestfile.cmake files of '%s'", test,
                                c->build);
        return WH_ENOTFOUND;
    }
    s_ws_t w;
    int rc = s_ws(c, project, &w, err);
    if (rc)
        return rc;
    wh_buf_t b = WH_BUF_INIT;
    wh_buf_puts(&b, "cmake -S ");
    s_sq(&b, w.src);
    wh_buf_puts(&b, " -B ");
    s_sq(&b, w.build);
    if (c->generator) {
        wh_buf_puts(&b, " -G ");
        s_sq(&b, c->generator);
    }
    wh_buf_puts(&b, c->dopts.buf ? c->dopts.buf : "");
    char **files = NULL;
    size_t nf = 0;
    char *target = s_target(c, t);
    /* --target only for a target the build files know (a typo'd one fails
     * every build). The set-up builds that target too (and what it
     * depends on), never all: a project's other targets, slow or not, are
     * not the test's. */
    if (target)
        s_build_sources(c, project, target, &files, &nf);
    for (size_t i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    wh_buf_t tb = WH_BUF_INIT;
    wh_buf_puts(&tb, "cmake --build ");
    s_sq(&tb, w.build);
    if (target && nf) {
        wh_buf_puts(&tb, " --target ");
        s_sq(&tb, target);
    }
    free(target);
    wh_buf_puts(&b, " && ");
    wh_buf_puts(&b, tb.buf ? tb.buf : "");
    *setup = wh_buf_detach(&b);
    *build = wh_buf_detach(&tb);
    if (!own) {
        wh_buf_puts(&b, "ctest --test-dir ");
        s_sq(&b, w.build);
    } else {
        wh_buf_puts(&b, "W=$PWD && cd ");
        s_ws_path(&b, &w, t->dir);
        char *env = t->env ? strdup(t->env) : NULL;
        for (char *save = NULL, *e = env ? strtok_r(env, ";", &save) : NULL; e;
             e = strtok_r(NULL, ";", &save)) {
            if (!strchr(e, '=') || !(isalpha((unsigned char)*e) || *e == '_'))
                continue;
            wh_buf_puts(&b, " && export ");
            s_sq(&b, e);
        }
        free(env);
        wh_buf_puts(&b, " &&");
        for (size_t i = 0; t->argv && t->argv[i]; i++) {
            wh_buf_puts(&b, " ");
            s_ws_path(&b, &w, t->argv[i]);
        }
    }
    *run = wh_buf_detach(&b);
    s_ws_clear(&w);
    if (!*setup || !*build || !*run) {
        free(*setup), free(*build), free(*run);
        *setup = *build = *run = NULL;
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    return 0;
}

/* ---- sources and output ---- */

static int s_source_ext(const char *p)
{
    static const char *const exts[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", NULL};
    const char *dot = strrchr(p, '.');
    for (int i = 0; dot && exts[i]; i++)
        if (!strcmp(dot, exts[i]))
            return 1;
    return 0;
}

/* Appends rel (copied) to the list unless it is there. */
static void s_list_add(char ***v, size_t *n, const char *rel)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i], rel))
            return;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return;
    *v = nv;
    if ((nv[*n] = strdup(rel)))
        (*n)++;
}

/* The sources of target in a build file (build.ninja, or a build.make):
 * the C/C++ files under the source folder on the lines that make an
 * object of "CMakeFiles/TARGET.dir/". */
static void s_scan_build_file(const char *path, const char *target, const char *source,
                              const char *project, char ***v, size_t *n)
{
    char *text = NULL, *mark = wh_strdup_printf("CMakeFiles/%s.dir/", target);
    size_t len = 0;
    if (!mark || wh_read_file(path, S_LOG_CAP, &text, &len)) {
        free(mark);
        return;
    }
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *obj = strstr(l, mark), *colon = obj ? strstr(obj, ".o: ") : NULL;
        if (!colon)
            continue;
        char *save2 = NULL;
        for (char *tok = strtok_r(colon + 4, " \t", &save2); tok; tok = strtok_r(NULL, " \t", &save2)) {
            const char *in_src = s_under(tok, source), *in_proj = s_under(tok, project);
            if (in_src && in_proj && *in_proj && s_source_ext(tok))
                s_list_add(v, n, in_proj + 1);
        }
    }
    free(text);
    free(mark);
}

/* The files of pattern (glob, absolute) inside project, added as relative
 * paths. */
static void s_glob_add(const char *pattern, const char *project, char ***v, size_t *n)
{
    glob_t g = {0};
    if (glob(pattern, 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *in = s_under(g.gl_pathv[i], project);
        if (in && *in && wh_is_file(g.gl_pathv[i]))
            s_list_add(v, n, in + 1);
    }
    globfree(&g);
}

/* The sources the build files list for target (Ninja's build.ninja, else
 * the target's build.make at some depth). */
static void s_build_sources(const wh_ctest_t *c, const char *project, const char *target,
                            char ***files, size_t *n)
{
    char *ninja = wh_path_join(c->build, "build.ninja");
    if (ninja && wh_is_file(ninja))
        s_scan_build_file(ninja, target, c->source, project, files, n);
    free(ninja);
    static const char *const depths[] = {"", "/*", "/*/*", "/*/*/*"};
    for (size_t d = 0; !*n && d < sizeof depths / sizeof depths[0]; d++) {
        char *pat = wh_strdup_printf("%s%s/CMakeFiles/%s.dir/build.make", c->build, depths[d], target);
        glob_t g = {0};
        if (pat && glob(pat, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; i++)
                s_scan_build_file(g.gl_pathv[i], target, c->source, project, files, n);
            globfree(&g);
        }
        free(pat);
    }
}

int wh_ctest_sources(const wh_ctest_t *c, const char *project, const char *test, char ***files,
                     size_t *n)
{
    *files = NULL, *n = 0;
    const s_test_t *t = NULL;
    for (size_t i = 0; i < c->n && !t; i++)
        if (!strcmp(c->tests[i].name, test))
            t = &c->tests[i];
    char *target = t ? s_target(c, t) : NULL;
    if (!target)
        return 0;
    s_build_sources(c, project, target, files, n);
    /* No build file lists it: the project's files named like it. */
    static const char *const depths[] = {"", "/*", "/*/*", "/*/*/*"};
    static const char *const exts[] = {"c", "cc", "cpp", "cxx"};
    for (size_t d = 0; !*n && d < sizeof depths / sizeof depths[0]; d++)
        for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
            char *pat = wh_strdup_printf("%s%s/%s.%s", project, depths[d], target, exts[e]);
            if (pat)
                s_glob_add(pat, project, files, n);
            free(pat);
        }
    free(target);
    return 0;
}

char *wh_ctest_output(const wh_ctest_t *c, const char *test)
{
    char *path = wh_path_join(c->build, "Testing/Temporary/LastTest.log"), *text = NULL;
    size_t len = 0;
    int rc = path ? wh_read_file(path, S_LOG_CAP, &text, &len) : WH_ENOMEM;
    free(path);
    if (rc)
        return NULL;
    /* "N/M Test: NAME" opens the test's block; its output follows the
     * "Output:" line and the dashes under it. */
    char *want = wh_strdup_printf(" Test: %s\n", test), *out = NULL;
    for (char *p = want ? strstr(text, want) : NULL; p && !out; p = strstr(p + 1, want)) {
        const char *ls = p;
        while (ls > text && ls[-1] != '\n')
            ls--;
        if (!isdigit((unsigned char)*ls))
            continue;
        char *o = strstr(p, "\nOutput:\n");
        char *body = o ? strchr(o + 9, '\n') : NULL;
        char *end = body ? strstr(body + 1, "<end of output>") : NULL;
        if (end)
            out = strndup(body + 1, (size_t)(end - body - 1));
    }
    free(want);
    free(text);
    return out;
}

/* A CMake boolean: 1, ON, YES, TRUE, Y or a non-zero number. */
static int s_cmake_true(const char *v)
{
    static const char *const yes[] = {"1", "ON", "YES", "TRUE", "Y"};
    if (!v)
        return 0;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!strcasecmp(v, yes[i]))
            return 1;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    return end != v && !*end && n != 0;
}

/* A CMake list "a;b" as lines "a\nb"; NULL for NULL or "". */
static char *s_list_lines(const char *v)
{
    if (!v || !*v)
        return NULL;
    char *s = strdup(v);
    for (char *p = s; p && *p; p++)
        if (*p == ';')
            *p = '\n';
    return s;
}

int wh_ctest_judge(const wh_ctest_t *c, const char *test, int *will_fail, char **pass_rx,
                   char **fail_rx)
{
    *will_fail = 0;
    *pass_rx = *fail_rx = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const s_test_t *t = &c->tests[i];
        if (strcmp(t->name, test))
            continue;
        *will_fail = s_cmake_true(t->will_fail);
        *pass_rx = s_list_lines(t->pass_rx);
        *fail_rx = s_list_lines(t->fail_rx);
        if ((t->pass_rx && *t->pass_rx && !*pass_rx) || (t->fail_rx && *t->fail_rx && !*fail_rx)) {
            free(*pass_rx), free(*fail_rx);
            *pass_rx = *fail_rx = NULL;
            return WH_ENOMEM;
        }
        return 0;
    }
    return WH_ENOTFOUND;
}

int wh_ctest_not_run(const wh_ctest_t *c, const char *test)
{
    char *path = wh_path_join(c->build, "Testing/Temporary/LastTest.log"), *text = NULL;
    size_t len = 0;
    int rc = path ? wh_read_file(path, S_LOG_CAP, &text, &len) : WH_ENOMEM;
    free(path);
    if (rc)
        return 0;
    /* ctest's block of a test it could not start: "Command: \"\"" under
     * "N/M Test: NAME" ("Unable to find executable: ..." before it). */
    char *want = wh_strdup_printf(" Test: %s\nCommand: \"\"\n", test);
    int not_run = want && strstr(text, want) != NULL;
    free(want);
    free(text);
    return not_run;
}
