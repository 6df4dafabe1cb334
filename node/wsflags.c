/*
 * wsflags — recording the test file's compile command in a warm workspace.
 * See wsflags.h.
 */
#define _GNU_SOURCE
#include "wsflags.h"
#include "wh_common.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const *wh_wsflags_setup_env(void)
{
    static const char *const env[] = {"CMAKE_EXPORT_COMPILE_COMMANDS=ON", NULL};
    return env;
}

/* 1 when an executable named name is on PATH. */
static int s_on_path(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *save = NULL;
    int found = 0;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char *p = wh_path_join(d, name);
        found = p && access(p, X_OK) == 0;
        free(p);
    }
    free(copy);
    return found;
}

/* s single-quoted for sh: 'it'\''s'. */
static char *s_quote(const char *s)
{
    wh_buf_t b = WH_BUF_INIT;
    wh_buf_puts(&b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            wh_buf_puts(&b, "'\\''");
        else
            wh_buf_append(&b, s, 1);
    }
    wh_buf_puts(&b, "'");
    return wh_buf_detach(&b);
}

static int s_is_cmake_project(const char *root)
{
    char *p = wh_path_join(root, "CMakeLists.txt");
    int yes = p && wh_is_file(p);
    free(p);
    return yes;
}

char *wh_wsflags_setup_cmd(const char *root, const char *setup)
{
    if (s_is_cmake_project(root) || !s_on_path("bear"))
        return strdup(setup);
    char *out = wh_path_join(root, WH_COMPDB_BEAR_NAME);
    char *qo = out ? s_quote(out) : NULL, *qs = s_quote(setup);
    char *cmd = qo && qs ? wh_strdup_printf("bear --output %s -- sh -c %s", qo, qs) : NULL;
    free(out);
    free(qo);
    free(qs);
    return cmd;
}

/* CMake build folders under dir (holding CMakeCache.txt), at most 3 deep. */
static void s_build_dirs(const char *dir, int depth, char ***v, int *n)
{
    if (depth > 3 || *n >= 16)
        return;
    char *cache = wh_path_join(dir, "CMakeCache.txt");
    if (cache && wh_is_file(cache)) {
        char **nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
        if (nv) {
            *v = nv;
            nv[(*n)++] = strdup(dir);
        }
        free(cache);
        return;
    }
    free(cache);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_type != DT_DIR)
            continue;
        char *sub = wh_path_join(dir, e->d_name);
        if (sub)
            s_build_dirs(sub, depth + 1, v, n);
        free(sub);
    }
    if (d)
        closedir(d);
}

int wh_wsflags_find(const char *root, const char *test_file, wh_compile_cmd_t *out)
{
    char *f = wh_path_join(root, test_file);
    int rc = f ? wh_compdb_find(root, f, out, NULL) : WH_ENOMEM;
    free(f);
    return rc;
}

void wh_wsflags_after_setup(const char *root, const char *test_file, const wh_run_opts_t *tmpl)
{
    if (!s_is_cmake_project(root))
        return;
    wh_compile_cmd_t c;
    if (wh_wsflags_find(root, test_file, &c) == 0) {
        wh_compile_cmd_clear(&c);
        return;
    }
    char **dirs = NULL;
    int n = 0;
    s_build_dirs(root, 0, &dirs, &n);
    for (int i = 0; i < n; i++) {
        char *q = dirs[i] ? s_quote(dirs[i]) : NULL;
        char *cmd = q ? wh_strdup_printf("cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON %s", q) : NULL;
        if (cmd) {
            wh_run_opts_t o = *tmpl;
            o.cmd = cmd;
            wh_run_result_t r = {0};
            int rc = wh_run(&o, &r);
            if (rc || r.exit_code || r.signaled || r.timed_out)
                wh_info("re-configuring %s for compile_commands.json failed", dirs[i]);
        }
        free(cmd);
        free(q);
        free(dirs[i]);
    }
    free(dirs);
}
