/*
 * job — reduction requests: validation, JSON form, identity.
 */
#define _GNU_SOURCE
#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "framework.h"
#include "fw_detect.h"
#include "includer.h"
#include "wh_snapshot.h"
#include "wh_spawn.h"
#include "wire.h"

/* A test file travels whole in every candidate message. */
#define WH_JOB_MAX_FILE WH_WIRE_MAX_CONTENT

void wh_job_init(wh_job_t *j)
{
    memset(j, 0, sizeof *j);
    j->algo = WH_ALGO_HDD;
    j->walk = WH_WALK_CHUNKED;
    j->speculate = 1; /* bench/scaling.sh: pays at 4 and 8 slots, same answer */
    j->jobs = 1;
    j->build_timeout_ms = 180000;
    j->test_timeout_ms = 120000;
    j->setup_timeout_ms = 1800000;
    j->precheck = WH_PRECHECK_ON;
    j->ub_guard = 1;
    j->prior = 1;
}

void wh_job_clear(wh_job_t *j)
{
    free(j->project);
    free(j->file);
    free(j->test);
    free(j->test_fn);
    free(j->setup);
    free(j->build);
    free(j->run);
    free(j->framework);
    free(j->out);
    free(j->cache);
    free(j->compdb);
    free(j->failure_regex);
    free(j->pass_regex);
    free(j->message_continuation);
    free(j->ctest_pass_regex);
    free(j->ctest_fail_regex);
    free(j->reference);
    free(j->ref_picked);
    free(j->ref_why);
    free(j->tenant);
    for (int i = 0; i < j->nargs; i++)
        free(j->args[i]);
    free(j->args);
    for (int i = 0; i < j->nignore; i++)
        free(j->ignore[i]);
    free(j->ignore);
    wh_job_git_clear(j);
    memset(j, 0, sizeof *j);
}

int wh_job_copy(wh_job_t *d, const wh_job_t *src)
{
    *d = *src; /* numbers and flags */
    char **const strs[] = {&d->project, &d->file, &d->test, &d->test_fn, &d->setup, &d->build, &d->run,
                           &d->framework, &d->out, &d->cache, &d->compdb, &d->failure_regex,
                           &d->pass_regex, &d->reference, &d->message_continuation,
                           &d->ref_picked, &d->ref_why, &d->ctest_pass_regex,
                           &d->ctest_fail_regex, &d->tenant};
    int bad = 0;
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        if (*strs[i]) {
            *strs[i] = strdup(*strs[i]);
            bad |= !*strs[i];
        }
    }
    d->args = NULL;
    d->nargs = 0;
    if (src->nargs) {
        d->args = calloc((size_t)src->nargs, sizeof *d->args);
        bad |= !d->args;
        for (int i = 0; d->args && i < src->nargs; i++) {
            d->args[i] = strdup(src->args[i]);
            bad |= !d->args[i];
            d->nargs = i + 1;
        }
    }
    d->ignore = NULL;
    d->nignore = 0;
    for (int i = 0; i < src->nignore && !bad; i++)
        bad |= wh_job_add_ignore(d, src->ignore[i]) != 0;
    bad |= wh_job_git_copy(d, src) != 0;
    if (bad) {
        wh_job_clear(d);
        return WH_ENOMEM;
    }
    return 0;
}

int wh_job_add_ignore(wh_job_t *j, const char *glob)
{
    char **v = realloc(j->ignore, (size_t)(j->nignore + 1) * sizeof *v);
    if (!v)
        return WH_ENOMEM;
    j->ignore = v;
    if (!(v[j->nignore] = strdup(glob)))
        return WH_ENOMEM;
    j->nignore++;
    return 0;
}

static int s_fail(char **err, char *msg)
{
    *err = msg ? msg : strdup("out of memory");
    return WH_EINVAL;
}

/* First line of `git -C project a1 a2 a3` (a3 may be NULL), trimmed; NULL
 * when git fails or prints nothing. Run with an argv: the project path may
 * hold any character. */
static char *s_git_line(const char *project, const char *a1, const char *a2, const char *a3)
{
    const char *argv[] = {"git", "-C", project, a1, a2, a3, NULL};
    return wh_spawn_line(argv);
}

/* git archive of sha (limited to prefix, when the project is a subfolder
 * of its repository) unpacked into dir. 0 or WH_EIO. */
static int s_git_export(const char *project, const char *sha, const char *prefix, const char *dir)
{
    char *tree = wh_strdup_printf("%s%s%s", sha, *prefix ? ":" : "", prefix);
    if (!tree)
        return WH_ENOMEM;
    const char *git[] = {"git", "-C", project, "archive", "--format=tar", tree, NULL};
    const char *tar[] = {"tar", "-x", "-C", dir, NULL};
    int st = wh_spawn_pipe(git, tar);
    free(tree);
    return st == 0 ? 0 : WH_EIO;
}

/* --reference is a folder, or a git revision of the project's repository,
 * exported (read-only: `git archive`, never a worktree) into
 * OUT/references/<commit>. */
static int s_resolve_reference(wh_job_t *j, char **err)
{
    if (wh_is_dir(j->reference)) {
        char *abs = wh_abspath(j->reference);
        free(j->reference);
        j->reference = abs;
        return abs ? 0 : WH_ENOMEM;
    }
    /* A revision starting with '-' would be read as an option. */
    char *rev = j->reference[0] != '-' ? wh_strdup_printf("%s^{commit}", j->reference) : NULL;
    char *sha = rev ? s_git_line(j->project, "rev-parse", "--verify", rev) : NULL;
    free(rev);
    if (!sha)
        return s_fail(err, wh_strdup_printf("reference '%s' is neither a folder nor a git revision "
                                            "of %s", j->reference, j->project));
    char *prefix = s_git_line(j->project, "rev-parse", "--show-prefix", NULL);
    if (prefix) { /* "sub/dir/" -> "sub/dir" */
        size_t pl = strlen(prefix);
        if (pl && prefix[pl - 1] == '/')
            prefix[pl - 1] = '\0';
    }
    const char *pre = prefix ? prefix : "";
    char *dir = wh_strdup_printf("%s/references/%s%s%.*s", j->out, sha, *pre ? "-" : "",
                                 (int)strcspn(pre, "/"), pre);
    int rc = 0;
    if (!wh_is_dir(dir)) {
        char *tmp = wh_strdup_printf("%s.tmp%d", dir, (int)getpid());
        wh_rm_rf(tmp);
        rc = wh_mkdir_p(tmp);
        if (!rc && (s_git_export(j->project, sha, pre, tmp) != 0 || rename(tmp, dir) != 0))
            rc = WH_EIO;
        if (rc)
            wh_rm_rf(tmp);
        free(tmp);
    }
    if (rc) {
        s_fail(err, wh_strdup_printf("cannot export reference '%s' (%s) of %s into %s",
                                     j->reference, sha, j->project, dir));
        free(sha);
        free(prefix);
        free(dir);
        return WH_EINVAL;
    }
    free(sha);
    free(prefix);
    free(j->reference);
    j->reference = dir;
    return 0;
}

/* --framework's default: the preset the test file's includes name, else
 * junit (a JUnit XML report). utest.h is the console preset with its
 * output's regexes (where the user gave none). */
/* The framework of the project's own headers src includes ("name"),
 * looked for beside dir (the including file's folder) and at the project
 * root, depth levels down: a test that reaches <cmocka.h> through its
 * project's "assertions.h" (libcbor) is a cmocka test. NULL when none. */
static const char *s_detect_quoted(const char *project, const char *dir, const char *src,
                                   int depth)
{
    const char *fw = NULL;
    for (const char *p = src; depth > 0 && !fw && p && *p;) {
        const char *e = strchr(p, '\n');
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '#') {
            q++;
            while (*q == ' ' || *q == '\t')
                q++;
            if (!strncmp(q, "include", 7)) {
                q += 7;
                while (*q == ' ' || *q == '\t')
                    q++;
                const char *close = *q == '"' ? strchr(q + 1, '"') : NULL;
                if (close && (!e || close < e) && close - q - 1 < 256) {
                    char name[256];
                    snprintf(name, sizeof name, "%.*s", (int)(close - q - 1), q + 1);
                    char *cand[2] = {wh_path_join(dir, name), wh_path_join(project, name)};
                    for (int k = 0; k < 2 && !fw; k++) {
                        char *hsrc = NULL;
                        size_t hlen = 0;
                        if (!cand[k] || wh_read_file(cand[k], WH_JOB_MAX_FILE, &hsrc, &hlen))
                            continue;
                        fw = wh_fw_detect_source(hsrc, NULL);
                        if (!fw) {
                            char *hdir = strdup(cand[k]), *slash = hdir ? strrchr(hdir, '/') : NULL;
                            if (slash)
                                *slash = '\0';
                            fw = hdir ? s_detect_quoted(project, hdir, hsrc, depth - 1) : NULL;
                            free(hdir);
                        }
                        free(hsrc);
                        k = 2; /* the first found is the one the compiler takes */
                    }
                    free(cand[0]), free(cand[1]);
                }
            }
        }
        p = e ? e + 1 : NULL;
    }
    return fw;
}

static char *s_detect_framework(wh_job_t *j)
{
    char *path = wh_path_join(j->project, j->file), *src = NULL;
    size_t len = 0;
    const char *fw = NULL;
    int read = path && wh_read_file(path, WH_JOB_MAX_FILE, &src, &len) == 0;
    if (read)
        fw = wh_fw_detect_source(src, NULL);
    if (read && !fw) {
        char *dir = path ? strdup(path) : NULL, *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash)
            *slash = '\0';
        fw = dir ? s_detect_quoted(j->project, dir, src, 3) : NULL;
        free(dir);
    }
    free(path);
    free(src);
    wh_includer_t inc;
    if (!fw && read && wh_includer_find(j->project, j->file, &inc) == 0) {
        /* A file #included by a runner sees the runner's framework header. */
        char *ip = wh_path_join(j->project, inc.path), *isrc = NULL;
        if (ip && wh_read_file(ip, WH_JOB_MAX_FILE, &isrc, &len) == 0)
            fw = wh_fw_detect_source(isrc, NULL);
        free(isrc);
        free(ip);
        wh_includer_clear(&inc);
    }
    if (fw && strcmp(fw, WH_FW_UTEST) == 0) {
        if (!j->failure_regex)
            j->failure_regex = strdup(wh_fw_utest_failure_regex);
        if (!j->pass_regex)
            j->pass_regex = strdup(wh_fw_utest_pass_regex);
        fw = "console";
    }
    return strdup(fw ? fw : "junit");
}

/* 1 when path is dir or lies below it (both absolute and normalized). */
static int s_path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return !strncmp(path, dir, n) && (path[n] == 0 || path[n] == '/');
}

int wh_job_default_out(wh_job_t *j, char **why, char **err)
{
    *why = NULL;
    if (j->out)
        return 0;
    char *proj = wh_abspath(j->project ? j->project : "."), *cwd = wh_abspath(".");
    int rc = proj && cwd ? 0 : WH_ENOMEM;
    if (!rc && !s_path_within(cwd, proj)) {
        /* beside or above the project: ./whittle-runs is not in it */
        rc = (j->out = strdup("whittle-runs")) ? 0 : WH_ENOMEM;
        goto out;
    }
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char *state = NULL;
    if (!rc && xdg && xdg[0] == '/')
        state = wh_strdup_printf("%s/whittle/runs", xdg);
    else if (!rc && home && home[0] == '/')
        state = wh_strdup_printf("%s/.local/state/whittle/runs", home);
    const char *name = proj ? strrchr(proj, '/') : NULL;
    name = name && name[1] ? name + 1 : "project";
    char *out = state ? wh_strdup_printf("%s/%s", state, name) : NULL;
    char *abs = out ? wh_abspath(out) : NULL;
    if (!rc && (!abs || s_path_within(abs, proj))) {
        /* the project must never be written to: no silent fallback into it */
        *err = wh_strdup_printf("the current folder is inside project '%s', whose tree whittle "
                                "never writes to, and %s: give --out DIR", proj,
                                !state ? "neither $XDG_STATE_HOME nor $HOME is set"
                                       : "the state folder is inside it too");
        rc = WH_EINVAL;
    } else if (!rc) {
        *why = wh_strdup_printf("Run folders: %s (the current folder is inside the project, "
                                "which whittle never writes to; --out DIR to choose)", abs);
        j->out = abs;
        abs = NULL;
        rc = *why ? 0 : WH_ENOMEM;
    }
    free(state);
    free(out);
    free(abs);
out:
    free(proj);
    free(cwd);
    return rc;
}

int wh_job_validate(wh_job_t *j, char **err)
{
    if (!j->project)
        return s_fail(err, strdup("missing --project"));
    if (!j->file)
        return s_fail(err, strdup("missing --file"));
    if (!j->test)
        return s_fail(err, strdup("missing --test"));
    if (!j->run)
        return s_fail(err, strdup("missing --run"));
    if (!*j->project)
        return s_fail(err, strdup("empty --project"));
    if (!wh_is_dir(j->project))
        return s_fail(err, wh_strdup_printf("project '%s' is not a folder", j->project));
    char *proj = wh_abspath(j->project);
    if (!proj)
        return s_fail(err, NULL);
    free(j->project);
    j->project = proj;

    /* The test file may be given relative to the project or to the
     * current folder (the project first: a user standing in the original
     * checkout reduces a copy of it with the same relative --file); either
     * way it must lie inside the project. */
    char *abs = NULL;
    char *in_proj = j->file[0] == '/' ? NULL : wh_path_join(proj, j->file);
    if (in_proj && wh_is_file(in_proj))
        abs = wh_abspath(in_proj);
    else if (j->file[0] == '/' || wh_is_file(j->file))
        abs = wh_abspath(j->file);
    else
        abs = in_proj ? wh_abspath(in_proj) : NULL;
    free(in_proj);
    if (!abs || !wh_is_file(abs)) {
        char *m = wh_strdup_printf("test file '%s' not found (looked in %s and the current folder)",
                                   j->file, proj);
        free(abs);
        return s_fail(err, m);
    }
    size_t pl = strlen(proj);
    if (strncmp(abs, proj, pl) != 0 || abs[pl] != '/') {
        char *m = wh_strdup_printf("test file '%s' is not inside project '%s'", j->file, proj);
        free(abs);
        return s_fail(err, m);
    }
    free(j->file);
    j->file = strdup(abs + pl + 1);
    free(abs);
    if (!j->file || !wh_path_is_plain_relative(j->file))
        return s_fail(err, wh_strdup_printf("test file '%s' has no plain path inside the project",
                                            j->file ? j->file : ""));
    /* The whole file travels in every candidate message: refuse here what
     * the wire would refuse on every send. */
    struct stat st;
    char *tf = wh_path_join(proj, j->file);
    int big = tf && stat(tf, &st) == 0 && (uint64_t)st.st_size > WH_JOB_MAX_FILE;
    free(tf);
    if (big)
        return s_fail(err, wh_strdup_printf("test file '%s' is %lld bytes; whittle takes at most %u",
                                            j->file, (long long)st.st_size, WH_JOB_MAX_FILE));

    if (!j->out)
        j->out = strdup("whittle-runs");
    char *out = wh_abspath(j->out);
    if (!out)
        return s_fail(err, NULL);
    free(j->out);
    j->out = out;
    if (!j->framework)
        j->framework = s_detect_framework(j);
    if (!wh_framework_find(j->framework))
        return s_fail(err, wh_strdup_printf("unknown framework '%s' (known: %s)", j->framework,
                                            wh_framework_names()));
    if (j->repeat < 0 || j->repeat > 1000)
        return s_fail(err, wh_strdup_printf("--repeat %d out of range 1..1000", j->repeat));
    if (j->flaky_ok < 0 || (j->flaky_ok && j->flaky_ok > (j->repeat > 1 ? j->repeat : 1)))
        return s_fail(err, wh_strdup_printf("--flaky-ok %d must be between 1 and --repeat (%d)",
                                            j->flaky_ok, j->repeat > 1 ? j->repeat : 1));
    /* "auto" and "none" are words, not folders or revisions (./auto is the
     * folder): a job that reaches here with either has no reference; the
     * `whittle reduce` client resolves auto first (refauto.h). */
    if (j->reference && (!strcmp(j->reference, "auto") || !strcmp(j->reference, "none"))) {
        free(j->reference);
        j->reference = NULL;
    }
    /* A snapshot's reference is a commit id the coordinator exports. */
    if (j->reference && !(j->git_url && !wh_is_dir(j->reference))) {
        int rc = s_resolve_reference(j, err);
        if (rc)
            return rc;
    }
    if (j->keep_fault && j->no_keep_fault)
        return s_fail(err, strdup("--keep-fault and --no-keep-fault contradict each other"));
    if (j->keep_fault && !j->reference)
        return s_fail(err, strdup("--keep-fault needs --reference DIR|GIT-REV"));
    /* A reference keeps the fault unless the user asks only for a report. */
    if (j->reference && !j->no_keep_fault)
        j->keep_fault = 1;
    if (!strcmp(j->framework, "console") && !j->failure_regex)
        return s_fail(err, strdup("the console framework needs --failure-regex"));
    const wh_framework_t *fw = wh_framework_find(j->framework);
    int console = !strcmp(j->framework, "console");
    if (!console && (j->failure_regex || j->pass_regex || j->message_continuation))
        return s_fail(err, wh_strdup_printf("%s is for --framework console, not '%s'",
                                            j->failure_regex  ? "--failure-regex"
                                            : j->pass_regex   ? "--pass-regex"
                                                              : "--message-continuation",
                                            j->framework));
    if (j->pass_on_exit0 && !wh_fw_reads_console(fw))
        return s_fail(err, wh_strdup_printf("--pass-on-exit0 is for frameworks that read the "
                                            "console (console, plain), not '%s'", j->framework));
    if (console && j->reference && !j->pass_regex && !j->pass_on_exit0)
        return s_fail(err, strdup("--reference with --framework console needs evidence of a "
                                  "pass: --pass-regex RE or --pass-on-exit0"));
    if (fw->check) {
        wh_fw_opts_t fo = {j->failure_regex, j->pass_regex, NULL, j->message_continuation,
                           j->test_fn};
        char *m = NULL;
        if (fw->check(&fo, &m))
            return s_fail(err, m ? m : strdup("bad framework options"));
    }
    if (j->jobs < 1 || j->jobs > 1024)
        return s_fail(err, wh_strdup_printf("--jobs %d out of range 1..1024", j->jobs));
    return 0;
}

static int s_get_str(json_t *o, const char *k, char **dst, char **err)
{
    json_t *v = json_object_get(o, k);
    if (!v)
        return 0;
    if (!json_is_string(v)) {
        *err = wh_strdup_printf("field '%s' must be a string", k);
        return WH_EINVAL;
    }
    free(*dst);
    *dst = strdup(json_string_value(v));
    return 0;
}

static int s_get_ms(json_t *o, const char *k, unsigned *dst, char **err)
{
    json_t *v = json_object_get(o, k);
    if (!v)
        return 0;
    if (!json_is_number(v) || wh_secs_to_ms(json_number_value(v), WH_JOB_MAX_SECS, dst) != 0) {
        *err = wh_strdup_printf("field '%s' must be a number of seconds in (0, %d]", k,
                                WH_JOB_MAX_SECS);
        return WH_EINVAL;
    }
    return 0;
}

/* An integer field within [lo, hi]; absent leaves *dst alone. */
static int s_get_int(json_t *o, const char *k, long lo, long hi, int *dst, char **err)
{
    json_t *v = json_object_get(o, k);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        *err = wh_strdup_printf("field '%s' must be an integer in %ld..%ld", k, lo, hi);
        return WH_EINVAL;
    }
    *dst = (int)json_integer_value(v);
    return 0;
}

/* "budget": as --budget ("builds=3,time=10m"). */
static int s_get_budget(json_t *o, wh_spend_t *b, char **err)
{
    json_t *v = json_object_get(o, "budget");
    if (!v)
        return 0;
    if (!json_is_string(v)) {
        *err = strdup("field 'budget' must be a string such as \"builds=3,time=10m\"");
        return WH_EINVAL;
    }
    *b = (wh_spend_t){0};
    return wh_spend_parse(json_string_value(v), b, err);
}

int wh_job_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* "jobs": 1..1024, or "auto" (as --jobs auto: wh_job_cores()). */
static int s_get_jobs(json_t *o, int *dst, char **err)
{
    json_t *v = json_object_get(o, "jobs");
    if (v && json_is_string(v) && !strcmp(json_string_value(v), "auto")) {
        *dst = wh_job_cores();
        return 0;
    }
    if (s_get_int(o, "jobs", 1, 1024, dst, err) == 0)
        return 0;
    free(*err);
    *err = strdup("field 'jobs' must be an integer in 1..1024 or \"auto\"");
    return WH_EINVAL;
}

static int s_get_bool(json_t *o, const char *k, int *dst, char **err)
{
    json_t *v = json_object_get(o, k);
    if (!v)
        return 0;
    if (!json_is_boolean(v)) {
        *err = wh_strdup_printf("field '%s' must be true or false", k);
        return WH_EINVAL;
    }
    *dst = json_is_true(v);
    return 0;
}

/* "ignore": a glob or an array of globs, added to the --ignore ones. */
static int s_get_ignore(json_t *o, wh_job_t *j, char **err)
{
    json_t *v = json_object_get(o, "ignore");
    if (!v)
        return 0;
    if (json_is_string(v))
        return wh_job_add_ignore(j, json_string_value(v));
    size_t i;
    json_t *g;
    if (json_is_array(v)) {
        json_array_foreach(v, i, g) {
            if (!json_is_string(g))
                break;
        }
        if (i == json_array_size(v)) {
            json_array_foreach(v, i, g) {
                if (wh_job_add_ignore(j, json_string_value(g)))
                    return WH_ENOMEM;
            }
            return 0;
        }
    }
    *err = strdup("field 'ignore' must be a glob or an array of globs");
    return WH_EINVAL;
}

int wh_job_place_runs(wh_job_t *j, const char *runs, char **err)
{
    char *dir = NULL;
    if (!j->out)
        dir = strdup(runs);
    else if (j->out[0] == '/')
        return s_fail(err, wh_strdup_printf("job \"out\" '%s' is an absolute path: run folders "
                                            "live under the coordinator's --runs folder '%s' "
                                            "(give a relative name)", j->out, runs));
    else if (!wh_path_is_plain_relative(j->out))
        return s_fail(err, wh_strdup_printf("job \"out\" '%s' is not a plain relative name under "
                                            "the coordinator's --runs folder '%s' (no '..', '.' "
                                            "or empty parts)", j->out, runs));
    else
        dir = wh_path_join(runs, j->out);
    if (!dir)
        return s_fail(err, NULL);
    free(j->out);
    j->out = dir;
    return 0;
}

int wh_job_from_json(wh_job_t *j, const void *json_obj, char **err)
{
    json_t *o = (json_t *)json_obj;
    if (!json_is_object(o)) {
        *err = strdup("a job must be a JSON object");
        return WH_EINVAL;
    }
    const char *k;
    json_t *v;
    static const char *const known[] = {
        "project", "file", "test", "setup", "build", "run", "framework", "algorithm",
        "ddmin", "out", "build_timeout", "test_timeout", "setup_timeout", "match", "args",
        "compdb", "jobs", "cache", "failure_regex", "pass_regex", "message_continuation",
        "pass_on_exit0", "repeat", "flaky_ok", "budget", "fingerprint_only", "whole_test", "will_fail", "ctest_pass_regex",
        "ctest_fail_regex",
        "reference", "keep_fault", "no_keep_fault", "speculate", "allow_parse_errors", "precheck",
        "ub_guard", "prior", "ignore", "git", "tar", "reference_picked", "reference_why", NULL};
    json_object_foreach(o, k, v) {
        int ok = 0;
        for (int i = 0; known[i]; i++)
            ok |= strcmp(k, known[i]) == 0;
        if (!ok) {
            const char *near = wh_suggest(k, known, sizeof known / sizeof known[0] - 1);
            *err = near ? wh_strdup_printf("unknown field '%s' (did you mean '%s'?)", k, near)
                        : wh_strdup_printf("unknown field '%s'", k);
            return WH_EINVAL;
        }
    }
    int rc = 0;
    rc = rc ? rc : s_get_str(o, "project", &j->project, err);
    rc = rc ? rc : s_get_str(o, "file", &j->file, err);
    rc = rc ? rc : s_get_str(o, "test", &j->test, err);
    rc = rc ? rc : s_get_str(o, "setup", &j->setup, err);
    rc = rc ? rc : s_get_str(o, "build", &j->build, err);
    rc = rc ? rc : s_get_str(o, "run", &j->run, err);
    rc = rc ? rc : s_get_str(o, "framework", &j->framework, err);
    rc = rc ? rc : s_get_str(o, "out", &j->out, err);
    rc = rc ? rc : s_get_str(o, "compdb", &j->compdb, err);
    rc = rc ? rc : s_get_str(o, "cache", &j->cache, err);
    rc = rc ? rc : s_get_str(o, "failure_regex", &j->failure_regex, err);
    rc = rc ? rc : s_get_str(o, "pass_regex", &j->pass_regex, err);
    rc = rc ? rc : s_get_str(o, "message_continuation", &j->message_continuation, err);
    rc = rc ? rc : s_get_str(o, "ctest_pass_regex", &j->ctest_pass_regex, err);
    rc = rc ? rc : s_get_str(o, "ctest_fail_regex", &j->ctest_fail_regex, err);
    rc = rc ? rc : s_get_bool(o, "whole_test", &j->whole_test, err);
    rc = rc ? rc : s_get_bool(o, "will_fail", &j->will_fail, err);
    rc = rc ? rc : s_get_str(o, "reference", &j->reference, err);
    rc = rc ? rc : s_get_str(o, "reference_picked", &j->ref_picked, err);
    rc = rc ? rc : s_get_str(o, "reference_why", &j->ref_why, err);
    rc = rc ? rc : wh_job_git_from_json(j, json_object_get(o, "git"), err);
    rc = rc ? rc : wh_job_tar_from_json(j, json_object_get(o, "tar"), err);
    rc = rc ? rc : s_get_ms(o, "build_timeout", &j->build_timeout_ms, err);
    rc = rc ? rc : s_get_ms(o, "test_timeout", &j->test_timeout_ms, err);
    rc = rc ? rc : s_get_ms(o, "setup_timeout", &j->setup_timeout_ms, err);
    if (rc)
        return rc;
    json_t *a = json_object_get(o, "algorithm");
    if (a) {
        if (wh_algo_parse(json_string_value(a), &j->algo) < 0) {
            *err = strdup("field 'algorithm' must be \"hdd\", \"dd\" or \"linear\"");
            return WH_EINVAL;
        }
    }
    json_t *dm = json_object_get(o, "ddmin");
    if (dm && wh_walk_parse(json_string_value(dm), &j->walk) < 0) {
        *err = strdup("field 'ddmin' must be \"chunked\" or \"classic\"");
        return WH_EINVAL;
    }
    json_t *m = json_object_get(o, "match");
    if (m) {
        const char *s = json_string_value(m);
        if (s && strcmp(s, "full") == 0)
            j->match = 0;
        else if (s && strcmp(s, "message") == 0)
            j->match = 1;
        else if (s && strcmp(s, "type") == 0)
            j->match = 2;
        else {
            *err = strdup("field 'match' must be \"full\", \"message\" or \"type\"");
            return WH_EINVAL;
        }
    }
    json_t *args = json_object_get(o, "args");
    if (args) {
        if (!json_is_array(args)) {
            *err = strdup("field 'args' must be an array of strings");
            return WH_EINVAL;
        }
        size_t n = json_array_size(args);
        j->args = calloc(n + 1, sizeof *j->args);
        for (size_t i = 0; i < n; i++) {
            const char *s = json_string_value(json_array_get(args, i));
            if (!s) {
                *err = strdup("field 'args' must be an array of strings");
                return WH_EINVAL;
            }
            j->args[j->nargs++] = strdup(s);
        }
    }
    rc = rc ? rc : s_get_ignore(o, j, err);
    rc = rc ? rc : s_get_jobs(o, &j->jobs, err);
    rc = rc ? rc : s_get_int(o, "repeat", 0, 1000, &j->repeat, err);
    rc = rc ? rc : s_get_int(o, "flaky_ok", 0, 1000, &j->flaky_ok, err);
    rc = rc ? rc : s_get_budget(o, &j->budget, err);
    rc = rc ? rc : s_get_bool(o, "keep_fault", &j->keep_fault, err);
    rc = rc ? rc : s_get_bool(o, "fingerprint_only", &j->fingerprint_only, err);
    rc = rc ? rc : s_get_bool(o, "no_keep_fault", &j->no_keep_fault, err);
    rc = rc ? rc : s_get_bool(o, "pass_on_exit0", &j->pass_on_exit0, err);
    rc = rc ? rc : s_get_bool(o, "speculate", &j->speculate, err);
    rc = rc ? rc : s_get_bool(o, "allow_parse_errors", &j->allow_parse_errors, err);
    json_t *pc = json_object_get(o, "precheck");
    if (rc == 0 && pc) {
        wh_precheck_mode_t m;
        if (wh_precheck_mode_parse(json_string_value(pc), &m)) {
            *err = strdup("field 'precheck' must be \"on\", \"off\" or \"audit\"");
            return WH_EINVAL;
        }
        j->precheck = (int)m;
    }
    json_t *ub = json_object_get(o, "ub_guard");
    if (rc == 0 && ub) {
        const char *s = json_string_value(ub);
        if (!s || (strcmp(s, "on") != 0 && strcmp(s, "off") != 0)) {
            *err = strdup("field 'ub_guard' must be \"on\" or \"off\"");
            return WH_EINVAL;
        }
        j->ub_guard = strcmp(s, "on") == 0;
    }
    json_t *pr = json_object_get(o, "prior");
    if (rc == 0 && pr) {
        const char *s = json_string_value(pr);
        if (!s || (strcmp(s, "slice") != 0 && strcmp(s, "none") != 0)) {
            *err = strdup("field 'prior' must be \"slice\" or \"none\"");
            return WH_EINVAL;
        }
        j->prior = strcmp(s, "slice") == 0;
    }
    return rc;
}

int wh_job_load_config(wh_job_t *j, const char *path, char **err)
{
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) {
        /* jansson says line -1 when the file could not be opened at all */
        *err = je.line > 0 ? wh_strdup_printf("cannot read config '%s': %s (line %d)", path,
                                              je.text, je.line)
                           : wh_strdup_printf("cannot read config '%s': %s", path, je.text);
        return WH_EINVAL;
    }
    char *why = NULL;
    int rc = json_is_object(o) ? wh_job_from_json(j, o, &why) : WH_EINVAL;
    json_decref(o);
    if (rc) {
        *err = wh_strdup_printf("config '%s': %s", path,
                                why ? why : "must hold one JSON object (a job)");
        free(why);
        return rc;
    }
    /* A relative project is relative to the config's folder, so the same
     * file works from any current folder. */
    if (j->project && j->project[0] != '/') {
        const char *slash = strrchr(path, '/');
        if (slash) {
            char *p = wh_strdup_printf("%.*s/%s", (int)(slash - path), path, j->project);
            free(j->project);
            j->project = p;
        }
    }
    return 0;
}

char *wh_job_to_json(const wh_job_t *j)
{
    json_t *o = json_object();
#define S(k, v) if (v) json_object_set_new(o, k, json_string(v))
    S("project", j->project);
    S("file", j->file);
    S("test", j->test);
    S("setup", j->setup);
    S("build", j->build);
    S("run", j->run);
    S("framework", j->framework);
    S("out", j->out);
    S("compdb", j->compdb);
    char *cache = wh_cache_spec_masked(j->cache); /* never a password in a record */
    S("cache", cache);
    free(cache);
    S("failure_regex", j->failure_regex);
    S("pass_regex", j->pass_regex);
    S("message_continuation", j->message_continuation);
    S("ctest_pass_regex", j->ctest_pass_regex);
    S("ctest_fail_regex", j->ctest_fail_regex);
    S("reference", j->reference);
    S("reference_picked", j->ref_picked);
    S("reference_why", j->ref_why);
#undef S
    wh_job_git_to_json(j, o);
    wh_job_tar_to_json(j, o);
    if (j->repeat)
        json_object_set_new(o, "repeat", json_integer(j->repeat));
    if (j->flaky_ok)
        json_object_set_new(o, "flaky_ok", json_integer(j->flaky_ok));
    if (j->budget.builds || j->budget.ms) {
        char b[64];
        wh_spend_format(&j->budget, b, sizeof b);
        json_object_set_new(o, "budget", json_string(b));
    }
    if (j->keep_fault)
        json_object_set_new(o, "keep_fault", json_true());
    if (j->fingerprint_only)
        json_object_set_new(o, "fingerprint_only", json_true());
    if (j->no_keep_fault)
        json_object_set_new(o, "no_keep_fault", json_true());
    json_object_set_new(o, "speculate", json_boolean(j->speculate));
    if (j->pass_on_exit0)
        json_object_set_new(o, "pass_on_exit0", json_true());
    if (j->whole_test)
        json_object_set_new(o, "whole_test", json_true());
    if (j->will_fail)
        json_object_set_new(o, "will_fail", json_true());
    if (j->allow_parse_errors)
        json_object_set_new(o, "allow_parse_errors", json_true());
    json_object_set_new(o, "precheck",
                        json_string(wh_precheck_mode_name((wh_precheck_mode_t)j->precheck)));
    json_object_set_new(o, "ub_guard", json_string(j->ub_guard ? "on" : "off"));
    json_object_set_new(o, "prior", json_string(j->prior ? "slice" : "none"));
    json_object_set_new(o, "algorithm", json_string(wh_algo_name(j->algo)));
    json_object_set_new(o, "ddmin", json_string(wh_walk_name(j->walk)));
    static const char *const modes[] = {"full", "message", "type"};
    json_object_set_new(o, "match", json_string(modes[j->match >= 0 && j->match < 3 ? j->match : 0]));
    json_object_set_new(o, "build_timeout", json_real(j->build_timeout_ms / 1000.0));
    json_object_set_new(o, "test_timeout", json_real(j->test_timeout_ms / 1000.0));
    json_object_set_new(o, "setup_timeout", json_real(j->setup_timeout_ms / 1000.0));
    json_object_set_new(o, "jobs", json_integer(j->jobs));
    if (j->nargs && !j->args_guessed) {
        json_t *a = json_array();
        for (int i = 0; i < j->nargs; i++)
            json_array_append_new(a, json_string(j->args[i]));
        json_object_set_new(o, "args", a);
    }
    if (j->nignore) {
        json_t *a = json_array();
        for (int i = 0; i < j->nignore; i++)
            json_array_append_new(a, json_string(j->ignore[i]));
        json_object_set_new(o, "ignore", a);
    }
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* The algorithm and the ddmin walk are left out on purpose: they choose
 * which candidates get judged, never a candidate's verdict, so runs with
 * either walk share cached verdicts. */
void wh_job_identity(const wh_job_t *j, const char *snapshot, char out[65])
{
    wh_sha256_t *h = wh_sha256_new();
    /* v2: a death (sanitizer report, signal) belongs to the function the
     * program was running (node/fw/fw_segment.h); v1 verdicts gave it to
     * the job's test whatever ran. */
    wh_sha256_field_str(h, "whittle-job-v2");
    wh_sha256_field_str(h, snapshot);
    wh_sha256_field_str(h, j->setup);
    wh_sha256_field_str(h, j->build);
    wh_sha256_field_str(h, j->run);
    wh_sha256_field_str(h, j->framework);
    wh_sha256_field_str(h, j->file);
    wh_sha256_field_str(h, j->test);
    wh_sha256_field_str(h, j->failure_regex);
    wh_sha256_field_str(h, j->pass_regex);
    /* The regexes' dialect: verdicts cached when they were POSIX EREs may
     * differ under PCRE2 (\d, line-by-line matching). */
    if (j->failure_regex)
        wh_sha256_field_str(h, "regex:pcre2-lines");
    /* Both change verdicts; hashed only when set, so the identity of every
     * job that does not use them stays what it was. */
    if (j->message_continuation)
        wh_sha256_field_str(h, j->message_continuation);
    if (j->pass_on_exit0)
        wh_sha256_field_str(h, "pass-on-exit0");
    /* The whole CTest test judges the reference runs (keep_fault). */
    if (j->whole_test) {
        wh_sha256_field_str(h, j->will_fail ? "whole-test:will-fail" : "whole-test");
        wh_sha256_field_str(h, j->ctest_pass_regex);
        wh_sha256_field_str(h, j->ctest_fail_regex);
    }
    char num[96];
    snprintf(num, sizeof num, "%d/%u/%u/%d/%d/%d", j->match, j->build_timeout_ms,
             j->test_timeout_ms, j->repeat, j->flaky_ok, j->keep_fault);
    wh_sha256_field_str(h, num);
    /* With --keep-fault a verdict depends on the reference too: a picked
     * one (--reference auto) by its commit (the export's folder name,
     * wherever the run folders are), a given one by its path. */
    if (j->keep_fault) {
        const char *base = j->reference ? strrchr(j->reference, '/') : NULL;
        int commit = j->ref_picked && base && strlen(base + 1) == 40 &&
                     strspn(base + 1, "0123456789abcdef") == 40;
        wh_sha256_field_str(h, commit ? "reference-commit" : "reference-path");
        wh_sha256_field_str(h, commit ? base + 1 : j->reference);
    }
    wh_sha256_final_hex(&h, out);
}

const char *wh_job_ext(const wh_job_t *j)
{
    const char *slash = strrchr(j->file, '/');
    const char *dot = strrchr(slash ? slash : j->file, '.');
    return dot ? dot : "";
}

/* Folders of the project (at most 4 deep, skipping .git, whittle-runs and
 * build folders) that hold headers, as "-I<dir>" arguments. */
/* 1 when name is a header of the C or POSIX library (or a C++ <c...>
 * wrapper's C name): a project's own copy (aws-c-common's
 * include/aws/common/stdbool.h) must never be put in front of the
 * system's by a guessed -I, or every #include <stdbool.h> finds it. */
static int s_is_std_header(const char *name, size_t len)
{
    static const char *const std[] = {
        "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h",
        "iso646.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h",
        "stdarg.h", "stdatomic.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
        "stdnoreturn.h", "string.h", "tgmath.h", "threads.h", "time.h", "uchar.h", "wchar.h",
        "wctype.h", "unistd.h", "fcntl.h", "pthread.h", "dirent.h", "strings.h", NULL,
    };
    for (int i = 0; std[i]; i++)
        if (strlen(std[i]) == len && memcmp(std[i], name, len) == 0)
            return 1;
    /* Any header the system's include folders hold under that name: a
     * folder with abseil's absl/base/internal/endian.h on the -I path
     * takes glibc's <endian.h> (inside extern "C": "templates must have
     * C++ linkage"), absl/memory/memory.h glibc's <memory.h>. */
    static const char *const sys[] = {"/usr/include", "/usr/local/include",
                                      "/usr/include/x86_64-linux-gnu",
                                      "/usr/include/aarch64-linux-gnu",
                                      "/usr/include/i386-linux-gnu", NULL};
    for (int i = 0; sys[i] && len < 256; i++) {
        char path[320];
        snprintf(path, sizeof path, "%s/%.*s", sys[i], (int)len, name);
        if (access(path, F_OK) == 0)
            return 1;
    }
    return 0;
}

static void s_scan_headers(const char *dir, int depth, char ***args, int *n)
{
    if (depth > 4)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    int has_header = 0, shadows = 0;
    struct dirent *e;
    char *cache = wh_path_join(dir, "CMakeCache.txt");
    int is_build = cache && wh_is_file(cache);
    free(cache);
    if (is_build) {
        closedir(d);
        return;
    }
    while ((e = readdir(d))) {
        const char *nm = e->d_name;
        if (nm[0] == '.' || !strcmp(nm, "whittle-runs"))
            continue;
        char *sub = wh_path_join(dir, nm);
        if (!sub)
            continue;
        if (wh_is_dir(sub)) {
            s_scan_headers(sub, depth + 1, args, n);
        } else {
            const char *dot = strrchr(nm, '.');
            if (dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") || !strcmp(dot, ".hpp") ||
                        !strcmp(dot, ".hxx")))
                has_header = 1;
            shadows |= s_is_std_header(nm, strlen(nm));
        }
        free(sub);
    }
    closedir(d);
    if (has_header && !shadows && *n < 64) {
        char **a = realloc(*args, (size_t)(*n + 1) * sizeof *a);
        if (a) {
            *args = a;
            a[*n] = wh_strdup_printf("-I%s", dir);
            if (a[*n])
                (*n)++;
        }
    }
}

/* Every header of the project (relative paths), walked like s_scan_headers. */
static void s_list_headers(const char *root, const char *rel, int depth, char ***v, int *n)
{
    if (depth > 6 || *n >= 20000)
        return;
    char *dir = rel[0] ? wh_path_join(root, rel) : strdup(root);
    char *cache = dir ? wh_path_join(dir, "CMakeCache.txt") : NULL;
    DIR *d = cache && !wh_is_file(cache) ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *nm = e->d_name;
        if (nm[0] == '.' || !strcmp(nm, "whittle-runs"))
            continue;
        char *sub = rel[0] ? wh_path_join(rel, nm) : strdup(nm);
        char *full = sub ? wh_path_join(root, sub) : NULL;
        const char *dot = strrchr(nm, '.');
        if (full && wh_is_dir(full)) {
            s_list_headers(root, sub, depth + 1, v, n);
        } else if (sub && dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") || !strcmp(dot, ".hpp") ||
                                  !strcmp(dot, ".hxx") || !strcmp(dot, ".inc"))) {
            char **nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
            if (nv) {
                *v = nv;
                nv[(*n)++] = sub;
                sub = NULL;
            }
        }
        free(sub);
        free(full);
    }
    if (d)
        closedir(d);
    free(cache);
    free(dir);
}

static void s_push_arg(char ***args, int *n, char *arg)
{
    for (int i = 0; arg && i < *n; i++) {
        if (!strcmp((*args)[i], arg)) {
            free(arg);
            return;
        }
    }
    char **a = arg ? realloc(*args, (size_t)(*n + 1) * sizeof *a) : NULL;
    if (!a) {
        free(arg);
        return;
    }
    *args = a;
    a[(*n)++] = arg;
}

/* The includes of the test file and of the project headers they reach:
 * for `#include <a/b.h>` (or "a/b.h"), the project folder F such that F/a/b.h
 * is a project header gives -IF. */
static void s_guess_nested(const char *root, const char *file, char ***args, int *n)
{
    char **hdr = NULL;
    int nh = 0;
    s_list_headers(root, "", 0, &hdr, &nh);
    char **queue = calloc(256, sizeof *queue);
    int nq = 0;
    if (!queue)
        goto out;
    queue[nq++] = strdup(file);
    for (int qi = 0; qi < nq; qi++) {
        char *text = NULL;
        size_t len = 0;
        if (!queue[qi] || wh_read_file(queue[qi], 1u << 20, &text, &len) != 0)
            continue;
        for (char *line = text; line && *line;) {
            char *nl = strchr(line, '\n');
            char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '#') {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                if (!strncmp(p, "include", 7)) {
                    p += 7;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    char close = *p == '<' ? '>' : *p == '"' ? '"' : 0;
                    char *e = close ? strchr(p + 1, close) : NULL;
                    if (e && (!nl || e < nl) &&
                        !(close == '>' && s_is_std_header(p + 1, (size_t)(e - p - 1)))) {
                        size_t sl = (size_t)(e - p - 1);
                        char *spec = p + 1;
                        for (int h = 0; h < nh; h++) {
                            size_t hl = strlen(hdr[h]);
                            if (hl < sl || memcmp(hdr[h] + hl - sl, spec, sl) != 0 ||
                                (hl > sl && hdr[h][hl - sl - 1] != '/'))
                                continue;
                            if (memchr(spec, '/', sl)) {
                                char *dir = hl > sl ? wh_strdup_printf("%s/%.*s", root,
                                                                       (int)(hl - sl - 1), hdr[h])
                                                    : strdup(root);
                                s_push_arg(args, n, dir ? wh_strdup_printf("-I%s", dir) : NULL);
                                free(dir);
                            }
                            char *hp = wh_path_join(root, hdr[h]);
                            int seen = 0;
                            for (int k = 0; hp && k < nq && !seen; k++)
                                seen = queue[k] && !strcmp(queue[k], hp);
                            if (hp && !seen && nq < 256)
                                queue[nq++] = hp;
                            else
                                free(hp);
                        }
                    }
                }
            }
            line = nl ? nl + 1 : NULL;
        }
        free(text);
    }
out:
    for (int i = 0; i < nq; i++)
        free(queue[i]);
    free(queue);
    for (int i = 0; i < nh; i++)
        free(hdr[i]);
    free(hdr);
}

int wh_job_flags_explicit(const wh_job_t *j)
{
    return j->compdb || (j->nargs && !j->args_guessed);
}

/* A test file that names no framework header and is #included by another
 * project file (a Check runner's `#include "test_art.c"`) sees what the
 * includer has before that line: the same as -include flags (includer.h). */
static void s_guess_includer(wh_job_t *j)
{
    char *path = wh_path_join(j->project, j->file), *src = NULL;
    size_t len = 0;
    int own = path && wh_read_file(path, WH_JOB_MAX_FILE, &src, &len) == 0 &&
              wh_fw_detect_source(src, NULL) != NULL;
    free(src);
    free(path);
    wh_includer_t inc;
    if (own || wh_includer_find(j->project, j->file, &inc) != 0)
        return;
    for (int i = 0; i < inc.nargs; i++) {
        char **a = realloc(j->args, (size_t)(j->nargs + 1) * sizeof *a);
        if (!a)
            break;
        j->args = a;
        a[j->nargs++] = inc.args[i];
        inc.args[i] = NULL;
    }
    wh_includer_clear(&inc);
}

void wh_job_guess_includes(wh_job_t *j)
{
    if (j->nargs || !j->project)
        return;
    if (j->file)
        s_guess_includer(j);
    if (j->compdb) {
        j->args_guessed = j->nargs > 0;
        return;
    }
    if (j->file) {
        char *f = j->file[0] == '/' ? strdup(j->file) : wh_path_join(j->project, j->file);
        if (f)
            s_guess_nested(j->project, f, &j->args, &j->nargs);
        free(f);
    }
    char **more = NULL;
    int nmore = 0;
    s_scan_headers(j->project, 0, &more, &nmore);
    for (int i = 0; i < nmore; i++)
        s_push_arg(&j->args, &j->nargs, more[i]);
    free(more);
    j->args_guessed = j->nargs > 0;
}

/* ---- the job's "git" object (a snapshot: jobsnap.h makes and checks it out) ---- */

static int s_git_str(json_t *g, const char *k, char **dst, char **err)
{
    json_t *v = json_object_get(g, k);
    if (!v)
        return 0;
    if (!json_is_string(v))
        return s_fail(err, wh_strdup_printf("field 'git.%s' must be a string", k));
    free(*dst);
    *dst = strdup(json_string_value(v));
    return *dst ? 0 : s_fail(err, NULL);
}

int wh_job_git_from_json(wh_job_t *j, const void *git_obj, char **err)
{
    json_t *g = (json_t *)git_obj;
    if (!g)
        return 0;
    if (!json_is_object(g))
        return s_fail(err, strdup("field 'git' must be an object"));
    const char *k;
    json_t *v;
    json_object_foreach(g, k, v) {
        if (strcmp(k, "url") && strcmp(k, "rev") && strcmp(k, "subdir") &&
            strcmp(k, "reference") && strcmp(k, "patch_b64"))
            return s_fail(err, wh_strdup_printf("unknown field 'git.%s'", k));
    }
    int rc = s_git_str(g, "url", &j->git_url, err);
    rc = rc ? rc : s_git_str(g, "rev", &j->git_rev, err);
    rc = rc ? rc : s_git_str(g, "subdir", &j->git_subdir, err);
    rc = rc ? rc : s_git_str(g, "reference", &j->git_reference, err);
    if (rc)
        return rc;
    if (!j->git_url || !j->git_rev)
        return s_fail(err, strdup("field 'git' needs 'url' and 'rev'"));
    json_t *p = json_object_get(g, "patch_b64");
    if (p) {
        if (!json_is_string(p) ||
            json_string_length(p) > (WH_SNAPSHOT_MAX_PATCH + 2) / 3 * 4)
            return s_fail(err, strdup("field 'git.patch_b64' must be base64 of at most 1 MiB"));
        free(j->git_patch);
        j->git_patch = wh_base64_decode(json_string_value(p), &j->git_patch_len);
        if (!j->git_patch)
            return s_fail(err, strdup("field 'git.patch_b64' is not valid base64"));
    }
    return 0;
}

void wh_job_git_to_json(const wh_job_t *j, void *obj)
{
    if (!j->git_url)
        return;
    json_t *g = json_object();
    json_object_set_new(g, "url", json_string(j->git_url));
    json_object_set_new(g, "rev", json_string(j->git_rev ? j->git_rev : ""));
    json_object_set_new(g, "subdir", json_string(j->git_subdir ? j->git_subdir : ""));
    if (j->git_reference)
        json_object_set_new(g, "reference", json_string(j->git_reference));
    if (j->git_patch_len) {
        char *b = wh_base64_encode(j->git_patch, j->git_patch_len);
        if (b)
            json_object_set_new(g, "patch_b64", json_string(b));
        free(b);
    }
    json_object_set_new((json_t *)obj, "git", g);
}

void wh_job_git_clear(wh_job_t *j)
{
    free(j->git_url);
    free(j->git_rev);
    free(j->git_subdir);
    free(j->git_reference);
    free(j->git_patch);
    j->git_url = j->git_rev = j->git_subdir = j->git_reference = NULL;
    j->git_patch = NULL;
    j->git_patch_len = 0;
    free(j->tar_sha);
    free(j->tar_data);
    j->tar_sha = NULL;
    j->tar_data = NULL;
    j->tar_size = 0;
}

int wh_job_git_copy(wh_job_t *d, const wh_job_t *s)
{
    d->git_url = s->git_url ? strdup(s->git_url) : NULL;
    d->git_rev = s->git_rev ? strdup(s->git_rev) : NULL;
    d->git_subdir = s->git_subdir ? strdup(s->git_subdir) : NULL;
    d->git_reference = s->git_reference ? strdup(s->git_reference) : NULL;
    d->git_patch = NULL;
    if (s->git_patch && (d->git_patch = malloc(s->git_patch_len + 1))) {
        memcpy(d->git_patch, s->git_patch, s->git_patch_len);
        d->git_patch[s->git_patch_len] = 0;
    }
    d->tar_sha = s->tar_sha ? strdup(s->tar_sha) : NULL;
    d->tar_size = s->tar_size;
    d->tar_data = NULL; /* the client's packed bytes stay with the original */
    int bad = (s->tar_sha && !d->tar_sha) || (s->git_url && !d->git_url) || (s->git_rev && !d->git_rev) ||
              (s->git_subdir && !d->git_subdir) || (s->git_reference && !d->git_reference) ||
              (s->git_patch && !d->git_patch);
    return bad ? WH_ENOMEM : 0;
}
