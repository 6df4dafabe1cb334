# The one Redis client (URL, password precedence, AUTH, SELECT, timeouts,
# reconnect) against a private redis-server with requirepass and ACL users.
wh_add_test(test_redisc SOURCES test_redisc.c LIBS wh_redisc)
