#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <cmocka.h>
#include "ring.h"
static void test_overflow(void **state) { (void)state; ring_init(2); ring_push(1); ring_push(2); ring_push(3); }
static void test_null(void **state) { (void)state; ring_push(1); }
static void test_uaf(void **state) { (void)state; ring_init(2); ring_push(1); (void)ring_after_free(); }
static void test_ub(void **state) { (void)state; (void)add(INT_MAX, 1); }
static void test_leak(void **state) { (void)state; void *volatile p = leak(); p = 0; (void)p; }
int main(int argc, char **argv) {
    const char *w = argc > 1 ? argv[1] : "overflow";
    struct CMUnitTest t[1];
    if (!strcmp(w, "overflow")) t[0] = (struct CMUnitTest)cmocka_unit_test(test_overflow);
    else if (!strcmp(w, "null")) t[0] = (struct CMUnitTest)cmocka_unit_test(test_null);
    else if (!strcmp(w, "uaf")) t[0] = (struct CMUnitTest)cmocka_unit_test(test_uaf);
    else if (!strcmp(w, "leak")) t[0] = (struct CMUnitTest)cmocka_unit_test(test_leak);
    else t[0] = (struct CMUnitTest)cmocka_unit_test(test_ub);
    return _cmocka_run_group_tests("g", t, 1, NULL, NULL);
}
