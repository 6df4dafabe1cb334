# proto/wire (envelope codec, ZeroMQ framing).
wh_add_test(test_wire SOURCES test_wire.c LIBS wh_proto)
