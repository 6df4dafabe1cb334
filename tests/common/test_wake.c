/*
 * test_wake — the fds a poll watches to be woken: the eventfd other
 * threads signal (wh_wake_*) and the timer the walk arms for a wait it
 * chose (wh_timer_*). Every wait is a poll with a deadline, never a sleep.
 */
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "wh_common.h"
#include "wh_test.h"

static int s_readable(int fd, int timeout_ms)
{
    struct pollfd pf = {fd, POLLIN, 0};
    return poll(&pf, 1, timeout_ms);
}

static void test_wake(void)
{
    int fd = wh_wake_open();
    CHECK(fd >= 0);
    CHECK_EQ_INT(s_readable(fd, 0), 0);
    CHECK_EQ_INT(wh_wake_signal(fd), 0);
    CHECK_EQ_INT(wh_wake_signal(fd), 0); /* twice: still one wake-up */
    CHECK_EQ_INT(s_readable(fd, 0), 1);
    wh_wake_drain(fd);
    CHECK_EQ_INT(s_readable(fd, 0), 0);
    CHECK_EQ_INT(wh_wake_signal(-1), 0); /* no fd: nothing */
    close(fd);
}

static void test_timer(void)
{
    int fd = wh_timer_open();
    CHECK(fd >= 0);
    CHECK_EQ_INT(s_readable(fd, 0), 0); /* not armed */
    uint64_t t0 = wh_now_ms();
    CHECK_EQ_INT(wh_timer_arm(fd, 30), 0);
    CHECK_EQ_INT(s_readable(fd, 60000), 1); /* a deadline, not a sleep */
    CHECK(wh_now_ms() - t0 >= 29);          /* not before its time */
    wh_wake_drain(fd);
    CHECK_EQ_INT(s_readable(fd, 0), 0);
    /* armed again: the later arming replaces the earlier one */
    CHECK_EQ_INT(wh_timer_arm(fd, 60000), 0);
    CHECK_EQ_INT(wh_timer_arm(fd, 0), 0); /* 0: as soon as it can, not disarmed */
    CHECK_EQ_INT(s_readable(fd, 60000), 1);
    wh_wake_drain(fd);
    CHECK_EQ_INT(s_readable(fd, 0), 0); /* one-shot */
    CHECK_EQ_INT(wh_timer_arm(-1, 5), 0);
    close(fd);
}

int main(void)
{
    RUN_TEST(test_wake);
    RUN_TEST(test_timer);
    TEST_MAIN_END();
}
