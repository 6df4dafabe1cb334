# Git snapshots (no shared filesystem): base64, ids, refusals of wire input.
wh_add_test(test_snapshot SOURCES test_snapshot.c LIBS wh_common)
