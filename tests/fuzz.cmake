# libFuzzer targets (tests/fuzz/), built with -DWH_FUZZ=ON under clang.
# Each ctest entry runs its target for a fixed number of executions under
# ASan+UBSan, from its seed corpus (tests/fuzz/corpus/<target>/, read only:
# new inputs go to a scratch folder in the build tree, emptied first).
if(WH_FUZZ)
  set(WH_FUZZ_TARGETS wire:500000 job:300000 report:6000 console:20000)
  foreach(t ${WH_FUZZ_TARGETS})
    string(REPLACE ":" ";" tr ${t})
    list(GET tr 0 name)
    list(GET tr 1 runs)
    add_executable(fuzz_${name} fuzz/fuzz_${name}.c)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    set(scratch ${CMAKE_CURRENT_BINARY_DIR}/fuzz-scratch/${name})
    add_test(NAME fuzz_${name} COMMAND sh -c
      "rm -rf '${scratch}' && mkdir -p '${scratch}' && exec \"$0\" -runs=${runs} -seed=1 -max_len=65536 -artifact_prefix='${scratch}/' '${scratch}' '${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name}'"
      $<TARGET_FILE:fuzz_${name}>)
    set_tests_properties(fuzz_${name} PROPERTIES TIMEOUT 300 LABELS fuzz)
  endforeach()
  target_link_libraries(fuzz_wire PRIVATE wh_proto)
  target_link_libraries(fuzz_job PRIVATE wh_coord PkgConfig::JANSSON)
  target_link_libraries(fuzz_report PRIVATE wh_oracle)
  target_link_libraries(fuzz_console PRIVATE wh_oracle)
endif()
