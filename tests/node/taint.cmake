# Tainted verdicts (issue 8): the infrastructure-fault classifier, and a
# cluster whose node works on a full disk (a small tmpfs; root only, else
# skipped with 77). Run the cluster test under the cluster lock.
wh_add_test(test_taint SOURCES test_taint.c LIBS wh_taint)
wh_add_script(e2e_cluster_full_disk e2e/full_disk.sh SERIAL SKIP77 TIMEOUT 600 LABELS e2e cluster)
wh_add_e2e(infra_slot TIMEOUT 600)
