/* `--reference auto`: see refauto.h. */
#define _GNU_SOURCE
#include "refauto.h"

#include <stdlib.h>
#include <string.h>

#include "wh_common.h"
#include "wh_spawn.h"

/* `git status -z` of a very large repository still fits. */
#define S_MAX_LIST (64u << 20)

/* git with the read-only options every call here takes, in project; up to
 * six arguments (NULL-terminated early). */
#define S_GIT(project, ...)                                                                  \
    ((const char *const[]){"git", "--no-optional-locks", "--literal-pathspecs", "-C",        \
                           (project), __VA_ARGS__, NULL})

/* The test file relative to the absolute project folder (given relative to
 * it or to the current folder, as wh_job_validate takes it); NULL when it
 * is not inside. */
static char *s_rel_file(const char *proj, const char *file)
{
    char *in = file[0] == '/' ? NULL : wh_path_join(proj, file);
    char *abs = in && wh_is_file(in) ? wh_abspath(in) : wh_abspath(file);
    free(in);
    size_t pl = strlen(proj);
    char *rel = abs && !strncmp(abs, proj, pl) && abs[pl] == '/' ? strdup(abs + pl + 1) : NULL;
    free(abs);
    return rel;
}

static int s_set(wh_refauto_t *a, char *why)
{
    free(a->why);
    a->why = why;
    return why ? 0 : WH_ENOMEM;
}

/* The tracked paths under the project (relative to the repository, as
 * `git status --porcelain` gives them) that differ from HEAD, staged or
 * not, other than `test` (relative to the repository too): how many, and
 * the first in *first (malloc'ed). -1 when git fails. */
static int s_changed(const char *proj, const char *test, char **first)
{
    const char *const *argv = S_GIT(proj, "status", "--porcelain=v1", "-z", "--untracked-files=no",
                                    "--", ".");
    char *out = NULL;
    size_t len = 0;
    *first = NULL;
    if (wh_spawn_run(argv, &out, &len, S_MAX_LIST) != 0 || !out || len >= S_MAX_LIST) {
        free(out);
        return -1;
    }
    int n = 0;
    for (size_t off = 0; off < len;) {
        const char *e = out + off;
        size_t el = strlen(e);
        off += el + 1;
        if (el < 4)
            continue;
        /* "XY path"; a rename or copy names its source next. */
        int two = e[0] == 'R' || e[0] == 'C';
        const char *path = e + 3;
        if (strcmp(path, test)) {
            n++;
            if (!*first)
                *first = strdup(path);
        }
        if (two && off < len)
            off += strlen(out + off) + 1;
    }
    free(out);
    return n;
}

/* No change outside the test: the merge base with the upstream branch,
 * when HEAD has commits the upstream lacks. */
static int s_pick_base(const char *proj, const char *head, wh_refauto_t *a)
{
    char *up = wh_spawn_line(S_GIT(proj, "rev-parse", "--abbrev-ref", "--symbolic-full-name",
                                   "@{upstream}"));
    if (!up)
        return s_set(a, strdup("no uncommitted change and no upstream branch"));
    char *mb = wh_spawn_line(S_GIT(proj, "merge-base", "HEAD", "@{upstream}"));
    int rc;
    if (!mb) {
        rc = s_set(a, wh_strdup_printf("no uncommitted change and no merge base with %s", up));
    } else if (!strcmp(mb, head)) {
        rc = s_set(a, wh_strdup_printf("no uncommitted change and no commit on HEAD that %s "
                                       "lacks", up));
    } else {
        char *range = wh_strdup_printf("%s..HEAD", mb);
        char *count = range ? wh_spawn_line(S_GIT(proj, "rev-list", "--count", range)) : NULL;
        rc = s_set(a, wh_strdup_printf("no uncommitted change; HEAD has %s commit%s that %s "
                                       "lacks", count ? count : "?",
                                       count && !strcmp(count, "1") ? "" : "s", up));
        a->name = wh_strdup_printf("the merge base with %s", up);
        a->rev = mb;
        mb = NULL;
        rc = rc ? rc : a->name ? 0 : WH_ENOMEM;
        free(range);
        free(count);
    }
    free(mb);
    free(up);
    return rc;
}

int wh_refauto_pick(const char *project, const char *file, wh_refauto_t *a)
{
    memset(a, 0, sizeof *a);
    char *proj = wh_abspath(project), *rel = proj ? s_rel_file(proj, file) : NULL;
    char *head = NULL, *prefix = NULL, *test = NULL, *first = NULL;
    int rc;
    if (!rel) {
        rc = s_set(a, strdup("not a git project: the test file is not inside the project"));
        goto out;
    }
    /* Tracked by the repository that holds the project, or not a git
     * project at all (a copy inside another repository's folder). */
    if (wh_spawn_run(S_GIT(proj, "ls-files", "--error-unmatch", "--", rel), NULL, NULL, 0) != 0) {
        rc = s_set(a, strdup("not a git project: the test file is not tracked by git"));
        goto out;
    }
    a->git = 1;
    head = wh_spawn_line(S_GIT(proj, "rev-parse", "--verify", "-q", "HEAD^{commit}"));
    prefix = wh_spawn_line(S_GIT(proj, "rev-parse", "--show-prefix"));
    if (!head) {
        rc = s_set(a, strdup("no commit yet"));
        goto out;
    }
    test = wh_strdup_printf("%s%s", prefix ? prefix : "", rel);
    int n = test ? s_changed(proj, test, &first) : -1;
    if (n < 0) {
        rc = s_set(a, strdup("git status failed"));
    } else if (n > 0) {
        a->name = strdup("HEAD");
        a->rev = head;
        head = NULL;
        rc = s_set(a, n == 1 ? wh_strdup_printf("a tracked file outside the test changed: %s",
                                                first)
                             : wh_strdup_printf("tracked files outside the test changed: %s and "
                                                "%d more", first, n - 1));
        rc = rc ? rc : a->name ? 0 : WH_ENOMEM;
    } else {
        rc = s_pick_base(proj, head, a);
    }
out:
    free(first);
    free(test);
    free(prefix);
    free(head);
    free(rel);
    free(proj);
    if (rc)
        wh_refauto_clear(a);
    return rc;
}

void wh_refauto_clear(wh_refauto_t *a)
{
    free(a->rev);
    free(a->name);
    free(a->why);
    memset(a, 0, sizeof *a);
}

/* Takes why as the job's ref_why and the console line "reference: none (why)". */
static int s_none(wh_job_t *j, char *why, char **line)
{
    free(j->reference);
    j->reference = NULL;
    free(j->ref_why);
    j->ref_why = why;
    *line = why ? wh_strdup_printf("reference: none (%s)", why) : NULL;
    return why && *line ? 0 : WH_ENOMEM;
}

int wh_refauto_apply(wh_job_t *j, int cluster, char **line)
{
    *line = NULL;
    int asked = j->reference && !strcmp(j->reference, "auto");
    if (j->reference && !strcmp(j->reference, "none"))
        return s_none(j, strdup("--reference none"), line);
    if (j->reference && !asked)
        return 0;
    if (!j->project || !j->file)
        return 0; /* wh_job_validate names what is missing */
    wh_refauto_t a;
    int rc = wh_refauto_pick(j->project, j->file, &a);
    if (rc)
        return rc;
    if (a.rev && cluster && j->snapshot != WH_SNAP_GIT) {
        rc = s_none(j, strdup("with --cluster, auto needs --snapshot git (the nodes may not see "
                              "an export, and a tar snapshot carries the project only): pass --reference DIR|GIT-REV"), line);
    } else if (a.rev) {
        free(j->reference);
        j->reference = a.rev;
        a.rev = NULL;
        free(j->ref_picked);
        free(j->ref_why);
        j->ref_picked = wh_strdup_printf("%s %.12s", a.name, j->reference);
        j->ref_why = a.why;
        a.why = NULL;
        *line = j->ref_picked ? wh_strdup_printf("reference: %s (%s); --reference none to turn "
                                                 "it off", j->ref_picked, j->ref_why)
                              : NULL;
        rc = *line ? 0 : WH_ENOMEM;
    } else {
        /* In a git project or not: the start of the run says why there is
         * none (outside git, the answer may lose the fault unnoticed). */
        rc = s_none(j, a.why, line);
        a.why = NULL;
    }
    wh_refauto_clear(&a);
    return rc;
}
