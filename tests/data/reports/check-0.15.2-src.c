#include <check.h>
#include <stdlib.h>
START_TEST(test_ok) { ck_assert_int_eq(1, 1); }
END_TEST
START_TEST(test_eq) { ck_assert_int_eq(1 + 1, 3); }
END_TEST
START_TEST(test_nonfatal) { ck_assert_msg(0, "first %d", 1); }
END_TEST
START_TEST(test_crash) { int *p = NULL; *(volatile int *)p = 1; }
END_TEST
int main(void)
{
    Suite *s = suite_create("math");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_ok);
    tcase_add_test(tc, test_eq);
    tcase_add_test(tc, test_crash);
    suite_add_tcase(s, tc);
    TCase *tc2 = tcase_create("other");
    tcase_add_test(tc2, test_nonfatal);
    suite_add_tcase(s, tc2);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? 1 : 0;
}
