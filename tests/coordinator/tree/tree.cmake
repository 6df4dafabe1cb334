# The statement tree (libclang): coordinator/tree/tree.c.
wh_add_test(test_tree SOURCES test_tree.c LIBS wh_tree)
# Local struct member function bodies as Tree statements, end to end on
# tests/fixtures/local_struct (GoogleTest, make).
wh_add_e2e(local_struct)
