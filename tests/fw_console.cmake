# Issue 4: the console and plain presets, crash and sanitizer identity,
# message normalization; fixtures reduced end to end.
wh_add_test(test_fw_console SOURCES test_fw_console.c LIBS wh_oracle)
wh_add_test(test_sanitizer SOURCES test_sanitizer.c LIBS wh_oracle)
foreach(t console_desc console_expected console_failure console_tap console_oracle console_values plain_assert crash_null asan_overflow)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()
