/*
 * whittle — the command line: one handler per command. Options come from
 * common/cli_table.c (`whittle help COMMAND` lists them); the handlers
 * take them by name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "auth.h"
#include "cache.h"
#include "cache_cmd.h"
#include "wh_mac.h"
#include "client.h"
#include "embedded.h"
#include "cli.h"
#include "from_cmd.h"
#include "fw_detect.h"
#include "includer.h"
#include "framework.h"
#include "job.h"
#include "jobsnap.h"
#include "pool.h"
#include "progress.h"
#include "reduce.h"
#include "refauto.h"
#include "report.h"
#include "group.h"
#include "mutate.h"
#include "suite_cmd.h"
#include "tree.h"
#include "wh_snapshot.h"
#include "wh_tar.h"
#include "wire.h"
#include "worker.h"
#include "verify_local.h"

static volatile sig_atomic_t s_interrupted;

static void s_on_signal(int sig)
{
    (void)sig;
    s_interrupted = 1;
}

/* `whittle` alone or an unknown command: the commands, on stderr. */
static void s_usage(FILE *fp)
{
    const char *indent = "usage: ";
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++) {
        if (c->name && !strcmp(c->prog, "whittle")) {
            wh_cli_synopsis(c, fp, indent);
            indent = "       ";
        }
    }
    fputs("see whittle help COMMAND\n", fp);
}

static int s_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int s_die(int code, const char *fmt, ...)
{
    va_list ap;
    wh_progress_erase();
    fflush(stdout); /* what was said before the error comes before it, piped too */
    va_start(ap, fmt);
    fputs("whittle: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

/* "frameworks: junit, cmocka, …\n", for the help of the commands that take
 * --framework. */
static const char *s_frameworks_line(void)
{
    static char line[1024];
    snprintf(line, sizeof line, "\nframeworks: %s\n", wh_framework_names());
    return line;
}

/* ---- inspect ---- */

static int s_inspect_run(const char *file, const char *test, int list, int json,
                         const wh_tree_opts_t *op, const char *root);

/* 1 when dir holds one of the names (file or folder). */
static int s_holds(const char *dir, const char *const *names)
{
    int found = 0;
    for (int k = 0; names[k] && !found; k++) {
        char *m = wh_path_join(dir, names[k]);
        found = m && (wh_is_file(m) || wh_is_dir(m));
        free(m);
    }
    return found;
}

/* The project root of a test file inspected without flags, whose header
 * folders the include guess searches (malloc'ed; NULL: none): the top of
 * the git work tree holding the file (the nearest folder above it with a
 * `.git` folder or file, so a submodule is its own project), else the
 * outermost of the folders in a row above it that hold a build file or
 * compile_commands.json, starting at the nearest such folder (at most 5
 * levels up). Never / or $HOME (whose .git is a dotfiles repository). Not
 * the nearest build file: projects keep one in their tests/ folder too
 * (aws-c-common's tests/, json.h's test/), and the headers the tests
 * include live above it (include/aws/common/...). The row ends at the
 * first folder without one, so a stray Makefile in /tmp or above the
 * project is not the root. */
static char *s_inspect_root(const char *file)
{
    static const char *const git[] = {".git", NULL};
    static const char *const builds[] = {"CMakeLists.txt", "compile_commands.json", "Makefile",
                                         "meson.build", "configure", NULL};
    const char *home = getenv("HOME");
    char *dir = wh_abspath(file), *outer = NULL;
    int up = 0, row = 1;
    for (char *slash; dir && (slash = strrchr(dir, '/')) && slash != dir; up++) {
        *slash = '\0';
        int is_home = home && strcmp(dir, home) == 0; /* a dotfiles repository is no project */
        if (!is_home && s_holds(dir, git)) {
            free(outer);
            return dir;
        }
        if (row && !is_home && s_holds(dir, builds) && (outer || up < 5)) {
            free(outer);
            outer = strdup(dir);
        } else if (outer) {
            row = 0; /* the row of build folders ended; a git top may still come */
        }
    }
    free(dir);
    return outer;
}

static int s_inspect(int argc, char **argv)
{
    const char *file = NULL, *test = NULL, *compdb = NULL;
    int list = 0, json = 0, allow = 0, rc;
    wh_cli_t c;
    wh_cli_begin(&c, "whittle", "inspect", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0) {
        if (wh_cli_is(&c, "test"))
            test = c.arg;
        else if (wh_cli_is(&c, "compdb"))
            compdb = c.arg;
        else if (wh_cli_is(&c, "list"))
            list = 1;
        else if (wh_cli_is(&c, "json"))
            json = 1;
        else if (wh_cli_is(&c, "allow-parse-errors"))
            allow = 1;
    }
    if (rc < 0)
        return c.exit;
    file = c.npos ? c.pos[0] : NULL;
    const char **extra = (const char **)c.extra;
    int nextra = c.nextra;
    if (!file)
        return s_die(2, "inspect needs a test file");
    if (!list && !test)
        return s_die(2, "inspect needs --test NAME or --list");
    /* Without flags, let libclang see the project's header folders, guessed
     * under its root (s_inspect_root). */
    wh_job_t guess;
    wh_job_init(&guess);
    if (!compdb && !nextra) {
        guess.project = s_inspect_root(file);
        if (guess.project) {
            guess.file = wh_abspath(file);
            wh_job_guess_includes(&guess);
        }
        extra = (const char **)guess.args;
        nextra = guess.nargs;
    }
    /* inspect names the file from the current folder: so do its flags. */
    wh_tree_opts_t o = {compdb, extra, nextra, NULL, allow, NULL};
    char *root = guess.project ? NULL : s_inspect_root(file);
    if (!guess.project && !root) { /* no project around it: its own folder, for the includer */
        char *abs = wh_abspath(file), *slash = abs ? strrchr(abs, '/') : NULL;
        if (slash && slash != abs)
            *slash = '\0', root = abs, abs = NULL;
        free(abs);
    }
    int code = s_inspect_run(file, test, list, json, &o, guess.project ? guess.project : root);
    free(root);
    wh_job_clear(&guess);
    return code;
}

/* A parse error in err: what would make file parse (includer.h). */
static void s_inspect_advise(const char *root, const char *file, const wh_tree_opts_t *o,
                             int rc, char **err)
{
    char *abs = rc == WH_EPARSE && root ? wh_abspath(file) : NULL;
    size_t rl = root ? strlen(root) : 0;
    if (abs && !strncmp(abs, root, rl) && abs[rl] == '/')
        wh_includer_advise(root, abs + rl + 1, wh_includer_applied(o->args, o->nargs), err);
    free(abs);
}

static int s_inspect_run(const char *file, const char *test, int list, int json,
                         const wh_tree_opts_t *op, const char *root)
{
    wh_tree_opts_t o = *op;
    char *err = NULL;
    if (list) {
        char **names = NULL;
        int n = 0;
        int rc = wh_tree_list(file, &o, &names, &n, &err);
        s_inspect_advise(root, file, &o, rc, &err);
        if (rc) {
            int code = s_die(1, "%s", err ? err : wh_strerror(rc));
            free(err);
            return code;
        }
        if (json) {
            json_t *a = json_array();
            for (int i = 0; i < n; i++)
                json_array_append_new(a, json_string(names[i]));
            json_t *obj = json_pack("{s:s,s:o}", "file", file, "tests", a);
            char *s = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
            puts(s);
            free(s);
            json_decref(obj);
        } else {
            for (int i = 0; i < n; i++)
                puts(names[i]);
            if (n == 0) /* said, not an empty answer a user cannot tell from a failure */
                fprintf(stderr, "whittle: no test function recognised in %s; --test NAME takes "
                        "any function it defines (main, a registered s_test_..._fn)\n", file);
        }
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return 0;
    }
    wh_tree_t *t = NULL;
    int rc = wh_tree_load(file, test, &o, &t, &err);
    s_inspect_advise(root, file, &o, rc, &err);
    if (rc) {
        int code = s_die(1, "%s", err ? err : wh_strerror(rc));
        free(err);
        return code;
    }
    if (t->diag)
        fprintf(stderr, "whittle: warning: %s (--allow-parse-errors: the tree may miss statements)\n",
                t->diag);
    wh_tree_print(t, stdout, json);
    wh_tree_destroy(&t);
    return 0;
}

/* ---- reduce ---- */

static unsigned s_secs(const char *s, const char *flag, int *bad)
{
    char *end = NULL;
    double v = strtod(s, &end);
    unsigned ms = 0;
    if (!end || end == s || *end || wh_secs_to_ms(v, WH_JOB_MAX_SECS, &ms) != 0) {
        fprintf(stderr,
                "whittle: error: %s wants a number of seconds in (0, %d], not '%s'\n", flag,
                WH_JOB_MAX_SECS, s);
        *bad = 1;
        return 0;
    }
    return ms;
}

/* The cluster client's key options (reduce --cluster, submit, status). */
static struct {
    const char *secret, *server;
    int insecure;
} s_auth_opt;

/* Takes the option just read when it is a key option; 1 taken, 0 not. */
static int s_auth_take(const wh_cli_t *c)
{
    if (wh_cli_is(c, "insecure"))
        s_auth_opt.insecure = 1;
    else if (wh_cli_is(c, "secret-key"))
        s_auth_opt.secret = c->arg;
    else if (wh_cli_is(c, "server-key"))
        s_auth_opt.server = c->arg;
    else
        return 0;
    return 1;
}

/* The reduce options that set a string field of the job. */
static const struct {
    const char *name;
    size_t off;
} s_job_strings[] = {
    {"project", offsetof(wh_job_t, project)},
    {"file", offsetof(wh_job_t, file)},
    {"test", offsetof(wh_job_t, test)},
    {"setup", offsetof(wh_job_t, setup)},
    {"build", offsetof(wh_job_t, build)},
    {"run", offsetof(wh_job_t, run)},
    {"framework", offsetof(wh_job_t, framework)},
    {"out", offsetof(wh_job_t, out)},
    {"cache", offsetof(wh_job_t, cache)},
    {"compdb", offsetof(wh_job_t, compdb)},
    {"failure-regex", offsetof(wh_job_t, failure_regex)},
    {"pass-regex", offsetof(wh_job_t, pass_regex)},
    {"message-continuation", offsetof(wh_job_t, message_continuation)},
    {"reference", offsetof(wh_job_t, reference)},
};

/* 1 when the option just read is a string field of the job (now set). */
static int s_reduce_string(const wh_cli_t *c, wh_job_t *j)
{
    for (size_t k = 0; k < sizeof s_job_strings / sizeof s_job_strings[0]; k++) {
        if (wh_cli_is(c, s_job_strings[k].name)) {
            char **field = (char **)((char *)j + s_job_strings[k].off);
            free(*field);
            *field = strdup(c->arg);
            return 1;
        }
    }
    return 0;
}

/* The options that choose among names (--algorithm, --ddmin, --match,
 * --precheck, --ub-guard, --prior): 1 taken, 0 not one of them, -1 a bad name (printed). */
static int s_reduce_choice(const wh_cli_t *c, wh_job_t *j)
{
    const char *v = c->arg;
    if (wh_cli_is(c, "algorithm")) {
        if (wh_algo_parse(v, &j->algo) < 0)
            return -s_die(1, "unknown algorithm '%s' (known: hdd, dd, linear)", v);
    } else if (wh_cli_is(c, "ddmin")) {
        if (wh_walk_parse(v, &j->walk) < 0)
            return -s_die(1, "unknown ddmin walk '%s' (known: chunked, classic)", v);
    } else if (wh_cli_is(c, "match")) {
        static const char *const modes[] = {"full", "message", "type"};
        int m = -1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(v, modes[k]))
                m = k;
        if (m < 0)
            return -s_die(1, "unknown match mode '%s' (known: full, message, type)", v);
        j->match = m;
    } else if (wh_cli_is(c, "precheck")) {
        wh_precheck_mode_t m;
        if (wh_precheck_mode_parse(v, &m))
            return -s_die(1, "unknown precheck mode '%s' (known: on, off, audit)", v);
        j->precheck = (int)m;
    } else if (wh_cli_is(c, "ub-guard")) {
        if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
            return -s_die(1, "unknown ub-guard mode '%s' (known: on, off)", v);
        j->ub_guard = strcmp(v, "on") == 0;
    } else if (wh_cli_is(c, "prior")) {
        if (strcmp(v, "slice") != 0 && strcmp(v, "none") != 0)
            return -s_die(1, "unknown prior '%s' (known: slice, none)", v);
        j->prior = strcmp(v, "slice") == 0;
    } else {
        return 0;
    }
    return 1;
}

/* The numeric options: 1 taken, 0 not one of them, -1 out of range (printed). */
static int s_reduce_number(const wh_cli_t *c, wh_job_t *j)
{
    const char *v = c->arg;
    int bad = 0;
    if (wh_cli_is(c, "jobs") && !strcmp(v, "auto")) {
        j->jobs = wh_job_cores();
    } else if (wh_cli_is(c, "jobs")) {
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (!end || *end || n < 1 || n > 1024)
            return -s_die(1, "--jobs wants a number from 1 to 1024 or auto, not '%s'", v);
        j->jobs = (int)n;
    } else if (wh_cli_is(c, "build-timeout")) {
        j->build_timeout_ms = s_secs(v, "--build-timeout", &bad);
    } else if (wh_cli_is(c, "test-timeout")) {
        j->test_timeout_ms = s_secs(v, "--test-timeout", &bad);
    } else if (wh_cli_is(c, "setup-timeout")) {
        j->setup_timeout_ms = s_secs(v, "--setup-timeout", &bad);
    } else if (wh_cli_is(c, "budget")) {
        char *err = NULL;
        int rc = wh_spend_parse(v, &j->budget, &err);
        if (rc) {
            s_die(2, "%s", err ? err : wh_strerror(rc));
            free(err);
            return -2;
        }
    } else if (wh_cli_is(c, "repeat") || wh_cli_is(c, "flaky-ok")) {
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (!end || *end || n < 1 || n > 1000)
            return -s_die(1, "--%s wants a number from 1 to 1000, not '%s'", c->opt->name, v);
        *(wh_cli_is(c, "repeat") ? &j->repeat : &j->flaky_ok) = (int)n;
    } else {
        return 0;
    }
    return bad ? -1 : 1;
}

/* The flags (no value). 1 taken, 0 not one of them. */
static int s_reduce_flag(const wh_cli_t *c, wh_job_t *j)
{
    if (wh_cli_is(c, "keep-fault"))
        j->keep_fault = 1;
    else if (wh_cli_is(c, "no-keep-fault"))
        j->no_keep_fault = 1;
    else if (wh_cli_is(c, "pass-on-exit0"))
        j->pass_on_exit0 = 1;
    else if (wh_cli_is(c, "speculate"))
        j->speculate = 1;
    else if (wh_cli_is(c, "no-speculate"))
        j->speculate = 0;
    else if (wh_cli_is(c, "allow-parse-errors"))
        j->allow_parse_errors = 1;
    else if (wh_cli_is(c, "verbose"))
        j->verbose++;
    else if (wh_cli_is(c, "quiet"))
        j->quiet = 1;
    else
        return 0;
    return 1;
}

/* reduce --from-junit REPORT / --from-ctest BUILD_DIR (from_cmd.h). */
static wh_from_opts_t s_from_opt;
/* --cache-max of reduce (the embedded cache; a coordinator has its own). */
static uint64_t s_cache_max;
/* --keep-work of reduce: the embedded run's workspaces stay (embedded.h). */
static int s_keep_work;

/* reduce --cluster --verify-local, --no-verify-local (verify_local.h). */
static struct {
    int on;
    int off;        /* --no-verify-local: never, not even for an unverified answer */
} s_vlocal;

/* reduce --snapshot tar: --snapshot-max, and the packed project sent
 * before the job (s_cluster_run). */
static uint64_t s_snap_max;
static struct {
    const char *sha;
    const uint8_t *data;
    size_t len;
} s_tar_up;

/* --batch-budget only where there is a batch to spend it: 0, or exit 2. */
static int s_batch_budget_ok(const char *cluster)
{
    if (!s_from_opt.batch_budget.builds && !s_from_opt.batch_budget.ms)
        return 0;
    if (!s_from_opt.junit && !s_from_opt.ctest)
        return s_die(2, "--batch-budget is for a batch (--from-ctest, --from-junit); one job "
                     "takes --budget");
    (void)cluster; /* through a cluster, the client keeps the batch's account (from_cluster.c) */
    return 0;
}

static int s_parse_reduce(int argc, char **argv, wh_job_t *j, char **cluster)
{
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "reduce", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0) {
        if (wh_cli_is(&c, "config"))
            continue; /* read before the flags, by s_load_config */
        if (wh_cli_is(&c, "cluster")) {
            free(*cluster);
            *cluster = strdup(c.arg);
            continue;
        }
        if (wh_cli_is(&c, "ignore")) {
            if (wh_job_add_ignore(j, c.arg))
                return s_die(1, "out of memory");
            continue;
        }
        if (wh_cli_is(&c, "snapshot")) {
            if (strcmp(c.arg, "git") && strcmp(c.arg, "none") && strcmp(c.arg, "tar") &&
                strcmp(c.arg, "auto"))
                return s_die(2, "--snapshot wants git, tar, auto or none, not '%s'", c.arg);
            j->snapshot = !strcmp(c.arg, "git")   ? WH_SNAP_GIT
                          : !strcmp(c.arg, "tar") ? WH_SNAP_TAR
                          : !strcmp(c.arg, "auto") ? WH_SNAP_AUTO
                                                   : WH_SNAP_NONE;
            continue;
        }
        if (wh_cli_is(&c, "snapshot-max")) {
            uint64_t v = 0;
            if (wh_cache_parse_size(c.arg, &v) || !v || v > WH_TAR_MAX_PACKED)
                return s_die(2, "--snapshot-max wants a size like 20M (K, M, G) up to 64M, not "
                             "'%s'", c.arg);
            s_snap_max = v;
            continue;
        }
        if (wh_cli_is(&c, "verify-local")) {
            s_vlocal.on = 1;
            continue;
        }
        if (wh_cli_is(&c, "no-verify-local")) {
            s_vlocal.off = 1;
            continue;
        }
        if (wh_cli_is(&c, "cache-secret-file")) {
            wh_mac_set_secret_file(c.arg);
            continue;
        }
        if (wh_cli_is(&c, "cache-max")) {
            if (wh_cache_parse_size(c.arg, &s_cache_max) || !s_cache_max)
                return s_die(2, "--cache-max wants a size like 64M (K, M, G), not '%s'", c.arg);
            continue;
        }
        if (wh_cli_is(&c, "keep-work")) {
            s_keep_work = 1;
            continue;
        }
        if (wh_cli_is(&c, "each")) {
            s_from_opt.each = 1;
            continue;
        }
        if (wh_cli_is(&c, "batch-budget")) {
            char *err = NULL;
            int brc = wh_spend_parse_opt("--batch-budget", c.arg, &s_from_opt.batch_budget, &err);
            if (brc) {
                s_die(2, "%s", err ? err : wh_strerror(brc));
                free(err);
                return 2;
            }
            continue;
        }
        if (wh_cli_is(&c, "from-junit") || wh_cli_is(&c, "from-ctest")) {
            /* the last one given */
            s_from_opt.junit = wh_cli_is(&c, "from-junit") ? c.arg : NULL;
            s_from_opt.ctest = wh_cli_is(&c, "from-ctest") ? c.arg : NULL;
            continue;
        }
        if (wh_cli_is(&c, "git-url")) {
            free(j->git_url);
            j->git_url = strdup(c.arg);
            j->snapshot = WH_SNAP_GIT;
            continue;
        }
        if (s_reduce_string(&c, j) || s_auth_take(&c) || s_reduce_flag(&c, j))
            continue;
        int took = s_reduce_choice(&c, j);
        if (!took)
            took = s_reduce_number(&c, j);
        if (took < 0)
            return 2;
    }
    if (rc < 0)
        return c.exit;
    if (c.dash) {
        for (int k = 0; k < j->nargs; k++)
            free(j->args[k]);
        free(j->args);
        j->nargs = 0;
        j->args = calloc((size_t)c.nextra + 1, sizeof(char *));
        for (int k = 0; k < c.nextra; k++)
            j->args[j->nargs++] = strdup(c.extra[k]);
    }
    char *err = NULL; /* said now, not after a batch's first runs */
    if (wh_cache_spec_check(j->cache, &err)) {
        rc = s_die(2, "%s", err);
        free(err);
        return rc;
    }
    return s_batch_budget_ok(*cluster);
}

/* The one job of `whittle reduce`, on the embedded pool and node. */
typedef struct {
    const wh_job_t *job;
    int code;
} s_one_t;

static void s_one_started(void *arg, size_t i, wh_reduction_t *r)
{
    (void)i;
    if (!((s_one_t *)arg)->job->quiet)
        printf("Run folder: %s\n", wh_reduction_dir(r));
}

/* The live status line (plain lines when stdout is not a terminal). */
static void s_one_tick(void *arg, size_t i, wh_reduction_t *r)
{
    (void)arg, (void)i;
    wh_progress_t p;
    wh_reduction_status_now(r, &p);
    wh_progress_update(&p);
}

static void s_one_failed(void *arg, size_t i, int status, const char *err)
{
    (void)i;
    ((s_one_t *)arg)->code = s_die(status, "%s", err);
}

static void s_one_finished(void *arg, size_t i, wh_reduction_t *r)
{
    s_one_t *one = arg;
    (void)i;
    wh_progress_end();
    const char *msg = NULL;
    int st = wh_reduction_status(r, &msg);
    if (st && !wh_reduction_answered(r)) {
        one->code = s_die(st, "%s", msg ? msg : "reduction failed");
        fprintf(stderr, "whittle: the run record is in %s\n", wh_reduction_dir(r));
    } else {
        printf("Reduced test (%s/reduced%s):\n%s", wh_reduction_dir(r), wh_job_ext(one->job),
               wh_reduction_result_text(r) ? wh_reduction_result_text(r) : "");
        if (*wh_reduction_diff(r))
            printf("Diff (%s/reduced.diff):\n%s", wh_reduction_dir(r), wh_reduction_diff(r));
        if (!one->job->quiet)
            printf("Report: %s/report.html\n", wh_reduction_dir(r));
        one->code = st; /* WH_EXIT_PARTIAL: the budget cut the walk short */
    }
}

static int s_reduce_embedded(wh_job_t *j)
{
    s_one_t one = {j, 0};
    wh_embedded_opts_t o = {j->jobs, j->cache, j->quiet, &s_interrupted,
                            s_one_started, s_one_failed, s_one_finished, &one, s_one_tick,
                            s_cache_max, s_keep_work};
    char *err = NULL;
    /* Plain lines (stdout not a terminal): at each new level, else every
     * WHITTLE_PROGRESS_SECS seconds (default 10). */
    const char *ps = getenv("WHITTLE_PROGRESS_SECS");
    unsigned period = ps && atoi(ps) > 0 ? (unsigned)atoi(ps) * 1000u : 10000u;
    wh_progress_begin(wh_progress_mode_auto(j->quiet), period);
    int code = wh_embedded_run(j, 1, &o, &err);
    wh_progress_end();
    if (code)
        s_die(code, "%s", err ? err : "cannot start the embedded pool");
    free(err);
    return code ? code : one.code;
}

/* ---- cluster client ---- */

/* How long a client waits for the coordinator's socket to answer: the
 * whole command says "cannot reach" within 2 s. */
#define S_REACH_MS 1500

/* Waits for the connection to come up; 0, or 4 with *err set. */
static int s_client_reach(void *mon, const char *endpoint, char **err)
{
    if (strncmp(endpoint, "tcp://", 6) && strncmp(endpoint, "ipc://", 6))
        return 0;
    int rc = wh_auth_wait_connected(mon, S_REACH_MS);
    if (!rc)
        return 0;
    *err = rc == -ECONNREFUSED
               ? wh_strdup_printf("cannot reach coordinator at %s (the connection failed: is "
                                  "whittle-coordinator running there?)", endpoint)
               : wh_strdup_printf("cannot reach coordinator at %s (no answer within %.1f s)",
                                  endpoint, S_REACH_MS / 1000.0);
    return 4;
}

/* A DEALER connected to the coordinator, with CURVE when keys are given;
 * *mon watches its handshakes (wh_auth_refused). NULL with *err set
 * (malloc'ed) and *code the exit status (2: bad options, 4: the
 * coordinator cannot be reached). */
static void *s_client_connect(void *zctx, const char *endpoint, void **mon, char **err, int *code)
{
    *mon = NULL;
    *code = 2;
    wh_auth_keys_t k;
    int have = wh_auth_client_setup(&k, s_auth_opt.secret, s_auth_opt.server, endpoint,
                                    s_auth_opt.insecure, err);
    if (have < 0)
        return NULL;
    void *s = zmq_socket(zctx, ZMQ_DEALER);
    if (!s)
        goto zerr;
    int zero = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    *mon = wh_auth_watch(zctx, s);
    if ((have && wh_auth_client_apply(&k, s) != 0) || wh_wire_limit(s) != 0 ||
        zmq_connect(s, endpoint) < 0) {
        wh_auth_close(s, *mon);
        *mon = NULL;
        goto zerr;
    }
    memset(&k, 0, sizeof k);
    if ((*code = s_client_reach(*mon, endpoint, err)) != 0) {
        wh_auth_close(s, *mon);
        *mon = NULL;
        return NULL;
    }
    return s;
zerr:
    memset(&k, 0, sizeof k);
    *err = wh_strdup_printf("cannot connect to cluster '%s': %s", endpoint, zmq_strerror(errno));
    return NULL;
}

/* The run folders of the jobs that finished well, and the jobs sent (for
 * a check on this machine; NULL when watched by id). */
typedef struct {
    char **dirs;
    size_t n;
    char **jobs_json;
    wh_from_result_t *res; /* per job: its end (a batch, from_cmd.h), or NULL */
    int mode;              /* WH_FROM_* */
} s_dirs_t;

/* Keeps the run folder named by a job's final text ("Run folder: DIR"). */
static void s_note_run_folder(const char *text, char ***dirs, size_t *n)
{
    static const char mark[] = "Run folder: ";
    const char *p = text ? strstr(text, mark) : NULL;
    char **nd = p ? realloc(*dirs, (*n + 1) * sizeof *nd) : NULL;
    if (!nd)
        return;
    *dirs = nd;
    p += sizeof mark - 1;
    if ((nd[*n] = strndup(p, strcspn(p, "\n"))))
        (*n)++;
}

/* The client's own check of job `job`'s answer (verify_local.h): asked
 * with --verify-local (code 0), and done without asking for an answer
 * no second node checked (WH_EXIT_UNVERIFIED: one node judged every
 * candidate and verified it too). Returns the job's status: 0 verified
 * here, 3 refused, 4 the asked check could not run, WH_EXIT_UNVERIFIED
 * when an unverified answer could not be checked here; one line either
 * way. */
static int s_verify_local_run(const char *job_json, int job, int code, const uint8_t *reduced,
                              size_t len)
{
    int unverified = code == WH_EXIT_UNVERIFIED;
    if (!unverified && (code || !s_vlocal.on))
        return code;
    static const char lone[] = "not verified: one node judged every candidate and verified the "
                               "answer itself, and";
    if (unverified && s_vlocal.off)
        return s_die(code, "job %d: %s --no-verify-local keeps this machine from checking it", job,
                     lone);
    if (!reduced)
        return unverified ? s_die(code, "job %d: %s the coordinator sent no reduced test to "
                                  "check here", job, lone)
                          : s_die(4, "--verify-local: the coordinator sent no reduced test with "
                                  "its answer (an older coordinator, or a job that ended while "
                                  "this client was away)");
    wh_job_t j;
    wh_job_init(&j);
    char *err = NULL, *said = NULL;
    json_t *o = job_json ? json_loads(job_json, 0, NULL) : NULL;
    int rc = o ? wh_job_from_json(&j, o, &err) : WH_EINVAL;
    json_decref(o);
    if (rc) {
        code = unverified ? s_die(code, "job %d: %s this client has no job to build here (%s)",
                                  job, lone, err ? err : "a job watched by id")
                          : s_die(4, "--verify-local: %s", err ? err : "no job");
        free(err);
        wh_job_clear(&j);
        return code;
    }
    if (!j.quiet)
        printf("Verifying locally: building and running the original and the reduced test in "
               "a fresh copy of the project on this machine%s\n",
               unverified ? " (no other node checked the cluster's answer)" : "");
    fflush(stdout);
    char *text = malloc(len + 1);
    if (text) {
        memcpy(text, reduced, len);
        text[len] = '\0';
    }
    rc = text ? wh_verify_local(&j, text, len, &s_interrupted, &said) : 4;
    if (rc == 4 && unverified)
        s_die(rc = code, "job %d: %s this machine could not check it (%s)", job, lone,
              said ? said : "out of memory");
    else if (rc)
        s_die(rc, "%s", said ? said : "--verify-local failed");
    else
        printf("%s\n", said);
    free(said);
    free(text);
    wh_job_clear(&j);
    return rc;
}

/* A job's answer (client.h): its run folder for the groups printed at the
 * end, and the check on this machine (s_verify_local_run). */
static int s_on_result(void *ctx, int job, int code, const char *text, const uint8_t *reduced,
                       size_t len)
{
    s_dirs_t *d = ctx;
    s_note_run_folder(text, &d->dirs, &d->n);
    if (d->mode == WH_FROM_FIRST)
        return code; /* a fingerprint, no answer to check */
    int rc = s_verify_local_run(d->jobs_json ? d->jobs_json[job] : NULL, job, code, reduced, len);
    /* a partial answer (--budget) checked here is still partial */
    return rc == 0 && text && strstr(text, "\nPartial: ") ? WH_EXIT_PARTIAL : rc;
}

/* A job's end (client.h): its status and run summary for a batch. */
static void s_on_end(void *ctx, int job, int code, const char *summary)
{
    s_dirs_t *d = ctx;
    if (!d->res)
        return;
    d->res[job].code = code;
    free(d->res[job].run);
    d->res[job].run = summary ? strdup(summary) : NULL;
}

/* Sends every job (jobs_json[i]) or watches it by id (ids[i] when
 * jobs_json is NULL), and waits for each job's end (client.h), drawing
 * the status lines the coordinator sends; res (n, or NULL) gets each
 * job's end, mode says what the jobs are (from_cmd.h's WH_FROM_*).
 * Returns the worst exit status. */
static int s_cluster_run(const char *endpoint, char **jobs_json, const char *const *ids, int n,
                         int quiet, wh_from_result_t *res, int mode)
{
    char *err = NULL;
    /* Said before sending: a job over the wire limit never arrives. */
    if (wh_client_check_size(jobs_json, n, &err)) {
        int code = s_die(2, "%s", err);
        free(err);
        return code;
    }
    void *zctx = zmq_ctx_new();
    void *mon = NULL;
    int code = 0;
    void *s = s_client_connect(zctx, endpoint, &mon, &err, &code);
    if (!s) {
        zmq_ctx_term(zctx);
        code = s_die(code, "%s", err);
        free(err);
        return code;
    }
    if (s_tar_up.sha) {
        /* the project first: the job names it by its hash */
        wh_client_t up = {s, mon, endpoint, &s_interrupted, quiet, NULL, NULL, NULL, 0};
        int urc = wh_client_upload(&up, s_tar_up.sha, s_tar_up.data, s_tar_up.len, &err);
        if (urc) {
            wh_auth_close(s, mon);
            zmq_ctx_term(zctx);
            code = s_die(urc, "%s", err);
            free(err);
            return code;
        }
    }
    const char *ps = getenv("WHITTLE_PROGRESS_SECS");
    wh_progress_begin(wh_progress_mode_auto(quiet),
                      ps && atoi(ps) > 0 ? (unsigned)atoi(ps) * 1000u : 10000u);
    for (int i = 0; res && i < n; i++)
        res[i] = (wh_from_result_t){4, NULL, NULL}; /* until its end comes */
    s_dirs_t d = {NULL, 0, jobs_json, res, mode};
    wh_client_t c = {s, mon, endpoint, &s_interrupted, quiet, s_on_result, &d, s_on_end,
                     mode == WH_FROM_FIRST};
    int worst = wh_client_wait(&c, jobs_json, ids, n);
    wh_progress_end();
    wh_auth_close(s, mon);
    zmq_ctx_term(zctx);
    if (n > 1 && d.n && mode == WH_FROM_EACH)
        wh_group_print_dirs((const char *const *)d.dirs, d.n, stdout);
    for (size_t i = 0; i < d.n; i++)
        free(d.dirs[i]);
    free(d.dirs);
    return worst;
}

/* The job's defaults from `--config FILE`, else from ./whittle.json when it
 * exists; the flags parsed afterwards override them. */
static int s_load_config(int argc, char **argv, wh_job_t *j)
{
    const char *path = NULL;
    int quiet = 0;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "reduce", argc, argv);
    c.epilog = s_frameworks_line();
    while ((rc = wh_cli_next(&c)) > 0) {
        if (wh_cli_is(&c, "config"))
            path = c.arg;
        quiet |= wh_cli_is(&c, "quiet");
    }
    if (rc < 0)
        return c.exit ? c.exit : -1;
    if (!path && wh_is_file("whittle.json"))
        path = "whittle.json";
    if (!path)
        return 0;
    char *err = NULL;
    if (wh_job_load_config(j, path, &err)) {
        int code = s_die(2, "%s", err);
        free(err);
        return code;
    }
    if (!quiet)
        printf("config: %s\n", path);
    return 0;
}

/* The cluster of reduce --from-junit/--from-ctest: endpoint and --quiet. */
typedef struct {
    const char *endpoint;
    int quiet;
} s_cluster_arg_t;

static int s_cluster_cb(void *arg, char **jobs_json, int n, wh_from_result_t *res, int mode)
{
    const s_cluster_arg_t *ca = arg;
    return s_cluster_run(ca->endpoint, jobs_json, NULL, n, ca->quiet, res, mode);
}

static int s_reduce(int argc, char **argv)
{
    wh_job_t j;
    wh_job_init(&j);
    char *cluster = NULL, *err = NULL, *refline = NULL;
    int code = s_load_config(argc, argv, &j);
    if (!code)
        code = s_parse_reduce(argc, argv, &j, &cluster);
    if (code) {
        code = code < 0 ? 0 : code; /* -1: --help or --version printed */
        goto out;
    }
    /* Standing in the project is enough: --project defaults to the
     * current folder (also for a whittle.json without "project"). */
    if (!j.project && !(j.project = strdup("."))) {
        code = s_die(4, "out of memory");
        goto out;
    }
    /* Run folders on this machine never go into the project's tree
     * (job.h); a cluster puts them under its own --runs. */
    char *outline = NULL;
    if (!cluster && wh_job_default_out(&j, &outline, &err)) {
        code = s_die(2, "%s", err ? err : "out of memory");
        goto out;
    }
    if (outline && !j.quiet)
        printf("%s\n", outline);
    free(outline);
    if (s_from_opt.junit || s_from_opt.ctest) {
        s_from_opt.interrupted = &s_interrupted;
        s_from_opt.cache_max = s_cache_max;
        s_from_opt.keep_work = s_keep_work;
        s_from_opt.cluster_run = cluster ? s_cluster_cb : NULL;
        s_cluster_arg_t ca = {cluster, j.quiet};
        s_from_opt.cluster_arg = &ca;
        code = wh_from_cmd(&j, &s_from_opt);
        goto out;
    }
    if (s_vlocal.on && s_vlocal.off) {
        code = s_die(2, "--verify-local and --no-verify-local: pick one");
        goto out;
    }
    if (s_vlocal.off && !cluster) {
        code = s_die(2, "--no-verify-local is for --cluster (the embedded run verifies on this "
                     "machine already)");
        goto out;
    }
    if (s_vlocal.on && !cluster) {
        code = s_die(2, "--verify-local is for --cluster (the embedded run verifies on this "
                     "machine already)");
        goto out;
    }
    int fw_given = j.framework != NULL;
    /* A cluster keeps run folders under its own --runs folder: --out goes
     * there as typed (a relative name), never resolved here. */
    char *typed_out = cluster && j.out ? strdup(j.out) : NULL;
    if (j.snapshot && !cluster) {
        code = s_die(2, "--snapshot is for --cluster (the embedded run reads the project itself)");
        goto out;
    }
    if (j.snapshot == WH_SNAP_AUTO) {
        char *head = j.project ? wh_snapshot_resolve_rev(j.project, "HEAD") : NULL;
        j.snapshot = head ? WH_SNAP_GIT : WH_SNAP_TAR;
        free(head);
    }
    /* Only the project travels in a tar: no reference picked for it. */
    if (j.snapshot == WH_SNAP_TAR && (!j.reference || !strcmp(j.reference, "auto"))) {
        free(j.reference);
        j.reference = strdup("none");
    }
    /* --reference auto (the default) or none: a revision, or no reference. */
    if (wh_refauto_apply(&j, cluster != NULL, &refline)) {
        code = s_die(1, "out of memory");
        goto out;
    }
    if (j.snapshot == WH_SNAP_TAR) {
        unsigned files = 0;
        if (wh_job_snapshot_tar(&j, s_snap_max, &files, &err)) {
            code = s_die(2, "%s", err);
            goto out;
        }
        char sz[32];
        printf("snapshot: tar of %u files, %s (sha256 %.12s)\n", files,
               wh_tar_size_str(j.tar_size, sz, sizeof sz), j.tar_sha);
        s_tar_up.sha = j.tar_sha;
        s_tar_up.data = j.tar_data;
        s_tar_up.len = j.tar_size;
    } else if (j.snapshot) {
        char *url = j.git_url; /* --git-url, or NULL: the origin remote */
        j.git_url = NULL;
        int rc = wh_job_snapshot_make(&j, url, &err);
        free(url);
        if (rc) {
            code = s_die(2, "%s", err);
            goto out;
        }
        printf("snapshot: %s at %.12s + %zu bytes of changes\n", j.git_url, j.git_rev,
               j.git_patch_len);
    }
    if (wh_job_validate(&j, &err)) {
        code = s_die(2, "%s", err);
        free(typed_out);
        goto out;
    }
    if (refline && !j.quiet)
        printf("%s\n", refline);
    if (cluster) {
        free(j.out);
        j.out = typed_out;
    }
    if (!fw_given && !j.quiet)
        printf("framework: %s (%s; --framework to choose another)\n", j.framework,
               j.failure_regex && !strcmp(j.failure_regex, wh_fw_utest_failure_regex)
                   ? "utest.h's console output, from the test file's includes"
               : strcmp(j.framework, "junit") ? "from the test file's includes"
                                              : "default: no known framework header included");
    wh_job_guess_includes(&j);
    if (!cluster) {
        code = s_reduce_embedded(&j);
    } else {
        /* Check the test exists here first: a typo should not cost a trip.
         * Parse errors are judged over there, with the warm workspace's
         * compile command, unless the flags are the user's. */
        char *path = wh_path_join(j.project, j.file);
        wh_tree_opts_t to = {j.compdb, (const char *const *)j.args, j.nargs, NULL,
                             j.allow_parse_errors            ? WH_TREE_ALLOW_ERRORS
                             : !wh_job_flags_explicit(&j) ? WH_TREE_ALLOW_MISSING_HEADERS
                                                          : 0,
                             j.project};
        wh_tree_t *t = NULL;
        int rc = wh_tree_load(path, j.test, &to, &t, &err);
        free(path);
        wh_tree_destroy(&t);
        if (rc) {
            code = s_die(1, "%s", err);
            goto out;
        }
        char *js = wh_job_to_json(&j);
        code = s_cluster_run(cluster, &js, NULL, 1, j.quiet, NULL, WH_FROM_EACH);
        free(js);
    }
out:
    memset(&s_tar_up, 0, sizeof s_tar_up);
    wh_job_clear(&j);
    free(cluster);
    free(refline);
    free(err);
    return code;
}

/* `submit --group`: the file's jobs as a batch grouped before reducing
 * (from_cmd.h, wh_from_cluster), each job's "out" as written; the night's
 * report goes to the first job's "out" here. */
static int s_submit_grouped(const char *cluster, const wh_job_t *jobs, size_t n, int quiet)
{
    s_cluster_arg_t ca = {cluster, quiet};
    wh_from_opts_t o = {0};
    o.interrupted = &s_interrupted;
    o.cluster_run = s_cluster_cb;
    o.cluster_arg = &ca;
    o.own_out = 1;
    wh_buf_t none = WH_BUF_INIT;
    return wh_from_cluster(jobs, n, &jobs[0], &o, &none);
}

static int s_submit(int argc, char **argv)
{
    const char *cluster = NULL, *file = NULL;
    int quiet = 0, group = 0;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "submit", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0) {
        if (!s_auth_take(&c) && wh_cli_is(&c, "cluster"))
            cluster = c.arg;
        else if (wh_cli_is(&c, "quiet"))
            quiet = 1;
        else if (wh_cli_is(&c, "group"))
            group = 1;
    }
    if (rc < 0)
        return c.exit;
    file = c.npos ? c.pos[0] : NULL;
    if (!cluster || !file)
        return s_die(2, "submit needs --cluster ENDPOINT and a JSON file");
    json_error_t je;
    json_t *root = json_load_file(file, 0, &je);
    if (!root)
        return s_die(2, "cannot read failures file '%s': %s (line %d)", file, je.text, je.line);
    if (!json_is_array(root)) {
        json_decref(root);
        return s_die(2, "failures file '%s' must hold a JSON array of jobs", file);
    }
    int n = (int)json_array_size(root);
    char **jobs = calloc((size_t)(n ? n : 1), sizeof *jobs);
    /* --group: the jobs kept for the batch's plan (from_cluster.c) */
    wh_job_t *kept = group ? calloc((size_t)(n ? n : 1), sizeof *kept) : NULL;
    int code = jobs && (!group || kept) ? 0 : s_die(4, "out of memory");
    for (int i = 0; !code && i < n; i++) {
        wh_job_t j;
        wh_job_init(&j);
        char *err = NULL, *typed_out = NULL;
        if (wh_job_from_json(&j, json_array_get(root, (size_t)i), &err) ||
            (j.out && !(typed_out = strdup(j.out))) || wh_job_validate(&j, &err)) {
            code = s_die(2, "failures file '%s', job %d: %s", file, i, err ? err : "out of memory");
            free(err);
            free(typed_out);
            wh_job_clear(&j);
            break;
        }
        /* "out" goes as written: the coordinator places it under --runs. */
        free(j.out);
        j.out = typed_out;
        jobs[i] = wh_job_to_json(&j);
        if (kept)
            kept[i] = j; /* taken over */
        else
            wh_job_clear(&j);
    }
    json_decref(root);
    if (!code && kept && n > 1)
        code = s_submit_grouped(cluster, kept, (size_t)n, quiet);
    else if (!code)
        code = s_cluster_run(cluster, jobs, NULL, n, quiet, NULL, WH_FROM_EACH);
    for (int i = 0; jobs && i < n; i++)
        free(jobs[i]);
    for (int i = 0; kept && i < n; i++)
        wh_job_clear(&kept[i]); /* zeroed when never filled */
    free(jobs);
    free(kept);
    return code;
}

/* A job id as the coordinator prints it: 16 lower-case hex digits. */
static int s_job_id_ok(const char *id)
{
    if (strlen(id) != WH_JOURNAL_ID_LEN)
        return 0;
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

/* `whittle watch|cancel --cluster ENDPOINT ID...`: the ids into ids[]
 * (at most cap). Returns the count, or -1 with *code the exit status
 * (0 after --help, 2 after an error, printed). */
static int s_parse_ids(const char *cmd, int argc, char **argv, const char **cluster,
                       const char **ids, int cap, int *code)
{
    wh_cli_t c;
    int rc, n = 0;
    *code = 2;
    wh_cli_begin(&c, "whittle", cmd, argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        if (!s_auth_take(&c) && wh_cli_is(&c, "cluster"))
            *cluster = c.arg;
    if (rc < 0) {
        *code = c.exit;
        return -1;
    }
    for (int i = 0; i < c.npos && rc == 0; i++) {
        if (!s_job_id_ok(c.pos[i]))
            rc = s_die(2, "'%s' is not a job id (16 hex digits, as the coordinator names jobs)",
                       c.pos[i]);
        else if (n == cap)
            rc = s_die(2, "%s takes at most %d job ids", cmd, cap);
        else
            ids[n++] = c.pos[i];
    }
    wh_cli_end(&c);
    if (!rc && (!*cluster || !n))
        rc = s_die(2, "%s needs --cluster ENDPOINT and a job id", cmd);
    return rc ? -1 : n;
}

/* whittle watch: follows jobs by id, as a client that reattaches. */
static int s_watch(int argc, char **argv)
{
    const char *cluster = NULL, *ids[64];
    int code, n = s_parse_ids("watch", argc, argv, &cluster, ids, 64, &code);
    return n < 0 ? code : s_cluster_run(cluster, NULL, ids, n, 0, NULL, WH_FROM_EACH);
}

/* whittle cancel: stops a job this client key submitted. */
static int s_cancel(int argc, char **argv)
{
    const char *cluster = NULL, *ids[1];
    int code, n = s_parse_ids("cancel", argc, argv, &cluster, ids, 1, &code);
    if (n < 0)
        return code;
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    void *mon = NULL;
    void *s = s_client_connect(zctx, cluster, &mon, &err, &code);
    if (!s) {
        code = s_die(code, "%s", err);
        free(err);
    } else {
        wh_client_t c = {s, mon, cluster, &s_interrupted, 0, NULL, NULL, NULL, 0};
        code = wh_client_cancel(&c, ids[0]);
        wh_auth_close(s, mon);
    }
    zmq_ctx_term(zctx);
    return code;
}

static int s_status(int argc, char **argv)
{
    const char *cluster = NULL;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "status", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        if (!s_auth_take(&c) && wh_cli_is(&c, "cluster"))
            cluster = c.arg;
    if (rc < 0)
        return c.exit;
    if (!cluster)
        return s_die(2, "status needs --cluster ENDPOINT");
    void *zctx = zmq_ctx_new();
    char *err = NULL;
    void *mon = NULL;
    int code = 0;
    void *s = s_client_connect(zctx, cluster, &mon, &err, &code);
    if (!s) {
        code = s_die(code, "%s", err);
        free(err);
    } else {
        wh_msg_t m = {0};
        m.type = WH_MSG_STATUS_REQ;
        /* Never a blocking send: a DEALER whose handshake was refused after
         * it connected has no peer, and a send that waits for one waited
         * for ever (`status --insecure` against a CURVE coordinator hung 2
         * runs in 300, in zmq_msg_send); sent again until a peer takes it. */
        int sent = wh_wire_send(s, &m, ZMQ_DONTWAIT) == 0;
        zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
        code = 4;
        uint64_t t0 = wh_now_ms();
        const char *refused = NULL;
        while (wh_now_ms() - t0 < 5000 && !(refused = wh_auth_refused(mon))) {
            if (!sent)
                sent = wh_wire_send(s, &m, ZMQ_DONTWAIT) == 0;
            if (zmq_poll(&it, 1, 200) > 0) {
                wh_msg_t r = {0};
                if (wh_wire_recv(s, &r, ZMQ_DONTWAIT) == 0 && r.type == WH_MSG_STATUS) {
                    fputs(r.detail ? r.detail : "", stdout);
                    code = 0;
                    wh_msg_clear(&r);
                    break;
                }
                if (r.type == WH_MSG_BYE && r.refused) {
                    code = s_die(2, "cluster '%s': %s", cluster,
                                 r.detail ? r.detail : wh_auth_refusal_why(WH_AUTH_ROLE_REFUSED));
                    wh_msg_clear(&r);
                    break;
                }
                wh_msg_clear(&r);
            }
        }
        if (code == 2) {
            /* said */
        } else if (code && refused)
            code = s_die(2, "cluster '%s': %s", cluster, refused);
        else if (code)
            s_die(code, "no answer from cluster '%s' within 5 s", cluster);
        wh_auth_close(s, mon);
    }
    zmq_ctx_term(zctx);
    return code;
}

/* whittle keygen --out PREFIX: a CURVE key pair in czmq's zcert format. */
static int s_keygen(int argc, char **argv)
{
    const char *prefix = NULL;
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "keygen", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        if (wh_cli_is(&c, "out"))
            prefix = c.arg;
    if (rc < 0)
        return c.exit;
    if (!prefix || !*prefix)
        return s_die(2, "keygen needs --out PREFIX (writes PREFIX.secret and PREFIX.public)");
    char *err = NULL;
    if (wh_auth_keygen(prefix, &err) != 0) {
        int code = s_die(2, "%s", err);
        free(err);
        return code;
    }
    printf("%s.secret (keep private, mode 0600)\n%s.public\n", prefix, prefix);
    return 0;
}

/* `whittle --help`, `whittle --version`; anything else is an error. */
static int s_main_opts(int argc, char **argv)
{
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", NULL, argc, argv);
    c.epilog = s_frameworks_line();
    while ((rc = wh_cli_next(&c)) > 0)
        ;
    if (rc < 0)
        return c.exit;
    s_usage(stderr);
    return 2;
}

/* whittle help [COMMAND]: the same text as COMMAND --help. */
static int s_help(int argc, char **argv)
{
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "help", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        ;
    if (rc < 0)
        return c.exit;
    const char *name = c.npos ? c.pos[0] : NULL;
    const wh_cli_cmd_t *cmd = wh_cli_cmd("whittle", name);
    if (!cmd) {
        s_usage(stderr);
        const char *names[32];
        size_t n = 0;
        for (const wh_cli_cmd_t *k = wh_cli_cmds; k->prog && n < 32; k++)
            if (!strcmp(k->prog, "whittle") && k->name)
                names[n++] = k->name;
        const char *near = name ? wh_suggest(name, names, n) : NULL;
        if (near)
            return s_die(2, "unknown command '%s' (did you mean '%s'?)", name, near);
        return s_die(2, "unknown command '%s'", name);
    }
    wh_cli_help(cmd, stdout);
    if (!name || !strcmp(name, "reduce") || !strcmp(name, "mutate"))
        fputs(s_frameworks_line(), stdout);
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (getenv("WHITTLE_DEBUG"))
        wh_log_set_level(WH_LOG_DEBUG);
    if (argc < 2) {
        s_usage(stderr);
        return 2;
    }
    if (argv[1][0] == '-')
        return s_main_opts(argc - 1, argv + 1);
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } cmds[] = {
        {"inspect", s_inspect}, {"reduce", s_reduce},     {"submit", s_submit},
        {"status", s_status},   {"watch", s_watch},       {"cancel", s_cancel},
        {"keygen", s_keygen},   {"suite", wh_suite_cmd},
        {"mutate", wh_mutate_cmd}, {"group", wh_group_cmd}, {"help", s_help},
        {"cache", wh_cache_cmd}, {"report", wh_report_cmd},
    };
    const char *cmd = argv[1];
    const char *names[sizeof cmds / sizeof cmds[0]];
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        if (!strcmp(cmd, cmds[k].name))
            return cmds[k].run(argc - 2, argv + 2);
        names[k] = cmds[k].name;
    }
    s_usage(stderr);
    const char *near = wh_suggest(cmd, names, sizeof names / sizeof names[0]);
    if (near)
        return s_die(2, "unknown command '%s' (did you mean '%s'?)", cmd, near);
    return s_die(2, "unknown command '%s'", cmd);
}
