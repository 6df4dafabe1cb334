/*
 * Tests of common/compdb.c: shell splitting, lookup by file in `command`
 * and `arguments` databases, the search of a workspace, the move of a
 * command from a workspace to the project, and the JSON form.
 */
#define _GNU_SOURCE
#include "compdb.h"
#include "wh_common.h"
#include "wh_test.h"

#include <stdlib.h>
#include <string.h>

static void s_write(const char *dir, const char *name, const char *content)
{
    char *p = wh_path_join(dir, name);
    CHECK_EQ_INT(wh_write_file(p, content, strlen(content)), 0);
    free(p);
}

static char *s_join_argv(const wh_compile_cmd_t *c)
{
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < c->argc; i++)
        wh_buf_printf(&b, "%s[%s]", i ? " " : "", c->argv[i]);
    return wh_buf_detach(&b);
}

static void test_split(void)
{
    char **v = NULL;
    int n = wh_compdb_split("cc  -DX=\"a b\" 'it'\\''s' -I\"inc dir\" x\\ y.c ", &v);
    CHECK_EQ_INT(n, 5);
    if (n == 5) {
        CHECK_EQ_STR(v[0], "cc");
        CHECK_EQ_STR(v[1], "-DX=a b");
        CHECK_EQ_STR(v[2], "it's");
        CHECK_EQ_STR(v[3], "-Iinc dir");
        CHECK_EQ_STR(v[4], "x y.c");
        CHECK(v[5] == NULL);
    }
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
    CHECK_EQ_INT(wh_compdb_split("   ", &v), 0);
    CHECK(v && v[0] == NULL);
    free(v);
}

static void test_lookup_and_rebase(void)
{
    char tmpl[] = "/tmp/wh_compdb_test_XXXXXX";
    char *root = mkdtemp(tmpl);
    CHECK(root != NULL);
    if (!root)
        return;
    /* A "workspace" ws and a "project" proj, copies of the same tree. The
     * workspace also has a build folder with a generated header folder. */
    char *ws = wh_path_join(root, "ws"), *proj = wh_path_join(root, "proj");
    char *wsb = wh_path_join(ws, "build/gen"), *wst = wh_path_join(ws, "tests"),
         *wsi = wh_path_join(ws, "include/lib");
    char *pt = wh_path_join(proj, "tests"), *pi = wh_path_join(proj, "include/lib");
    CHECK_EQ_INT(wh_mkdir_p(wsb) | wh_mkdir_p(wst) | wh_mkdir_p(wsi) | wh_mkdir_p(pt) |
                     wh_mkdir_p(pi), 0);
    s_write(wst, "t.c", "int main(void) { return 0; }\n");
    s_write(pt, "t.c", "int main(void) { return 0; }\n");
    char *db = wh_strdup_printf(
        "[{\"directory\": \"%s/build\", \"command\": \"cc -o x.o -c ../src/other.c\","
        " \"file\": \"../src/other.c\"},\n"
        " {\"directory\": \"%s/build\", \"command\": \"/usr/bin/cc -DA=\\\"1 2\\\" -I../include "
        "-isystem %s/build/gen -Igen -o t.o -c ../tests/t.c\", \"file\": \"../tests/t.c\"}]\n",
        ws, ws, ws);
    char *wsbuild = wh_path_join(ws, "build");
    s_write(wsbuild, "compile_commands.json", db);
    free(db);

    char *tfile = wh_path_join(ws, "tests/t.c");
    wh_compile_cmd_t c = {0};
    char *err = NULL, *found = NULL;
    CHECK_EQ_INT(wh_compdb_find(ws, tfile, &c, &found), 0);
    char *want_db = wh_path_join(wsbuild, "compile_commands.json");
    CHECK_EQ_STR(found, want_db);
    free(want_db);
    free(found);
    CHECK_EQ_INT(c.argc, 10);
    CHECK_EQ_STR(c.file, tfile);
    CHECK_EQ_STR(c.directory, wsbuild);
    char *s = s_join_argv(&c);
    char *want = wh_strdup_printf("[/usr/bin/cc] [-DA=1 2] [-I../include] [-isystem] [%s/build/gen] "
                                  "[-Igen] [-o] [t.o] [-c] [../tests/t.c]", ws);
    CHECK(strncmp(s, want, strlen(want)) == 0);
    free(s);
    free(want);

    /* Moved to the project: -I../include exists there; the generated
     * folder exists only in the workspace and stays; the build folder
     * does not exist in the project, so the directory becomes its root. */
    CHECK_EQ_INT(wh_compile_cmd_rebase(&c, ws, proj), 0);
    s = s_join_argv(&c);
    want = wh_strdup_printf("[/usr/bin/cc] [-DA=1 2] [-I%s/include] [-I%s/include] [-isystem] "
                            "[%s/build/gen] [-I%s/build/gen] [-o] [t.o] [-c] [%s/tests/t.c]",
                            proj, ws, ws, ws, proj);
    CHECK(strncmp(s, want, strlen(want)) == 0);
    if (strncmp(s, want, strlen(want)) != 0)
        fprintf(stderr, "got  %s\nwant %s\n", s, want);
    free(s);
    free(want);
    char *pfile = wh_path_join(proj, "tests/t.c");
    CHECK_EQ_STR(c.file, pfile);
    CHECK_EQ_STR(c.directory, proj);

    /* JSON round trip. */
    char *js = wh_compile_cmd_to_json(&c);
    wh_compile_cmd_t d = {0};
    CHECK_EQ_INT(wh_compile_cmd_from_json(js, &d), 0);
    CHECK_EQ_INT(d.argc, c.argc);
    CHECK_EQ_STR(d.file, c.file);
    CHECK_EQ_STR(d.argv[2], c.argv[2]);
    free(js);
    wh_compile_cmd_clear(&d);
    CHECK_EQ_INT(wh_compile_cmd_from_json("{}", &d), 0);
    CHECK_EQ_INT(d.argc, 0);
    CHECK_EQ_INT(wh_compile_cmd_from_json("[1]", &d), WH_EPARSE);
    wh_compile_cmd_clear(&c);

    /* bear's database ("arguments") in the root comes first. */
    db = wh_strdup_printf("[{\"directory\": \"%s\", \"arguments\": [\"gcc\", \"-DBEAR\", \"-c\", "
                          "\"tests/t.c\"], \"file\": \"tests/t.c\"}]", ws);
    s_write(ws, WH_COMPDB_BEAR_NAME, db);
    free(db);
    CHECK_EQ_INT(wh_compdb_find(ws, tfile, &c, NULL), 0);
    CHECK_EQ_INT(c.argc, 4);
    if (c.argc == 4)
        CHECK_EQ_STR(c.argv[1], "-DBEAR");
    wh_compile_cmd_clear(&c);

    /* No entry for the file; a broken database names itself. */
    char *other = wh_path_join(ws, "tests/none.c");
    CHECK_EQ_INT(wh_compdb_find(ws, other, &c, NULL), WH_ENOTFOUND);
    s_write(ws, "bad.json", "{not json");
    char *bad = wh_path_join(ws, "bad.json");
    CHECK_EQ_INT(wh_compdb_lookup(bad, tfile, &c, &err), WH_EPARSE);
    CHECK(err && strstr(err, bad));
    free(err);
    free(bad);
    free(other);

    CHECK_EQ_INT(wh_rm_rf(root), 0);
    free(ws);
    free(proj);
    free(wsb);
    free(wst);
    free(wsi);
    free(pt);
    free(pi);
    free(wsbuild);
    free(tfile);
    free(pfile);
}

int main(void)
{
    RUN_TEST(test_split);
    RUN_TEST(test_lookup_and_rebase);
    TEST_MAIN_END();
}
