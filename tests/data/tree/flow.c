/* The data flow of a test body (tests/coordinator/reduce/test_prior.c):
 * which unit declares, writes and reads which local variable, the jumps,
 * and the failing statement's slice. Line numbers matter to the test. */
#include <string.h>

struct acc {
    int sum;
};

static void add(struct acc *a, int v)
{
    a->sum += v;
}

static int peek(const struct acc *a)
{
    return a->sum;
}

static void log_int(int v)
{
    (void)v;
}

static int expect_eq(int want, int got)
{
    return want == got;
}

void test_flow(void)
{
    struct acc acc;
    int n = 3;
    int unused = 7;
    int buf[4];
    int seen = 0;
    memset(&acc, 0, sizeof acc);
    memset(buf, 0, sizeof buf);
    add(&acc, n);
    log_int(peek(&acc));
    seen = peek(&acc);
    unused++;
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            continue;
        add(&acc, i);
        log_int(i);
    }
    buf[1] = seen;
    log_int(buf[1]);
    if (n > 5) {
        return;
    }
    expect_eq(9, acc.sum);
}
