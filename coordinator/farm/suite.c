/*
 * suite — kill-matrix parsing and the three test-suite reduction methods
 * (ILP with GLPK, DIFF greedy, FAST++ similarity). See suite.h.
 */
#include "suite.h"

#include "wh_common.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S_KILLS_CAP (64u << 20)

struct wh_kills {
    size_t n_mut, n_test;
    size_t cap_mut, cap_test;
    char **mut_names;
    char **test_names;
    unsigned char *cell; /* n_mut x cap_test, row-major */
    size_t cell_cols;    /* allocated columns per row */
};

size_t wh_kills_mutants(const wh_kills_t *k) { return k->n_mut; }
size_t wh_kills_tests(const wh_kills_t *k) { return k->n_test; }
const char *wh_kills_mutant_name(const wh_kills_t *k, size_t m) { return k->mut_names[m]; }
const char *wh_kills_test_name(const wh_kills_t *k, size_t t) { return k->test_names[t]; }

wh_kill_t wh_kills_get(const wh_kills_t *k, size_t m, size_t t)
{
    return (wh_kill_t)k->cell[m * k->cell_cols + t];
}

void wh_kills_set(wh_kills_t *k, size_t m, size_t t, wh_kill_t v)
{
    k->cell[m * k->cell_cols + t] = (unsigned char)v;
}

int wh_kills_counts(const wh_kills_t *k, size_t m, size_t t, int with_potential)
{
    wh_kill_t v = wh_kills_get(k, m, t);
    return v == WH_KILL_DEFINITE || (with_potential && v == WH_KILL_POTENTIAL);
}

void wh_kills_destroy(wh_kills_t **kp)
{
    if (!kp || !*kp)
        return;
    wh_kills_t *k = *kp;
    for (size_t i = 0; i < k->n_mut; i++)
        free(k->mut_names[i]);
    for (size_t i = 0; i < k->n_test; i++)
        free(k->test_names[i]);
    free(k->mut_names);
    free(k->test_names);
    free(k->cell);
    free(k);
    *kp = NULL;
}

/* Grows the cell array to rows x cols, keeping values; 0 or WH_ENOMEM. */
static int s_reshape(wh_kills_t *k, size_t rows, size_t cols)
{
    size_t ncols = cols > k->cell_cols ? (cols < 8 ? 8 : cols * 2) : k->cell_cols;
    size_t nrows = rows > k->cap_mut ? (rows < 8 ? 8 : rows * 2) : k->cap_mut;
    if (ncols == k->cell_cols && nrows == k->cap_mut)
        return 0;
    unsigned char *c = calloc(nrows * ncols, 1);
    if (!c)
        return WH_ENOMEM;
    /* The names are interned before the reshape, so n_mut and n_test may
     * already count a row or column the old array does not hold. */
    size_t old_rows = k->n_mut < k->cap_mut ? k->n_mut : k->cap_mut;
    size_t old_cols = k->n_test < k->cell_cols ? k->n_test : k->cell_cols;
    for (size_t m = 0; m < old_rows; m++)
        memcpy(c + m * ncols, k->cell + m * k->cell_cols, old_cols);
    free(k->cell);
    k->cell = c;
    k->cell_cols = ncols;
    k->cap_mut = nrows;
    return 0;
}

/* Index of name in names[0..*n), appending it when new; -1 on ENOMEM. */
static long s_intern(char ***names, size_t *n, size_t *cap, const char *name)
{
    for (size_t i = *n; i-- > 0;)
        if (!strcmp((*names)[i], name))
            return (long)i;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        char **p = realloc(*names, nc * sizeof *p);
        if (!p)
            return -1;
        *names = p;
        *cap = nc;
    }
    (*names)[*n] = strdup(name);
    if (!(*names)[*n])
        return -1;
    return (long)(*n)++;
}

wh_kills_t *wh_kills_new(size_t n_mutants, size_t n_tests)
{
    wh_kills_t *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    size_t cap_names = 0;
    for (size_t i = 0; i < n_mutants; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%zu", i);
        if (s_intern(&k->mut_names, &k->n_mut, &cap_names, name) < 0)
            goto fail;
    }
    cap_names = 0;
    for (size_t j = 0; j < n_tests; j++) {
        char name[32];
        snprintf(name, sizeof name, "t%zu", j);
        if (s_intern(&k->test_names, &k->n_test, &k->cap_test, name) < 0)
            goto fail;
    }
    k->cap_mut = 0;
    if (s_reshape(k, n_mutants, n_tests) < 0)
        goto fail;
    return k;
fail:
    wh_kills_destroy(&k);
    return NULL;
}

static int s_verdict(const char *s, wh_kill_t *v)
{
    if (!strcmp(s, "definite"))
        *v = WH_KILL_DEFINITE;
    else if (!strcmp(s, "potential"))
        *v = WH_KILL_POTENTIAL;
    else if (!strcmp(s, "survived"))
        *v = WH_KILL_SURVIVED;
    else
        return WH_EINVAL;
    return 0;
}

/* Adds one "mutant,test,verdict" line (trailing CR allowed). */
static int s_add_line(wh_kills_t *k, size_t *cap_mut_names, char *line, char **err, size_t lineno)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r')
        line[--len] = 0;
    char *c1 = strchr(line, ',');
    char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    wh_kill_t v;
    if (!c1 || !c2 || strchr(c2 + 1, ',') || c1 == line || c2 == c1 + 1 ||
        s_verdict(c2 + 1, &v) < 0) {
        *err = wh_strdup_printf("kills.csv line %zu: expected 'mutant,test,definite|potential|survived': '%.80s'",
                                lineno, line);
        return WH_EPARSE;
    }
    *c1 = *c2 = 0;
    long m = s_intern(&k->mut_names, &k->n_mut, cap_mut_names, line);
    long t = m < 0 ? -1 : s_intern(&k->test_names, &k->n_test, &k->cap_test, c1 + 1);
    if (t < 0 || s_reshape(k, k->n_mut, k->n_test) < 0)
        return WH_ENOMEM;
    wh_kills_set(k, (size_t)m, (size_t)t, v);
    return 0;
}

wh_kills_t *wh_kills_parse(const char *text, char **err)
{
    *err = NULL;
    wh_kills_t *k = calloc(1, sizeof *k);
    char *copy = strdup(text);
    size_t cap_mut_names = 0, lineno = 0;
    if (!k || !copy)
        goto nomem;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (lineno == 1 && !strncmp(line, "mutant,", 7))
            continue;
        int rc = s_add_line(k, &cap_mut_names, line, err, lineno);
        if (rc == WH_ENOMEM)
            goto nomem;
        if (rc < 0)
            goto fail;
    }
    free(copy);
    return k;
nomem:
    *err = strdup("out of memory reading kills.csv");
fail:
    free(copy);
    wh_kills_destroy(&k);
    return NULL;
}

wh_kills_t *wh_kills_load(const char *path, char **err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = wh_read_file(path, S_KILLS_CAP, &text, &len);
    if (rc < 0) {
        *err = wh_strdup_printf("cannot read kill matrix '%s': %s", path, wh_strerror(rc));
        return NULL;
    }
    if (memchr(text, 0, len)) {
        free(text);
        *err = wh_strdup_printf("kill matrix '%s' is not text", path);
        return NULL;
    }
    wh_kills_t *k = wh_kills_parse(text, err);
    free(text);
    return k;
}

const char *wh_suite_method_name(wh_suite_method_t m)
{
    return m == WH_SUITE_ILP ? "ilp" : m == WH_SUITE_DIFF ? "diff" : "fast";
}

/* 1 when some selected test (sel NULL = any) kills mutant m. */
static int s_killed(const wh_kills_t *k, size_t m, const unsigned char *sel, int pot)
{
    for (size_t t = 0; t < k->n_test; t++)
        if ((!sel || sel[t]) && wh_kills_counts(k, m, t, pot))
            return 1;
    return 0;
}

size_t wh_suite_covered(const wh_kills_t *k, const unsigned char *sel, int with_potential)
{
    size_t n = 0;
    for (size_t m = 0; m < k->n_mut; m++)
        n += (size_t)s_killed(k, m, sel, with_potential);
    return n;
}

/* Set cover as a 0/1 program: min sum x_t, for each killed mutant m
 * sum_{t kills m} x_t >= 1. */
static int s_ilp(const wh_kills_t *k, int pot, unsigned char *sel)
{
    int rc = WH_ENOMEM;
    glp_prob *lp = glp_create_prob();
    int *ia = malloc((k->n_mut * k->n_test + 1) * sizeof *ia);
    int *ja = malloc((k->n_mut * k->n_test + 1) * sizeof *ja);
    double *ar = malloc((k->n_mut * k->n_test + 1) * sizeof *ar);
    if (!ia || !ja || !ar)
        goto out;
    glp_set_obj_dir(lp, GLP_MIN);
    if (k->n_test)
        glp_add_cols(lp, (int)k->n_test);
    for (size_t t = 0; t < k->n_test; t++) {
        glp_set_col_kind(lp, (int)t + 1, GLP_BV);
        glp_set_obj_coef(lp, (int)t + 1, 1.0);
    }
    int nz = 0, row = 0;
    for (size_t m = 0; m < k->n_mut; m++) {
        if (!s_killed(k, m, NULL, pot))
            continue;
        row = glp_add_rows(lp, 1);
        glp_set_row_bnds(lp, row, GLP_LO, 1.0, 0.0);
        for (size_t t = 0; t < k->n_test; t++)
            if (wh_kills_counts(k, m, t, pot)) {
                nz++;
                ia[nz] = row, ja[nz] = (int)t + 1, ar[nz] = 1.0;
            }
    }
    memset(sel, 0, k->n_test);
    rc = 0;
    if (!row)
        goto out; /* nothing to kill: the empty suite is optimal */
    glp_load_matrix(lp, nz, ia, ja, ar);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    if (glp_intopt(lp, &parm) != 0 || glp_mip_status(lp) != GLP_OPT) {
        rc = WH_EINVAL;
        goto out;
    }
    for (size_t t = 0; t < k->n_test; t++)
        sel[t] = glp_mip_col_val(lp, (int)t + 1) > 0.5;
out:
    free(ia);
    free(ja);
    free(ar);
    glp_delete_prob(lp);
    return rc;
}

/* Number of mutants test t kills that no selected test kills yet. */
static size_t s_gain(const wh_kills_t *k, size_t t, const unsigned char *done, int pot)
{
    size_t g = 0;
    for (size_t m = 0; m < k->n_mut; m++)
        g += !done[m] && wh_kills_counts(k, m, t, pot);
    return g;
}

static void s_take(const wh_kills_t *k, size_t t, unsigned char *done, unsigned char *sel, int pot)
{
    sel[t] = 1;
    for (size_t m = 0; m < k->n_mut; m++)
        if (wh_kills_counts(k, m, t, pot))
            done[m] = 1;
}

/* DIFF: repeatedly the test revealing the most unrevealed mutants (the
 * lowest index on ties), until none is left. */
static int s_diff(const wh_kills_t *k, int pot, unsigned char *sel)
{
    unsigned char *done = calloc(k->n_mut + 1, 1);
    if (!done)
        return WH_ENOMEM;
    memset(sel, 0, k->n_test);
    for (;;) {
        size_t best = k->n_test, best_gain = 0;
        for (size_t t = 0; t < k->n_test; t++) {
            size_t g = sel[t] ? 0 : s_gain(k, t, done, pot);
            if (g > best_gain)
                best = t, best_gain = g;
        }
        if (best == k->n_test)
            break;
        s_take(k, best, done, sel, pot);
    }
    free(done);
    return 0;
}

/* xorshift32; never returns to 0 from a non-zero state. */
static unsigned s_rand(unsigned *st)
{
    unsigned x = *st;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *st = x;
}

/* Projects every test's kill vector (one entry per mutant) down to d
 * dimensions with Achlioptas' sparse random matrix: entries sqrt(3) times
 * +1 (1/6), 0 (2/3), -1 (1/6). out is n_test x d. */
static void s_project(const wh_kills_t *k, int pot, size_t d, unsigned *st, double *out)
{
    memset(out, 0, k->n_test * d * sizeof *out);
    for (size_t m = 0; m < k->n_mut; m++)
        for (size_t i = 0; i < d; i++) {
            unsigned r = s_rand(st) % 6;
            double w = r == 0 ? sqrt(3.0) : r == 1 ? -sqrt(3.0) : 0.0;
            if (w == 0.0)
                continue;
            for (size_t t = 0; t < k->n_test; t++)
                if (wh_kills_counts(k, m, t, pot))
                    out[t * d + i] += w;
        }
}

static double s_dist2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t i = 0; i < d; i++)
        s += (a[i] - b[i]) * (a[i] - b[i]);
    return s;
}

/* A candidate's draw weight: 1 before any test is chosen (near < 0). */
static double s_weight(double near)
{
    return near < 0 ? 1.0 : near + 1e-9;
}

/* Draws among tests that still reveal something, weighted by the squared
 * distance to the nearest chosen test (uniform for the first draw). */
static size_t s_fast_draw(const wh_kills_t *k, const unsigned char *sel, const unsigned char *done,
                          const double *near, int pot, unsigned *st)
{
    double total = 0;
    for (size_t t = 0; t < k->n_test; t++)
        if (!sel[t] && s_gain(k, t, done, pot))
            total += s_weight(near[t]);
    if (total == 0)
        return k->n_test;
    double r = (double)(s_rand(st) >> 8) / (double)(1u << 24) * total;
    size_t last = k->n_test;
    for (size_t t = 0; t < k->n_test; t++) {
        if (sel[t] || !s_gain(k, t, done, pot))
            continue;
        last = t;
        r -= s_weight(near[t]);
        if (r < 0)
            return t;
    }
    return last;
}

/* FAST++ (seed 002): similarity-based selection on the projected vectors,
 * until every killed mutant is revealed. */
static int s_fast(const wh_kills_t *k, int pot, unsigned seed, unsigned char *sel)
{
    size_t d = (size_t)ceil(4.0 * log((double)k->n_test + 1.0));
    d = d < 1 ? 1 : d > k->n_mut && k->n_mut ? k->n_mut : d;
    unsigned st = seed ? seed : 0x9e3779b9u;
    double *vec = malloc((k->n_test * d + 1) * sizeof *vec);
    double *near = malloc((k->n_test + 1) * sizeof *near);
    unsigned char *done = calloc(k->n_mut + 1, 1);
    if (!vec || !near || !done) {
        free(vec), free(near), free(done);
        return WH_ENOMEM;
    }
    s_project(k, pot, d, &st, vec);
    memset(sel, 0, k->n_test);
    for (size_t t = 0; t < k->n_test; t++)
        near[t] = -1.0;
    size_t t;
    while ((t = s_fast_draw(k, sel, done, near, pot, &st)) < k->n_test) {
        s_take(k, t, done, sel, pot);
        for (size_t u = 0; u < k->n_test; u++) {
            double dd = s_dist2(vec + u * d, vec + t * d, d);
            if (sel[u])
                near[u] = 0.0;
            else if (near[u] < 0 || dd < near[u])
                near[u] = dd;
        }
    }
    free(vec), free(near), free(done);
    return 0;
}

int wh_suite_select(const wh_kills_t *k, wh_suite_method_t method, int with_potential,
                    unsigned seed, unsigned char *sel)
{
    switch (method) {
    case WH_SUITE_ILP:
        return s_ilp(k, with_potential, sel);
    case WH_SUITE_DIFF:
        return s_diff(k, with_potential, sel);
    case WH_SUITE_FAST:
        return s_fast(k, with_potential, seed, sel);
    }
    return WH_EINVAL;
}
