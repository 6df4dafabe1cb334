/*
 * scratch — a private TMPDIR and HOME per workspace (scratch.h).
 */
#define _GNU_SOURCE
#include "scratch.h"

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

/* An empty folder at path, mode 0700, the user's. */
static int s_fresh(const char *path, const wh_runas_t *runas)
{
    wh_rm_rf(path);
    if (mkdir(path, 0700) < 0)
        return -errno;
    /* mkdir's mode passes through the umask: say it again. */
    if (chmod(path, 0700) < 0)
        return -errno;
    return wh_runas_grant(runas, path, 0);
}

int wh_scratch_prepare(wh_scratch_t *s, const char *root, const wh_runas_t *runas)
{
    memset(s, 0, sizeof *s);
    s->dir = s_dir(root);
    char *tmp = s->dir ? wh_path_join(s->dir, "tmp") : NULL;
    char *home = s->dir ? wh_path_join(s->dir, "home") : NULL;
    int rc = tmp && home ? 0 : WH_ENOMEM;
    /* The parent first, so nothing of another user's stays reachable. */
    if (!rc)
        rc = s_fresh(s->dir, runas);
    if (!rc && (rc = s_fresh(tmp, runas)) == 0)
        rc = s_fresh(home, runas);
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
