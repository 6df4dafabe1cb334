/*
 * ubguard — new uses of indeterminate values, seen by the front end. See
 * ubguard.h.
 *
 * The parse is precheck.c's: the original as an unsaved file with a
 * precompiled preamble of its #include block (header function bodies
 * skipped, header warnings dropped), each candidate a reparse with the
 * candidate as the unsaved file. The analysis-based warnings guarded here
 * (-Wuninitialized and friends, -Wreturn-type) run on each function body of
 * the file itself, which is never skipped.
 */
#define _GNU_SOURCE
#include "ubguard.h"
#include "clang_index.h"
#include "ubscan.h"
#include "wh_common.h"

#include <clang-c/Index.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wh_ubguard {
    CXIndex index;
    CXTranslationUnit tu;
    char *file;
    int enabled;
    char *why;
    wh_ubscan_ids_t orig;
    int norig;
    int checks;
    unsigned long long us, setup_us;
    pthread_t thread;
    int running;
    atomic_int ready;
    void (*on_ready)(void *ctx);
    void *ready_ctx;
    char **args;
    int nargs;
    char *text;
    size_t len;
    char *err;
};

static unsigned long long s_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* Parses the original and counts its guarded diagnostics. */
static void s_setup(wh_ubguard_t *g)
{
    unsigned long long t0 = s_now_us();
    g->index = wh_clang_index();
    struct CXUnsavedFile u = {g->file, g->text, (unsigned long)g->len};
    enum CXErrorCode ec = CXError_Failure;
    if (g->index)
        ec = clang_parseTranslationUnit2(
            g->index, g->file, (const char *const *)g->args, g->nargs, &u, 1,
            CXTranslationUnit_PrecompiledPreamble | CXTranslationUnit_CreatePreambleOnFirstParse |
                CXTranslationUnit_SkipFunctionBodies |
                CXTranslationUnit_LimitSkipFunctionBodiesToPreamble |
                CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
            &g->tu);
    if (ec != CXError_Success || !g->tu) {
        g->err = wh_strdup_printf("%s: libclang could not parse the file for the UB guard "
                                  "(error %d)", g->file, (int)ec);
    } else {
        wh_ubscan_t s = {0};
        wh_ubscan_run(g->tu, &s);
        g->orig = s.ids;
        s.ids.n = 0; /* kept as the original's */
        g->norig = wh_ubscan_ids_total(&g->orig);
        if (s.error)
            g->why = wh_strdup_printf("the original has a front-end error with these flags "
                                      "(%s)", s.error);
        wh_ubscan_free(&s);
        g->enabled = g->why == NULL;
    }
    g->setup_us = s_now_us() - t0;
    atomic_store(&g->ready, 1);
    if (g->on_ready)
        g->on_ready(g->ready_ctx);
}

static void *s_setup_thread(void *arg)
{
    s_setup(arg);
    return NULL;
}

/* A handle with copies of what the setup needs (the arguments without -w,
 * which would silence the guard, then wh_ubscan_args); NULL when out of
 * memory. */
static wh_ubguard_t *s_alloc(const wh_ubguard_opts_t *o, const char *text, size_t len)
{
    wh_ubguard_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->file = wh_abspath(o->file);
    g->on_ready = o->on_ready;
    g->ready_ctx = o->ready_ctx;
    int nextra = 0;
    while (wh_ubscan_args[nextra])
        nextra++;
    g->args = calloc((size_t)o->nargs + (size_t)nextra + 1, sizeof *g->args);
    g->text = malloc(len + 1);
    int bad = !g->file || !g->args || !g->text;
    for (int i = 0; !bad && i < o->nargs; i++)
        if (strcmp(o->args[i], "-w") != 0)
            bad = !(g->args[g->nargs++] = strdup(o->args[i]));
    for (int i = 0; !bad && wh_ubscan_args[i]; i++)
        bad = !(g->args[g->nargs++] = strdup(wh_ubscan_args[i]));
    if (bad) {
        wh_ubguard_destroy(&g);
        return NULL;
    }
    memcpy(g->text, text, len);
    g->text[len] = '\0';
    g->len = len;
    return g;
}

static void s_join(wh_ubguard_t *g)
{
    if (g->running) {
        pthread_join(g->thread, NULL);
        g->running = 0;
    }
}

wh_ubguard_t *wh_ubguard_new(const wh_ubguard_opts_t *o, const char *text, size_t len,
                             char **err)
{
    wh_ubguard_t *g = s_alloc(o, text, len);
    if (!g) {
        *err = strdup("out of memory");
        return NULL;
    }
    s_setup(g);
    if (g->err) {
        *err = g->err;
        g->err = NULL;
        wh_ubguard_destroy(&g);
    }
    return g;
}

wh_ubguard_t *wh_ubguard_start(const wh_ubguard_opts_t *o, const char *text, size_t len)
{
    wh_ubguard_t *g = s_alloc(o, text, len);
    if (g && pthread_create(&g->thread, NULL, s_setup_thread, g) != 0)
        wh_ubguard_destroy(&g);
    else if (g)
        g->running = 1;
    return g;
}

int wh_ubguard_ready(const wh_ubguard_t *g)
{
    return atomic_load(&((wh_ubguard_t *)g)->ready);
}

void wh_ubguard_destroy(wh_ubguard_t **gp)
{
    wh_ubguard_t *g = *gp;
    if (!g)
        return;
    s_join(g);
    if (g->tu)
        clang_disposeTranslationUnit(g->tu);
    if (g->index)
        clang_disposeIndex(g->index);
    wh_ubscan_ids_clear(&g->orig);
    for (int i = 0; i < g->nargs; i++)
        free(g->args[i]);
    free(g->args);
    free(g->text);
    free(g->err);
    free(g->why);
    free(g->file);
    free(g);
    *gp = NULL;
}

int wh_ubguard_enabled(const wh_ubguard_t *g)
{
    if (!g || !wh_ubguard_ready(g))
        return 0;
    s_join((wh_ubguard_t *)g);
    return g->enabled;
}

const char *wh_ubguard_why(const wh_ubguard_t *g)
{
    if (!g || !wh_ubguard_ready(g))
        return NULL;
    s_join((wh_ubguard_t *)g);
    return g->err ? g->err : g->why;
}

int wh_ubguard_original(const wh_ubguard_t *g)
{
    return g && wh_ubguard_ready(g) ? g->norig : 0;
}

int wh_ubguard_check(wh_ubguard_t *g, const char *text, size_t len, char **first)
{
    if (first)
        *first = NULL;
    if (!wh_ubguard_enabled(g))
        return WH_EINVAL;
    unsigned long long t0 = s_now_us();
    struct CXUnsavedFile u = {g->file, text, (unsigned long)len};
    int rc = clang_reparseTranslationUnit(g->tu, 1, &u, clang_defaultReparseOptions(g->tu));
    if (rc != 0) {
        clang_disposeTranslationUnit(g->tu); /* unusable after a failed reparse */
        g->tu = NULL;
        g->enabled = 0;
        free(g->why);
        g->why = wh_strdup_printf("libclang failed to re-parse a candidate (error %d)", rc);
        return WH_EPARSE;
    }
    wh_ubscan_t s = {.against = &g->orig};
    wh_ubscan_run(g->tu, &s);
    rc = s.first_new != NULL;
    if (first) {
        *first = s.first_new;
        s.first_new = NULL;
    }
    wh_ubscan_free(&s);
    g->checks++;
    g->us += s_now_us() - t0;
    return rc;
}

void wh_ubguard_stats(const wh_ubguard_t *g, int *checks, unsigned long long *us,
                      unsigned long long *setup_us)
{
    *checks = g ? g->checks : 0;
    *us = g ? g->us : 0;
    *setup_us = g ? g->setup_us : 0;
}

/* Adds (on 1) or drops (on 0) each name of a comma-separated list. */
static void s_san_list(char **names, int *n, int cap, const char *list, int on)
{
    char *dup = strdup(list), *save = NULL;
    for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        int at = -1;
        for (int i = 0; i < *n && at < 0; i++)
            if (strcmp(names[i], t) == 0)
                at = i;
        if (on && at < 0 && *n < cap && (names[*n] = strdup(t)) != NULL)
            (*n)++;
        else if (!on && at >= 0) {
            free(names[at]);
            memmove(&names[at], &names[at + 1], (size_t)(*n - at - 1) * sizeof *names);
            (*n)--;
        }
    }
    free(dup);
}

char *wh_ubguard_sanitizers(const char *const *args, int nargs)
{
    char *names[32];
    int n = 0;
    for (int i = 0; i < nargs; i++) {
        if (strncmp(args[i], "-fsanitize=", 11) == 0)
            s_san_list(names, &n, 32, args[i] + 11, 1);
        else if (strncmp(args[i], "-fno-sanitize=", 14) == 0)
            s_san_list(names, &n, 32, args[i] + 14, 0);
    }
    if (!n)
        return NULL;
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < n; i++) {
        wh_buf_printf(&b, "%s%s", i ? "," : "", names[i]);
        free(names[i]);
    }
    return wh_buf_detach(&b);
}
