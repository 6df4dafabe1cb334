# Tainted verdicts (issue 8): the infrastructure-fault classifier, and a
# cluster whose node works on a full disk (a small tmpfs; root only, else
# skipped with 77). Run the cluster test under the cluster lock.
wh_add_test(test_taint SOURCES test_taint.c LIBS wh_taint)
add_test(NAME e2e_cluster_full_disk COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/full_disk.sh)
set_tests_properties(e2e_cluster_full_disk PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 600 LABELS "e2e;cluster" RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
add_test(NAME e2e_infra_slot COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/infra_slot.sh)
set_tests_properties(e2e_infra_slot PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 600 LABELS e2e)
