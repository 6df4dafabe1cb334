# The coordinator's job journal (issue 10): jobs survive a coordinator crash.
wh_add_test(test_journal SOURCES test_journal.c LIBS wh_journal)
# kill -9 of the coordinator mid-job: the job resumes, the client reattaches.
add_test(NAME e2e_cluster_journal COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/cluster_journal.sh)
set_tests_properties(e2e_cluster_journal PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 900 LABELS "e2e;cluster" RUN_SERIAL TRUE)
