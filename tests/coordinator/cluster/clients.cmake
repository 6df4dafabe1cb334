# One coordinator shared by many client keys (issue 18): whittle status
# shows a key its own jobs and counts the others'.
wh_add_e2e(status_owner LABELS e2e cluster)
# A client key has at most --max-client-jobs jobs queued or running.
wh_add_e2e(max_client_jobs LABELS e2e cluster)
# Jobs prepared a few at a time, first come, first served; each job's
# original queued before its front end is set up (issue 35).
wh_add_e2e(prepare_queue LABELS e2e cluster)
# The preparation queue: bounded threads, levels, submit order, cancel.
wh_add_test(test_prepq SOURCES test_prepq.c LIBS wh_cluster)
