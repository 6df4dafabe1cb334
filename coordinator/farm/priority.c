/* The order of a night's groups and the history of root causes (priority.h). */
#define _GNU_SOURCE
#include "priority.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "wh_common.h"

/* A history file's size cap (keys are a line each, at most WH_SEEN_MAX). */
#define S_FILE_MAX (16u << 20)

void wh_seen_clear(wh_seen_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].key);
        free(s->v[i].first_seen);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

const char *wh_seen_get(const wh_seen_t *s, const char *key)
{
    for (size_t i = 0; key && i < s->n; i++)
        if (!strcmp(s->v[i].key, key))
            return s->v[i].first_seen;
    return NULL;
}

/* Appends key at date, whether or not it is there already. */
static int s_append(wh_seen_t *s, const char *key, const char *date)
{
    if (s->n >= WH_SEEN_MAX)
        return WH_ETOOBIG;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        wh_seen_entry_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return WH_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    wh_seen_entry_t e = {strdup(key), strdup(date)};
    if (!e.key || !e.first_seen) {
        free(e.key);
        free(e.first_seen);
        return WH_ENOMEM;
    }
    s->v[s->n++] = e;
    return 0;
}

int wh_seen_add(wh_seen_t *s, const char *key, const char *date)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i].key, key))
            continue;
        if (strcmp(date, s->v[i].first_seen) < 0) { /* seen earlier than thought */
            char *d = strdup(date);
            if (!d)
                return WH_ENOMEM;
            free(s->v[i].first_seen);
            s->v[i].first_seen = d;
        }
        return 0;
    }
    return s_append(s, key, date);
}

/* By key, then date: the earliest date of a key first. */
static int s_cmp_entry(const void *a, const void *b)
{
    const wh_seen_entry_t *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->first_seen, y->first_seen);
}

/* Sorts s by key and keeps each key once, with its earliest date. */
static void s_dedup(wh_seen_t *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, s_cmp_entry);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (w && !strcmp(s->v[w - 1].key, s->v[i].key)) {
            free(s->v[i].key);
            free(s->v[i].first_seen);
            continue;
        }
        s->v[w++] = s->v[i];
    }
    s->n = w;
}

/* "YYYY-MM-DDTHH:MM:SSZ": the only form written, so the only one read
 * (dates compare as text). */
static int s_date_ok(const char *d)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
    if (!d || strlen(d) != sizeof pat - 1)
        return 0;
    for (size_t i = 0; pat[i]; i++)
        if (pat[i] == 'd' ? d[i] < '0' || d[i] > '9' : d[i] != pat[i])
            return 0;
    return 1;
}

static int s_bad(wh_seen_t *s, char **err, char *why)
{
    wh_seen_clear(s);
    *err = why;
    return WH_EINVAL;
}

int wh_seen_parse(const char *text, wh_seen_t *s, char **err)
{
    wh_seen_clear(s);
    json_error_t je;
    json_t *o = json_loads(text ? text : "", 0, &je);
    if (!o)
        return s_bad(s, err, wh_strdup_printf("not JSON (line %d: %s)", je.line, je.text));
    int rc = 0;
    json_t *seen = json_object_get(o, "seen");
    if (!json_is_object(o) || json_integer_value(json_object_get(o, "version")) != 1)
        rc = s_bad(s, err, strdup("not a history of version 1"));
    else if (!json_is_array(seen))
        rc = s_bad(s, err, strdup("its \"seen\" is not an array"));
    else if (json_array_size(seen) > WH_SEEN_MAX)
        rc = s_bad(s, err, wh_strdup_printf("more than %d keys", WH_SEEN_MAX));
    for (size_t i = 0; !rc && i < json_array_size(seen); i++) {
        json_t *e = json_array_get(seen, i);
        const char *k = json_string_value(json_object_get(e, "key"));
        const char *d = json_string_value(json_object_get(e, "first_seen"));
        if (!k || !*k || !s_date_ok(d))
            rc = s_bad(s, err, wh_strdup_printf("entry %zu has no key or no date like "
                                                "2026-12-08T00:50:12Z", i + 1));
        else if ((rc = s_append(s, k, d)) != 0)
            rc = s_bad(s, err, strdup(wh_strerror(rc)));
    }
    json_decref(o);
    if (!rc)
        s_dedup(s); /* a key written twice: its earliest date */
    return rc;
}

static int s_cmp_key(const void *a, const void *b)
{
    return strcmp(((const wh_seen_entry_t *)a)->key, ((const wh_seen_entry_t *)b)->key);
}

char *wh_seen_format(const wh_seen_t *s)
{
    wh_seen_entry_t *v = malloc((s->n ? s->n : 1) * sizeof *v);
    json_t *o = json_object(), *a = json_array();
    char *text = NULL;
    if (v && o && a) {
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        qsort(v, s->n, sizeof *v, s_cmp_key);
        for (size_t i = 0; i < s->n; i++) {
            json_t *e = json_object();
            json_object_set_new(e, "key", json_string(v[i].key));
            json_object_set_new(e, "first_seen", json_string(v[i].first_seen));
            json_array_append_new(a, e);
        }
        json_object_set_new(o, "version", json_integer(1));
        json_object_set(o, "seen", a);
        text = json_dumps(o, JSON_INDENT(2));
    }
    json_decref(a);
    json_decref(o);
    free(v);
    return text;
}

void wh_seen_now(char buf[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int wh_seen_load(const char *dir, wh_seen_t *s, char **warn)
{
    wh_seen_clear(s);
    char *p = wh_path_join(dir, WH_SEEN_FILE), *text = NULL, *why = NULL;
    size_t len = 0;
    if (!p)
        return WH_ENOMEM;
    int rc = wh_read_file(p, S_FILE_MAX, &text, &len);
    if (rc == -ENOENT) {
        rc = 0; /* the first night under this folder */
    } else if (rc) {
        *warn = wh_strdup_printf("cannot read %s: %s", p, wh_strerror(rc));
    } else if (strlen(text) != len || wh_seen_parse(text, s, &why)) {
        *warn = wh_strdup_printf("%s is not a history of earlier nights (%s): every failure "
                                 "counts as new", p, why ? why : "a NUL byte in it");
        rc = 1;
    }
    free(why);
    free(text);
    free(p);
    return rc;
}

int wh_seen_save(const char *dir, const wh_seen_t *s)
{
    wh_seen_t all = {0};
    char *warn = NULL;
    int rc = wh_seen_load(dir, &all, &warn);
    free(warn);
    if (rc == 1) { /* not a history: kept for a person to look at */
        char *p = wh_path_join(dir, WH_SEEN_FILE), *q = wh_path_join(dir, WH_SEEN_FILE ".corrupt");
        rc = p && q && rename(p, q) ? -errno : p && q ? 0 : WH_ENOMEM;
        free(p);
        free(q);
    }
    for (size_t i = 0; rc >= 0 && i < s->n; i++)
        rc = wh_seen_add(&all, s->v[i].key, s->v[i].first_seen);
    char *text = rc >= 0 ? wh_seen_format(&all) : NULL;
    char *p = wh_path_join(dir, WH_SEEN_FILE);
    if (rc >= 0)
        rc = text && p ? wh_write_file(p, text, strlen(text)) : WH_ENOMEM;
    free(text);
    free(p);
    wh_seen_clear(&all);
    return rc < 0 ? rc : 0;
}

/* 1 when item a goes before item b. */
static int s_before(const wh_prio_item_t *a, const wh_prio_item_t *b)
{
    if (a->members != b->members)
        return a->members > b->members;
    if (!a->first_seen != !b->first_seen)
        return !a->first_seen; /* new before seen */
    if (a->first_seen) {
        int c = strcmp(a->first_seen, b->first_seen);
        if (c)
            return c > 0; /* the more recently first seen */
    }
    unsigned sa = a->size < 0 ? ~0u : (unsigned)a->size, sb = b->size < 0 ? ~0u : (unsigned)b->size;
    return sa < sb;
}

void wh_prio_order(const wh_prio_item_t *items, size_t n, size_t *order)
{
    /* insertion sort: stable, and a night has few groups */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && s_before(&items[i], &items[order[j - 1]])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}
