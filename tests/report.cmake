# The unified diff (coordinator/udiff.c) and the HTML report (coordinator/report.c).
wh_add_test(test_udiff SOURCES test_udiff.c LIBS wh_engine)
wh_add_test(test_report SOURCES test_report.c LIBS wh_coord)

# The page in a real browser (headless Chromium): a reduction on the
# embedded pool, and one submitted to a cluster (run it under the cluster
# lock). Screenshots go to build/tests/artifacts/.
foreach(t report_html cluster_report)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()
