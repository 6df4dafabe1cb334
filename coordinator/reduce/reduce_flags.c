/*
 * reduce_flags — exact compile flags (DESIGN.md "Statement tree"): after
 * the baseline, the tree is parsed again with the test file's compile
 * command from the warm workspace (on a thread of its own, treejob.h),
 * unless the user gave -p or `--`; a fingerprint from the cache is used
 * only with the command cached with it. Part of the reduce module
 * (reduce_int.h).
 */
#define _GNU_SOURCE
#include "reduce_int.h"
#include "reduce_baseline.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

wh_engine_t *red_engine_for(const wh_tree_t *t, wh_algo_t algo, wh_walk_t walk)
{
    int *parent = malloc(sizeof(int) * (size_t)(t->n ? t->n : 1));
    for (int i = 0; parent && i < t->n; i++)
        parent[i] = t->units[i].parent;
    wh_engine_t *e = parent ? wh_engine_new(t->n, parent, algo, walk) : NULL;
    free(parent);
    return e;
}

/* Takes tree t (and a new engine for it) in place of the guessed one. */
static int s_use_tree(wh_reduction_t *r, wh_tree_t *t, const char *how)
{
    wh_engine_t *e = red_engine_for(t, r->job.algo, r->job.walk);
    /* The walk starts over on the new tree: so does the verify trail. */
    wh_trail_t *trail = e ? wh_trail_new(e) : NULL;
    if (!trail) {
        wh_engine_destroy(&e);
        wh_tree_destroy(&t);
        return WH_ENOMEM;
    }
    if (t->n != r->tree->n) {
        red_out(r, "Statement tree %s: %d statements (the header guess saw %d)\n", how, t->n,
                r->tree->n);
    }
    wh_record_log(r->rec, "statement tree %s: %d statements (the header guess saw %d)", how, t->n,
                  r->tree->n);
    wh_engine_destroy(&r->engine);
    wh_trail_destroy(&r->trail);
    wh_tree_destroy(&r->tree);
    r->engine = e;
    r->trail = trail;
    r->tree = t;
    r->tree_gen++;
    r->fe_wait = 0; /* a set-up for the old tree is dropped: s_precheck_follow's counts */
    wh_memo_clear(r->walk.memo); /* its keys name units of the old tree */
    wh_prior_destroy(&r->walk.prior); /* so do its slice's */
    r->walk.chain_start = 0;
    return 0;
}

/* After s_use_tree: the precheck and the UB guard follow the new tree's flags. async: the
 * setup runs off this thread and the baseline's fingerprint waits for it
 * (wh_reduction_poll); 1 when it does. */
static int s_precheck_follow(wh_reduction_t *r, int async)
{
    r->ub_pending = red_ubguard_open(r, async); /* the UB guard too (reduce_ubguard.c) */
    if (r->job.precheck == WH_PRECHECK_OFF)
        return r->ub_pending;
    red_precheck_open(r, async);
    if (async && r->pc) {
        r->pc_pending = 1;
        return 1;
    }
    return r->ub_pending;
}

/* Says so when the tree in use was parsed with errors allowed. */
static void s_warn_diag(wh_reduction_t *r)
{
    if (!r->tree->diag)
        return;
    red_out(r, "Warning: %s (--allow-parse-errors: the statement tree may be incomplete)\n",
            r->tree->diag);
    wh_record_log(r->rec, "parse errors allowed: %s", r->tree->diag);
}

/* Starts parsing the test with cmd (moved to the project) off this thread. */
static int s_start_treejob(wh_reduction_t *r, const wh_compile_cmd_t *cmd)
{
    char *path = wh_path_join(r->job.project, r->job.file);
    wh_tree_opts_t to = {NULL, NULL, 0, cmd, r->job.allow_parse_errors, NULL};
    r->treejob = path ? wh_treejob_start(path, r->job.test, &to, red_wake, r) : NULL;
    free(path);
    return r->treejob ? 0 : WH_ENOMEM;
}

/* 1 when folder a holds an entry folder b lacks (names only, one level):
 * what a setup generated into its copy of a folder the project has too. */
static int s_holds_more(const char *a, const char *b)
{
    DIR *d = opendir(a);
    if (!d)
        return 0;
    int more = 0;
    for (struct dirent *e; !more && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *in_b = wh_path_join(b, e->d_name);
        more = !in_b || access(in_b, F_OK) != 0;
        free(in_b);
    }
    closedir(d);
    return more;
}

/* Moves what s names inside a copy of the workspace's key (ws itself,
 * another slot's copy or the set-up copy: a slot cloned from another keeps
 * the build folder's paths into it) to the project's path when the project
 * has it; a new string, or NULL when s names none, the project lacks it,
 * or out of memory. A folder of ws itself whose copy holds more than the
 * project's stays: wh_compile_cmd_rebase gave both, and the workspace's
 * holds what the setup generated (libarchive tracks build/ and generates
 * config.h there: moved, the parse stopped with "'config.h' file not
 * found"). */
static char *s_unsibling(const char *s, const char *ws, const char *project)
{
    const char *slash = strrchr(ws, '/');
    if (!slash || slash == ws)
        return NULL;
    size_t kl = (size_t)(slash - ws) + 1, wl = strlen(ws); /* kl: the key's folder, with its '/' */
    const char *at = NULL;
    for (const char *p = strchr(s, '/'); p && !at; p = strchr(p + 1, '/'))
        if (strncmp(p, ws, kl) == 0 && p[kl] && p[kl] != '/')
            at = p;
    if (!at)
        return NULL;
    const char *end = at + kl + strcspn(at + kl, "/");
    /* Only where the project has it too: a folder the setup generated
     * (build/gen/include) is only in the workspaces, and the parse needs
     * it there (as wh_compile_cmd_rebase keeps such paths). */
    char *moved = wh_strdup_printf("%s%s", project, end);
    int there = moved && access(moved, F_OK) == 0;
    if (there && strncmp(at, ws, wl) == 0 && (at[wl] == '\0' || at[wl] == '/'))
        there = !s_holds_more(at, moved);
    free(moved);
    return there ? wh_strdup_printf("%.*s%s%s", (int)(at - s), s, project, end) : NULL;
}

/* The command's paths into any copy of the workspace's key, moved to the
 * project (after wh_compile_cmd_rebase moved those of ws itself). */
static void s_unsibling_cmd(wh_compile_cmd_t *c, const char *ws, const char *project)
{
    char **fields[] = {&c->directory, &c->file};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        char *n = *fields[i] ? s_unsibling(*fields[i], ws, project) : NULL;
        if (n) {
            free(*fields[i]);
            *fields[i] = n;
        }
    }
    for (int i = 1; i < c->argc; i++) {
        char *n = s_unsibling(c->argv[i], ws, project);
        if (n) {
            free(c->argv[i]);
            c->argv[i] = n;
        }
    }
}

/* After a fresh baseline: cmd is the compile command the workspace at ws
 * recorded (NULL: none). It is cached with the fingerprint ("cc:<job>").
 * With a command, the tree is parsed on a thread of its own (treejob.h)
 * and the baseline's fingerprint waits in pending_fp for
 * wh_reduction_poll. Returns 0 to go on now, 1 when parsing, -1 when the
 * reduction failed (exit 1 on a parse error, 4 out of memory). */
int red_exact_tree(wh_reduction_t *r, const wh_compile_cmd_t *cmd, const char *ws,
                   const wh_fp_t *observed)
{
    if (wh_job_flags_explicit(&r->job))
        return 0;
    wh_compile_cmd_t moved = {0};
    if (cmd && ws && (wh_compile_cmd_copy(&moved, cmd) ||
                      wh_compile_cmd_rebase(&moved, ws, r->job.project))) {
        red_fail(r, 4, NULL); /* out of memory */
        wh_compile_cmd_clear(&moved);
        return -1;
    }
    if (cmd && ws)
        s_unsibling_cmd(&moved, ws, r->job.project);
    char key[80], *js = wh_compile_cmd_to_json(&moved);
    snprintf(key, sizeof key, "cc:%s", r->job_id);
    if (js) {
        wh_cache_put_blob(r->cache, key, js);
        wh_record_file(r->rec, "compile_command.json", js, strlen(js));
    }
    free(js);
    int rc = 0;
    if (moved.argc) {
        if (s_start_treejob(r, &moved) || wh_fp_copy(&r->pending_fp, observed)) {
            red_fail(r, 4, strdup("cannot start parsing the test with the workspace's compile "
                                  "command"));
            rc = -1;
        } else {
            rc = 1;
        }
    } else if (r->tree->diag && !r->job.allow_parse_errors) {
        red_fail(r, 1, wh_strdup_printf("%s; the statement tree may be incomplete and the workspace "
                                        "recorded no compile command for %s: give -p BUILD_DIR (a "
                                        "compile_commands.json), -- -I... flags, or "
                                        "--allow-parse-errors", r->tree->diag, r->job.file));
        rc = -1;
    }
    if (rc == 0)
        s_warn_diag(r);
    wh_compile_cmd_clear(&moved);
    return rc;
}

/* The exact tree is parsed: take it, then the pending fingerprint. */
void red_exact_tree_done(wh_reduction_t *r)
{
    wh_tree_t *t = NULL;
    char *err = NULL;
    int rc = wh_treejob_finish(&r->treejob, &t, &err);
    if (r->state != RED_BASELINE) { /* aborted meanwhile */
        wh_tree_destroy(&t);
        free(err);
        return;
    }
    if (rc == 0 && (t->text_len != r->tree->text_len ||
                    memcmp(t->text, r->tree->text, t->text_len) != 0)) {
        err = wh_strdup_printf("%s changed while whittle was running", r->job.file);
        rc = WH_EINVAL;
    }
    if (rc == 0) {
        rc = s_use_tree(r, t, "with the workspace's compile command");
        t = NULL;
    }
    wh_tree_destroy(&t);
    if (rc) {
        red_fail(r, 1, wh_strdup_printf("%s (parsed with the compile command that the warm "
                                        "workspace recorded)", err ? err : wh_strerror(rc)));
        free(err);
        return;
    }
    s_warn_diag(r);
    if (s_precheck_follow(r, 1))
        return;
    red_take_fingerprint(r, &r->pending_fp);
    wh_fp_clear(&r->pending_fp);
}

/* A cached fingerprint is used only with the cached compile command, and
 * only when the tree parses with it now (a header it named may have lived
 * in a workspace that is gone); otherwise the original runs again. This
 * parse runs on the calling thread: a rerun answered from the cache must
 * finish inside wh_reduction_start, as it always has (two jobs that differ
 * only in their walk share one job id and must not overlap). */
int red_cached_flags_ok(wh_reduction_t *r)
{
    if (wh_job_flags_explicit(&r->job))
        return 1;
    char key[80], *js = NULL;
    snprintf(key, sizeof key, "cc:%s", r->job_id);
    wh_compile_cmd_t cmd;
    if (wh_cache_get_blob(r->cache, key, &js) != 0 || !js || wh_compile_cmd_from_json(js, &cmd)) {
        free(js);
        return 0;
    }
    free(js);
    if (cmd.argc == 0)
        return !r->tree->diag || r->job.allow_parse_errors;
    char *path = wh_path_join(r->job.project, r->job.file), *err = NULL;
    wh_tree_opts_t to = {NULL, NULL, 0, &cmd, r->job.allow_parse_errors, NULL};
    wh_tree_t *t = NULL;
    int rc = path ? wh_tree_load(path, r->job.test, &to, &t, &err) : WH_ENOMEM;
    free(path);
    if (rc == 0 && (t->text_len != r->tree->text_len ||
                    memcmp(t->text, r->tree->text, t->text_len) != 0))
        rc = WH_EINVAL;
    if (rc == 0) {
        rc = s_use_tree(r, t, "with the cached compile command");
        if (rc == 0)
            s_precheck_follow(r, 0);
        t = NULL;
    } else {
        wh_record_log(r->rec, "cached compile command does not parse now (%s); running the "
                      "original again", err ? err : wh_strerror(rc));
    }
    wh_tree_destroy(&t);
    free(err);
    wh_compile_cmd_clear(&cmd);
    return rc == 0;
}
