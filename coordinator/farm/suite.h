/*
 * suite — test-suite reduction over a kill matrix (seed 002). A kill matrix
 * (kills.csv, written by `whittle mutate`) says for each (mutant, test) pair
 * whether the test killed the mutant definitely (failed on every repeat),
 * potentially (on some) or not at all. A reduced suite is a subset of the
 * tests that still kills every mutant the whole suite kills. Three methods:
 *   ILP   exact smallest set cover, solved with GLPK's branch and cut;
 *   DIFF  greedy: next the test killing the most not-yet-killed mutants;
 *   FAST  FAST++: tests as randomly projected kill vectors, the next test
 *         drawn with probability growing with its distance to the chosen.
 * No I/O besides wh_kills_load; single-threaded; the matrix owns its names.
 */
#ifndef WH_SUITE_H
#define WH_SUITE_H

#include <stddef.h>

typedef enum {
    WH_KILL_SURVIVED = 0,
    WH_KILL_POTENTIAL = 1,
    WH_KILL_DEFINITE = 2,
} wh_kill_t;

typedef enum {
    WH_SUITE_ILP = 0,
    WH_SUITE_DIFF = 1,
    WH_SUITE_FAST = 2,
} wh_suite_method_t;

typedef struct wh_kills wh_kills_t;

/* Parses kills.csv text: lines "mutant,test,definite|potential|survived",
 * an optional header line starting "mutant,". NULL on error with *err
 * (malloc'ed, one line naming the line number). */
wh_kills_t *wh_kills_parse(const char *text, char **err);
/* Reads and parses a file (capped at 64 MiB). NULL with *err on error. */
wh_kills_t *wh_kills_load(const char *path, char **err);
/* An empty matrix with the given sizes, for tests; names are "m<i>"/"t<j>". */
wh_kills_t *wh_kills_new(size_t n_mutants, size_t n_tests);
void wh_kills_destroy(wh_kills_t **kp);

size_t wh_kills_mutants(const wh_kills_t *k);
size_t wh_kills_tests(const wh_kills_t *k);
const char *wh_kills_mutant_name(const wh_kills_t *k, size_t m);
const char *wh_kills_test_name(const wh_kills_t *k, size_t t);
wh_kill_t wh_kills_get(const wh_kills_t *k, size_t m, size_t t);
void wh_kills_set(wh_kills_t *k, size_t m, size_t t, wh_kill_t v);
/* Whether the pair counts as a kill: definite always, potential only when
 * with_potential is set. */
int wh_kills_counts(const wh_kills_t *k, size_t m, size_t t, int with_potential);

/* Chooses tests into sel (n_tests bytes, 1 = selected). Every mutant some
 * test kills is killed by a selected test afterwards. seed drives FAST++'s
 * random projection and draws (the same seed gives the same answer).
 * 0, WH_ENOMEM, or WH_EINVAL when GLPK reports no optimal solution. */
int wh_suite_select(const wh_kills_t *k, wh_suite_method_t method, int with_potential,
                    unsigned seed, unsigned char *sel);
/* Number of mutants killed by at least one test of sel (NULL = all tests). */
size_t wh_suite_covered(const wh_kills_t *k, const unsigned char *sel, int with_potential);
/* "ilp", "diff", "fast". */
const char *wh_suite_method_name(wh_suite_method_t m);

#endif
