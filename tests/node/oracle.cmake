# Tests of the oracle library (node/): runner, workspace, framework presets,
# verdicts and end-to-end evaluation on a tiny cmocka project.
wh_add_test(test_runner SOURCES test_runner.c LIBS wh_oracle)
wh_add_test(test_workspace SOURCES test_workspace.c LIBS wh_oracle)
wh_add_test(test_oracle SOURCES test_oracle.c LIBS wh_oracle)
wh_add_test(test_whole SOURCES test_whole.c LIBS wh_oracle)
