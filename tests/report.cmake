# The unified diff (coordinator/udiff.c) and the HTML report (coordinator/report.c).
wh_add_test(test_udiff SOURCES test_udiff.c LIBS wh_engine)
