# Framework presets for Check, CUnit, Criterion and Unity (node/fw_xunit.c):
# the report readers on saved reports, and whittle reducing one fixture
# project per framework.

wh_add_test(test_fw_xunit SOURCES test_fw_xunit.c LIBS wh_oracle)
foreach(fw check cunit criterion unity)
  add_test(NAME e2e_fw_${fw} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/fw_${fw}.sh)
  set_tests_properties(e2e_fw_${fw} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()
