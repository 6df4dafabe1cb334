/*
 * Implementation of the shared helpers declared in wh_common.h.
 */
#define _GNU_SOURCE
#include "wh_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif

const char *wh_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define WH_ERR_CASE(name, val, str) \
    case WH_##name:                 \
        return str;
        WH_ERRNO_MAP(WH_ERR_CASE)
#undef WH_ERR_CASE
    default:
        break;
    }
    if (err < 0 && err > -4096)
        return strerror(-err);
    return "unknown error";
}

static const char *const s_verdict_names[WH_V_COUNT] = {
    "None", "Preserved", "TestPassed", "DifferentFailure",
    "BuildFailed", "TestMissing", "InfraError",
};

const char *wh_verdict_name(wh_verdict_t v)
{
    if (v == WH_V_UB_GUARD)
        return "UBGuard";
    if ((int)v < 0 || (int)v >= WH_V_COUNT)
        return "None";
    return s_verdict_names[v];
}

wh_verdict_t wh_verdict_parse(const char *s)
{
    if (!s)
        return WH_V_NONE;
    for (int i = 1; i < WH_V_COUNT; i++)
        if (strcmp(s, s_verdict_names[i]) == 0)
            return (wh_verdict_t)i;
    return WH_V_NONE;
}

/* ---- buffer ---- */

static int s_buf_reserve(wh_buf_t *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->buf, cap);
    if (!p)
        return WH_ENOMEM;
    b->buf = p;
    b->cap = cap;
    return 0;
}

int wh_buf_append(wh_buf_t *b, const void *data, size_t n)
{
    int rc = s_buf_reserve(b, n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->buf + b->len, data, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return 0;
}

int wh_buf_puts(wh_buf_t *b, const char *s)
{
    return wh_buf_append(b, s, strlen(s));
}

int wh_buf_vprintf(wh_buf_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return WH_EINVAL;
    int rc = s_buf_reserve(b, (size_t)n);
    if (rc)
        return rc;
    vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int wh_buf_printf(wh_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = wh_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

int wh_buf_sh_quote(wh_buf_t *b, const char *s)
{
    int rc = wh_buf_puts(b, "'");
    for (const char *p = s ? s : ""; *p && !rc; p++)
        rc = *p == '\'' ? wh_buf_puts(b, "'\\''") : wh_buf_append(b, p, 1);
    return rc ? rc : wh_buf_puts(b, "'");
}

int wh_buf_json_str(wh_buf_t *b, const char *s)
{
    int rc = wh_buf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); !rc && *p; p++) {
        switch (*p) {
        case '"': rc = wh_buf_puts(b, "\\\""); break;
        case '\\': rc = wh_buf_puts(b, "\\\\"); break;
        case '\n': rc = wh_buf_puts(b, "\\n"); break;
        case '\r': rc = wh_buf_puts(b, "\\r"); break;
        case '\t': rc = wh_buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                rc = wh_buf_printf(b, "\\u%04x", *p);
            else
                rc = wh_buf_append(b, p, 1);
        }
    }
    return rc ? rc : wh_buf_puts(b, "\"");
}

void wh_buf_reset(wh_buf_t *b)
{
    b->len = 0;
    if (b->buf)
        b->buf[0] = '\0';
}

void wh_buf_free(wh_buf_t *b)
{
    free(b->buf);
    b->buf = NULL;
    b->len = b->cap = 0;
}

char *wh_buf_detach(wh_buf_t *b)
{
    char *p = b->buf ? b->buf : strdup("");
    b->buf = NULL;
    b->len = b->cap = 0;
    return p;
}

char *wh_strdup_printf(const char *fmt, ...)
{
    wh_buf_t b = WH_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int rc = wh_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (rc) {
        wh_buf_free(&b);
        return NULL;
    }
    return wh_buf_detach(&b);
}

char *wh_strdup0(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ---- files ---- */

int wh_read_file(const char *path, size_t cap, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    wh_buf_t b = WH_BUF_INIT;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = -errno;
            close(fd);
            wh_buf_free(&b);
            return e;
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > cap) {
            close(fd);
            wh_buf_free(&b);
            return WH_ETOOBIG;
        }
        if (wh_buf_append(&b, chunk, (size_t)n)) {
            close(fd);
            wh_buf_free(&b);
            return WH_ENOMEM;
        }
    }
    close(fd);
    if (len)
        *len = b.len;
    *out = wh_buf_detach(&b);
    return 0;
}

static int s_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int wh_write_file(const char *path, const void *data, size_t len)
{
    char *tmp = wh_strdup_printf("%s.tmp.%d.%lx", path, (int)getpid(),
                                 (unsigned long)pthread_self());
    if (!tmp)
        return WH_ENOMEM;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = -errno;
        free(tmp);
        return e;
    }
    int rc = s_write_all(fd, data, len);
    if (close(fd) < 0 && !rc)
        rc = -errno;
    if (!rc && rename(tmp, path) < 0)
        rc = -errno;
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

int wh_write_file_inplace(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = s_write_all(fd, data, len);
    if (close(fd) < 0 && !rc)
        rc = -errno;
    return rc;
}

int wh_mkdir_p(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return WH_ENOMEM;
    size_t n = strlen(p);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                int e = -errno;
                free(p);
                return e;
            }
            p[i] = c;
        }
    }
    free(p);
    return wh_is_dir(path) ? 0 : -ENOTDIR;
}

int wh_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -errno;
    if (!S_ISDIR(st.st_mode))
        return unlink(path) < 0 ? -errno : 0;
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *sub = wh_path_join(path, e->d_name);
        if (!sub) {
            rc = WH_ENOMEM;
            break;
        }
        int r = wh_rm_rf(sub);
        free(sub);
        if (r && !rc)
            rc = r;
    }
    closedir(d);
    if (rmdir(path) < 0 && !rc)
        rc = -errno;
    return rc;
}

int wh_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int wh_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *wh_abspath(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    if (path[0] == '/')
        return strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    return wh_path_join(cwd, path);
}

char *wh_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    return wh_strdup_printf("%.*s/%s", (int)la, a, b);
}

int wh_path_is_plain_relative(const char *path)
{
    if (!path || !*path || path[0] == '/' || strlen(path) > 4096)
        return 0;
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return 0;
    const char *c = path;
    for (;;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (!slash)
            return 1;
        c = slash + 1;
    }
}

int wh_secs_to_ms(double secs, double max_s, unsigned *ms)
{
    /* Written so that NaN fails every comparison and is refused. */
    if (!(secs > 0.0) || !(secs <= max_s) || !(max_s <= 4294967.0))
        return WH_EINVAL;
    double v = secs * 1000.0;
    *ms = v < 1.0 ? 1u : (unsigned)v;
    return 0;
}

int wh_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return WH_EINVAL;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || end == s || *end || v < lo || v > hi)
        return WH_EINVAL;
    *out = v;
    return 0;
}

/* ---- time ---- */

void wh_mem_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

uint64_t wh_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t wh_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- sha256 (OpenSSL EVP) ---- */

struct wh_sha256 {
    EVP_MD_CTX *ctx;
};

wh_sha256_t *wh_sha256_new(void)
{
    wh_sha256_t *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(h->ctx);
        free(h);
        return NULL;
    }
    return h;
}

void wh_sha256_update(wh_sha256_t *h, const void *data, size_t n)
{
    EVP_DigestUpdate(h->ctx, data, n);
}

void wh_sha256_field(wh_sha256_t *h, const void *data, size_t n)
{
    char len[32];
    int k = snprintf(len, sizeof len, "%zu:", n);
    EVP_DigestUpdate(h->ctx, len, (size_t)k);
    EVP_DigestUpdate(h->ctx, data, n);
}

void wh_sha256_field_str(wh_sha256_t *h, const char *s)
{
    if (!s)
        s = "";
    wh_sha256_field(h, s, strlen(s));
}

void wh_sha256_final_hex(wh_sha256_t **hp, char out[65])
{
    wh_sha256_t *h = *hp;
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_DigestFinal_ex(h->ctx, md, &mdlen);
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
    out[64] = '\0';
    EVP_MD_CTX_free(h->ctx);
    free(h);
    *hp = NULL;
}

void wh_sha256_hex(const void *data, size_t n, char out[65])
{
    wh_sha256_t *h = wh_sha256_new();
    wh_sha256_update(h, data, n);
    wh_sha256_final_hex(&h, out);
}

/* ---- logging ---- */

static int s_log_level = WH_LOG_WARN;
static pthread_mutex_t s_log_mu = PTHREAD_MUTEX_INITIALIZER;

void wh_log_set_level(int level)
{
    s_log_level = level;
}

int wh_log_level(void)
{
    return s_log_level;
}

void wh_log(int level, const char *fmt, ...)
{
    if (level > s_log_level)
        return;
    static const char *const tags[] = {"error", "warning", "info", "debug"};
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&s_log_mu);
    fprintf(stderr, "whittle: %s: ", tags[level < 0 ? 0 : level > 3 ? 3 : level]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&s_log_mu);
    va_end(ap);
}

/* ---- fingerprint ---- */

void wh_fp_clear(wh_fp_t *fp)
{
    free(fp->test);
    free(fp->kind);
    free(fp->message);
    free(fp->location);
    fp->test = fp->kind = fp->message = fp->location = NULL;
}

int wh_fp_copy(wh_fp_t *dst, const wh_fp_t *src)
{
    wh_fp_t t = {wh_strdup0(src->test), wh_strdup0(src->kind),
                 wh_strdup0(src->message), wh_strdup0(src->location)};
    if ((src->test && !t.test) || (src->kind && !t.kind) ||
        (src->message && !t.message) || (src->location && !t.location)) {
        wh_fp_clear(&t);
        return WH_ENOMEM;
    }
    *dst = t;
    return 0;
}

int wh_fp_json(wh_buf_t *b, const wh_fp_t *fp)
{
    int rc = 0;
    rc |= wh_buf_puts(b, "{\"test\": ");
    rc |= wh_buf_json_str(b, fp->test);
    rc |= wh_buf_puts(b, ", \"kind\": ");
    rc |= wh_buf_json_str(b, fp->kind);
    rc |= wh_buf_puts(b, ", \"message\": ");
    rc |= wh_buf_json_str(b, fp->message);
    rc |= wh_buf_puts(b, ", \"location\": ");
    rc |= wh_buf_json_str(b, fp->location);
    rc |= wh_buf_puts(b, "}");
    return rc ? WH_ENOMEM : 0;
}

/* ---- waking a poll from another thread ---- */

int wh_wake_open(void)
{
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int wh_wake_signal(int fd)
{
    uint64_t one = 1;
    if (fd < 0 || write(fd, &one, sizeof one) == (ssize_t)sizeof one || errno == EAGAIN)
        return 0; /* EAGAIN: the counter is full, so readable already */
    return -errno;
}

int wh_timer_open(void)
{
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

int wh_timer_arm(int fd, uint64_t ms)
{
    if (fd < 0)
        return 0;
    if (ms == 0)
        ms = 1; /* an it_value of 0 would disarm it */
    struct itimerspec t = {0};
    t.it_value.tv_sec = (time_t)(ms / 1000);
    t.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
    return timerfd_settime(fd, 0, &t, NULL) == 0 ? 0 : -errno;
}

void wh_wake_drain(int fd)
{
    uint64_t n;
    while (fd >= 0 && read(fd, &n, sizeof n) > 0)
        ;
}

int wh_cond_init_mono(void *cv)
{
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return -1;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init((pthread_cond_t *)cv, &ca);
    pthread_condattr_destroy(&ca);
    return rc == 0 ? 0 : -1;
}

void wh_cond_wait_ms(void *cv, void *mu, uint64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait((pthread_cond_t *)cv, (pthread_mutex_t *)mu, &ts);
}
