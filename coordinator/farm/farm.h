/*
 * farm — `whittle mutate --reduce`: every (mutant, killing test) pair is
 * reduced twice as a `whittle reduce` job, with the default walk and with
 * --algorithm linear (the thesis's gold standard), on a copy of the project
 * with the mutant applied and the clean project as --reference. The jobs run
 * --jobs at a time on this machine, or all through a cluster's coordinator
 * (--cluster), which spreads their candidates over its nodes. Layout under
 * the mutate --out folder:
 *   projects/<M>/                the mutated copies (read-only inputs)
 *   reduce/<M>-<test>/hdd/       the default walk's run folder(s)
 *   reduce/<M>-<test>/linear/    the gold walk's
 *   reduce/<M>-<test>/{hdd,linear}.log  each job's console
 * The project itself is never written.
 */
#ifndef WH_FARM_H
#define WH_FARM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *id;     /* "M1" */
    const char *op;     /* "ROR", ... */
    const char *file;   /* relative to the project */
    size_t off, len;    /* the replaced byte range */
    const char *after;  /* its replacement */
} wh_farm_mutant_t;

typedef struct {
    size_t mutant;      /* index into the mutants */
    const char *test;
} wh_farm_pair_t;

typedef struct {
    const char *root, *out;  /* absolute: the clean project, mutate's --out */
    const char *tests_file, *setup, *build, *run, *framework;
    const char *cluster;     /* NULL: local */
    const char *const *cluster_keys; /* extra client key options, NULL-terminated, or NULL */
    long jobs;               /* local reductions at a time */
    long repeat;             /* probes: runs of the test per kill check */
    int hdd_done;            /* the default walks ran already (as probes) */
    uint64_t prior_ms;       /* their wall time, counted in bench's total */
    const wh_farm_mutant_t *mutants;
    size_t n_mutants;
    const wh_farm_pair_t *pairs;
    size_t n_pairs;
} wh_farm_t;

/* Writes the mutated copy of mutant m under dir (made fresh). 0, or -1 with
 * a message on stderr naming the file. */
int wh_farm_mutant_copy(const char *root, const char *exclude, const wh_farm_mutant_t *m,
                        const char *dir);

/* What a kill probe found: the test failed `fails` of --repeat runs, or
 * the mutant could not be judged (status "build_failed" / "infra_error"). */
typedef struct {
    int fails;
    const char *status; /* NULL: judged */
} wh_farm_probe_t;

/* The kill runs on a cluster: every pair (mutant, test) is a reduction job
 * (default walk, --repeat) whose baseline is the test's run on the mutated
 * project: it passes (survived), fails on every run (a definite kill, and
 * the job reduces it), fails on some (potential), or does not build. Fills
 * out[p] for every pair. Returns 0, or 1 when the jobs could not run. */
int wh_farm_probe(const wh_farm_t *f, wh_farm_probe_t *out);

/* The folder of pair p's reductions: OUT/reduce/<M>-<test> (malloc'ed). */
char *wh_farm_pair_dir(const wh_farm_t *f, size_t p);

/* Runs every pair's two reductions and sets *wall_ms to the time they took
 * (with the probes' f->prior_ms; 0 when there is no pair). The caller then
 * writes bench.json and bench.txt (bench.h). Returns 0, or 1 when a job
 * failed. */
int wh_farm_reduce(const wh_farm_t *f, uint64_t *wall_ms);

#endif
