/*
 * Tests of node/workspace: what a copy keeps (content, modes, symlinks,
 * empty folders) and skips (.git, CMake build folders, whittle-runs, the
 * exclude list, itself), and when the snapshot hash changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wh_common.h"
#include "wh_test.h"
#include "workspace.h"

static char s_tmp[256];

static char *s_p(const char *rel)
{
    return wh_path_join(s_tmp, rel);
}

static void s_put(const char *rel, const char *text, mode_t mode)
{
    char *p = s_p(rel);
    char *dir = strdup(p);
    *strrchr(dir, '/') = '\0';
    CHECK_EQ_INT(wh_mkdir_p(dir), 0);
    CHECK_EQ_INT(wh_write_file_inplace(p, text, strlen(text)), 0);
    CHECK_EQ_INT(chmod(p, mode), 0);
    free(dir);
    free(p);
}

static char *s_get(const char *rel)
{
    char *p = s_p(rel), *text = NULL;
    if (wh_read_file(p, 1 << 20, &text, NULL))
        text = NULL;
    free(p);
    return text;
}

static int s_exists(const char *rel)
{
    char *p = s_p(rel);
    struct stat st;
    int e = lstat(p, &st) == 0;
    free(p);
    return e;
}

static mode_t s_mode(const char *rel)
{
    char *p = s_p(rel);
    struct stat st;
    mode_t m = lstat(p, &st) == 0 ? st.st_mode : 0;
    free(p);
    return m;
}

static void s_make_project(void)
{
    s_put("proj/src/a.c", "int a;\n", 0644);
    s_put("proj/src/run.sh", "#!/bin/sh\necho hi\n", 0755);
    s_put("proj/src/private.txt", "secret\n", 0600);
    s_put("proj/.git/HEAD", "ref: refs/heads/main\n", 0644);
    s_put("proj/sub/.git", "gitdir: ../.git/modules/sub\n", 0644);
    s_put("proj/sub/b.h", "#define B 1\n", 0644);
    s_put("proj/build/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/x\n", 0644);
    s_put("proj/build/obj.o", "object\n", 0644);
    s_put("proj/whittle-runs/run1/log", "log\n", 0644);
    s_put("proj/big-data/blob.bin", "blob\n", 0644);
    s_put("proj/src/build.txt", "not a build folder\n", 0644);
    char *empty = s_p("proj/empty");
    CHECK_EQ_INT(wh_mkdir_p(empty), 0);
    free(empty);
    char *l1 = s_p("proj/link-a.c"), *l2 = s_p("proj/dangling");
    CHECK_EQ_INT(symlink("src/a.c", l1), 0);
    CHECK_EQ_INT(symlink("does/not/exist", l2), 0);
    free(l1);
    free(l2);
}

static void test_copy(void)
{
    char *src = s_p("proj"), *dst = s_p("copy"), *excl = s_p("proj/big-data");
    const char *exclude[] = {excl, NULL};
    char *err = NULL;
    CHECK_EQ_INT(wh_workspace_copy(src, dst, exclude, &err), 0);
    CHECK(err == NULL);
    free(err);

    char *t = s_get("copy/src/a.c");
    CHECK_EQ_STR(t, "int a;\n");
    free(t);
    t = s_get("copy/sub/b.h");
    CHECK_EQ_STR(t, "#define B 1\n");
    free(t);
    t = s_get("copy/src/build.txt");
    CHECK_EQ_STR(t, "not a build folder\n");
    free(t);
    CHECK_EQ_INT(s_mode("copy/src/run.sh") & 07777, 0755);
    CHECK_EQ_INT(s_mode("copy/src/private.txt") & 07777, 0600);
    CHECK(S_ISDIR(s_mode("copy/empty")));

    CHECK(S_ISLNK(s_mode("copy/link-a.c")));
    char *l = s_p("copy/link-a.c");
    char target[PATH_MAX];
    ssize_t n = readlink(l, target, sizeof target - 1);
    CHECK(n > 0);
    if (n > 0) {
        target[n] = '\0';
        CHECK_EQ_STR(target, "src/a.c");
    }
    free(l);
    CHECK(S_ISLNK(s_mode("copy/dangling")));

    CHECK(!s_exists("copy/.git"));
    CHECK(!s_exists("copy/sub/.git"));
    CHECK(!s_exists("copy/build"));
    CHECK(!s_exists("copy/whittle-runs"));
    CHECK(!s_exists("copy/big-data"));

    /* A destination that is not empty is refused, naming it. */
    err = NULL;
    CHECK(wh_workspace_copy(src, dst, NULL, &err) < 0);
    CHECK(err && strstr(err, dst));
    free(err);

    /* A source that does not exist: one line naming it. */
    char *missing = s_p("nope"), *dst2 = s_p("copy2");
    err = NULL;
    CHECK(wh_workspace_copy(missing, dst2, NULL, &err) < 0);
    CHECK(err && strstr(err, missing) && !strchr(err, '\n'));
    free(err);
    free(missing);
    free(dst2);

    free(src);
    free(dst);
    free(excl);
}

static void test_copy_into_itself(void)
{
    char *src = s_p("proj"), *dst = s_p("proj/inner-copy");
    char *err = NULL;
    CHECK_EQ_INT(wh_workspace_copy(src, dst, NULL, &err), 0);
    free(err);
    CHECK(s_exists("proj/inner-copy/src/a.c"));
    CHECK(!s_exists("proj/inner-copy/inner-copy"));
    /* Nothing excluded this time except the fixed rules. */
    CHECK(s_exists("proj/inner-copy/big-data/blob.bin"));
    CHECK(!s_exists("proj/inner-copy/build"));
    CHECK_EQ_INT(wh_rm_rf(dst), 0);
    free(src);
    free(dst);
}

static void s_hash(const char *rel, const char *const *exclude, char out[65])
{
    char *p = s_p(rel), *err = NULL;
    CHECK_EQ_INT(wh_workspace_hash(p, exclude, out, &err), 0);
    CHECK(err == NULL);
    CHECK_EQ_INT(strlen(out), 64);
    free(err);
    free(p);
}

static void test_hash(void)
{
    char *excl = s_p("proj/big-data");
    const char *exclude[] = {excl, NULL};
    char h0[65], h1[65], h2[65];
    s_hash("proj", exclude, h0);
    s_hash("proj", exclude, h1);
    CHECK_EQ_STR(h0, h1);

    /* The copy has the same content as what the walk of the source sees. */
    s_hash("copy", NULL, h1);
    CHECK_EQ_STR(h0, h1);

    /* Excluded, .git, build and run folders do not count. */
    s_put("proj/big-data/blob.bin", "other blob\n", 0644);
    s_put("proj/build/obj.o", "other object\n", 0644);
    s_put("proj/.git/HEAD", "ref: refs/heads/other\n", 0644);
    s_put("proj/whittle-runs/run2/log", "x\n", 0644);
    s_hash("proj", exclude, h1);
    CHECK_EQ_STR(h0, h1);

    /* But without the exclude list the big-data folder is content. */
    s_hash("proj", NULL, h2);
    CHECK(strcmp(h0, h2) != 0);

    /* Content, mode, a symlink's target and a new file all count. */
    s_put("proj/src/a.c", "int a = 1;\n", 0644);
    s_hash("proj", exclude, h1);
    CHECK(strcmp(h0, h1) != 0);
    s_put("proj/src/a.c", "int a;\n", 0644);
    s_hash("proj", exclude, h1);
    CHECK_EQ_STR(h0, h1);

    s_put("proj/src/run.sh", "#!/bin/sh\necho hi\n", 0644);
    s_hash("proj", exclude, h1);
    CHECK(strcmp(h0, h1) != 0);
    s_put("proj/src/run.sh", "#!/bin/sh\necho hi\n", 0755);
    /* Only the executable bit counts: a checkout under another umask (664
     * against 644, a group-writable folder) is the same project. */
    s_put("proj/src/a.c", "int a;\n", 0664);
    s_put("proj/src/run.sh", "#!/bin/sh\necho hi\n", 0775);
    char *dir = s_p("proj/src");
    CHECK_EQ_INT(chmod(dir, 0775), 0);
    s_hash("proj", exclude, h1);
    CHECK_EQ_STR(h0, h1);
    CHECK_EQ_INT(chmod(dir, 0755), 0);
    free(dir);
    s_put("proj/src/a.c", "int a;\n", 0644);
    s_put("proj/src/run.sh", "#!/bin/sh\necho hi\n", 0755);

    char *l = s_p("proj/dangling");
    unlink(l);
    CHECK_EQ_INT(symlink("elsewhere", l), 0);
    s_hash("proj", exclude, h1);
    CHECK(strcmp(h0, h1) != 0);
    unlink(l);
    CHECK_EQ_INT(symlink("does/not/exist", l), 0);
    free(l);
    s_hash("proj", exclude, h1);
    CHECK_EQ_STR(h0, h1);

    /* Moving content between files changes the hash (paths are framed). */
    s_put("proj/src/new.c", "", 0644);
    s_hash("proj", exclude, h1);
    CHECK(strcmp(h0, h1) != 0);

    char *missing = s_p("nope"), *err = NULL;
    CHECK(wh_workspace_hash(missing, NULL, h1, &err) < 0);
    CHECK(err && strstr(err, missing));
    free(err);
    free(missing);
    free(excl);
}

int main(void)
{
    snprintf(s_tmp, sizeof s_tmp, "/tmp/wh-workspace-XXXXXX");
    if (!mkdtemp(s_tmp))
        return 1;
    s_make_project();
    RUN_TEST(test_copy);
    RUN_TEST(test_copy_into_itself);
    RUN_TEST(test_hash);
    wh_rm_rf(s_tmp);
    TEST_MAIN_END();
}
