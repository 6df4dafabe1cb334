/*
 * junit_cases — JUnit test cases, listed and found; see junit_cases.h.
 */
#define _GNU_SOURCE
#include "junit_cases.h"

#include "fw_util.h"
#include "wh_common.h"

#include <stdlib.h>
#include <string.h>

/* ---- the xml-level walk the presets share (fw_util.h) ---- */

char *wh_fwu_first_line(const char *s)
{
    const char *p = s ? s : "";
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (*p != '\n')
            break;
        p++;
    }
    size_t n = strcspn(p, "\r\n");
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    return strndup(p, n);
}

static int s_joined_eq(const char *test, const char *a, const char *sep, const char *b)
{
    size_t la = strlen(a), ls = strlen(sep);
    return la && strncmp(test, a, la) == 0 && strncmp(test + la, sep, ls) == 0 &&
           strcmp(test + la + ls, b) == 0;
}

/* name == test, or classname.name, classname::name, suite.name. */
static int s_case_matches(xmlNodePtr tc, const char *suite, const char *test)
{
    char *name = wh_fwu_prop(tc, "name");
    if (!name)
        return 0;
    int m = strcmp(name, test) == 0;
    if (!m) {
        char *cls = wh_fwu_prop(tc, "classname");
        if (cls)
            m = s_joined_eq(test, cls, ".", name) || s_joined_eq(test, cls, "::", name);
        free(cls);
    }
    if (!m && suite)
        m = s_joined_eq(test, suite, ".", name);
    free(name);
    return m;
}

static xmlNodePtr s_find(xmlNodePtr n, const char *suite, const char *test)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (wh_fwu_is_elem(n, "testcase")) {
            if (s_case_matches(n, suite, test))
                return n;
            continue;
        }
        char *sname = wh_fwu_is_elem(n, "testsuite") ? wh_fwu_prop(n, "name") : NULL;
        xmlNodePtr hit = s_find(n->children, sname ? sname : suite, test);
        free(sname);
        if (hit)
            return hit;
    }
    return NULL;
}

xmlNodePtr wh_fwu_junit_find(xmlNodePtr n, const char *test)
{
    return test ? s_find(n, NULL, test) : NULL;
}

int wh_fwu_junit_status(xmlNodePtr tc, xmlNodePtr *fail)
{
    *fail = NULL;
    int skipped = 0;
    for (xmlNodePtr c = tc->children; c; c = c->next) {
        if (wh_fwu_is_elem(c, "failure") || wh_fwu_is_elem(c, "error")) {
            *fail = c;
            return wh_fwu_is_elem(c, "error") ? WH_JC_ERROR : WH_JC_FAILED;
        }
        if (wh_fwu_is_elem(c, "skipped"))
            skipped = 1;
    }
    char *status = wh_fwu_prop(tc, "status");
    char *result = wh_fwu_prop(tc, "result");
    if (status && (strcmp(status, "notrun") == 0 || strcmp(status, "disabled") == 0))
        skipped = 1;
    if (result && (strcmp(result, "skipped") == 0 || strcmp(result, "suppressed") == 0))
        skipped = 1;
    free(status);
    free(result);
    return skipped ? WH_JC_SKIPPED : WH_JC_PASSED;
}

/* ---- the list ---- */

typedef struct {
    wh_junit_case_t *v;
    size_t n, cap;
    int oom;
} s_list_t;

static char *s_prop_or_empty(xmlNodePtr n, const char *name)
{
    char *v = wh_fwu_prop(n, name);
    return v ? v : strdup("");
}

/* The message of a <failure>/<error>: its message attribute, else the first
 * line of its text. */
static char *s_fail_message(xmlNodePtr fail)
{
    char *msg = wh_fwu_prop(fail, "message");
    if (msg && *msg)
        return msg;
    free(msg);
    char *text = wh_fwu_xstr(xmlNodeGetContent(fail));
    msg = wh_fwu_first_line(text);
    free(text);
    return msg;
}

static void s_add(s_list_t *l, xmlNodePtr tc, const char *suite)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        wh_junit_case_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = 1;
            return;
        }
        l->v = v, l->cap = cap;
    }
    wh_junit_case_t *c = &l->v[l->n++];
    xmlNodePtr fail = NULL;
    c->status = (wh_jc_status_t)wh_fwu_junit_status(tc, &fail);
    c->name = s_prop_or_empty(tc, "name");
    c->classname = s_prop_or_empty(tc, "classname");
    c->suite = strdup(suite ? suite : "");
    c->file = s_prop_or_empty(tc, "file");
    c->message = fail ? s_fail_message(fail) : strdup("");
    xmlNodePtr out = wh_fwu_child(tc, "system-out");
    c->output = out ? wh_fwu_xstr(xmlNodeGetContent(out)) : NULL;
    if (!c->output)
        c->output = strdup("");
    if (!c->name || !c->classname || !c->suite || !c->file || !c->message || !c->output)
        l->oom = 1;
}

static void s_walk(s_list_t *l, xmlNodePtr n, const char *suite)
{
    for (; n && !l->oom; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (wh_fwu_is_elem(n, "testcase")) {
            s_add(l, n, suite);
            continue;
        }
        char *sname = wh_fwu_is_elem(n, "testsuite") ? wh_fwu_prop(n, "name") : NULL;
        s_walk(l, n->children, sname ? sname : suite);
        free(sname);
    }
}

int wh_junit_cases_read(const char *path, wh_junit_case_t **cases, size_t *n, char **err)
{
    *cases = NULL;
    *n = 0;
    *err = NULL;
    xmlDocPtr doc = NULL;
    int rc = wh_fwu_load(path, &doc, err);
    if (rc)
        return rc; /* *err names the path */
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!wh_fwu_is_elem(root, "testsuites") && !wh_fwu_is_elem(root, "testsuite")) {
        *err = wh_strdup_printf("'%s' is not a JUnit report (its root is <%s>, not "
                                "<testsuites> or <testsuite>)", path, (const char *)root->name);
        xmlFreeDoc(doc);
        return WH_EPARSE;
    }
    s_list_t l = {0};
    s_walk(&l, root, NULL);
    xmlFreeDoc(doc);
    if (l.oom) {
        wh_junit_cases_free(l.v, l.n);
        *err = strdup("out of memory");
        return WH_ENOMEM;
    }
    *cases = l.v;
    *n = l.n;
    return 0;
}

void wh_junit_cases_free(wh_junit_case_t *cases, size_t n)
{
    for (size_t i = 0; cases && i < n; i++) {
        free(cases[i].name), free(cases[i].classname), free(cases[i].suite);
        free(cases[i].file), free(cases[i].message), free(cases[i].output);
    }
    free(cases);
}

const char *wh_jc_status_name(wh_jc_status_t s)
{
    static const char *const names[] = {"passed", "failed", "error", "skipped"};
    return (unsigned)s < 4 ? names[s] : "?";
}

int wh_jc_failing(wh_jc_status_t s)
{
    return s == WH_JC_FAILED || s == WH_JC_ERROR;
}
