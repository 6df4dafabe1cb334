/*
 * chain — the steps the walk expects next, as one round of candidates that
 * N slots can judge at once, without changing what the walk judges.
 *
 * The engine's walk is sequential: each candidate it asks for depends on
 * the verdicts of the ones before (a Preserved one changes the
 * configuration every later one is built on), so a round of the engine
 * accepts at most one removal. A chain runs the walk ahead on a copy of the
 * engine with *expected* verdicts: step by step, each candidate of the
 * engine's round is expected Preserved or not (wh_memo_expect: the verdict
 * of the same candidate if one is known, else the verdict last seen for the
 * same removal against an earlier configuration, else the prior's guess
 * (prior.h), else "not Preserved");
 * where one is expected Preserved, the copy resolves there and the chain
 * goes on with the candidates of the round that follows. A chain is every
 * step from the engine's current round on, at most max_steps (but always
 * the current round's candidates up to the first one expected Preserved).
 *
 * The readiness rule (wh_chain_decide): walking the steps in order, step i
 * counts only when every step before it has a verdict and came out as
 * expected. The first step whose verdict differs from the expectation (the
 * "surprise") is the last one that counts: the engine rounds before it are
 * resolved as the chain expected, the surprise's round with its real
 * outcome (a Preserved surprise wins its round; an expected winner that is
 * not Preserved leaves its round open, and the next chain starts there
 * after it). Steps after the surprise were built on a configuration the
 * walk does not reach: they are judged for nothing (their verdicts are
 * still worth remembering as expectations). So the steps that count are
 * exactly the candidates the sequential walk judges, with the same
 * verdicts, whatever the expectations, the number of slots or the order in
 * which verdicts arrive: the expectations only decide how far the slots
 * can run ahead. With one slot judging the steps in order, nothing is ever
 * judged beyond the surprise, so one slot judges what the sequential walk
 * judges, no more.
 *
 * The memo is the chain's memory of verdicts: exact (this very candidate)
 * and by removal (the units a candidate removes beyond its base, whatever
 * the base). It only shapes expectations: a wrong or stale entry costs
 * builds, never the answer. Keys are 64-bit hashes; a collision is only a
 * wrong expectation.
 *
 * Not thread-safe; one owner thread. No libclang, sockets or builds.
 */
#ifndef WH_CHAIN_H
#define WH_CHAIN_H

#include <stdint.h>

#include "engine.h"
#include "prior.h"

typedef struct wh_memo wh_memo_t;

wh_memo_t *wh_memo_new(void);
void wh_memo_destroy(wh_memo_t **m);
/* Forgets everything (after verdicts were dropped as wrong). */
void wh_memo_clear(wh_memo_t *m);
/* Remembers verdict v for the candidate with keys exact and delta
 * (wh_chain_step's). WH_V_NONE and InfraError are not remembered. Returns
 * 0 or WH_ENOMEM (then the memo is unchanged). */
int wh_memo_put(wh_memo_t *m, uint64_t exact, uint64_t delta, wh_verdict_t v);
/* 1 when a candidate with these keys is expected Preserved: the verdict of
 * the candidate, else of the same removal, else `prior` (the prior's
 * expectation of it, wh_step_t.prior; 0 without one). */
int wh_memo_expect(const wh_memo_t *m, uint64_t exact, uint64_t delta, int prior);

/* One step of a chain. */
typedef struct {
    const uint8_t *removed; /* the candidate (closed under descendants) */
    int seg;                /* its engine round within the chain, 0-based */
    int idx;                /* its index in that engine round */
    int expect;             /* 1: expected Preserved */
    int prior;              /* 1: the prior expects it Preserved */
    wh_round_kind_t kind;
    int sweep, level, total, kept;
    uint64_t exact, delta;  /* memo keys: the candidate; what it removes beyond its base */
} wh_step_t;

typedef struct wh_chain wh_chain_t;

/* The chain from engine e's current round, starting at its candidate
 * `start` (the ones before it were judged not Preserved by an earlier
 * chain), with expectations from m and then prior (prior.h; either may be
 * NULL: without both, every step is expected not Preserved). e is not
 * changed. NULL on ENOMEM, or when e is done. */
wh_chain_t *wh_chain_new(const wh_engine_t *e, int start, const wh_memo_t *m,
                         const wh_prior_t *prior, int max_steps);
void wh_chain_destroy(wh_chain_t **c);

int wh_chain_steps(const wh_chain_t *c);
const wh_step_t *wh_chain_step(const wh_chain_t *c, int i);
/* The steps as an engine round (n_cand, removed, kept; sweep, level and
 * total are the first step's): for code that keys, renders or checks a
 * round's candidates. Valid for the chain's lifetime. */
const wh_round_t *wh_chain_round(const wh_chain_t *c);

/* The walk's answer (removed units) when every step of the chain comes
 * out as expected and the walk then ends; NULL when the chain stops before
 * the walk's end. */
const uint8_t *wh_chain_final(const wh_chain_t *c);

/* What the verdicts of a chain decide (wh_chain_decide). */
typedef struct {
    int n_steps;    /* steps that count: 0 .. n_steps-1, in order */
    int n_res;      /* engine rounds to resolve, in order: segments 0 .. n_res-1 */
    int next_start; /* where the next chain starts in the round then current */
} wh_chain_plan_t;

/* The readiness rule (above). v[i] is step i's verdict (WH_V_NONE: not
 * known yet). Returns 1 when the chain is decided, with *p filled in;
 * 0 when it must wait for a verdict. */
int wh_chain_decide(wh_chain_t *c, const wh_verdict_t *v, wh_chain_plan_t *p);
/* The winner (an index in its engine round, or -1) to resolve segment s
 * with, as the last wh_chain_decide that returned 1 found; s < n_res. */
int wh_chain_winner(const wh_chain_t *c, int s);

#endif
