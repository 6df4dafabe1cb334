# Framework presets for Check, CUnit, Criterion and Unity (node/fw/fw_xunit.c):
# the report readers on saved reports, and whittle reducing one fixture
# project per framework.

wh_add_test(test_fw_xunit SOURCES test_fw_xunit.c LIBS wh_oracle)
foreach(fw check cunit criterion unity)
  wh_add_script(e2e_fw_${fw} e2e/fw_${fw}.sh)
endforeach()
# The framework presets and their report readers.
wh_add_test(test_framework SOURCES test_framework.c LIBS wh_oracle)
