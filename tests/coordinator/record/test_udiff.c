/*
 * test_udiff — coordinator/udiff.c: exact diffs for the edge cases, shortest
 * edit scripts (checked against an LCS table), and patch(1) round trips:
 * the diff applied to the old text gives the new text byte for byte.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udiff.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_diff(const char *a, const char *b, int ctx)
{
    return wh_udiff(a, strlen(a), b, strlen(b), "a/t.c", "b/t.c", ctx, NULL);
}

static void test_identical_and_empty(void)
{
    char *d = s_diff("", "", 3);
    CHECK_EQ_STR(d, "");
    free(d);
    d = s_diff("x\ny\n", "x\ny\n", 3);
    CHECK_EQ_STR(d, "");
    free(d);
    d = s_diff("x\ny", "x\ny", 3);
    CHECK_EQ_STR(d, "");
    free(d);
    d = s_diff("", "a\nb\n", 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -0,0 +1,2 @@\n+a\n+b\n");
    free(d);
}

static void test_all_removed(void)
{
    char *d = s_diff("a\nb\nc\n", "", 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n");
    int ad = -1, rm = -1;
    wh_udiff_count(d, &ad, &rm);
    CHECK_EQ_INT(ad, 0);
    CHECK_EQ_INT(rm, 3);
    free(d);
}

static void test_no_trailing_newline(void)
{
    char *d = s_diff("a\nb", "a\nc", 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
                    "+c\n\\ No newline at end of file\n");
    free(d);
    d = s_diff("a\nb", "a\nb\n", 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
                    "+b\n");
    free(d);
    d = s_diff("only", "", 0);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -1 +0,0 @@\n-only\n\\ No newline at end of file\n");
    free(d);
}

/* CRLF line ends stay part of their lines, and patch(1) keeps them. */
static void test_crlf(void)
{
    const char *a = "int a;\r\nint b;\r\nint c;\r\n", *b = "int a;\r\nint c;\r\n";
    char *d = s_diff(a, b, 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -1,3 +1,2 @@\n int a;\r\n-int b;\r\n int c;\r\n");
    char dir[] = "/tmp/wh_udiff_crlf_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *f = wh_strdup_printf("%s/t.c", dir), *p = wh_strdup_printf("%s/d", dir);
    wh_write_file(f, a, strlen(a));
    wh_write_file(p, d, strlen(d));
    char *cmd = wh_strdup_printf("patch -s %s < %s", f, p);
    CHECK(system(cmd) == 0);
    char *got = NULL;
    size_t len = 0;
    CHECK(wh_read_file(f, 1 << 16, &got, &len) == 0);
    CHECK_EQ_STR(got, b);
    wh_rm_rf(dir);
    free(got);
    free(cmd);
    free(f);
    free(p);
    free(d);
}

/* 20 numbered lines with lines `drop` (1-based, 0-terminated) removed. */
static char *s_numbered(const int *drop)
{
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 1; i <= 20; i++) {
        int skip = 0;
        for (const int *p = drop; *p; p++)
            skip |= *p == i;
        if (!skip)
            wh_buf_printf(&b, "line %d\n", i);
    }
    return wh_buf_detach(&b);
}

static void test_hunks_and_context(void)
{
    static const int none[] = {0}, far[] = {3, 18, 0}, near[] = {5, 11, 0};
    char *a = s_numbered(none), *b = s_numbered(far), *c = s_numbered(near);
    char *d = s_diff(a, b, 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n"
                    "@@ -1,6 +1,5 @@\n line 1\n line 2\n-line 3\n line 4\n line 5\n line 6\n"
                    "@@ -15,6 +14,5 @@\n line 15\n line 16\n line 17\n-line 18\n line 19\n line 20\n");
    free(d);
    /* 5 unchanged lines between the changes: within 2 * 3, one hunk */
    d = s_diff(a, c, 3);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n"
                    "@@ -2,13 +2,11 @@\n line 2\n line 3\n line 4\n-line 5\n line 6\n line 7\n"
                    " line 8\n line 9\n line 10\n-line 11\n line 12\n line 13\n line 14\n");
    free(d);
    d = s_diff(a, c, 0);
    CHECK_EQ_STR(d, "--- a/t.c\n+++ b/t.c\n@@ -5 +4,0 @@\n-line 5\n@@ -11 +9,0 @@\n-line 11\n");
    free(d);
    free(a);
    free(b);
    free(c);
}

static unsigned s_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* A random text of up to 30 lines from a 4-line alphabet; sometimes without
 * the last '\n'. */
static char *s_random_text(unsigned *seed, int *nlines, char lines[][8])
{
    int n = (int)(s_rand(seed) % 31);
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < n; i++) {
        snprintf(lines[i], 8, "%c", 'p' + (int)(s_rand(seed) % 4));
        wh_buf_printf(&b, "%s\n", lines[i]);
    }
    if (n && s_rand(seed) % 4 == 0) {
        b.len--;
        b.buf[b.len] = '\0';
        lines[n - 1][1] = '$'; /* differs from the same letter with '\n' */
        lines[n - 1][2] = '\0';
    }
    *nlines = n;
    return wh_buf_detach(&b);
}

static int s_lcs(char a[][8], int na, char b[][8], int nb)
{
    static int t[32][32];
    for (int i = na; i >= 0; i--)
        for (int j = nb; j >= 0; j--)
            t[i][j] = i == na || j == nb ? 0
                      : !strcmp(a[i], b[j]) ? 1 + t[i + 1][j + 1]
                      : t[i + 1][j] > t[i][j + 1] ? t[i + 1][j] : t[i][j + 1];
    return t[0][0];
}

/* Applies diff to old text with patch(1), both as `patch FILE` and as
 * `patch -p1` in a project folder; 1 when each gives want exactly. */
static int s_patch_gives(const char *dir, const char *old, const char *diff, const char *want)
{
    char *f = wh_strdup_printf("%s/plain.c", dir), *d = wh_strdup_printf("%s/d.diff", dir);
    char *proj = wh_strdup_printf("%s/proj/t.c", dir);
    wh_write_file(f, old, strlen(old));
    wh_write_file(proj, old, strlen(old));
    wh_write_file(d, diff, strlen(diff));
    char *cmd = wh_strdup_printf("patch -s %s < %s && cd %s/proj && patch -s -p1 < %s", f, d, dir,
                                 d);
    int ok = system(cmd) == 0;
    for (int k = 0; k < 2 && ok; k++) {
        char *got = NULL;
        size_t len = 0;
        ok = wh_read_file(k ? proj : f, 1 << 20, &got, &len) == 0 && len == strlen(want) &&
             !memcmp(got, want, len);
        free(got);
    }
    free(cmd);
    free(f);
    free(d);
    free(proj);
    return ok;
}

static void test_random_minimal_and_patch(void)
{
    char dir[] = "/tmp/wh_udiff_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *pd = wh_strdup_printf("%s/proj", dir);
    wh_mkdir_p(pd);
    free(pd);
    unsigned seed = 12345;
    int minimal = 0, patched = 0, with_changes = 0;
    for (int round = 0; round < 150; round++) {
        char la[32][8], lb[32][8];
        int na, nb;
        char *a = s_random_text(&seed, &na, la), *b = s_random_text(&seed, &nb, lb);
        char *d = s_diff(a, b, round % 4);
        int ad = 0, rm = 0;
        wh_udiff_count(d, &ad, &rm);
        int lcs = s_lcs(la, na, lb, nb);
        minimal += ad == nb - lcs && rm == na - lcs;
        if (*d) {
            with_changes++;
            if (s_patch_gives(dir, a, d, b))
                patched++;
            else
                fprintf(stderr, "patch failed:\n--- old\n%s\n--- new\n%s\n--- diff\n%s", a, b, d);
        }
        free(a);
        free(b);
        free(d);
    }
    CHECK_EQ_INT(minimal, 150);
    CHECK(with_changes > 140);
    CHECK_EQ_INT(patched, with_changes);
    char *rm = wh_strdup_printf("rm -rf %s", dir);
    CHECK(system(rm) == 0);
    free(rm);
}

/* Two 3000-line files with every tenth line gone: linear space, quick. */
static void test_large(void)
{
    wh_buf_t a = WH_BUF_INIT, b = WH_BUF_INIT;
    for (int i = 0; i < 3000; i++) {
        wh_buf_printf(&a, "statement_%d();\n", i);
        if (i % 10)
            wh_buf_printf(&b, "statement_%d();\n", i);
    }
    size_t len = 0;
    char *d = wh_udiff(a.buf, a.len, b.buf, b.len, "a/x", "b/x", 3, &len);
    int ad = -1, rm = -1;
    wh_udiff_count(d, &ad, &rm);
    CHECK_EQ_INT(ad, 0);
    CHECK_EQ_INT(rm, 300);
    CHECK_EQ_INT(strlen(d), len);
    free(d);
    wh_buf_free(&a);
    wh_buf_free(&b);
}

int main(void)
{
    RUN_TEST(test_identical_and_empty);
    RUN_TEST(test_all_removed);
    RUN_TEST(test_no_trailing_newline);
    RUN_TEST(test_hunks_and_context);
    RUN_TEST(test_crlf);
    RUN_TEST(test_random_minimal_and_patch);
    RUN_TEST(test_large);
    TEST_MAIN_END();
}
