/* A Check test file. */
#include <check.h>
#include <stdlib.h>

START_TEST(test_sum)
{
    int a = 2;
    int b = 3;
    ck_assert_int_eq(a + b, 5);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_ge(i, 0);
        a += i;
    }
}
END_TEST

START_TEST(product)
{
    ck_assert_int_eq(2 * 3, 6);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("s");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_sum);
    tcase_add_test(tc, product);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
