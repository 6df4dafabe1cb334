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

/* The cluster secret every redis:// cache and journal needs (wh_mac.h):
 * a 32-byte file under /tmp, named in $WHITTLE_CACHE_SECRET_FILE unless
 * the test set one. Called by wh_redis_free_port, which every test that
 * talks to Redis calls first. */
static char wh_redis_secret_path[] = "/tmp/wh_redis_secret.XXXXXX";

static void wh_redis_secret_unlink(void)
{
    unlink(wh_redis_secret_path);
}

static void wh_redis_secret_env(void)
{
    const char *have = getenv("WHITTLE_CACHE_SECRET_FILE");
    if (have && *have)
        return;
    static int made;
    char *path = wh_redis_secret_path;
    if (!made++) {
        int fd0 = mkstemp(path);
        if (fd0 < 0)
            return;
        close(fd0);
        atexit(wh_redis_secret_unlink);
    }
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0)
        return;
    static const char secret[] = "0123456789abcdef0123456789abcdef-test\n";
    if (write(fd, secret, sizeof secret - 1) == (ssize_t)(sizeof secret - 1))
        setenv("WHITTLE_CACHE_SECRET_FILE", path, 1);
    close(fd);
}

static int wh_redis_free_port(void)
{
    wh_redis_secret_env();
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

/* wh_redis_raw's reply with a bulk value's " mac=<64 hex>" suffix cut off
 * (and its length fixed), so a test compares the value whittle signed;
 * returns 1 when there was one, 0 when not (out unchanged). */
static inline int wh_redis_unmac(char *out)
{
    char *crlf = strstr(out, "\r\n");
    if (out[0] != '$' || !crlf)
        return 0;
    long blen = strtol(out + 1, NULL, 10);
    char *body = crlf + 2;
    if (blen < 69 || strlen(body) < (size_t)blen + 2)
        return 0;
    char *mac = body + blen - 69;
    if (strncmp(mac, " mac=", 5) != 0 || strspn(mac + 5, "0123456789abcdef") < 64)
        return 0;
    char rest[512];
    snprintf(rest, sizeof rest, "%.*s\r\n", (int)(blen - 69), body);
    snprintf(out, 32, "$%ld\r\n", blen - 69);
    strcat(out, rest);
    return 1;
}

/* wh_redis_raw, and the value without its MAC (which must be there). */
static inline void wh_redis_raw_value(int port, const char *cmd, char *out, size_t outsz)
{
    wh_redis_raw(port, cmd, out, outsz);
    if (!wh_redis_unmac(out) && out[0] == '$' && strcmp(out, "$-1\r\n")) {
        size_t n = strlen(out);
        if (n + 10 <= outsz) {
            memmove(out + 9, out, n + 1);
            memcpy(out, "(no mac) ", 9);
        }
    }
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
