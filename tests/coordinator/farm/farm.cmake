# The farm over a cluster (issue 11): mutate --cluster --reduce with a real
# coordinator and nodes. Run under the cluster lock.
wh_add_e2e(cluster_farm LABELS e2e cluster)
# Root-cause groups of run folders.
wh_add_test(test_group SOURCES test_group.c LIBS wh_group)
wh_add_test(test_batchgroup SOURCES test_batchgroup.c LIBS wh_batchgroup)
