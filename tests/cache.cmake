# The verdict cache's node records, forget, stats, clear and compaction
# (issues 10 and 12). The unit test and the e2e start a private redis-server.
wh_add_test(test_cache_node SOURCES test_cache_node.c LIBS wh_cache)
foreach(t cache_forget cache_max)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()
wh_add_test(test_cache_admin SOURCES test_cache_admin.c LIBS wh_cache)
