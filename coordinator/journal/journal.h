/*
 * journal — the coordinator's record of submitted jobs, so that jobs
 * survive a coordinator crash (issue 10). Every submitted job is written
 * here before the client hears it was accepted: its id, the client key
 * that owns it, the job as validated (JSON), its state. A restarted
 * coordinator reads the journal and resumes every job still RUNNING under
 * the same id (the verdict cache makes that cheap: nothing it holds is
 * judged again); a finished job keeps its exit status and result text, so
 * a client that reattaches after the end still gets the answer.
 *
 * Two back ends behind one ops table (journal_be.h):
 *   - a file: one JSON record per line, appended and fdatasync'ed, the
 *     latest record of an id wins; the file is locked (flock) so two
 *     coordinators never share it; a line that is not a record stops the
 *     open with an error naming the file and the line; a last line cut
 *     short (the machine stopped mid-write) is dropped with a warning;
 *   - Redis: hash whittle:v1:jobs, field = job id, value = the record.
 * On open, finished jobs older than a day are dropped and the file is
 * compacted to one record per job.
 *
 * Every record carries a sequence number (the journal's: every put takes
 * the next one), so an older record written back is refused, never
 * resumed (issue 34: a finished job's "running" record written back into
 * Redis was resumed and run again): in a file, a record older than one
 * already read for its job; in Redis, a record whose number is not the
 * one the MAC'd index field "_index" (id -> latest number, written in the
 * same HSET as the record) holds for its job. A refused record is warned
 * about and left out (its job is neither resumed nor answered). A
 * rollback of the whole hash to an older copy, index included, is not
 * told apart from that older state.
 *
 * One owner thread (the coordinator's poll loop).
 */
#ifndef WH_JOURNAL_H
#define WH_JOURNAL_H

#include <stdint.h>

#include "wh_common.h"

#define WH_JOURNAL_ID_LEN 16 /* hex chars of a job id */

typedef enum {
    WH_JOURNAL_RUNNING = 0, /* submitted, not finished: resumed after a restart */
    WH_JOURNAL_DONE = 1,    /* finished with a reduced test (code 0) */
    WH_JOURNAL_FAILED = 2,  /* finished with an error (code != 0) */
    WH_JOURNAL_CANCELLED = 3,
} wh_journal_state_t;

/* One job's latest record. Strings are owned by the journal when returned
 * by wh_journal_find / wh_journal_at; borrowed when passed to put. */
typedef struct {
    char id[WH_JOURNAL_ID_LEN + 1];
    char *owner;          /* ZAP user id of the submitting client ("" = insecure) */
    char *job;            /* the job as validated (wh_job_to_json) */
    wh_journal_state_t state;
    int code;             /* exit status once finished */
    char *result;         /* the final text once finished, or NULL */
    char *run_dir;        /* the latest run folder, or NULL */
    int resumed;          /* times resumed after a coordinator restart */
    int64_t t;            /* unix seconds of this record */
    uint64_t seq;         /* the journal's sequence number of this record: every put
                             takes the next (0: a record of an older whittle) */
} wh_journal_entry_t;

typedef struct wh_journal wh_journal_t;

/* where: "redis://[user[:password]@]host[:port][/db]" for the Redis back
 * end (the password found as for the cache: common/wh_redisc.h), else a
 * file path (its folder is created). NULL and *err (one line)
 * on failure: an unreadable or corrupt journal, a file another coordinator
 * holds, Redis unreachable. The records are loaded when it returns. */
wh_journal_t *wh_journal_open(const char *where, char **err);
void wh_journal_close(wh_journal_t **j);
/* Where a coordinator with cache spec cache_spec (cache.h) journals by
 * default: the same Redis for a redis:// cache; else the file "journal"
 * beside the embedded cache (in PATH for "dir:PATH", else in the embedded
 * cache's default folder). malloc'ed; NULL when no folder is known. */
char *wh_journal_default_where(const char *cache_spec);
/* "file PATH" or "redis HOST:PORT/DB hash whittle:v1:jobs". */
const char *wh_journal_describe(const wh_journal_t *j);

/* A fresh random job id (WH_JOURNAL_ID_LEN hex chars). */
void wh_journal_new_id(char out[WH_JOURNAL_ID_LEN + 1]);

/* Writes e (its t is set to now) and makes it the id's current record.
 * 0, WH_EINVAL for an id that is not WH_JOURNAL_ID_LEN hex chars, or the
 * back end's error (the in-memory record is updated all the same, so the
 * running coordinator stays consistent; only crash safety is lost). */
int wh_journal_put(wh_journal_t *j, const wh_journal_entry_t *e);
/* Helpers over put for the current record of id: WH_ENOTFOUND when none. */
int wh_journal_finish(wh_journal_t *j, const char *id, wh_journal_state_t st, int code,
                      const char *result);
int wh_journal_set_run(wh_journal_t *j, const char *id, const char *run_dir, int resumed);

/* The current record of id, or NULL. Valid until the next put. */
const wh_journal_entry_t *wh_journal_find(const wh_journal_t *j, const char *id);
/* Records in load-then-put order (a file keeps submission order, Redis
 * loads in hash order): i in [0, wh_journal_count). */
int wh_journal_count(const wh_journal_t *j);
const wh_journal_entry_t *wh_journal_at(const wh_journal_t *j, int i);

/* The record codec (one line of JSON, no newline), exposed for tests.
 * decode fills e (owned strings: free with wh_journal_entry_clear) or
 * returns WH_EINVAL with *why (one line) naming what is wrong. */
char *wh_journal_encode(const wh_journal_entry_t *e);
int wh_journal_decode(const char *text, wh_journal_entry_t *e, char **why);
void wh_journal_entry_clear(wh_journal_entry_t *e);
const char *wh_journal_state_name(wh_journal_state_t st);

#endif
