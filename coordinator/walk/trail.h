/*
 * trail — who judged what during one reduction, and the walk's state after
 * every accepted step, for the verify step (DESIGN.md, "Trust"): when the
 * reduced test, built and run afresh, does not fail the same way, the
 * accepted steps are re-judged newest first; the trail then names the
 * verdicts to drop (every verdict of the slot, or node, that gave the
 * wrong one) and gives the walk back as it was right after the last step
 * verified good, so the reduction continues exactly as an honest walk
 * would from there.
 *
 * Pure bookkeeping: no pool, cache or I/O. One owner thread.
 */
#ifndef WH_TRAIL_H
#define WH_TRAIL_H

#include "engine.h"

typedef struct wh_trail wh_trail_t;

/* Step 0 is the start: a copy of start (the original configuration).
 * NULL on ENOMEM. */
wh_trail_t *wh_trail_new(const wh_engine_t *start);
void wh_trail_destroy(wh_trail_t **t);

/* Notes that slot (on node; NULL when unknown) judged the candidate with
 * cache key key. 0 or WH_ENOMEM. */
int wh_trail_judged(wh_trail_t *t, const char *key, const char *slot, const char *node);
/* 1 when key was judged by a slot in this run (wh_trail_judged). */
int wh_trail_judged_here(const wh_trail_t *t, const char *key);

/* Appends an accepted step: the walk right after the accept (copied), the
 * accepted candidate's key and number. Its judge is the slot that last
 * judged key in this run, or none (the cache answered). 0 or WH_ENOMEM. */
int wh_trail_accept(wh_trail_t *t, const wh_engine_t *after, const char *key, int cand);

int wh_trail_steps(const wh_trail_t *t);
/* Step i's configuration (removed[u] = 1 for a removed unit). */
const uint8_t *wh_trail_removed(const wh_trail_t *t, int i);
/* The slot that judged step i's candidate; NULL for the start or a cached
 * verdict whose node has no live slot (wh_trail_set_judge). */
const char *wh_trail_judge(const wh_trail_t *t, int i);
/* Names the newest step's judge when its verdict came from the cache: a
 * live slot of the node that produced it, and that node. 0 or WH_ENOMEM. */
int wh_trail_set_judge(wh_trail_t *t, const char *slot, const char *node);
const char *wh_trail_judge_node(const wh_trail_t *t, int i);
int wh_trail_cand(const wh_trail_t *t, int i); /* 0 for the start */

typedef struct {
    void (*drop)(void *ctx, const char *key);      /* forget this verdict */
    void (*exclude)(void *ctx, const char *node);  /* take this node out */
    void *ctx;
} wh_trail_blame_t;

/* Steps good+1 .. newest were accepted on wrong verdicts; verifier_node
 * is the node that found it out. For each such step: its key is dropped;
 * when its judge's node differs from verifier_node, every verdict that
 * node gave in this run is dropped and the node excluded; otherwise (the
 * same node, e.g. the embedded default) every verdict of the judging
 * slot. Each key is dropped once. Returns the number of keys dropped. */
int wh_trail_blame(wh_trail_t *t, int good, const char *verifier_node,
                   const wh_trail_blame_t *how);

/* A verdict of key, judged by slot judge (of node judge_node; NULL when
 * unknown or gone) and refuted afresh on verifier_node, was wrong: key is
 * dropped; when judge_node differs from verifier_node, every verdict that
 * node gave in this run is dropped and the node excluded; otherwise every
 * verdict of the judging slot. A NULL judge (a cached verdict) drops key
 * alone; a NULL key drops only the judge's. Returns the number of keys
 * dropped. */
int wh_trail_blame_judge(wh_trail_t *t, const char *key, const char *judge,
                         const char *judge_node, const char *verifier_node,
                         const wh_trail_blame_t *how);

/* 1 when some verdict judged in this run came from a node other than
 * node (or no verdict was judged: nothing to second). */
int wh_trail_other_node(const wh_trail_t *t, const char *node);
/* 1 when some verdict was judged by a slot in this run (wh_trail_judged). */
int wh_trail_judged_any(const wh_trail_t *t);

/* Forgets the steps after good and returns a copy of the walk right after
 * step good (NULL on ENOMEM). */
wh_engine_t *wh_trail_rewind(wh_trail_t *t, int good);

#endif
