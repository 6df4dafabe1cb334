/*
 * scratch — a private TMPDIR and HOME per workspace (scratch.h).
 */
#define _GNU_SOURCE
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wh_common.h"

/* "<root>.scratch", without root's trailing slashes. */
static char *s_dir(const char *root)
{
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    return wh_strdup_printf("%.*s.scratch", (int)rl, root);
}

/* An empty folder at path, mode 0700, the user's, keeping entries named
 * keep (NULL-terminated; emptied by the caller). The folder itself stays
 * when it is one (a symlink or a file put there is removed, never
 * followed): a bwrap sandbox of another slot masks this path, and a path
 * that vanished and came back between its listing and its mount would
 * fail that slot's command. */
static int s_fresh(const char *path, const char *const *keep, const wh_runas_t *runas)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        wh_rm_rf(path);
    if (mkdir(path, 0700) < 0 && errno != EEXIST)
        return -errno;
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    int rc = 0;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        int kept = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (const char *const *k = keep; k && *k && !kept; k++)
            kept = !strcmp(e->d_name, *k);
        char *sub = kept ? NULL : wh_path_join(path, e->d_name);
        if (!kept && !sub)
            rc = WH_ENOMEM;
        else if (sub)
            rc = wh_rm_rf(sub);
        free(sub);
    }
    closedir(d);
    /* mkdir's mode passes through the umask, and an old folder may have
     * another: say it again. */
    if (!rc && chmod(path, 0700) < 0)
        rc = -errno;
    return rc ? rc : wh_runas_grant(runas, path, 0);
}

int wh_scratch_prepare(wh_scratch_t *s, const char *root, const wh_runas_t *runas)
{
    memset(s, 0, sizeof *s);
    s->dir = s_dir(root);
    char *tmp = s->dir ? wh_path_join(s->dir, "tmp") : NULL;
    char *home = s->dir ? wh_path_join(s->dir, "home") : NULL;
    int rc = tmp && home ? 0 : WH_ENOMEM;
    /* The parent first (its own entries but these two), then each. */
    static const char *const both[] = {"tmp", "home", NULL};
    if (!rc)
        rc = s_fresh(s->dir, both, runas);
    if (!rc && (rc = s_fresh(tmp, NULL, runas)) == 0)
        rc = s_fresh(home, NULL, runas);
    if (!rc) {
        s->vars[0] = wh_strdup_printf("TMPDIR=%s", tmp);
        s->vars[1] = wh_strdup_printf("TMP=%s", tmp);
        s->vars[2] = wh_strdup_printf("TEMP=%s", tmp);
        s->vars[3] = wh_strdup_printf("HOME=%s", home);
        for (int i = 0; i < 4; i++) {
            if (!s->vars[i])
                rc = WH_ENOMEM;
            s->env[i] = s->vars[i];
        }
        s->env[4] = NULL;
    }
    free(tmp);
    free(home);
    if (rc)
        wh_scratch_clear(s);
    return rc;
}

void wh_scratch_clear(wh_scratch_t *s)
{
    free(s->dir);
    for (int i = 0; i < 4; i++)
        free(s->vars[i]);
    memset(s, 0, sizeof *s);
}

void wh_scratch_remove(const char *root)
{
    char *d = s_dir(root);
    if (d)
        wh_rm_rf(d);
    free(d);
}
