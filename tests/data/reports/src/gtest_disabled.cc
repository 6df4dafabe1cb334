#include <gtest/gtest.h>
TEST(Math, DISABLED_Off) { EXPECT_EQ(1, 2); }
TEST(Math, Ok) { EXPECT_EQ(1, 1); }
