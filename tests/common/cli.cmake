# The command line from one option table (issue 12): the parser's unit test,
# and e2e_cli (help, man pages, completion, install, --version).
wh_add_test(test_cli SOURCES test_cli.c LIBS wh_cli)
wh_add_e2e(cli TIMEOUT 300)
