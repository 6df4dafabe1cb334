#include <gtest/gtest.h>
#include <stdexcept>
TEST(Math, Ok) { EXPECT_EQ(1, 1); }
TEST(Math, Eq) { int a = 3; EXPECT_EQ(a, 4); EXPECT_TRUE(a == 5) << "second  failure"; }
TEST(Math, Throws) { throw std::runtime_error("boom"); }
TEST(Math, Skip) { GTEST_SKIP() << "not today"; }
TEST(Other, Str) { ASSERT_STREQ("abc", "abd"); }
