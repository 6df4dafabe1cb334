/*
 * Tests of crash and sanitizer identity (node/fw_console.c) and of message
 * normalization (node/oracle.c), and of how wh_evaluate uses them: the
 * sanitizer options it sets for the test run, per-run log files, a
 * sanitizer report overriding the framework's result, a signal death
 * without a report becoming crash(SIGxxx).
 *
 * The logs in tests/data/reports/{asan,ubsan}-* are real: gcc 12 and
 * clang 14 (Debian 12) builds of asan-src-ring.c + asan-src-test_ring.c
 * (cmocka) and asan-src-segv.c with -g -fsanitize=address,undefined, built
 * in /tmp/whws/slot0 (gcc records relative source paths, clang absolute
 * ones), run with log_path set. ubsan-gcc-*.console.txt is stderr: gcc's
 * combined ASan+UBSan runtime ignores log_path for UBSan reports.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "framework.h"
#include "oracle.h"
#include "wh_common.h"
#include "wh_test.h"

#define ROOT "/tmp/whws/slot0"

static char *s_data(const char *name, size_t *len)
{
    const char *src = getenv("WH_SOURCE_DIR");
    char *path = wh_strdup_printf("%s/tests/data/reports/%s", src ? src : ".", name);
    char *buf = NULL;
    *len = 0;
    if (wh_read_file(path, 1 << 20, &buf, len) != 0)
        fprintf(stderr, "cannot read %s\n", path);
    free(path);
    return buf;
}

static char *s_data_path(const char *name)
{
    const char *src = getenv("WH_SOURCE_DIR");
    return wh_strdup_printf("%s/tests/data/reports/%s", src ? src : ".", name);
}

/* ---- parsing ---- */

static void test_parse_samples(void)
{
    static const struct {
        const char *file, *root, *kind, *loc, *msg;
    } cases[] = {
        {"asan-gcc-heap-buffer-overflow.log", ROOT, "sanitizer(asan,heap-buffer-overflow,WRITE)",
         "ring.c:6", "ring_push@ring.c:6 < test_overflow@test_ring.c:9 < main@test_ring.c:22"},
        {"asan-clang-heap-buffer-overflow.log", ROOT, "sanitizer(asan,heap-buffer-overflow,WRITE)",
         "ring.c:6", "ring_push@ring.c:6 < test_overflow@test_ring.c:9 < main@test_ring.c:22"},
        {"asan-gcc-heap-use-after-free.log", ROOT, "sanitizer(asan,heap-use-after-free,READ)",
         "ring.c:9", "ring_after_free@ring.c:9 < test_uaf@test_ring.c:11 < main@test_ring.c:22"},
        {"asan-clang-heap-use-after-free.log", ROOT, "sanitizer(asan,heap-use-after-free,READ)",
         "ring.c:9", "ring_after_free@ring.c:9 < test_uaf@test_ring.c:11 < main@test_ring.c:22"},
        {"asan-gcc-segv.log", ROOT, "sanitizer(asan,SEGV,WRITE)", "ring.c:6",
         "ring_push@ring.c:6 < main@segv.c:2"},
        {"asan-gcc-leak.log", ROOT, "sanitizer(lsan,direct-leak)", "ring.c:11",
         "leak@ring.c:11 < test_leak@test_ring.c:13"},
        {"ubsan-clang-signed-integer-overflow.log", ROOT, "sanitizer(ubsan,signed-integer-overflow)",
         "ring.c:10", "add@ring.c:10 < test_ub@test_ring.c:12 < main@test_ring.c:22"},
        {"ubsan-clang-nullptr-with-offset.log", ROOT, "sanitizer(ubsan,nullptr-with-offset)",
         "ring.c:6", "ring_push@ring.c:6 < test_null@test_ring.c:10 < main@test_ring.c:22"},
        {"ubsan-gcc-signed-integer-overflow.console.txt", ROOT,
         "sanitizer(ubsan,signed-integer-overflow)", "ring.c:10",
         "add@ring.c:10 < test_ub@test_ring.c:12 < main@test_ring.c:22"},
        /* Without a root: anything outside the system folders. */
        {"asan-clang-heap-buffer-overflow.log", NULL, "sanitizer(asan,heap-buffer-overflow,WRITE)",
         "ring.c:6", "ring_push@ring.c:6 < test_overflow@test_ring.c:9 < main@test_ring.c:22"},
        /* Another workspace: clang's absolute paths are not project code
         * there; the identity keeps the kind. */
        {"asan-clang-heap-buffer-overflow.log", "/elsewhere",
         "sanitizer(asan,heap-buffer-overflow,WRITE)", "", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *t = s_data(cases[i].file, &len);
        wh_fp_t fp = {0};
        CHECK_EQ_INT(wh_san_parse(t, len, cases[i].root, &fp), 1);
        CHECK_EQ_STR(fp.kind, cases[i].kind);
        CHECK_EQ_STR(fp.location, cases[i].loc);
        CHECK_EQ_STR(fp.message, cases[i].msg);
        CHECK(fp.test == NULL);
        wh_fp_clear(&fp);
        free(t);
    }
}

static void test_parse_shapes(void)
{
    wh_fp_t fp = {0};
    const char *none = "[ RUN ] t\n[ OK ] t\nruntime error in the docs\n";
    CHECK_EQ_INT(wh_san_parse(none, strlen(none), NULL, &fp), 0);
    CHECK_EQ_INT(wh_san_parse(NULL, 0, NULL, &fp), 0);
    /* Interceptor frames, framework runner frames (module only), C++
     * parameter lists, BuildId suffixes, and a frame without "in". */
    const char *cxx =
        "==77==ERROR: AddressSanitizer: attempting double-free on 0x602000000010 in thread T0:\n"
        "    #0 0x7f00 in __interceptor_free ../../src/libsanitizer/asan/asan_malloc_linux.cpp:52\n"
        "    #1 0x5500 in ns::Cart::drop(int, char const*) /w/s/src/cart.cc:41:7\n"
        "    #2 0x7f11 in testing::Test::Run() (/usr/lib/libgtest.so.1.12+0x5fda) (BuildId: ab12)\n"
        "    #3 0x7f12  (/lib/x86_64-linux-gnu/libcmocka.so.0+0x58f7)\n"
        "    #4 0x5501 in CartTest_Drop_Test::TestBody() /w/s/tests/cart_test.cc:12:3\n"
        "    #5 0x5502 in helper /usr/include/c++/12/bits/stl_vector.h:100\n"
        "    #6 0x5503 in main /w/s/tests/main.cc:5\n"
        "    #7 0x5504 in more /w/s/tests/main.cc:6\n"
        "\n"
        "SUMMARY: AddressSanitizer: attempting double-free ../../src/libsanitizer/x.cpp:52 in free\n";
    CHECK_EQ_INT(wh_san_parse(cxx, strlen(cxx), "/w/s", &fp), 1);
    CHECK_EQ_STR(fp.kind, "sanitizer(asan,double-free)");
    CHECK_EQ_STR(fp.location, "cart.cc:41");
    CHECK_EQ_STR(fp.message,
                 "ns::Cart::drop@cart.cc:41 < CartTest_Drop_Test::TestBody@cart_test.cc:12 < main@main.cc:5");
    wh_fp_clear(&fp);
    /* A trailing slash on the root, and "/w/s2" is not under "/w/s". */
    const char *two = "==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x1\n"
                      "READ of size 1 at 0x1 thread T0\n"
                      "    #0 0x1 in f /w/s2/a.c:3\n"
                      "    #1 0x2 in g /w/s/b.c:4:9\n";
    CHECK_EQ_INT(wh_san_parse(two, strlen(two), "/w/s/", &fp), 1);
    CHECK_EQ_STR(fp.kind, "sanitizer(asan,stack-buffer-overflow,READ)");
    CHECK_EQ_STR(fp.message, "g@b.c:4");
    wh_fp_clear(&fp);
    /* Only the first stack counts (not "allocated by thread T0 here:"). */
    const char *first = "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n"
                        "WRITE of size 8 at 0x1 thread T0\n"
                        "    #0 0x1 in f a.c:3\n"
                        "\n"
                        "freed by thread T0 here:\n"
                        "    #0 0x2 in g b.c:4\n";
    CHECK_EQ_INT(wh_san_parse(first, strlen(first), NULL, &fp), 1);
    CHECK_EQ_STR(fp.message, "f@a.c:3");
    wh_fp_clear(&fp);
    /* UBSan without a stack: its own position; an older runtime without
     * the check name in the summary: the class from the text. */
    const char *ub = "x.c:7:12: runtime error: division by zero\n"
                     "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior x.c:7:12 in\n";
    CHECK_EQ_INT(wh_san_parse(ub, strlen(ub), NULL, &fp), 1);
    CHECK_EQ_STR(fp.kind, "sanitizer(ubsan,integer-divide-by-zero)");
    CHECK_EQ_STR(fp.location, "x.c:7");
    CHECK_EQ_STR(fp.message, "");
    wh_fp_clear(&fp);
    const char *ub2 = "/w/s/y.c:3:1: runtime error: something entirely new 42 happened\n";
    CHECK_EQ_INT(wh_san_parse(ub2, strlen(ub2), "/w/s", &fp), 1);
    CHECK_EQ_STR(fp.kind, "sanitizer(ubsan,something-entirely-new)");
    CHECK_EQ_STR(fp.location, "y.c:3");
    wh_fp_clear(&fp);
    /* The earliest report wins. */
    const char *both = "a.c:1:1: runtime error: load of null pointer of type 'int'\n"
                       "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n";
    CHECK_EQ_INT(wh_san_parse(both, strlen(both), NULL, &fp), 1);
    CHECK_EQ_STR(fp.kind, "sanitizer(ubsan,null)");
    wh_fp_clear(&fp);
}

/* ---- log files ---- */

static char s_tmp[256];

static void s_write(const char *dir, const char *name, const char *text)
{
    char *p = wh_strdup_printf("%s/%s", dir, name);
    CHECK_EQ_INT(wh_write_file(p, text, strlen(text)), 0);
    free(p);
}

static int s_exists(const char *dir, const char *name)
{
    char *p = wh_strdup_printf("%s/%s", dir, name);
    int e = access(p, F_OK) == 0;
    free(p);
    return e;
}

static void test_collect_remove(void)
{
    char *prefix = wh_strdup_printf("%s/ws.san", s_tmp);
    wh_fp_t fp = {0};
    wh_buf_t raw = WH_BUF_INIT;
    CHECK_EQ_INT(wh_san_collect(prefix, NULL, &fp, &raw), 0);
    CHECK_EQ_INT((int)raw.len, 0);
    s_write(s_tmp, "ws.san.200", "noise without a report\n");
    s_write(s_tmp, "ws.san.300",
            "==300==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
            "==300==The signal is caused by a READ memory access.\n"
            "    #0 0x1 in get src/a.c:3\n");
    s_write(s_tmp, "ws.sanity", "not ours\n");
    s_write(s_tmp, "ws.report", "not ours\n");
    CHECK_EQ_INT(wh_san_collect(prefix, NULL, &fp, &raw), 1);
    CHECK_EQ_STR(fp.kind, "sanitizer(asan,SEGV,READ)");
    CHECK_EQ_STR(fp.location, "a.c:3");
    CHECK(raw.buf && strstr(raw.buf, "ws.san.200 ----") && strstr(raw.buf, "ws.san.300 ----"));
    CHECK(raw.buf && !strstr(raw.buf, "not ours"));
    wh_fp_clear(&fp);
    wh_buf_free(&raw);
    CHECK_EQ_INT(wh_san_remove(prefix), 0);
    CHECK(!s_exists(s_tmp, "ws.san.200") && !s_exists(s_tmp, "ws.san.300"));
    CHECK(s_exists(s_tmp, "ws.sanity") && s_exists(s_tmp, "ws.report"));
    CHECK_EQ_INT(wh_san_remove(prefix), 0);
    free(prefix);
}

/* ---- normalization ---- */

static void s_norm(const char *in, const char *root, const char *want)
{
    char *got = wh_fp_normalized(in, root);
    CHECK_EQ_STR(got, want);
    /* Idempotent. */
    char *again = wh_fp_normalized(got, root);
    CHECK_EQ_STR(again, want);
    free(again);
    free(got);
}

static void test_normalize_rules(void)
{
    /* Whitespace (the original rule). */
    s_norm("  0x3 !=\t\n 0x4 \n error:   Failure!  ", NULL, "0x3 != 0x4 error: Failure!");
    s_norm(NULL, NULL, "");
    /* XML entities left in text. */
    s_norm("&lt;a&gt; &amp; &quot;q&quot; &apos;s&apos; &#65;&#x42;&#xe9;", NULL,
           "<a> & \"q\" 's' AB\xc3\xa9");
    s_norm("&unknown; &#; &#0; & alone &#x110000;", NULL, "&unknown; &#; &#0; & alone &#x110000;");
    /* ANSI escapes. */
    s_norm("\033[1;31mred\033[0m plain \033]0;title\007end \033(B", NULL, "red plain end B");
    /* Long hex addresses, not short values. */
    s_norm("at 0x602000000018 pc 0x55D5C1B2A1D9", NULL, "at 0x\xe2\x80\xa6 pc 0x\xe2\x80\xa6");
    s_norm("0x4 != 0x5, 0x1234567 and a0x12345678", NULL, "0x4 != 0x5, 0x1234567 and a0x12345678");
    s_norm("0x12345678", NULL, "0x\xe2\x80\xa6");
    /* Sanitizer pids. */
    s_norm("==12345==ERROR: x ==7==The signal", NULL, "==PID==ERROR: x ==PID==The signal");
    s_norm("a==b== ==x==", NULL, "a==b== ==x==");
    /* Temp paths lose their folders. */
    s_norm("/tmp/whittle-e2e.Ab12/work/slot0/tests/t.c:12: fail", NULL, "t.c:12: fail");
    s_norm("in /var/tmp/x/y.c and (/tmp/z)", NULL, "in y.c and (z)");
    s_norm("a/tmp/b/c.c", NULL, "a/tmp/b/c.c");
    /* The workspace root. */
    s_norm("/w/slot3/src/a.c:3 in /w/slot3", "/w/slot3", "src/a.c:3 in");
    s_norm("/w/slot3/src/a.c:3", "/w/slot3/", "src/a.c:3");
    s_norm("/w/slot30/x /w/slot3x", "/w/slot3", "/w/slot30/x /w/slot3x");
    s_norm("/tmp/ws/slot1/t.c:4", "/tmp/ws/slot1", "t.c:4");
    /* Durations. */
    s_norm("took 12 ms, 0.034s (12.3 sec) 5 seconds 7us 1 min", NULL,
           "took <time>, <time> (<time>) <time> <time> <time>");
    s_norm("size 12 bytes v2s 1.5x 3 sets expected <1> but was <0> 10 != 11", NULL,
           "size 12 bytes v2s 1.5x 3 sets expected <1> but was <0> 10 != 11");
    /* Several rules in one sanitizer line. */
    s_norm("==4242==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc "
           "0x55d5c1b2a1d9 bp 0x7ffd00001111 sp 0x7ffd00001100 T0)",
           NULL,
           "==PID==ERROR: AddressSanitizer: SEGV on unknown address 0x\xe2\x80\xa6 (pc 0x\xe2\x80\xa6 "
           "bp 0x\xe2\x80\xa6 sp 0x\xe2\x80\xa6 T0)");

    /* In place: the same rules when they fit... */
    char a[] = "==12345== at 0x602000000018  took 12 ms";
    wh_fp_normalize_message(a);
    CHECK_EQ_STR(a, "==PID== at 0x\xe2\x80\xa6 took <time>");
    /* ...only whitespace when a mask would be longer than its text. */
    char b[] = "==7==  x";
    wh_fp_normalize_message(b);
    CHECK_EQ_STR(b, "==7== x");
    char c[] = "0x4 != 0x5";
    wh_fp_normalize_message(c);
    CHECK_EQ_STR(c, "0x4 != 0x5");
    wh_fp_normalize_message(NULL);
}

static void test_match_modes(void)
{
    wh_fp_t ref = {"t", "sanitizer(asan,heap-buffer-overflow,WRITE)", "f@a.c:3 < t@t.c:9", "a.c:3"};
    wh_fp_t other_frames = {"t", "sanitizer(asan,heap-buffer-overflow,WRITE)", "g@b.c:5", "b.c:5"};
    wh_fp_t other_access = {"t", "sanitizer(asan,heap-buffer-overflow,READ)", "f@a.c:3 < t@t.c:9", "a.c:3"};
    wh_fp_t other_test = {"u", "sanitizer(asan,heap-buffer-overflow,WRITE)", "f@a.c:3 < t@t.c:9", "a.c:3"};
    CHECK(wh_fp_match(&ref, &ref, WH_MATCH_FULL));
    CHECK(!wh_fp_match(&ref, &other_frames, WH_MATCH_FULL));
    CHECK(!wh_fp_match(&ref, &other_frames, WH_MATCH_MESSAGE));
    /* type: test + kind only. */
    CHECK(wh_fp_match(&ref, &other_frames, WH_MATCH_TYPE));
    CHECK(!wh_fp_match(&ref, &other_access, WH_MATCH_TYPE));
    CHECK(!wh_fp_match(&ref, &other_test, WH_MATCH_TYPE));
}

/* ---- wh_evaluate ---- */

static const char s_pass_xml[] = "<testsuite><testcase name=\"t\"/></testsuite>";

static wh_eval_spec_t s_spec(const char *fw, const char *run, char *report, char *log)
{
    wh_eval_spec_t s = {
        .root = s_tmp,
        .test_file = "t.c",
        .build_cmd = NULL,
        .run_cmd = run,
        .fw = wh_framework_find(fw),
        .test = "t",
        .build_timeout_ms = 20000,
        .test_timeout_ms = 20000,
        .report_path = report,
        .log_path = log,
    };
    return s;
}

static void test_evaluate(void)
{
    char *report = wh_strdup_printf("%s.report", s_tmp);
    char *log = wh_strdup_printf("%s.console.log", s_tmp);
    char *sample = s_data_path("asan-gcc-heap-buffer-overflow.log");
    char *xml = wh_strdup_printf("%s/pass.xml", s_tmp);
    wh_write_file(xml, s_pass_xml, strlen(s_pass_xml));
    wh_eval_result_t r = {0};

    /* A sanitizer report overrides a report that says the test passed;
     * the options reach the test run; the log lands in the console log. */
    char *run = wh_strdup_printf(
        "printf '%%s\\n' \"$ASAN_OPTIONS\" > env_asan; printf '%%s\\n' \"$UBSAN_OPTIONS\" > env_ubsan;"
        " lp=${ASAN_OPTIONS#log_path=}; lp=${lp%%%%:*}; cp '%s' \"$lp.4242\"; cp '%s' {report}",
        sample, xml);
    wh_eval_spec_t s = s_spec("junit", run, report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_NONE);
    CHECK_EQ_INT(r.result.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.result.fp.test, "t");
    CHECK_EQ_STR(r.result.fp.kind, "sanitizer(asan,heap-buffer-overflow,WRITE)");
    CHECK_EQ_STR(r.result.fp.location, "ring.c:6");
    CHECK_EQ_STR(r.result.fp.message,
                 "ring_push@ring.c:6 < test_overflow@test_ring.c:9 < main@test_ring.c:22");
    size_t n = 0;
    char *env = NULL, *want = NULL;
    char *p = wh_strdup_printf("%s/env_asan", s_tmp);
    wh_read_file(p, 4096, &env, &n);
    want = wh_strdup_printf("log_path=%s.san:halt_on_error=1:abort_on_error=0:symbolize=1:"
                            "detect_leaks=0\n",
                            s_tmp);
    CHECK_EQ_STR(env, want);
    free(env), free(want), free(p);
    p = wh_strdup_printf("%s/env_ubsan", s_tmp);
    wh_read_file(p, 4096, &env, &n);
    want = wh_strdup_printf("log_path=%s.san:halt_on_error=1:abort_on_error=0:symbolize=1:"
                            "print_stacktrace=1:report_error_type=1\n",
                            s_tmp);
    CHECK_EQ_STR(env, want);
    free(env), free(want), free(p);
    char *cl = NULL;
    wh_read_file(log, 1 << 20, &cl, &n);
    CHECK(cl && strstr(cl, ".san.4242 ----") && strstr(cl, "heap-buffer-overflow"));
    free(cl);
    wh_fp_t ref = {0};
    wh_fp_copy(&ref, &r.result.fp);
    wh_eval_result_clear(&r);

    /* The same failure again: Preserved; the previous run's log was
     * removed first (else it would be read for a passing run below). */
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &ref, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    free(run);

    /* A user's ASAN_OPTIONS are kept; only log_path and halt_on_error are
     * forced. A stale log from an earlier run is gone before the run. */
    char *san_old = wh_strdup_printf("%s.san.1", s_tmp);
    wh_write_file(san_old, "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0\n", 58);
    setenv("ASAN_OPTIONS", "detect_leaks=1:verbosity=0", 1);
    run = wh_strdup_printf("printf '%%s\\n' \"$ASAN_OPTIONS\" > env_asan; cp '%s' {report}", xml);
    s = s_spec("junit", run, report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &ref, WH_MATCH_FULL, &r), 0);
    unsetenv("ASAN_OPTIONS");
    CHECK_EQ_INT(r.verdict, WH_V_TEST_PASSED);
    CHECK(access(san_old, F_OK) != 0);
    p = wh_strdup_printf("%s/env_asan", s_tmp);
    wh_read_file(p, 4096, &env, &n);
    want = wh_strdup_printf("detect_leaks=1:verbosity=0:log_path=%s.san:halt_on_error=1\n", s_tmp);
    CHECK_EQ_STR(env, want);
    free(env), free(want), free(p), free(run), free(san_old);
    wh_eval_result_clear(&r);

    /* A signal without a report: crash(SIGSEGV), not InfraError. */
    s = s_spec("junit", "kill -SEGV $$", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_NONE);
    CHECK_EQ_INT(r.result.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.result.fp.test, "t");
    CHECK_EQ_STR(r.result.fp.kind, "crash(SIGSEGV)");
    CHECK_EQ_STR(r.result.fp.location, "");
    CHECK_EQ_STR(r.result.fp.message, "");
    wh_eval_result_clear(&r);
    /* ...also when a shell reported it as 128+N. */
    s = s_spec("junit", "exit 134", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_STR(r.result.fp.kind, "crash(SIGABRT)");
    wh_eval_result_clear(&r);
    /* Against a reference crash: a different signal is a different failure. */
    wh_fp_t segv = {"t", "crash(SIGSEGV)", "", ""};
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_DIFFERENT_FAILURE);
    wh_eval_result_clear(&r);
    /* An ordinary exit without a report stays InfraError. */
    s = s_spec("junit", "exit 1", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_INFRA_ERROR);
    CHECK(r.detail && strstr(r.detail, "no report"));
    wh_eval_result_clear(&r);

    /* Console readers cannot see a silent death; wh_evaluate can. */
    s = s_spec("plain", "kill -ABRT $$", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.result.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.result.fp.kind, "crash(SIGABRT)");
    wh_eval_result_clear(&r);
    s = s_spec("plain", "echo fine", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_TEST_PASSED);
    wh_eval_result_clear(&r);
    /* Passing needs evidence: for plain it is exit status 0. */
    s = s_spec("plain", "echo fine; exit 1", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_TEST_MISSING);
    wh_eval_result_clear(&r);
    /* Console: a silent exit 0 is no pass without --pass-on-exit0 ... */
    s = s_spec("console", "true", report, log);
    s.failure_regex = "^FAIL (?<test>[a-z]+)";
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_TEST_MISSING);
    wh_eval_result_clear(&r);
    /* ... and is one with it; an exit 1 still is not, nor is a failure
     * line followed by exit 0, nor a silent death. */
    s.pass_on_exit0 = 1;
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_TEST_PASSED);
    CHECK_EQ_INT(r.result.status, WH_TR_PASSED);
    CHECK_EQ_STR(r.result.fp.test, "t");
    wh_eval_result_clear(&r);
    s.run_cmd = "exit 1";
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_TEST_MISSING);
    wh_eval_result_clear(&r);
    s.run_cmd = "echo FAIL t; exit 0";
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_DIFFERENT_FAILURE);
    CHECK_EQ_STR(r.result.fp.kind, "assert");
    wh_eval_result_clear(&r);
    s.run_cmd = "kill -SEGV $$";
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_PRESERVED);
    wh_eval_result_clear(&r);
    /* A report preset ignores it: a test not in the report stays missing. */
    s = s_spec("junit", "true", report, log);
    s.pass_on_exit0 = 1;
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, &segv, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.verdict, WH_V_INFRA_ERROR);
    wh_eval_result_clear(&r);
    /* An assertion line wins over the signal that followed it. */
    s = s_spec("plain", "echo \"t: t.c:3: t: Assertion \\`x' failed.\" >&2; kill -ABRT $$", report, log);
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_STR(r.result.fp.kind, "assert");
    CHECK_EQ_STR(r.result.fp.location, "t.c:3");
    CHECK_EQ_STR(r.result.fp.message, "Assertion `x' failed.");
    wh_eval_result_clear(&r);
    s = s_spec("console", "echo PASS other; kill -SEGV $$", report, log);
    s.failure_regex = "^FAIL (?<test>[a-z]+)";
    s.pass_regex = "^PASS (?<test>[a-z]+)";
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_INT(r.result.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.result.fp.kind, "crash(SIGSEGV)");
    wh_eval_result_clear(&r);
    /* The console message is normalized with the workspace root. */
    char *echo = wh_strdup_printf("echo 'FAIL t at %s/src/a.c  took 3 ms'", s_tmp);
    s = s_spec("console", echo, report, log);
    s.failure_regex = "^FAIL (?<test>[a-z]+) at (?<message>.*)";
    CHECK_EQ_INT(wh_evaluate(&s, "x", 1, NULL, WH_MATCH_FULL, &r), 0);
    CHECK_EQ_STR(r.result.fp.message, "src/a.c took <time>");
    wh_eval_result_clear(&r);
    free(echo);

    wh_fp_clear(&ref);
    free(xml);
    free(sample);
    free(report);
    free(log);
}

int main(void)
{
    snprintf(s_tmp, sizeof s_tmp, "/tmp/wh-san-XXXXXX");
    if (!mkdtemp(s_tmp)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_parse_samples);
    RUN_TEST(test_parse_shapes);
    RUN_TEST(test_collect_remove);
    RUN_TEST(test_normalize_rules);
    RUN_TEST(test_match_modes);
    RUN_TEST(test_evaluate);
    char *rm = wh_strdup_printf("rm -rf '%s' '%s'.*", s_tmp, s_tmp);
    if (system(rm) != 0)
        fprintf(stderr, "cannot clean %s\n", s_tmp);
    free(rm);
    TEST_MAIN_END();
}
