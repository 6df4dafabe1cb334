# Busy and loss budgets of the pool (issue 10): the backoff module alone,
# and a node that always answers busy beside an honest one.
wh_add_test(test_budget SOURCES test_budget.c LIBS wh_coord)
add_test(NAME e2e_busy_node COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/busy_node.sh)
set_tests_properties(e2e_busy_node PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 900 LABELS e2e)
