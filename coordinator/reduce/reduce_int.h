/*
 * reduce_int — the reduce module's private header: the job's struct, its
 * core (what every phase shares) with each phase's state embedded, and the
 * red_* helpers of the walk and the front end that one file calls in
 * another. The module is reduce.c (the lifecycle and the public API,
 * reduce.h) with its parts reduce_*.c; each phase's state and interface is
 * in its own header (reduce_baseline.h, reduce_verify.h, reduce_claims.h,
 * reduce_audit.h, reduce_fault.h, reduce_trust.h, reduce_results.h), and
 * a member marked "owned by" is reached only by the files it names
 * (tests/layout; README.md has the map). Nothing outside the module
 * includes this header. Like the module, everything here runs on the
 * pool's thread.
 */
#ifndef WH_REDUCE_INT_H
#define WH_REDUCE_INT_H

#include "reduce.h"

#include <jansson.h>

#include "chain.h"
#include "engine.h"
#include "precheck.h"
#include "precheck_pool.h"
#include "record.h"
#include "reduce_audit.h"
#include "reduce_baseline.h"
#include "reduce_claims.h"
#include "reduce_fault.h"
#include "reduce_results.h"
#include "reduce_trust.h"
#include "reduce_verify.h"
#include "trail.h"
#include "tree.h"
#include "treejob.h"
#include "ubguard.h"

typedef struct red_cand {
    char key[65];
    int rep;            /* first identical candidate of this round */
    wh_verdict_t v;
    int from_cache;     /* answered by the verdict cache */
    int submitted;
    int evaluated;      /* judged by a node */
    uint64_t eval_id;
    char *node;
    uint64_t ms;
    uint64_t build_ms, test_ms, end_ms; /* the slot's times; its verdict came end_ms into the run */
    char *report;
    char *detail;
    int runs, agreeing;
    char *infra;        /* infrastructure faults met before its verdict ("slot: why | ...") */
    int pre;            /* RED_PRE_*: what the front end said */
    char *pre_msg;      /* its first counted error */
    int predicted;      /* the verdict is a prediction: 1 now, 2 from the prediction cache */
    int checking;       /* its front-end check (tag eval_id) has not answered yet */
    int ready;          /* checked, to be queued once no earlier check is out */
    int waiting_check;  /* on: its check waits for room in the window (red_precheck_window) */
    int ub;             /* RED_PRE_*: what the UB guard said (FAIL: v is WH_V_UB_GUARD) */
    char *ub_msg;       /* its first new diagnostic */
    int dispatched;     /* a slot took it (the pool rendered it) */
    uint64_t disp_ms;   /* when (wh_now_ms) */
    int withdrawn;      /* after a surprise already seen: never to be built */
    uint64_t exact, delta; /* its memo keys (chain.h) */
    wh_verdict_t audit_v; /* a cache hit judged afresh (reduce_audit.c): the cache's verdict */
} red_cand_t;

enum { RED_PRE_NONE = 0, RED_PRE_PASS, RED_PRE_FAIL };

enum { RED_BASELINE, RED_ROUNDS, RED_DONE, RED_FAILED, RED_REFCHECK, RED_VERIFY, RED_REFPROBE,
       RED_CLAIMS };

/* Built candidates whose times the ETA's median is taken over. */
#define RED_MS_RING 256

/* The walk of the job (reduce_rounds.c, with reduce_predict.c's and
 * reduce_ubguard.c's checks of its candidates): the current chain and its
 * round, speculation, the expectations' memo and prior, the counters and
 * the ETA's plan. Shared more widely than a phase's state: the files that
 * feed it verdicts or read its round reach it too (the "owned by" list of
 * struct wh_reduction's walk member). */
struct red_walk {
    /* speculation: candidates of the predicted next round, in flight */
    struct red_spec {
        char key[65];
        uint64_t id;
        int checking;       /* on the front end (tag id); queued once it answers */
        uint64_t exact, delta; /* memo keys; 0/0 for --speculate's own */
        int running;        /* left running by a decided chain: never cancelled */
        uint64_t disp_ms;   /* when a slot took it (wh_now_ms; 0: unknown) */
        int waited;         /* a chain waited for it once (s_wait_due): never again */
        int pre;            /* the precheck's answer once it came (RED_PRE_*), for the record */
    } *spec;
    int nspec, capspec;
    /* speculations judged before the walk came to their round: the slot
     * that judged each, its report and time, for the record if claimed */
    struct red_spec_done {
        char key[65];
        char *node, *report;
        uint64_t ms, build_ms, test_ms, end_ms;
        int pre;            /* the precheck's answer (RED_PRE_*), for the record */
    } *spec_done;
    int ndone, capdone;
    int speculated, spec_used;
    int spec_dropped; /* speculations cancelled on a slot: dispatched, no verdict */
    /* current round: a chain of the walk's expected steps (chain.h) */
    wh_chain_t *chain;
    int chain_start;        /* where the next chain starts in the engine's round */
    int rec_steps, rec_segs; /* the chain's steps recorded and engine rounds resolved so
                               far (counted before the chain is decided) */
    int rec_built;          /* one of them was built */
    wh_memo_t *memo;        /* every verdict of this run, for the expectations */
    wh_prior_t *prior;      /* the failing statement's slice, expectations' fallback */
    int surprises[2];       /* chains ended by a step [1] Preserved, [0] not, unexpectedly */
    int chains;             /* chains decided */
    int replans;            /* chains replaced by better expectations */
    const wh_round_t *round; /* the chain's steps as a round */
    red_cand_t *c;
    int nc;
    /* queued candidates of the round: eval id eval_base + k is c[evidx[k]] */
    uint64_t eval_base;
    int *evidx, nev;
    int last_sweep, last_level;
    int withdrawn;          /* chain steps withdrawn after a surprise (reduce_rounds.c) */
    /* counters */
    int candidates, evaluated, cached, extra, cancelled, predicted;
    int building_rounds; /* chains with a counted candidate really judged: the depth */
    uint64_t ms_ring[RED_MS_RING]; /* times of the last built candidates, for the ETA */
    uint64_t turn_ms;       /* a chain step's time from dispatch to verdict (moving mean) */
    uint64_t defer_until;   /* the next chain waits for due verdicts until then (0: no wait) */
    uint64_t wait_from;     /* when that wait began (0: none) */
    int deferred;           /* chains that waited for a due verdict (the summary's "waits") */
    int n_ms;
    /* the ETA's plan: candidates of each round left if nothing more is
     * removed, made again after each resolved round (reduce.c) */
    int *eta_cands;
    int eta_n, eta_cap;
    int eta_last_sweep;             /* its last rounds that are of its last sweep */
    const wh_engine_t *eta_engine;  /* the plan is of this engine ... */
    int eta_rounds, eta_restarts;   /* ... after this many rounds and restarts */
    unsigned eta_wins;              /* the last rounds, a bit each: 1 = it removed something */
    int eta_nwins;                  /* rounds in eta_wins (at most 8) */
    double eta_waves;               /* waves of builds the resolved rounds took */
    uint64_t eta_t0, eta_last;      /* the first round made; the last one resolved (ms) */
    int verdicts[WH_V_COUNT];
};

struct wh_reduction {
    wh_job_t job;
    wh_pool_t *pool;
    wh_cache_t *cache;
    wh_tree_t *tree;
    wh_engine_t *engine;
    wh_record_t *rec;
    int quiet;
    char snapshot[65];
    char job_id[65];
    char verdict_id[65];    /* the identity candidates' verdicts are cached under:
                               job_id, or the job's without the reference once a
                               picked reference is dropped */
    char pool_id[80];       /* the job in the pool: job_id, made unique when an
                               identical job (same identity, e.g. hdd and dd) runs */
    wh_fp_t fp;
    int state;
    int status;
    wh_treejob_t *treejob;  /* the exact tree, parsing after the baseline */
    /* The front end (precheck, UB guard) set up off the job's thread after
     * wh_reduction_start (reduce_frontend.c): the baseline's fingerprint
     * (or a cached one, fe_walk) waits for wh_reduction_frontend_done. */
    int fe_wait;
    int fe_walk;            /* a cached fingerprint: the walk begins then */
    int fe_fp;              /* the baseline's fingerprint waits in pending_fp */
    /* The precheck's set-up as a job with the same inputs found it
     * (reduce_frontend.c): r->pc stays NULL and each precheck thread sets
     * its own handle up, as it does for every thread but the first. */
    int pc_twin, pc_twin_enabled;
    char *pc_twin_why, *pc_twin_ignored;
    unsigned tree_gen;      /* trees taken since prepare: a set-up of an older one is dropped */
    wh_fp_t pending_fp;     /* the baseline's fingerprint, taken when it is done */
    struct red_baseline baseline; /* owned by reduce_baseline.c */
    char *error;
    uint64_t next_eval;
    uint64_t refcheck_id;   /* the reduced test on the reference (red_start_refcheck) */
    struct red_fault fault; /* owned by reduce_fault.c */
    int flaky;              /* candidates whose runs disagreed (never cached) */
    /* the accepted steps, who judged what (the walk adds them, verify,
     * the claims check and trust judge them again) */
    wh_trail_t *trail;
    struct red_verify verify;   /* owned by reduce_verify.c */
    char *partial;          /* --budget spent: why the walk stopped short (answer partial) */
    int dropped;            /* verdicts dropped as wrong */
    struct red_claims claims;            /* owned by reduce_claims.c */
    struct red_cache_audit cache_audit;  /* owned by reduce_audit.c */
    struct red_trust trust;             /* owned by reduce_trust.c */
    /* front-end prediction (DESIGN.md, "Predicted verdicts") */
    wh_precheck_t *pc;      /* the original's judge, until handed to pcj's first worker */
    wh_precheck_pool_t *pcp;    /* the process's precheck threads (a reference) */
    wh_precheck_job_t *pcj;     /* this job's checks on them; its fd is watched */
    int pc_ok;              /* the original passed: predictions may be made */
    int pc_checks;          /* checks of jobs closed before pcj */
    unsigned long long pc_us, pc_setup_us;
    char *pc_off;           /* why prediction is off for this job, or NULL */
    int pc_was_off;         /* it was off with a tree parsed before this one */
    const char *pc_flags;   /* where its compile arguments came from */
    int audit_built, audit_bf, audit_bf_predicted, audit_pred_built;
    int pc_room;            /* this round's precheck window (reduce_predict.c), 0: not yet known */
    int pc_unchecked;       /* candidates built unchecked while prediction was on
                               (the front end failed on them) */
    json_t *disagreements;  /* audit: [{candidate, kind, verdict, error}] */
    int pc_pending;         /* its setup runs; the baseline's fingerprint waits */
    /* an eventfd the threads of the job's own setup (the exact tree's
     * parse, the precheck's and the UB guard's setups) write when they are
     * done, watched by the pool: the walk goes on at once instead of at the
     * next poll timeout (two of them after a baseline: 180 ms of 1.7 s on
     * the cart fixture); -1 without one (set by wh_reduction_start) */
    int wake_fd;
    /* the UB guard (DESIGN.md, "Trust"; reduce_ubguard.c) */
    wh_ubguard_t *ub;
    char *ub_off;           /* why the guard is off for this job, or NULL */
    int ub_was_off;         /* it was off with a tree parsed before this one */
    int flags_said;         /* red_flags_say ran: the console knows how both stand */
    int ub_pending;         /* its setup runs; the baseline's fingerprint waits */
    int ub_unchecked;       /* candidates built unchecked by the time budget */
    int ub_guard;           /* candidates recorded as UBGuard */
    int ub_predicted;       /* of them, not built (also counted in predicted) */
    /* the front end's answers by candidate key (reduce_femo.c): the
     * guard's (a chain asks again about the steps the chain before it
     * held: 1736 checks for 172 candidates, 2.2 s of the poll thread in a
     * 4.5 s run at 32 slots, before) and the precheck's passes */
    struct red_femo {
        char key[65];       /* "" = free */
        signed char ub;     /* the UB guard's answer: -1 not known, 0 pass, 1 fail */
        signed char pass;   /* 1: the precheck found no front-end error */
        char *msg;          /* the guard's first diagnostic (ub 1) */
    } *fem;
    size_t fem_cap, fem_n;
    int ub_learned;         /* answers the precheck's parse gave (red_ubguard_learn) */
    int ubm_hits;           /* guard answers taken from it */
    uint64_t ub_refused;    /* the candidate the guard just kept from a slot */
    uint64_t t0;
    /* tainted answers: retried elsewhere, never verdicts (pool.h) */
    int infra_faults;
    char **out_slots;       /* slots taken out of rotation during this job */
    int n_out;
    struct red_results results; /* owned by reduce_results.c */
    struct red_walk walk;   /* owned by reduce_rounds.c, reduce_predict.c, reduce_ubguard.c;
                               also reached, for the verdicts they feed it or its round,
                               by reduce.c, reduce_audit.c, reduce_baseline.c,
                               reduce_claims.c, reduce_flags.c, reduce_results.c,
                               reduce_trust.c, reduce_verdicts.c, reduce_verify.c */
};

/* reduce.c */
/* Prints on the console (the status line erased first); nothing if quiet. */
void red_out(wh_reduction_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes report.html from the run folder as it is; a failure is only logged. */
void red_write_page(wh_reduction_t *r);
/* Ends the job with exit status `status` and msg (taken; NULL: out of
 * memory); does nothing once the job is done or failed. */
void red_fail(wh_reduction_t *r, int status, char *msg);

/* reduce_predict.c: front-end prediction */
/* Logs and prints how the precheck stands: on, or off and why. */
void red_precheck_say(wh_reduction_t *r);
/* Once the tree's flags are final (the walk begins): says on the console,
 * once, how the precheck and the UB guard stand when it is not plain "on"
 * (off and why, naming the file the front-end error is in; or on with the
 * file's own compile command where the flags guessed first failed), one
 * line for both when they agree. Before that red_precheck_say and
 * red_ubguard_say only write run.log: the flags guessed before the setup
 * often give an error the warm workspace's command does not. */
void red_flags_say(wh_reduction_t *r);
/* Opens the precheck with the flags of the tree in use; async: its setup
 * runs on a thread of its own (red_precheck_say when it is ready). */
void red_precheck_open(wh_reduction_t *r, int async);
/* Where the precheck's compile arguments come from (r->pc_flags), for the
 * tree in use. */
void red_precheck_flags(wh_reduction_t *r);
/* The precheck's options for the tree in use: 0, or WH_ENOMEM. The caller
 * frees o->file and o->args (borrowed strings). */
int red_precheck_opts(wh_reduction_t *r, wh_precheck_opts_t *o);
/* After r->pc was set up: red_precheck_say, and err (taken; NULL: none),
 * libclang's own failure to parse, named as why it is off. */
void red_precheck_said(wh_reduction_t *r, char *err);
/* One batched lookup of the round's representatives in key space ns (only
 * those without a verdict when open_only); hit() takes each verdict found. */
int red_mget_reps(wh_reduction_t *r, wh_cache_ns_t ns, int open_only,
                  void (*hit)(red_cand_t *c, wh_verdict_t v));
/* 1 when this round's candidates go to the front end before a build (the
 * precheck's threads started for the job if need be); on: the prediction
 * key space answered first. */
int red_precheck_begin(wh_reduction_t *r);
/* Puts round candidate c (index i) to the front end (tag c->eval_id): it is
 * queued on the pool when the answer comes, unless it is then predicted
 * BuildFailed (on). 0 or WH_ENOMEM. */
int red_precheck_submit(wh_reduction_t *r, red_cand_t *c, int i);
/* on: puts the round's candidates that wait for a check to the front end,
 * in canonical order, while fewer than the window (twice the live slots,
 * at least 2) are open: checked or being checked and not yet answered by
 * a slot. A chain holds up to 64 steps, and one slot builds few of them
 * before a surprise replaces the chain: checking them all cost 984 checks
 * for the 102 candidates of the synthetic walk at 1 slot. Checks left
 * waiting when the front end goes off are queued unchecked. 0 or WH_ENOMEM. */
int red_precheck_window(wh_reduction_t *r);
/* on: puts speculated candidate id (text taken) to the front end; 1 when
 * taken (it is queued, or not, when the answer comes), 0 when it is to be
 * queued now (prediction off; txt kept). */
int red_precheck_spec(wh_reduction_t *r, uint64_t id, char *txt, size_t len);
/* Drops the check of tag if it has not started. */
void red_precheck_cancel(wh_reduction_t *r, uint64_t tag);
/* Takes the front end's answers (the pool's watcher of the job's fd, and
 * once per turn of the loop): predictions kept, the rest queued, the walk
 * advanced. */
void red_precheck_take(wh_reduction_t *r);
/* audit: 1 while a candidate 0..upto has a check to answer (the round is
 * recorded with every built candidate compared). */
int red_precheck_waits(const wh_reduction_t *r, int upto);
/* Stops the job's checks: candidates waiting for one are queued unchecked,
 * speculation waiting for one is dropped; the threads' reference is kept
 * unless all (the job's end). */
void red_precheck_close(wh_reduction_t *r, int all);
/* audit: compares built candidate c's verdict with its prediction (id 0:
 * a candidate after the winner). */
void red_audit(wh_reduction_t *r, const red_cand_t *c, int id);
/* The precheck's figures for the summary; *list (JSON or NULL) holds the
 * disagreements until the summary is written. */
void red_precheck_summary(wh_reduction_t *r, wh_precheck_summary_t *p, char **list);

/* reduce_femo.c: the front end's memo. The entry of key (64 hex digits);
 * NULL when there is none, unless add: then a new one (ub -1, pass 0), or
 * NULL when there is no room (the answer is then asked again). */
struct red_femo *red_femo_find(wh_reduction_t *r, const char *key, int add);
/* Forgets every answer (the front end opened with other flags). */
void red_femo_clear(wh_reduction_t *r);

/* reduce.c: wh_reduction_prepare, and with fe wh_reduction_identify. */
wh_reduction_t *red_prepare(const wh_job_t *job, int quiet, wh_frontend_t **fe, int *status,
                            char **err);

/* reduce_frontend.c: the front end set up apart (wh_reduction_identify) */
/* *fe: the set-up of r's precheck and UB guard for the tree in use, its
 * inputs copied (NULL: none is needed); r waits for it (fe_wait). 0, or
 * WH_ENOMEM. */
int red_frontend_plan(wh_reduction_t *r, wh_frontend_t **fe);
/* Forgets a precheck summary taken from a twin (a new tree's set-up). */
void red_frontend_untwin(wh_reduction_t *r);

/* reduce_ubguard.c: the UB guard */
/* Opens the guard with the flags of the tree in use (nothing with
 * --ub-guard off); async: its setup runs on a thread of its own, and the
 * return is 1 when it does (red_ubguard_say when it is ready). */
int red_ubguard_open(wh_reduction_t *r, int async);
/* After r->ub was set up: err (taken; NULL: none) is why it is off, then
 * red_ubguard_say. */
void red_ubguard_said(wh_reduction_t *r, char *err);
/* Frees the guard's answers kept by key. */
void red_ubguard_free(wh_reduction_t *r);
/* Logs how the guard stands; says once on the console when it is off. */
void red_ubguard_say(wh_reduction_t *r);
/* Before the round's builds: a candidate Preserved from the cache or a
 * speculation with a new diagnostic is UBGuard. */
void red_ubguard_round(wh_reduction_t *r);
/* When a slot takes round candidate i: 1 when the guard finds it UBGuard
 * (its verdict now; it is not built). */
int red_ubguard_dispatch(wh_reduction_t *r, int i);
/* The precheck's parse answered the guard for the text of key (fail 1 or
 * 0; msg its first new diagnostic or NULL): kept as the guard's own answer,
 * so no slot dispatch parses it again. 1 when kept (or known), 0 when the
 * guard does not take it (off, not on with --precheck on, fail < 0). */
int red_ubguard_learn(wh_reduction_t *r, const char *key, int fail, const char *msg);
/* Before a speculation (key, text) goes out: 1 when the guard finds it
 * UBGuard, and then it is never built (its round's verdict is UBGuard at
 * any slot count). parse 0: only an answer kept by key counts (the
 * precheck's parse is still to answer); 1: the guard parses it now. 0
 * when not UBGuard, unknown (parse 0), off, or --precheck audit. */
int red_ubguard_ahead(wh_reduction_t *r, const char *key, const char *text, size_t len,
                      int parse);
/* Before the round's winner is taken: every Preserved candidate the guard
 * has not checked is checked now (no budget: acceptance waits for it). */
void red_ubguard_settle(wh_reduction_t *r);
/* The guard's figures and the verify build's sanitizers for the summary
 * (*sanitizers malloc'ed or NULL, held until the summary is written). */
void red_ubguard_summary(wh_reduction_t *r, wh_summary_t *s, char **sanitizers);

/* reduce_rounds.c: the rounds, and the reference check after them */
/* Frees the current round's candidates. */
void red_clear_round(wh_reduction_t *r);
/* A new entry at the end of spec_done (its fields to fill), or NULL when
 * out of memory (the verdict then stays a plain cache hit). */
struct red_spec_done *red_spec_done_new(wh_reduction_t *r);
/* Forgets the speculations judged ahead that no round claimed. */
void red_spec_done_clear(wh_reduction_t *r);
/* The pool's render function (ctx: the reduction): the text of a queued
 * candidate of the current round; NULL for an id the round does not hold. */
char *red_render_cand(void *ctx, uint64_t id, size_t *len);
int red_hold_cand(void *ctx, uint64_t id);
/* Queues the fault-kept check: the reduced test on the reference. */
void red_start_refcheck(wh_reduction_t *r);
/* Runs the walk as far as the verdicts at hand allow. */
void red_advance(wh_reduction_t *r);
/* After a verdict judged for an earlier chain: when it changes what the
 * current chain expects of a step no slot has taken yet, the chain is
 * built again (nothing of it has counted yet), and the walk advanced. */
void red_replan(wh_reduction_t *r);

/* reduce_flags.c: exact compile flags */
/* A new engine over tree t's units; NULL when out of memory. */
wh_engine_t *red_engine_for(const wh_tree_t *t, wh_algo_t algo, wh_walk_t walk);
/* After a fresh baseline, with the compile command the workspace at ws
 * recorded (NULL: none): 0 to go on now, 1 when the tree is parsing again,
 * -1 when the job failed. */
int red_exact_tree(wh_reduction_t *r, const wh_compile_cmd_t *cmd, const char *ws,
                   const wh_fp_t *observed);
/* Takes the exact tree once parsed, then the pending fingerprint. */
void red_exact_tree_done(wh_reduction_t *r);
/* 1 when a cached fingerprint may be used: with the cached compile
 * command, which must parse the test now. */
int red_cached_flags_ok(wh_reduction_t *r);

/* reduce_verdicts.c: the pool's callbacks */
/* The on_ready of the job's setup threads (ctx: the reduction): wakes the
 * pool's poll through wake_fd. Safe on any thread. */
void red_wake(void *ctx);
/* The pool's verdict and note callbacks (pool.h); ctx is the reduction. */
void red_on_verdict(void *ctx, uint64_t id, const wh_msg_t *m, const char *worker);
void red_on_note(void *ctx, uint64_t id, wh_pool_note_t what, const char *worker,
                 const char *detail);

#endif
