/*
 * Tests of coordinator/reduce/includer.c: the project file that #includes
 * a test file (a Check runner's `#include "test_art.c"`), what it has
 * before that line as flags, the source files a file #includes, and the
 * advice appended to a parse error.
 */
#define _GNU_SOURCE
#include "includer.h"
#include "wh_common.h"
#include "wh_test.h"

#include <stdlib.h>
#include <string.h>

static char s_dir[] = "/tmp/whittle-includer.XXXXXX";

static void s_write(const char *rel, const char *text)
{
    char *p = wh_path_join(s_dir, rel);
    CHECK(wh_write_file(p, text, strlen(text)) == 0);
    free(p);
}

static void s_project(void)
{
    char *t = wh_path_join(s_dir, "tests"), *s = wh_path_join(s_dir, "src"),
         *b = wh_path_join(s_dir, "build");
    CHECK(wh_mkdir_p(t) == 0 && wh_mkdir_p(s) == 0 && wh_mkdir_p(b) == 0);
    free(t), free(s), free(b);
    s_write("src/art.h", "struct art;\n");
    s_write("tests/local.h", "#define LOCAL 1\n");
    s_write("tests/runner.c", "#define _GNU_SOURCE\n"
                              "#define SIZE 4\n"
                              "#define TWICE(x) ((x) * 2)\n"
                              "#include <check.h>\n"
                              "#include \"local.h\"\n"
                              "#include \"art.h\"\n"
                              "\n"
                              "#include \"test_art.c\"\n"
                              "#include \"test_more.c\"\n"
                              "#include <stdio.h>\n"
                              "int main(void) { return 0; }\n");
    s_write("tests/test_art.c", "START_TEST(t) { } END_TEST\n");
    s_write("tests/test_more.c", "START_TEST(u) { } END_TEST\n");
    s_write("tests/alone.c", "int f(void) { return 0; }\n");
    /* A build folder's copy is never the includer. */
    s_write("build/CMakeCache.txt", "\n");
    s_write("build/copy.c", "#include \"../tests/alone.c\"\n");
}

static void test_find(void)
{
    wh_includer_t inc;
    CHECK_EQ_INT(wh_includer_find(s_dir, "tests/test_art.c", &inc), 0);
    CHECK_EQ_STR(inc.path, "tests/runner.c");
    CHECK_EQ_INT((int)inc.line, 8);
    char *local = wh_path_join(s_dir, "tests/local.h");
    char *real = wh_abspath(local);
    char *want = wh_strdup_printf("-D_GNU_SOURCE -DSIZE=4 -include check.h -include %s "
                                  "-include art.h", real);
    CHECK_EQ_STR(inc.flags, want);
    CHECK_EQ_INT(inc.nargs, 8);
    free(want), free(real), free(local);
    wh_includer_clear(&inc);
    /* An absolute path names the same file. */
    char *abs = wh_path_join(s_dir, "tests/test_more.c");
    CHECK_EQ_INT(wh_includer_find(s_dir, abs, &inc), 0);
    CHECK_EQ_INT((int)inc.line, 9);
    wh_includer_clear(&inc);
    free(abs);
    CHECK_EQ_INT(wh_includer_find(s_dir, "tests/alone.c", &inc), WH_ENOTFOUND);
    CHECK_EQ_INT(wh_includer_find(s_dir, "tests/runner.c", &inc), WH_ENOTFOUND);
}

static void test_sources(void)
{
    char **v = NULL;
    size_t n = 0;
    CHECK_EQ_INT(wh_includer_sources(s_dir, "tests/runner.c", &v, &n), 0);
    CHECK_EQ_INT((int)n, 2);
    if (n == 2) {
        CHECK_EQ_STR(v[0], "tests/test_art.c");
        CHECK_EQ_STR(v[1], "tests/test_more.c");
    }
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    CHECK_EQ_INT(wh_includer_sources(s_dir, "tests/alone.c", &v, &n), 0);
    CHECK_EQ_INT((int)n, 0);
    free(v);
}

static void test_advise(void)
{
    const char *e = "tests/test_art.c:1:27: error: unknown type name 'END_TEST'";
    char *m = strdup(e);
    wh_includer_advise(s_dir, "tests/test_art.c", 0, &m);
    CHECK(strncmp(m, e, strlen(e)) == 0);
    CHECK(strstr(m, "; tests/test_art.c is #included by tests/runner.c (line 8), and parses only "
                    "as part of it: give -- -D_GNU_SOURCE -DSIZE=4 -include check.h") != NULL);
    free(m);
    m = strdup(e);
    wh_includer_advise(s_dir, "tests/test_art.c", 1, &m);
    CHECK(strstr(m, " (parsed as tests/runner.c sees it at its line 8: -D_GNU_SOURCE") != NULL);
    free(m);
    /* No includer: the header of the framework macro the error names. */
    m = strdup("tests/alone.c:3:1: error: unknown type name 'END_TEST'");
    wh_includer_advise(s_dir, "tests/alone.c", 0, &m);
    CHECK(strstr(m, "; tests/alone.c uses a macro of <check.h> without including it: give -- "
                    "-include check.h") != NULL);
    free(m);
    m = strdup("tests/alone.c:3:1: error: expected ';'");
    wh_includer_advise(s_dir, "tests/alone.c", 0, &m);
    CHECK_EQ_STR(m, "tests/alone.c:3:1: error: expected ';'");
    free(m);
    CHECK_EQ_STR(wh_includer_macro_header("implicit declaration of function 'ck_assert_int_eq'"),
                 "check.h");
    CHECK(wh_includer_macro_header("unknown type name 'START_TESTS'") == NULL);
    CHECK_EQ_STR(wh_includer_macro_header("unknown type name 'TEST_F'"), "gtest/gtest.h");
    const char *args[] = {"-Isrc", "-include", "check.h"};
    CHECK_EQ_INT(wh_includer_applied(args, 3), 1);
    CHECK_EQ_INT(wh_includer_applied(args, 1), 0);
}

int main(void)
{
    if (!mkdtemp(s_dir)) {
        perror("mkdtemp");
        return 1;
    }
    s_project();
    RUN_TEST(test_find);
    RUN_TEST(test_sources);
    RUN_TEST(test_advise);
    wh_rm_rf(s_dir);
    TEST_MAIN_END();
}
