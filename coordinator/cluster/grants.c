/* grants — the folders each client key may name: see grants.h. */
#define _GNU_SOURCE
#include "grants.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

typedef struct {
    char *key;   /* the client key's base name */
    char *root;  /* resolved, no trailing '/' (but "/" itself) */
} s_grant_t;

struct wh_grants {
    s_grant_t *v;
    int n;
};

wh_grants_t *wh_grants_new(void)
{
    return calloc(1, sizeof(wh_grants_t));
}

void wh_grants_destroy(wh_grants_t **gp)
{
    wh_grants_t *g = *gp;
    if (!g)
        return;
    for (int i = 0; i < g->n; i++) {
        free(g->v[i].key);
        free(g->v[i].root);
    }
    free(g->v);
    free(g);
    *gp = NULL;
}

int wh_grants_count(const wh_grants_t *g)
{
    return g ? g->n : 0;
}

int wh_grants_add(wh_grants_t *g, const char *spec, char **err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || eq[1] != '/' || memchr(spec, '/', (size_t)(eq - spec))) {
        *err = wh_strdup_printf("--grant wants KEY=ROOT (a client key's name, an absolute "
                                "folder), not '%s'", spec);
        return WH_EINVAL;
    }
    char *root = realpath(eq + 1, NULL);
    if (!root || !wh_is_dir(root)) {
        *err = wh_strdup_printf("--grant %s: '%s' is not a folder", spec, eq + 1);
        free(root);
        return WH_EINVAL;
    }
    s_grant_t *v = realloc(g->v, (size_t)(g->n + 1) * sizeof *v);
    if (!v) {
        free(root);
        return WH_ENOMEM;
    }
    g->v = v;
    v[g->n].root = root;
    if (!(v[g->n].key = strndup(spec, (size_t)(eq - spec)))) {
        free(root);
        return WH_ENOMEM;
    }
    g->n++;
    return 0;
}

/* 1 when resolved path p is root or below it. */
static int s_under(const char *p, const char *root)
{
    size_t n = strlen(root);
    if (!strcmp(root, "/"))
        return 1;
    return !strncmp(p, root, n) && (p[n] == '\0' || p[n] == '/');
}

/* The roots granted to name, "A, B" (malloc'ed; "" for none). */
static char *s_roots(const wh_grants_t *g, const char *name)
{
    wh_buf_t b = WH_BUF_INIT;
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->v[i].key, name))
            wh_buf_printf(&b, "%s%s", b.len ? ", " : "", g->v[i].root);
    return wh_buf_detach(&b);
}

/* Checks one path (what: "project", ...) and replaces *path by its
 * resolved form. */
static int s_check(const wh_grants_t *g, const char *name, const char *what, char **path,
                   char **err)
{
    char *real = realpath(*path, NULL);
    for (int i = 0; real && i < g->n; i++) {
        if (!strcmp(g->v[i].key, name) && s_under(real, g->v[i].root)) {
            free(*path);
            *path = real;
            return 0;
        }
    }
    free(real);
    /* A path that does not exist is refused in the same words: whether
     * another tenant's folder exists is not for this key to learn. */
    char *roots = s_roots(g, name);
    *err = roots && *roots
               ? wh_strdup_printf("%s '%s' is outside the folders granted to client key %s (%s); "
                                  "refused: send it as a snapshot (--snapshot git or tar) or ask for "
                                  "a grant", what, *path, name, roots)
               : wh_strdup_printf("%s '%s' is in no folder granted to client key %s (the "
                                  "coordinator grants it none: whittle-coordinator --grant "
                                  "%s=ROOT); refused: send it as a snapshot (--snapshot git or tar)",
                                  what, *path, name, name);
    free(roots);
    return *err ? WH_EINVAL : WH_ENOMEM;
}

int wh_grants_check(const wh_grants_t *g, const char *key, wh_job_t *j, char **err)
{
    if (!key || !*key || j->git_url || j->tar_sha)
        return 0;
    const char *colon = strchr(key, ':');
    const char *name = colon ? colon + 1 : key;
    static const wh_grants_t none = {NULL, 0};
    if (!g)
        g = &none;
    if (!j->project) {
        *err = strdup("submitted job has no project");
        return *err ? WH_EINVAL : WH_ENOMEM;
    }
    int rc = s_check(g, name, "project", &j->project, err);
    /* A reference that is not a folder here is a revision of the (granted)
     * project's repository. */
    if (!rc && j->reference && wh_is_dir(j->reference))
        rc = s_check(g, name, "reference", &j->reference, err);
    if (!rc && j->compdb)
        rc = s_check(g, name, "compilation database folder (-p)", &j->compdb, err);
    return rc;
}
