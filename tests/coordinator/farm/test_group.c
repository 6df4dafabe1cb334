/*
 * Tests of coordinator/group's folder handling: run folders given by path
 * (the reduced test is reduced + the test file's extension even beside
 * reduced.lines.c and reduced.diff), a runs folder with a `latest` link
 * (skipped), the printed groups, and run folders not readable here.
 */
#define _GNU_SOURCE
#include <unistd.h>

#include "group.h"
#include "wh_common.h"
#include "wh_test.h"

static char s_tmp[] = "/tmp/whittle-test-group.XXXXXX";

static void s_write(const char *dir, const char *name, const char *text)
{
    char *p = wh_path_join(dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(p);
}

/* A run folder of test `test` failing at `loc`, whose reduced function
 * holds `stmt`; reduced.lines.c and reduced.diff say otherwise. */
static char *s_run(const char *name, const char *test, const char *loc, const char *stmt)
{
    char *dir = wh_path_join(s_tmp, name);
    CHECK(wh_mkdir_p(dir) == 0);
    char *sum = wh_strdup_printf("{\"file\": \"tests/t.c\", \"fingerprint\": {\"test\": \"%s\", "
                                 "\"kind\": \"assert\", \"location\": \"%s\", \"message\": "
                                 "\"boom in %s\"}}", test, loc, test);
    char *red = wh_strdup_printf("static void %s(void)\n{\n    %s\n}\n", test, stmt);
    s_write(dir, "summary.json", sum);
    s_write(dir, "reduced.c", red);
    s_write(dir, "reduced.lines.c", "static void x(void)\n{\n    other();\n}\n");
    s_write(dir, "reduced.diff", "--- a\n+++ b\n-    gone();\n");
    free(sum), free(red);
    return dir;
}

static char *s_print(const char *const *dirs, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_INT(wh_group_print_dirs(dirs, n, f), 0);
    fclose(f);
    return buf;
}

static void test_dirs_and_latest(void)
{
    char *a = s_run("a-1", "t_one", "t.c:5", "shop_take(&s, 3);");
    char *b = s_run("b-1", "t_two", "t.c:9", "shop_take(&s, 3);");
    char *c = s_run("c-1", "t_three", "lib.c:2", "other_call();");
    const char *dirs[] = {c, a, b};
    char *out = s_print(dirs, 3);
    CHECK_EQ_STR(out, "Groups (one root cause each): 3 runs, 2 groups\n"
                      "group 1: assert | t.c:5 | boom in <test>\n"
                      "  a-1 (t_one)\n"
                      "  b-1 (t_two)\n"
                      "group 2: assert | lib.c:2 | boom in <test>\n"
                      "  c-1 (t_three)\n");
    free(out);
    /* The runs folder: `latest` points at c-1 and is not a fourth run. */
    char *latest = wh_path_join(s_tmp, "latest");
    CHECK(symlink("c-1", latest) == 0);
    char *err = NULL;
    wh_group_t *g = wh_group_load(s_tmp, &err);
    CHECK(g != NULL);
    if (g) {
        wh_group_cluster(g);
        CHECK_EQ_INT(wh_group_runs(g), 3);
        CHECK_EQ_INT(wh_group_count(g), 2);
        wh_group_destroy(&g);
    }
    free(err), free(latest), free(a), free(b), free(c);
}

/* whittle mutate's output: run folders four levels down, named by their
 * path; a run folder's own subfolders are not searched. */
static void test_nested(void)
{
    char *a = s_run("m/reduce/m1-t_one/hdd/t_one-1", "t_one", "t.c:5", "shop_take(&s, 3);");
    char *b = s_run("m/reduce/m2-t_two/hdd/t_two-1", "t_two", "t.c:5", "shop_take(&s, 3);");
    char *inner = s_run("m/reduce/m2-t_two/hdd/t_two-1/reports/x", "t_x", "x.c:1", "x();");
    char *deep = s_run("m/a/b/c/d/too-deep", "t_deep", "d.c:1", "d();");
    char *top = wh_path_join(s_tmp, "m");
    char *err = NULL;
    wh_group_t *g = wh_group_load(top, &err);
    CHECK(g != NULL);
    if (g) {
        wh_group_cluster(g);
        CHECK_EQ_INT(wh_group_runs(g), 2);
        CHECK_EQ_INT(wh_group_count(g), 1);
        wh_group_destroy(&g);
    }
    free(err), free(top), free(a), free(b), free(inner), free(deep);
}

/* A remote coordinator's run folders: said, not "0 runs". */
static void test_not_readable(void)
{
    const char *dirs[] = {"/nonexistent/whittle-runs/x-1", "/nonexistent/whittle-runs/y-1"};
    char *out = s_print(dirs, 2);
    CHECK_EQ_STR(out, "Groups: none of the 2 run folders is readable here (whittle status "
                      "shows the coordinator's groups)\n");
    free(out);
}

int main(void)
{
    CHECK(mkdtemp(s_tmp) != NULL);
    RUN_TEST(test_dirs_and_latest);
    RUN_TEST(test_not_readable);
    RUN_TEST(test_nested);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
