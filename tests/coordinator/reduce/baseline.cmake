# Issue 8: the original run's failure must be identified before reducing.
wh_add_test(test_baseline SOURCES test_baseline.c LIBS wh_coord)
wh_add_test(test_job SOURCES test_job.c LIBS wh_coord)
wh_add_test(test_fw_detect SOURCES test_fw_detect.c LIBS wh_coord)
wh_add_test(test_final_line SOURCES test_final_line.c LIBS wh_coord)
wh_add_test(test_functext SOURCES test_functext.c LIBS wh_coord)
