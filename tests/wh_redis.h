/*
 * wh_redis — a private redis-server for unit tests: a free loopback port,
 * start (killed with the test: PR_SET_PDEATHSIG), one raw inline command,
 * kill. Static helpers, one copy per test program.
 */
#ifndef WH_REDIS_H
#define WH_REDIS_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void wh_redis_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static int wh_redis_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

/* Sends one inline command on a fresh connection and returns the raw reply
 * ("+PONG\r\n", "$9\r\nPreserved\r\n", "$-1\r\n", ":-1\r\n"), or "" when
 * Redis does not answer. */
static void wh_redis_raw(int port, const char *cmd, char *out, size_t outsz)
{
    out[0] = '\0';
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    if (fd < 0)
        return;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return;
    }
    char line[512];
    snprintf(line, sizeof line, "%s\r\n", cmd);
    if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
        close(fd);
        return;
    }
    size_t n = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 2000) <= 0)
            break;
        ssize_t r = read(fd, out + n, outsz - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        out[n] = '\0';
        char *crlf = strstr(out, "\r\n");
        if (!crlf)
            continue;
        if (out[0] != '$')
            break;
        long blen = strtol(out + 1, NULL, 10);
        if (blen < 0 || n >= (size_t)(crlf - out) + 2 + (size_t)blen + 2)
            break;
    }
    close(fd);
}

static pid_t wh_redis_start(int port)
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 1);
            dup2(nul, 2);
        }
        char p[16];
        snprintf(p, sizeof p, "%d", port);
        execlp("redis-server", "redis-server", "--port", p, "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--daemonize", "no", (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    for (int i = 0; i < 500; i++) {
        char r[64];
        wh_redis_raw(port, "PING", r, sizeof r);
        if (strcmp(r, "+PONG\r\n") == 0)
            return pid;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            fprintf(stderr, "redis-server exited (%d): is it installed?\n",
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            return -1;
        }
        wh_redis_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static void wh_redis_kill(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

#endif
