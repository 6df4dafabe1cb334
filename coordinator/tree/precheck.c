/*
 * precheck — front-end prediction of BuildFailed. See precheck.h.
 *
 * How it works. The original text is parsed once as an unsaved file with
 * CXTranslationUnit_PrecompiledPreamble | CreatePreambleOnFirstParse, so
 * libclang stores the #include block as a precompiled preamble. Each
 * candidate differs from the original only inside the test function, so
 * clang_reparseTranslationUnit with the candidate as the unsaved file
 * reuses that preamble and parses the file's own text only.
 *
 * Function bodies inside the preamble (the headers) are skipped
 * (SkipFunctionBodies | LimitSkipFunctionBodiesToPreamble). A C++ test's
 * own parse is mostly the instantiation of the header templates its
 * asserts use (GoogleTest's printers and comparators); without their
 * bodies a check of the gtest fixture takes about 23 ms of CPU instead of
 * 330 ms (LIBCLANG_TIMING, measured here). It can only hide errors (one
 * that shows only inside an instantiated header template is then a miss,
 * never a wrong prediction): clang does not skip bodies it needs for the
 * declarations themselves (deduced return types, constexpr), and an error
 * the skipping caused would show on the original and turn prediction off.
 */
#define _GNU_SOURCE
#include "precheck.h"
#include "clang_index.h"
#include "ubscan.h"
#include "wh_common.h"

#include <clang-c/Index.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define S_MAX_IGNORED 32


struct wh_precheck {
    CXIndex index;
    CXTranslationUnit tu;
    char *file;
    int cxx;
    int clang_compiler;
    int enabled;
    char *why;
    char *ignored[S_MAX_IGNORED]; /* warning options that fire on the original */
    int nignored;
    wh_buf_t ignored_str;
    int checks;
    unsigned long long us, setup_us;
    /* wh_precheck_start: the setup runs on this thread until joined. */
    pthread_t thread;
    int running;            /* a thread to join */
    atomic_int ready;       /* the setup finished */
    void (*on_ready)(void *ctx); /* told when it did (wh_precheck_opts_t) */
    void *ready_ctx;
    char **args;            /* copies for the thread */
    int nargs;
    char *text;
    size_t len;
    char *err;              /* the setup's error: the handle stays disabled */
    /* The UB guard on the same parse (wh_precheck_check_ub): on while the
     * original's parse has no error; its guarded diagnostics are ub_orig. */
    int ub;
    wh_ubscan_ids_t ub_orig;
};

const char *wh_precheck_mode_name(wh_precheck_mode_t m)
{
    return m == WH_PRECHECK_ON ? "on" : m == WH_PRECHECK_AUDIT ? "audit" : "off";
}

int wh_precheck_mode_parse(const char *s, wh_precheck_mode_t *m)
{
    if (s && strcmp(s, "on") == 0)
        *m = WH_PRECHECK_ON;
    else if (s && strcmp(s, "off") == 0)
        *m = WH_PRECHECK_OFF;
    else if (s && strcmp(s, "audit") == 0)
        *m = WH_PRECHECK_AUDIT;
    else
        return WH_EINVAL;
    return 0;
}

static unsigned long long s_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* Warnings gcc raises at -O0 in the same cases as clang when a statement is
 * removed (a declaration left unused, a label left without its goto, a call
 * left without its declaration). Others (uninitialized
 * uses, set-but-unused variables, ...) depend on gcc's optimizer or differ
 * in detail, so an error from them under -Werror is not trusted. */
static const char *const s_gcc_agrees[] = {
    "-Wunused-variable", "-Wunused-label", "-Wunused-parameter",
    "-Wimplicit-function-declaration", "-Wimplicit-int", NULL,
};

static int s_in(const char *s, const char *const *list, int n)
{
    for (int i = 0; n < 0 ? list[i] != NULL : i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

/* The last non-blank character before off ('\0' when none). */
static char s_prev_char(const char *text, size_t off)
{
    while (off > 0) {
        char c = text[--off];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return c;
    }
    return '\0';
}

/* What one error-level diagnostic means for the prediction. */
enum { S_IGNORE, S_COUNT, S_DOUBT };

static int s_classify(const wh_precheck_t *p, CXDiagnostic d, const char *text, size_t len,
                      char **opt_out)
{
    CXFile f = NULL;
    unsigned off = 0;
    clang_getSpellingLocation(clang_getDiagnosticLocation(d), &f, NULL, NULL, &off);
    if (!f)
        return S_IGNORE; /* the driver, e.g. on an option it does not know */
    CXString o = clang_getDiagnosticOption(d, NULL);
    const char *opt = clang_getCString(o);
    int kind = S_COUNT;
    if (opt && opt[0]) {
        /* A warning raised to an error. */
        if (s_in(opt, (const char *const *)p->ignored, p->nignored))
            kind = S_IGNORE;
        else if (!p->clang_compiler && !s_in(opt, s_gcc_agrees, -1))
            kind = S_DOUBT;
        if (opt_out)
            *opt_out = strdup(opt);
    } else if (!p->cxx && text) {
        /* clang 14 rejects what C2x allows and gcc accepts: a label at the
         * end of a block, a label before a declaration. Its other errors
         * then are cascades, so the whole candidate is in doubt. */
        CXString sp = clang_getDiagnosticSpelling(d);
        const char *m = clang_getCString(sp);
        CXFile main = clang_getFile(p->tu, p->file);
        int after_label = clang_File_isEqual(f, main) && off <= len &&
                          s_prev_char(text, off) == ':';
        if (m && (strstr(m, "label at end of compound statement") ||
                  (after_label && (strcmp(m, "expected expression") == 0 ||
                                   strcmp(m, "expected statement") == 0))))
            kind = S_DOUBT;
        clang_disposeString(sp);
    }
    clang_disposeString(o);
    return kind;
}

/* Reads the current TU's diagnostics: 1 when a counted error is found
 * (*first = "line:col: message"), 0 when none (or when one is in doubt). */
static int s_errors(wh_precheck_t *p, const char *text, size_t len, char **first)
{
    unsigned n = clang_getNumDiagnostics(p->tu);
    int counted = 0, doubt = 0;
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(p->tu, i);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            int k = s_classify(p, d, text, len, NULL);
            doubt |= k == S_DOUBT;
            if (k == S_COUNT && !counted++ && first) {
                unsigned line = 0, col = 0;
                clang_getSpellingLocation(clang_getDiagnosticLocation(d), NULL, &line, &col, NULL);
                CXString sp = clang_getDiagnosticSpelling(d);
                *first = wh_strdup_printf("%u:%u: %s", line, col, clang_getCString(sp));
                clang_disposeString(sp);
            }
        }
        clang_disposeDiagnostic(d);
    }
    if (doubt && first) {
        free(*first);
        *first = NULL;
    }
    return counted && !doubt;
}

/* On the original: warning options raised to errors are the real
 * compiler's business (it built the original), so they are ignored from
 * now on; a hard error disables prediction. */
static void s_judge_original(wh_precheck_t *p, const char *text, size_t len)
{
    unsigned n = clang_getNumDiagnostics(p->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(p->tu, i);
        char *opt = NULL;
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error &&
            s_classify(p, d, text, len, &opt) != S_IGNORE) {
            if (opt && p->nignored < S_MAX_IGNORED) {
                p->ignored[p->nignored++] = opt;
                wh_buf_printf(&p->ignored_str, "%s%s", p->ignored_str.len ? " " : "", opt);
                opt = NULL;
            } else if (!opt && !p->why) {
                /* Named where it is: an #error in a header the test
                 * includes is the header's. */
                char *where = wh_ubscan_where(p->tu, d);
                CXString sp = clang_getDiagnosticSpelling(d);
                p->why = wh_strdup_printf("the original has a front-end error with these flags "
                                          "(%s: %s)", where ? where : p->file,
                                          clang_getCString(sp));
                clang_disposeString(sp);
                free(where);
            } else if (opt && !p->why) {
                p->why = wh_strdup_printf("the original raises too many warnings as errors");
            }
        }
        free(opt);
        clang_disposeDiagnostic(d);
    }
    p->enabled = p->why == NULL;
}

static int s_is_cxx(const wh_precheck_opts_t *o)
{
    const char *dot = strrchr(o->file, '.');
    int cxx = dot && (!strcmp(dot, ".cc") || !strcmp(dot, ".cpp") || !strcmp(dot, ".cxx") ||
                      !strcmp(dot, ".C") || !strcmp(dot, ".c++"));
    for (int i = 0; i < o->nargs; i++) {
        const char *a = o->args[i];
        if (!strcmp(a, "c++") || !strncmp(a, "-std=c++", 8) || !strncmp(a, "-std=gnu++", 10) ||
            !strcmp(a, "-xc++"))
            cxx = 1;
        else if (!strcmp(a, "c") && i > 0 && !strcmp(o->args[i - 1], "-x"))
            cxx = 0;
    }
    return cxx;
}

/* Parses the original and judges it (p->file, p->args, p->text set). */
static void s_setup(wh_precheck_t *p)
{
    unsigned long long t0 = s_now_us();
    p->index = wh_clang_index();
    struct CXUnsavedFile u = {p->file, p->text, (unsigned long)p->len};
    enum CXErrorCode ec = CXError_Failure;
    if (p->index)
        ec = clang_parseTranslationUnit2(
            p->index, p->file, (const char *const *)p->args, p->nargs, &u, 1,
            CXTranslationUnit_PrecompiledPreamble | CXTranslationUnit_CreatePreambleOnFirstParse |
                CXTranslationUnit_SkipFunctionBodies |
                CXTranslationUnit_LimitSkipFunctionBodiesToPreamble |
                CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles,
            &p->tu);
    if (ec != CXError_Success || !p->tu)
        p->err = wh_strdup_printf("%s: libclang could not parse the file for the precheck "
                                  "(error %d)", p->file, (int)ec);
    else
        s_judge_original(p, p->text, p->len);
    if (p->ub && p->tu) {
        wh_ubscan_t sc = {0};
        wh_ubscan_run(p->tu, &sc);
        p->ub = sc.hard == 0; /* as the guard's own setup decides (ubguard.c) */
        p->ub_orig = sc.ids;
        sc.ids.n = 0;
        wh_ubscan_free(&sc);
    }
    p->setup_us = s_now_us() - t0;
    atomic_store(&p->ready, 1);
    if (p->on_ready)
        p->on_ready(p->ready_ctx);
}

static void *s_setup_thread(void *arg)
{
    s_setup(arg);
    return NULL;
}

/* A handle with copies of what the setup needs; NULL when out of memory. */
static wh_precheck_t *s_alloc(const wh_precheck_opts_t *o, const char *text, size_t len)
{
    wh_precheck_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->file = wh_abspath(o->file);
    p->on_ready = o->on_ready;
    p->ready_ctx = o->ready_ctx;
    int nw = 0;
    while (wh_ubscan_args[nw])
        nw++;
    p->ub = o->ub_guard;
    for (int i = 0; i < o->nargs; i++)
        if (strcmp(o->args[i], "-w") == 0)
            p->ub = 0; /* the user silences warnings: the guard asks a parse of its own */
    p->args = calloc((size_t)o->nargs + (size_t)nw + 1, sizeof *p->args);
    p->text = malloc(len + 1);
    int bad = !p->file || !p->args || !p->text;
    for (int i = 0; !bad && i < o->nargs; i++) {
        bad = !(p->args[i] = strdup(o->args[i]));
        p->nargs = i + 1;
    }
    /* The guard's arguments, as its own parse has them: the guarded
     * warnings stay warnings, so they never change what counts as an error
     * for the prediction (a -Werror=return-type of the user's is
     * overridden: a prediction lost, never a wrong one). */
    for (int i = 0; !bad && p->ub && i < nw; i++)
        bad = !(p->args[p->nargs++] = strdup(wh_ubscan_args[i]));
    if (bad) {
        wh_precheck_destroy(&p);
        return NULL;
    }
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    p->len = len;
    p->cxx = s_is_cxx(o);
    p->clang_compiler = o->clang_compiler;
    return p;
}

/* Joins the setup thread, once. */
static void s_join(wh_precheck_t *p)
{
    if (p->running) {
        pthread_join(p->thread, NULL);
        p->running = 0;
    }
}

wh_precheck_t *wh_precheck_new(const wh_precheck_opts_t *o, const char *text, size_t len,
                               char **err)
{
    wh_precheck_t *p = s_alloc(o, text, len);
    if (!p) {
        *err = strdup("out of memory");
        return NULL;
    }
    s_setup(p);
    if (p->err) {
        *err = p->err;
        p->err = NULL;
        wh_precheck_destroy(&p);
    }
    return p;
}

wh_precheck_t *wh_precheck_start(const wh_precheck_opts_t *o, const char *text, size_t len)
{
    wh_precheck_t *p = s_alloc(o, text, len);
    if (p && pthread_create(&p->thread, NULL, s_setup_thread, p) != 0)
        wh_precheck_destroy(&p);
    else if (p)
        p->running = 1;
    return p;
}

int wh_precheck_ready(const wh_precheck_t *p)
{
    return atomic_load(&((wh_precheck_t *)p)->ready);
}

void wh_precheck_destroy(wh_precheck_t **pp)
{
    wh_precheck_t *p = *pp;
    if (!p)
        return;
    s_join(p);
    if (p->tu)
        clang_disposeTranslationUnit(p->tu);
    if (p->index)
        clang_disposeIndex(p->index);
    for (int i = 0; i < p->nignored; i++)
        free(p->ignored[i]);
    wh_ubscan_ids_clear(&p->ub_orig);
    wh_buf_free(&p->ignored_str);
    for (int i = 0; i < p->nargs; i++)
        free(p->args[i]);
    free(p->args);
    free(p->text);
    free(p->err);
    free(p->why);
    free(p->file);
    free(p);
    *pp = NULL;
}

int wh_precheck_enabled(const wh_precheck_t *p)
{
    if (!p || !wh_precheck_ready(p))
        return 0;
    s_join((wh_precheck_t *)p);
    return p->enabled;
}

const char *wh_precheck_why(const wh_precheck_t *p)
{
    if (!p || !wh_precheck_ready(p))
        return NULL;
    s_join((wh_precheck_t *)p);
    return p->err ? p->err : p->why;
}

const char *wh_precheck_ignored(const wh_precheck_t *p)
{
    return p && p->ignored_str.buf ? p->ignored_str.buf : "";
}

int wh_precheck_check(wh_precheck_t *p, const char *text, size_t len, char **first)
{
    return wh_precheck_check_ub(p, text, len, first, NULL, NULL);
}

/* The guard's answer from the TU just parsed (see wh_precheck_check_ub). */
static int s_ub(wh_precheck_t *p, char **ub_first)
{
    wh_ubscan_t sc = {.against = &p->ub_orig};
    wh_ubscan_run(p->tu, &sc);
    int ub = sc.first_new != NULL;
    if (ub == 1 && ub_first) {
        *ub_first = sc.first_new;
        sc.first_new = NULL;
    }
    wh_ubscan_free(&sc);
    return ub;
}

int wh_precheck_check_ub(wh_precheck_t *p, const char *text, size_t len, char **first, int *ub,
                         char **ub_first)
{
    if (first)
        *first = NULL;
    if (ub)
        *ub = -1;
    if (ub_first)
        *ub_first = NULL;
    if (!wh_precheck_enabled(p))
        return WH_EINVAL;
    unsigned long long t0 = s_now_us();
    struct CXUnsavedFile u = {p->file, text, (unsigned long)len};
    int rc = clang_reparseTranslationUnit(p->tu, 1, &u, clang_defaultReparseOptions(p->tu));
    if (rc != 0) {
        /* The TU is unusable after a failed reparse. */
        clang_disposeTranslationUnit(p->tu);
        p->tu = NULL;
        p->enabled = 0;
        free(p->why);
        p->why = wh_strdup_printf("libclang failed to re-parse a candidate (error %d)", rc);
        return WH_EPARSE;
    }
    rc = s_errors(p, text, len, first);
    if (ub && p->ub)
        *ub = s_ub(p, ub_first);
    p->checks++;
    p->us += s_now_us() - t0;
    return rc;
}

void wh_precheck_stats(const wh_precheck_t *p, int *checks, unsigned long long *us,
                       unsigned long long *setup_us)
{
    *checks = p ? p->checks : 0;
    *us = p ? p->us : 0;
    *setup_us = p ? p->setup_us : 0;
}
