/*
 * journal_be — the journal's back-end ops table (private to journal*.c).
 * A back end stores opaque one-line records by job id and gives them all
 * back on load; the front (journal.c) owns the codec and the in-memory view.
 */
#ifndef WH_JOURNAL_BE_H
#define WH_JOURNAL_BE_H

#include <stdint.h>

/* What a back end knows of the sequence number a record must carry: it
 * keeps no index of them (the file: the latest record of an id wins, and
 * one older than an id's record seen before is refused by the front), it
 * keeps one but found none (Redis: a record with a sequence number is
 * then refused, one of an older whittle without one is taken), or the
 * number itself (>= 0; 0 for an id its index does not list). */
#define WH_JOURNAL_SEQ_ANY (-1)
#define WH_JOURNAL_SEQ_NO_INDEX (-2)

/* Called once per stored record on load; where names it for errors
 * ("line 7", "field 0123abcd..."), want is the sequence number the back
 * end's index holds for it (above). Nonzero stops the load. */
typedef int (*wh_journal_visit_fn)(void *ctx, const char *where, const char *record,
                                   int64_t want);

typedef struct {
    /* Stores record, whose sequence number is seq, as id's latest. 0 or a
     * negative WH_E code with *err. */
    int (*put)(void *be, const char *id, const char *record, uint64_t seq, char **err);
    /* Visits every stored record, oldest first for a file. 0, the
     * visitor's nonzero return, or a negative code with *err. */
    int (*load)(void *be, wh_journal_visit_fn fn, void *ctx, char **err);
    /* Keeps only keep[0..nkeep) (the latest record of each live job) and
     * forgets the ids drop[0..ndrop). 0 or a negative code with *err. */
    int (*compact)(void *be, const char *const *keep, int nkeep, const char *const *drop,
                   int ndrop, char **err);
    const char *(*describe)(const void *be);
    void (*close)(void *be);
} wh_journal_ops_t;

/* The back ends: NULL and *err on failure. */
void *wh_journal_file_open(const char *path, char **err);
void *wh_journal_redis_open(const char *url, char **err);
extern const wh_journal_ops_t wh_journal_file_ops;
extern const wh_journal_ops_t wh_journal_redis_ops;

#endif
