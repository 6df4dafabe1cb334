# End-to-end tests: the whittle binary on fixture projects.
foreach(t cart config headers errors cluster_tcp cluster_auth metrics flaky fault twin gtest ctest warm group suite mutate farm_reduce precheck keep_fault liar)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()

# The coordinator path with simulated slots over real sockets.
wh_add_test(test_sched SOURCES test_sched.c LIBS wh_coord)
wh_add_test(test_pool SOURCES test_pool.c LIBS wh_coord)

# Compile flags from the warm workspace, parse errors, loop macros (issue 8).
foreach(t ringq_flags ringq_foreach)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()

# Least privilege on nodes, the coordinator's run folders, busy budgets
# (issue 10). node_runas needs root (77: skipped).
foreach(t node_runas submit_guard)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e SKIP_RETURN_CODE 77)
endforeach()

# No shared filesystem: git snapshots into mount namespaces that hide the project.
add_test(NAME e2e_snapshot COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/snapshot.sh)
set_tests_properties(e2e_snapshot PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 600 LABELS e2e SKIP_RETURN_CODE 77)
