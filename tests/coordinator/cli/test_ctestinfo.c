/*
 * Tests of coordinator/cli/ctestinfo: a hand-made CMake build folder (the
 * shapes CMake 3.25 writes: CMakeCache.txt, CTestTestfile.cmake with
 * subdirs(), bracket names, WORKING_DIRECTORY and ENVIRONMENT, a
 * build.make, LastTest.log) turned into workspace commands, sources and a
 * test's output; and the folders that are no build.
 */
#define _GNU_SOURCE
#include "ctestinfo.h"
#include "wh_common.h"
#include "wh_test.h"

#include <sys/stat.h>

static char s_root[] = "/tmp/wh-ctestinfo.XXXXXX";

static void s_write(const char *rel, const char *text)
{
    char *path = wh_path_join(s_root, rel);
    for (char *p = strchr(path + strlen(s_root) + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
    free(path);
}

/* The project P with its build folder P/out and tests in P/out/t. */
static void s_make(void)
{
    char *cache = wh_strdup_printf(
        "# This is the CMakeCache file.\n"
        "//Choose the type of build\nCMAKE_BUILD_TYPE:STRING=Debug\n"
        "//Flags used by the C compiler during all build types.\nCMAKE_C_FLAGS:STRING=\n"
        "//No help, variable specified on the command line.\nWITH_X:BOOL=ON\n"
        "//No help, variable specified on the command line.\nNAME:UNINITIALIZED=a b\n"
        "//Build the tests (an option() the user set with -D keeps its help)\nWITH_TESTS:BOOL=ON\n"
        "//Path to a library.\nZ_LIBRARY:FILEPATH=/usr/lib/libz.so\n"
        "//Use the bundled copy\nZ_BUNDLED:BOOL=OFF\n"
        "//Verbose makefiles\nCMAKE_VERBOSE_MAKEFILE:BOOL=FALSE\n"
        "Z_BUNDLED-ADVANCED:INTERNAL=1\n"
        "CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n"
        "CMAKE_HOME_DIRECTORY:INTERNAL=%s/P\n", s_root);
    s_write("P/out/CMakeCache.txt", cache);
    free(cache);
    char *top = wh_strdup_printf("# CMake generated Testfile\n"
                                 "add_test(top \"%s/P/out/top_test\" \"--in=x\" \"%s/P/data/in.json\")\n"
                                 "subdirs(\"t\")\n", s_root, s_root);
    s_write("P/out/CTestTestfile.cmake", top);
    free(top);
    char *sub = wh_strdup_printf(
        "add_test([=[two words]=] \"%s/P/out/t/prog\" \"it's\")\n"
        "set_tests_properties([=[two words]=] PROPERTIES  ENVIRONMENT \"A=1;B=x y\" "
        "WORKING_DIRECTORY \"%s/P/data\" _BACKTRACE_TRIPLES \"x;1;add_test\")\n"
        "set_tests_properties([=[two words]=] PROPERTIES  WILL_FAIL \"TRUE\" "
        "PASS_REGULAR_EXPRESSION \"ok;all (good|fine)\" FAIL_REGULAR_EXPRESSION \"LEAK\")\n",
        s_root, s_root);
    s_write("P/out/t/CTestTestfile.cmake", sub);
    free(sub);
    char *make = wh_strdup_printf(
        "t/CMakeFiles/prog.dir/prog.c.o: t/CMakeFiles/prog.dir/flags.make\n"
        "t/CMakeFiles/prog.dir/prog.c.o: %s/P/tests/prog.c\n"
        "t/CMakeFiles/prog.dir/util.c.o: %s/P/tests/util.c\n", s_root, s_root);
    s_write("P/out/t/CMakeFiles/prog.dir/build.make", make);
    free(make);
    s_write("P/tests/top_test.c", "int main(void) { return 0; }\n");
    s_write("P/out/Testing/Temporary/LastTest.log",
            "Start testing: Dec 04 03:17 UTC\n"
            "----------------------------------------------------------\n"
            "1/2 Testing: top\n1/2 Test: top\nCommand: \"x\"\nDirectory: y\n"
            "Output:\n----------------------------------------------------------\n"
            "[  FAILED  ] test_a\n<end of output>\nTest time =   0.02 sec\n"
            "2/2 Testing: two words\n2/2 Test: two words\n"
            "Output:\n----------------------------------------------------------\n"
            "<end of output>\n"
            "Unable to find executable: /x/out/bin/gone\n"
            "3/3 Testing: gone\n3/3 Test: gone\nCommand: \"\"\nDirectory: /x/out\n"
            "Output:\n----------------------------------------------------------\n"
            "<end of output>\n");
}

static void test_commands(void)
{
    char *err = NULL, *build = wh_path_join(s_root, "P/out"), *proj = wh_path_join(s_root, "P");
    wh_ctest_t *c = wh_ctest_open(build, &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return;
    }
    char *setup = NULL, *bld = NULL, *run = NULL;
    CHECK_EQ_INT(wh_ctest_commands(c, proj, "two words", 1, &setup, &bld, &run, &err), 0);
    CHECK_EQ_STR(setup, "cmake -S '.' -B 'out' -G 'Unix Makefiles' -D'CMAKE_BUILD_TYPE:STRING=Debug' "
                        "-D'WITH_X:BOOL=ON' -D'NAME=a b' -D'WITH_TESTS:BOOL=ON' && cmake --build 'out' "
                        "--target 'prog'");
    CHECK_EQ_STR(bld, "cmake --build 'out' --target 'prog'");
    CHECK_EQ_STR(run, "W=$PWD && cd \"$W\"/'./data' && export 'A=1' && export 'B=x y' && "
                      "\"$W\"/'out/t/prog' 'it'\\''s'");
    free(setup), free(bld), free(run);
    /* A program no build file lists: the whole build; paths moved. */
    CHECK_EQ_INT(wh_ctest_commands(c, proj, "top", 1, &setup, &bld, &run, &err), 0);
    CHECK_EQ_STR(bld, "cmake --build 'out'");
    CHECK_EQ_STR(run, "W=$PWD && cd \"$W\"/'out' && \"$W\"/'out/top_test' '--in=x' \"$W\"/'./data/in.json'");
    free(setup), free(bld), free(run);
    CHECK_EQ_INT(wh_ctest_commands(c, proj, "top", 0, &setup, &bld, &run, &err), 0);
    CHECK_EQ_STR(run, "ctest --test-dir 'out'");
    free(setup), free(bld), free(run);
    /* How CTest judges a test: WILL_FAIL and the regex lists, a line each. */
    int wf = -1;
    char *prx = NULL, *frx = NULL;
    CHECK_EQ_INT(wh_ctest_judge(c, "two words", &wf, &prx, &frx), 0);
    CHECK_EQ_INT(wf, 1);
    CHECK_EQ_STR(prx, "ok\nall (good|fine)");
    CHECK_EQ_STR(frx, "LEAK");
    free(prx), free(frx);
    CHECK_EQ_INT(wh_ctest_judge(c, "top", &wf, &prx, &frx), 0);
    CHECK(wf == 0 && !prx && !frx);
    CHECK_EQ_INT(wh_ctest_judge(c, "nope", &wf, &prx, &frx), WH_ENOTFOUND);
    CHECK_EQ_INT(wh_ctest_commands(c, proj, "nope", 1, &setup, &bld, &run, &err), WH_ENOTFOUND);
    free(err), err = NULL;
    /* The project must hold the source folder. */
    CHECK_EQ_INT(wh_ctest_commands(c, build, "top", 1, &setup, &bld, &run, &err), WH_EINVAL);
    CHECK(err && strstr(err, "is not inside the project"));
    free(err), err = NULL;
    /* Sources: from build.make, else the file named like the program. */
    char **files = NULL;
    size_t n = 0;
    CHECK_EQ_INT(wh_ctest_sources(c, proj, "two words", &files, &n), 0);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(files[0], "tests/prog.c");
        CHECK_EQ_STR(files[1], "tests/util.c");
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    CHECK_EQ_INT(wh_ctest_sources(c, proj, "top", &files, &n), 0);
    CHECK(n == 1 && !strcmp(files[0], "tests/top_test.c"));
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    /* Output from LastTest.log. */
    /* A test ctest could not start (no executable): not run. */
    CHECK(wh_ctest_not_run(c, "gone"));
    CHECK(!wh_ctest_not_run(c, "top"));
    CHECK(!wh_ctest_not_run(c, "two words"));
    char *out = wh_ctest_output(c, "top");
    CHECK_EQ_STR(out, "[  FAILED  ] test_a\n");
    free(out);
    out = wh_ctest_output(c, "two words");
    CHECK_EQ_STR(out, "");
    free(out);
    CHECK(wh_ctest_output(c, "two") == NULL);
    wh_ctest_close(&c);
    CHECK(c == NULL);
    /* The build folder of a report inside it. */
    char *deep = wh_path_join(s_root, "P/out/t"), *found = wh_ctest_find_build(deep);
    CHECK_EQ_STR(found, build);
    free(found), free(deep);
    free(build), free(proj);
}

/* Folders that are no CMake build with tests. */
static void test_no_build(void)
{
    char *err = NULL, *p = wh_path_join(s_root, "P");
    CHECK(wh_ctest_open(p, &err) == NULL);
    CHECK(err && strstr(err, "no CMake build in"));
    free(err), err = NULL;
    s_write("Q/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/q\n");
    char *q = wh_path_join(s_root, "Q");
    CHECK(wh_ctest_open(q, &err) == NULL);
    CHECK(err && strstr(err, "has no CTestTestfile.cmake"));
    free(err);
    CHECK(wh_ctest_find_build(q) == NULL);
    free(p), free(q);
}

int main(void)
{
    if (!mkdtemp(s_root))
        return 1;
    s_make();
    RUN_TEST(test_commands);
    RUN_TEST(test_no_build);
    char *rm = wh_strdup_printf("rm -rf '%s'", s_root);
    if (system(rm) != 0)
        fprintf(stderr, "cannot remove %s\n", s_root);
    free(rm);
    TEST_MAIN_END();
}
