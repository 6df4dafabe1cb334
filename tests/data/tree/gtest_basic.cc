// A GoogleTest file with fixtures, try/catch, range-for and lambdas.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace {

class Fixture : public ::testing::Test {
protected:
    void SetUp() override { v = {1, 2, 3}; }
    std::vector<int> v;
};

}  // namespace

TEST(Math, Adds)
{
    int a = 1;
    EXPECT_EQ(a + 1, 2);
    ASSERT_TRUE(a > 0) << "a is " << a;
}

TEST_F(Fixture, Sums)
{
    int sum = 0;
    for (int x : v) {
        sum += x;
    }
    try {
        throw std::runtime_error("boom");
    } catch (const std::runtime_error &e) {
        sum += 1;
    } catch (...) {
        sum += 2;
    }
    std::for_each(v.begin(), v.end(), [&](int x) {
        sum += x;
        sum -= x;
    });
    auto f = [](int y) {
        return y * 2;
    };
    auto noop = []() {};
    EXPECT_EQ(sum, 7);
    EXPECT_EQ(f(2), 4);
    noop();
}

namespace other {
TEST(Other, Adds)
{
    EXPECT_EQ(1 + 1, 2);
}
}  // namespace other

class Param : public ::testing::TestWithParam<int> {};

TEST_P(Param, Nested)
{
    int total = 0;
    auto outer = [&](int n) {
        auto inner = [&](int m) {
            total += m;
        };
        inner(n);
    };
    if (int k = GetParam(); k > 0) {
        outer(k);
    }
    EXPECT_NO_THROW({
        outer(1);
    });
}

INSTANTIATE_TEST_SUITE_P(Values, Param, ::testing::Values(1, 2));
