# The fds a poll is woken by: the eventfd of other threads, the walk's timer.
wh_add_test(test_wake SOURCES test_wake.c LIBS wh_common)
