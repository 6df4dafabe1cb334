#include <criterion/criterion.h>

Test(suite_a, first)
{
    int x = 1;
    cr_assert(x == 1);
}
