# The coordinator path with simulated slots over real sockets.
wh_add_test(test_sched SOURCES test_sched.c LIBS wh_coord)
wh_add_test(test_pool SOURCES test_pool.c LIBS wh_coord)
