/*
 * testfind — report cases to test functions; see testfind.h.
 */
#define _GNU_SOURCE
#include "testfind.h"

#include "includer.h"
#include "tree.h"
#include "wh_common.h"

#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *file; /* relative to the project */
    char *test; /* as the file defines it */
} s_def_t;

struct wh_testfind {
    s_def_t *defs;
    size_t n, cap, files;
    wh_job_t *jobs; /* per file: the flags it was listed with */
    char *project;
    char *hidden;   /* why a file another one #includes could not be listed */
};

const char *wh_testfind_program(const wh_testfind_t *f, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; f && i < f->files; i++) {
        const char *path = f->jobs[i].file;
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strrchr(base, '.');
        if (dot && (size_t)(dot - base) == n && !strncmp(base, name, n))
            return path;
    }
    return NULL;
}

void wh_testfind_close(wh_testfind_t **fp)
{
    if (!fp || !*fp)
        return;
    wh_testfind_t *f = *fp;
    for (size_t i = 0; i < f->n; i++)
        free(f->defs[i].file), free(f->defs[i].test);
    free(f->defs);
    for (size_t i = 0; i < f->files; i++)
        wh_job_clear(&f->jobs[i]);
    free(f->jobs);
    free(f->project);
    free(f->hidden);
    free(f);
    *fp = NULL;
}

size_t wh_testfind_files(const wh_testfind_t *f) { return f->files; }
size_t wh_testfind_tests(const wh_testfind_t *f) { return f->n; }

/* Adds a definition; takes test (freed on failure). */
static int s_add(wh_testfind_t *f, const char *file, char *test)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 32;
        s_def_t *d = realloc(f->defs, cap * sizeof *d);
        if (!d) {
            free(test);
            return WH_ENOMEM;
        }
        f->defs = d, f->cap = cap;
    }
    f->defs[f->n].file = strdup(file);
    f->defs[f->n].test = test;
    f->n++;
    return f->defs[f->n - 1].file ? 0 : WH_ENOMEM;
}

/* libclang's options for a file listed with job j's flags. */
static wh_tree_opts_t s_opts(const wh_job_t *j)
{
    wh_tree_opts_t to = {j->compdb, (const char *const *)j->args, j->nargs, NULL,
                         j->allow_parse_errors         ? WH_TREE_ALLOW_ERRORS
                         : !wh_job_flags_explicit(j) ? WH_TREE_ALLOW_MISSING_HEADERS
                                                     : 0,
                         j->project};
    return to;
}

/* Lists one file (rel, inside project) with the job's flags or the header
 * guess for it. */
static int s_list(wh_testfind_t *f, const wh_job_t *tmpl, const char *project, const char *rel,
                  char **err)
{
    wh_job_t j;
    if (wh_job_copy(&j, tmpl))
        return WH_ENOMEM;
    free(j.project), free(j.file);
    j.project = strdup(project);
    j.file = strdup(rel);
    wh_job_guess_includes(&j);
    wh_tree_opts_t to = s_opts(&j);
    char *path = wh_path_join(project, rel);
    char **names = NULL;
    int n = 0;
    int rc = path ? wh_tree_list(path, &to, &names, &n, err) : WH_ENOMEM;
    if (rc == WH_EPARSE)
        wh_includer_advise(project, rel, wh_includer_applied(to.args, to.nargs), err);
    for (int i = 0; i < n; i++)
        if (!rc)
            rc = s_add(f, rel, names[i]);
        else
            free(names[i]);
    free(names);
    free(path);
    wh_job_t *nj = rc ? NULL : realloc(f->jobs, (f->files + 1) * sizeof *nj);
    if (nj) {
        f->jobs = nj;
        f->jobs[f->files++] = j;
    } else {
        wh_job_clear(&j);
        rc = rc ? rc : WH_ENOMEM;
    }
    return rc;
}

static int s_listed(const wh_testfind_t *f, const char *rel)
{
    for (size_t i = 0; i < f->files; i++)
        if (!strcmp(f->jobs[i].file, rel))
            return 1;
    return 0;
}

/* Lists the source files rel #includes (a Check runner's "test_art.c":
 * its tests are defined there, not in the runner), each as its includer
 * sees it (wh_job_guess_includes). One that cannot be listed is no error
 * of the listing: the first such error is kept for the messages. */
static int s_list_included(wh_testfind_t *f, const wh_job_t *tmpl, const char *project,
                           const char *rel)
{
    char **v = NULL;
    size_t n = 0;
    int rc = wh_includer_sources(project, rel, &v, &n);
    for (size_t i = 0; !rc && i < n; i++) {
        if (s_listed(f, v[i]))
            continue;
        char *err = NULL;
        rc = s_list(f, tmpl, project, v[i], &err);
        if (rc && rc != WH_ENOMEM) {
            if (!f->hidden)
                f->hidden = wh_strdup_printf("%s, which %s #includes, cannot be listed: %s",
                                             v[i], rel, err ? err : wh_strerror(rc));
            rc = 0;
        }
        free(err);
    }
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return rc;
}

const char *wh_testfind_hidden(const wh_testfind_t *f)
{
    return f ? f->hidden : NULL;
}

wh_testfind_t *wh_testfind_open(const wh_job_t *tmpl, const char *project, const char *pattern,
                                char **err)
{
    wh_testfind_t *f = calloc(1, sizeof *f);
    char *pat = pattern[0] == '/' ? strdup(pattern) : wh_path_join(project, pattern);
    glob_t g = {0};
    int grc = pat ? glob(pat, 0, NULL, &g) : GLOB_NOSPACE; /* sorted */
    size_t pl = strlen(project);
    int rc = f && grc == 0 ? 0 : WH_ENOTFOUND;
    if (rc)
        *err = wh_strdup_printf("no test file matches '%s' in project '%s'", pattern, project);
    for (size_t i = 0; !rc && i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        if (!wh_is_file(p))
            continue;
        if (strncmp(p, project, pl) != 0 || p[pl] != '/') {
            *err = wh_strdup_printf("test file '%s' is not inside project '%s'", p, project);
            rc = WH_EINVAL;
        } else if (!s_listed(f, p + pl + 1)) {
            rc = s_list(f, tmpl, project, p + pl + 1, err);
            rc = rc ? rc : s_list_included(f, tmpl, project, p + pl + 1);
        }
    }
    if (!rc && f->files == 0) {
        *err = wh_strdup_printf("no test file matches '%s' in project '%s'", pattern, project);
        rc = WH_ENOTFOUND;
    }
    if (grc == 0)
        globfree(&g);
    free(pat);
    if (!rc && !(f->project = strdup(project)))
        rc = WH_ENOMEM;
    if (rc)
        wh_testfind_close(&f);
    return f;
}

/* 1 when text[0, len) holds word w (not inside a longer identifier). */
static int s_has_word(const char *text, size_t len, const char *w, size_t wl)
{
    if (!wl)
        return 0;
    for (const char *p = text; (p = memmem(p, len - (size_t)(p - text), w, wl)) != NULL; p++) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        const char *e = p + wl;
        int after = e < text + len && (isalnum((unsigned char)*e) || *e == '_');
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* The part of a case name a file spells: after the last '.', "::" or '/'. */
static const char *s_last_part(const char *name)
{
    const char *p = name;
    for (const char *q = name; *q; q++)
        if (*q == '.' || *q == '/' || (*q == ':' && q[1] == ':'))
            p = q + 1 + (*q == ':');
    return *p ? p : name;
}

/* 1 when the file rel may define one of names: it holds one as a word, or
 * is named like one (a whole test program, wh_testfind_program). A file
 * that cannot be read is kept (its parse will say why). */
static int s_may_define(const char *project, const char *rel, const char *const *names,
                        size_t nnames)
{
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    size_t bl = strcspn(base, ".");
    for (size_t k = 0; k < nnames; k++)
        if (strlen(names[k]) == bl && !strncmp(base, names[k], bl))
            return 1;
    char *path = wh_path_join(project, rel), *text = NULL;
    size_t len = 0;
    int keep = !path || wh_read_file(path, (size_t)64 << 20, &text, &len) != 0;
    for (size_t k = 0; !keep && k < nnames; k++) {
        const char *w = s_last_part(names[k]);
        keep = s_has_word(text, len, w, strlen(w));
    }
    free(text);
    free(path);
    return keep;
}

wh_testfind_t *wh_testfind_open_list(const wh_job_t *tmpl, const char *project,
                                     const char *const *files, size_t n,
                                     const char *const *names, size_t nnames, char **err)
{
    wh_testfind_t *f = calloc(1, sizeof *f);
    int rc = f && (f->project = strdup(project)) ? 0 : WH_ENOMEM;
    size_t todo = 0, done = 0;
    char *keep = calloc(n ? n : 1, 1);
    rc = rc ? rc : keep ? 0 : WH_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        todo += keep[i] = !nnames || s_may_define(project, files[i], names, nnames);
    /* No file spells a name (a macro pastes it together): parse them all. */
    for (size_t i = 0; !rc && !todo && i < n; i++)
        keep[i] = 1;
    todo = todo ? todo : n;
    uint64_t t0 = wh_now_ms(), said = t0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (!keep[i] || s_listed(f, files[i]))
            continue;
        uint64_t now = wh_now_ms();
        if (now - said >= 10000) {
            fprintf(stderr, "finding the test functions: parsing %zu of %zu files (%s), %llu s\n",
                    done + 1, todo, files[i], (unsigned long long)((now - t0) / 1000));
            said = now;
        }
        done++;
        rc = s_list(f, tmpl, project, files[i], err);
        rc = rc ? rc : s_list_included(f, tmpl, project, files[i]);
    }
    free(keep);
    if (!rc && f->files == 0) {
        *err = wh_strdup_printf("no test file to look in, in project '%s'", project);
        rc = WH_ENOTFOUND;
    }
    if (rc && !*err)
        *err = strdup("out of memory");
    if (rc)
        wh_testfind_close(&f);
    return f;
}

/* The first definition named exactly want, or NULL. */
static const s_def_t *s_exact(const wh_testfind_t *f, const char *want)
{
    for (size_t i = 0; want && i < f->n; i++)
        if (!strcmp(f->defs[i].test, want))
            return &f->defs[i];
    return NULL;
}

/* The one definition "X.name" or "X::name"; NULL when none or several. */
static const s_def_t *s_unique_suffix(const wh_testfind_t *f, const char *name)
{
    const s_def_t *hit = NULL;
    size_t nl = strlen(name);
    for (size_t i = 0; i < f->n; i++) {
        const char *t = f->defs[i].test;
        size_t tl = strlen(t);
        if (tl <= nl + 1 || strcmp(t + tl - nl, name))
            continue;
        const char *sep = t + tl - nl;
        if (sep[-1] != '.' && !(sep[-1] == ':' && tl > nl + 2 && sep[-2] == ':'))
            continue;
        if (hit)
            return NULL;
        hit = &f->defs[i];
    }
    return hit;
}

/* A function called name that the listing did not count as a test (any
 * function may be reduced: a ctest harness's "fifo_order"), from the first
 * file that defines it; remembered. */
static const s_def_t *s_load_any(wh_testfind_t *f, const char *name)
{
    for (size_t i = 0; i < f->files; i++) {
        wh_tree_opts_t to = s_opts(&f->jobs[i]);
        char *path = wh_path_join(f->project, f->jobs[i].file), *err = NULL;
        wh_tree_t *t = NULL;
        int rc = path ? wh_tree_load(path, name, &to, &t, &err) : WH_ENOMEM;
        char *test = rc ? NULL : strdup(t->test);
        free(path), free(err);
        wh_tree_destroy(&t);
        if (test)
            return s_add(f, f->jobs[i].file, test) == 0 ? &f->defs[f->n - 1] : NULL;
    }
    return NULL;
}

int wh_testfind_case(wh_testfind_t *f, const char *name, const char *classname,
                     const char *suite, const char **file, const char **test)
{
    const char *groups[] = {classname, suite};
    const s_def_t *hit = NULL;
    for (size_t g = 0; g < 2 && !hit; g++) {
        if (!groups[g] || !*groups[g])
            continue;
        static const char *const seps[] = {".", "::"};
        for (size_t s = 0; s < 2 && !hit; s++) {
            char *want = wh_strdup_printf("%s%s%s", groups[g], seps[s], name);
            hit = s_exact(f, want);
            free(want);
        }
    }
    if (!hit)
        hit = s_exact(f, name);
    if (!hit)
        hit = s_unique_suffix(f, name);
    if (!hit)
        hit = s_load_any(f, name);
    if (!hit)
        return WH_ENOTFOUND;
    *file = hit->file;
    *test = hit->test;
    return 0;
}
