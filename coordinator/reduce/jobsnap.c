/* A job's project as a git snapshot: see jobsnap.h. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"
#include "jobsnap.h"
#include "wh_snapshot.h"
#include "wh_tar.h"

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

/* ---- tar snapshots ---- */

int wh_job_snapshot_tar(wh_job_t *j, uint64_t max_packed, unsigned *files, char **err)
{
    if (!j->project)
        return s_fail(err, strdup("missing --project"));
    if (j->reference)
        return s_fail(err, wh_strdup_printf("--reference %s cannot travel with --snapshot tar (only "
                                            "the project is sent); use --reference none, or "
                                            "--snapshot git with a revision",
                                            j->reference));
    char *root = realpath(j->project, NULL);
    if (!root || !wh_is_dir(root)) {
        free(root);
        return s_fail(err, wh_strdup_printf("project %s is not a folder", j->project));
    }
    char *out = j->out ? realpath(j->out, NULL) : NULL;
    const char *skip[1] = {out};
    wh_tar_limits_t lim = {.max_packed = max_packed};
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = wh_tar_pack(root, skip, 1, wh_identity_ignored, j->ignore, j->nignore, &lim, &data,
                         &len, files, err);
    free(out);
    free(root);
    if (rc)
        return rc == WH_ETOOBIG ? WH_ETOOBIG : WH_EINVAL;
    wh_job_git_clear(j);
    char hex[65];
    wh_sha256_hex(data, len, hex);
    j->tar_sha = strdup(hex);
    j->tar_size = len;
    j->tar_data = data;
    return j->tar_sha ? 0 : s_fail(err, NULL);
}

int wh_job_snapshot_tar_local(wh_job_t *j, const char *blob, const char *trees, char **err)
{
    if (!j->tar_sha)
        return 0;
    if (!wh_tar_sha_ok(j->tar_sha))
        return s_fail(err, strdup("field 'tar.sha256' must be 64 lower-case hex digits"));
    char *dir = wh_path_join(trees, j->tar_sha);
    if (!dir)
        return s_fail(err, NULL);
    if (!wh_is_dir(dir)) {
        char *data = NULL;
        size_t len = 0;
        int rc = wh_read_file(blob, WH_TAR_MAX_PACKED, &data, &len);
        char hex[65] = "";
        if (!rc)
            wh_sha256_hex(data, len, hex);
        if (rc || strcmp(hex, j->tar_sha) != 0) {
            free(data);
            free(dir);
            return s_fail(err, wh_strdup_printf("tar snapshot %.12s: %s", j->tar_sha,
                                                rc ? wh_strerror(rc) : "its bytes do not match "
                                                                       "its sha256"));
        }
        /* unpacked beside, renamed into place when whole */
        char *tmp = wh_strdup_printf("%s.tmp.%d", dir, (int)getpid());
        wh_mkdir_p(trees);
        if (tmp)
            wh_rm_rf(tmp);
        rc = tmp ? wh_tar_unpack((const uint8_t *)data, len, tmp, NULL, err) : WH_ENOMEM;
        free(data);
        if (!rc && rename(tmp, dir) != 0 && !wh_is_dir(dir))
            rc = WH_EIO;
        if (rc) {
            if (tmp)
                wh_rm_rf(tmp);
            free(tmp);
            free(dir);
            if (!*err)
                *err = strdup("cannot unpack the tar snapshot");
            return WH_EINVAL;
        }
        free(tmp);
    }
    free(j->project);
    j->project = dir;
    return 0;
}

int wh_job_tar_from_json(wh_job_t *j, const void *tar_obj, char **err)
{
    json_t *t = (json_t *)tar_obj;
    if (!t)
        return 0;
    json_t *sha = json_is_object(t) ? json_object_get(t, "sha256") : NULL;
    json_t *size = json_is_object(t) ? json_object_get(t, "size") : NULL;
    if (!sha || !json_is_string(sha) || !wh_tar_sha_ok(json_string_value(sha)) || !size ||
        !json_is_integer(size) || json_integer_value(size) <= 0 ||
        (uint64_t)json_integer_value(size) > WH_TAR_MAX_PACKED || json_object_size(t) != 2)
        return s_fail(err, wh_strdup_printf("field 'tar' must be {\"sha256\": 64 hex digits, "
                                            "\"size\": 1..%llu}",
                                            (unsigned long long)WH_TAR_MAX_PACKED));
    free(j->tar_sha);
    j->tar_sha = strdup(json_string_value(sha));
    j->tar_size = (uint64_t)json_integer_value(size);
    return j->tar_sha ? 0 : s_fail(err, NULL);
}

void wh_job_tar_to_json(const wh_job_t *j, void *obj)
{
    if (!j->tar_sha)
        return;
    json_t *t = json_object();
    json_object_set_new(t, "sha256", json_string(j->tar_sha));
    json_object_set_new(t, "size", json_integer((json_int_t)j->tar_size));
    json_object_set_new((json_t *)obj, "tar", t);
}
