/*
 * test_synth.c - the failing tests of whittle's synthetic benchmark fixture:
 * test_synth (56 statements on 4 levels; the scaling benchmark) and
 * test_synth_small (19 statements; the --quick smoke run).
 *
 * Nothing here is compiled for the benchmark: the fixture's judge (judge.c:
 * its build and run commands) decides from the markers written *inside*
 * the statements of each `void test_...(void)` body (a marker outside a
 * statement's extent would survive the statement's removal):
 *
 *   decl:NAME      the statement declares NAME
 *   use:A,B        the statement uses A and B; a candidate that keeps a use
 *                  of a name whose declaration it removed does not build
 *   R1, R2, ...    statements the failure needs
 *   FAIL=K         the failing assert, which needs R1 .. RK: with all of
 *                  them the failure is preserved; with some missing the
 *                  assert fails with another value (a different failure);
 *                  without FAIL the test passes
 *   G1 / X1        X1 writes through the pointer G1 sets; X1 without G1 is
 *                  a crash (a different failure of another kind)
 *
 * The code is still a plausible, compilable C test (cc -fsyntax-only
 * accepts it), so that libclang builds a real statement tree from it.
 */
#include <string.h>

struct rec {
    int id;
    int w;
};

static int g_log[256];
static int g_nlog;

static void note(int v)
{
    if (g_nlog < 256)
        g_log[g_nlog++] = v;
}

static int mix(int a, int b)
{
    return (a * 31 + b) & 0x7fff;
}

static int check_eq(int want, int got, const char *what)
{
    (void)what;
    return want == got;
}

void test_synth(void)
{
    int /*decl:a*/ a = 3;
    int /*decl:b*/ b = /*use:a*/ a + 4;
    int /*decl:c*/ c = 0;
    int /*decl:total*/ total = 0;
    int /*decl:seed*/ seed = 17;
    struct rec /*decl:recs*/ recs[8];
    int * /*decl:p*/ p = 0;

    memset(/*use:recs*/ recs, 0, sizeof recs);
    seed = /*use:seed*/ mix(seed, 3);
    total = /*R1 use:total,a*/ a * 10;
    for (int i = 0; i < 6; i++) {
        recs[i].id = /*use:recs*/ i + 1;
        recs[i].w = /*use:recs,seed*/ mix(seed, i) % 7;
        note(/*use:recs*/ recs[i].w);
        if (/*use:recs*/ recs[i].w > 3) {
            c += /*use:c*/ 1;
            note(/*use:c*/ c);
        }
    }
    if (/*use:b*/ b > 5) {
        total += /*R2 use:total,b*/ b;
        note(/*use:total*/ total);
        for (int j = 0; j < 3; j++) {
            note(j);
            if (j == 1) {
                note(/*use:seed*/ seed + j);
                total += /*R3 use:total*/ 2;
                note(/*use:total*/ total);
            }
            seed ^= /*use:seed*/ j;
        }
    } else {
        total = /*use:total*/ -1;
        note(/*use:total*/ total);
    }
    p = /*G1 use:p,recs*/ &recs[0].w;
    *p /*X1 use:p*/ += 1;
    while (/*use:c*/ c > 0) {
        c -= /*use:c*/ 1;
        note(/*use:c*/ c);
    }
    switch (/*use:seed*/ seed % 3) {
    case 0:
        note(/*use:seed*/ seed);
        break;
    case 1:
        total += /*R4 use:total*/ 1;
        break;
    default:
        total += /*R4 use:total*/ 1;
        break;
    }
    {
        int /*decl:tmp*/ tmp = /*use:total*/ total;
        note(/*use:tmp*/ tmp);
        total = /*R5 use:total,tmp*/ tmp + 1;
    }
    for (int k = 0; k < 4; k++) {
        if (/*use:recs*/ recs[k].w == 0) {
            continue;
        }
        note(/*use:recs*/ recs[k].id);
        if (k == 2) {
            {
                int /*decl:deep*/ deep = k * k;
                note(/*use:deep*/ deep);
                total += /*R6 use:total,deep*/ deep - 4;
            }
        }
    }
    total += /*R7 use:total,seed*/ (seed & 0) - 1;
    check_eq(42, /*FAIL=7 use:total*/ total, "total");
}

void test_synth_small(void)
{
    int /*decl:x*/ x = 2;
    int /*decl:y*/ y = /*use:x*/ x * 3;
    int /*decl:sum*/ sum = 0;
    int /*decl:q*/ q = 9;

    note(/*use:x,y*/ x + y);
    sum = /*R1 use:sum,x*/ x * 20;
    for (int i = 0; i < 3; i++) {
        note(i);
        if (i == 2) {
            sum += /*R2 use:sum,y*/ y - 5;
            note(/*use:sum*/ sum);
        }
        q -= /*use:q*/ i;
    }
    note(/*use:q*/ q);
    if (/*use:q*/ q > 100) {
        sum = /*use:sum*/ 0;
    }
    note(/*use:y*/ y);
    sum += /*R3 use:sum*/ 0;
    check_eq(42, /*FAIL=3 use:sum*/ sum, "sum");
    note(/*use:sum,q*/ sum + q);
}

int main(void)
{
    test_synth();
    test_synth_small();
    return g_nlog > 0 ? 0 : 1;
}
