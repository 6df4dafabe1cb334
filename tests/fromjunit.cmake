# Reducing every failing test of a report (whittle reduce --from-junit /
# --from-ctest) and the root-cause groups printed at the end.
wh_add_test(test_junit_cases SOURCES test_junit_cases.c LIBS wh_oracle)
wh_add_test(test_testfind SOURCES test_testfind.c LIBS wh_coord)
wh_add_test(test_group SOURCES test_group.c LIBS wh_group)
foreach(t from_junit from_ctest cluster_groups)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()
