/*
 * group — root-cause clusters of run folders. See group.h.
 */
#include "group.h"

#include "batchgroup.h"
#include "cli.h"
#include "normalize.h"
#include "wh_common.h"

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define S_FILE_CAP (1u << 20)

typedef struct {
    char *name, *test;
    char *file;       /* the test file, from summary.json */
    char *key;        /* kind | location | message, test name masked */
    char **stmts;     /* sorted, distinct statement lines */
    size_t n_stmts;
    size_t parent;    /* union-find */
} s_run_t;

struct wh_group {
    s_run_t *runs;
    size_t n, cap;
};

size_t wh_group_runs(const wh_group_t *g) { return g->n; }
const char *wh_group_run_name(const wh_group_t *g, size_t i) { return g->runs[i].name; }
const char *wh_group_run_test(const wh_group_t *g, size_t i) { return g->runs[i].test; }

void wh_group_destroy(wh_group_t **gp)
{
    if (!gp || !*gp)
        return;
    wh_group_t *g = *gp;
    for (size_t i = 0; i < g->n; i++) {
        s_run_t *r = &g->runs[i];
        free(r->name), free(r->test), free(r->file), free(r->key);
        for (size_t j = 0; j < r->n_stmts; j++)
            free(r->stmts[j]);
        free(r->stmts);
    }
    free(g->runs);
    free(g);
    *gp = NULL;
}

static const char *s_str(json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

/* The fingerprint key of a summary.json without the test's name. */
static int s_read_key(s_run_t *r, const char *dir)
{
    char *p = wh_path_join(dir, "summary.json");
    json_t *o = p ? json_load_file(p, 0, NULL) : NULL;
    free(p);
    json_t *fp = json_object_get(o, "fingerprint");
    if (!json_is_object(fp)) {
        json_decref(o);
        return WH_EPARSE;
    }
    r->test = strdup(s_str(fp, "test"));
    r->file = strdup(s_str(o, "file"));
    char *msg = wh_fp_normalized(s_str(fp, "message"), NULL);
    char *m1 = msg ? wh_bg_mask(msg, r->test, 0) : NULL;
    char *m2 = m1 ? wh_bg_mask(m1, wh_bg_bare(r->test), 0) : NULL;
    r->key = m2 ? wh_strdup_printf("%s | %s | %s", s_str(fp, "kind"), s_str(fp, "location"), m2) : NULL;
    free(msg), free(m1), free(m2);
    json_decref(o);
    return r->test && r->file && r->key ? 0 : WH_ENOMEM;
}

static int s_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reduced test of a run folder: "reduced" + the test file's extension
 * (summary.json's "file"; the folder also holds reduced.lines.<ext>,
 * reduced.diff and more). */
static char *s_reduced_path(const char *dir, const char *file)
{
    const char *slash = strrchr(file, '/'), *dot = strrchr(file, '.');
    const char *ext = dot && (!slash || dot > slash) ? dot : "";
    char *name = wh_strdup_printf("reduced%s", ext);
    char *p = name ? wh_path_join(dir, name) : NULL;
    free(name);
    return p;
}

/* Adds each statement line (trimmed, ending in ';', test name masked) of
 * the target test's function in the reduced test file (the rest of the file
 * is left as it was and says nothing about the failure); a folder without
 * a reduced test has no statements. */
static int s_read_stmts(s_run_t *r, const char *dir)
{
    char *p = s_reduced_path(dir, r->file), *text = NULL;
    size_t len = 0, cap = 0;
    int rc = p && wh_is_file(p) ? wh_read_file(p, S_FILE_CAP, &text, &len) : 0;
    free(p);
    if (rc < 0 || !text)
        return rc;
    const char *bare = wh_bg_bare(r->test);
    size_t bl = strlen(bare);
    int in_fn = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!in_fn) {
            const char *at = l[0] != ' ' && l[0] != '\t' ? strstr(l, bare) : NULL;
            in_fn = at && at[bl] == '(';
            continue;
        }
        if (l[0] == '}')
            break;
        while (*l == ' ' || *l == '\t')
            l++;
        size_t n = strlen(l);
        while (n && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r'))
            l[--n] = 0;
        if (!n || l[n - 1] != ';')
            continue;
        if (r->n_stmts == cap) {
            cap = cap ? cap * 2 : 16;
            char **s = realloc(r->stmts, cap * sizeof *s);
            if (!s)
                break;
            r->stmts = s;
        }
        r->stmts[r->n_stmts] = wh_bg_mask(l, wh_bg_bare(r->test), 0);
        r->n_stmts++;
    }
    free(text);
    qsort(r->stmts, r->n_stmts, sizeof *r->stmts, s_cmp_str);
    size_t w = 0;
    for (size_t i = 0; i < r->n_stmts; i++)
        if (w && !strcmp(r->stmts[w - 1], r->stmts[i]))
            free(r->stmts[i]);
        else
            r->stmts[w++] = r->stmts[i];
    r->n_stmts = w;
    return 0;
}

static int s_cmp_run(const void *a, const void *b)
{
    return strcmp(((const s_run_t *)a)->name, ((const s_run_t *)b)->name);
}

/* Adds the run folder sub (shown as name) when it holds a summary.json;
 * 0, or WH_E* with *err. */
static int s_load_one(wh_group_t *g, const char *sub, const char *name, char **err)
{
    char *sum = wh_path_join(sub, "summary.json");
    int has = sum && wh_is_file(sum);
    free(sum);
    if (!has)
        return 0;
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 8;
        s_run_t *n = realloc(g->runs, cap * sizeof *n);
        if (!n) {
            *err = strdup("out of memory reading run folders");
            return WH_ENOMEM;
        }
        g->runs = n, g->cap = cap;
    }
    s_run_t *r = memset(&g->runs[g->n++], 0, sizeof *r);
    r->name = strdup(name);
    if (s_read_key(r, sub) < 0 || s_read_stmts(r, sub) < 0) {
        *err = wh_strdup_printf("run folder '%s' has no readable fingerprint in summary.json", sub);
        return WH_EPARSE;
    }
    return 0;
}

/* 1 when dir/name is a symbolic link (whittle-runs/latest points at a run
 * folder that is listed under its own name). */
static int s_is_link(const char *dir, const char *name)
{
    char *p = wh_path_join(dir, name);
    struct stat st;
    int link = p && lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
    free(p);
    return link;
}

static wh_group_t *s_sorted(wh_group_t *g)
{
    if (g->n)
        qsort(g->runs, g->n, sizeof *g->runs, s_cmp_run);
    return g;
}

/* How deep run folders are looked for below RUNS_DIR: whittle mutate's
 * are OUT/reduce/<mutant>-<test>/<walk>/<run>, four down. */
#define S_MAX_DEPTH 4

static int s_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Adds the run folders in dir (rel: its name below RUNS_DIR, NULL at the
 * top), and below those that are not run folders, depth levels down at
 * most; a run folder's own subfolders (reports/, work/) are not searched.
 * Symbolic links are skipped (`latest`). 0, or WH_E* with *err. */
static int s_scan(wh_group_t *g, const char *dir, const char *rel, int depth, char **err)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (!rel)
            *err = wh_strdup_printf("cannot read runs folder '%s'", dir);
        return rel ? 0 : WH_EIO;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.' || s_is_link(dir, e->d_name))
            continue;
        char *sub = wh_path_join(dir, e->d_name);
        char *name = rel ? wh_path_join(rel, e->d_name) : strdup(e->d_name);
        char *sum = sub ? wh_path_join(sub, "summary.json") : NULL;
        if (!sub || !name || !sum)
            rc = WH_ENOMEM;
        else if (wh_is_file(sum))
            rc = s_load_one(g, sub, name, err);
        else if (depth > 1 && s_is_dir(sub))
            rc = s_scan(g, sub, name, depth - 1, err);
        free(sum);
        free(name);
        free(sub);
    }
    closedir(d);
    return rc;
}

wh_group_t *wh_group_load(const char *dir, char **err)
{
    wh_group_t *g = calloc(1, sizeof *g);
    int rc = g ? s_scan(g, dir, NULL, S_MAX_DEPTH, err) : WH_ENOMEM;
    if (rc == 0)
        return s_sorted(g);
    if (!*err)
        *err = strdup("out of memory reading run folders");
    wh_group_destroy(&g);
    return NULL;
}

wh_group_t *wh_group_load_dirs(const char *const *dirs, size_t n, char **err)
{
    wh_group_t *g = calloc(1, sizeof *g);
    if (!g) {
        *err = strdup("out of memory reading run folders");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(dirs[i], '/');
        if (s_load_one(g, dirs[i], slash && slash[1] ? slash + 1 : dirs[i], err)) {
            wh_group_destroy(&g);
            return NULL;
        }
    }
    return s_sorted(g);
}

static size_t s_find(wh_group_t *g, size_t i)
{
    while (g->runs[i].parent != i)
        i = g->runs[i].parent = g->runs[g->runs[i].parent].parent;
    return i;
}

static void s_union(wh_group_t *g, size_t a, size_t b)
{
    a = s_find(g, a), b = s_find(g, b);
    if (a < b)
        g->runs[b].parent = a;
    else if (b < a)
        g->runs[a].parent = b;
}

/* 1 when the two sorted statement sets share at least half their union. */
static int s_similar(const s_run_t *a, const s_run_t *b)
{
    size_t i = 0, j = 0, both = 0;
    while (i < a->n_stmts && j < b->n_stmts) {
        int c = strcmp(a->stmts[i], b->stmts[j]);
        both += c == 0;
        i += c <= 0, j += c >= 0;
    }
    size_t uni = a->n_stmts + b->n_stmts - both;
    return uni && 2 * both >= uni;
}

void wh_group_cluster(wh_group_t *g)
{
    for (size_t i = 0; i < g->n; i++)
        g->runs[i].parent = i;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = i + 1; j < g->n; j++)
            if (!strcmp(g->runs[i].key, g->runs[j].key) || s_similar(&g->runs[i], &g->runs[j]))
                s_union(g, i, j);
}

size_t wh_group_of(const wh_group_t *g, size_t i)
{
    return s_find((wh_group_t *)g, i);
}

size_t wh_group_count(const wh_group_t *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        n += wh_group_of(g, i) == i;
    return n;
}

void wh_group_describe(const wh_group_t *g, wh_buf_t *b)
{
    wh_buf_printf(b, "%zu runs, %zu groups\n", g->n, wh_group_count(g));
    for (size_t i = 0, k = 0; i < g->n; i++) {
        if (wh_group_of(g, i) != i)
            continue;
        wh_buf_printf(b, "group %zu: %s\n", ++k, g->runs[i].key);
        for (size_t j = i; j < g->n; j++)
            if (wh_group_of(g, j) == i)
                wh_buf_printf(b, "  %s (%s)\n", g->runs[j].name, g->runs[j].test);
    }
}

int wh_group_cmd(int argc, char **argv)
{
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "group", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        ;
    if (rc < 0)
        return c.exit;
    if (c.npos != 1) {
        fputs("usage: whittle group RUNS_DIR\n", stderr);
        return 2;
    }
    char *err = NULL;
    wh_group_t *g = wh_group_load(c.pos[0], &err);
    if (!g) {
        fprintf(stderr, "whittle: error: %s\n", err ? err : "out of memory");
        free(err);
        return 1;
    }
    wh_group_cluster(g);
    wh_buf_t b = WH_BUF_INIT;
    wh_group_describe(g, &b);
    fputs(b.buf ? b.buf : "", stdout);
    wh_buf_free(&b);
    wh_group_destroy(&g);
    return 0;
}

int wh_group_print_dirs(const char *const *dirs, size_t n, FILE *fp)
{
    char *err = NULL;
    wh_group_t *g = wh_group_load_dirs(dirs, n, &err);
    if (!g) {
        fprintf(stderr, "whittle: warning: no groups: %s\n", err ? err : "out of memory");
        free(err);
        return WH_EPARSE;
    }
    if (g->n == 0) {
        /* A remote coordinator's run folders, not seen from here. */
        fprintf(fp, "Groups: none of the %zu run folders is readable here (whittle status "
                    "shows the coordinator's groups)\n", n);
        wh_group_destroy(&g);
        return 0;
    }
    wh_group_cluster(g);
    wh_buf_t b = WH_BUF_INIT;
    wh_group_describe(g, &b);
    fprintf(fp, "Groups (one root cause each): %s", b.buf ? b.buf : "\n");
    wh_buf_free(&b);
    wh_group_destroy(&g);
    return 0;
}
