/* A job's project as a git snapshot: see jobsnap.h. */
#define _GNU_SOURCE
#include <jansson.h>
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

static int s_str(json_t *g, const char *k, char **dst, char **err)
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
    int rc = s_str(g, "url", &j->git_url, err);
    rc = rc ? rc : s_str(g, "rev", &j->git_rev, err);
    rc = rc ? rc : s_str(g, "subdir", &j->git_subdir, err);
    rc = rc ? rc : s_str(g, "reference", &j->git_reference, err);
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
    int bad = (s->git_url && !d->git_url) || (s->git_rev && !d->git_rev) ||
              (s->git_subdir && !d->git_subdir) || (s->git_reference && !d->git_reference) ||
              (s->git_patch && !d->git_patch);
    return bad ? WH_ENOMEM : 0;
}
