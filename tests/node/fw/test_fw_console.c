/*
 * Tests of node/fw_console: the console preset (regexes with named groups
 * over the captured output of homegrown harnesses of three shapes) and the
 * plain preset (glibc/musl assertion lines, shell crash lines, clean runs).
 * The console samples in tests/data/reports/{console,plain}-*.txt are the
 * real output of the fixtures tests/fixtures/console_* and plain_assert
 * (and of a program calling abort() run by bash and by dash).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "framework.h"
#include "oracle.h"
#include "wh_common.h"
#include "wh_test.h"

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

/* Reads console text with preset fw, target test, regexes. */
static int s_read_cont(const char *fw, const char *text, const char *test, const char *fail_re,
                       const char *pass_re, const char *cont_re, wh_test_result_t *r)
{
    const wh_framework_t *f = wh_framework_find(fw);
    if (!f)
        return -1000;
    wh_fw_opts_t o = {fail_re, pass_re, "/w/slot0", cont_re, NULL};
    char *err = NULL;
    int rc = f->read("/nonexistent/report", text, text ? strlen(text) : 0, test, &o, r, &err);
    if (rc && err)
        fprintf(stderr, "read: %s\n", err);
    free(err);
    return rc;
}

static int s_read(const char *fw, const char *text, const char *test, const char *fail_re,
                  const char *pass_re, wh_test_result_t *r)
{
    return s_read_cont(fw, text, test, fail_re, pass_re, NULL, r);
}

static void test_presets(void)
{
    size_t n = 0;
    const wh_framework_t *t = wh_fw_console_presets(&n);
    CHECK_EQ_INT(n, 2);
    CHECK(wh_framework_find("console") == &t[0]);
    CHECK(wh_framework_find("plain") == &t[1]);
    CHECK(strstr(wh_framework_names(), "console") != NULL);
    CHECK(strstr(wh_framework_names(), "plain") != NULL);
    CHECK(wh_fw_reads_console(&t[0]) && wh_fw_reads_console(&t[1]));
    CHECK(!wh_fw_reads_console(wh_framework_find("cmocka")));
    CHECK(!wh_fw_reads_console(NULL));
}

static void test_check(void)
{
    const wh_framework_t *f = wh_framework_find("console");
    CHECK(f && f->check);
    if (!f || !f->check)
        return;
    char *err = NULL;
    wh_fw_opts_t ok = {"(?<file>[^ :]+):(?P<line>[0-9]+): (?:error|fail): (?<message>.*)",
                       "^ok (?<test>[[:alnum:]_]+)$", NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&ok, &err), 0);
    CHECK(err == NULL);
    /* A bracket whose first member is ']' is not the end of it. */
    wh_fw_opts_t bracket = {"\\[(?<test>[^]:(]+)\\(\\): (?<file>[^]:]+):(?<line>[0-9]+)\\]", NULL,
                            NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&bracket, &err), 0);

    wh_fw_opts_t none = {NULL, NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&none, &err), WH_EINVAL);
    CHECK(err && strstr(err, "--failure-regex"));
    free(err), err = NULL;

    /* A regex that does not compile: one line naming the option, the
     * regex, PCRE2's reason and the offset. */
    wh_fw_opts_t bad_fail = {"(unclosed", NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&bad_fail, &err), WH_EINVAL);
    CHECK_EQ_STR(err, "bad --failure-regex '(unclosed': missing closing parenthesis at offset 9");
    CHECK(err && !strchr(err, '\n'));
    free(err), err = NULL;

    wh_fw_opts_t bad_pass = {"x", "a{2,1}", NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&bad_pass, &err), WH_EINVAL);
    CHECK_EQ_STR(err, "bad --pass-regex 'a{2,1}': numbers out of order in {} quantifier at offset 5");
    free(err), err = NULL;

    wh_fw_opts_t bad_cont = {"x", NULL, NULL, "^\\s+(?<x", NULL};
    CHECK_EQ_INT(f->check(&bad_cont, &err), WH_EINVAL);
    static const char cont_pre[] = "bad --message-continuation '^\\s+(?<x': ";
    CHECK(err && strncmp(err, cont_pre, sizeof cont_pre - 1) == 0 && strstr(err, " at offset "));
    free(err), err = NULL;

    /* Perl syntax compiles as written: lookarounds, \d, lazy quantifiers. */
    wh_fw_opts_t look = {"(?<=at )(?<file>\\w+\\.c):(?<line>\\d+)(?!\\d)", "^ok\\b.*?$", NULL,
                         "^\\s+\\S", NULL};
    CHECK_EQ_INT(f->check(&look, &err), 0);
    CHECK(err == NULL);

    wh_fw_opts_t twice = {"(?<test>a)(?<test>b)", NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&twice, &err), WH_EINVAL);
    CHECK(err && strstr(err, "two named subpatterns have the same name"));
    free(err), err = NULL;

    wh_fw_opts_t unterminated = {"(?<test[a-z]+)", NULL, NULL, NULL, NULL};
    CHECK_EQ_INT(f->check(&unterminated, &err), WH_EINVAL);
    CHECK(err && strstr(err, "at offset 7"));
    free(err), err = NULL;
}

#define RE_EXPECTED "(?<file>[[:alnum:]_/.-]+\\.c):(?<line>[0-9]+): (?<message>expected <[^>]*> but was <[^>]*>)"
#define RE_FAILURE                                                                           \
    "\\*\\*\\*FAILURE\\*\\*\\* (?<message>.*) \\[(?<test>[[:alnum:]_]+)\\(\\): "           \
    "(?<file>[^]:]+):(?<line>[0-9]+)\\]"
#define RE_TAP_FAIL "^FAIL: (?<test>[[:alnum:]_]+) \\((?<message>.*)\\)$"
#define RE_TAP_PASS "^PASS: (?<test>[[:alnum:]_]+)$"

static void test_console_expected(void)
{
    size_t len;
    char *text = s_data("console-expected.txt", &len);
    wh_test_result_t r = {0};
    /* No test group: the first failure is the target's. */
    CHECK_EQ_INT(s_read("console", text, "test_to_fahrenheit", RE_EXPECTED, "^ALL TESTS PASSED$", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "test_to_fahrenheit");
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.location, "test_conv.c:17");
    CHECK_EQ_STR(r.fp.message, "expected <212> but was <211>");
    wh_test_result_clear(&r);
    /* A clean run: the pass regex (without a test group) says PASSED. */
    CHECK_EQ_INT(s_read("console", "test_a ... ok\nALL TESTS PASSED\n", "test_a", RE_EXPECTED,
                        "^ALL TESTS PASSED$", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    CHECK_EQ_STR(r.fp.test, "test_a");
    wh_test_result_clear(&r);
    /* Neither: MISSING. */
    CHECK_EQ_INT(s_read("console", "nothing here\n", "test_a", RE_EXPECTED, "^ALL TESTS PASSED$", &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* Empty console. */
    CHECK_EQ_INT(s_read("console", NULL, "test_a", RE_EXPECTED, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    free(text);
}

static void test_console_failure(void)
{
    size_t len;
    char *text = s_data("console-failure.txt", &len);
    wh_test_result_t r = {0};
    const char *pass = "^PASS (?<test>[[:alnum:]_]+)$";
    CHECK_EQ_INT(s_read("console", text, "s_test_slug_blanks", RE_FAILURE, pass, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "s_test_slug_blanks");
    CHECK_EQ_STR(r.fp.location, "test_slug.c:16");
    CHECK_EQ_STR(r.fp.message, "Expected \"a-b\" but got \"a--b\"");
    wh_test_result_clear(&r);
    /* The other test passed; picked out by name. */
    CHECK_EQ_INT(s_read("console", text, "s_test_slug_lower", RE_FAILURE, pass, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    /* A name that is a prefix of a real one is not that test. */
    CHECK_EQ_INT(s_read("console", text, "s_test_slug", RE_FAILURE, pass, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* The target's failure is found after another test's failure. */
    const char *two = "***FAILURE*** Expected 1 [s_a(): a.c:3]\n"
                      "***FAILURE*** Expected 2 [s_b(): /w/slot0/tests/b.c:9]\n";
    CHECK_EQ_INT(s_read("console", two, "s_b", RE_FAILURE, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "b.c:9");
    CHECK_EQ_STR(r.fp.message, "Expected 2");
    wh_test_result_clear(&r);
    free(text);
}

static void test_console_tap(void)
{
    size_t len;
    char *text = s_data("console-tap.txt", &len);
    wh_test_result_t r = {0};
    CHECK_EQ_INT(s_read("console", text, "test_port_range", RE_TAP_FAIL, RE_TAP_PASS, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "test_port_range");
    CHECK_EQ_STR(r.fp.location, "");
    CHECK_EQ_STR(r.fp.message, "Invalid value");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("console", text, "test_port_rejects_garbage", RE_TAP_FAIL, RE_TAP_PASS, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
    /* A kind group, and a whole match as the message when there is no
     * message group; file without a line. */
    CHECK_EQ_INT(s_read("console", "x\nBOOM(timeout) in t1 at /a/b/c.c\n", "t1",
                        "BOOM\\((?<kind>[a-z]+)\\) in (?<test>t[0-9]) at (?<file>[^ ]+)", NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "timeout");
    CHECK_EQ_STR(r.fp.location, "c.c");
    CHECK_EQ_STR(r.fp.message, "BOOM(timeout) in t1 at /a/b/c.c");
    wh_test_result_clear(&r);
    /* A line group without a file group is still the location: a harness
     * that prints "FAILED: description (at line N)" fails at another line
     * when the reduced test lost its return statement. */
    CHECK_EQ_INT(s_read("console", "FAILED: nomem test (at line 159)\nFAILED: 1\n", "t",
                        "^FAILED: (?<message>.+) \\(at line (?<line>\\d+)\\)$", NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "line 159");
    CHECK_EQ_STR(r.fp.message, "nomem test");
    wh_test_result_clear(&r);
    /* ^ anchors at every line, also after a match that ended mid-line. */
    CHECK_EQ_INT(s_read("console", "FAIL: a (x) FAIL: b (y)\nFAIL: b (z)\n", "b", RE_TAP_FAIL, NULL, &r), 0);
    CHECK_EQ_STR(r.fp.message, "z");
    wh_test_result_clear(&r);
    /* NUL bytes in the output do not end it. */
    char nul[] = "junk\0more\nFAIL: t (late)\n";
    const wh_framework_t *f = wh_framework_find("console");
    wh_fw_opts_t o = {RE_TAP_FAIL, NULL, NULL, NULL, NULL};
    char *err = NULL;
    CHECK_EQ_INT(f->read(NULL, nul, sizeof nul - 1, "t", &o, &r, &err), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.message, "late");
    wh_test_result_clear(&r);
    /* A regex matching the empty string ends. */
    CHECK_EQ_INT(s_read("console", "aaa\nbbb\n", "t", "(?<test>x*)", NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* A bad regex at read time is an error with a message. */
    CHECK(s_read("console", "x", "t", "(", NULL, &r) == WH_EINVAL);
    free(text);
}

/* PCRE2 as users write it: \d \s \w, lookarounds, lazy quantifiers, every
 * spelling of named groups; line by line by default. */
static void test_console_pcre2(void)
{
    wh_test_result_t r = {0};
    const char *out = "run t1\n"
                      "  at tests/t.c:41 FAIL t1: want 3, got 4\n"
                      "  at tests/t.c:52 FAIL t2: want 5, got 6\n";
    /* \d \s \w, a lookbehind for the file, a lookahead that ends the line
     * number, a lazy message. */
    const char *re = "(?<=at )(?<file>[\\w/]+\\.c):(?<line>\\d+)(?=\\s)\\s+FAIL\\s(?<test>\\w+):"
                     "\\s*(?<message>.*?)\\s*$";
    CHECK_EQ_INT(s_read("console", out, "t2", re, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "t2");
    CHECK_EQ_STR(r.fp.location, "t.c:52");
    CHECK_EQ_STR(r.fp.message, "want 5, got 6");
    wh_test_result_clear(&r);
    /* (?'name'…) and (?P<name>…). */
    CHECK_EQ_INT(s_read("console", out, "t1", "FAIL (?'test'\\w+): (?P<message>want \\d+)", NULL, &r), 0);
    CHECK_EQ_STR(r.fp.message, "want 3");
    wh_test_result_clear(&r);
    /* In POSIX ERE \d was a literal d: this regex used to match nothing. */
    CHECK_EQ_INT(s_read("console", "x.c:7: got 12\n", "t", "(?<file>x\\.c):(?<line>\\d+): (?<message>got \\d+)",
                        NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.location, "x.c:7");
    CHECK_EQ_STR(r.fp.message, "got 12");
    wh_test_result_clear(&r);
    /* A negative lookahead: "FAIL" not followed by "(expected)". */
    CHECK_EQ_INT(s_read("console", "FAIL (expected) a\nFAIL b\n", "t", "^FAIL (?!\\(expected\\))(?<message>.*)$",
                        NULL, &r), 0);
    CHECK_EQ_STR(r.fp.message, "b");
    wh_test_result_clear(&r);
    /* Line by line: a class like [^>] or \s never crosses a line, and CRLF
     * output still anchors $ at the end of each line. */
    CHECK_EQ_INT(s_read("console", "expected <1\nbut was> 2\r\nFAIL: t (x)\r\n", "t",
                        "expected <(?<message>[^>]*)>|^FAIL: (?<test>\\w+) \\((?<message2>.*)\\)$", NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.message, "FAIL: t (x)");
    wh_test_result_clear(&r);
}

/* A harness that prints its values on the lines after "file:line:" (as
 * libarchive's does): the same line with other values is another failure
 * only when the message carries them. */
#define LA_BLOCK(v)                                                                        \
    "test_read_pax.c:88: Assertion failed: Ints not equal\n"                               \
    "      archive_entry_size(ae)=" v " (0x" v ", 0" v ")\n"                              \
    "      7=7 (0x7, 07)\n"                                                                \
    "  Description: size of the first entry\n"                                             \
    "test_read_pax.c: 1 failures\n"
#define LA_FAIL "^(?<file>[\\w.]+\\.c):(?<line>\\d+): Assertion failed: (?<message>.*)$"
#define LA_CONT "^\\s+\\S"

static void test_console_multiline(void)
{
    wh_test_result_t a = {0}, b = {0};
    /* Continuation lines: indented lines after the match join the message. */
    CHECK_EQ_INT(s_read_cont("console", "ok 1\n" LA_BLOCK("5"), "t", LA_FAIL, NULL, LA_CONT, &a), 0);
    CHECK_EQ_INT(a.status, WH_TR_FAILED);
    CHECK_EQ_STR(a.fp.location, "test_read_pax.c:88");
    CHECK_EQ_STR(a.fp.message, "Ints not equal\n      archive_entry_size(ae)=5 (0x5, 05)\n"
                               "      7=7 (0x7, 07)\n  Description: size of the first entry");
    CHECK_EQ_INT(s_read_cont("console", LA_BLOCK("6"), "t", LA_FAIL, NULL, LA_CONT, &b), 0);
    CHECK_EQ_STR(b.fp.location, "test_read_pax.c:88");
    /* Same line, other values: DifferentFailure. */
    CHECK_EQ_INT(wh_oracle_judge(&b, &a.fp, WH_MATCH_FULL), WH_V_DIFFERENT_FAILURE);
    CHECK_EQ_INT(wh_oracle_judge(&a, &a.fp, WH_MATCH_FULL), WH_V_PRESERVED);
    wh_test_result_clear(&a);
    wh_test_result_clear(&b);
    /* Without the continuation the values are lost, and both fingerprint
     * the same: the case the option exists for. */
    CHECK_EQ_INT(s_read("console", LA_BLOCK("5"), "t", LA_FAIL, NULL, &a), 0);
    CHECK_EQ_INT(s_read("console", LA_BLOCK("6"), "t", LA_FAIL, NULL, &b), 0);
    CHECK_EQ_STR(a.fp.message, "Ints not equal");
    CHECK_EQ_INT(wh_oracle_judge(&b, &a.fp, WH_MATCH_FULL), WH_V_PRESERVED);
    wh_test_result_clear(&a);
    wh_test_result_clear(&b);

    /* (?s) / (?m): the regex runs over the whole output, so the message
     * may span lines; Perl's meaning: (?m) for ^ $ at lines, (?s) for a
     * dot that crosses them. */
    const char *whole = "(?ms)^(?<file>[\\w.]+\\.c):(?<line>\\d+): Assertion failed: "
                        "(?<message>.*?)^\\s+Description";
    CHECK_EQ_INT(s_read("console", LA_BLOCK("5"), "t", whole, NULL, &a), 0);
    CHECK_EQ_INT(a.status, WH_TR_FAILED);
    CHECK_EQ_STR(a.fp.location, "test_read_pax.c:88");
    CHECK_EQ_STR(a.fp.message, "Ints not equal\n      archive_entry_size(ae)=5 (0x5, 05)\n"
                               "      7=7 (0x7, 07)\n");
    CHECK_EQ_INT(s_read("console", LA_BLOCK("6"), "t", whole, NULL, &b), 0);
    CHECK_EQ_INT(wh_oracle_judge(&b, &a.fp, WH_MATCH_FULL), WH_V_DIFFERENT_FAILURE);
    wh_test_result_clear(&a);
    wh_test_result_clear(&b);
    /* Without (?s) the same idea cannot cross a line: no failure seen. */
    CHECK_EQ_INT(s_read("console", LA_BLOCK("5"), "t", "Assertion failed: (?<message>.*)Description",
                        NULL, &a), 0);
    CHECK_EQ_INT(a.status, WH_TR_MISSING);
    wh_test_result_clear(&a);
    /* (?-s) unsets, it does not turn the whole-output mode on. */
    CHECK_EQ_INT(s_read("console", LA_BLOCK("5"), "t", "(?-s)Assertion failed: (?<message>.*)Description",
                        NULL, &a), 0);
    CHECK_EQ_INT(a.status, WH_TR_MISSING);
    wh_test_result_clear(&a);
    /* Continuation after a whole-output match that ended at a line end;
     * and it stops at the first line that does not match. */
    CHECK_EQ_INT(s_read_cont("console", "E: boom\n  v=1\nnext\n  v=2\n", "t", "(?m)^E: (?<message>.*)\\n",
                             NULL, "^  ", &a), 0);
    CHECK_EQ_STR(a.fp.message, "boom\n  v=1");
    wh_test_result_clear(&a);
    /* A catastrophic pattern gives up with an error instead of hanging. */
    char big[4096];
    memset(big, 'a', sizeof big - 2);
    big[sizeof big - 2] = 'b', big[sizeof big - 1] = '\0';
    CHECK_EQ_INT(s_read("console", big, "t", "^(a|a?)+$", NULL, &a), WH_EPARSE);
    wh_test_result_clear(&a);
}

static void test_console_crash(void)
{
    wh_test_result_t r = {0};
    /* The harness died before the target reported: the shell's crash line. */
    CHECK_EQ_INT(s_read("console", "PASS: a\nSegmentation fault (core dumped)\n", "b", RE_TAP_FAIL,
                        RE_TAP_PASS, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "crash(SIGSEGV)");
    CHECK_EQ_STR(r.fp.test, "b");
    wh_test_result_clear(&r);
    /* A target that passed before a later crash passed. */
    CHECK_EQ_INT(s_read("console", "PASS: a\nSegmentation fault\n", "a", RE_TAP_FAIL, RE_TAP_PASS, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    wh_test_result_clear(&r);
}

static void test_plain(void)
{
    size_t len;
    char *text = s_data("plain-glibc-assert.txt", &len);
    wh_test_result_t r = {0};
    CHECK_EQ_INT(s_read("plain", text, "test_clamp_edges", NULL, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "test_clamp_edges");
    CHECK_EQ_STR(r.fp.kind, "assert");
    CHECK_EQ_STR(r.fp.location, "test_clamp.c:17");
    CHECK_EQ_STR(r.fp.message, "Assertion `high == 10' failed.");
    wh_test_result_clear(&r);
    /* Fired in another function: FAILED with that function's name, which
     * the oracle's test comparison rejects. */
    CHECK_EQ_INT(s_read("plain", text, "test_clamp_inside", NULL, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "test_clamp_edges");
    wh_fp_t ref = {"test_clamp_inside", "assert", "Assertion `high == 10' failed.", "test_clamp.c:17"};
    wh_test_result_t tr = r;
    CHECK_EQ_INT(wh_oracle_judge(&tr, &ref, WH_MATCH_TYPE), WH_V_DIFFERENT_FAILURE);
    wh_test_result_clear(&r);
    free(text);

    /* C++: __PRETTY_FUNCTION__, qualified names. */
    const char *cxx = "t: /w/slot0/tests/a.cc:40: void ns::test_x(int): Assertion `v' failed.\n";
    CHECK_EQ_INT(s_read("plain", cxx, "test_x", NULL, NULL, &r), 0);
    CHECK_EQ_STR(r.fp.test, "test_x");
    CHECK_EQ_STR(r.fp.location, "a.cc:40");
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("plain", cxx, "ns::test_x", NULL, NULL, &r), 0);
    CHECK_EQ_STR(r.fp.test, "ns::test_x");
    wh_test_result_clear(&r);
    /* musl. */
    CHECK_EQ_INT(s_read("plain", "Assertion failed: x == 1 (tests/t.c: test_m: 12)\n", "test_m",
                        NULL, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "test_m");
    CHECK_EQ_STR(r.fp.location, "t.c:12");
    CHECK_EQ_STR(r.fp.message, "Assertion failed: x == 1");
    wh_test_result_clear(&r);
    /* abort() seen through the shell's line: bash and dash. */
    const char *names[] = {"plain-bash-aborted.txt", "plain-dash-aborted.txt"};
    for (int i = 0; i < 2; i++) {
        char *t = s_data(names[i], &len);
        CHECK_EQ_INT(s_read("plain", t, "test_a", NULL, NULL, &r), 0);
        CHECK_EQ_INT(r.status, WH_TR_FAILED);
        CHECK_EQ_STR(r.fp.kind, "crash(SIGABRT)");
        CHECK_EQ_STR(r.fp.location, "");
        CHECK_EQ_STR(r.fp.message, "");
        CHECK_EQ_STR(r.fp.test, "test_a");
        wh_test_result_clear(&r);
        free(t);
    }
    /* A sanitizer report in the console (a runtime that ignored log_path). */
    char *u = s_data("ubsan-gcc-signed-integer-overflow.console.txt", &len);
    CHECK_EQ_INT(s_read("plain", u, "test_ub", NULL, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.kind, "sanitizer(ubsan,signed-integer-overflow)");
    CHECK_EQ_STR(r.fp.location, "ring.c:10");
    wh_test_result_clear(&r);
    free(u);
    /* A clean text is no failure, but no pass either: the exit status
     * decides (wh_evaluate); a line that merely mentions a crash does not
     * count. */
    CHECK_EQ_INT(s_read("plain", "all good\ncheck: Aborted transactions: 0\n", "test_a", NULL, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    CHECK_EQ_INT(s_read("plain", NULL, "test_a", NULL, NULL, &r), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    CHECK(wh_framework_find("plain")->flags & WH_FW_EXIT0_PASSES);
    CHECK(!(wh_framework_find("console")->flags & WH_FW_EXIT0_PASSES));
}

/* aws-c-common's AWS_TEST_CASE(name, fn): whittle runs the test as name,
 * the harness prints fn. A failure or pass naming either is the test's
 * own (under name); another function's is not (issue 33 item 7). */
static void test_registered_fn(void)
{
    const wh_framework_t *f = wh_framework_find("console");
    const char *text = "***FAILURE*** s_other_fn: want 1, got 2 (t.c:9)\n"
                       "***FAILURE*** s_sum_fn: want 9, got 5 (t.c:21)\n"
                       "PASS s_empty_fn\n";
    const char *fre = "^\\*\\*\\*FAILURE\\*\\*\\* (?<test>\\w+): (?<message>.*) "
                      "\\((?<file>[^:]+):(?<line>[0-9]+)\\)$";
    wh_fw_opts_t o = {fre, "^PASS (?<test>\\w+)$", NULL, NULL, "s_sum_fn"};
    wh_test_result_t r;
    char *err = NULL;
    CHECK_EQ_INT(f->read(NULL, text, strlen(text), "sum_two", &o, &r, &err), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "sum_two");
    CHECK_EQ_STR(r.fp.location, "t.c:21");
    CHECK_EQ_STR(r.fp.message, "want 9, got 5");
    wh_test_result_clear(&r);
    /* Without the function's name, nothing names sum_two. */
    o.test_fn = NULL;
    CHECK_EQ_INT(f->read(NULL, text, strlen(text), "sum_two", &o, &r, &err), 0);
    CHECK_EQ_INT(r.status, WH_TR_MISSING);
    wh_test_result_clear(&r);
    /* A pass naming the function. */
    o.test_fn = "s_empty_fn";
    CHECK_EQ_INT(f->read(NULL, text, strlen(text), "empty", &o, &r, &err), 0);
    CHECK_EQ_INT(r.status, WH_TR_PASSED);
    CHECK_EQ_STR(r.fp.test, "empty");
    wh_test_result_clear(&r);
    free(err);

    /* What the regex matched for another test, for the error on the
     * original run: the first line naming neither the test nor its
     * function. */
    char *match = NULL, *named = NULL;
    CHECK_EQ_INT(wh_fw_console_foreign(fre, "sum_two", "s_sum_fn", text, strlen(text), &match,
                                       &named),
                 1);
    CHECK_EQ_STR(match, "***FAILURE*** s_other_fn: want 1, got 2 (t.c:9)");
    CHECK_EQ_STR(named, "s_other_fn");
    free(match), free(named);
    CHECK_EQ_INT(wh_fw_console_foreign("^PASS (?<test>\\w+)$", "empty", "s_empty_fn", text,
                                       strlen(text), &match, &named),
                 0);
    CHECK(!match && !named);
    /* A regex without a test group names no other test. */
    CHECK_EQ_INT(wh_fw_console_foreign("^PASS", "x", NULL, text, strlen(text), &match, &named),
                 0);

    /* plain: glibc names the function the assertion fired in. */
    const wh_framework_t *pl = wh_framework_find("plain");
    const char *abrt = "t: tests/t.c:21: s_sum_fn: Assertion `sum == 9' failed.\n";
    wh_fw_opts_t po = {NULL, NULL, NULL, NULL, "s_sum_fn"};
    CHECK_EQ_INT(pl->read(NULL, abrt, strlen(abrt), "sum_two", &po, &r, &err), 0);
    CHECK_EQ_INT(r.status, WH_TR_FAILED);
    CHECK_EQ_STR(r.fp.test, "sum_two");
    wh_test_result_clear(&r);
    po.test_fn = NULL;
    CHECK_EQ_INT(pl->read(NULL, abrt, strlen(abrt), "sum_two", &po, &r, &err), 0);
    CHECK_EQ_STR(r.fp.test, "s_sum_fn");
    wh_test_result_clear(&r);
    free(err);
}

static void test_crash_text(void)
{
    const char *a = "Segmentation fault\n";
    CHECK_EQ_INT(wh_crash_text(a, strlen(a)), 11);
    const char *b = "sh: line 1: 4242 Floating point exception(core dumped) ./t\n";
    CHECK_EQ_INT(wh_crash_text(b, strlen(b)), 8);
    const char *c = "sh: line 1: 4242 Bus error               (core dumped) ./t\n";
    CHECK_EQ_INT(wh_crash_text(c, strlen(c)), 7);
    const char *d = "the run was Aborted by the user\n";
    CHECK_EQ_INT(wh_crash_text(d, strlen(d)), 0);
    CHECK_EQ_INT(wh_crash_text(NULL, 0), 0);
    char *k = wh_crash_kind(11);
    CHECK_EQ_STR(k, "crash(SIGSEGV)");
    free(k);
    k = wh_crash_kind(0);
    CHECK_EQ_STR(k, "crash");
    free(k);
}

int main(void)
{
    RUN_TEST(test_presets);
    RUN_TEST(test_check);
    RUN_TEST(test_console_expected);
    RUN_TEST(test_console_failure);
    RUN_TEST(test_console_tap);
    RUN_TEST(test_console_pcre2);
    RUN_TEST(test_console_multiline);
    RUN_TEST(test_console_crash);
    RUN_TEST(test_plain);
    RUN_TEST(test_registered_fn);
    RUN_TEST(test_crash_text);
    TEST_MAIN_END();
}
