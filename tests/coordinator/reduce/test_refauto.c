/*
 * test_refauto — what `--reference auto` picks (refauto.h), in real
 * temporary git repositories: HEAD when a tracked file outside the test
 * changed (staged or not), the merge base with the upstream branch when
 * the bug is commits on a branch, none (and why) otherwise; a folder that
 * is no git project, or one inside a repository that does not track its
 * test file, is not one. The pick never writes to the repository.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "refauto.h"
#include "wh_common.h"
#include "wh_spawn.h"
#include "wh_test.h"

static void s_write(const char *dir, const char *rel, const char *text)
{
    char *p = wh_path_join(dir, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(p);
}

/* git -C dir ARGS... (NULL-terminated): its exit status. */
static int s_git(const char *dir, ...)
{
    const char *argv[16] = {"git", "-C", dir};
    int n = 3;
    va_list ap;
    va_start(ap, dir);
    for (const char *a; n < 15 && (a = va_arg(ap, const char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return wh_spawn_run(argv, NULL, NULL, 0);
}

/* `git -C dir rev-parse REV`, malloc'ed. */
static char *s_rev(const char *dir, const char *rev)
{
    const char *argv[] = {"git", "-C", dir, "rev-parse", rev, NULL};
    return wh_spawn_line(argv);
}

/* A repository with a library and a test, one commit on main. */
static char *s_repo(const char *root, const char *name)
{
    char *d = wh_path_join(root, name), *src = wh_path_join(d, "src");
    wh_mkdir_p(src);
    s_write(d, "src/lib.c", "int lib(void) { return 1; }\n");
    s_write(d, "t.c", "void t(void) {}\n");
    CHECK_EQ_INT(s_git(d, "init", "-q", "-b", "main", NULL), 0);
    CHECK_EQ_INT(s_git(d, "add", "src/lib.c", "t.c", NULL), 0);
    CHECK_EQ_INT(s_git(d, "commit", "-q", "-m", "one", NULL), 0);
    free(src);
    return d;
}

/* The index file's mtime and content, to show nothing wrote it. */
static char *s_index_state(const char *repo)
{
    char *p = wh_path_join(repo, ".git/index"), *data = NULL;
    size_t len = 0;
    struct stat st;
    char *out = NULL;
    if (stat(p, &st) == 0 && wh_read_file(p, 1u << 24, &data, &len) == 0) {
        char hex[65];
        wh_sha256_hex(data, len, hex);
        out = wh_strdup_printf("%lld.%09ld %s", (long long)st.st_mtim.tv_sec,
                               st.st_mtim.tv_nsec, hex);
    }
    free(data);
    free(p);
    return out;
}

static void test_not_git(const char *root)
{
    char *d = wh_path_join(root, "plain");
    wh_mkdir_p(d);
    s_write(d, "t.c", "void t(void) {}\n");
    wh_refauto_t a;
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_INT(a.git, 0);
    CHECK(a.rev == NULL);
    CHECK_EQ_STR(a.why, "not a git project: the test file is not tracked by git");
    wh_refauto_clear(&a);
    /* The job: no reference, and the console line says why (issue 33
     * item 7: nothing at the start of a run outside git said it). */
    wh_job_t j;
    wh_job_init(&j);
    j.project = strdup(d);
    j.file = strdup("t.c");
    char *line = NULL;
    CHECK_EQ_INT(wh_refauto_apply(&j, 0, &line), 0);
    CHECK_EQ_STR(line, "reference: none (not a git project: the test file is not tracked by git)");
    CHECK(j.reference == NULL && j.ref_picked == NULL);
    CHECK_EQ_STR(j.ref_why, "not a git project: the test file is not tracked by git");
    free(line);
    wh_job_clear(&j);
    free(d);
}

/* A project copied into another repository's folder, not tracked there. */
static void test_inside_other_repo(const char *root)
{
    char *outer = s_repo(root, "outer");
    char *d = wh_path_join(outer, "copy");
    wh_mkdir_p(d);
    s_write(d, "t.c", "void t(void) {}\n");
    s_write(outer, "src/lib.c", "int lib(void) { return 2; }\n"); /* the outer one changed */
    wh_refauto_t a;
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_INT(a.git, 0);
    CHECK(a.rev == NULL);
    wh_refauto_clear(&a);
    free(d);
    free(outer);
}

static void test_head(const char *root)
{
    char *d = s_repo(root, "head");
    char *head = s_rev(d, "HEAD");
    char *before = s_index_state(d);
    wh_refauto_t a;
    /* Nothing changed, no upstream: none. */
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_INT(a.git, 1);
    CHECK(a.rev == NULL);
    CHECK_EQ_STR(a.why, "no uncommitted change and no upstream branch");
    wh_refauto_clear(&a);
    /* The user's edits to the test itself do not count. */
    s_write(d, "t.c", "void t(void) { int x = 0; (void)x; }\n");
    s_write(d, "notes.txt", "untracked\n");
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK(a.rev == NULL);
    wh_refauto_clear(&a);
    /* A library change: HEAD, given relative to the current folder too. */
    s_write(d, "src/lib.c", "int lib(void) { return 2; }\n");
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_STR(a.rev, head);
    CHECK_EQ_STR(a.name, "HEAD");
    CHECK_EQ_STR(a.why, "a tracked file outside the test changed: src/lib.c");
    wh_refauto_clear(&a);
    char *abs = wh_path_join(d, "t.c");
    CHECK_EQ_INT(wh_refauto_pick(d, abs, &a), 0);
    CHECK_EQ_STR(a.rev, head);
    wh_refauto_clear(&a);
    free(abs);
    char *after = s_index_state(d);
    CHECK(before && after && !strcmp(before, after));
    free(after);
    /* Staged and deleted count as well. */
    s_write(d, "src/lib.c", "int lib(void) { return 1; }\n");
    s_write(d, "src/new.c", "int n;\n");
    CHECK_EQ_INT(s_git(d, "add", "src/new.c", NULL), 0);
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_STR(a.rev, head);
    CHECK_EQ_STR(a.why, "a tracked file outside the test changed: src/new.c");
    wh_refauto_clear(&a);
    /* The job: HEAD's commit id, what and why, and the console line. */
    wh_job_t j;
    wh_job_init(&j);
    j.project = strdup(d);
    j.file = strdup("t.c");
    char *line = NULL;
    CHECK_EQ_INT(wh_refauto_apply(&j, 0, &line), 0);
    CHECK_EQ_STR(j.reference, head);
    char *want = wh_strdup_printf("reference: HEAD %.12s (a tracked file outside the test "
                                  "changed: src/new.c); --reference none to turn it off", head);
    CHECK_EQ_STR(line, want);
    free(want);
    free(line);
    /* With a cluster and no --snapshot git: none, said why. */
    free(j.reference);
    j.reference = NULL;
    CHECK_EQ_INT(wh_refauto_apply(&j, 1, &line), 0);
    CHECK(j.reference == NULL);
    CHECK(line && strstr(line, "reference: none (with --cluster, auto needs --snapshot git"));
    free(line);
    /* --reference none. */
    j.reference = strdup("none");
    CHECK_EQ_INT(wh_refauto_apply(&j, 0, &line), 0);
    CHECK(j.reference == NULL);
    CHECK_EQ_STR(line, "reference: none (--reference none)");
    free(line);
    /* A given revision is left alone. */
    j.reference = strdup("HEAD~0");
    CHECK_EQ_INT(wh_refauto_apply(&j, 0, &line), 0);
    CHECK_EQ_STR(j.reference, "HEAD~0");
    CHECK(line == NULL);
    wh_job_clear(&j);
    free(before);
    free(head);
    free(d);
}

/* The bug is a commit on a branch: the merge base with the upstream. */
static void test_merge_base(const char *root)
{
    char *up = s_repo(root, "upstream");
    char *base = s_rev(up, "HEAD");
    char *d = wh_path_join(root, "clone");
    const char *clone[] = {"git", "clone", "-q", up, d, NULL};
    CHECK_EQ_INT(wh_spawn_run(clone, NULL, NULL, 0), 0);
    wh_refauto_t a;
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK(a.rev == NULL); /* HEAD is the upstream's */
    CHECK_EQ_STR(a.why, "no uncommitted change and no commit on HEAD that origin/main lacks");
    wh_refauto_clear(&a);
    s_write(d, "src/lib.c", "int lib(void) { return 2; }\n");
    CHECK_EQ_INT(s_git(d, "commit", "-q", "-a", "-m", "bug", NULL), 0);
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_STR(a.rev, base);
    CHECK_EQ_STR(a.name, "the merge base with origin/main");
    CHECK_EQ_STR(a.why, "no uncommitted change; HEAD has 1 commit that origin/main lacks");
    wh_refauto_clear(&a);
    /* An uncommitted change on top: HEAD first. */
    s_write(d, "src/lib.c", "int lib(void) { return 3; }\n");
    char *head = s_rev(d, "HEAD");
    CHECK_EQ_INT(wh_refauto_pick(d, "t.c", &a), 0);
    CHECK_EQ_STR(a.rev, head);
    wh_refauto_clear(&a);
    free(head);
    free(d);
    free(base);
    free(up);
}

int main(void)
{
    /* Commits need a name; nothing of the user's configuration applies. */
    setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("GIT_AUTHOR_NAME", "t", 1);
    setenv("GIT_AUTHOR_EMAIL", "t@example.org", 1);
    setenv("GIT_COMMITTER_NAME", "t", 1);
    setenv("GIT_COMMITTER_EMAIL", "t@example.org", 1);
    char tmpl[] = "/tmp/wh-refauto-XXXXXX";
    char *root = mkdtemp(tmpl);
    CHECK(root != NULL);
    if (!root)
        return 1;
    test_not_git(root);
    test_inside_other_repo(root);
    test_head(root);
    test_merge_base(root);
    wh_rm_rf(root);
    TEST_MAIN_END();
}
