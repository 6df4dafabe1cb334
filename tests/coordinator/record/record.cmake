# The Final: line and the console's reduced function.
wh_add_test(test_final_line SOURCES test_final_line.c LIBS wh_coord)
wh_add_test(test_functext SOURCES test_functext.c LIBS wh_coord)
