#include <CUnit/CUnit.h>
#include <CUnit/Automated.h>
#include <stdlib.h>
#include <string.h>
static void test_ok(void) { CU_ASSERT_EQUAL(1, 1); }
static void test_eq(void)
{
    CU_ASSERT_EQUAL(1 + 1, 3);
    CU_ASSERT_STRING_EQUAL("a<b", "c&d");
}
static void test_fatal(void) { CU_ASSERT_EQUAL_FATAL(2, 5); CU_ASSERT(0); }
static void test_crash(void) { if (getenv("CRASH")) { int *p = NULL; *(volatile int *)p = 1; } }
int main(void)
{
    CU_initialize_registry();
    CU_pSuite s = CU_add_suite("math", NULL, NULL);
    CU_add_test(s, "test_ok", test_ok);
    CU_add_test(s, "test_eq", test_eq);
    CU_add_test(s, "test_fatal", test_fatal);
    CU_add_test(s, "test_crash", test_crash);
    const char *r = getenv("WHITTLE_REPORT");
    CU_set_output_filename(r ? r : "cu");
    CU_automated_run_tests();
    CU_cleanup_registry();
    return 0;
}
