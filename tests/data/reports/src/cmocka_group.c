#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
static void test_ok(void **s) { (void)s; assert_int_equal(1, 1); }
static void test_eq(void **s) { (void)s; int a = 3; assert_int_equal(a, 4); }
static void test_true(void **s) { (void)s; assert_true(0 == 1); }
static void test_skip(void **s) { (void)s; skip(); }
static void test_fail_msg(void **s) { (void)s; fail_msg("custom %s  message", "x"); }
static void test_str(void **s) { (void)s; assert_string_equal("abc", "abd"); }
int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ok), cmocka_unit_test(test_eq), cmocka_unit_test(test_true),
    cmocka_unit_test(test_skip), cmocka_unit_test(test_fail_msg), cmocka_unit_test(test_str),
  };
  return cmocka_run_group_tests_name("mygroup", tests, NULL, NULL);
}
