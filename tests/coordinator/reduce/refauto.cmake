# Issue 19: --reference auto, the default in a git project: the pick in real
# temporary git repositories, and a whole run whose bug is an uncommitted
# change (the reduced test fails on the bug and passes on HEAD).
wh_add_test(test_refauto SOURCES test_refauto.c LIBS wh_coord)
wh_add_e2e(ref_auto)
