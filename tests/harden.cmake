# What whittle takes from users and peers is checked first (issue 10).
wh_add_test(test_harden SOURCES test_harden.c LIBS wh_coord wh_node m)
