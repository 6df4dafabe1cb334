/*
 * test_identity — which paths the --ignore globs leave out of a job's
 * identity (identity.h), and the snapshot ids of a plain folder and of a
 * git project.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"
#include "wh_common.h"
#include "wh_spawn.h"
#include "wh_test.h"

static void test_globs(void)
{
    char *g[] = {"*.log", "docs/*.md", "tmp"};
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "run.log"), 1);
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "tests/deep/run.log"), 1); /* a name anywhere */
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "run.log.c"), 0);
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "docs/a.md"), 1);          /* a path from the root */
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "sub/docs/a.md"), 0);
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "docs/x/a.md"), 0);        /* '*' stops at '/' */
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "tmp/x/y.c"), 1);          /* inside an ignored folder */
    CHECK_EQ_INT(wh_identity_ignored(g, 3, "src/tmp.c"), 0);
    CHECK_EQ_INT(wh_identity_ignored(g, 0, "run.log"), 0);
}

static void s_write(const char *dir, const char *rel, const char *text)
{
    char *p = wh_path_join(dir, rel);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    free(p);
}

/* git -C dir ARGS...: its exit status. */
static int s_git(const char *dir, const char *a, const char *b, const char *c, const char *e)
{
    const char *argv[] = {"git", "-C", dir, a, b, c, e, NULL};
    return wh_spawn_run(argv, NULL, NULL, 0);
}

static void test_snapshots(void)
{
    char tmpl[] = "/tmp/wh-identity-XXXXXX";
    char *d = mkdtemp(tmpl);
    CHECK(d != NULL);
    if (!d)
        return;
    char *sub = wh_path_join(d, "src"), *bx = wh_path_join(d, "build-x");
    wh_mkdir_p(sub);
    wh_mkdir_p(bx);
    s_write(d, "src/a.c", "int a;\n");
    s_write(d, "t.c", "void t(void) {}\n");
    char h1[65], h2[65], h3[65], h4[65];
    char *err = NULL;
    wh_identity_basis_t basis;
    CHECK_EQ_INT(wh_identity_snapshot(d, "t.c", NULL, NULL, 0, h1, &basis, &err), 0);
    CHECK_EQ_INT(basis, WH_IDENTITY_TREE);
    s_write(d, "build-x/out.o", "junk");
    char *g[] = {"*.log"};
    s_write(d, "notes.log", "x");
    CHECK_EQ_INT(wh_identity_snapshot(d, "t.c", NULL, g, 1, h2, &basis, &err), 0);
    CHECK_EQ_STR(h2, h1); /* build* and *.log left out */
    CHECK_EQ_INT(wh_identity_snapshot(d, "t.c", NULL, NULL, 0, h3, &basis, &err), 0);
    CHECK(strcmp(h3, h1) != 0); /* without the glob, notes.log counts */
    /* The same folder as a git project: tracked files only. */
    CHECK_EQ_INT(s_git(d, "init", "-q", NULL, NULL), 0);
    CHECK_EQ_INT(s_git(d, "add", "src/a.c", "t.c", NULL), 0);
    CHECK_EQ_INT(wh_identity_snapshot(d, "t.c", NULL, NULL, 0, h4, &basis, &err), 0);
    CHECK_EQ_INT(basis, WH_IDENTITY_GIT);
    char h5[65];
    s_write(d, "untracked.txt", "x");
    CHECK_EQ_INT(wh_identity_snapshot(d, "t.c", NULL, NULL, 0, h5, &basis, &err), 0);
    CHECK_EQ_STR(h5, h4);
    s_write(d, "src/a.c", "int a = 1;\n"); /* a modification counts */
    CHECK_EQ_INT(wh_identity_snapshot(d, "t.c", NULL, NULL, 0, h5, &basis, &err), 0);
    CHECK(strcmp(h5, h4) != 0);
    /* An untracked test file: not the git rule (the project may sit in
     * someone else's repository), the tree rule. */
    s_write(d, "u.c", "void u(void) {}\n");
    CHECK_EQ_INT(wh_identity_snapshot(d, "u.c", NULL, NULL, 0, h5, &basis, &err), 0);
    CHECK_EQ_INT(basis, WH_IDENTITY_TREE);
    free(err);
    free(sub);
    free(bx);
    wh_rm_rf(d);
}

int main(void)
{
    RUN_TEST(test_globs);
    RUN_TEST(test_snapshots);
    TEST_MAIN_END();
}
