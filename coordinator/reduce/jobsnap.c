/* A job's project as a git snapshot: see jobsnap.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "jobsnap.h"
#include "wh_snapshot.h"

static int s_fail(char **err, char *msg)
{
    *err = msg ? msg : strdup("out of memory");
    return WH_EINVAL;
}

int wh_job_snapshot_make(wh_job_t *j, const char *url, char **err)
{
    if (!j->project)
        return s_fail(err, strdup("missing --project"));
    if (j->reference && wh_is_dir(j->reference))
        return s_fail(err, wh_strdup_printf("--reference %s is a folder; with --snapshot git it "
                                            "must be a git revision the nodes can fetch",
                                            j->reference));
    char *ref = NULL;
    if (j->reference && !(ref = wh_snapshot_resolve_rev(j->project, j->reference)))
        return s_fail(err, wh_strdup_printf("reference '%s' is not a git revision of %s",
                                            j->reference, j->project));
    wh_snapshot_t s;
    if (wh_snapshot_make(j->project, url, &s, err) != 0) {
        free(ref);
        return WH_EINVAL;
    }
    wh_job_git_clear(j);
    j->git_url = s.url;
    j->git_rev = s.rev;
    j->git_subdir = s.subdir;
    j->git_patch = s.patch;
    j->git_patch_len = s.patch_len;
    j->git_reference = ref;
    if (ref) {
        free(j->reference);
        j->reference = strdup(ref);
    }
    return 0;
}

int wh_job_snapshot_local(wh_job_t *j, const char *root, char **err)
{
    if (!j->git_url)
        return 0;
    char *dir = NULL, *ref = NULL;
    if (wh_snapshot_checkout(root, j->git_url, j->git_rev, j->git_patch, j->git_patch_len,
                             j->git_subdir, &dir, err) != 0)
        return WH_EINVAL;
    if (j->git_reference &&
        wh_snapshot_export(root, j->git_url, j->git_reference, j->git_subdir, &ref, err) != 0) {
        free(dir);
        return WH_EINVAL;
    }
    free(j->project);
    j->project = dir;
    if (ref) {
        free(j->reference);
        j->reference = ref;
    }
    return 0;
}
