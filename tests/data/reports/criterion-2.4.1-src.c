#include <criterion/criterion.h>
#include <stdlib.h>
Test(math, ok) { cr_assert_eq(1, 1); }
Test(math, eq) { cr_assert_eq(1 + 1, 3, "sum is %d", 1 + 1); }
Test(math, nonfatal) { cr_expect_eq(1, 2); cr_expect(0, "second"); }
Test(math, crash) { int *p = NULL; *(volatile int *)p = 1; }
Test(math, skipme) { cr_skip_test("not today"); }
Test(math, disabled, .disabled = true) { cr_assert(0); }
Test(other, plain) { cr_assert(0); }
Test(ord, three) { cr_expect_eq(1, 2, "first"); cr_expect_eq(3, 4, "second\nline two"); cr_expect_str_eq("ab", "ac"); }
Test(ord, abrt) { abort(); }
