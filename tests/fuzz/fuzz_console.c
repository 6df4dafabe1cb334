/*
 * fuzz_console — libFuzzer target for the console oracle (fw_console.c:
 * the "console" preset with a fixed set of user regexes, and "plain").
 * Input: the target test's name, a newline, then the console text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "framework.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* failure regex, pass regex, root, message continuation, registered
 * function: the shapes of tests/test_fw_console.c and doc/reduce.md's
 * examples. */
static const wh_fw_opts_t s_opts[] = {
    {"(?<file>[^ :]+):(?P<line>[0-9]+): (?:error|fail): (?<message>.*)",
     "^ok (?<test>[[:alnum:]_]+)$", "/work/project", NULL, NULL},
    {"^not ok [0-9]+ - (?<test>\\S+)(?: # (?<message>.*))?$", "^ok [0-9]+ - (?<test>\\S+)$", NULL,
     "^#  ", NULL},
    {"\\*\\*\\*FAILURE\\*\\*\\* (?<message>.*) \\[(?<test>[[:alnum:]_]+)\\(\\): "
     "(?<file>[^]:]+):(?<line>[0-9]+)\\]",
     "^PASS (?<test>[[:alnum:]_]+)$", "/", "^\\s+", "s_test_fn"},
    {"^FAIL: (?<test>[[:alnum:]_]+) \\((?<message>.*)\\)$", NULL, NULL, NULL, NULL},
};

static void s_read(const char *name, const wh_fw_opts_t *o, const char *c, size_t n,
                   const char *test)
{
    const wh_framework_t *fw = wh_framework_find(name);
    if (!fw)
        abort();
    wh_test_result_t r;
    memset(&r, 0, sizeof r);
    char *err = NULL;
    int rc = fw->read(NULL, c, n, test, o, &r, &err);
    if (rc == 0 && (r.status < WH_TR_MISSING || r.status > WH_TR_SKIPPED))
        abort();
    wh_test_result_clear(&r);
    free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t tl = nl ? (size_t)(nl - data) : 0;
    char *test = strndup((const char *)data, tl);
    const uint8_t *con = nl ? nl + 1 : data;
    size_t cl = size - (size_t)(con - data);
    char *c = malloc(cl + 1); /* readers get a NUL-terminated copy, as runner.c gives */
    if (!test || !c)
        abort();
    memcpy(c, con, cl);
    c[cl] = '\0';
    for (size_t i = 0; i < sizeof s_opts / sizeof s_opts[0]; i++)
        s_read("console", &s_opts[i], c, cl, test);
    s_read("plain", NULL, c, cl, test);
    free(test);
    free(c);
    return 0;
}
