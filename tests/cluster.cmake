# Cluster tests (issue 3): multi-host on network namespaces, Redis outage.
# Both are slow and use fixed ports/namespaces: run them one at a time.
# netns.sh exits 77 (skipped) when it may not create network namespaces.
foreach(t netns redis_stop redis_auth)
  add_test(NAME cluster_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cluster/${t}.sh)
  set_tests_properties(cluster_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 600
    LABELS "cluster;slow"
    RUN_SERIAL TRUE
    SKIP_RETURN_CODE 77)
endforeach()
