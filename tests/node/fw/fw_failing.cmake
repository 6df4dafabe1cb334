# The failing functions a whole test program's output names (cmocka, gtest,
# Unity, Check, CUnit, Criterion), for reduce --from-ctest's split.
wh_add_test(test_fw_failing SOURCES test_fw_failing.c LIBS wh_oracle)
