/*
 * fw_failing — failing functions named by a test program's output; see
 * fw_failing.h.
 */
#define _GNU_SOURCE
#include "fw_failing.h"
#include "fw_segment.h"
#include "fw_util.h"
#include "wh_common.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Lines longer than this are cut before matching (no grammar's failure
 * line is near it). */
#define S_LINE_MAX 4096

/* One grammar: 1 when line l (NUL-terminated, colours stripped) names a
 * failing test, with *name and *file malloc'ed (*file may stay NULL); 0
 * when it does not. */
typedef int (*s_line_fn)(const char *l, char **name, char **file);

static int s_starts(const char *l, const char *prefix)
{
    return strncmp(l, prefix, strlen(prefix)) == 0;
}

/* [s, e) as a name when it looks like one (no blank, not empty). */
static char *s_name(const char *s, const char *e)
{
    if (e <= s)
        return NULL;
    for (const char *p = s; p < e; p++)
        if (isspace((unsigned char)*p))
            return NULL;
    return strndup(s, (size_t)(e - s));
}

/* The basename of a "file.c:12" location; malloc'ed. */
static char *s_loc_file(const char *loc)
{
    const char *colon = strrchr(loc, ':');
    return strndup(loc, colon ? (size_t)(colon - loc) : strlen(loc));
}

/* A location at the very start of l: its end and *loc, else 0. */
static size_t s_lead_loc(const char *l, char **loc)
{
    size_t start = 0, end = 0;
    *loc = NULL;
    if (wh_fwu_find_location(l, strlen(l), &start, &end, loc) != 1)
        return 0;
    if (start != 0) {
        free(*loc);
        *loc = NULL;
        return 0;
    }
    return end;
}

static int s_bracket(const char *l, char **name, char **file)
{
    static const char mark[] = "[  FAILED  ] ";
    (void)file;
    if (!s_starts(l, mark))
        return 0;
    const char *s = l + sizeof mark - 1, *e = s;
    if (isdigit((unsigned char)*s)) /* "1 test(s), listed below:" */
        return 0;
    while (*e && *e != ' ' && *e != ',')
        e++;
    *name = s_name(s, e);
    return *name != NULL;
}

static int s_unity(const char *l, char **name, char **file)
{
    char *loc = NULL;
    size_t e = s_lead_loc(l, &loc);
    if (!e || l[e] != ':') {
        free(loc);
        return 0;
    }
    const char *nm = l + e + 1, *ne = strchr(nm, ':');
    if (!ne || !s_starts(ne + 1, "FAIL") || (ne[5] && ne[5] != ':')) {
        free(loc);
        return 0;
    }
    *name = s_name(nm, ne);
    *file = *name ? s_loc_file(loc) : NULL;
    free(loc);
    return *name != NULL;
}

static int s_check(const char *l, char **name, char **file)
{
    char *loc = NULL;
    size_t e = s_lead_loc(l, &loc);
    if (!e || l[e] != ':' || !(l[e + 1] == 'F' || l[e + 1] == 'E') || l[e + 2] != ':') {
        free(loc);
        return 0;
    }
    const char *tc = l + e + 3, *tce = strchr(tc, ':');
    const char *nm = tce ? tce + 1 : NULL, *ne = nm ? strchr(nm, ':') : NULL;
    const char *it = ne ? ne + 1 : NULL, *ite = it;
    while (ite && isdigit((unsigned char)*ite))
        ite++;
    if (!ne || ite == it || *ite != ':') {
        free(loc);
        return 0;
    }
    *name = s_name(nm, ne);
    *file = *name ? s_loc_file(loc) : NULL;
    free(loc);
    return *name != NULL;
}

static int s_cunit(const char *l, char **name, char **file)
{
    (void)file;
    const char *p = l;
    while (*p == ' ')
        p++;
    if (s_starts(p, "Test: ")) {
        const char *s = p + 6, *e = strstr(s, " ...");
        if (!e || !strstr(e, "FAILED"))
            return 0;
        *name = s_name(s, e);
        return *name != NULL;
    }
    if (s_starts(p, "Suite ")) {
        const char *t = strstr(p, ", Test "), *e = t ? strstr(t, " had failures:") : NULL;
        if (!e)
            return 0;
        *name = s_name(t + 7, e);
        return *name != NULL;
    }
    return 0;
}

static int s_criterion(const char *l, char **name, char **file)
{
    (void)file;
    if (!s_starts(l, "[FAIL] "))
        return 0;
    const char *s = l + 7, *e = s;
    while (*e && !(e[0] == ':' && (e[1] == ' ' || e[1] == '\0')))
        e++;
    *name = s_name(s, e);
    return *name != NULL;
}

static const struct {
    const char *name;
    s_line_fn fn;
} s_grammars[] = {
    {"bracket", s_bracket}, {"unity", s_unity},         {"check", s_check},
    {"cunit", s_cunit},     {"criterion", s_criterion},
};

void wh_fw_failing_free(wh_fw_failing_t *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name), free(v[i].file);
    free(v);
}

/* Appends name (taken) and file (taken, may be NULL) unless name is there
 * already. 0 or WH_ENOMEM. */
static int s_push(wh_fw_failing_t **v, size_t *n, char *name, char *file)
{
    for (size_t i = 0; i < *n; i++) {
        if (!strcmp((*v)[i].name, name)) {
            free(name), free(file);
            return 0;
        }
    }
    if (!file)
        file = strdup("");
    wh_fw_failing_t *nv = *n < WH_FW_FAILING_MAX ? realloc(*v, (*n + 1) * sizeof *nv) : *v;
    if (!nv || !file) {
        free(name), free(file);
        return WH_ENOMEM;
    }
    *v = nv;
    if (*n < WH_FW_FAILING_MAX) {
        nv[*n].name = name, nv[*n].file = file, nv[*n].died = 0;
        (*n)++;
    } else {
        free(name), free(file);
    }
    return 0;
}

/* Every failure one grammar finds in text. 0 or WH_ENOMEM. */
static int s_scan(s_line_fn fn, const char *text, size_t len, wh_fw_failing_t **v, size_t *n)
{
    char *line = malloc(S_LINE_MAX + 1);
    int rc = line ? 0 : WH_ENOMEM;
    for (size_t pos = 0; !rc && pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t e = nl ? (size_t)(nl - text) : len;
        wh_fwu_clean_line(text + pos, e - pos, line, S_LINE_MAX);
        pos = e + 1;
        char *name = NULL, *file = NULL;
        if (fn(line, &name, &file))
            rc = s_push(v, n, name, file);
        else
            free(name), free(file);
    }
    free(line);
    return rc;
}

int wh_fw_failing_parse(const char *text, size_t len, wh_fw_failing_t **v, size_t *n,
                        const char **grammar)
{
    *v = NULL, *n = 0;
    if (grammar)
        *grammar = NULL;
    for (size_t g = 0; text && g < sizeof s_grammars / sizeof s_grammars[0]; g++) {
        int rc = s_scan(s_grammars[g].fn, text, len, v, n);
        if (rc) {
            wh_fw_failing_free(*v, *n);
            *v = NULL, *n = 0;
            return rc;
        }
        if (*n) {
            if (grammar)
                *grammar = s_grammars[g].name;
            break;
        }
    }
    char *open = text ? wh_seg_open(text, len) : NULL;
    if (!open)
        return 0;
    size_t before = *n;
    int rc = s_push(v, n, open, NULL);
    if (rc) {
        wh_fw_failing_free(*v, *n);
        *v = NULL, *n = 0;
        return rc;
    }
    if (*n > before) {
        (*v)[*n - 1].died = 1;
        if (grammar && !*grammar)
            *grammar = "bracket";
    }
    return 0;
}
