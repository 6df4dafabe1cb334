# proto/wire (envelope codec, ZeroMQ framing) and coordinator/cache.
wh_add_test(test_wire SOURCES test_wire.c LIBS wh_proto)
wh_add_test(test_cache SOURCES test_cache.c LIBS wh_cache)
