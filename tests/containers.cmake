# The container images without building one (issue 10): package lists against
# the binaries' libraries and CMake's dependencies, the entrypoints' command
# lines against the daemons' --help, compose/k8s against the images.
foreach(t container_packages container_entrypoints)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR};WH_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 120 LABELS e2e SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME e2e_container_manifests COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/e2e/container_manifests.py)
set_tests_properties(e2e_container_manifests PROPERTIES
  ENVIRONMENT "WH_SOURCE_DIR=${PROJECT_SOURCE_DIR}" TIMEOUT 60 LABELS e2e)
