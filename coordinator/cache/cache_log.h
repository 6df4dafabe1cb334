/*
 * cache_log — one append-only log file of the embedded cache, shared by
 * several processes (private to the cache; see cache_embedded.c for what
 * the lines mean). The rules that keep it safe:
 *   - a line is appended whole, with one write() on an O_APPEND descriptor,
 *     under the folder's lock taken shared, so appenders never wait on
 *     each other and concurrent lines interleave whole;
 *   - the file is replaced (compaction, clear) only under the folder's lock
 *     taken exclusive, by writing a new file, fsync, rename over the old:
 *     a reader sees the old or the new file, never half of one;
 *   - every read and append first checks whether the path now names
 *     another file; if so the reader forgets what it read (reset) and reads
 *     the new one from its start, and the appender writes there, never into
 *     a replaced file nobody reads.
 * Lines are handed to a callback; a line longer than the cap is cut to its
 * last cap bytes (keep_tail: the verdict logs, parsed from their end) or
 * skipped (the blob log).
 */
#ifndef WH_CACHE_LOG_H
#define WH_CACHE_LOG_H

#include <stdio.h>
#include <sys/types.h>

#include "wh_common.h"

typedef struct {
    /* The file was replaced: forget everything read from it. */
    void (*reset)(void *ctx);
    /* One complete line, without its '\n'. */
    void (*line)(void *ctx, const char *s, size_t n);
} wh_cache_log_fn_t;

typedef struct {
    char *path;
    int fd;            /* O_RDWR | O_APPEND; -1 when closed */
    int lockfd;        /* the folder's lock file (not owned) */
    dev_t dev;
    ino_t ino;
    off_t loaded;      /* parsed up to here (a line start) */
    size_t cap;        /* longest line handed over */
    int keep_tail;     /* longer lines: their last cap bytes (else skipped) */
    const wh_cache_log_fn_t *fn;
    void *ctx;
} wh_cache_log_t;

/* Opens (creating) DIR/name and reads it. 0, or -1 with *err set. */
int wh_cache_log_open(wh_cache_log_t *l, const char *dir, const char *name, int lockfd,
                      size_t cap, int keep_tail, const wh_cache_log_fn_t *fn, void *ctx,
                      char **err);
void wh_cache_log_close(wh_cache_log_t *l);
/* Reads the lines appended since the last read (all of a replaced file,
 * after a reset). One stat and one fstat when nothing is new. 0 or a
 * negative code. */
int wh_cache_log_read(wh_cache_log_t *l);
/* Appends one line (n bytes ending in '\n') under the shared lock. A short
 * write is ended with a '\n' (readers skip the torn line) and is WH_EIO. */
int wh_cache_log_append(wh_cache_log_t *l, const char *line, size_t n);
/* The file's size now (0 when unknown). */
off_t wh_cache_log_size(const wh_cache_log_t *l);

/* The folder's lock: DIR/lock, opened once per handle. -1 with *err set. */
int wh_cache_lock_open(const char *dir, char **err);
/* flock, shared or exclusive; 0 or -errno. */
int wh_cache_lock(int lockfd, int exclusive);
void wh_cache_unlock(int lockfd);

/* Replaces the file with what write puts into f (the caller holds the
 * exclusive lock and has read the file to its end, so nothing is lost but
 * what it leaves out). 0 or a negative code (the old file stays). */
int wh_cache_log_rewrite(wh_cache_log_t *l, int (*fill)(void *wctx, FILE *f), void *wctx);

#endif
