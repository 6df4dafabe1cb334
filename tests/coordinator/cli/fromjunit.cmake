# Reducing every failing test of a report (whittle reduce --from-junit /
# --from-ctest) and the root-cause groups printed at the end; ctest_split:
# --from-ctest alone splits a whole-program CTest test into its failing
# functions, with the commands CMake and CTest recorded.
wh_add_test(test_testfind SOURCES test_testfind.c LIBS wh_coord)
wh_add_test(test_ctestinfo SOURCES test_ctestinfo.c LIBS wh_cmds)
# A cluster batch's run summaries, checked when the client takes them (client.c).
wh_add_test(test_client_end SOURCES test_client_end.c LIBS wh_cmds)
wh_add_e2e(from_junit from_ctest cluster_groups ctest_split)
