# Tar snapshots: packing, round trips, and the refusals of hostile archives.
wh_add_test(test_tar SOURCES test_tar.c LIBS wh_common PkgConfig::ZLIB LABELS unit)
