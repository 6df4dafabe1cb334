# Test-suite reduction over kill matrices: ILP (GLPK) against brute force,
# DIFF and FAST++ coverage.
wh_add_test(test_suite SOURCES test_suite.c LIBS wh_suite)
wh_add_test(test_mutagen SOURCES test_mutagen.c LIBS wh_mutagen)
