# The coordinator's job journal (issue 10): jobs survive a coordinator crash.
wh_add_test(test_journal SOURCES test_journal.c LIBS wh_journal)
# kill -9 of the coordinator mid-job: the job resumes, the client reattaches.
wh_add_e2e(cluster_journal SERIAL LABELS e2e cluster)
