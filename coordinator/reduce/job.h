/*
 * job — one reduction request: what to reduce, how to build and run it, and
 * where to record it. Filled from `whittle reduce` flags or from one entry of
 * a `whittle submit` JSON list (same field names as the flags, with '-'
 * spelled '_': project, file, test, setup, build, run, framework, algorithm,
 * ddmin, out, build_timeout, test_timeout, setup_timeout, match, args, precheck,
 * ub_guard ("on"/"off"), ignore, reference; reference_picked and reference_why carry what
 * `--reference auto` chose, for a job a client sends with --snapshot git).
 */
#ifndef WH_JOB_H
#define WH_JOB_H

/* The longest timeout a job may ask for (7 days), in seconds. */
#define WH_JOB_MAX_SECS 604800

#include "engine.h"
#include "precheck.h"
#include "spend.h"
#include "wh_common.h"

typedef struct {
    char *project;        /* absolute path of the project root */
    char *file;           /* test file, relative to project */
    char *test;           /* target test name */
    /* The function a registration runs as test (AWS_TEST_CASE(test, fn):
     * fn, from the parse, wh_tree_t.fn), which a console harness's output
     * may name instead; NULL: none. Not serialized, not in the identity
     * (the test file, which is, decides it). */
    char *test_fn;
    char *setup, *build, *run;
    char *framework;      /* preset name; default: from the file's includes, else "junit" */
    wh_algo_t algo;
    wh_walk_t walk;       /* --ddmin chunked|classic (default chunked) */
    int jobs;             /* embedded node slots */
    char *out;            /* folder that receives run folders (absolute) */
    char *cache;          /* cache spec (see cache.h); NULL = embedded default */
    char *compdb;         /* -p: folder with compile_commands.json */
    char **args;          /* extra compiler args for libclang */
    int nargs;
    int args_guessed;     /* args are wh_job_guess_includes's, not the user's */
    int allow_parse_errors; /* --allow-parse-errors */
    unsigned build_timeout_ms, test_timeout_ms, setup_timeout_ms;
    int match;            /* wh_match_t */
    char *failure_regex;  /* --failure-regex (console preset) */
    char *pass_regex;     /* --pass-regex */
    char *message_continuation; /* --message-continuation */
    int pass_on_exit0;    /* --pass-on-exit0 */
    /* The CTest test this job's run command is (reduce --from-ctest): on
     * the reference the reduced test passes only when the whole CTest test
     * passes there, judged as CTest judges it (oracle.h, wh_whole_t). Job
     * fields "whole_test", "will_fail", "ctest_pass_regex",
     * "ctest_fail_regex" (CTest's regexes, one per line). */
    int whole_test;
    int will_fail;        /* WILL_FAIL */
    char *ctest_pass_regex, *ctest_fail_regex; /* PASS_/FAIL_REGULAR_EXPRESSION */
    int repeat;           /* --repeat K: runs of the original and of each candidate */
    int flaky_ok;         /* --flaky-ok R: Preserved when >= R of K runs preserve; 0 = all K */
    int fingerprint_only; /* stop after the original's fingerprint (a batch's grouping
                             run, farm/nightgroup.h); not part of the job's identity */
    wh_spend_t budget;    /* --budget: the walk stops with its best answer when spent; not
                             part of the job's identity (its verdicts are every budget's) */
    char *reference;      /* --reference DIR|GIT-REV, resolved to a folder */
    /* --reference auto (refauto.h): what it picked ("HEAD 0123456789ab"),
     * NULL when the reference was given or none was picked; ref_why says
     * why, or why there is none (NULL: auto was not tried). A picked
     * reference must pass the original, else the fault goes unchecked. */
    char *ref_picked, *ref_why;
    int keep_fault;       /* --keep-fault; on by default with a reference */
    int no_keep_fault;    /* --no-keep-fault: only report whether the fault was kept */
    int speculate;        /* idle slots judge the predicted next round (default on; --no-speculate) */
    int precheck;         /* --precheck: wh_precheck_mode_t (default on); not in the identity */
    int ub_guard;         /* --ub-guard on|off (default on): a candidate with a new
                             -Wuninitialized/-Wreturn-type diagnostic is not Preserved
                             (ubguard.h); not in the identity (it is never cached) */
    int prior;            /* --prior slice|none (default slice): expect removals outside the
                             failing statement's slice Preserved (prior.h); shapes how far
                             the slots run ahead, never the answer; not in the identity */
    char **ignore;        /* --ignore GLOB (repeatable): left out of the job identity */
    int nignore;
    int verbose;          /* -v: the per-candidate [cand_NNN] lines */
    int quiet;            /* -q: only the result and errors on the console */
    int snapshot;         /* --snapshot (reduce --cluster): WH_SNAP_* */
    /* The project as a git snapshot (jobsnap.h; NULL git_url: a path). */
    char *git_url, *git_rev, *git_subdir, *git_reference;
    uint8_t *git_patch;
    size_t git_patch_len;
    /* The project as a tar snapshot (jobsnap.h; NULL tar_sha: none): the
     * sha256 of the gzip'd tar the client uploads to the coordinator and
     * its size ("tar": {"sha256", "size"}); tar_data holds the bytes on
     * the client until they are sent (never serialized, not copied). */
    char *tar_sha;
    uint64_t tar_size;
    uint8_t *tar_data;
    /* The client key that owns the job (its name), set by the coordinator
     * from the connection (never read from a client's JSON, not
     * serialized, not in the identity); NULL: none (--insecure, local). */
    char *tenant;
} wh_job_t;

void wh_job_init(wh_job_t *j);
void wh_job_clear(wh_job_t *j);
/* Deep copy; dst is overwritten (not freed). 0 or WH_ENOMEM (dst cleared). */
int wh_job_copy(wh_job_t *dst, const wh_job_t *src);

/* Resolves paths (project absolute, file relative to it, out absolute) and
 * checks the request: every problem gives a one-line *err naming it and the
 * input. */
int wh_job_validate(wh_job_t *j, char **err);

/* The run folders' default when --out is not given, for a run on this
 * machine: ./whittle-runs when the current folder is outside the project;
 * standing in the project (whittle never writes there) the project's name
 * under $XDG_STATE_HOME/whittle/runs (default ~/.local/state/whittle/runs),
 * with *why (malloc'ed) a console line that says so. j->out is set when it
 * was NULL. 0, WH_ENOMEM, or WH_EINVAL with *err naming the project when no
 * folder outside it can be named (no $XDG_STATE_HOME or $HOME, or it lies
 * inside the project). */
int wh_job_default_out(wh_job_t *j, char **why, char **err);

/* For a job a client submitted to a coordinator: puts its run folders under
 * the coordinator's runs folder (absolute), never where the client says.
 * No "out": runs itself; a plain relative "out" (wh_path_is_plain_relative):
 * runs/out; anything else (absolute, "..", ".", "a//b") is refused with a
 * one-line *err naming the value and the runs folder. Call before
 * wh_job_validate. 0, WH_EINVAL or WH_ENOMEM. */
int wh_job_place_runs(wh_job_t *j, const char *runs, char **err);

/* One slot per online core (1 when unknown, at most 1024): --jobs auto and
 * the job field "jobs": "auto". */
int wh_job_cores(void);

/* Fills j from a JSON object (jansson json_t*), as `whittle submit` reads. */
int wh_job_from_json(wh_job_t *j, const void *json_obj, char **err);
/* Fills j from a config file holding one job object (`whittle.json`; the
 * fields of a submit entry). A relative "project" is taken relative to the
 * file's folder. 0 or WH_EINVAL with a one-line *err naming the file. */
int wh_job_load_config(wh_job_t *j, const char *path, char **err);
/* Serializes j as a JSON object string (malloc'ed). */
char *wh_job_to_json(const wh_job_t *j);

/* The job identity of DESIGN.md "Cache key": hashes the project snapshot
 * (given), the commands, framework, test file, target test, fingerprint
 * mode and timeouts. */
void wh_job_identity(const wh_job_t *j, const char *snapshot, char out[65]);

/* Appends one --ignore glob. 0 or WH_ENOMEM. */
int wh_job_add_ignore(wh_job_t *j, const char *glob);

/* When no compile flags (--) were given and no compilation database folder
 * (-p), guesses "-I" flags so that libclang finds the project's own
 * headers, and sets args_guessed (such args are not serialized: the side
 * that parses guesses again). For every `#include` of the test file (and of
 * the project headers it reaches) that names a path with a folder
 * (`<NAME/NAME.h>`), the project folder under which that path exists;
 * then every project folder that holds headers. A compile_commands.json
 * found next to the file still comes first. Before all that (and with -p
 * too, whose database has no entry for such a file), a test file that
 * names no framework header and is #included by another project file (a
 * Check runner's `#include "test_art.c"`) gets what that file has before
 * the #include, as -include and -D flags (includer.h). */
void wh_job_guess_includes(wh_job_t *j);

/* 1 when the compile flags are the user's: -p or `--`. */
int wh_job_flags_explicit(const wh_job_t *j);

/* The file extension of j->file including the dot (".c"), or "". */
const char *wh_job_ext(const wh_job_t *j);

/* The job's "git" object (a snapshot, jobsnap.h): reads it (NULL: none) /
 * adds it to o (a json_t object), frees and copies its fields. */
int wh_job_git_from_json(wh_job_t *j, const void *git_obj, char **err);
void wh_job_git_to_json(const wh_job_t *j, void *o);
void wh_job_git_clear(wh_job_t *j); /* the tar fields too */
int wh_job_git_copy(wh_job_t *dst, const wh_job_t *src); /* the tar fields too */
/* The job's "tar" object (jobsnap.c): {"sha256": 64 hex, "size": N}. */
int wh_job_tar_from_json(wh_job_t *j, const void *tar_obj, char **err);
void wh_job_tar_to_json(const wh_job_t *j, void *o);

/* --snapshot: none (the path), git, tar, or auto (git in a git work tree,
 * tar otherwise). */
enum { WH_SNAP_NONE = 0, WH_SNAP_GIT = 1, WH_SNAP_TAR = 2, WH_SNAP_AUTO = 3 };

#endif
