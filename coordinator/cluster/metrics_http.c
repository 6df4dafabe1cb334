/* The metrics and health HTTP server (libmicrohttpd, its own thread): see
 * metrics.h. It serves only what the poll loop published. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

struct wh_metrics {
    struct MHD_Daemon *d;
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
    m->stall_ms = WH_METRICS_STALL_MS;
    m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL,
                            s_handle, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)WH_METRICS_MAX_CONNECTIONS,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WH_METRICS_IDLE_TIMEOUT_S,
                            MHD_OPTION_END);
    if (!m->d) {
        *err = wh_strdup_printf("--metrics: cannot serve on %s (address in use or not local?)",
                                addr);
        pthread_mutex_destroy(&m->mu);
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
    MHD_stop_daemon(m->d);
    pthread_mutex_destroy(&m->mu);
    free(m->text);
    free(m->why_not);
    free(m);
    *pm = NULL;
}
