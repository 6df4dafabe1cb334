/*
 * Tests of the statement tree (coordinator/tree.c) on the sources in
 * tests/data/tree: unit counts, levels, Tree/NonTree, kinds, exact ranges,
 * line preservation, test lookup for each framework, compile flags from
 * compile_commands.json, and the error paths.
 *
 * Run with "FILE TEST [json]" arguments to print a tree instead.
 */
#define _GNU_SOURCE
#include "tree.h"
#include "treejob.h"
#include "wh_common.h"
#include "wh_test.h"

#include <ctype.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *s_data(const char *name)
{
    const char *root = getenv("WH_SOURCE_DIR");
    return wh_strdup_printf("%s/tests/data/tree/%s", root ? root : ".", name);
}

static unsigned s_line_of(const char *t, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        line += t[i] == '\n';
    return line;
}

static size_t s_count_lines(const char *t, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += t[i] == '\n';
    return c;
}

/* Properties every tree must have, whatever the file. */
static void s_check_invariants(const wh_tree_t *t)
{
    CHECK(t->body_begin < t->body_end && t->body_end <= t->text_len);
    CHECK(t->text[t->body_begin] == '{' && t->text[t->body_end - 1] == '}');
    for (int i = 0; i < t->n; i++) {
        const wh_unit_t *u = &t->units[i];
        CHECK(u->begin < u->end);
        CHECK(u->begin > t->body_begin && u->end < t->body_end);
        /* Starts at the statement: no whitespace, no leading comment. */
        CHECK(!isspace((unsigned char)t->text[u->begin]));
        CHECK(strncmp(t->text + u->begin, "//", 2) != 0 && strncmp(t->text + u->begin, "/*", 2) != 0);
        /* Ends with its `;` or its `}`. */
        char last = t->text[u->end - 1];
        if (last != ';' && last != '}')
            fprintf(stderr, "unit %d ends with '%c': %.*s\n", i, last,
                    (int)(u->end - u->begin), t->text + u->begin);
        CHECK(last == ';' || last == '}');
        CHECK_EQ_INT(u->line, s_line_of(t->text, u->begin));
        if (u->level == 0) {
            CHECK_EQ_INT(u->parent, -1);
        } else {
            CHECK(u->parent >= 0 && u->parent < i);
            if (u->parent >= 0 && u->parent < i) {
                const wh_unit_t *p = &t->units[u->parent];
                CHECK_EQ_INT(p->level, u->level - 1);
                CHECK(p->begin < u->begin && u->end <= p->end);
            }
        }
        int has_child = i + 1 < t->n && t->units[i + 1].parent == i;
        CHECK_EQ_INT(u->is_tree, has_child);
        if (u->kind == WH_STMT_MACRO)
            CHECK(!u->is_tree);
        /* Siblings are disjoint and in source order. */
        for (int j = i + 1; j < t->n; j++) {
            if (t->units[j].parent == u->parent) {
                CHECK(t->units[j].begin >= u->end);
                break;
            }
        }
        char *head = wh_tree_unit_head(t, i, 60);
        CHECK(head && !strchr(head, '\n') && strlen(head) <= 63);
        free(head);
        /* Blanking a unit (as the renderer does) keeps every line. */
        char *copy = strndup(t->text, t->text_len);
        for (size_t k = u->begin; k < u->end; k++)
            if (copy[k] != '\n')
                copy[k] = ' ';
        CHECK_EQ_INT(s_count_lines(copy, t->text_len), s_count_lines(t->text, t->text_len));
        free(copy);
    }
}

typedef struct {
    int level, tree;
    wh_stmt_kind_t kind;
    const char *text; /* the unit's exact text */
} s_exp_t;

static void s_check_units(const wh_tree_t *t, const s_exp_t *exp, int n)
{
    CHECK_EQ_INT(t->n, n);
    for (int i = 0; i < n && i < t->n; i++) {
        const wh_unit_t *u = &t->units[i];
        char *text = strndup(t->text + u->begin, u->end - u->begin);
        if (u->level != exp[i].level || u->is_tree != exp[i].tree || u->kind != exp[i].kind ||
            strcmp(text, exp[i].text) != 0)
            fprintf(stderr, "unit %d: got L%d tree=%d %s [%s]\n", i, u->level, u->is_tree,
                    wh_tree_kind_name(u->kind), text);
        CHECK_EQ_INT(u->level, exp[i].level);
        CHECK_EQ_INT(u->is_tree, exp[i].tree);
        CHECK_EQ_STR(wh_tree_kind_name(u->kind), wh_tree_kind_name(exp[i].kind));
        CHECK_EQ_STR(text, exp[i].text);
        free(text);
    }
}

static wh_tree_t *s_load(const char *name, const char *test, const wh_tree_opts_t *opts)
{
    char *path = s_data(name), *err = NULL;
    wh_tree_t *t = NULL;
    int rc = wh_tree_load(path, test, opts, &t, &err);
    if (rc < 0)
        fprintf(stderr, "load %s %s: %s\n", name, test, err ? err : "?");
    CHECK_EQ_INT(rc, 0);
    CHECK(err == NULL);
    free(err);
    free(path);
    if (t)
        s_check_invariants(t);
    return t;
}

static char *s_print(const wh_tree_t *t, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    wh_tree_print(t, fp, json);
    fclose(fp);
    return buf;
}

/* on_ready of the parse's thread: wakes the owner's poll. */
static void s_wake(void *ctx)
{
    CHECK_EQ_INT(wh_wake_signal(*(const int *)ctx), 0);
}

/* A parse on its own thread tells its owner when it is done (the eventfd
 * is readable only then, and done is already 1), and hands over the tree
 * wh_tree_load makes. */
static void test_treejob_wakes(void)
{
    int efd = wh_wake_open();
    CHECK(efd >= 0);
    char *path = s_data("cmocka_basic.c");
    wh_treejob_t *j = wh_treejob_start(path, "test_add", NULL, s_wake, &efd);
    CHECK(j != NULL);
    struct pollfd pf = {efd, POLLIN, 0};
    CHECK_EQ_INT(poll(&pf, 1, 60000), 1); /* a deadline, not a sleep */
    CHECK(wh_treejob_done(j));
    wh_wake_drain(efd);
    CHECK_EQ_INT(poll(&pf, 1, 0), 0); /* drained: not readable until woken again */
    wh_tree_t *t = NULL;
    char *err = NULL;
    CHECK_EQ_INT(wh_treejob_finish(&j, &t, &err), 0);
    CHECK(j == NULL && t != NULL && err == NULL);
    if (t)
        CHECK_EQ_INT(t->n, 7);
    wh_tree_destroy(&t);
    free(err);
    /* without on_done: as before */
    j = wh_treejob_start(path, "test_add", NULL, NULL, NULL);
    CHECK(j != NULL);
    CHECK_EQ_INT(wh_treejob_finish(&j, &t, &err), 0);
    wh_tree_destroy(&t);
    free(err);
    free(path);
    close(efd);
}

static void test_cmocka(void)
{
    wh_tree_t *t = s_load("cmocka_basic.c", "test_add", NULL);
    if (!t)
        return;
    static const s_exp_t exp[] = {
        {0, 0, WH_STMT_EXPR, "(void)state;"},
        {0, 0, WH_STMT_DECL, "int a = 1;"},
        {0, 0, WH_STMT_DECL, "int b = 2;"},
        {0, 0, WH_STMT_MACRO, "assert_int_equal(add(a, b), 3);"},
        {0, 0, WH_STMT_MACRO, "assert_int_equal(add(a,\n                         b),\n                     3);"},
        {0, 0, WH_STMT_EXPR, "a = add(a, b);"},
        {0, 0, WH_STMT_EXPR, "return;"},
    };
    s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
    CHECK_EQ_STR(t->test, "test_add");
    CHECK(t->fn == NULL); /* no registration renames it */
    CHECK_EQ_INT(t->units[3].line, 16);

    char *out = s_print(t, 0);
    CHECK_EQ_STR(out, "Statement hierarchy for test_add:\n"
                      "L0 [NonTree] (void)state;\n"
                      "L0 [NonTree] int a = 1;\n"
                      "L0 [NonTree] int b = 2;\n"
                      "L0 [NonTree] assert_int_equal(add(a, b), 3);\n"
                      "L0 [NonTree] assert_int_equal(add(a,\n"
                      "L0 [NonTree] a = add(a, b);\n"
                      "L0 [NonTree] return;\n"
                      "Totals: 7 statements | NonTree (#NTN): 7 | Tree (#TN): 0 | deepest level: 0\n");
    free(out);
    out = s_print(t, 1);
    CHECK(strncmp(out, "{\"test\":\"test_add\",\"file\":", 26) == 0);
    CHECK(strstr(out, "{\"level\":0,\"tree\":false,\"kind\":\"decl\",\"line\":13,\"parent\":-1,") != NULL);
    CHECK(strstr(out, "\"text\":\"assert_int_equal(add(a,\"}") != NULL);
    CHECK(strstr(out, "\"totals\":{\"statements\":7,\"nontree\":7,\"tree\":0,\"deepest\":0}}\n") != NULL);
    free(out);

    char *head = wh_tree_unit_head(t, 3, 10);
    CHECK_EQ_STR(head, "assert_int...");
    free(head);
    head = wh_tree_unit_head(t, 1, 10);
    CHECK_EQ_STR(head, "int a = 1;");
    free(head);
    CHECK(wh_tree_unit_head(t, 99, 10) == NULL);
    wh_tree_destroy(&t);
    CHECK(t == NULL);
    wh_tree_destroy(&t);

    /* A function registered with cmocka_unit_test but not named test*. */
    t = s_load("cmocka_basic.c", "check_sub", NULL);
    if (t)
        CHECK_EQ_INT(t->n, 2);
    wh_tree_destroy(&t);
}

static void test_control(void)
{
    wh_tree_t *t = s_load("control.c", "test_control", NULL);
    if (!t)
        return;
    static const s_exp_t exp[] = {
        {0, 0, WH_STMT_DECL, "int x = 0;"},
        {0, 0, WH_STMT_DECL, "size_t n = sizeof(int);"},
        {0, 1, WH_STMT_IF, "if (x > 0) {\n        x++;\n        g(x);\n    } else if (x < 0) {\n"
                           "        x--;\n    } else {\n        x = 3;\n    }"},
        {1, 0, WH_STMT_EXPR, "x++;"},
        {1, 0, WH_STMT_EXPR, "g(x);"},
        {1, 0, WH_STMT_EXPR, "x--;"},
        {1, 0, WH_STMT_EXPR, "x = 3;"},
        {0, 0, WH_STMT_IF, "if (x) return;"},
        {0, 1, WH_STMT_IF, "if (x) x++; else {\n        x = 2;\n        g(2);\n    }"},
        {1, 0, WH_STMT_EXPR, "x = 2;"},
        {1, 0, WH_STMT_EXPR, "g(2);"},
        {0, 1, WH_STMT_FOR, "for (int i = 0; i < 3; i++) {\n        x += i;\n    }"},
        {1, 0, WH_STMT_EXPR, "x += i;"},
        {0, 0, WH_STMT_FOR, "for (int i = 0; i < 3; i++) x++;"},
        {0, 1, WH_STMT_WHILE, "while (x < 10) {\n        x++;\n    }"},
        {1, 0, WH_STMT_EXPR, "x++;"},
        {0, 1, WH_STMT_DO, "do {\n        x--;\n    } while (x > 5);"},
        {1, 0, WH_STMT_EXPR, "x--;"},
        {0, 1, WH_STMT_SWITCH, "switch (x) {\n    case 1:\n        x = 2;\n        break;\n"
                               "    case 2: {\n        x = 3;\n    } break;\n    default:\n"
                               "        x = 0;\n    }"},
        {1, 0, WH_STMT_EXPR, "case 1:\n        x = 2;"},
        {1, 0, WH_STMT_EXPR, "break;"},
        {1, 1, WH_STMT_BLOCK, "case 2: {\n        x = 3;\n    }"},
        {2, 0, WH_STMT_EXPR, "x = 3;"},
        {1, 0, WH_STMT_EXPR, "break;"},
        {1, 0, WH_STMT_EXPR, "default:\n        x = 0;"},
        {0, 1, WH_STMT_BLOCK, "{\n        int y = x;\n        {\n            y++;\n        }\n    }"},
        {1, 0, WH_STMT_DECL, "int y = x;"},
        {1, 1, WH_STMT_BLOCK, "{\n            y++;\n        }"},
        {2, 0, WH_STMT_EXPR, "y++;"},
        {0, 0, WH_STMT_EXPR, "x = LOCAL;"},
        {0, 0, WH_STMT_MACRO, "CHECK(x == 4);"},
        {0, 0, WH_STMT_MACRO, "CHECK(x ==\n          4);"},
        {0, 0, WH_STMT_MACRO, "EXPECT(x == 4);"},
        {0, 0, WH_STMT_MACRO, "BLOCK_OF(x);"},
        {0, 0, WH_STMT_EXPR, "x = ID(x) + ID(n);"},
        {0, 0, WH_STMT_EXPR, "x = g(ID(x));"},
    };
    s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
    wh_tree_totals_t tot;
    wh_tree_totals(t, &tot);
    CHECK_EQ_INT(tot.total, 36);
    CHECK_EQ_INT(tot.tree, 9);
    CHECK_EQ_INT(tot.nontree, 27);
    CHECK_EQ_INT(tot.deepest, 2);
    char *out = s_print(t, 0);
    CHECK(strstr(out, "\nL0 [Tree] switch (x) {\n  L1 [NonTree] case 1:\n") != NULL);
    CHECK(strstr(out, "\n  L1 [Tree] {\n    L2 [NonTree] y++;\n") != NULL);
    CHECK(strstr(out, "Totals: 36 statements | NonTree (#NTN): 27 | Tree (#TN): 9 | deepest level: 2\n") != NULL);
    free(out);
    wh_tree_destroy(&t);

    /* An empty body has no units. */
    t = s_load("control.c", "test_empty", NULL);
    if (t) {
        CHECK_EQ_INT(t->n, 0);
        wh_tree_totals(t, &tot);
        CHECK_EQ_INT(tot.total, 0);
        out = s_print(t, 0);
        CHECK_EQ_STR(out, "Statement hierarchy for test_empty:\n"
                          "Totals: 0 statements | NonTree (#NTN): 0 | Tree (#TN): 0 | deepest level: 0\n");
        free(out);
    }
    wh_tree_destroy(&t);

    /* Any function defined in the file can be loaded by name. */
    t = s_load("control.c", "helper_not_test", NULL);
    if (t)
        CHECK_EQ_INT(t->n, 1);
    wh_tree_destroy(&t);
}

/* Braceless bodies looked through, macros in branches, a macro expanding to
 * two statements, a comment before the `;`, labels and gotos. */
static void test_edge(void)
{
    wh_tree_t *t = s_load("control.c", "test_edge", NULL);
    if (!t)
        return;
    static const s_exp_t exp[] = {
        {0, 0, WH_STMT_DECL, "int x = v;"},
        {0, 1, WH_STMT_FOR, "for (int i = 0; i < 2; i++) if (i) {\n        x++;\n    }"},
        {1, 0, WH_STMT_EXPR, "x++;"},
        {0, 0, WH_STMT_IF, "if (x) CHECK(x); else CHECK(!x);"},
        {0, 1, WH_STMT_IF, "if (x) {\n        x = 5;\n    } else CHECK(x);"},
        {1, 0, WH_STMT_EXPR, "x = 5;"},
        {0, 0, WH_STMT_MACRO, "TWO(x);"},
        {0, 0, WH_STMT_EXPR, "x = 1 /* before the semicolon */ ;"},
        {0, 0, WH_STMT_EXPR, "x = 2;"},
        {0, 0, WH_STMT_IF, "if (x)\n        goto done;"},
        {0, 0, WH_STMT_EXPR, "x += ID(\n        3);"},
        {0, 0, WH_STMT_EXPR, "done:\n    x++;"},
        {0, 0, WH_STMT_WHILE, "while (x) x--;"},
        {0, 0, WH_STMT_EXPR, "return x;"},
    };
    s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
    wh_tree_destroy(&t);

    /* Comments between a branch and its `else`. */
    t = s_load("control.c", "test_else_comment", NULL);
    if (t) {
        static const s_exp_t exp2[] = {
            {0, 1, WH_STMT_IF, "if (x) {\n        x = 1;\n    } // the else branch\n    else // "
                               "still the else branch\n    if (x > 2) {\n        x = 2;\n    }"},
            {1, 0, WH_STMT_EXPR, "x = 1;"},
            {1, 0, WH_STMT_EXPR, "x = 2;"},
            {0, 1, WH_STMT_IF, "if (x) x = 3; /* then */ else { x = 4; }"},
            {1, 0, WH_STMT_EXPR, "x = 4;"},
        };
        s_check_units(t, exp2, (int)(sizeof exp2 / sizeof exp2[0]));
    }
    wh_tree_destroy(&t);
}

static void test_check(void)
{
    wh_tree_t *t = s_load("check_basic.c", "test_sum", NULL);
    if (!t)
        return;
    static const s_exp_t exp[] = {
        {0, 0, WH_STMT_DECL, "int a = 2;"},
        {0, 0, WH_STMT_DECL, "int b = 3;"},
        {0, 0, WH_STMT_MACRO, "ck_assert_int_eq(a + b, 5);"},
        {0, 1, WH_STMT_FOR, "for (int i = 0; i < 2; i++) {\n        ck_assert_int_ge(i, 0);\n"
                            "        a += i;\n    }"},
        {1, 0, WH_STMT_MACRO, "ck_assert_int_ge(i, 0);"},
        {1, 0, WH_STMT_EXPR, "a += i;"},
    };
    s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
    CHECK_EQ_STR(t->test, "test_sum");
    CHECK_EQ_INT(t->text[t->body_begin], '{');
    CHECK_EQ_INT(s_line_of(t->text, t->body_begin), 6);
    wh_tree_destroy(&t);

    /* Found by the expanded function name too. */
    t = s_load("check_basic.c", "product_fn", NULL);
    if (t) {
        CHECK_EQ_STR(t->test, "product");
        CHECK_EQ_INT(t->n, 1);
    }
    wh_tree_destroy(&t);
}

static void test_gtest(void)
{
    wh_tree_t *t = s_load("gtest_basic.cc", "Fixture.Sums", NULL);
    if (!t)
        return;
    static const s_exp_t exp[] = {
        {0, 0, WH_STMT_DECL, "int sum = 0;"},
        {0, 1, WH_STMT_RANGE_FOR, "for (int x : v) {\n        sum += x;\n    }"},
        {1, 0, WH_STMT_EXPR, "sum += x;"},
        {0, 1, WH_STMT_TRY, "try {\n        throw std::runtime_error(\"boom\");\n    } catch (const "
                            "std::runtime_error &e) {\n        sum += 1;\n    } catch (...) {\n"
                            "        sum += 2;\n    }"},
        {1, 0, WH_STMT_EXPR, "throw std::runtime_error(\"boom\");"},
        {1, 0, WH_STMT_EXPR, "sum += 1;"},
        {1, 0, WH_STMT_EXPR, "sum += 2;"},
        {0, 1, WH_STMT_LAMBDA, "std::for_each(v.begin(), v.end(), [&](int x) {\n        sum += x;\n"
                               "        sum -= x;\n    });"},
        {1, 0, WH_STMT_EXPR, "sum += x;"},
        {1, 0, WH_STMT_EXPR, "sum -= x;"},
        {0, 1, WH_STMT_LAMBDA, "auto f = [](int y) {\n        return y * 2;\n    };"},
        {1, 0, WH_STMT_EXPR, "return y * 2;"},
        {0, 0, WH_STMT_LAMBDA, "auto noop = []() {};"},
        {0, 0, WH_STMT_MACRO, "EXPECT_EQ(sum, 7);"},
        {0, 0, WH_STMT_MACRO, "EXPECT_EQ(f(2), 4);"},
        {0, 0, WH_STMT_EXPR, "noop();"},
    };
    s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
    CHECK_EQ_STR(t->test, "Fixture.Sums");
    char *out = s_print(t, 0);
    CHECK(strstr(out, "Statement hierarchy for Fixture.Sums:\n") == out);
    CHECK(strstr(out, "L0 [Tree] std::for_each(v.begin(), v.end(), [&](int x) {\n") != NULL);
    free(out);
    wh_tree_destroy(&t);

    /* Short name when unique; "::" spelled instead of "." */
    const char *names[] = {"Sums", "Fixture::Sums"};
    for (int i = 0; i < 2; i++) {
        t = s_load("gtest_basic.cc", names[i], NULL);
        if (t)
            CHECK_EQ_STR(t->test, "Fixture.Sums");
        wh_tree_destroy(&t);
    }

    t = s_load("gtest_basic.cc", "Math.Adds", NULL);
    if (t) {
        static const s_exp_t exp2[] = {
            {0, 0, WH_STMT_DECL, "int a = 1;"},
            {0, 0, WH_STMT_MACRO, "EXPECT_EQ(a + 1, 2);"},
            {0, 0, WH_STMT_MACRO, "ASSERT_TRUE(a > 0) << \"a is \" << a;"},
        };
        s_check_units(t, exp2, 3);
    }
    wh_tree_destroy(&t);

    /* TEST_P; nested lambdas; a C++17 if with an init statement; a block
     * passed to a macro is not descended. */
    t = s_load("gtest_basic.cc", "Param.Nested", NULL);
    if (t) {
        static const s_exp_t exp3[] = {
            {0, 0, WH_STMT_DECL, "int total = 0;"},
            {0, 1, WH_STMT_LAMBDA, "auto outer = [&](int n) {\n        auto inner = [&](int m) {\n"
                                   "            total += m;\n        };\n        inner(n);\n    };"},
            {1, 1, WH_STMT_LAMBDA, "auto inner = [&](int m) {\n            total += m;\n        };"},
            {2, 0, WH_STMT_EXPR, "total += m;"},
            {1, 0, WH_STMT_EXPR, "inner(n);"},
            {0, 1, WH_STMT_IF, "if (int k = GetParam(); k > 0) {\n        outer(k);\n    }"},
            {1, 0, WH_STMT_EXPR, "outer(k);"},
            {0, 0, WH_STMT_MACRO, "EXPECT_NO_THROW({\n        outer(1);\n    });"},
        };
        s_check_units(t, exp3, (int)(sizeof exp3 / sizeof exp3[0]));
        wh_tree_totals_t tot;
        wh_tree_totals(t, &tot);
        CHECK_EQ_INT(tot.deepest, 2);
        CHECK_EQ_INT(tot.tree, 3);
    }
    wh_tree_destroy(&t);

    /* Inside a namespace. */
    t = s_load("gtest_basic.cc", "Other.Adds", NULL);
    if (t)
        CHECK_EQ_INT(t->n, 1);
    wh_tree_destroy(&t);

    /* "Adds" names two tests. */
    char *path = s_data("gtest_basic.cc"), *err = NULL;
    CHECK_EQ_INT(wh_tree_load(path, "Adds", NULL, &t, &err), WH_ENOTFOUND);
    CHECK(t == NULL);
    CHECK(err && strstr(err, "ambiguous") && strstr(err, "Math.Adds, Other.Adds"));
    free(err);
    free(path);
}

/* A local struct or class whose member functions have bodies is a Tree
 * statement: its member function bodies' statements are units one level
 * down (tinyxml2's main hid 70 statements in a local struct), and the whole
 * declaration stays one unit that can go. A local struct without member
 * bodies stays a NonTree declaration. */
static void test_local_class(void)
{
    wh_tree_t *t = s_load("local_class.cc", "test_local_struct", NULL);
    if (t) {
        static const s_exp_t exp[] = {
            {0, 0, WH_STMT_DECL, "int base = 2;"},
            {0, 1, WH_STMT_CLASS, "struct Util {\n        int twice(int x)\n        {\n"
                                  "            int y = x * 2;\n            if (y > 4) {\n"
                                  "                y -= 1;\n                seen += y;\n"
                                  "            }\n            return y;\n        }\n"
                                  "        void reset() { seen = 0; }\n    };"},
            {1, 0, WH_STMT_DECL, "int y = x * 2;"},
            {1, 1, WH_STMT_IF, "if (y > 4) {\n                y -= 1;\n                seen += y;\n"
                               "            }"},
            {2, 0, WH_STMT_EXPR, "y -= 1;"},
            {2, 0, WH_STMT_EXPR, "seen += y;"},
            {1, 0, WH_STMT_EXPR, "return y;"},
            {1, 0, WH_STMT_EXPR, "seen = 0;"},
            {0, 0, WH_STMT_DECL, "Util u;"},
            {0, 0, WH_STMT_EXPR, "u.reset();"},
            {0, 0, WH_STMT_EXPR, "seen += u.twice(base);"},
            {0, 0, WH_STMT_DECL, "struct Plain {\n        int a, b;\n    };"},
        };
        s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
        wh_tree_totals_t tot;
        wh_tree_totals(t, &tot);
        CHECK_EQ_INT(tot.total, 12);
        CHECK_EQ_INT(tot.tree, 2);
        CHECK_EQ_INT(tot.deepest, 2);
        /* The children of the struct are its two member bodies' units. */
        CHECK_EQ_INT(t->units[2].parent, 1);
        CHECK_EQ_INT(t->units[7].parent, 1);
        CHECK_EQ_INT(t->units[4].parent, 3);
        char *out = s_print(t, 1);
        CHECK(strstr(out, "\"kind\":\"class\"") != NULL);
        free(out);
    }
    wh_tree_destroy(&t);

    /* A class with a constructor (member initializers before its body) and
     * an empty destructor; a local struct inside a lambda body belongs to
     * the lambda's units, not to the statement holding the lambda. */
    t = s_load("local_class.cc", "test_local_class", NULL);
    if (t) {
        static const s_exp_t exp[] = {
            {0, 1, WH_STMT_CLASS, "class Counter {\n    public:\n        explicit Counter(int start) : "
                                  "n(start)\n        {\n            n += 1;\n            seen = n;\n"
                                  "        }\n        ~Counter() {}\n        int n;\n    };"},
            {1, 0, WH_STMT_EXPR, "n += 1;"},
            {1, 0, WH_STMT_EXPR, "seen = n;"},
            {0, 0, WH_STMT_DECL, "Counter c(3);"},
            {0, 1, WH_STMT_LAMBDA, "auto f = [&]() {\n        struct Inner {\n"
                                   "            int one() { return 1; }\n        };\n"
                                   "        seen += Inner().one();\n    };"},
            {1, 1, WH_STMT_CLASS, "struct Inner {\n            int one() { return 1; }\n        };"},
            {2, 0, WH_STMT_EXPR, "return 1;"},
            {1, 0, WH_STMT_EXPR, "seen += Inner().one();"},
            {0, 0, WH_STMT_EXPR, "f();"},
        };
        s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
        wh_tree_totals_t tot;
        wh_tree_totals(t, &tot);
        CHECK_EQ_INT(tot.total, 9);
        CHECK_EQ_INT(tot.tree, 3);
        CHECK_EQ_INT(tot.deepest, 2);
    }
    wh_tree_destroy(&t);

    /* struct S { ... } s;: each member statement once, not twice. */
    t = s_load("local_class.cc", "test_struct_and_var", NULL);
    if (t) {
        static const s_exp_t exp[] = {
            {0, 1, WH_STMT_CLASS, "struct Acc {\n        int add(int v)\n        {\n"
                                  "            int t = v + 1;\n            return t;\n"
                                  "        }\n    } acc;"},
            {1, 0, WH_STMT_DECL, "int t = v + 1;"},
            {1, 0, WH_STMT_EXPR, "return t;"},
            {0, 0, WH_STMT_EXPR, "seen += acc.add(2);"},
        };
        s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
        wh_tree_totals_t tot;
        wh_tree_totals(t, &tot);
        CHECK_EQ_INT(tot.total, 4);
    }
    wh_tree_destroy(&t);

    /* Member functions of a local class are not test functions of the
     * file, whatever their names. */
    char *path = s_data("local_class.cc"), *err = NULL;
    char **names = NULL;
    int n = 0;
    CHECK_EQ_INT(wh_tree_list(path, NULL, &names, &n, &err), 0);
    CHECK_EQ_INT(n, 3);
    if (n == 3) {
        CHECK_EQ_STR(names[0], "test_local_struct");
        CHECK_EQ_STR(names[1], "test_local_class");
        CHECK_EQ_STR(names[2], "test_struct_and_var");
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(err);
    free(path);
}

/* aws-c-common: AWS_TEST_CASE(name, fn) lists fn as `name`, found by that
 * name and by its own. */
static void test_aws_case(void)
{
    char *file = s_data("aws_case.c"), *err = NULL;
    char **names = NULL;
    int n = 0;
    CHECK_EQ_INT(wh_tree_list(file, NULL, &names, &n, &err), 0);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(names[0], "test_buffer_cat");
        CHECK_EQ_STR(names[1], "test_with_fixture");
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    const char *spellings[] = {"test_buffer_cat", "s_test_buffer_cat_fn"};
    for (int i = 0; i < 2; i++) {
        wh_tree_t *t = NULL;
        free(err);
        err = NULL;
        CHECK_EQ_INT(wh_tree_load(file, spellings[i], NULL, &t, &err), 0);
        if (t) {
            CHECK_EQ_STR(t->test, "test_buffer_cat");
            /* The function it registers, which the harness prints. */
            CHECK_EQ_STR(t->fn, "s_test_buffer_cat_fn");
            CHECK_EQ_INT(t->n, 3);
        }
        wh_tree_destroy(&t);
    }
    free(err);
    free(file);
}

/* utest.h (json.h's tests): UTEST(set, name) is listed as "set.name" and
 * found by that name, by the function it defines (utest_run_set_name), and
 * by "name" alone when unique. The harness is the fixture's own
 * utest-shaped header (tests/fixtures/utest_mini). */
static void test_utest(void)
{
    const char *root = getenv("WH_SOURCE_DIR");
    char *file = wh_strdup_printf("%s/tests/fixtures/utest_mini/tests/test_parity.c",
                                  root ? root : ".");
    char *inc = wh_strdup_printf("-I%s/tests/fixtures/utest_mini/src", root ? root : ".");
    const char *args[] = {inc};
    wh_tree_opts_t o = {.args = args, .nargs = 1};
    char **names = NULL, *err = NULL;
    int n = 0;
    CHECK_EQ_INT(wh_tree_list(file, &o, &names, &n, &err), 0);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(names[0], "parity.small");
        CHECK_EQ_STR(names[1], "parity.top_bit");
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(err);
    err = NULL;
    const char *spellings[] = {"parity.top_bit", "utest_run_parity_top_bit", "top_bit",
                               "parity::top_bit"};
    for (int i = 0; i < 4; i++) {
        wh_tree_t *t = NULL;
        int rc = wh_tree_load(file, spellings[i], &o, &t, &err);
        if (rc)
            fprintf(stderr, "%s: %s\n", spellings[i], err ? err : "?");
        CHECK_EQ_INT(rc, 0);
        if (t) {
            s_check_invariants(t);
            CHECK_EQ_STR(t->test, "parity.top_bit");
            static const s_exp_t exp[] = {
                {0, 0, WH_STMT_DECL, "unsigned low = 5;"},
                {0, 0, WH_STMT_DECL, "unsigned top = 0x80000000u;"},
                {0, 0, WH_STMT_MACRO, "EXPECT_EQ(parity(low), 0);"},
                {0, 0, WH_STMT_MACRO, "EXPECT_EQ(parity(top), 1);"},
            };
            s_check_units(t, exp, 4);
        }
        wh_tree_destroy(&t);
        free(err);
        err = NULL;
    }
    free(inc);
    free(file);
}

static void test_criterion(void)
{
    const char *names[] = {"suite_a::first", "first", "suite_a.first"};
    for (int i = 0; i < 3; i++) {
        wh_tree_t *t = s_load("criterion_basic.c", names[i], NULL);
        if (!t)
            continue;
        CHECK_EQ_STR(t->test, "suite_a::first");
        static const s_exp_t exp[] = {
            {0, 0, WH_STMT_DECL, "int x = 1;"},
            {0, 0, WH_STMT_MACRO, "cr_assert(x == 1);"},
        };
        s_check_units(t, exp, 2);
        wh_tree_destroy(&t);
    }
}

static void s_check_list(const char *name, const char *expected)
{
    char *path = s_data(name), *err = NULL, **names = NULL;
    int n = -1;
    int rc = wh_tree_list(path, NULL, &names, &n, &err);
    if (rc < 0)
        fprintf(stderr, "list %s: %s\n", name, err ? err : "?");
    CHECK_EQ_INT(rc, 0);
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < n; i++)
        wh_buf_printf(&b, "%s%s", i ? "," : "", names[i]);
    char *got = wh_buf_detach(&b);
    CHECK_EQ_STR(got, expected);
    if (names)
        CHECK(names[n] == NULL);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(got);
    free(err);
    free(path);
}

static void test_list(void)
{
    s_check_list("cmocka_basic.c", "test_add,check_sub");
    s_check_list("control.c", "test_control,test_empty,test_edge,test_else_comment");
    s_check_list("check_basic.c", "test_sum,product");
    s_check_list("gtest_basic.cc", "Math.Adds,Fixture.Sums,Other.Adds,Param.Nested");
    s_check_list("criterion_basic.c", "suite_a::first");
}

static void test_macro_loop(void)
{
    /* A macro invocation followed by a braced body is a Tree statement of
     * the loop's kind; its body's statements are its units. Without a
     * braced body (or with braces from the macro itself) it stays one
     * NonTree macro unit. */
    wh_tree_t *t = s_load("macro_loop.c", "test_loops", NULL);
    static const s_exp_t exp[] = {
        {0, 0, WH_STMT_DECL, "struct node head = {&head, 0}, *pos;"},
        {0, 0, WH_STMT_DECL, "int sum = 0;"},
        {0, 1, WH_STMT_FOR, "list_for_each(pos, &head) {\n        sum += pos->v;\n        if (sum > 3) "
                            "{\n            sum = 0;\n        }\n    }"},
        {1, 0, WH_STMT_EXPR, "sum += pos->v;"},
        {1, 1, WH_STMT_IF, "if (sum > 3) {\n            sum = 0;\n        }"},
        {2, 0, WH_STMT_EXPR, "sum = 0;"},
        {0, 1, WH_STMT_FOR, "repeat_n(i, 3) {\n        sum += i;\n    }"},
        {1, 0, WH_STMT_EXPR, "sum += i;"},
        {0, 1, WH_STMT_WHILE, "while_ok(sum) {\n        sum--;\n    }"},
        {1, 0, WH_STMT_EXPR, "sum--;"},
        {0, 0, WH_STMT_MACRO, "repeat_n(j, 2) sum++;"},
        {0, 0, WH_STMT_MACRO, "CHECK(sum == 0);"},
        {0, 0, WH_STMT_MACRO, "BLOCK_MACRO(sum++);"},
        {0, 0, WH_STMT_EXPR, "(void)sum;"},
    };
    if (t)
        s_check_units(t, exp, (int)(sizeof exp / sizeof exp[0]));
    wh_tree_destroy(&t);
}

static void test_errors(void)
{
    wh_tree_t *t = NULL;
    char *err = NULL, *path;

    /* Missing file. */
    int rc = wh_tree_load("/nonexistent/whittle/x.c", "t", NULL, &t, &err);
    CHECK(rc < 0);
    CHECK(t == NULL);
    CHECK(err && strstr(err, "'/nonexistent/whittle/x.c'"));
    free(err);
    err = NULL;
    char **names = (char **)1;
    int n = 5;
    CHECK(wh_tree_list("/nonexistent/whittle/x.c", NULL, &names, &n, &err) < 0);
    CHECK(names == NULL && n == 0);
    free(err);
    err = NULL;

    /* Unknown test: the message lists what the file defines. */
    path = s_data("control.c");
    CHECK_EQ_INT(wh_tree_load(path, "nope", NULL, &t, &err), WH_ENOTFOUND);
    char *want = wh_strdup_printf("test 'nope' not found in %s; it defines: test_control, test_empty, test_edge, test_else_comment", path);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    err = NULL;
    free(path);

    /* Syntax error: file:line:col: error: ... */
    path = s_data("syntax_error.c");
    CHECK_EQ_INT(wh_tree_load(path, "test_broken", NULL, &t, &err), WH_EPARSE);
    want = wh_strdup_printf("%s:4:14: error: ", path);
    CHECK(err && strncmp(err, want, strlen(want)) == 0 && !strchr(err, '\n'));
    free(want);
    free(err);
    err = NULL;
    CHECK_EQ_INT(wh_tree_list(path, NULL, &names, &n, &err), WH_EPARSE);
    free(err);
    err = NULL;
    free(path);

    /* A missing include is refused: what depends on it would vanish from
     * the tree. The message names the header and the fix; with
     * allow_errors the file loads and the tree keeps the diagnostic. */
    path = s_data("missing_include.c");
    CHECK_EQ_INT(wh_tree_load(path, "test_x", NULL, &t, &err), WH_EPARSE);
    want = wh_strdup_printf("%s:1:10: error: 'no_such_header_whittle.h' file not found; "
                            "what depends on it would be missing from the statement tree: give -p "
                            "BUILD_DIR (a compile_commands.json), -- -I... flags, or "
                            "--allow-parse-errors", path);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    err = NULL;
    CHECK(t == NULL);
    CHECK_EQ_INT(wh_tree_list(path, NULL, &names, &n, &err), WH_EPARSE);
    CHECK(err && strstr(err, "'no_such_header_whittle.h' file not found"));
    free(err);
    err = NULL;
    wh_tree_opts_t allow = {.allow_errors = 1};
    CHECK_EQ_INT(wh_tree_load(path, "test_x", &allow, &t, &err), 0);
    CHECK(t && t->n == 2);
    CHECK(t && t->diag && strstr(t->diag, "'no_such_header_whittle.h' file not found"));
    wh_tree_destroy(&t);
    free(err);
    err = NULL;
    /* A test that is not found in a file with a missing header may hide
     * behind it (a test macro from that header): the header is named, and
     * the tests the file does define are listed. Allowed, the error is
     * still said after the list. */
    CHECK_EQ_INT(wh_tree_load(path, "test_nope", NULL, &t, &err), WH_EPARSE);
    want = wh_strdup_printf("test 'test_nope' not found in %s (it defines: test_x), which does "
                            "not parse: %s:1:10: error: 'no_such_header_whittle.h' file not found; "
                            "what depends on it would be missing from the statement tree: give -p "
                            "BUILD_DIR (a compile_commands.json), -- -I... flags, or "
                            "--allow-parse-errors", path, path);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    err = NULL;
    wh_tree_opts_t headers = {.allow_errors = WH_TREE_ALLOW_MISSING_HEADERS};
    CHECK_EQ_INT(wh_tree_load(path, "test_nope", &headers, &t, &err), WH_ENOTFOUND);
    want = wh_strdup_printf("test 'test_nope' not found in %s; it defines: test_x (the parse had "
                            "errors, the first: %s:1:10: error: 'no_such_header_whittle.h' file "
                            "not found)", path, path);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    err = NULL;
    CHECK(t == NULL);
    free(path);

    /* An error inside the test function is refused and named with the
     * test; one in another function does not touch the test's statements. */
    char tmpl[] = "/tmp/wh_tree_err_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    path = wh_path_join(dir, "errs.c");
    const char *src = "static int helper(void) { return undeclared_a; }\n"
                      "void test_in(void)\n{\n    int x = 1;\n    x += undeclared_b;\n}\n"
                      "void test_clean(void)\n{\n    int y = helper();\n    (void)y;\n}\n";
    CHECK_EQ_INT(wh_write_file(path, src, strlen(src)), 0);
    CHECK_EQ_INT(wh_tree_load(path, "test_in", NULL, &t, &err), WH_EPARSE);
    want = wh_strdup_printf("%s:5:10: error: use of undeclared identifier 'undeclared_b' (in test "
                            "'test_in'); the statement tree may be incomplete: give -p BUILD_DIR "
                            "(a compile_commands.json), -- -I... flags, or --allow-parse-errors",
                            path);
    CHECK_EQ_STR(err, want);
    free(want);
    free(err);
    err = NULL;
    CHECK_EQ_INT(wh_tree_load(path, "test_clean", NULL, &t, &err), 0);
    CHECK(t && t->n == 2 && t->diag == NULL);
    wh_tree_destroy(&t);
    free(path);
    wh_rm_rf(dir);

    /* An explicit compile_commands.json folder that has none. */
    wh_tree_opts_t opts = {.compdb_dir = "/nonexistent/whittle"};
    path = s_data("control.c");
    CHECK_EQ_INT(wh_tree_load(path, "test_control", &opts, &t, &err), WH_ENOTFOUND);
    CHECK(err && strstr(err, "/nonexistent/whittle"));
    free(err);
    err = NULL;
    free(path);
    CHECK_EQ_INT(wh_tree_load(NULL, "x", NULL, &t, &err), WH_EINVAL);
    free(err);
}

static void s_write(const char *dir, const char *name, const char *content)
{
    char *p = wh_path_join(dir, name);
    CHECK_EQ_INT(wh_write_file(p, content, strlen(content)), 0);
    free(p);
}

static int s_count(const char *dir, const char *file, const char *test, const wh_tree_opts_t *opts)
{
    char *p = wh_path_join(dir, file), *err = NULL;
    wh_tree_t *t = NULL;
    int rc = wh_tree_load(p, test, opts, &t, &err);
    int n = rc < 0 ? rc : t->n;
    if (t)
        s_check_invariants(t);
    wh_tree_destroy(&t);
    free(err);
    free(p);
    return n;
}

/* The tree's cc_exact for file: 1 its own command, 0 borrowed or guessed,
 * < 0 an error. */
static int s_exact(const char *dir, const char *file, const char *test)
{
    char *p = wh_path_join(dir, file), *err = NULL;
    wh_tree_t *t = NULL;
    int rc = wh_tree_load(p, test, NULL, &t, &err);
    int exact = rc < 0 ? rc : t->cc_exact;
    wh_tree_destroy(&t);
    free(err);
    free(p);
    return exact;
}

static void test_compdb(void)
{
    /* Without flags, FOO is undefined: two statements. With -DFOO=1 from
     * the extra arguments: four. */
    wh_tree_t *t = s_load("compdb_foo.c", "test_foo", NULL);
    if (t)
        CHECK_EQ_INT(t->n, 2);
    wh_tree_destroy(&t);
    const char *args[] = {"-DFOO=1"};
    wh_tree_opts_t opts = {.args = args, .nargs = 1};
    t = s_load("compdb_foo.c", "test_foo", &opts);
    if (t)
        CHECK_EQ_INT(t->n, 4);
    wh_tree_destroy(&t);

    char tmpl[] = "/tmp/wh_tree_test_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir)
        return;
    char *sub = wh_path_join(dir, "inc"), *build = wh_path_join(dir, "build");
    CHECK_EQ_INT(wh_mkdir_p(sub), 0);
    CHECK_EQ_INT(wh_mkdir_p(build), 0);
    /* The header is only found through the entry's relative -Iinc, which
     * is relative to the entry's directory. */
    s_write(sub, "foo_inc.h", "#define BAR 1\n");
    const char *src = "#include \"foo_inc.h\"\n"
                      "void test_foo(void)\n"
                      "{\n"
                      "    int x = BAR;\n"
                      "#if FOO\n"
                      "    x = 1;\n"
                      "    x = 2;\n"
                      "#endif\n"
                      "    (void)x;\n"
                      "}\n";
    s_write(dir, "foo.c", src);
    s_write(dir, "other.c", src);
    char *db = wh_strdup_printf(
        "[{\"directory\": \"%s\", \"command\": \"/usr/bin/cc -DFOO=1 -Iinc -Werror -o foo.o -c foo.c\","
        " \"file\": \"foo.c\"}]\n",
        dir);
    s_write(dir, "compile_commands.json", db);
    free(db);

    /* Found by searching upward from the file's folder. */
    CHECK_EQ_INT(s_count(dir, "foo.c", "test_foo", NULL), 4);
    /* No entry for other.c: the flags of foo.c's entry in the same folder. */
    CHECK_EQ_INT(s_count(dir, "other.c", "test_foo", NULL), 4);
    /* ... which are foo.c's own command, not other.c's: its -Werror does
     * not hold for other.c (libclang's database infers the command it
     * does not list, with other.c's name in it) */
    CHECK_EQ_INT(s_exact(dir, "foo.c", "test_foo"), 1);
    CHECK_EQ_INT(s_exact(dir, "other.c", "test_foo"), 0);
    /* Given explicitly. */
    wh_tree_opts_t o2 = {.compdb_dir = dir};
    CHECK_EQ_INT(s_count(dir, "foo.c", "test_foo", &o2), 4);

    /* The database in a build/ subfolder of an ancestor; here FOO=0. */
    char *top = wh_path_join(dir, "compile_commands.json");
    unlink(top);
    free(top);
    db = wh_strdup_printf(
        "[{\"directory\": \"%s\", \"command\": \"cc -DFOO=0 -I../inc -c ../foo.c -o foo.o\","
        " \"file\": \"../foo.c\"}]\n",
        build);
    s_write(build, "compile_commands.json", db);
    free(db);
    CHECK_EQ_INT(s_count(dir, "foo.c", "test_foo", NULL), 2);
    /* Without the -I the header is missing: refused, or parsed anyway with
     * allow_errors (and the default FOO, undefined, selects the other
     * branch). */
    s_write(build, "compile_commands.json", "[]\n");
    CHECK_EQ_INT(s_count(dir, "foo.c", "test_foo", NULL), WH_EPARSE);
    wh_tree_opts_t o3 = {.allow_errors = 1};
    CHECK_EQ_INT(s_count(dir, "foo.c", "test_foo", &o3), 2);

    /* An exact compile command replaces the database search: -DFOO=1 and
     * the header folder from the command, not from compile_commands.json. */
    char *foo = wh_path_join(dir, "foo.c");
    char *inc = wh_strdup_printf("-I%s", sub);
    char *argv[] = {"cc", "-DFOO=1", inc, "-c", foo, NULL};
    wh_compile_cmd_t cmd = {.directory = build, .file = foo, .argv = argv, .argc = 5};
    wh_tree_opts_t o4 = {.cmd = &cmd};
    CHECK_EQ_INT(s_count(dir, "foo.c", "test_foo", &o4), 4);
    free(inc);
    free(foo);

    CHECK_EQ_INT(wh_rm_rf(dir), 0);
    free(sub);
    free(build);
}

/* Relative paths of path options in the extra arguments (`--`) name
 * files under opts.base, the project, whatever the current folder is
 * (issue 33 item 7); without a base they stay as given. */
static void test_base_args(void)
{
    char tmpl[] = "/tmp/wh_tree_base_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir)
        return;
    char *inc = wh_path_join(dir, "inc"), *sys = wh_path_join(dir, "sys");
    CHECK_EQ_INT(wh_mkdir_p(inc), 0);
    CHECK_EQ_INT(wh_mkdir_p(sys), 0);
    s_write(inc, "bar_inc.h", "#define BAR 1\n");
    s_write(sys, "baz_sys.h", "#define BAZ 1\n");
    s_write(dir, "cfg.h", "#define QUX 1\n");
    s_write(dir, "t.c",
            "#include \"bar_inc.h\"\n"
            "#include <baz_sys.h>\n"
            "void test_base(void)\n"
            "{\n"
            "    int x = BAR + BAZ;\n"
            "#if QUX\n"
            "    x = 2;\n"
            "#endif\n"
            "    (void)x;\n"
            "}\n");
    /* Joined and apart forms, and -include. */
    const char *joined[] = {"-Iinc", "-isystemsys", "-include", "cfg.h"};
    const char *apart[] = {"-I", "inc", "-isystem", "sys", "-includecfg.h", "-DUNUSED=1"};
    wh_tree_opts_t o = {.args = joined, .nargs = 4, .base = dir};
    CHECK_EQ_INT(s_count(dir, "t.c", "test_base", &o), 3);
    wh_tree_opts_t o2 = {.args = apart, .nargs = 6, .base = dir};
    CHECK_EQ_INT(s_count(dir, "t.c", "test_base", &o2), 3);
    /* Without a base, relative to the current folder (not dir): not found. */
    wh_tree_opts_t o3 = {.args = joined, .nargs = 4};
    CHECK_EQ_INT(s_count(dir, "t.c", "test_base", &o3), WH_EPARSE);
    /* Absolute paths are kept. */
    char *abs_i = wh_strdup_printf("-I%s", inc), *abs_s = wh_strdup_printf("-isystem%s", sys);
    const char *absolute[] = {abs_i, abs_s, "-DQUX=1"};
    wh_tree_opts_t o4 = {.args = absolute, .nargs = 3, .base = "/nonexistent"};
    CHECK_EQ_INT(s_count(dir, "t.c", "test_base", &o4), 3);
    /* A file -include'd that is in neither folder is searched for on the
     * include path (an includer's "-include art.h", art.h in src/). */
    s_write(inc, "cfg_inc.h", "#define QUX 1\n");
    const char *searched[] = {"-Iinc", "-isystemsys", "-include", "cfg_inc.h"};
    wh_tree_opts_t o5 = {.args = searched, .nargs = 4, .base = dir};
    CHECK_EQ_INT(s_count(dir, "t.c", "test_base", &o5), 3);
    free(abs_i);
    free(abs_s);
    CHECK_EQ_INT(wh_rm_rf(dir), 0);
    free(inc);
    free(sys);
}

int main(int argc, char **argv)
{
    if (argc >= 3) {
        wh_tree_t *t = NULL;
        char *err = NULL;
        int rc = wh_tree_load(argv[1], argv[2], NULL, &t, &err);
        if (rc < 0) {
            fprintf(stderr, "%s\n", err);
            free(err);
            return 1;
        }
        wh_tree_print(t, stdout, argc > 3);
        wh_tree_destroy(&t);
        return 0;
    }
    RUN_TEST(test_cmocka);
    RUN_TEST(test_control);
    RUN_TEST(test_edge);
    RUN_TEST(test_check);
    RUN_TEST(test_gtest);
    RUN_TEST(test_local_class);
    RUN_TEST(test_utest);
    RUN_TEST(test_aws_case);
    RUN_TEST(test_base_args);
    RUN_TEST(test_criterion);
    RUN_TEST(test_list);
    RUN_TEST(test_macro_loop);
    RUN_TEST(test_errors);
    RUN_TEST(test_compdb);
    RUN_TEST(test_treejob_wakes);
    TEST_MAIN_END();
}
