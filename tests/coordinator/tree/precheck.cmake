# Front-end prediction of BuildFailed: coordinator/tree/precheck.c.
wh_add_test(test_precheck SOURCES test_precheck.c LIBS wh_precheck)
