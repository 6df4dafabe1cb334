// Local classes and structs whose member functions have bodies: each body's
// statements are units, like a lambda's.

static int seen;

void test_local_struct()
{
    int base = 2;
    struct Util {
        int twice(int x)
        {
            int y = x * 2;
            if (y > 4) {
                y -= 1;
                seen += y;
            }
            return y;
        }
        void reset() { seen = 0; }
    };
    Util u;
    u.reset();
    seen += u.twice(base);
    struct Plain {
        int a, b;
    };
}

void test_local_class()
{
    class Counter {
    public:
        explicit Counter(int start) : n(start)
        {
            n += 1;
            seen = n;
        }
        ~Counter() {}
        int n;
    };
    Counter c(3);
    auto f = [&]() {
        struct Inner {
            int one() { return 1; }
        };
        seen += Inner().one();
    };
    f();
}

// A struct declared with a variable of its type in one statement (as
// tinyxml2's xmltest.cpp does): libclang shows the struct twice, under
// the declaration and under the variable's type; its body's statements
// are units once.
void test_struct_and_var()
{
    struct Acc {
        int add(int v)
        {
            int t = v + 1;
            return t;
        }
    } acc;
    seen += acc.add(2);
}
