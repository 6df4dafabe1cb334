/*
 * Tests of coordinator/fw_detect: the preset a test file's #include lines
 * name, the header that named it, and the lines that must not count.
 */
#include <stddef.h>

#include "fw_detect.h"
#include "wh_test.h"

static void s_check(const char *src, const char *want, const char *want_header)
{
    const char *h = NULL;
    const char *got = wh_fw_detect_source(src, &h);
    if (!want) {
        CHECK(got == NULL);
        return;
    }
    CHECK_EQ_STR(got ? got : "(none)", want);
    CHECK_EQ_STR(h ? h : "(none)", want_header);
}

static void test_each_framework(void)
{
    s_check("#include <stdarg.h>\n#include <setjmp.h>\n#include <cmocka.h>\n", "cmocka", "cmocka.h");
    s_check("#include \"gtest/gtest.h\"\n", "gtest", "gtest/gtest.h");
    s_check("#include <check.h>\n", "check", "check.h");
    s_check("#include <CUnit/Basic.h>\n", "cunit", "CUnit/");
    s_check("#include <criterion/criterion.h>\n", "criterion", "criterion/");
    s_check("#include \"unity.h\"\n", "unity", "unity.h");
    s_check("#include \"utest.h\"\n", "utest", "utest.h"); /* the console preset, its regexes */
    s_check("#include \"test/utest_mini.h\"\n", NULL, NULL);
    s_check("  #  include   <cmocka.h>\nint x;\n", "cmocka", "cmocka.h");
}

static void test_not_a_framework(void)
{
    s_check("#include <stdio.h>\nint main(void) { return 0; }\n", NULL, NULL);
    s_check("// #include <cmocka.h>\n", NULL, NULL);
    s_check("#include <mycheck.h>\n#include <check.hpp>\n#include <CUnit>\n", NULL, NULL);
    s_check("#include <cmocka.h\n>\n", NULL, NULL);
    s_check("", NULL, NULL);
}

/* A vendored framework is included by its path in the project (cJSON's tests:
 * "unity/src/unity.h"); the header's last components still name it. */
static void test_header_under_a_folder(void)
{
    s_check("#include \"unity/examples/unity_config.h\"\n#include \"unity/src/unity.h\"\n", "unity",
            "unity.h");
    s_check("#include \"../third_party/cmocka.h\"\n", "cmocka", "cmocka.h");
    s_check("#include \"vendor/googletest/include/gtest/gtest.h\"\n", "gtest", "gtest/gtest.h");
    s_check("#include <ext/CUnit/Basic.h>\n", "cunit", "CUnit/");
    s_check("#include <mylib/mycheck.h>\n#include \"my_unity.h\"\n#include <xgtest/gtest.h>\n", NULL, NULL);
}

static void test_first_include_wins(void)
{
    s_check("#include <gtest/gtest.h>\n#include <cmocka.h>\n", "gtest", "gtest/gtest.h");
}

int main(void)
{
    RUN_TEST(test_each_framework);
    RUN_TEST(test_not_a_framework);
    RUN_TEST(test_header_under_a_folder);
    RUN_TEST(test_first_include_wins);
    TEST_MAIN_END();
}
