/*
 * compdb — compile commands from compilation databases. See compdb.h.
 */
#define _GNU_SOURCE
#include "compdb.h"
#include "wh_common.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* compile_commands.json of big projects run to tens of megabytes. */
#define S_MAX_DB (256u << 20)
#define S_MAX_DEPTH 3

void wh_compile_cmd_clear(wh_compile_cmd_t *c)
{
    if (!c)
        return;
    free(c->directory);
    free(c->file);
    for (int i = 0; c->argv && i < c->argc; i++)
        free(c->argv[i]);
    free(c->argv);
    c->directory = c->file = NULL;
    c->argv = NULL;
    c->argc = 0;
}

int wh_compile_cmd_copy(wh_compile_cmd_t *dst, const wh_compile_cmd_t *src)
{
    wh_compile_cmd_t t = {0};
    int bad = 0;
    t.directory = wh_strdup0(src->directory);
    t.file = wh_strdup0(src->file);
    bad |= (src->directory && !t.directory) || (src->file && !t.file);
    t.argv = calloc((size_t)src->argc + 1, sizeof *t.argv);
    bad |= !t.argv;
    for (int i = 0; t.argv && i < src->argc; i++) {
        t.argv[i] = strdup(src->argv[i]);
        bad |= !t.argv[i];
        t.argc = i + 1;
    }
    if (bad) {
        wh_compile_cmd_clear(&t);
        return WH_ENOMEM;
    }
    *dst = t;
    return 0;
}

/* ---- paths ---- */

/* path made absolute against dir and normalized lexically ("." and ".."
 * components resolved, no double or trailing slashes); malloc'ed. */
static char *s_normalize(const char *dir, const char *path)
{
    char *joined = path[0] == '/' ? strdup(path) : wh_path_join(dir ? dir : "/", path);
    if (!joined)
        return NULL;
    size_t n = strlen(joined);
    char *out = malloc(n + 2);
    if (!out) {
        free(joined);
        return NULL;
    }
    size_t o = 0;
    char *save = NULL;
    for (char *tok = strtok_r(joined, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0) {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
            continue;
        }
        out[o++] = '/';
        size_t l = strlen(tok);
        memcpy(out + o, tok, l);
        o += l;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    free(joined);
    return out;
}

/* The path a file is known by: its real path when it exists, else the
 * normalized one. */
static char *s_canonical(const char *dir, const char *path)
{
    char *norm = s_normalize(dir, path);
    if (!norm)
        return NULL;
    char *real = realpath(norm, NULL);
    if (real) {
        free(norm);
        return real;
    }
    return norm;
}

/* ---- shell words ---- */

int wh_compdb_split(const char *cmd, char ***argv)
{
    *argv = NULL;
    char **v = NULL;
    int n = 0, cap = 0;
    wh_buf_t w = WH_BUF_INIT;
    const char *p = cmd;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p)
            break;
        wh_buf_reset(&w);
        int any = 0;
        while (*p && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
            any = 1;
            if (*p == '\\' && p[1]) {
                wh_buf_append(&w, p + 1, 1);
                p += 2;
            } else if (*p == '\'') {
                const char *e = strchr(p + 1, '\'');
                size_t l = e ? (size_t)(e - p - 1) : strlen(p + 1);
                wh_buf_append(&w, p + 1, l);
                p += l + 1 + (e != NULL);
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
                        p++;
                    wh_buf_append(&w, p, 1);
                    p++;
                }
                if (*p == '"')
                    p++;
            } else {
                wh_buf_append(&w, p, 1);
                p++;
            }
        }
        if (!any)
            continue;
        if (n + 1 >= cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv)
                goto oom;
            v = nv;
        }
        v[n] = strndup(w.buf ? w.buf : "", w.len);
        if (!v[n])
            goto oom;
        v[++n] = NULL;
    }
    wh_buf_free(&w);
    if (!v && !(v = calloc(1, sizeof *v)))
        return WH_ENOMEM;
    *argv = v;
    return n;
oom:
    wh_buf_free(&w);
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return WH_ENOMEM;
}

/* ---- lookup ---- */

/* Fills c from one database entry (directory, file, arguments|command). */
static int s_entry(json_t *e, wh_compile_cmd_t *c)
{
    const char *dir = json_string_value(json_object_get(e, "directory"));
    const char *file = json_string_value(json_object_get(e, "file"));
    json_t *args = json_object_get(e, "arguments");
    const char *command = json_string_value(json_object_get(e, "command"));
    if (!dir || !file || (!json_is_array(args) && !command))
        return WH_EPARSE;
    memset(c, 0, sizeof *c);
    c->directory = s_normalize("/", dir);
    c->file = s_normalize(c->directory ? c->directory : "/", file);
    if (!c->directory || !c->file)
        goto oom;
    if (json_is_array(args)) {
        size_t n = json_array_size(args);
        c->argv = calloc(n + 1, sizeof *c->argv);
        if (!c->argv)
            goto oom;
        for (size_t i = 0; i < n; i++) {
            const char *s = json_string_value(json_array_get(args, i));
            if (!s) {
                wh_compile_cmd_clear(c);
                return WH_EPARSE;
            }
            if (!(c->argv[c->argc] = strdup(s)))
                goto oom;
            c->argc++;
        }
    } else {
        int n = wh_compdb_split(command, &c->argv);
        if (n < 0)
            goto oom;
        c->argc = n;
    }
    return 0;
oom:
    wh_compile_cmd_clear(c);
    return WH_ENOMEM;
}

int wh_compdb_lookup(const char *db_path, const char *file, wh_compile_cmd_t *out, char **err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t len = 0;
    int rc = wh_read_file(db_path, S_MAX_DB, &text, &len);
    if (rc) {
        if (err)
            *err = wh_strdup_printf("cannot read '%s': %s", db_path, wh_strerror(rc));
        return rc;
    }
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    free(text);
    if (!json_is_array(root)) {
        if (err)
            *err = wh_strdup_printf("'%s' is not a compilation database (%s, line %d)", db_path,
                                    root ? "not a JSON array" : je.text, je.line);
        json_decref(root);
        return WH_EPARSE;
    }
    char *want = s_canonical("/", file);
    rc = want ? WH_ENOTFOUND : WH_ENOMEM;
    for (size_t i = 0; want && i < json_array_size(root) && rc == WH_ENOTFOUND; i++) {
        json_t *e = json_array_get(root, i);
        const char *dir = json_string_value(json_object_get(e, "directory"));
        const char *f = json_string_value(json_object_get(e, "file"));
        if (!dir || !f)
            continue;
        char *ndir = s_normalize("/", dir);
        char *have = ndir ? s_canonical(ndir, f) : NULL;
        int same = have && strcmp(have, want) == 0;
        free(ndir);
        free(have);
        if (same) {
            rc = s_entry(e, out);
            if (rc == WH_EPARSE)
                rc = WH_ENOTFOUND; /* a malformed entry: look further */
        }
    }
    free(want);
    json_decref(root);
    return rc;
}

/* Collects the paths of compile_commands.json files under dir. */
static void s_collect(const char *dir, int depth, char ***v, int *n)
{
    if (depth > S_MAX_DEPTH || *n >= 64)
        return;
    struct dirent **ents = NULL;
    int k = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < k; i++) {
        const char *nm = ents[i]->d_name;
        if (nm[0] == '.' && (!nm[1] || nm[1] == '.' || !strcmp(nm, ".git"))) {
            free(ents[i]);
            continue;
        }
        char *p = wh_path_join(dir, nm);
        if (p && strcmp(nm, "compile_commands.json") == 0 && wh_is_file(p) && *n < 64) {
            char **nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
            if (nv) {
                *v = nv;
                nv[(*n)++] = p;
                p = NULL;
            }
        } else if (p && ents[i]->d_type == DT_DIR) {
            s_collect(p, depth + 1, v, n);
        }
        free(p);
        free(ents[i]);
    }
    free(ents);
}

int wh_compdb_find(const char *root, const char *file, wh_compile_cmd_t *out, char **db_path)
{
    memset(out, 0, sizeof *out);
    if (db_path)
        *db_path = NULL;
    char **v = NULL;
    int n = 0;
    char *bear = wh_path_join(root, WH_COMPDB_BEAR_NAME);
    if (bear && wh_is_file(bear) && (v = malloc(sizeof *v))) {
        v[n++] = bear;
        bear = NULL;
    }
    free(bear);
    /* root/compile_commands.json sorts first among the rest: the walk
     * lists a folder's files before it descends (scandir order) only by
     * name, so put it in front explicitly. */
    char *top = wh_path_join(root, "compile_commands.json");
    int first = n;
    s_collect(root, 0, &v, &n);
    for (int i = first; top && i < n; i++) {
        if (strcmp(v[i], top) == 0 && i != first) {
            char *t = v[i];
            memmove(v + first + 1, v + first, (size_t)(i - first) * sizeof *v);
            v[first] = t;
        }
    }
    free(top);
    int rc = WH_ENOTFOUND;
    for (int i = 0; i < n; i++) {
        if (rc == WH_ENOTFOUND && wh_compdb_lookup(v[i], file, out, NULL) == 0) {
            rc = 0;
            if (db_path) {
                *db_path = v[i];
                v[i] = NULL;
            }
        }
        free(v[i]);
    }
    free(v);
    return rc;
}

/* ---- rebase ---- */

/* Options whose value is a path: as a separate word, or joined. The first
 * four name header search folders. */
static const char *const s_path_opts[] = {
    "-isystem", "-iquote", "-idirafter", "-I", "-include", "-imacros", "-isysroot", "--sysroot=",
    "--sysroot", NULL};
#define S_SEARCH_OPTS 4

/* path (absolute, or relative to dir) normalized, and when it lies under
 * `from`, its counterpart under `to` in *moved (else *moved is NULL). */
static int s_split_move(const char *dir, const char *path, const char *from, const char *to,
                        char **abs, char **moved)
{
    *moved = NULL;
    *abs = s_normalize(dir, path);
    if (!*abs)
        return WH_ENOMEM;
    size_t fl = strlen(from);
    if (strncmp(*abs, from, fl) != 0 || ((*abs)[fl] != '/' && (*abs)[fl] != '\0'))
        return 0;
    *moved = wh_strdup_printf("%s%s", to, *abs + fl);
    return *moved ? 0 : WH_ENOMEM;
}

/* Moves one path (see compdb.h): the moved path when it exists or when
 * the original does not either; else the original. */
static char *s_move(const char *dir, const char *path, const char *from, const char *to)
{
    char *abs, *moved;
    if (s_split_move(dir, path, from, to, &abs, &moved))
        return NULL;
    if (!moved)
        return abs;
    if (access(moved, F_OK) != 0 && access(abs, F_OK) == 0) {
        free(moved);
        return abs;
    }
    free(abs);
    return moved;
}

typedef struct {
    char **v;
    int n, cap;
} s_args_t;

static int s_args_push(s_args_t *a, char *s)
{
    if (!s)
        return WH_ENOMEM;
    if (a->n + 1 >= a->cap) {
        int cap = a->cap ? 2 * a->cap : 32;
        char **nv = realloc(a->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            free(s);
            return WH_ENOMEM;
        }
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
    return 0;
}

/* Appends option opt with path value: joined ("-Ipath") or separate. A
 * search folder under `from` becomes the project's folder, followed by the
 * workspace's own when that exists too (headers generated there by the
 * build are found, the project's copies come first). */
static int s_push_path(s_args_t *a, const char *opt, int joined, int search, const char *dir,
                       const char *path, const char *from, const char *to)
{
    char *abs, *moved;
    int rc = s_split_move(dir, path, from, to, &abs, &moved);
    if (rc)
        return rc;
    const char *vals[2] = {abs, NULL};
    if (moved) {
        int me = access(moved, F_OK) == 0, ae = access(abs, F_OK) == 0;
        if (search && me && ae) {
            vals[0] = moved;
            vals[1] = abs;
        } else if (me || !ae) {
            vals[0] = moved;
        }
    }
    for (int k = 0; k < 2 && vals[k] && rc == 0; k++) {
        if (joined) {
            rc = s_args_push(a, wh_strdup_printf("%s%s", opt, vals[k]));
        } else {
            rc = s_args_push(a, strdup(opt));
            if (rc == 0)
                rc = s_args_push(a, strdup(vals[k]));
        }
    }
    free(abs);
    free(moved);
    return rc;
}

int wh_compile_cmd_rebase(wh_compile_cmd_t *c, const char *from_in, const char *to_in)
{
    char *from = s_normalize("/", from_in), *to = s_normalize("/", to_in);
    const char *dir = c->directory ? c->directory : from;
    s_args_t a = {0};
    int rc = WH_ENOMEM;
    if (!from || !to || c->argc < 1 || s_args_push(&a, strdup(c->argv[0])))
        goto out;
    for (int i = 1; i < c->argc; i++) {
        const char *arg = c->argv[i];
        int done = 0;
        for (int k = 0; s_path_opts[k] && !done; k++) {
            const char *o = s_path_opts[k];
            size_t l = strlen(o);
            if (strncmp(arg, o, l) != 0)
                continue;
            done = 1;
            if (arg[l] == '\0' && i + 1 < c->argc && o[l - 1] != '=')
                rc = s_push_path(&a, o, 0, k < S_SEARCH_OPTS, dir, c->argv[++i], from, to);
            else if (arg[l] != '\0')
                rc = s_push_path(&a, o, 1, k < S_SEARCH_OPTS, dir, arg + l, from, to);
            else
                rc = s_args_push(&a, strdup(arg));
            if (rc)
                goto out;
        }
        if (done)
            continue;
        char *nv = NULL;
        if (arg[0] != '-' && c->file) {
            /* The input file, as the command spells it. */
            char *abs = s_normalize(dir, arg);
            if (abs && strcmp(abs, c->file) == 0)
                nv = s_move(dir, arg, from, to);
            free(abs);
        }
        rc = s_args_push(&a, nv ? nv : strdup(arg));
        if (rc)
            goto out;
    }
    rc = WH_ENOMEM;
    if (c->file) {
        char *f = s_move(dir, c->file, from, to);
        if (!f)
            goto out;
        free(c->file);
        c->file = f;
    }
    /* The directory only resolves what stayed relative: the project's
     * copy of it, or the project's root. */
    char *d = s_move("/", dir, from, to);
    if (!d)
        goto out;
    size_t fl = strlen(from);
    int still_from = strncmp(d, from, fl) == 0 && (d[fl] == '/' || d[fl] == '\0');
    if (access(d, F_OK) != 0 || still_from) {
        free(d);
        d = strdup(to);
        if (!d)
            goto out;
    }
    free(c->directory);
    c->directory = d;
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
    free(c->argv);
    c->argv = a.v;
    c->argc = a.n;
    a.v = NULL;
    a.n = 0;
    rc = 0;
out:
    for (int i = 0; i < a.n; i++)
        free(a.v[i]);
    free(a.v);
    free(from);
    free(to);
    return rc;
}

/* ---- JSON ---- */

char *wh_compile_cmd_to_json(const wh_compile_cmd_t *c)
{
    if (!c || c->argc == 0)
        return strdup("{}");
    json_t *o = json_object();
    json_t *a = json_array();
    json_object_set_new(o, "directory", json_string(c->directory ? c->directory : "/"));
    json_object_set_new(o, "file", json_string(c->file ? c->file : ""));
    for (int i = 0; i < c->argc; i++)
        json_array_append_new(a, json_string(c->argv[i]));
    json_object_set_new(o, "arguments", a);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

int wh_compile_cmd_from_json(const char *s, wh_compile_cmd_t *c)
{
    memset(c, 0, sizeof *c);
    json_t *o = s ? json_loads(s, 0, NULL) : NULL;
    if (!json_is_object(o)) {
        json_decref(o);
        return WH_EPARSE;
    }
    int rc = json_object_size(o) == 0 ? 0 : s_entry(o, c);
    json_decref(o);
    return rc;
}
