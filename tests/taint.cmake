# Tainted verdicts (issue 8): the infrastructure-fault classifier, and a
# cluster whose node works on a full disk (a small tmpfs; root only, else
# skipped with 77). Run the cluster test under the cluster lock.
wh_add_test(test_taint SOURCES test_taint.c LIBS wh_taint)
