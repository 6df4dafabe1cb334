/*
 * Tests of coordinator/functext: the reduced function the console prints
 * matches reduced.c: removed lines go, and the blank lines that separated
 * removed groups do not pile up (cJSON's misc_tests printed two in a row).
 */
#include <stdlib.h>
#include <string.h>

#include "functext.h"
#include "wh_test.h"

/* text with the lines holding any of the marked statements blanked. */
static char *s_blank_out(const char *text, const char *const *gone, size_t n)
{
    char *t = strdup(text);
    for (size_t i = 0; i < n; i++) {
        char *at = strstr(t, gone[i]);
        if (at)
            memset(at, ' ', strlen(gone[i]));
    }
    return t;
}

static void test_blank_runs_collapse(void)
{
    const char *text = "int x;\n"
                       "static void t(void)\n"
                       "{\n"
                       "    int n = 0;\n"
                       "\n"
                       "    set(1);\n"
                       "    check(1);\n"
                       "\n"
                       "    set(-1);\n"
                       "    check(-1);\n"
                       "\n"
                       "    set(2);\n"
                       "}\n";
    const char *gone[] = {"set(1);", "check(1);", "set(2);"};
    char *lines = s_blank_out(text, gone, 3);
    size_t b = (size_t)(strchr(text, '{') - text), e = (size_t)(strrchr(text, '}') - text) + 1;
    char *got = wh_function_text(text, strlen(text), b, e, lines);
    CHECK_EQ_STR(got ? got : "(null)", "static void t(void)\n"
                                       "{\n"
                                       "    int n = 0;\n"
                                       "\n"
                                       "    set(-1);\n"
                                       "    check(-1);\n"
                                       "\n"
                                       "}\n");
    free(got);
    free(lines);
}

/* Nothing removed: the function as written, blank lines and all. */
static void test_nothing_removed(void)
{
    const char *text = "void t(void) {\n    a();\n\n    b();\n}\n";
    size_t b = (size_t)(strchr(text, '{') - text), e = (size_t)(strrchr(text, '}') - text) + 1;
    char *got = wh_function_text(text, strlen(text), b, e, text);
    CHECK_EQ_STR(got ? got : "(null)", "void t(void) {\n    a();\n\n    b();\n}\n");
    free(got);
}

int main(void)
{
    RUN_TEST(test_blank_runs_collapse);
    RUN_TEST(test_nothing_removed);
    TEST_MAIN_END();
}
