#include "no_such_header_whittle.h"
void test_x(void)
{
    int y = 0;
    (void)y;
}
