/*
 * Tests of the UB guard (coordinator/tree/ubguard.c) on small C snippets
 * parsed with libclang: a removed initialisation or return is new, a
 * warning the original already has is not, moving code changes nothing,
 * the user's -Werror and -w do not hide or harden the guarded warnings, an
 * original with errors turns the guard off, and -fsanitize= options are
 * read in order; the precheck's parse (wh_precheck_check_ub) says what the
 * guard says wherever it says anything.
 */
#define _GNU_SOURCE
#include "ubguard.h"
#include "precheck.h"
#include "wh_common.h"
#include "wh_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>

static char s_dir[] = "/tmp/whittle-ubguard.XXXXXX";

static const char s_orig[] = "#include <assert.h>\n"
                             "static int total_of(const int *v, int n)\n"
                             "{\n"
                             "    int t = 0;\n"
                             "    for (int i = 0; i < n; i++)\n"
                             "        t += v[i];\n"
                             "    return t;\n"
                             "}\n"
                             "void test_total(void)\n"
                             "{\n"
                             "    int v[2] = {1, 2};\n"
                             "    int expect;\n"
                             "    expect = 0;\n"
                             "    int total = total_of(v, 2);\n"
                             "    assert(total == expect);\n"
                             "}\n";

/* Blanks the first occurrence of what in s (keeping newlines), as render does. */
static char *s_remove(const char *s, const char *what)
{
    char *c = strdup(s);
    char *at = strstr(c, what);
    CHECK(at != NULL);
    for (size_t i = 0; at && i < strlen(what); i++)
        if (at[i] != '\n')
            at[i] = ' ';
    return c;
}

/* s with the first what replaced by with (malloc'ed). */
static char *s_replace(const char *s, const char *what, const char *with)
{
    const char *at = strstr(s, what);
    CHECK(at != NULL);
    return wh_strdup_printf("%.*s%s%s", (int)(at - s), s, with, at + strlen(what));
}

static wh_ubguard_t *s_new(const char *text, const char **args, int n)
{
    char *file = wh_path_join(s_dir, "t.c");
    CHECK(wh_write_file(file, text, strlen(text)) == 0);
    wh_ubguard_opts_t o = {file, args, n, NULL, NULL};
    char *err = NULL;
    wh_ubguard_t *g = wh_ubguard_new(&o, text, strlen(text), &err);
    if (!g)
        fprintf(stderr, "ubguard: %s\n", err);
    CHECK(g != NULL);
    free(err);
    free(file);
    return g;
}

/* 1 when the candidate (orig minus what) is new UB, with the message. */
static int s_check_removed(wh_ubguard_t *g, const char *orig, const char *what, const char *msg)
{
    char *c = s_remove(orig, what);
    char *first = NULL;
    int rc = wh_ubguard_check(g, c, strlen(c), &first);
    if (msg) {
        CHECK(first != NULL && strstr(first, msg) != NULL);
        if (first && !strstr(first, msg))
            fprintf(stderr, "first: %s\n", first);
    }
    free(first);
    free(c);
    return rc;
}

static void test_removed_init_and_return(void)
{
    wh_ubguard_t *g = s_new(s_orig, NULL, 0);
    CHECK(wh_ubguard_enabled(g));
    CHECK_EQ_INT(wh_ubguard_original(g), 0);
    CHECK_EQ_INT(wh_ubguard_check(g, s_orig, strlen(s_orig), NULL), 0);
    CHECK_EQ_INT(s_check_removed(g, s_orig, "expect = 0;", "'expect'"), 1);
    CHECK_EQ_INT(s_check_removed(g, s_orig, "return t;", "-Wreturn-type"), 1);
    CHECK_EQ_INT(s_check_removed(g, s_orig, "int t = 0;", NULL), 0); /* an error, not UB */
    CHECK_EQ_INT(s_check_removed(g, s_orig, "int total = total_of(v, 2);", NULL), 0);
    /* Only one path assigns: -Wsometimes-uninitialized. */
    char *c = s_replace(s_orig, "expect = 0;", "if (v[0]) expect = 0;");
    char *first = NULL;
    CHECK_EQ_INT(wh_ubguard_check(g, c, strlen(c), &first), 1);
    CHECK(first && strstr(first, "sometimes-uninitialized"));
    free(first);
    free(c);
    int checks = 0;
    unsigned long long us = 0, setup = 0;
    wh_ubguard_stats(g, &checks, &us, &setup);
    CHECK_EQ_INT(checks, 6);
    wh_ubguard_destroy(&g);
    CHECK(g == NULL);
}

/* The user's own uninitialized read is theirs: only one more of it counts. */
static void test_original_warning_is_not_new(void)
{
    const char *orig = "int g(int a);\n"
                       "void test_own(void)\n"
                       "{\n"
                       "    int x;\n"
                       "    g(x);\n"
                       "    int y;\n"
                       "    y = 1;\n"
                       "    g(y);\n"
                       "}\n";
    wh_ubguard_t *g = s_new(orig, NULL, 0);
    CHECK(wh_ubguard_enabled(g));
    CHECK_EQ_INT(wh_ubguard_original(g), 1);
    CHECK_EQ_INT(wh_ubguard_check(g, orig, strlen(orig), NULL), 0);
    /* Moved down a line: the same identity, not new. */
    char *moved = strdup(orig);
    char *at = strstr(moved, "    int x;\n    g(x);\n");
    memcpy(at, "\n    int x;\n    g(x);", 21);
    CHECK_EQ_INT(wh_ubguard_check(g, moved, strlen(moved), NULL), 0);
    free(moved);
    CHECK_EQ_INT(s_check_removed(g, orig, "y = 1;", "'y'"), 1);
    wh_ubguard_destroy(&g);
}

/* -Werror makes no guarded warning an error (the analysis goes on), -w
 * does not silence them, unknown flags are ignored. */
static void test_user_flags(void)
{
    const char *args[] = {"-Werror", "-w", "-Wno-uninitialized", "-fno-such-flag", "-std=c11"};
    wh_ubguard_t *g = s_new(s_orig, args, 5);
    CHECK(wh_ubguard_enabled(g));
    CHECK_EQ_INT(s_check_removed(g, s_orig, "expect = 0;", "'expect'"), 1);
    CHECK_EQ_INT(s_check_removed(g, s_orig, "return t;", "-Wreturn-type"), 1);
    wh_ubguard_destroy(&g);
}

/* An uninitialized local passed to a `const T *` parameter (its address,
 * or its value when it is a pointer or an array): clang's analysis says
 * nothing there, gcc -O2 does; the guard's own rule sees it where the
 * original initialised it (issue 33, item 7). */
static const char s_constarg[] = "typedef struct bag bag_t;\n"
                                 "bag_t *bag_new(void);\n"
                                 "unsigned bag_count(const bag_t *b);\n"
                                 "unsigned scale(unsigned v, const unsigned *f);\n"
                                 "int show(const char *s);\n"
                                 "void fill(unsigned *f);\n"
                                 "int check(int ok);\n"
                                 "void test_constarg(void)\n"
                                 "{\n"
                                 "    bag_t *bag;\n"
                                 "    bag = bag_new();\n"
                                 "    unsigned factor;\n"
                                 "    factor = 3;\n"
                                 "    char name[8];\n"
                                 "    name[0] = 0;\n"
                                 "    unsigned other;\n"
                                 "    fill(&other);\n"
                                 "    check(bag_count(bag) == 1);\n"
                                 "    check(scale(10, &factor) == 30);\n"
                                 "    check(show(name) == 0);\n"
                                 "    check(scale(1, &other) == 1);\n"
                                 "}\n";

static void test_const_pointer_argument(void)
{
    wh_ubguard_t *g = s_new(s_constarg, NULL, 0);
    CHECK(wh_ubguard_enabled(g));
    CHECK_EQ_INT(wh_ubguard_original(g), 0);
    CHECK_EQ_INT(wh_ubguard_check(g, s_constarg, strlen(s_constarg), NULL), 0);
    CHECK_EQ_INT(s_check_removed(g, s_constarg, "bag = bag_new();", "'bag'"), 1);
    CHECK_EQ_INT(s_check_removed(g, s_constarg, "factor = 3;", "'factor'"), 1);
    CHECK_EQ_INT(s_check_removed(g, s_constarg, "name[0] = 0;", "'name'"), 1);
    CHECK_EQ_INT(s_check_removed(g, s_constarg, "fill(&other);", "'other'"), 1);
    /* The use gone with the write: nothing is read. */
    char *c = s_remove(s_constarg, "factor = 3;");
    char *c2 = s_remove(c, "check(scale(10, &factor) == 30);");
    CHECK_EQ_INT(wh_ubguard_check(g, c2, strlen(c2), NULL), 0);
    free(c2);
    free(c);
    wh_ubguard_destroy(&g);
}

/* What the rule must not flag: a write on some path first (a loop that
 * writes after its first read, a branch, a label a jump may reach), a
 * non-const pointer, a static, a use the original has too, a variadic
 * argument. A false positive only keeps a statement the answer did not
 * need, but each is one. */
static void test_const_pointer_argument_not_flagged(void)
{
    const char *orig = "unsigned scale(unsigned v, const unsigned *f);\n"
                       "int logf_(const char *fmt, ...);\n"
                       "void fill(unsigned *f);\n"
                       "int check(int ok);\n"
                       "void test_quiet(int n)\n"
                       "{\n"
                       "    unsigned a;\n"
                       "    for (int i = 0; i < n; i++) {\n"
                       "        if (i)\n"
                       "            check(scale(1, &a) == 1);\n"
                       "        a = 1;\n"
                       "    }\n"
                       "    unsigned b;\n"
                       "    if (n)\n"
                       "        b = 2;\n"
                       "    check(scale(1, &b) == 2);\n"
                       "    unsigned c;\n"
                       "    goto set;\n"
                       "again:\n"
                       "    check(scale(1, &c) == 3);\n"
                       "    return;\n"
                       "set:\n"
                       "    c = 3;\n"
                       "    goto again;\n"
                       "}\n"
                       "void test_more(void)\n"
                       "{\n"
                       "    static unsigned s;\n"
                       "    check(scale(1, &s) == 0);\n"
                       "    unsigned d;\n"
                       "    fill(&d);\n"
                       "    check(scale(1, &d) == 4);\n"
                       "    unsigned e;\n"
                       "    logf_(\"%p\", (const void *)&e);\n"
                       "    unsigned own;\n"
                       "    check(scale(1, &own) == 5);\n"
                       "}\n";
    wh_ubguard_t *g = s_new(orig, NULL, 0);
    CHECK(wh_ubguard_enabled(g));
    CHECK_EQ_INT(wh_ubguard_original(g), 1); /* own: the user's, held against nothing */
    CHECK_EQ_INT(wh_ubguard_check(g, orig, strlen(orig), NULL), 0);
    /* fill(&d) is a write through a non-const pointer; removing it is new. */
    CHECK_EQ_INT(s_check_removed(g, orig, "fill(&d);", "'d'"), 1);
    /* Moving the user's own read (a line down) is not new. */
    char *moved = s_replace(orig, "    unsigned own;\n", "\n    unsigned own;");
    CHECK_EQ_INT(wh_ubguard_check(g, moved, strlen(moved), NULL), 0);
    free(moved);
    wh_ubguard_destroy(&g);
}

static void test_original_with_errors_disables(void)
{
    const char *bad = "void test_bad(void) { undeclared(); int x = ; }\n";
    wh_ubguard_t *g = s_new(bad, NULL, 0);
    CHECK(!wh_ubguard_enabled(g));
    CHECK(wh_ubguard_why(g) && strstr(wh_ubguard_why(g), "front-end error"));
    CHECK_EQ_INT(wh_ubguard_check(g, bad, strlen(bad), NULL), WH_EINVAL);
    wh_ubguard_destroy(&g);
}

static void s_wake(void *ctx)
{
    CHECK_EQ_INT(wh_wake_signal(*(const int *)ctx), 0);
}

/* The setup on its own thread tells the owner when it is ready (the
 * eventfd is readable only then). */
static void test_async_setup(void)
{
    char *file = wh_path_join(s_dir, "a.c");
    CHECK(wh_write_file(file, s_orig, strlen(s_orig)) == 0);
    int efd = wh_wake_open();
    CHECK(efd >= 0);
    wh_ubguard_opts_t o = {file, NULL, 0, s_wake, &efd};
    wh_ubguard_t *g = wh_ubguard_start(&o, s_orig, strlen(s_orig));
    CHECK(g != NULL);
    struct pollfd pf = {efd, POLLIN, 0};
    CHECK_EQ_INT(poll(&pf, 1, 60000), 1); /* a deadline, not a sleep */
    CHECK(wh_ubguard_ready(g));
    CHECK(wh_ubguard_enabled(g));
    CHECK_EQ_INT(s_check_removed(g, s_orig, "expect = 0;", "'expect'"), 1);
    wh_ubguard_destroy(&g);
    close(efd);
    free(file);
}

static void test_sanitizers(void)
{
    const char *a[] = {"-O1", "-fsanitize=address,undefined", "-fsanitize=address",
                       "-fno-sanitize=undefined", "-fsanitize=leak"};
    char *s = wh_ubguard_sanitizers(a, 5);
    CHECK_EQ_STR(s, "address,leak");
    free(s);
    CHECK(wh_ubguard_sanitizers(a, 1) == NULL);
    CHECK(wh_ubguard_sanitizers(NULL, 0) == NULL);
}

/* The precheck's parse answers the guard (one parse per candidate): for
 * every candidate it answers, its answer is the guard's own, and it
 * answers every candidate without an error unless -w is given. */
static void s_agree(const char **args, int n, int expect_answers)
{
    char *file = wh_path_join(s_dir, "t.c");
    CHECK(wh_write_file(file, s_orig, strlen(s_orig)) == 0);
    wh_ubguard_t *g = s_new(s_orig, args, n);
    wh_precheck_opts_t o = {file, args, n, 1, 1, NULL, NULL};
    char *err = NULL;
    wh_precheck_t *p = wh_precheck_new(&o, s_orig, strlen(s_orig), &err);
    CHECK(p != NULL && wh_precheck_enabled(p));
    const char *cuts[] = {"", "expect = 0;", "return t;", "int t = 0;", "int v[2] = {1, 2};",
                          "int total = total_of(v, 2);", "assert(total == expect);",
                          "t += v[i];"};
    int answered = 0, clean = 0;
    for (size_t i = 0; p && i < sizeof cuts / sizeof *cuts; i++) {
        char *c = cuts[i][0] ? s_remove(s_orig, cuts[i]) : strdup(s_orig);
        char *first = NULL, *ub_first = NULL, *gfirst = NULL;
        int ub = -2;
        int rc = wh_precheck_check_ub(p, c, strlen(c), &first, &ub, &ub_first);
        int grc = wh_ubguard_check(g, c, strlen(c), &gfirst);
        CHECK(rc == 0 || rc == 1);
        CHECK(ub >= -1 && ub <= 1);
        clean += rc == 0;
        if (ub >= 0) {
            answered++;
            if (ub != grc)
                fprintf(stderr, "cut '%s': precheck's guard %d, the guard %d\n", cuts[i], ub, grc);
            CHECK_EQ_INT(ub, grc);
            CHECK_EQ_STR(ub_first ? ub_first : "", gfirst ? gfirst : "");
        }
        CHECK_EQ_INT(ub >= 0, expect_answers);
        free(first);
        free(ub_first);
        free(gfirst);
        free(c);
    }
    CHECK_EQ_INT(answered, expect_answers ? (int)(sizeof cuts / sizeof *cuts) : 0);
    CHECK(clean > 0 && clean < (int)(sizeof cuts / sizeof *cuts)); /* some have errors */
    /* Without the option, nothing is answered. */
    o.ub_guard = 0;
    wh_precheck_t *q = wh_precheck_new(&o, s_orig, strlen(s_orig), &err);
    int ub = -2;
    char *c = s_remove(s_orig, "expect = 0;");
    CHECK(q && wh_precheck_check_ub(q, c, strlen(c), NULL, &ub, NULL) == 0);
    CHECK_EQ_INT(ub, -1);
    free(c);
    wh_precheck_destroy(&q);
    wh_precheck_destroy(&p);
    wh_ubguard_destroy(&g);
    free(err);
    free(file);
}

static void test_precheck_parse_agrees(void)
{
    s_agree(NULL, 0, 1);
    const char *werror[] = {"-Werror", "-Wall", "-std=c11", "-Wno-uninitialized"};
    s_agree(werror, 4, 1);
    const char *rt[] = {"-Werror=return-type", "-Wall"};
    s_agree(rt, 2, 1);
    const char *quiet[] = {"-w"};
    s_agree(quiet, 1, 0);
}

int main(void)
{
    if (!mkdtemp(s_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_removed_init_and_return);
    RUN_TEST(test_original_warning_is_not_new);
    RUN_TEST(test_user_flags);
    RUN_TEST(test_const_pointer_argument);
    RUN_TEST(test_const_pointer_argument_not_flagged);
    RUN_TEST(test_original_with_errors_disables);
    RUN_TEST(test_async_setup);
    RUN_TEST(test_sanitizers);
    RUN_TEST(test_precheck_parse_agrees);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
