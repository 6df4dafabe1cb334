/*
 * reduce_claims — the claims check's state and interface (reduce_claims.c):
 * every negative verdict a node gave a walk step, and the checks of the
 * answer's one-unit removals among them. struct red_claims is embedded in
 * the job (r->claims); only reduce_claims.c reads or writes its fields
 * (tests/layout checks it), every other file goes through the functions
 * below. Part of the reduce module: everything here runs on the pool's
 * thread.
 */
#ifndef WH_REDUCE_CLAIMS_H
#define WH_REDUCE_CLAIMS_H

#include <stdint.h>

#include "record.h"
#include "reduce.h"
#include "wire.h"

/* A walk step's negative verdict (judge: its slot; NULL: the cache). */
struct red_seen {
    char key[65];
    char *judge;
    int unjudged;       /* the walk's run gave no verdict (InfraError) */
};

/* The check of one removal of the answer. */
struct red_check {
    char key[65];
    char *judge;        /* the slot whose verdict is checked; NULL: the cache's */
    int unjudged;       /* judge's run gave no verdict (InfraError): a Preserved
                           answer is news, not a refutation of anyone */
    uint64_t id;
    int unit, tries, done;
    int verdict;        /* the answer, held until the verify run has verified */
    char *worker;       /* the slot that gave it */
    int settled;        /* acted on (s_settle in reduce_claims.c) */
    /* A refutation (Preserved) is a claim too, asked again before it
     * counts (s_next in reduce_claims.c): stage 1, the removal on
     * another node than the refuter's; stage 2, the original on the
     * judge's node, when that node said not Preserved again. */
    int stage;
    char *refuter;      /* the slot whose Preserved refuted the verdict */
    char *confirmer;    /* stage 2: the slot that said not Preserved again */
    int confirm_v;      /* its verdict */
    int blame_refuter;  /* whose node goes besides the judge's (S_BLAME_* in
                           reduce_claims.c): the refuter's, or the confirmer's */
    uint8_t *base;      /* judged early: the answer it removes the unit from (the
                           chain's expected one); NULL: the engine's */
    int wanted;         /* a removal of the answer being verified */
};

struct red_claims {
    struct red_seen *seen;
    int nseen, capseen, seen_lost;
    struct red_check *checks;
    int nchecks, checks_left;
    int queued;         /* the checks of the answer being verified are out */
    int early;          /* of them, started beside the walk's last chain */
    int early_sent, early_dropped; /* checks started early in this run, and of them
                                      dropped (for another answer, or no verdict) */
    int checked, refuted, refuted_now;
    int news_now;       /* of refuted_now: removals kept unjudged (InfraError) */
};

/* Notes a walk step's negative verdict of key, judged by slot judge (NULL:
 * from the cache). */
void red_claim_note(wh_reduction_t *r, const char *key, const char *judge, int unjudged);
/* A live slot of the node that produced key's cached verdict, or NULL (not
 * recorded, "local", or no slot of it in the pool). */
const char *red_cached_judge(wh_reduction_t *r, const char *key);
/* Beside the verify run of the answer: queues the checks of its one-unit
 * removals (their answers are held until it is verified). 0, or -1 when
 * the job failed. */
int red_queue_claims(wh_reduction_t *r);
/* While the chain expected to end the walk runs and slots are idle: the
 * expected answer's checks whose steps have answered go out on them. */
void red_early_claims(wh_reduction_t *r);
/* The answer was verified: acts on the answers held and goes on when every
 * check has answered (the fault check, or the walk resumed). */
void red_start_claims(wh_reduction_t *r);
/* The answer was refuted: the checks still out are cancelled and every
 * answer of this check is forgotten. */
void red_drop_claims(wh_reduction_t *r);
/* 1 when id is a check of the claims out now. */
int red_is_claim(const wh_reduction_t *r, uint64_t id);
/* 1 when id was a claims check (its answer taken). */
int red_on_claim(wh_reduction_t *r, uint64_t id, const wh_msg_t *m, const char *worker);
/* The claims of the answer were taken from an earlier run's (reduce_verify.c):
 * checked of them, none refuted. */
void red_claims_reused(wh_reduction_t *r, int checked);
/* Negative verdicts judged again afresh in this run, and of them refuted. */
int red_claims_checked(const wh_reduction_t *r);
int red_claims_refuted(const wh_reduction_t *r);
/* The claims check's figures for the summary. */
void red_claims_summary(const wh_reduction_t *r, wh_summary_t *s);
void red_claims_free(wh_reduction_t *r);

#endif
