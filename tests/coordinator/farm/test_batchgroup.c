/* batchgroup: root-cause keys of a batch's failures before reducing. */
#include <stdlib.h>
#include <string.h>

#include "batchgroup.h"
#include "wh_common.h"
#include "wh_test.h"

static char *s_key(const char *kind, const char *loc, const char *msg, const char *test,
                   const char *file)
{
    wh_fp_t f = {0};
    f.kind = (char *)kind;
    f.location = (char *)loc;
    f.message = (char *)msg;
    f.test = (char *)test;
    return wh_bg_key(&f, file);
}

/* Two tests tripping over one library function, each from its own file
 * and function (libcbor's maps.c with a seeded overflow): one key. */
static void test_sanitizer_frames_outside_the_test(void)
{
    static const char kind[] = "sanitizer(asan,heap-buffer-overflow,WRITE)";
    char *a = s_key(kind, "maps.c:64",
                    "_cbor_map_add_key@maps.c:64 < cbor_map_add@maps.c:110 < "
                    "test_serialize_definite_map@cbor_serialize_test.c:405",
                    "test_serialize_definite_map", "test/cbor_serialize_test.c");
    char *b = s_key(kind, "maps.c:64",
                    "_cbor_map_add_key@maps.c:64 < cbor_map_add@maps.c:110 < "
                    "build_map@map_get_test.c:55 < test_get_existing_key@map_get_test.c:70",
                    "test_get_existing_key", "test/map_get_test.c");
    /* reached through another library path: another root cause */
    char *c = s_key(kind, "maps.c:64",
                    "_cbor_map_add_key@maps.c:64 < _cbor_builder_append@builder_callbacks.c:78 < "
                    "cbor_builder_uint8_callback@builder_callbacks.c:150",
                    "test_simple_map", "test/map_test.c");
    CHECK(a && b && c);
    CHECK_EQ_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    CHECK(strstr(a, "cbor_serialize_test") == NULL);
    /* without the test file, the whole stack counts: two keys */
    char *d = s_key(kind, "maps.c:64",
                    "_cbor_map_add_key@maps.c:64 < cbor_map_add@maps.c:110 < "
                    "test_serialize_definite_map@cbor_serialize_test.c:405",
                    "test_serialize_definite_map", NULL);
    CHECK(d && strcmp(a, d) != 0);
    free(a), free(b), free(c), free(d);
}

static void test_outside(void)
{
    char *s = wh_bg_outside("f@t.c:3 < g@lib.c:9", "src/t.c");
    CHECK_EQ_STR(s, "f@t.c:3 < g@lib.c:9"); /* the top frame always stays */
    free(s);
    s = wh_bg_outside("f@lib.c:3 < g@t.c:9 < h@lib.c:1", "t.c");
    CHECK_EQ_STR(s, "f@lib.c:3");
    free(s);
    s = wh_bg_outside("f@lib.c:3 < g@xt.c:9", "t.c"); /* xt.c is not t.c */
    CHECK_EQ_STR(s, "f@lib.c:3 < g@xt.c:9");
    free(s);
    s = wh_bg_outside("7 != 6", "t.c"); /* no frames */
    CHECK_EQ_STR(s, "7 != 6");
    free(s);
}

/* A helper's assertion keeps its message: the values are masked, the
 * test's name too; a crash that names no line has no key. */
static void test_helper_and_no_line(void)
{
    char *a = s_key("assert", "helper.c:12", "value 7 != 6 in test_one", "test_one", "t.c");
    char *b = s_key("assert", "helper.c:12", "value 9 != 8 in test_two", "test_two", "t.c");
    char *c = s_key("assert", "helper.c:12", "value 9 != -8 in test_two", "test_two", "t.c");
    CHECK(a && b && c);
    CHECK_EQ_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    CHECK(s_key("crash", "", "Segmentation fault", "test_one", "t.c") == NULL);
    free(a), free(b), free(c);
}

static void test_group_smallest_leads(void)
{
    char *keys[] = {"k1", NULL, "k1", "k2", "k1"};
    int size[] = {30, 5, 10, -1, 10};
    size_t rep[5];
    CHECK(wh_bg_group(keys, size, 5, rep) == 3);
    CHECK(rep[0] == 2 && rep[2] == 2 && rep[4] == 2); /* first of the equals */
    CHECK(rep[1] == 1 && rep[3] == 3);
}

int main(void)
{
    RUN_TEST(test_sanitizer_frames_outside_the_test);
    RUN_TEST(test_outside);
    RUN_TEST(test_helper_and_no_line);
    RUN_TEST(test_group_smallest_leads);
    TEST_MAIN_END();
}
