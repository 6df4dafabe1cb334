# The verdict cache's node records, forget, stats, clear and compaction
# (issues 10 and 12). The unit test and the e2e start a private redis-server.
wh_add_test(test_cache_node SOURCES test_cache_node.c LIBS wh_cache)
wh_add_e2e(cache_forget cache_max)
wh_add_test(test_cache_admin SOURCES test_cache_admin.c LIBS wh_cache)
# The cache front and its back ends, on memory:, dir: and a private redis-server.
wh_add_test(test_cache SOURCES test_cache.c LIBS wh_cache)
# Authenticated Redis values (issue 18): the MAC, the secret file, forged
# values against a private redis-server; the e2e reduces through forged ones.
wh_add_test(test_cache_mac SOURCES test_cache_mac.c LIBS wh_cache)
wh_add_e2e(cache_forged)
