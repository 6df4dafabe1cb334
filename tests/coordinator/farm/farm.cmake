# The farm over a cluster (issue 11): mutate --cluster --reduce with a real
# coordinator and nodes. Run under the cluster lock.
wh_add_e2e(cluster_farm LABELS e2e cluster)
# Root-cause groups of run folders.
wh_add_test(test_group SOURCES test_group.c LIBS wh_group)
# Root-cause keys of a batch before reducing (issue 35).
wh_add_test(test_batchgroup SOURCES test_batchgroup.c LIBS wh_batchgroup)
# The order of a night's groups and the history of root causes (issue 35).
wh_add_test(test_priority SOURCES test_priority.c LIBS wh_priority)
