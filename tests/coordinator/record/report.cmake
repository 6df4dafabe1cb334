# The unified diff (coordinator/record/udiff.c) and the HTML report (coordinator/record/report.c).
wh_add_test(test_udiff SOURCES test_udiff.c LIBS wh_record)
# The batch report's run summaries, sent by a coordinator (coordinator/record/night.c).
wh_add_test(test_night SOURCES test_night.c LIBS wh_record)
wh_add_test(test_report SOURCES test_report.c LIBS wh_coord)

# The page in a real browser (headless Chromium): a reduction on the
# embedded pool, and one submitted to a cluster (run it under the cluster
# lock). Screenshots go to build/tests/artifacts/.
wh_add_e2e(report_html cluster_report)
