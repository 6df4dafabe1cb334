#include <CUnit/Basic.h>
static void test_ok(void) { CU_ASSERT_EQUAL(1, 1); }
static void test_sum(void) { CU_ASSERT_EQUAL(1 + 1, 3); }
int main(int argc, char **argv)
{
    CU_initialize_registry();
    CU_pSuite s = CU_add_suite("math", NULL, NULL);
    CU_add_test(s, "test_ok", test_ok);
    CU_add_test(s, "test_sum", test_sum);
    CU_basic_set_mode(argc > 1 ? CU_BRM_VERBOSE : CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
