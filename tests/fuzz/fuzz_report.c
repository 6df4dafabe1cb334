/*
 * fuzz_report — libFuzzer target for the report readers of the XML presets
 * (junit, cmocka, gtest, ctest in framework.c; check, cunit, criterion,
 * unity in fw_xunit.c). Input: the target test's name, a newline, then the
 * report file's bytes (also given as the console, which unity reads). Every
 * reader gets it; each must return 0 with a status, or WH_EREPORT /
 * WH_EPARSE with a reason, never crash or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const s_names[] = {"junit", "cmocka",    "gtest", "ctest",
                                      "check", "cunit", "criterion", "unity"};
static char s_dir[] = "/tmp/wh-fuzz-report-XXXXXX";
static char s_path[64];

/* libFuzzer ends with exit(): the scratch report goes with it. */
static void s_cleanup(void)
{
    unlink(s_path);
    rmdir(s_dir);
}

static void s_setup(void)
{
    if (!mkdtemp(s_dir))
        abort();
    snprintf(s_path, sizeof s_path, "%s/report.xml", s_dir);
    atexit(s_cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!s_path[0])
        s_setup();
    const uint8_t *nl = memchr(data, '\n', size);
    size_t tl = nl ? (size_t)(nl - data) : 0;
    char *test = strndup((const char *)data, tl);
    const uint8_t *rep = nl ? nl + 1 : data;
    size_t rl = size - (size_t)(rep - data);
    char *console = malloc(rl + 1);
    if (!test || !console)
        abort();
    memcpy(console, rep, rl);
    console[rl] = '\0';
    FILE *f = fopen(s_path, "wb");
    if (!f || fwrite(rep, 1, rl, f) != rl || fclose(f) != 0)
        abort();
    wh_fw_opts_t opts = {NULL, NULL, "/work/project", NULL, NULL};
    for (size_t i = 0; i < sizeof s_names / sizeof s_names[0]; i++) {
        const wh_framework_t *fw = wh_framework_find(s_names[i]);
        if (!fw)
            abort();
        wh_test_result_t r;
        memset(&r, 0, sizeof r);
        char *err = NULL;
        int rc = fw->read(s_path, console, rl, test, &opts, &r, &err);
        if (rc != 0 && rc != WH_EREPORT && rc != WH_EPARSE)
            abort();
        if (rc == 0 && (r.status < WH_TR_MISSING || r.status > WH_TR_SKIPPED))
            abort();
        wh_test_result_clear(&r);
        free(err);
    }
    free(test);
    free(console);
    return 0;
}
