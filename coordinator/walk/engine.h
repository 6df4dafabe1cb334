/*
 * engine — the level walk of HDD* (top-down levels, sweeps to a fixpoint)
 * with one of two walks inside a level, as a state machine that produces
 * rounds and consumes round results. It never calls an oracle, knows nothing
 * of files, sockets or libclang: it sees a forest given as parent indices.
 *
 * WH_WALK_CLASSIC is the thesis's Algorithm 1 (ddmin, even split): a round is
 * every candidate of one ddmin iteration at granularity n, the n subsets, then
 * the n complements, in that canonical order (for n == 2 the complements
 * repeat the subsets; they are still emitted, as in Figure 4.2). The
 * whole-level prune is a round of one.
 *
 * WH_WALK_CHUNKED (the default) never proposes subsets and never re-splits
 * after a removal (the ideas of picire's complement-only ddmin that goes on
 * with the next piece after a removal, and of counter-based DD). On a
 * level's first visit: the whole-level prune (not at level 0, which holds
 * the failing statement); then passes over chunks of half, a quarter, ... of
 * the level, each chunk tried once against the configuration as it is then,
 * until a pass of chunks of 32 units or fewer removes nothing or the chunks
 * are single units; then the one-at-a-time stage, cyclic,
 * until every alive unit's removal has been judged not Preserved since the
 * last removal. Pieces and units are tried from the end of the level
 * backwards, the larger pieces first: a statement's uses come after it, so
 * the uses go before the declaration is tried, and the statements after a
 * failing assert (which never run) go first. At level 0 a chunk whose
 * removal would empty the level is not tried. A revisited level (a later
 * sweep) goes straight to the one-at-a-time stage, and is skipped when
 * nothing was removed anywhere since it was last left 1-minimal. So the
 * result is 1-tree-minimal like the classic walk's. A chunked round holds the
 * next WH_ENGINE_WINDOW pieces (or units) in that order; the first
 * Preserved one wins, and the next round goes on after it.
 *
 * WH_ALGO_LINEAR is the thesis's gold-standard walk (section 5.5): the HDD*
 * levels and sweeps, and inside a level no split at all: one pass over the
 * level's alive units in source order, top to bottom, each removed (with
 * its subtree) against the configuration as it is then, the removal kept
 * when Preserved. Sweeps repeat until one removes nothing. A linear round
 * holds the next WH_ENGINE_WINDOW units of the pass; the first Preserved one
 * wins and the next round goes on after it, so the answer and the judged
 * sequence equal the sequential walk's. The walk argument is ignored.
 *
 * The caller judges candidates (in any order, in parallel), finds the winner
 * with wh_round_winner() and calls wh_engine_resolve(). Not thread-safe; one
 * owner thread.
 */
#ifndef WH_ENGINE_H
#define WH_ENGINE_H

#include <stdint.h>

#include "wh_common.h"

typedef enum {
    WH_ALGO_HDD = 0, /* HDD*: all levels, prune first, sweeps to a fixpoint */
    WH_ALGO_DD = 1,  /* flat baseline: ddmin over level 0 only, repeated to a fixpoint */
    WH_ALGO_LINEAR = 2, /* the thesis's gold standard: one unit at a time (below) */
} wh_algo_t;

typedef enum {
    WH_WALK_CHUNKED = 0, /* the default: chunk passes, then one at a time */
    WH_WALK_CLASSIC = 1, /* the thesis's Algorithm 1 */
} wh_walk_t;

/* The most candidates of one chunked round. */
#define WH_ENGINE_WINDOW 64

typedef enum {
    WH_ROUND_PRUNE = 0,  /* the whole-level prune: one candidate */
    WH_ROUND_DDMIN = 1,  /* classic: n subsets, then n complements */
    WH_ROUND_CHUNKS = 2, /* chunked: consecutive chunk removals of one pass */
    WH_ROUND_SINGLE = 3, /* chunked: consecutive single-unit removals */
    WH_ROUND_LINEAR = 4, /* linear: the next single-unit removals of the pass */
} wh_round_kind_t;

/* "hdd" / "dd" / "linear"; wh_algo_parse returns 0 or WH_EINVAL. */
const char *wh_algo_name(wh_algo_t a);
int wh_algo_parse(const char *s, wh_algo_t *out);

/* "chunked" / "classic"; wh_walk_parse returns 0 or WH_EINVAL. */
const char *wh_walk_name(wh_walk_t w);
int wh_walk_parse(const char *s, wh_walk_t *out);

typedef struct {
    wh_round_kind_t kind;
    int sweep;        /* 1-based */
    int level;        /* 0-based */
    int granularity;  /* n; 1 for a prune; chunked: pieces of the pass */
    int total;        /* alive units at this level when the level started */
    int n_cand;
    /* removed[c][u] = 1 when candidate c removes unit u. Closed under
     * descendants and includes everything removed so far. */
    uint8_t **removed;
    int *kept;        /* per candidate: units of this level it keeps */
} wh_round_t;

typedef struct wh_engine wh_engine_t;

/* n units, parent[i] the parent index or -1 (parents precede children).
 * WH_ALGO_DD is the thesis's flat baseline and always walks classic;
 * WH_ALGO_LINEAR ignores walk.
 * Returns NULL on ENOMEM or a malformed forest. */
wh_engine_t *wh_engine_new(int n, const int *parent, wh_algo_t algo, wh_walk_t walk);
void wh_engine_destroy(wh_engine_t **e);
/* An independent copy in the same state (for speculation: resolve the copy
 * to see a round the walk may come to next). NULL on ENOMEM. */
wh_engine_t *wh_engine_clone(const wh_engine_t *e);
/* A copy for counting what is left (the progress ETA): its rounds have
 * n_cand, kind, sweep, level and kept, but removed[] rows are NULL, and it
 * resolves only with winner -1 (WH_EINVAL otherwise). Filling a row costs
 * n bytes per candidate, which made every plan of a 5000-unit walk cost
 * more than its precheck (issue 36). NULL on ENOMEM. */
wh_engine_t *wh_engine_clone_plan(const wh_engine_t *e);
/* A copy to keep (walk/trail.h: one per accepted step): its round, which
 * holds up to WH_ENGINE_WINDOW rows of n bytes, is built only when
 * wh_engine_round or wh_engine_resolve first needs it. NULL on ENOMEM. */
wh_engine_t *wh_engine_clone_stored(const wh_engine_t *e);

/* The current round, or NULL when the reduction is finished. The pointer is
 * valid until the next wh_engine_resolve(). */
const wh_round_t *wh_engine_round(wh_engine_t *e);

/* Resolves the current round: winner is the index of the first Preserved
 * candidate in canonical order, or -1 when none is Preserved. The winner
 * becomes the accepted configuration at once (wh_engine_removed() equals its
 * removed[] row afterwards), so the caller sees every accepted configuration.
 * Returns 0; WH_EINVAL when the run is done or winner is out of range;
 * WH_ENOMEM when the next round cannot be built (sticky: the engine is then
 * unusable and wh_engine_round() returns NULL). */
int wh_engine_resolve(wh_engine_t *e, int winner);

/* The accepted configuration: removed[u] = 1 for every removed unit (closed
 * under descendants). Valid for the engine's lifetime. */
const uint8_t *wh_engine_removed(const wh_engine_t *e);
int wh_engine_done(const wh_engine_t *e);
int wh_engine_units(const wh_engine_t *e);    /* n given to wh_engine_new */
/* Sweeps started so far. A sweep starts only when some unit is alive at
 * level 0: an empty forest has 0 sweeps, and a run whose first prune removed
 * everything has 1. */
int wh_engine_sweeps(const wh_engine_t *e);
int wh_engine_rounds(const wh_engine_t *e);   /* rounds resolved so far */
int wh_engine_accepts(const wh_engine_t *e);  /* accepted candidates so far */
/* The rounds still to come (the current one included) if no further
 * candidate is Preserved: the rest of this level and sweep, and the sweep
 * that must follow one that removed something. Each later removal adds
 * rounds, so the walk usually needs more; 0 when done. For an ETA. */
int wh_engine_rounds_left(const wh_engine_t *e);

/* Given the verdicts of a round so far (WH_V_NONE = not yet known), decides
 * whether the round can resolve: returns 1 and sets *winner to the first
 * Preserved index when it and every earlier candidate have verdicts, or to -1
 * when every candidate has a verdict and none is Preserved; returns 0 when it
 * must wait. */
int wh_round_winner(const wh_verdict_t *v, int n, int *winner);

#endif
