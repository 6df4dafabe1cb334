/*
 * record — the run folder (DESIGN.md, "Run record"): one folder per run
 * holding original/reduced snapshots, fingerprint.json, run.log,
 * candidates.csv, judged.csv, tree.json, summary.txt, summary.json and reports/ (the
 * page made from them is report.h's). Everything is
 * written as it happens (run.log and candidates.csv are appended and
 * flushed per candidate), so a run that stops part-way keeps its record.
 */
#ifndef WH_RECORD_H
#define WH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "wh_common.h"

typedef struct wh_record wh_record_t;

typedef struct {
    int id;              /* candidate number, 1-based, canonical order */
    int sweep, level, kept, total;
    wh_verdict_t verdict;
    int cached;          /* answered by the cache or an identical candidate */
    const char *node;    /* slot that judged it, "-" when cached */
    uint64_t ms;
    const char *removed; /* description of the removed units, for run.log */
    const char *note;    /* e.g. "same as cand_004", "cache", detail */
    const char *report;  /* report file name under reports/, or NULL */
    int runs;            /* test runs behind the verdict (--repeat); 0 when cached */
    int agreeing;        /* runs that preserved */
    const char *key;     /* the cache key */
    const char *infra;   /* infrastructure faults met on the way ("slot: why | ..."), or NULL */
    int predicted;       /* the verdict is the front end's prediction: nothing was built */
    const char *precheck; /* what the front end said: "pass", "fail", or "-" (not asked) */
    /* For the timeline (report.h): the slot's build and test times, and when
     * the verdict came, in ms since the run began (for a cached or predicted
     * candidate: when its round was decided). */
    uint64_t build_ms, test_ms, end_ms;
} wh_cand_row_t;

/* One answer a slot gave during the run, for the timeline (judged.csv):
 * candidates of the walk and those judged in parallel or ahead, and the
 * original, verify and reference runs. Borrowed strings. */
typedef struct {
    uint64_t eval;       /* the task's id (reports/eNNNN.report) */
    const char *kind;    /* "original", "candidate", "ahead", "verify", "reference" */
    const char *slot;
    const char *verdict; /* wh_verdict_name; "InfraError" when the slot could not
                            judge; "fingerprinted" for an original's run */
    uint64_t build_ms, test_ms, end_ms; /* end_ms: when it came, since the run began */
} wh_judged_row_t;

/* Creates OUT/<test>-<yyyymmdd-hhmmss>[-k]/. */
wh_record_t *wh_record_open(const char *out, const char *test, char **err);
void wh_record_close(wh_record_t **r);
const char *wh_record_dir(const wh_record_t *r);

void wh_record_log(wh_record_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wh_record_candidate(wh_record_t *r, const wh_cand_row_t *row);
void wh_record_judged(wh_record_t *r, const wh_judged_row_t *j);
/* Writes name (relative to the run folder; folders created) atomically. */
int wh_record_file(wh_record_t *r, const char *name, const void *data, size_t len);

/* Writes reduced.lines<ext> (line-true) and reduced<ext> (compact); a NULL
 * text is skipped. */
void wh_record_reduced(wh_record_t *r, const char *ext, const char *lines, size_t len,
                       const char *compact, size_t clen);

/* One unit of the statement tree (tree.h), for tree.json. Borrowed strings. */
typedef struct {
    int parent, level, is_tree;
    const char *kind;    /* wh_tree_kind_name */
    unsigned line;
    const char *head;    /* its first line (wh_tree_unit_head) */
    int removed_by;      /* the accepted candidate that removed it; 0: kept */
} wh_record_unit_t;

/* Writes tree.json: {"test":..,"units":[{"parent","level","tree","kind",
 * "line","text","removed_by"}...]}, units in pre-order. */
void wh_record_tree(wh_record_t *r, const char *test, const wh_record_unit_t *u, int n);

/* The build-avoidance figures of a run (summary.json "precheck" and a line
 * of summary.txt). Borrowed pointers. */
typedef struct {
    const char *mode;            /* "on", "off", "audit" */
    int enabled;                 /* predictions were made */
    const char *off_because;     /* why not, or NULL */
    const char *flags;           /* where the compile arguments came from, or NULL */
    int checks, unchecked;       /* candidates checked; built unchecked while prediction was on (the front end failed) */
    double check_ms, setup_ms;   /* time of the checks; of the original's parse */
    int audit;                   /* 1: the audit figures below are written */
    int built, build_failed, build_failed_predicted, predicted_but_built, disagreements;
    const char *list_json;       /* the disagreements as a JSON array, or NULL for [] */
} wh_precheck_summary_t;

/* The figures of a finished run (summary.json and summary.txt). Borrowed
 * pointers; NULL strings are written as "". */
typedef struct {
    const char *test, *file, *project, *algorithm, *ddmin, *job_id, *cache;
    int before, after;                 /* statements */
    int tree_before, tree_after, nontree_before, nontree_after;
    int sweeps, rounds, candidates, evaluated, cached, extra, cancelled;
    int building_rounds; /* rounds that judged a canonical candidate (not cached or predicted) */
    /* The walk's expectations (walk/prior.h): the prior ("slice", "none";
     * NULL: not written), its slice's statements (-1: no prior was made),
     * and the chains a step ended against them, [1] Preserved, [0] not. */
    const char *prior;
    int slice, surprises[2];
    int predicted;                     /* BuildFailed by the front end, or UBGuard, not built */
    /* The UB guard (DESIGN.md, "Trust"): candidates recorded as UBGuard
     * (ub_predicted of them not built, within predicted), and how it ran;
     * ub_mode NULL: not written. */
    int ub_guard, ub_predicted;
    const char *ub_mode, *ub_off_because;
    int ub_enabled, ub_checks, ub_unchecked, ub_original;
    double ub_check_ms, ub_setup_ms;
    const char *sanitizers;            /* the verify build's -fsanitize= list, or NULL */
    const wh_precheck_summary_t *precheck; /* NULL: not written */
    const int *verdicts;               /* WH_V_COUNT counts, indexed by verdict */
    uint64_t wall_ms;
    int jobs;
    const wh_fp_t *fp;
    int flaky, speculated, spec_used, spec_dropped;
    int chain_waits; /* chains made after waiting for a due verdict */
    int repeat;                        /* > 1: written */
    const char *reference;             /* NULL: no fault check */
    int keep_fault;
    const char *fault;                 /* "kept", "lost", or why the check could not tell */
    const char *fault_detail;          /* the fingerprint seen on the reference */
    /* --reference auto (refauto.h): what it picked ("HEAD 0123456789ab") or
     * NULL, and why (or why none; NULL: auto was not tried); unchecked: why
     * the picked reference was dropped (the original fails there too). */
    const char *ref_picked, *ref_why, *ref_unchecked;
    int infra_faults;                  /* tainted runs, retried elsewhere */
    char *const *out_slots;            /* slots taken out of rotation */
    int n_out;
    /* How the job's workspaces were prepared (pool.h, wh_pool_warm_t);
     * written as "warm" when warm_known, else null. */
    int warm_known;
    int warm_setups, warm_clones, warm_failed;
    uint64_t warm_setup_ms, warm_clone_ms, warm_first_ms;
    int verified;                      /* the reduced test was built and run afresh */
    int verify_runs;                   /* verify tasks judged */
    int dropped;                       /* verdicts dropped as wrong */
    int restarts;                      /* walks resumed after wrong verdicts */
    const char *verified_by;           /* the slot whose run verified it, or NULL */
    int second_opinion;                /* 0: that slot's node judged every verdict judged */
    const char *not_verified;          /* why an answer built and run afresh is still not
                                          verified (one cluster node said everything), or
                                          NULL; verified is 0 then */
    int claims_checked, claims_refuted; /* negative verdicts judged again afresh (claims check) */
    const char *partial;               /* --budget spent: why the walk stopped short, or NULL */
    const char *budget;                /* the job's --budget ("builds=3"), or NULL */
    int claims_early, claims_early_dropped; /* checks started early, and of them dropped */
    int audits, audits_refuted;         /* cached negative verdicts judged afresh on the way */
    const uint8_t *removed;            /* per unit of the tree: 1 = removed (n = before) */
} wh_summary_t;

/* Writes summary.json and summary.txt. */
void wh_record_summary(wh_record_t *r, const wh_summary_t *s);
/* The sentence for a fault-check status ("kept", "lost", or a reason);
 * NULL: no reference was given (the fault was not checked). */
const char *wh_record_fault_line(const char *fault, int keep_fault);
/* The sentence when no reference decided it (malloc'ed; NULL: out of
 * memory): why, when --reference auto tried (a picked reference that fails
 * the original, or why none was picked), else wh_record_fault_line(NULL). */
char *wh_record_unchecked_line(const char *why);
/* The fault-check sentence of a run (malloc'ed; NULL: out of memory). */
char *wh_record_fault_text(const wh_summary_t *s);
/* The run's closing count, malloc'd: "B -> A statements. N candidates: E
 * evaluated, P predicted, C from the cache[; X extra built beside them
 * (...)]. R rounds, S sweeps, MS ms." E + P + C = N: the extras, which
 * s->evaluated counts, are named apart. */
char *wh_record_final_plain(const wh_summary_t *s);
/* The same, after "PARTIAL (why): " when the budget cut the walk short. */
char *wh_record_final_line(const wh_summary_t *s);

#endif
