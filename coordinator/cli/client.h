/*
 * client — the waiting side of `whittle submit`, `whittle reduce --cluster`
 * and `whittle watch`: sends the jobs (or WATCHes job ids), prints their
 * progress and results, and survives a coordinator restart. When the
 * coordinator is silent for WH_CLIENT_SILENT_MS it prints "coordinator
 * lost, reattaching to job ID..." and sends WATCH for every unfinished job
 * every 2 s, for up to WH_CLIENT_REATTACH_MS; a restarted coordinator that
 * journaled the job answers with its progress (or its result when it ended
 * meanwhile). Giving up exits 4 with a message that says only what is
 * known: a journaled job resumes when the coordinator comes back, a job the
 * coordinator did not journal is lost. Status lines are drawn with
 * progress.h (the caller brackets the wait with wh_progress_begin/end).
 * Owns nothing; one thread.
 */
#ifndef WH_CLIENT_H
#define WH_CLIENT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "journal.h"

#define WH_CLIENT_SILENT_MS 10000
#define WH_CLIENT_REATTACH_MS 60000

typedef struct {
    void *sock;                 /* a DEALER connected to the coordinator */
    void *mon;                  /* its auth monitor (wh_auth_refused), or NULL */
    const char *endpoint;       /* for messages */
    volatile sig_atomic_t *stop; /* set by a signal handler: stop waiting */
    int quiet;                  /* -q: only results and errors */
    /* called with each job's final text when it gave an answer (code 0,
     * or WH_EXIT_UNVERIFIED: not verified by a second node), its index
     * (its place in jobs_json or ids) and the reduced test file
     * (line-true) the coordinator sent with it (NULL, 0 when none came);
     * returns the job's exit status (code, unless the caller checked the
     * answer itself); or NULL */
    int (*on_result)(void *ctx, int job, int code, const char *text, const uint8_t *reduced,
                     size_t len);
    void *ctx;
    /* called at every job's end, after on_result, with its exit status and
     * the run's summary the coordinator sent (night.h's run JSON, checked
     * with wh_night_run_check: NULL when none came or it was refused, which
     * is said in one line); or NULL */
    void (*on_end)(void *ctx, int job, int code, const char *summary);
    int quiet_ends; /* the jobs' final texts and errors are not printed (a
                       batch's first runs: the caller says what they mean) */
} wh_client_t;

/* Follows n jobs: job i is submitted from jobs_json[i] when that is not
 * NULL, else watched by id ids[i]. Returns the worst exit status (0 all
 * reduced; a job's own status; 2 refused keys; 4 the coordinator lost). */
int wh_client_wait(const wh_client_t *c, char *const *jobs_json, const char *const *ids, int n);

/* Checks that every job of jobs_json[0..n) fits one message to the
 * coordinator (WH_WIRE_MAX_STRING bytes: a bigger one cannot be sent, and
 * the coordinator would never hear of it). 0, or WH_ETOOBIG with *err
 * (one line, malloc'ed) naming the job, the limit and the option that
 * takes the most room (--run, --setup, ...). */
int wh_client_check_size(char *const *jobs_json, int n, char **err);

/* Uploads a tar snapshot (sha256 hex sha, len bytes) to the coordinator
 * before its job is submitted, in chunks of WH_WIRE_MAX_CHUNK, each
 * answered with the bytes the coordinator holds (so a lost chunk is sent
 * again). 0, or the exit status (2 refused, 4 no answer within
 * WH_CLIENT_SILENT_MS) with *err one line. */
int wh_client_upload(const wh_client_t *c, const char *sha, const uint8_t *data, size_t len,
                     char **err);

/* Asks the coordinator to cancel job id (only its owner may) and prints the
 * answer. 0, or the refusal's status (2 not yours, 4 unknown or no answer
 * within 5 s). */
int wh_client_cancel(const wh_client_t *c, const char *id);

#endif
