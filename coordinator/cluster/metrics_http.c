/* The metrics and health HTTP server (libmicrohttpd, its own thread): see
 * metrics.h. It serves only what the poll loop published.
 *
 * libmicrohttpd's own timeout counts inactivity, so a client sending a
 * byte every few seconds (slow-loris) kept its connection for ever. A
 * reaper thread holds every connection's start (set again when a request
 * is answered) and shuts down (shutdown(2): libmicrohttpd sees the end of
 * the stream and closes the socket itself) one whose request is not whole
 * after WH_METRICS_IDLE_TIMEOUT_S. The list is changed under a mutex that
 * the reaper holds while it calls shutdown, and libmicrohttpd reports a
 * connection closed before it closes its socket, so the reaper never
 * touches a descriptor number reused by another file. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "metrics.h"

#define S_REAP_EVERY_MS 200

/* One open connection. */
typedef struct s_conn {
    int fd;
    int shut;          /* shutdown already */
    uint64_t since_ms; /* its start, or its last answer */
    struct s_conn *prev, *next;
} s_conn_t;

struct wh_metrics {
    struct MHD_Daemon *d;
    pthread_mutex_t cmu;   /* conns */
    s_conn_t *conns;
    pthread_t reaper;
    int reaper_started;
    atomic_int stop;
    pthread_mutex_t mu;
    char *text;            /* newest /metrics body */
    int ready;
    char *why_not;         /* reason when not ready */
    uint64_t published_ms; /* 0: never */
    unsigned stall_ms;
    char addr[64];
};

static enum MHD_Result s_send(struct MHD_Connection *c, unsigned code, const char *type,
                              const char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result rc = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return rc;
}

/* The answer to one GET, made under the lock; *code set. */
static char *s_answer(wh_metrics_t *m, const char *url, unsigned *code, const char **type)
{
    *type = "text/plain; charset=utf-8";
    uint64_t now = wh_now_ms();
    if (!strcmp(url, "/metrics")) {
        *code = m->text ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
        *type = "text/plain; version=0.0.4; charset=utf-8";
        return strdup(m->text ? m->text : "no sample yet\n");
    }
    if (!strcmp(url, "/healthz") || !strcmp(url, "/livez")) {
        uint64_t age = m->published_ms ? now - m->published_ms : 0;
        if (m->published_ms && age < m->stall_ms) {
            *code = MHD_HTTP_OK;
            return strdup("ok\n");
        }
        *code = MHD_HTTP_SERVICE_UNAVAILABLE;
        return m->published_ms
                   ? wh_strdup_printf("poll loop stalled: no turn for %llu ms\n",
                                      (unsigned long long)age)
                   : strdup("starting\n");
    }
    if (!strcmp(url, "/readyz")) {
        int ok = m->ready && m->published_ms && now - m->published_ms < m->stall_ms;
        *code = ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
        return ok ? strdup("ready\n")
                  : wh_strdup_printf("not ready: %s\n",
                                     m->why_not ? m->why_not : "poll loop not turning");
    }
    *code = MHD_HTTP_NOT_FOUND;
    return strdup("not found: try /metrics, /healthz or /readyz\n");
}

static enum MHD_Result s_handle(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *upload,
                                size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    (void)state;
    wh_metrics_t *m = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return s_send(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "GET only\n");
    if (*upload_size)
        return MHD_NO;
    unsigned code = 0;
    const char *type = NULL;
    pthread_mutex_lock(&m->mu);
    char *body = s_answer(m, url, &code, &type);
    pthread_mutex_unlock(&m->mu);
    enum MHD_Result rc = body ? s_send(c, code, type, body) : MHD_NO;
    free(body);
    return rc;
}

/* libmicrohttpd's word that a connection opened or closed. */
static void s_on_conn(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe)
{
    wh_metrics_t *m = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        s_conn_t *k = ci ? calloc(1, sizeof *k) : NULL;
        *socket_context = k;
        if (!k)
            return; /* not reaped: libmicrohttpd's inactivity timeout still holds */
        k->fd = ci->connect_fd;
        k->since_ms = wh_now_ms();
        pthread_mutex_lock(&m->cmu);
        k->next = m->conns;
        if (m->conns)
            m->conns->prev = k;
        m->conns = k;
        pthread_mutex_unlock(&m->cmu);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
        s_conn_t *k = *socket_context;
        pthread_mutex_lock(&m->cmu);
        if (k->prev)
            k->prev->next = k->next;
        else
            m->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        pthread_mutex_unlock(&m->cmu);
        free(k);
        *socket_context = NULL;
    }
}

/* A request was answered: the connection's next one has its own time. */
static void s_on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)con_cls;
    (void)toe;
    wh_metrics_t *m = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    s_conn_t *k = ci ? ci->socket_context : NULL;
    if (!k)
        return;
    pthread_mutex_lock(&m->cmu);
    k->since_ms = wh_now_ms();
    pthread_mutex_unlock(&m->cmu);
}

static void *s_reaper(void *arg)
{
    wh_metrics_t *m = arg;
    const uint64_t limit = (uint64_t)WH_METRICS_IDLE_TIMEOUT_S * 1000u;
    while (!atomic_load(&m->stop)) {
        usleep(S_REAP_EVERY_MS * 1000);
        uint64_t now = wh_now_ms();
        pthread_mutex_lock(&m->cmu);
        for (s_conn_t *k = m->conns; k; k = k->next)
            if (!k->shut && now - k->since_ms >= limit) {
                shutdown(k->fd, SHUT_RDWR);
                k->shut = 1;
            }
        pthread_mutex_unlock(&m->cmu);
    }
    return NULL;
}

/* How many connections the server may hold: WH_METRICS_MAX_CONNECTIONS,
 * or what the open-files limit leaves (its soft limit raised to the hard
 * one first). */
static unsigned s_conn_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit up = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            rl = up;
    }
    if (rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur > WH_METRICS_MAX_CONNECTIONS + WH_METRICS_FD_RESERVE)
        return WH_METRICS_MAX_CONNECTIONS;
    return rl.rlim_cur > 2 * WH_METRICS_FD_RESERVE ? (unsigned)(rl.rlim_cur - WH_METRICS_FD_RESERVE)
                                                   : (unsigned)rl.rlim_cur / 2;
}

/* "PORT" or "HOST:PORT" into an IPv4 socket address. */
static int s_parse_addr(const char *addr, struct sockaddr_in *sa, char **err)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    const char *colon = strrchr(addr, ':');
    char host[64] = "127.0.0.1";
    const char *port = addr;
    if (colon) {
        size_t n = (size_t)(colon - addr);
        if (n == 0 || n >= sizeof host) {
            *err = wh_strdup_printf("--metrics wants PORT or HOST:PORT, not '%s'", addr);
            return -1;
        }
        memcpy(host, addr, n);
        host[n] = 0;
        port = colon + 1;
    }
    long p = 0;
    if (wh_parse_long(port, 0, 65535, &p)) {
        *err = wh_strdup_printf("--metrics: port must be 0..65535, not '%s' (in '%s')", port, addr);
        return -1;
    }
    if (!strcmp(host, "localhost"))
        strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        *err = wh_strdup_printf("--metrics: '%s' is not an IPv4 address (in '%s')", host, addr);
        return -1;
    }
    sa->sin_port = htons((uint16_t)p);
    return 0;
}

wh_metrics_t *wh_metrics_start(const char *addr, char **err)
{
    struct sockaddr_in sa;
    if (s_parse_addr(addr, &sa, err) != 0)
        return NULL;
    wh_metrics_t *m = calloc(1, sizeof *m);
    if (!m) {
        *err = strdup("out of memory");
        return NULL;
    }
    pthread_mutex_init(&m->mu, NULL);
    pthread_mutex_init(&m->cmu, NULL);
    m->stall_ms = WH_METRICS_STALL_MS;
    /* epoll (MHD_USE_AUTO on Linux): no select() limit of 1024 descriptors */
    m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL,
                            s_handle, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                            MHD_OPTION_CONNECTION_LIMIT, s_conn_limit(),
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WH_METRICS_IDLE_TIMEOUT_S,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
                            MHD_OPTION_NOTIFY_CONNECTION, s_on_conn, m,
                            MHD_OPTION_NOTIFY_COMPLETED, s_on_done, m, MHD_OPTION_END);
    if (m->d && pthread_create(&m->reaper, NULL, s_reaper, m) == 0)
        m->reaper_started = 1;
    if (!m->d || !m->reaper_started) {
        *err = m->d ? strdup("--metrics: cannot start the connection reaper thread")
                    : wh_strdup_printf("--metrics: cannot serve on %s (address in use or not "
                                       "local?)",
                                       addr);
        if (m->d)
            MHD_stop_daemon(m->d);
        pthread_mutex_destroy(&m->mu);
        pthread_mutex_destroy(&m->cmu);
        free(m);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
    char host[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
    snprintf(m->addr, sizeof m->addr, "%s:%u", host,
             di ? (unsigned)di->port : (unsigned)ntohs(sa.sin_port));
    return m;
}

const char *wh_metrics_addr(const wh_metrics_t *m)
{
    return m->addr;
}

void wh_metrics_publish(wh_metrics_t *m, const char *text, int ready, const char *why_not)
{
    char *t = strdup(text ? text : "");
    char *w = why_not ? strdup(why_not) : NULL;
    pthread_mutex_lock(&m->mu);
    free(m->text);
    free(m->why_not);
    m->text = t;
    m->why_not = w;
    m->ready = ready;
    m->published_ms = wh_now_ms();
    pthread_mutex_unlock(&m->mu);
}

void wh_metrics_set_stall(wh_metrics_t *m, unsigned ms)
{
    pthread_mutex_lock(&m->mu);
    m->stall_ms = ms;
    pthread_mutex_unlock(&m->mu);
}

void wh_metrics_stop(wh_metrics_t **pm)
{
    wh_metrics_t *m = *pm;
    if (!m)
        return;
    atomic_store(&m->stop, 1);
    pthread_join(m->reaper, NULL);
    MHD_stop_daemon(m->d); /* reports every connection closed: the list empties */
    pthread_mutex_destroy(&m->mu);
    pthread_mutex_destroy(&m->cmu);
    free(m->text);
    free(m->why_not);
    free(m);
    *pm = NULL;
}
