/* metrics: the Prometheus text of a sample, and the HTTP server's answers
 * (a real libmicrohttpd daemon on a loopback port, read with a socket). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "metrics.h"
#include "wh_test.h"

static int s_has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, line, n) && (p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}

static void test_render(void)
{
    wh_metrics_node_t nodes[] = {{"n1", 2, 40, 3}, {"odd\"na\\me", 0, 5, 0}};
    wh_metrics_sample_t s = {.jobs_submitted = 3, .jobs_finished = 1, .jobs_failed = 1,
                             .jobs_preparing = 0, .jobs_running = 1, .queued = 7, .slots = 4,
                             .busy = 2, .warming = 1, .idle = 1, .nodes = 2, .judged = 45,
                             .judged_per_s = 1.5, .cache_lookups = 20, .cache_hits = 5,
                             .uptime_s = 12, .per_node = nodes, .n_nodes = 2};
    wh_buf_t b = WH_BUF_INIT;
    wh_metrics_render(&s, &b);
    CHECK(s_has_line(b.buf, "whittle_jobs_total{outcome=\"submitted\"} 3"));
    CHECK(s_has_line(b.buf, "whittle_jobs_total{outcome=\"failed\"} 1"));
    CHECK(s_has_line(b.buf, "whittle_jobs{state=\"running\"} 1"));
    CHECK(s_has_line(b.buf, "whittle_queue_depth 7"));
    CHECK(s_has_line(b.buf, "whittle_slots{state=\"busy\"} 2"));
    CHECK(s_has_line(b.buf, "whittle_slots{state=\"warming\"} 1"));
    CHECK(s_has_line(b.buf, "whittle_candidates_judged_total 45"));
    CHECK(s_has_line(b.buf, "whittle_candidates_per_second 1.5"));
    CHECK(s_has_line(b.buf, "whittle_cache_hit_ratio 0.25"));
    CHECK(s_has_line(b.buf, "whittle_node_infra_errors_total{node=\"n1\"} 3"));
    CHECK(s_has_line(b.buf, "whittle_node_verdicts_total{node=\"odd\\\"na\\\\me\"} 5"));
    CHECK(s_has_line(b.buf, "# TYPE whittle_node_slots gauge"));
    CHECK(s_has_line(b.buf, "# TYPE whittle_cache_hits_total counter"));
    /* every sample line belongs to a family declared with # TYPE before it */
    int undeclared = 0;
    for (const char *p = b.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (*p == '#')
            continue;
        size_t n = strcspn(p, "{ ");
        char decl[128];
        snprintf(decl, sizeof decl, "# TYPE %.*s ", (int)n, p);
        const char *d = strstr(b.buf, decl);
        undeclared += !d || d > p;
    }
    CHECK_EQ_INT(undeclared, 0);
    wh_buf_free(&b);
    /* no lookups: ratio 0, not NaN */
    wh_metrics_sample_t z = {0};
    wh_metrics_render(&z, &b);
    CHECK(s_has_line(b.buf, "whittle_cache_hit_ratio 0"));
    wh_buf_free(&b);
}

/* A TCP connection to 127.0.0.1:port whose reads and writes give up after
 * 3 s (a server that does not answer fails the check, it does not hang the
 * test), or -1. */
static int s_dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    struct timeval tv = {3, 0};
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* GET path from 127.0.0.1:port; returns the status code, body in out. */
static int s_get(int port, const char *path, char *out, size_t cap)
{
    out[0] = 0;
    int fd = s_dial(port);
    if (fd < 0)
        return -1;
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(fd, out + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    out[len] = 0;
    close(fd);
    int code = -1;
    sscanf(out, "HTTP/1.%*d %d", &code);
    char *body = strstr(out, "\r\n\r\n");
    if (body)
        memmove(out, body + 4, strlen(body + 4) + 1);
    return code;
}

static void test_http(void)
{
    char *err = NULL;
    wh_metrics_t *m = wh_metrics_start("127.0.0.1:0", &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return;
    }
    int port = atoi(strchr(wh_metrics_addr(m), ':') + 1);
    CHECK(port > 0);
    char body[4096];
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), 503);
    CHECK_EQ_STR(body, "starting\n");
    CHECK_EQ_INT(s_get(port, "/metrics", body, sizeof body), 503);
    wh_metrics_publish(m, "whittle_x 1\n", 1, NULL);
    CHECK_EQ_INT(s_get(port, "/metrics", body, sizeof body), 200);
    CHECK_EQ_STR(body, "whittle_x 1\n");
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), 200);
    CHECK_EQ_INT(s_get(port, "/readyz", body, sizeof body), 200);
    wh_metrics_publish(m, "whittle_x 2\n", 0, "stopping");
    CHECK_EQ_INT(s_get(port, "/readyz", body, sizeof body), 503);
    CHECK_EQ_STR(body, "not ready: stopping\n");
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), 200);
    /* a loop that stops publishing fails liveness */
    wh_metrics_set_stall(m, 200);
    usleep(300 * 1000);
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), 503);
    CHECK(strncmp(body, "poll loop stalled: no turn for ", 31) == 0);
    CHECK_EQ_INT(s_get(port, "/other", body, sizeof body), 404);
    wh_metrics_stop(&m);
    CHECK(m == NULL);
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), -1);
}

/* Idle connections must not starve the probes (issue 18): 70 of them used
 * to fill libmicrohttpd's 64 connections, and /healthz went unanswered
 * until they timed out, long enough for a liveness probe to restart the
 * coordinator. Now 80 idle ones (half of them a request cut short, as a
 * slow client sends) leave /healthz answering at once, and the server
 * closes every one of them within its idle timeout (a few seconds). */
#define S_IDLE_N 80
#define S_HEALTHZ_MS 1000   /* /healthz beside them answers within this */
#define S_CLOSED_MS 9000    /* WH_METRICS_IDLE_TIMEOUT_S (5 s) with a margin */

static void test_idle_connections(void)
{
    char *err = NULL;
    wh_metrics_t *m = wh_metrics_start("127.0.0.1:0", &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return;
    }
    wh_metrics_publish(m, "whittle_x 1\n", 1, NULL);
    int port = atoi(strchr(wh_metrics_addr(m), ':') + 1);
    int fds[S_IDLE_N], open_n = 0;
    uint64_t t0 = wh_now_ms();
    for (int i = 0; i < S_IDLE_N; i++) {
        fds[i] = s_dial(port);
        open_n += fds[i] >= 0;
        static const char part[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
        if (fds[i] >= 0 && i % 2 && write(fds[i], part, sizeof part - 1) < 0)
            perror("write");
    }
    CHECK_EQ_INT(open_n, S_IDLE_N);
    char body[4096];
    uint64_t t1 = wh_now_ms();
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), 200);
    uint64_t took = wh_now_ms() - t1;
    CHECK(took < S_HEALTHZ_MS);
    fprintf(stderr, "  /healthz beside %d idle connections: %llu ms\n", open_n,
            (unsigned long long)took);
    /* The server hangs up on each idle one: EOF (or a reset) before the
     * deadline. */
    int closed = 0;
    for (int i = 0; i < S_IDLE_N; i++) {
        if (fds[i] < 0)
            continue;
        for (;;) {
            int64_t left = (int64_t)S_CLOSED_MS - (int64_t)(wh_now_ms() - t0);
            struct pollfd p = {fds[i], POLLIN, 0};
            if (left <= 0 || poll(&p, 1, (int)left) <= 0)
                break;
            char c[256];
            ssize_t r = read(fds[i], c, sizeof c);
            if (r == 0 || (r < 0 && errno == ECONNRESET)) {
                closed++;
                break;
            }
            if (r < 0 && errno != EINTR && errno != EAGAIN)
                break;
        }
        close(fds[i]);
    }
    CHECK_EQ_INT(closed, open_n);
    fprintf(stderr, "  %d of %d idle connections closed by the server within %llu ms\n", closed,
            open_n, (unsigned long long)(wh_now_ms() - t0));
    CHECK_EQ_INT(s_get(port, "/healthz", body, sizeof body), 200);
    wh_metrics_stop(&m);
}

static void test_addr(void)
{
    const char *bad[] = {"x", ":80", "host.example:80", "127.0.0.1:70000", "127.0.0.1:", "1.2.3:5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        wh_metrics_t *m = wh_metrics_start(bad[i], &err);
        CHECK(m == NULL && err && strstr(err, bad[i]));
        if (m)
            wh_metrics_stop(&m);
        free(err);
    }
}

int main(void)
{
    RUN_TEST(test_render);
    RUN_TEST(test_http);
    RUN_TEST(test_idle_connections);
    RUN_TEST(test_addr);
    TEST_MAIN_END();
}
