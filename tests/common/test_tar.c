/* wh_tar: a project packed and unpacked the same, the same bytes twice,
 * what packing refuses, and archives a hostile client forges (built here
 * by hand) refused without a byte written outside the destination. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "wh_common.h"
#include "wh_tar.h"
#include "wh_test.h"

static char s_root[256];

static void s_put(const char *rel, const char *text)
{
    char *p = wh_path_join(s_root, rel);
    char *slash = strrchr(p, '/');
    *slash = 0;
    wh_mkdir_p(p);
    *slash = '/';
    CHECK(wh_write_file(p, text, strlen(text)) == 0);
    free(p);
}

static int s_ignored(char *const *ignore, int n, const char *rel)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(ignore[i], rel))
            return 1;
    return 0;
}

static char *s_slurp(const char *dir, const char *rel)
{
    char *p = wh_path_join(dir, rel), *t = NULL;
    size_t n;
    if (wh_read_file(p, 1 << 20, &t, &n) != 0)
        t = NULL;
    free(p);
    return t;
}

static void test_round_trip(void)
{
    snprintf(s_root, sizeof s_root, "/tmp/wh_tar_%d/proj", (int)getpid());
    s_put("Makefile", "all:\n");
    s_put("src/a.c", "int a;\n");
    s_put("tests/test_a.c", "int main(void){return 1;}\n");
    char longname[400];
    snprintf(longname, sizeof longname, "deep/%0150d/%0120d.c", 1, 2);
    s_put(longname, "long\n");
    s_put(".git/HEAD", "ref\n");
    s_put("build/CMakeCache.txt", "x\n");
    s_put("notes.txt", "ignored\n");
    char *p = wh_path_join(s_root, "run.sh");
    wh_write_file(p, "#!/bin/sh\n", 10);
    chmod(p, 0775);
    free(p);
    p = wh_path_join(s_root, "inc");
    CHECK(symlink("src", p) == 0);
    free(p);
    char *ign[] = {"notes.txt"};
    uint8_t *a = NULL, *b = NULL;
    size_t al = 0, bl = 0;
    unsigned files = 0;
    char *err = NULL;
    CHECK_EQ_INT(wh_tar_pack(s_root, NULL, 0, s_ignored, ign, 1, NULL, &a, &al, &files, &err), 0);
    CHECK_EQ_INT(files, 5);
    CHECK_EQ_INT(wh_tar_pack(s_root, NULL, 0, s_ignored, ign, 1, NULL, &b, &bl, NULL, &err), 0);
    CHECK(al == bl && !memcmp(a, b, al)); /* the same files, the same bytes */
    char dest[300];
    snprintf(dest, sizeof dest, "/tmp/wh_tar_%d/out", (int)getpid());
    CHECK_EQ_INT(wh_tar_unpack(a, al, dest, NULL, &err), 0);
    char *t = s_slurp(dest, "tests/test_a.c");
    CHECK_EQ_STR(t, "int main(void){return 1;}\n");
    free(t);
    t = s_slurp(dest, longname);
    CHECK_EQ_STR(t, "long\n");
    free(t);
    t = s_slurp(dest, "inc/a.c"); /* through the link, inside */
    CHECK_EQ_STR(t, "int a;\n");
    free(t);
    char lk[64] = "";
    p = wh_path_join(dest, "inc");
    CHECK(readlink(p, lk, sizeof lk) == 3 && !strncmp(lk, "src", 3));
    free(p);
    struct stat st;
    p = wh_path_join(dest, "run.sh");
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0755);
    free(p);
    t = s_slurp(dest, ".git/HEAD");
    CHECK(t == NULL);
    t = s_slurp(dest, "build/CMakeCache.txt");
    CHECK(t == NULL);
    t = s_slurp(dest, "notes.txt");
    CHECK(t == NULL);
    /* a destination that exists is never unpacked into */
    CHECK(wh_tar_unpack(a, al, dest, NULL, &err) != 0);
    free(err);
    err = NULL;
    free(a);
    free(b);
}

static void test_pack_refusals(void)
{
    uint8_t *a = NULL;
    size_t al = 0;
    char *err = NULL;
    char *p = wh_path_join(s_root, "out-link");
    CHECK(symlink("/etc/passwd", p) == 0);
    CHECK_EQ_INT(wh_tar_pack(s_root, NULL, 0, NULL, NULL, 0, NULL, &a, &al, NULL, &err), WH_EINVAL);
    CHECK(err && strstr(err, "symlink ") && strstr(err, "out-link") && strstr(err, "/etc/passwd"));
    free(err);
    err = NULL;
    unlink(p);
    CHECK(symlink("../../x", p) == 0);
    CHECK_EQ_INT(wh_tar_pack(s_root, NULL, 0, NULL, NULL, 0, NULL, &a, &al, NULL, &err), WH_EINVAL);
    free(err);
    err = NULL;
    unlink(p);
    free(p);
    p = wh_path_join(s_root, "src/pipe");
    CHECK(mkfifo(p, 0600) == 0);
    CHECK_EQ_INT(wh_tar_pack(s_root, NULL, 0, NULL, NULL, 0, NULL, &a, &al, NULL, &err), WH_EINVAL);
    CHECK(err && strstr(err, "src/pipe is a fifo"));
    free(err);
    err = NULL;
    unlink(p);
    free(p);
    wh_tar_limits_t lim = {.max_packed = 64};
    CHECK_EQ_INT(wh_tar_pack(s_root, NULL, 0, NULL, NULL, 0, &lim, &a, &al, NULL, &err), WH_ETOOBIG);
    CHECK(err && strstr(err, "over the limit of 64 bytes") && strstr(err, s_root));
    free(err);
    err = NULL;
    CHECK(a == NULL);
}

/* ---- forged archives ---- */

typedef struct {
    const char *name;
    char type;
    const char *link;
    const char *data;
} s_ent_t;

static uint8_t *s_forge(const s_ent_t *e, int n, size_t *len)
{
    size_t cap = (size_t)(n + 2) * 1024 + 4096, used = 0;
    char *tar = calloc(1, cap);
    for (int i = 0; i < n; i++) {
        char *h = tar + used;
        size_t dl = e[i].data ? strlen(e[i].data) : 0;
        strncpy(h, e[i].name, 100);
        snprintf(h + 100, 8, "%07o", 0644);
        snprintf(h + 108, 8, "%07o", 0);
        snprintf(h + 116, 8, "%07o", 0);
        snprintf(h + 124, 12, "%011o", (unsigned)dl);
        snprintf(h + 136, 12, "%011o", 0);
        h[156] = e[i].type;
        if (e[i].link)
            strncpy(h + 157, e[i].link, 100);
        memcpy(h + 257, "ustar", 6);
        memcpy(h + 263, "00", 2);
        memset(h + 148, ' ', 8);
        unsigned sum = 0;
        for (int k = 0; k < 512; k++)
            sum += (unsigned char)h[k];
        snprintf(h + 148, 8, "%06o", sum);
        used += 512;
        if (dl) {
            memcpy(tar + used, e[i].data, dl);
            used += (dl + 511) / 512 * 512;
        }
    }
    used += 1024;
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    uint8_t *out = malloc(cap + 1024);
    z.next_in = (Bytef *)tar;
    z.avail_in = (uInt)used;
    z.next_out = out;
    z.avail_out = (uInt)(cap + 1024);
    deflate(&z, Z_FINISH);
    *len = z.total_out;
    deflateEnd(&z);
    free(tar);
    return out;
}

static void s_refused(const s_ent_t *e, int n, const char *want)
{
    char base[300], dest[320], esc[320];
    snprintf(base, sizeof base, "/tmp/wh_tar_%d/forged", (int)getpid());
    wh_rm_rf(base);
    wh_mkdir_p(base);
    snprintf(dest, sizeof dest, "%s/tree", base);
    snprintf(esc, sizeof esc, "%s/escaped", base);
    size_t len;
    uint8_t *t = s_forge(e, n, &len);
    char *err = NULL;
    int rc = wh_tar_unpack(t, len, dest, NULL, &err);
    CHECK(rc != 0);
    if (!err || !strstr(err, want))
        fprintf(stderr, "  wanted '%s' in: %s\n", want, err ? err : "(none)");
    CHECK(err && strstr(err, want) && !strchr(err, '\n'));
    CHECK(access(dest, F_OK) != 0); /* nothing left behind */
    CHECK(access(esc, F_OK) != 0);  /* nothing written outside */
    CHECK(access("/tmp/wh_tar_escaped_abs", F_OK) != 0);
    free(err);
    free(t);
}

static void test_forged(void)
{
    s_ent_t dotdot[] = {{"../escaped", '0', NULL, "pwned\n"}};
    s_refused(dotdot, 1, "entry '../escaped' has a '..' component");
    s_ent_t inner[] = {{"a/../../escaped", '0', NULL, "pwned\n"}};
    s_refused(inner, 1, "'..' component");
    s_ent_t abs[] = {{"/tmp/wh_tar_escaped_abs", '0', NULL, "pwned\n"}};
    s_refused(abs, 1, "an absolute path");
    s_ent_t abslink[] = {{"etc", '2', "/etc", NULL}};
    s_refused(abslink, 1, "symlink 'etc' points out of the snapshot (to '/etc')");
    s_ent_t uplink[] = {{"up", '2', "..", NULL}, {"up/escaped", '0', NULL, "pwned\n"}};
    s_refused(uplink, 2, "symlink 'up' points out");
    /* a link inside by spelling that leaves by resolution */
    s_ent_t loop[] = {{"d", '5', NULL, NULL}, {"d/here", '2', ".", NULL},
                      {"d/x", '2', "here/../..", NULL}};
    s_refused(loop, 3, "symlink 'd/x' leads out of the snapshot");
    /* writing through a link (inside) is refused too: no entry below a link */
    s_ent_t below[] = {{"src", '5', NULL, NULL}, {"l", '2', "src", NULL},
                       {"l/f.c", '0', NULL, "x\n"}};
    s_refused(below, 3, "entry 'l/f.c' lies below something that is not a folder");
    s_ent_t hard[] = {{"h", '1', "/etc/shadow", NULL}};
    s_refused(hard, 1, "is a hard link");
    s_ent_t dev[] = {{"null", '3', NULL, NULL}};
    s_refused(dev, 1, "is a device");
    s_ent_t twice[] = {{"f", '0', NULL, "a\n"}, {"f", '0', NULL, "b\n"}};
    s_refused(twice, 2, "entry 'f': given twice");
    uint8_t junk[100];
    memset(junk, 7, sizeof junk);
    char *err = NULL;
    char dest[300];
    snprintf(dest, sizeof dest, "/tmp/wh_tar_%d/junk", (int)getpid());
    CHECK(wh_tar_unpack(junk, sizeof junk, dest, NULL, &err) != 0);
    CHECK(err && strstr(err, "not a gzip'd tar"));
    CHECK(access(dest, F_OK) != 0);
    free(err);
    CHECK(wh_tar_sha_ok("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
    CHECK(!wh_tar_sha_ok("../3456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
}

int main(void)
{
    RUN_TEST(test_round_trip);
    RUN_TEST(test_pack_refusals);
    RUN_TEST(test_forged);
    char top[64];
    snprintf(top, sizeof top, "/tmp/wh_tar_%d", (int)getpid());
    wh_rm_rf(top);
    TEST_MAIN_END();
}
