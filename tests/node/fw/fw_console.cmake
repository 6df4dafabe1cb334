# Issue 4: the console and plain presets, crash and sanitizer identity,
# message normalization; fixtures reduced end to end.
wh_add_test(test_fw_console SOURCES test_fw_console.c LIBS wh_oracle)
wh_add_test(test_sanitizer SOURCES test_sanitizer.c LIBS wh_oracle)
wh_add_e2e(console_desc console_expected console_failure console_aws console_tap console_oracle console_values plain_assert crash_null asan_overflow)
