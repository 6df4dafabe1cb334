/*
 * Tests of the body's data flow (coordinator/tree/tree_flow.c) and the
 * walk's prior built on it (coordinator/reduce/prior.c), on
 * tests/data/tree/flow.c: each unit's reads, writes and declarations, the
 * jumps, the failing statement's slice, the seed found from a
 * fingerprint's location, and what the prior expects of removals.
 */
#define _GNU_SOURCE
#include "fprule.h"
#include "prior.h"
#include "render.h"
#include "tree.h"
#include "wh_common.h"
#include "wh_test.h"

#include <stdlib.h>
#include <string.h>

/* The units of test_flow, in order (see flow.c). */
enum {
    U_ACC, U_N, U_UNUSED, U_BUF, U_SEEN, U_MEMSET_ACC, U_MEMSET_BUF, U_ADD_N, U_LOG_PEEK,
    U_SEEN_PEEK, U_UNUSED_INC, U_FOR, U_IF_CONTINUE, U_ADD_I, U_LOG_I, U_BUF_STORE, U_LOG_BUF,
    U_IF_N, U_RETURN, U_EXPECT, U_COUNT
};

static wh_tree_t *s_load(void)
{
    const char *root = getenv("WH_SOURCE_DIR");
    char *path = wh_strdup_printf("%s/tests/data/tree/flow.c", root ? root : ".");
    char *err = NULL;
    wh_tree_t *t = NULL;
    int rc = wh_tree_load(path, "test_flow", NULL, &t, &err);
    if (rc < 0)
        fprintf(stderr, "load: %s\n", err ? err : "?");
    CHECK_EQ_INT(rc, 0);
    free(err);
    free(path);
    return t;
}

/* The WH_REF_* bits of unit u's refs to the variable unit d declares. */
static int s_how(const wh_tree_t *t, int u, int d)
{
    const wh_flow_t *f = t->flow;
    int var = -1;
    for (int k = f->first[d]; k < f->first[d + 1]; k++)
        if (f->how[k] & WH_REF_DECL)
            var = f->var[k];
    CHECK(var >= 0);
    for (int k = f->first[u]; k < f->first[u + 1]; k++)
        if (f->var[k] == var)
            return f->how[k];
    return 0;
}

static void test_flow_refs(void)
{
    wh_tree_t *t = s_load();
    if (!t)
        return;
    CHECK_EQ_INT(t->n, U_COUNT);
    CHECK(t->flow != NULL);
    /* Declarations write what they declare. */
    CHECK_EQ_INT(s_how(t, U_N, U_N), WH_REF_DECL | WH_REF_WRITE);
    /* A pointer to it passed where the callee may write through it. */
    CHECK_EQ_INT(s_how(t, U_MEMSET_ACC, U_ACC) & WH_REF_WRITE, WH_REF_WRITE);
    CHECK_EQ_INT(s_how(t, U_MEMSET_BUF, U_BUF) & WH_REF_WRITE, WH_REF_WRITE); /* an array */
    CHECK_EQ_INT(s_how(t, U_ADD_N, U_ACC) & WH_REF_WRITE, WH_REF_WRITE);
    CHECK_EQ_INT(s_how(t, U_ADD_N, U_N), WH_REF_READ); /* by value */
    /* A pointer to const: read, not written. */
    CHECK_EQ_INT(s_how(t, U_LOG_PEEK, U_ACC), WH_REF_READ);
    /* `seen = ...` stores seen without reading it. */
    CHECK_EQ_INT(s_how(t, U_SEEN_PEEK, U_SEEN), WH_REF_WRITE);
    CHECK_EQ_INT(s_how(t, U_UNUSED_INC, U_UNUSED), WH_REF_READ | WH_REF_WRITE);
    /* An element stored: the array is written (and named). */
    CHECK_EQ_INT(s_how(t, U_BUF_STORE, U_BUF), WH_REF_READ | WH_REF_WRITE);
    CHECK_EQ_INT(s_how(t, U_BUF_STORE, U_SEEN), WH_REF_READ);
    CHECK_EQ_INT(s_how(t, U_LOG_BUF, U_BUF), WH_REF_READ);
    /* The loop variable belongs to the loop's own part, not its body's. */
    CHECK_EQ_INT(s_how(t, U_FOR, U_FOR), WH_REF_DECL | WH_REF_WRITE | WH_REF_READ);
    CHECK_EQ_INT(s_how(t, U_LOG_I, U_FOR), WH_REF_READ);
    CHECK_EQ_INT(s_how(t, U_EXPECT, U_ACC), WH_REF_READ);
    CHECK_EQ_INT(s_how(t, U_EXPECT, U_N), 0);
    /* Jumps: a braceless continue belongs to its if. */
    CHECK_EQ_INT(t->flow->jump[U_IF_CONTINUE], WH_JUMP_LOOP);
    CHECK_EQ_INT(t->flow->jump[U_RETURN], WH_JUMP_FN);
    CHECK_EQ_INT(t->flow->jump[U_ADD_I], 0);
    wh_tree_destroy(&t);
}

static void test_seed(void)
{
    wh_tree_t *t = s_load();
    if (!t)
        return;
    CHECK_EQ_INT(wh_prior_seed(t, "flow.c:54"), U_EXPECT);
    CHECK_EQ_INT(wh_prior_seed(t, "tests/data/tree/flow.c:54"), U_EXPECT);
    CHECK_EQ_INT(wh_prior_seed(t, "/elsewhere/tree/flow.c:42"), U_UNUSED_INC);
    CHECK_EQ_INT(wh_prior_seed(t, "line 54"), U_EXPECT); /* a console harness's */
    CHECK_EQ_INT(wh_prior_seed(t, "line x"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, "line "), -1);
    /* Another file, a line outside the body, no line, nothing. */
    CHECK_EQ_INT(wh_prior_seed(t, "xflow.c:54"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, "lib.c:54"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, "flow.c:12"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, "flow.c:9999"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, "flow.c"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, "flow.c:x"), -1);
    CHECK_EQ_INT(wh_prior_seed(t, ""), -1);
    CHECK_EQ_INT(wh_prior_seed(t, NULL), -1);
    CHECK(wh_prior_new(t, -1) == NULL);
    CHECK(wh_prior_new(t, U_COUNT) == NULL);
    wh_tree_destroy(&t);
}

/* The fingerprint-location rule (fprule.h): the failure's line, and which
 * candidates leave it without code. */
static void test_fprule(void)
{
    wh_tree_t *t = s_load();
    if (!t)
        return;
    CHECK_EQ_INT(wh_fprule_line(t, "flow.c:54", 1), 54);
    CHECK_EQ_INT(wh_fprule_line(t, "line 54", 1), 0); /* a number printed: maybe another file's */
    CHECK_EQ_INT(wh_fprule_line(t, "flow.c:54", 0), 0); /* --match message: no location */
    CHECK_EQ_INT(wh_fprule_line(t, "lib.c:54", 1), 0);  /* a helper's, elsewhere */
    CHECK_EQ_INT(wh_fprule_line(t, "flow.c:12", 1), 0); /* outside the body */
    CHECK_EQ_INT(wh_fprule_line(t, NULL, 1), 0);
    uint8_t *rm = calloc((size_t)t->n, 1);
    CHECK(rm != NULL);
    if (rm) {
        CHECK_EQ_INT(wh_fprule_removes(t, rm, 54), 0); /* the original */
        rm[U_EXPECT] = 1;
        CHECK_EQ_INT(wh_fprule_removes(t, rm, 54), 1);
        rm[U_EXPECT] = 0;
        rm[U_IF_N] = 1; /* lines 51-53: its return goes with it */
        CHECK_EQ_INT(wh_fprule_removes(t, rm, 54), 0);
        CHECK_EQ_INT(wh_fprule_removes(t, rm, 52), 1);
        CHECK_EQ_INT(wh_fprule_removes(t, rm, 0), 0);
        /* The same as the rendered text says, line by line. */
        rm[U_IF_N] = 0;
        rm[U_FOR] = rm[U_ADD_N] = 1;
        size_t len = 0;
        char *txt = wh_render(t, rm, &len);
        CHECK(txt != NULL);
        for (int l = 1; txt && l <= 56; l++)
            CHECK_EQ_INT(wh_fprule_removes(t, rm, l), wh_fprule_blank(txt, len, l));
        free(txt);
    }
    free(rm);
    const char txt[] = "a\n  // gone\n b;\n\t \n";
    CHECK_EQ_INT(wh_fprule_blank(txt, sizeof txt - 1, 1), 0);
    CHECK_EQ_INT(wh_fprule_blank(txt, sizeof txt - 1, 2), 1); /* a comment is no code */
    CHECK_EQ_INT(wh_fprule_blank(txt, sizeof txt - 1, 3), 0);
    CHECK_EQ_INT(wh_fprule_blank(txt, sizeof txt - 1, 4), 1);
    CHECK_EQ_INT(wh_fprule_blank(txt, sizeof txt - 1, 5), 0); /* no such line */
    wh_tree_destroy(&t);
}

static void test_slice(void)
{
    wh_tree_t *t = s_load();
    if (!t)
        return;
    wh_prior_t *p = wh_prior_new(t, U_EXPECT);
    CHECK(p != NULL);
    static const int in[] = {U_ACC, U_N, U_MEMSET_ACC, U_ADD_N, U_FOR, U_IF_CONTINUE,
                             U_ADD_I, U_IF_N, U_RETURN, U_EXPECT};
    uint8_t want[U_COUNT] = {0};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        want[in[i]] = 1;
    for (int u = 0; u < U_COUNT; u++) {
        if (wh_prior_in_slice(p, u) != want[u])
            fprintf(stderr, "unit %d: in slice %d, want %d\n", u, wh_prior_in_slice(p, u),
                    want[u]);
        CHECK_EQ_INT(wh_prior_in_slice(p, u), want[u]);
    }
    CHECK_EQ_INT(wh_prior_size(p), (int)(sizeof in / sizeof in[0]));
    wh_prior_destroy(&p);
    CHECK(p == NULL);
    wh_tree_destroy(&t);
}

/* What the prior expects of removing the listed units from base (none). */
static int s_expect(const wh_prior_t *p, const int *units, int n)
{
    uint8_t base[U_COUNT] = {0}, rem[U_COUNT] = {0};
    for (int i = 0; i < n; i++)
        rem[units[i]] = 1;
    return wh_prior_expect(p, rem, base);
}

static void s_set_args(wh_tree_t *t, const char *const *args, int n)
{
    for (int i = 0; i < t->cc_nargs; i++)
        free(t->cc_args[i]);
    free(t->cc_args);
    t->cc_args = calloc((size_t)n + 1, sizeof *t->cc_args);
    for (int i = 0; i < n; i++)
        t->cc_args[i] = strdup(args[i]);
    t->cc_nargs = n;
}

static void test_expect(void)
{
    wh_tree_t *t = s_load();
    if (!t)
        return;
    s_set_args(t, NULL, 0);
    wh_prior_t *p = wh_prior_new(t, U_EXPECT);
    CHECK(wh_prior_expect(NULL, NULL, NULL) == 0);
    /* Outside the slice, declaring nothing still named. */
    CHECK_EQ_INT(s_expect(p, (int[]){U_LOG_PEEK}, 1), 1);
    CHECK_EQ_INT(s_expect(p, (int[]){U_LOG_I, U_LOG_BUF}, 2), 1);
    /* Any unit of the slice. */
    CHECK_EQ_INT(s_expect(p, (int[]){U_ADD_N}, 1), 0);
    CHECK_EQ_INT(s_expect(p, (int[]){U_LOG_PEEK, U_IF_CONTINUE}, 2), 0);
    /* A declaration whose use is kept does not build... */
    CHECK_EQ_INT(s_expect(p, (int[]){U_SEEN}, 1), 0);
    /* ...with its uses gone too, it does. */
    CHECK_EQ_INT(s_expect(p, (int[]){U_SEEN, U_SEEN_PEEK, U_BUF_STORE}, 3), 1);
    /* Without -Werror an unused variable builds. */
    CHECK_EQ_INT(s_expect(p, (int[]){U_UNUSED_INC}, 1), 1);
    /* Only what the candidate removes beyond its base counts. */
    uint8_t base[U_COUNT] = {0}, rem[U_COUNT] = {0};
    base[U_ADD_N] = rem[U_ADD_N] = rem[U_LOG_I] = 1;
    CHECK_EQ_INT(wh_prior_expect(p, rem, base), 1);
    wh_prior_destroy(&p);

    /* -Wall -Werror: the last name of a kept variable removed does not
     * build (unused variable); one name left is enough. */
    static const char *const werror[] = {"-Wall", "-Werror"};
    s_set_args(t, werror, 2);
    p = wh_prior_new(t, U_EXPECT);
    CHECK_EQ_INT(s_expect(p, (int[]){U_UNUSED_INC}, 1), 0);
    CHECK_EQ_INT(s_expect(p, (int[]){U_UNUSED, U_UNUSED_INC}, 2), 1);
    CHECK_EQ_INT(s_expect(p, (int[]){U_LOG_BUF}, 1), 1);
    CHECK_EQ_INT(s_expect(p, (int[]){U_MEMSET_BUF, U_BUF_STORE, U_LOG_BUF}, 3), 0);
    wh_prior_destroy(&p);
    static const char *const noerr[] = {"-Wall", "-Werror", "-Wno-unused-variable"};
    s_set_args(t, noerr, 3);
    p = wh_prior_new(t, U_EXPECT);
    CHECK_EQ_INT(s_expect(p, (int[]){U_UNUSED_INC}, 1), 1);
    wh_prior_destroy(&p);
    wh_tree_destroy(&t);
}

int main(void)
{
    RUN_TEST(test_flow_refs);
    RUN_TEST(test_seed);
    RUN_TEST(test_fprule);
    RUN_TEST(test_slice);
    RUN_TEST(test_expect);
    TEST_MAIN_END();
}
