/*
 * test_render — line-true and compact rendering on hand-built trees: every
 * surviving statement keeps its offset (so its line and column), removed
 * units take their subtree and their `;` with them, CRLF survives, and the
 * compact form is checked byte for byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "wh_test.h"

/* A tree over a string literal; units added with s_add. */
typedef struct {
    wh_tree_t t;
    wh_unit_t u[16];
} tree_t;

static void s_init(tree_t *x, const char *text)
{
    memset(x, 0, sizeof *x);
    x->t.text = (char *)text;
    x->t.text_len = strlen(text);
    x->t.units = x->u;
    const char *open = strchr(text, '{');
    const char *close = strrchr(text, '}');
    x->t.body_begin = open ? (size_t)(open - text) : 0;
    x->t.body_end = close ? (size_t)(close - text) + 1 : x->t.text_len;
}

/* Adds a unit spanning [from, to + strlen(to)) where from and to are the
 * first occurrences at or after the previous unit's start. */
static int s_add(tree_t *x, int parent, const char *from, const char *to)
{
    const char *base = x->t.text;
    if (x->t.n > 0)
        base = x->t.text + x->u[x->t.n - 1].begin;
    const char *b = strstr(base, from);
    const char *e = b ? strstr(b, to) : NULL;
    CHECK(b != NULL && e != NULL);
    if (!b || !e)
        return -1;
    int i = x->t.n++;
    wh_unit_t *u = &x->u[i];
    u->parent = parent;
    u->level = parent < 0 ? 0 : x->u[parent].level + 1;
    u->begin = (size_t)(b - x->t.text);
    u->end = (size_t)(e - x->t.text) + strlen(to);
    if (parent >= 0)
        x->u[parent].is_tree = 1;
    return i;
}

static size_t s_count(const char *s, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == c;
    return k;
}

/* Every byte of unit i is unchanged at the same offset. */
static int s_kept_at(const tree_t *x, const char *out, int i)
{
    const wh_unit_t *u = &x->u[i];
    return memcmp(out + u->begin, x->t.text + u->begin, u->end - u->begin) == 0;
}

/* Every byte of unit i is blank or a line end. */
static int s_blank_at(const tree_t *x, const char *out, int i)
{
    const wh_unit_t *u = &x->u[i];
    for (size_t b = u->begin; b < u->end; b++)
        if (out[b] != ' ' && out[b] != '\n' && out[b] != '\r')
            return 0;
    return 1;
}

static const char NESTED[] =
    "#include <stddef.h>\n"
    "void test_x(void **state)\n"
    "{\n"
    "    int a = 1;\n"
    "    if (a) {\n"
    "        foo(a);\n"
    "        bar(a,\n"
    "            2);\n"
    "    }\n"
    "    assert_int_equal(a, 1);\n"
    "}\n";

static void s_nested(tree_t *x)
{
    s_init(x, NESTED);
    s_add(x, -1, "int a = 1;", ";");
    s_add(x, -1, "if (a) {", "    }");
    s_add(x, 1, "foo(a);", ";");
    s_add(x, 1, "bar(a,", "2);");
    s_add(x, -1, "assert_int_equal", ";");
}

static void test_line_true(void)
{
    tree_t x;
    s_nested(&x);
    uint8_t rem[5] = {0};
    size_t len = 0;

    /* Nothing removed: the text itself. */
    char *out = wh_render(&x.t, rem, &len);
    CHECK_EQ_INT(len, x.t.text_len);
    CHECK_EQ_STR(out, NESTED);
    free(out);
    out = wh_render(&x.t, NULL, NULL);
    CHECK_EQ_STR(out, NESTED);
    free(out);

    /* Removing the if removes its children whatever their flags say. */
    rem[1] = 1;
    out = wh_render(&x.t, rem, &len);
    CHECK(out != NULL);
    CHECK_EQ_INT(len, x.t.text_len);
    CHECK_EQ_INT(strlen(out), x.t.text_len);
    CHECK_EQ_INT(s_count(out, len, '\n'), s_count(NESTED, x.t.text_len, '\n'));
    CHECK(s_kept_at(&x, out, 0));
    CHECK(s_kept_at(&x, out, 4));
    CHECK(s_blank_at(&x, out, 1));
    CHECK(s_blank_at(&x, out, 2));
    CHECK(s_blank_at(&x, out, 3));
    /* The assert is still on line 10. */
    CHECK_EQ_INT(s_count(out, x.u[4].begin, '\n') + 1, 10);
    free(out);

    /* A child alone: the if and its other child stay put. */
    rem[1] = 0;
    rem[3] = 1; /* bar(a,\n 2); spans two lines */
    out = wh_render(&x.t, rem, &len);
    CHECK(s_kept_at(&x, out, 0));
    CHECK(s_kept_at(&x, out, 2));
    CHECK(s_kept_at(&x, out, 4));
    CHECK(s_blank_at(&x, out, 3));
    CHECK_EQ_INT(s_count(out, len, '\n'), s_count(NESTED, x.t.text_len, '\n'));
    CHECK(strstr(out, "    if (a) {\n        foo(a);\n") != NULL);
    CHECK(strstr(out, "foo(a);\n              \n               \n    }\n") != NULL);
    free(out);

    /* Tabs inside a removed unit become spaces (column of later bytes is a
     * byte offset, so it does not change). */
    tree_t y;
    s_init(&y, "{\n\tint\tx;\tkeep();\n}\n");
    s_add(&y, -1, "int", ";");
    s_add(&y, -1, "keep", ";");
    uint8_t r2[2] = {1, 0};
    out = wh_render(&y.t, r2, &len);
    CHECK_EQ_STR(out, "{\n\t      \tkeep();\n}\n");
    free(out);
}

static void test_compact_nested(void)
{
    tree_t x;
    s_nested(&x);
    uint8_t rem[5] = {0, 1, 0, 0, 0};
    size_t len = 0;
    char *out = wh_render_compact(&x.t, rem, &len);
    CHECK_EQ_STR(out, "#include <stddef.h>\n"
                      "void test_x(void **state)\n"
                      "{\n"
                      "    int a = 1;\n"
                      "    assert_int_equal(a, 1);\n"
                      "}\n");
    CHECK_EQ_INT(len, out ? strlen(out) : 0);
    free(out);

    uint8_t rem2[5] = {0, 0, 1, 0, 1};
    out = wh_render_compact(&x.t, rem2, NULL);
    CHECK_EQ_STR(out, "#include <stddef.h>\n"
                      "void test_x(void **state)\n"
                      "{\n"
                      "    int a = 1;\n"
                      "    if (a) {\n"
                      "        bar(a,\n"
                      "            2);\n"
                      "    }\n"
                      "}\n");
    free(out);
}

static void test_semicolon_next_line(void)
{
    static const char text[] = "{\n"
                               "    call(x)\n"
                               "        ;\n"
                               "    keep();\n"
                               "}\n";
    tree_t x;
    s_init(&x, text);
    s_add(&x, -1, "call(x)", ";");
    s_add(&x, -1, "keep", ";");
    uint8_t rem[2] = {1, 0};
    size_t len = 0;
    char *out = wh_render(&x.t, rem, &len);
    CHECK_EQ_STR(out, "{\n"
                      "           \n"
                      "         \n"
                      "    keep();\n"
                      "}\n");
    CHECK_EQ_INT(len, strlen(text));
    free(out);
    out = wh_render_compact(&x.t, rem, &len);
    CHECK_EQ_STR(out, "{\n    keep();\n}\n");
    CHECK_EQ_INT(len, strlen("{\n    keep();\n}\n"));
    free(out);
}

static void test_compact_blank_runs(void)
{
    static const char text[] = "int helper;\n"
                               "\n"
                               "\n"
                               "void t(void)\n"
                               "{\n"
                               "    a();\n"
                               "\n"
                               "    b();\n"
                               "\n"
                               "    c();\n"
                               "\n"
                               "\n"
                               "    d();\n"
                               "}\n"
                               "\n"
                               "\n"
                               "int tail;\n";
    tree_t x;
    s_init(&x, text);
    s_add(&x, -1, "a();", ";");
    s_add(&x, -1, "b();", ";");
    s_add(&x, -1, "c();", ";");
    s_add(&x, -1, "d();", ";");

    /* b goes: the blank lines around it meet and are squeezed to one; the
     * blank runs outside the body are not the reducer's business. The blank
     * run before d was in the original: squeezed too, it is in the body. */
    uint8_t rem[4] = {0, 1, 0, 0};
    char *out = wh_render_compact(&x.t, rem, NULL);
    CHECK_EQ_STR(out, "int helper;\n"
                      "\n"
                      "\n"
                      "void t(void)\n"
                      "{\n"
                      "    a();\n"
                      "\n"
                      "    c();\n"
                      "\n"
                      "    d();\n"
                      "}\n"
                      "\n"
                      "\n"
                      "int tail;\n");
    free(out);

    /* Everything goes: one blank line stays in the body. */
    uint8_t all[4] = {1, 1, 1, 1};
    out = wh_render_compact(&x.t, all, NULL);
    CHECK_EQ_STR(out, "int helper;\n\n\nvoid t(void)\n{\n\n}\n\n\nint tail;\n");
    free(out);
}

static void test_compact_partial_line(void)
{
    static const char text[] = "{\n    x(); y();  \n    z();\n}";
    tree_t x;
    s_init(&x, text);
    s_add(&x, -1, "x();", ";");
    s_add(&x, -1, "y();", ";");
    s_add(&x, -1, "z();", ";");
    /* y goes: the spaces it leaves at the end of the line are trimmed. */
    uint8_t r1[3] = {0, 1, 0};
    char *out = wh_render_compact(&x.t, r1, NULL);
    CHECK_EQ_STR(out, "{\n    x();\n    z();\n}");
    free(out);
    /* x goes: y keeps its column; no trailing whitespace was touched. */
    uint8_t r2[3] = {1, 0, 0};
    out = wh_render_compact(&x.t, r2, NULL);
    CHECK_EQ_STR(out, "{\n         y();  \n    z();\n}");
    free(out);
    /* The last line has no newline: it still works. */
    uint8_t r3[3] = {1, 1, 1};
    out = wh_render_compact(&x.t, r3, NULL);
    CHECK_EQ_STR(out, "{\n}");
    free(out);
}

static void test_crlf(void)
{
    static const char text[] = "void t(void)\r\n"
                               "{\r\n"
                               "    a();\r\n"
                               "    b(1,\r\n"
                               "      2);\r\n"
                               "    c();\r\n"
                               "}\r\n";
    tree_t x;
    s_init(&x, text);
    s_add(&x, -1, "a();", ";");
    s_add(&x, -1, "b(1,", "2);");
    s_add(&x, -1, "c();", ";");
    uint8_t rem[3] = {0, 1, 0};
    size_t len = 0;
    char *out = wh_render(&x.t, rem, &len);
    CHECK_EQ_INT(len, strlen(text));
    CHECK_EQ_INT(s_count(out, len, '\n'), s_count(text, len, '\n'));
    CHECK_EQ_INT(s_count(out, len, '\r'), s_count(text, len, '\r'));
    CHECK(s_kept_at(&x, out, 0));
    CHECK(s_kept_at(&x, out, 2));
    CHECK(s_blank_at(&x, out, 1));
    CHECK(strstr(out, "\r\n        \r\n         \r\n") != NULL);
    free(out);
    out = wh_render_compact(&x.t, rem, &len);
    CHECK_EQ_STR(out, "void t(void)\r\n{\r\n    a();\r\n    c();\r\n}\r\n");
    free(out);
    /* A partial line keeps its CR after trimming. */
    tree_t y;
    s_init(&y, "{\r\n    a(); b();\r\n}\r\n");
    s_add(&y, -1, "a();", ";");
    s_add(&y, -1, "b();", ";");
    uint8_t r2[2] = {0, 1};
    out = wh_render_compact(&y.t, r2, NULL);
    CHECK_EQ_STR(out, "{\r\n    a();\r\n}\r\n");
    free(out);
}

static void test_bounds(void)
{
    /* A range past the end of the text is clamped, not trusted. */
    tree_t x;
    s_init(&x, "{\n  a();\n}\n");
    s_add(&x, -1, "a();", ";");
    x.u[0].end = 1000;
    uint8_t rem[1] = {1};
    size_t len = 0;
    char *out = wh_render(&x.t, rem, &len);
    CHECK_EQ_INT(len, x.t.text_len);
    CHECK_EQ_STR(out, "{\n      \n \n");
    free(out);
    /* No units at all. */
    tree_t y;
    s_init(&y, "");
    out = wh_render_compact(&y.t, NULL, &len);
    CHECK_EQ_STR(out, "");
    CHECK_EQ_INT(len, 0);
    free(out);
}

int main(void)
{
    RUN_TEST(test_line_true);
    RUN_TEST(test_compact_nested);
    RUN_TEST(test_semicolon_next_line);
    RUN_TEST(test_compact_blank_runs);
    RUN_TEST(test_compact_partial_line);
    RUN_TEST(test_crlf);
    RUN_TEST(test_bounds);
    TEST_MAIN_END();
}
