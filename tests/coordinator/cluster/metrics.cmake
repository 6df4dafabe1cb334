# --metrics: Prometheus text and the health endpoints (a real libmicrohttpd).
wh_add_test(test_metrics SOURCES test_metrics.c LIBS wh_metrics)
