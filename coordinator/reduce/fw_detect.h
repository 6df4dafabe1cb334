/*
 * fw_detect — guesses a test file's framework preset from its #include lines
 * when --framework was not given.
 */
#ifndef WH_FW_DETECT_H
#define WH_FW_DETECT_H

/* The preset named by the first framework header that `src` (a NUL-ended
 * C/C++ source) includes: cmocka.h -> cmocka, gtest/gtest.h -> gtest,
 * check.h -> check, CUnit/... -> cunit, criterion/... -> criterion,
 * unity.h -> unity, also under a folder of the path ("unity/src/unity.h",
 * "vendor/CUnit/Basic.h"). NULL when none is included. *header, when not NULL,
 * receives the header's spelling as a static string. */
const char *wh_fw_detect_source(const char *src, const char **header);

/* What wh_fw_detect_source says for a test that includes utest.h: no preset
 * of its own, the console preset with these regexes (fw_detect.c says why). */
#define WH_FW_UTEST "utest"
extern const char *const wh_fw_utest_failure_regex;
extern const char *const wh_fw_utest_pass_regex;

#endif
