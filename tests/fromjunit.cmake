# Reducing every failing test of a report (whittle reduce --from-junit /
# --from-ctest) and the root-cause groups printed at the end.
wh_add_test(test_junit_cases SOURCES test_junit_cases.c LIBS wh_oracle)
