# The statement tree (libclang): coordinator/tree/tree.c.
wh_add_test(test_tree SOURCES test_tree.c LIBS wh_tree)
