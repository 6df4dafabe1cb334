/*
 * reduce_verify — the verify step's state and interface (reduce_verify.c):
 * the answer is built and run afresh, older trail steps are judged when it
 * does not hold, and the walk resumes after wrong verdicts. struct
 * red_verify is embedded in the job (r->verify); only reduce_verify.c
 * reads or writes its fields (tests/layout checks it), every other file
 * goes through the functions below. Part of the reduce module: everything
 * here runs on the pool's thread.
 */
#ifndef WH_REDUCE_VERIFY_H
#define WH_REDUCE_VERIFY_H

#include <stdint.h>

#include "record.h"
#include "reduce.h"
#include "trail.h"
#include "wire.h"

struct red_verify {
    uint64_t id;            /* the verify task out now */
    int step;               /* trail step being verified */
    int tries;              /* infrastructure failures on this step */
    int runs;               /* verify tasks judged */
    int verified;           /* the final configuration was verified afresh */
    int reused;             /* verified, claims and fault taken from an earlier run */
    int restarts;           /* walks resumed after wrong verdicts */
    char *by;               /* the slot whose run verified the reduced test */
    char *refuter;          /* slot whose verify run last refuted a step */
    char *refuter0;         /* the slot that said the original does not fail the same way
                               afresh, while another node is asked too */
    int second_opinion;     /* 0: its node judged every verdict judged in this run */
    const char *blame_by;   /* "verify", "claims", ...: who drops verdicts (red_blame) */
    char *told;             /* lines of the verify and the claims check for a remote
                               client (it sees the closing only) */
};

/* Builds and runs trail step `step` afresh (the newest: the reduced test). */
void red_start_verify(wh_reduction_t *r, int step);
/* 1 when id is the verify task out now. */
int red_is_verify(const wh_reduction_t *r, uint64_t id);
/* The verify run's answer: on to the fault check, an older step, or the
 * walk resumed after wrong verdicts. */
void red_on_verify(wh_reduction_t *r, const wh_msg_t *m, const char *worker);
/* Keeps what verify, the claims and the fault check said of the finished
 * answer, for a rerun of this job. */
void red_store_answer(wh_reduction_t *r);
/* Resumes the walk as it was right after trail step good (every later
 * step forgotten), after wrong verdicts were dropped; fails the job after
 * too many restarts. */
void red_resume_walk(wh_reduction_t *r, int good);
/* How wrong verdicts go, for wh_trail_blame*: dropped from every cache and
 * their node out of the job, logged as by `by` ("verify", "claims"). */
wh_trail_blame_t red_blame(wh_reduction_t *r, const char *by);
/* Prints a line on the console and keeps it for a remote client's closing. */
void red_tell(wh_reduction_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The lines red_tell kept, or NULL. */
const char *red_verify_told(const wh_reduction_t *r);
/* The slot whose run verified the reduced test (or what did), or NULL. */
const char *red_verify_by(const wh_reduction_t *r);
/* 1 when the answer was taken from an earlier run of this job. */
int red_verify_reused(const wh_reduction_t *r);
/* Walks resumed after wrong verdicts so far. */
int red_verify_restarts(const wh_reduction_t *r);
/* The verify step's figures for the summary (verified, unless the answer
 * rests on a lone node: red_trust_summary says so). */
void red_verify_summary(const wh_reduction_t *r, wh_summary_t *s);
void red_verify_free(wh_reduction_t *r);

#endif
