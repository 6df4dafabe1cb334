/* A cmocka test file: plain functions registered with cmocka_unit_test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

static int add(int a, int b) { return a + b; }

static void test_add(void **state)
{
    (void)state;
    int a = 1;
    int b = 2;
    // a comment before the assert
    assert_int_equal(add(a, b), 3);
    assert_int_equal(add(a,
                         b),
                     3);
    a = add(a, b);
    return;
}

static void check_sub(void **state)
{
    (void)state;
    assert_true(1);
}

static int helper(void) { return 7; }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add),
        cmocka_unit_test(check_sub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL) + helper() - 7;
}
