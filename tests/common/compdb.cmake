# Compile commands from compilation databases: common/compdb.c.
wh_add_test(test_compdb SOURCES test_compdb.c LIBS wh_compdb)
