# The farm over a cluster (issue 11): mutate --cluster --reduce with a real
# coordinator and nodes. Run under the cluster lock.
add_test(NAME e2e_cluster_farm COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/cluster_farm.sh)
set_tests_properties(e2e_cluster_farm PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
  TIMEOUT 900 LABELS "e2e;cluster")
