# The command line from one option table (issue 12): the parser's unit test,
# and e2e_cli (help, man pages, completion, install, --version).
wh_add_test(test_cli SOURCES test_cli.c LIBS wh_cli)
add_test(NAME e2e_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/cli.sh)
set_tests_properties(e2e_cli PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 300 LABELS e2e)
