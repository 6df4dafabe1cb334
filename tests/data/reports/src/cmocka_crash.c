#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
static void test_ok(void **s) { (void)s; assert_int_equal(1, 1); }
static void test_segv(void **s) { (void)s; volatile int *p = 0; *p = 1; }
static void test_after(void **s) { (void)s; assert_null((void*)1); }
int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ok), cmocka_unit_test(test_segv), cmocka_unit_test(test_after),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
