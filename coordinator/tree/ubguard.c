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
#include "wh_common.h"

#include <clang-c/Index.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Guarded diagnostics counted on one text; more are not told apart. */
#define S_MAX_IDS 256

/* The warnings a removed initialisation or return raises, and what keeps
 * them warnings: a user's -Werror must not turn them into errors (which
 * would hide the analysis of later functions). */
static const char *const s_extra[] = {
    "-Wno-error",        "-Wuninitialized", "-Wsometimes-uninitialized",
    "-Wconditional-uninitialized", "-Wreturn-type",
};
#define S_NEXTRA ((int)(sizeof s_extra / sizeof s_extra[0]))

/* The options whose diagnostics are guarded (clang names the most specific
 * one: -Wsometimes-uninitialized, not -Wuninitialized). */
static const char *const s_guarded[] = {
    "-Wuninitialized", "-Wsometimes-uninitialized", "-Wconditional-uninitialized",
    "-Wreturn-type", "-Wuninitialized-const-reference", "-Wstatic-self-init", NULL,
};

typedef struct {
    char *id[S_MAX_IDS]; /* "option|function|message" */
    int count[S_MAX_IDS];
    int n;
} s_ids_t;

struct wh_ubguard {
    CXIndex index;
    CXTranslationUnit tu;
    char *file;
    int enabled;
    char *why;
    s_ids_t orig;
    int norig;
    int checks;
    unsigned long long us, setup_us;
    pthread_t thread;
    int running;
    atomic_int ready;
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

static void s_ids_clear(s_ids_t *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->id[i]);
    s->n = 0;
}

/* Adds one of id (taken); 0 when out of room or memory (then dropped). */
static int s_ids_add(s_ids_t *s, char *id)
{
    for (int i = 0; id && i < s->n; i++) {
        if (strcmp(s->id[i], id) == 0) {
            free(id);
            s->count[i]++;
            return 1;
        }
    }
    if (!id || s->n == S_MAX_IDS) {
        free(id);
        return 0;
    }
    s->id[s->n] = id;
    s->count[s->n++] = 1;
    return 1;
}

static int s_ids_count(const s_ids_t *s, const char *id)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->id[i], id) == 0)
            return s->count[i];
    return 0;
}

/* The name of the function a location is in ("" at file scope). */
static char *s_function_at(CXTranslationUnit tu, CXSourceLocation loc)
{
    CXCursor c = clang_getCursor(tu, loc);
    for (int depth = 0; depth < 64 && !clang_Cursor_isNull(c) &&
                        !clang_isTranslationUnit(clang_getCursorKind(c));
         depth++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
            k == CXCursor_Destructor || k == CXCursor_FunctionTemplate ||
            k == CXCursor_LambdaExpr) {
            CXString s = clang_getCursorSpelling(c);
            char *name = strdup(clang_getCString(s) ? clang_getCString(s) : "");
            clang_disposeString(s);
            return name;
        }
        c = clang_getCursorSemanticParent(c);
    }
    return strdup("");
}

/* One scan of the current TU's diagnostics: the guarded ones counted by
 * identity, the first error, and (against the original's counts) the first
 * guarded one beyond the original's count of its identity. */
typedef struct {
    s_ids_t ids;
    char *error;            /* the first error, "line:col: message" */
    const s_ids_t *against; /* the original: a diagnostic beyond its count is new */
    char *first_new;
} s_scan_t;

static void s_scan_one(wh_ubguard_t *g, CXDiagnostic d, s_scan_t *s)
{
    CXSourceLocation loc = clang_getDiagnosticLocation(d);
    CXFile f = NULL;
    unsigned line = 0, col = 0;
    clang_getSpellingLocation(loc, &f, &line, &col, NULL);
    if (!f)
        return; /* the driver, e.g. on an option it does not know */
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
    CXString o = clang_getDiagnosticOption(d, NULL);
    const char *opt = clang_getCString(o);
    CXString sp = clang_getDiagnosticSpelling(d);
    const char *msg = clang_getCString(sp) ? clang_getCString(sp) : "";
    int guarded = 0;
    for (int i = 0; opt && s_guarded[i]; i++)
        guarded |= strcmp(opt, s_guarded[i]) == 0;
    if (sev >= CXDiagnostic_Error && !guarded && !s->error) {
        s->error = wh_strdup_printf("%u:%u: %s", line, col, msg);
    } else if (guarded) {
        char *fn = s_function_at(g->tu, loc);
        char *id = wh_strdup_printf("%s|%s|%s", opt, fn ? fn : "", msg);
        free(fn);
        if (id && s->against && !s->first_new)
            if (s_ids_count(&s->ids, id) + 1 > s_ids_count(s->against, id))
                s->first_new = wh_strdup_printf("%u:%u: %s [%s]", line, col, msg, opt);
        s_ids_add(&s->ids, id);
    }
    clang_disposeString(sp);
    clang_disposeString(o);
}

static void s_scan(wh_ubguard_t *g, s_scan_t *s)
{
    unsigned n = clang_getNumDiagnostics(g->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(g->tu, i);
        s_scan_one(g, d, s);
        clang_disposeDiagnostic(d);
    }
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
        s_scan_t s = {0};
        s_scan(g, &s);
        g->orig = s.ids;
        for (int i = 0; i < g->orig.n; i++)
            g->norig += g->orig.count[i];
        if (s.error)
            g->why = wh_strdup_printf("the original has a front-end error with these flags "
                                      "(%s:%s)", g->file, s.error);
        free(s.error);
        g->enabled = g->why == NULL;
    }
    g->setup_us = s_now_us() - t0;
    atomic_store(&g->ready, 1);
}

static void *s_setup_thread(void *arg)
{
    s_setup(arg);
    return NULL;
}

/* A handle with copies of what the setup needs (the arguments without -w,
 * which would silence the guard, then s_extra); NULL when out of memory. */
static wh_ubguard_t *s_alloc(const wh_ubguard_opts_t *o, const char *text, size_t len)
{
    wh_ubguard_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->file = wh_abspath(o->file);
    g->args = calloc((size_t)o->nargs + S_NEXTRA + 1, sizeof *g->args);
    g->text = malloc(len + 1);
    int bad = !g->file || !g->args || !g->text;
    for (int i = 0; !bad && i < o->nargs; i++)
        if (strcmp(o->args[i], "-w") != 0)
            bad = !(g->args[g->nargs++] = strdup(o->args[i]));
    for (int i = 0; !bad && i < S_NEXTRA; i++)
        bad = !(g->args[g->nargs++] = strdup(s_extra[i]));
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
    s_ids_clear(&g->orig);
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
    s_scan_t s = {.against = &g->orig};
    s_scan(g, &s);
    rc = s.first_new != NULL;
    if (first)
        *first = s.first_new;
    else
        free(s.first_new);
    free(s.error);
    s_ids_clear(&s.ids);
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
