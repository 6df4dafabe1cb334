/* Control flow, comments, preprocessor lines and macros inside a body. */
#include <stddef.h>
#include <stdio.h>

#define CHECK(x) do { if (!(x)) { printf("fail %d\n", __LINE__); } } while (0)
#define EXPECT(x) if (!(x)) printf("expect\n"); else (void)0
#define BLOCK_OF(x) { int b_ = (x); (void)b_; }
#define ID(x) (x)

static int g(int v) { return v + 1; }

void test_control(void)
{
    int x = 0;
    size_t n = sizeof(int);
    /* leading block comment */
    if (x > 0) {
        x++;
        g(x);
    } else if (x < 0) {
        x--;
    } else {
        x = 3;
    }
    if (x) return;
    if (x) x++; else {
        x = 2;
        g(2);
    }
    for (int i = 0; i < 3; i++) {
        x += i;
    }
    for (int i = 0; i < 3; i++) x++;
    while (x < 10) {
        x++;
    }
    do {
        x--;
    } while (x > 5);
    switch (x) {
    case 1:
        x = 2;
        break;
    case 2: {
        x = 3;
    } break;
    default:
        x = 0;
    }
    {
        int y = x;
        {
            y++;
        }
    }
#if 0
    x = 99;
#endif
#define LOCAL 4
    x = LOCAL;
    CHECK(x == 4);
    CHECK(x ==
          4);
    EXPECT(x == 4);
    BLOCK_OF(x);
    x = ID(x) + ID(n);
    x = g(ID(x));
    ;
    // trailing comment
}

void test_empty(void) {}

static void helper_not_test(void)
{
    test_empty();
}

#define TWO(a) a = 1; a = 2

int test_edge(int v)
{
    int x = v;
    for (int i = 0; i < 2; i++) if (i) {
        x++;
    }
    if (x) CHECK(x); else CHECK(!x);
    if (x) {
        x = 5;
    } else CHECK(x);
    TWO(x);
    x = 1 /* before the semicolon */ ;
    x = 2; // after
    if (x)
        goto done;
    x += ID(
        3);
done:
    x++;
    while (x) x--;
    return x;
}

void test_else_comment(int x)
{
    if (x) {
        x = 1;
    } // the else branch
    else // still the else branch
    if (x > 2) {
        x = 2;
    }
    if (x) x = 3; /* then */ else { x = 4; }
}
