# Issue 8: the original run's failure must be identified before reducing.
wh_add_test(test_baseline SOURCES test_baseline.c LIBS wh_coord)
wh_add_test(test_job SOURCES test_job.c LIBS wh_coord)
wh_add_test(test_fw_detect SOURCES test_fw_detect.c LIBS wh_coord)
# The file that #includes a test file (a Check runner), and the flags it implies.
wh_add_test(test_includer SOURCES test_includer.c LIBS wh_coord)
# ... end to end on tests/fixtures/check_runner (inspect, reduce, the error with -- flags).
wh_add_e2e(check_runner)
# --ignore globs and the snapshot ids of a folder and of a git project.
wh_add_test(test_identity SOURCES test_identity.c LIBS wh_coord)
# The exact compile command keeps the workspace's copy of a folder the
# project tracks too, where the setup generated a header.
wh_add_e2e(gen_header)
