/*
 * includer — the file that #includes a test file. See includer.h.
 */
#define _GNU_SOURCE
#include "includer.h"
#include "wh_common.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Files looked into at most, and their size cap: a project's sources. */
#define S_MAX_FILES 20000
#define S_MAX_SIZE (1u << 20)
#define S_MAX_DEPTH 8

static int s_is_source_name(const char *nm)
{
    const char *dot = strrchr(nm, '.');
    return dot && (!strcmp(dot, ".c") || !strcmp(dot, ".cc") || !strcmp(dot, ".cpp") ||
                   !strcmp(dot, ".cxx"));
}

static char *s_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

/* One preprocessor line of text: *kw ("include", "define"), and for an
 * include its name in *spec (len *sl) and delimiter *quoted. 0 when the
 * line is no such directive. */
typedef struct {
    const char *kw;
    const char *spec;
    size_t sl;
    int quoted;
    const char *rest; /* after "define" */
} s_directive_t;

static int s_directive(const char *line, const char *end, s_directive_t *d)
{
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '#')
        return 0;
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    memset(d, 0, sizeof *d);
    if ((size_t)(end - p) > 7 && !strncmp(p, "include", 7)) {
        p += 7;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        char close = p < end && *p == '<' ? '>' : p < end && *p == '"' ? '"' : 0;
        const char *e = close ? memchr(p + 1, close, (size_t)(end - p - 1)) : NULL;
        if (!e || e == p + 1)
            return 0;
        d->kw = "include";
        d->spec = p + 1;
        d->sl = (size_t)(e - p - 1);
        d->quoted = close == '"';
        return 1;
    }
    if ((size_t)(end - p) > 6 && !strncmp(p, "define", 6) && (p[6] == ' ' || p[6] == '\t')) {
        d->kw = "define";
        d->rest = p + 6;
        return 1;
    }
    return 0;
}

/* The absolute path a quoted include spec of includer (absolute) names:
 * beside the includer, else under the project; NULL when neither exists. */
static char *s_resolve(const char *project, const char *includer, const char *spec, size_t sl)
{
    char *name = strndup(spec, sl), *dir = s_dirname(includer);
    char *beside = name && dir ? wh_path_join(dir, name) : NULL;
    char *r = NULL;
    if (beside && wh_is_file(beside))
        r = wh_abspath(beside);
    if (!r && name) {
        char *under = wh_path_join(project, name);
        if (under && wh_is_file(under))
            r = wh_abspath(under);
        free(under);
    }
    free(beside);
    free(dir);
    free(name);
    return r;
}

static int s_push(wh_includer_t *inc, char *arg)
{
    char **v = arg ? realloc(inc->args, (size_t)(inc->nargs + 1) * sizeof *v) : NULL;
    if (!v) {
        free(arg);
        return WH_ENOMEM;
    }
    inc->args = v;
    v[inc->nargs++] = arg;
    return 0;
}

/* A one-line object-like #define as -DNAME[=VALUE]; NULL when it is a
 * function-like or continued one (those are not carried over). */
static char *s_define_arg(const char *rest, const char *end)
{
    const char *p = rest;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *n = p;
    while (p < end && (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                       (*p >= '0' && *p <= '9')))
        p++;
    if (p == n || (p < end && *p == '(') || (end > p && end[-1] == '\\'))
        return NULL;
    size_t nl = (size_t)(p - n);
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *ve = end;
    while (ve > p && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
        ve--;
    if (memmem(p, (size_t)(ve - p), "/*", 2) || memmem(p, (size_t)(ve - p), "//", 2))
        return NULL; /* a comment after the value: not worth a guess */
    return ve > p ? wh_strdup_printf("-D%.*s=%.*s", (int)nl, n, (int)(ve - p), p)
                  : wh_strdup_printf("-D%.*s", (int)nl, n);
}

/* Looks in includer (absolute) for an #include of want (absolute). 1 and
 * inc filled when found, 0 when not, WH_ENOMEM. */
static int s_scan(const char *project, const char *includer, const char *want,
                  wh_includer_t *inc)
{
    char *text = NULL;
    size_t len = 0;
    const char *base = strrchr(want, '/');
    base = base ? base + 1 : want;
    if (wh_read_file(includer, S_MAX_SIZE, &text, &len) != 0)
        return 0;
    if (!memmem(text, len, base, strlen(base))) {
        free(text);
        return 0;
    }
    wh_includer_t got = {0};
    int found = 0, rc = 0;
    unsigned line = 0;
    for (const char *l = text; !found && !rc && l < text + len;) {
        const char *nl = memchr(l, '\n', (size_t)(text + len - l));
        const char *end = nl ? nl : text + len;
        line++;
        s_directive_t d;
        if (s_directive(l, end, &d) && d.kw[0] == 'i') {
            char *abs = d.quoted ? s_resolve(project, includer, d.spec, d.sl) : NULL;
            if (abs && !strcmp(abs, want)) {
                found = 1;
                got.line = line;
            } else if (abs) {
                rc = s_push(&got, strdup("-include"));
                rc = rc ? rc : s_push(&got, strdup(abs));
            } else {
                rc = s_push(&got, strdup("-include"));
                rc = rc ? rc : s_push(&got, strndup(d.spec, d.sl));
            }
            free(abs);
        } else if (s_directive(l, end, &d)) {
            char *def = s_define_arg(d.rest, end);
            rc = def ? s_push(&got, def) : 0;
        }
        l = nl ? nl + 1 : text + len;
    }
    free(text);
    if (found && !rc) {
        *inc = got;
        return 1;
    }
    wh_includer_clear(&got);
    return rc;
}

typedef struct {
    const char *project;
    const char *want;
    int files;
    wh_includer_t *out;
    char *hit; /* absolute */
} s_search_t;

static int s_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir, sorted (NULL-ended, malloc'ed), or NULL. */
static char **s_list_dir(const char *dir, int *n)
{
    *n = 0;
    char *cache = wh_path_join(dir, "CMakeCache.txt");
    int build = cache && wh_is_file(cache);
    free(cache);
    DIR *d = build ? NULL : opendir(dir);
    if (!d)
        return NULL;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "whittle-runs"))
            continue;
        char **nv = realloc(v, (size_t)(*n + 2) * sizeof *nv);
        if (!nv)
            break;
        v = nv;
        if ((v[*n] = strdup(e->d_name)))
            (*n)++;
    }
    closedir(d);
    if (v) {
        v[*n] = NULL;
        qsort(v, (size_t)*n, sizeof *v, s_name_cmp);
    }
    return v;
}

/* Searches dir (absolute), its subfolders when deep; 1 when found. */
static int s_search(s_search_t *s, const char *dir, int depth, int deep)
{
    int n = 0, found = 0;
    char **v = s_list_dir(dir, &n);
    for (int i = 0; !found && i < n; i++) {
        char *sub = wh_path_join(dir, v[i]);
        if (!sub || s->files >= S_MAX_FILES) {
            free(sub);
            break;
        }
        if (s_is_source_name(v[i]) && strcmp(sub, s->want) && wh_is_file(sub)) {
            s->files++;
            found = s_scan(s->project, sub, s->want, s->out) == 1;
            if (found)
                s->hit = sub, sub = NULL;
        } else if (deep && depth < S_MAX_DEPTH && !s_is_source_name(v[i]) && wh_is_dir(sub)) {
            found = s_search(s, sub, depth + 1, deep);
        }
        free(sub);
    }
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return found;
}

void wh_includer_clear(wh_includer_t *inc)
{
    for (int i = 0; i < inc->nargs; i++)
        free(inc->args[i]);
    free(inc->args);
    free(inc->path);
    free(inc->flags);
    memset(inc, 0, sizeof *inc);
}

int wh_includer_find(const char *project, const char *file, wh_includer_t *out)
{
    memset(out, 0, sizeof *out);
    char *proj = wh_abspath(project);
    char *joined = file[0] == '/' ? strdup(file) : proj ? wh_path_join(proj, file) : NULL;
    char *want = joined ? wh_abspath(joined) : NULL;
    char *dir = want ? s_dirname(want) : NULL;
    s_search_t s = {proj, want, 0, out, NULL};
    int rc = proj && want && dir ? 0 : WH_ENOMEM;
    if (!rc && !s_search(&s, dir, 0, 0) && !s_search(&s, proj, 0, 1))
        rc = WH_ENOTFOUND;
    size_t pl = proj ? strlen(proj) : 0;
    if (!rc) {
        const char *rel = !strncmp(s.hit, proj, pl) && s.hit[pl] == '/' ? s.hit + pl + 1 : s.hit;
        out->path = strdup(rel);
        wh_buf_t b = WH_BUF_INIT;
        for (int i = 0; i < out->nargs; i++)
            wh_buf_printf(&b, "%s%s", i ? " " : "", out->args[i]);
        out->flags = b.buf ? wh_buf_detach(&b) : strdup("");
        if (!out->path || !out->flags) {
            wh_includer_clear(out);
            rc = WH_ENOMEM;
        }
    }
    free(s.hit);
    free(dir);
    free(want);
    free(joined);
    free(proj);
    return rc;
}

int wh_includer_sources(const char *project, const char *file, char ***v, size_t *n)
{
    *v = NULL, *n = 0;
    char *proj = wh_abspath(project);
    char *path = proj ? wh_path_join(proj, file) : NULL, *text = NULL;
    size_t len = 0, pl = proj ? strlen(proj) : 0;
    int rc = path ? 0 : WH_ENOMEM;
    if (!rc && wh_read_file(path, S_MAX_SIZE, &text, &len) != 0)
        text = NULL, len = 0;
    for (const char *l = text; !rc && l && l < text + len;) {
        const char *nl = memchr(l, '\n', (size_t)(text + len - l));
        const char *end = nl ? nl : text + len;
        s_directive_t d;
        char *name = s_directive(l, end, &d) && d.kw[0] == 'i' && d.quoted
                         ? strndup(d.spec, d.sl) : NULL;
        char *abs = name && s_is_source_name(name) ? s_resolve(proj, path, d.spec, d.sl) : NULL;
        if (abs && !strncmp(abs, proj, pl) && abs[pl] == '/') {
            char **nv = realloc(*v, (*n + 1) * sizeof *nv);
            if (!nv || !(nv[*n] = strdup(abs + pl + 1))) {
                rc = WH_ENOMEM;
                if (nv)
                    *v = nv;
            } else {
                *v = nv;
                (*n)++;
            }
        }
        free(abs);
        free(name);
        l = nl ? nl + 1 : text + len;
    }
    free(text);
    free(path);
    free(proj);
    return rc;
}

int wh_includer_applied(const char *const *args, int nargs)
{
    for (int i = 0; args && i < nargs; i++)
        if (!strncmp(args[i], "-include", 8))
            return 1;
    return 0;
}

/* Framework macros a test file may use only through its includer, and
 * their headers. */
static const struct {
    const char *macro;
    const char *header;
} s_macros[] = {
    {"START_TEST", "check.h"},        {"END_TEST", "check.h"},
    {"ck_assert", "check.h"},         {"TEST_F", "gtest/gtest.h"},
    {"TEST_P", "gtest/gtest.h"},      {"cmocka_unit_test", "cmocka.h"},
    {"assert_int_equal", "cmocka.h"}, {"assert_true", "cmocka.h"},
    {"CU_ASSERT", "CUnit/CUnit.h"},   {"TEST_ASSERT", "unity.h"},
    {"cr_assert", "criterion/criterion.h"},
};

const char *wh_includer_macro_header(const char *diag)
{
    for (size_t i = 0; diag && i < sizeof s_macros / sizeof *s_macros; i++) {
        const char *at = strstr(diag, s_macros[i].macro);
        size_t ml = strlen(s_macros[i].macro);
        /* The whole name, or a prefix of one (ck_assert_int_eq). */
        if (at && (at == diag || at[-1] == '\'' || at[-1] == ' ') &&
            (at[ml] == '\'' || at[ml] == '_' || at[ml] == ' ' || at[ml] == '('))
            return s_macros[i].header;
    }
    return NULL;
}

void wh_includer_advise(const char *project, const char *file, int applied, char **msg)
{
    if (!msg || !*msg)
        return;
    wh_includer_t inc;
    char *more = NULL;
    int rc = project && file ? wh_includer_find(project, file, &inc) : WH_ENOTFOUND;
    if (!rc && applied)
        more = wh_strdup_printf("%s (parsed as %s sees it at its line %u: %s)", *msg, inc.path,
                                inc.line, inc.flags[0] ? inc.flags : "nothing before it");
    else if (!rc)
        more = wh_strdup_printf("%s; %s is #included by %s (line %u), and parses only as part "
                                "of it: give -- %s (what %s has before the #include)",
                                *msg, file, inc.path, inc.line,
                                inc.flags[0] ? inc.flags : "-I...", inc.path);
    else if (rc == WH_ENOTFOUND && wh_includer_macro_header(*msg))
        more = wh_strdup_printf("%s; %s uses a macro of <%s> without including it: give "
                                "-- -include %s, or --file the file that includes it", *msg,
                                file, wh_includer_macro_header(*msg),
                                wh_includer_macro_header(*msg));
    if (!rc)
        wh_includer_clear(&inc);
    if (more) {
        free(*msg);
        *msg = more;
    }
}
