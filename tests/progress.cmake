# Progress, argv-only external commands, job identity, unreachable
# coordinators (issue 12).
foreach(t space_path unreachable identity progress)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 900 LABELS e2e)
endforeach()

# The status line's format and ETA, and the engine's rounds-left count.
wh_add_test(test_progress SOURCES test_progress.c LIBS wh_coord)

# --ignore globs and the snapshot ids of a folder and of a git project.
wh_add_test(test_identity SOURCES test_identity.c LIBS wh_coord)
