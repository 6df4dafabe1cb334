/*
 * Tests of coordinator/testfind: report cases to the test functions of the
 * fixtures' test files (libclang): googletest's classname + name, a bare
 * name that one "Suite.Name" ends with, a ctest harness's plain function
 * (not listed as a test, found by name), and the errors.
 */
#define _GNU_SOURCE
#include "testfind.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_fix;

/* Opens pattern in fixture project name; *err on failure. */
static wh_testfind_t *s_open(const char *name, const char *pattern, char **err)
{
    wh_job_t j;
    wh_job_init(&j);
    char *project = wh_path_join(s_fix, name);
    wh_testfind_t *f = wh_testfind_open(&j, project, pattern, err);
    free(project);
    wh_job_clear(&j);
    return f;
}

/* gtest's report: <testcase name="TopIsLastPushed" classname="Stack">. */
static void test_gtest_classname(void)
{
    char *err = NULL;
    wh_testfind_t *f = s_open("gtest_stack", "tests/*.cc", &err);
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return;
    }
    CHECK_EQ_INT(wh_testfind_files(f), 1);
    CHECK_EQ_INT(wh_testfind_tests(f), 2);
    const char *file = NULL, *test = NULL;
    CHECK_EQ_INT(wh_testfind_case(f, "TopIsLastPushed", "Stack", "Stack", &file, &test), 0);
    CHECK_EQ_STR(file, "tests/test_stack.cc");
    CHECK_EQ_STR(test, "Stack.TopIsLastPushed");
    /* No classname or suite: the one test that ends in ".StartsEmpty". */
    CHECK_EQ_INT(wh_testfind_case(f, "StartsEmpty", "", NULL, &file, &test), 0);
    CHECK_EQ_STR(test, "Stack.StartsEmpty");
    CHECK_EQ_INT(wh_testfind_case(f, "Pops", "Stack", "", &file, &test), WH_ENOTFOUND);
    wh_testfind_close(&f);
    CHECK(f == NULL);
}

/* ctest's names are the harness's functions, which the listing does not
 * count as tests: found by parsing for them, then remembered. */
static void test_ctest_plain_function(void)
{
    char *err = NULL;
    wh_testfind_t *f = s_open("ctest_purse", "tests/test_*.c", &err);
    CHECK(f != NULL);
    if (!f) {
        free(err);
        return;
    }
    CHECK_EQ_INT(wh_testfind_tests(f), 0);
    const char *file = NULL, *test = NULL;
    CHECK_EQ_INT(wh_testfind_case(f, "take_twice", "take_twice", "(empty)", &file, &test), 0);
    CHECK_EQ_STR(file, "tests/test_purse.c");
    CHECK_EQ_STR(test, "take_twice");
    CHECK_EQ_INT(wh_testfind_tests(f), 1);
    CHECK_EQ_INT(wh_testfind_case(f, "no_such_fn", "", "", &file, &test), WH_ENOTFOUND);
    /* A case named like a listed file is that file's whole program. */
    CHECK_EQ_STR(wh_testfind_program(f, "test_purse") ? wh_testfind_program(f, "test_purse") : "(none)",
                 "tests/test_purse.c");
    CHECK(wh_testfind_program(f, "take_twice") == NULL);
    CHECK(wh_testfind_program(f, "test_purs") == NULL);
    wh_testfind_close(&f);
}

static void test_no_file(void)
{
    char *err = NULL;
    wh_testfind_t *f = s_open("ctest_purse", "tests/*.zz", &err);
    CHECK(f == NULL);
    char *want = wh_strdup_printf("no test file matches 'tests/*.zz' in project '%s/ctest_purse'",
                                  s_fix);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
}

/* A program's sources, library included (ctest_bag's): with the names a
 * report gives, a text search picks the files to parse; the library
 * source spells none and is not parsed. Names no file spells: all are. */
static void test_list_text_search(void)
{
    wh_job_t j;
    wh_job_init(&j);
    char *project = wh_path_join(s_fix, "ctest_bag"), *err = NULL;
    const char *files[] = {"src/bag.c", "tests/test_bag.c"};
    const char *names[] = {"bag_tests", "test_overflow"};
    wh_testfind_t *f = wh_testfind_open_list(&j, project, files, 2, names, 2, &err);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_INT(wh_testfind_files(f), 1);
        const char *file = NULL, *test = NULL;
        CHECK_EQ_INT(wh_testfind_case(f, "test_overflow", "", "", &file, &test), 0);
        CHECK_EQ_STR(file, "tests/test_bag.c");
    }
    wh_testfind_close(&f);
    /* "Suite.Name" by its last part; a file named like the program. */
    const char *gt[] = {"Bag.test_sum"};
    f = wh_testfind_open_list(&j, project, files, 2, gt, 1, &err);
    CHECK(f && wh_testfind_files(f) == 1);
    wh_testfind_close(&f);
    const char *prog[] = {"test_bag"};
    f = wh_testfind_open_list(&j, project, files, 2, prog, 1, &err);
    CHECK(f && wh_testfind_files(f) == 1 && wh_testfind_program(f, "test_bag"));
    wh_testfind_close(&f);
    /* Parsed all: the library's #error for clang is met (as it was before
     * the text search, for every report). */
    const char *none[] = {"test_pasted_together"};
    f = wh_testfind_open_list(&j, project, files, 2, none, 1, &err);
    CHECK(f == NULL && err && strstr(err, "bag.c"));
    wh_testfind_close(&f);
    free(err);
    free(project);
    wh_job_clear(&j);
}

int main(void)
{
    s_fix = wh_path_join(getenv("WH_SOURCE_DIR") ? getenv("WH_SOURCE_DIR") : ".",
                         "tests/fixtures");
    RUN_TEST(test_gtest_classname);
    RUN_TEST(test_ctest_plain_function);
    RUN_TEST(test_no_file);
    RUN_TEST(test_list_text_search);
    free(s_fix);
    TEST_MAIN_END();
}
