/*
 * wh_common — the small shared helpers every whittle module may use:
 * error codes, verdict names, a growable byte buffer, file helpers,
 * a monotonic clock, SHA-256 and logging. Nothing here knows about
 * libclang, ZeroMQ, protobuf or Redis.
 *
 * Errors: functions return 0 or a negative WH_E* code; failed system calls
 * return -errno. wh_strerror() names both kinds.
 */
#ifndef WH_COMMON_H
#define WH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>

#define WH_ERRNO_MAP(X)                                          \
    X(EINVAL, -1000, "invalid argument")                         \
    X(ENOMEM, -1001, "out of memory")                            \
    X(EPARSE, -1002, "parse error")                              \
    X(ENOTFOUND, -1003, "not found")                             \
    X(ETIMEOUT, -1004, "timed out")                              \
    X(EPROTO, -1005, "protocol error")                           \
    X(EIO, -1006, "i/o error")                                   \
    X(ESETUP, -1007, "setup command failed")                     \
    X(EBUILD, -1008, "original does not build")                  \
    X(EPASS, -1009, "original test passes")                      \
    X(EREPORT, -1010, "test report missing")                     \
    X(ECANCEL, -1011, "cancelled")                               \
    X(ETOOBIG, -1012, "input exceeds size cap")                  \
    X(EUNAVAIL, -1013, "service unavailable")                    \
    X(ETAINT, -1014, "infrastructure fault")                     \
    X(EAUTH, -1015, "credentials refused")

enum {
#define WH_ERR_ENUM(name, val, str) WH_##name = (val),
    WH_ERRNO_MAP(WH_ERR_ENUM)
#undef WH_ERR_ENUM
};

/* A static description of err (a WH_E* code or -errno). */
const char *wh_strerror(int err);

/* The six verdicts of the thesis, section 3.5. WH_V_NONE means "no verdict
 * yet" and is never stored. The numeric values are part of the wire format
 * and the on-disk cache: never renumber. */
typedef enum {
    WH_V_NONE = 0,
    WH_V_PRESERVED = 1,
    WH_V_TEST_PASSED = 2,
    WH_V_DIFFERENT_FAILURE = 3,
    WH_V_BUILD_FAILED = 4,
    WH_V_TEST_MISSING = 5,
    WH_V_INFRA_ERROR = 6,
    /* Not a node's verdict: the coordinator's UB guard (DESIGN.md, "Trust")
     * found a candidate reading an indeterminate value, so it is not
     * Preserved whatever its build says. Beyond WH_V_COUNT, so the wire,
     * the cache and wh_verdict_parse refuse it: it never travels and is
     * never stored; only the run record names it. */
    WH_V_UB_GUARD = 7,
} wh_verdict_t;
#define WH_V_COUNT 7

/* The exit status of a reduction whose answer no second opinion checked:
 * one cluster node judged every candidate and verified the answer itself,
 * and the client could not verify it on its own machine (README, "Exit
 * status"). A job of a coordinator ends with it too; its client then
 * verifies locally when it can. */
#define WH_EXIT_UNVERIFIED 5
/* The exit status of an answer the budget cut short (--budget): a reduced
 * test all the same, verified afresh, its walk not finished. */
#define WH_EXIT_PARTIAL 6

/* "Preserved", "TestPassed", ..., "UBGuard"; "None" for WH_V_NONE. */
const char *wh_verdict_name(wh_verdict_t v);
/* Inverse of wh_verdict_name; WH_V_NONE when s names no verdict. */
wh_verdict_t wh_verdict_parse(const char *s);

/* ---- growable buffer (always NUL-terminated) ---- */
typedef struct {
    char *buf;
    size_t len;
    size_t cap;
} wh_buf_t;

#define WH_BUF_INIT {NULL, 0, 0}
int wh_buf_append(wh_buf_t *b, const void *data, size_t n);
int wh_buf_puts(wh_buf_t *b, const char *s);
int wh_buf_printf(wh_buf_t *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int wh_buf_vprintf(wh_buf_t *b, const char *fmt, va_list ap);
/* Appends s in single quotes for sh ("it's" as 'it'\''s'). */
int wh_buf_sh_quote(wh_buf_t *b, const char *s);
/* Appends s as a JSON string literal, quotes included. */
int wh_buf_json_str(wh_buf_t *b, const char *s);
void wh_buf_reset(wh_buf_t *b);
void wh_buf_free(wh_buf_t *b);
/* Hands the buffer to the caller (never NULL: "" when empty) and resets b. */
char *wh_buf_detach(wh_buf_t *b);

/* A failure's fingerprint (DESIGN.md, "Oracle and verdicts"). Any field may
 * be NULL (unknown). Owned strings; free with wh_fp_clear. */
typedef struct {
    char *test;      /* the test's full name / id */
    char *kind;      /* "assert", "crash(SIGSEGV)", "sanitizer(asan,heap-buffer-overflow,WRITE)", ... */
    char *message;   /* normalized failure message */
    char *location;  /* "file:line" of the failing assert, or "" */
} wh_fp_t;
void wh_fp_clear(wh_fp_t *fp);
int wh_fp_copy(wh_fp_t *dst, const wh_fp_t *src);
/* JSON object {"test":..,"kind":..,"message":..,"location":..} appended to b. */
int wh_fp_json(wh_buf_t *b, const wh_fp_t *fp);

/* malloc'ed sprintf; NULL only on allocation failure. */
char *wh_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* strdup that accepts NULL (returns NULL). */
char *wh_strdup0(const char *s);

/* The name among names[0..n) that a mistyped `typed` (an option without
 * its dashes, a command, a test, a config field) most likely meant: the
 * first one it abbreviates (3 characters or more), else the nearest by edit
 * distance, a swap of two neighbours counting as one edit (at most 1 for
 * names of 4 to 6 characters, 2 from 7 on; shorter ones only exactly; names
 * over 128 characters never). NULL when none. */
const char *wh_suggest(const char *typed, const char *const *names, size_t n);

/* ---- files ---- */
/* Reads a whole file into a malloc'ed NUL-terminated buffer. Fails with
 * WH_ETOOBIG when the file is larger than cap bytes. */
int wh_read_file(const char *path, size_t cap, char **out, size_t *len);
/* Writes atomically (temp file in the same folder, then rename). */
int wh_write_file(const char *path, const void *data, size_t len);
/* Writes in place (no rename), keeping the inode; for workspace files whose
 * mtime must change for incremental builds. */
int wh_write_file_inplace(const char *path, const void *data, size_t len);
int wh_mkdir_p(const char *path);
int wh_rm_rf(const char *path);
int wh_is_dir(const char *path);
int wh_is_file(const char *path);
/* Absolute, normalized path (realpath for existing paths); malloc'ed. */
char *wh_abspath(const char *path);
/* Joins a and b with one '/'; malloc'ed. */
char *wh_path_join(const char *a, const char *b);
/* 1 when path is safe to join under a folder it came from a peer for: not
 * empty, relative, no "." or ".." component, no empty component ("a//b"),
 * no trailing '/', no control characters, at most 4096 bytes. */
int wh_path_is_plain_relative(const char *path);

/* ---- numbers from users and peers ---- */
/* Seconds -> milliseconds for a timeout: refuses NaN, infinities, zero or
 * less, and more than max_s (which must fit in 32-bit milliseconds).
 * 0 or WH_EINVAL; *ms untouched on error. */
int wh_secs_to_ms(double secs, double max_s, unsigned *ms);
/* A whole decimal number in [lo, hi], nothing else in s. 0 or WH_EINVAL. */
int wh_parse_long(const char *s, long lo, long hi, long *out);

/* ---- a thread's timed wait on the monotonic clock ---- */
/* Initializes cv on CLOCK_MONOTONIC (a wall-clock step never cuts a wait
 * short nor stretches it). 0, or -1. */
int wh_cond_init_mono(void *cv);
/* Waits on cv (from wh_cond_init_mono) with mu held, at most ms. */
void wh_cond_wait_ms(void *cv, void *mu, uint64_t ms);

/* ---- waking a poll from another thread ---- */
/* An eventfd (non-blocking, close-on-exec) that a poll watches for
 * reading; -1 when none can be made. */
int wh_wake_open(void);
/* Makes fd readable (safe on any thread; fd < 0: nothing). 0, or -errno. */
int wh_wake_signal(int fd);
/* Reads fd until it is not readable. */
void wh_wake_drain(int fd);
/* A timer fd (non-blocking, close-on-exec, monotonic clock) that becomes
 * readable when armed time runs out; wh_wake_drain reads it. -1 when none
 * can be made. */
int wh_timer_open(void);
/* Arms fd to become readable in ms milliseconds (at least 1), replacing
 * any earlier arming. fd < 0: nothing. 0, or -errno. */
int wh_timer_arm(int fd, uint64_t ms);

/* ---- time ---- */
uint64_t wh_now_ms(void);      /* monotonic */
/* Gives the free pages of every malloc arena back to the system (glibc's
 * malloc_trim; nothing elsewhere): after a large structure is freed on
 * threads of their own (libclang's translation units), the memory would
 * otherwise stay resident in their arenas. Any thread. */
void wh_mem_trim(void);
uint64_t wh_wall_ms(void);     /* realtime, for timestamps */

/* ---- hashing ---- */
typedef struct wh_sha256 wh_sha256_t;
wh_sha256_t *wh_sha256_new(void);
void wh_sha256_update(wh_sha256_t *h, const void *data, size_t n);
/* Adds a length-prefixed field so that field boundaries are unambiguous. */
void wh_sha256_field(wh_sha256_t *h, const void *data, size_t n);
void wh_sha256_field_str(wh_sha256_t *h, const char *s);
/* Writes 64 hex chars + NUL into out and destroys h. */
void wh_sha256_final_hex(wh_sha256_t **h, char out[65]);
void wh_sha256_hex(const void *data, size_t n, char out[65]);

/* ---- logging (thread-safe; to stderr) ---- */
enum { WH_LOG_ERROR = 0, WH_LOG_WARN = 1, WH_LOG_INFO = 2, WH_LOG_DEBUG = 3 };
void wh_log_set_level(int level);
int wh_log_level(void);
void wh_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define wh_error(...) wh_log(WH_LOG_ERROR, __VA_ARGS__)
#define wh_warn(...) wh_log(WH_LOG_WARN, __VA_ARGS__)
#define wh_info(...) wh_log(WH_LOG_INFO, __VA_ARGS__)
#define wh_debug(...) wh_log(WH_LOG_DEBUG, __VA_ARGS__)

#endif
