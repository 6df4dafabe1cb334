/* aws-c-common's harness shape (written here): AWS_TEST_CASE(name, fn)
 * registers fn as the test `name`. */
#define AWS_TEST_CASE(name, fn) \
    int name(void) { return fn(0); }
#define AWS_TEST_CASE_FIXTURE(name, setup, fn, teardown, ctx) \
    int name(void) { setup(ctx); int r = fn(ctx); teardown(ctx); return r; }

static int s_sum(int a, int b)
{
    return a + b;
}

static int s_test_buffer_cat_fn(void *ctx)
{
    (void)ctx;
    int total = s_sum(1, 2);
    return total == 3 ? 0 : 1;
}
AWS_TEST_CASE(test_buffer_cat, s_test_buffer_cat_fn)

static void s_setup(void *ctx) { (void)ctx; }
static void s_teardown(void *ctx) { (void)ctx; }
static int s_test_with_fixture_fn(void *ctx)
{
    (void)ctx;
    int x = 1;
    return x - 1;
}
AWS_TEST_CASE_FIXTURE(test_with_fixture, s_setup, s_test_with_fixture_fn, s_teardown, 0)
