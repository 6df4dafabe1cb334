/*
 * fw_util — helpers shared by the framework presets' report readers; see
 * fw_util.h.
 */
#define _GNU_SOURCE
#include "fw_util.h"

#include "wh_common.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

/* ---- locations ---- */

static int s_is_path_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '/' || c == '-' ||
           c == '+' || c == '\\' || c == '~';
}

static int s_is_source_ext(const char *ext, size_t n)
{
    static const char *const exts[] = {"c",   "cc",  "cpp", "cxx", "c++", "C",   "h",
                                       "hh",  "hpp", "hxx", "h++", "ipp", "tpp", "inl",
                                       "inc", "m",   "mm",  "cu",  NULL};
    for (const char *const *e = exts; *e; e++)
        if (strlen(*e) == n && memcmp(*e, ext, n) == 0)
            return 1;
    return 0;
}

int wh_fwu_find_location(const char *s, size_t n, size_t *start, size_t *end, char **loc)
{
    for (size_t i = 1; i + 1 < n; i++) {
        if (s[i] != ':' || !isdigit((unsigned char)s[i + 1]))
            continue;
        size_t j = i;
        while (j > 0 && s_is_path_char(s[j - 1]))
            j--;
        if (j == i)
            continue;
        size_t base = j;
        for (size_t k = j; k < i; k++)
            if (s[k] == '/' || s[k] == '\\')
                base = k + 1;
        size_t dot = 0;
        for (size_t k = base; k < i; k++)
            if (s[k] == '.')
                dot = k;
        if (!dot || dot == base || !s_is_source_ext(s + dot + 1, i - dot - 1))
            continue;
        size_t e = i + 1;
        while (e < n && isdigit((unsigned char)s[e]) && e - i < 10)
            e++;
        if (loc) {
            *loc = wh_strdup_printf("%.*s:%.*s", (int)(i - base), s + base, (int)(e - i - 1),
                                    s + i + 1);
            if (!*loc)
                return -1;
        }
        if (start)
            *start = j;
        if (end)
            *end = e;
        return 1;
    }
    return 0;
}

/* ---- XML ---- */

char *wh_fwu_xstr(xmlChar *x)
{
    /* libxml2 strings are malloc'ed by xmlMalloc (malloc by default); copy
     * so that callers free with free(). */
    char *s = x ? strdup((const char *)x) : NULL;
    xmlFree(x);
    return s;
}

char *wh_fwu_prop(xmlNodePtr n, const char *name)
{
    return wh_fwu_xstr(xmlGetProp(n, (const xmlChar *)name));
}

/* Local name comparison: Check's log puts its elements in a namespace. */
int wh_fwu_is_elem(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

xmlNodePtr wh_fwu_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (wh_fwu_is_elem(c, name))
            return c;
    return NULL;
}

static pthread_once_t s_xml_once = PTHREAD_ONCE_INIT;

static void s_xml_init(void)
{
    xmlInitParser();
}

int wh_fwu_load(const char *path, xmlDocPtr *doc, char **err)
{
    *doc = NULL;
    if (!path || !*path) {
        if (err)
            *err = strdup("no report path");
        return WH_EREPORT;
    }
    char *buf = NULL;
    size_t len = 0;
    int rc = wh_read_file(path, WH_FWU_REPORT_CAP, &buf, &len);
    if (rc == WH_ETOOBIG) {
        if (err)
            *err = wh_strdup_printf("report '%s' exceeds %zu bytes", path, WH_FWU_REPORT_CAP);
        return WH_EPARSE;
    }
    if (rc) {
        if (err)
            *err = wh_strdup_printf("no report at '%s': %s", path, wh_strerror(rc));
        return WH_EREPORT;
    }
    if (len == 0) {
        /* Created but never written: the test process died first. */
        free(buf);
        if (err)
            *err = wh_strdup_printf("empty report at '%s'", path);
        return WH_EREPORT;
    }
    pthread_once(&s_xml_once, s_xml_init);
    /* No entity substitution, no DTD loading (CUnit's report names one), no
     * network: a report is untrusted input. */
    *doc = xmlReadMemory(buf, (int)len, path, NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    free(buf);
    if (!*doc || !xmlDocGetRootElement(*doc)) {
        if (err) {
            const xmlError *e = xmlGetLastError();
            char *msg = e && e->message ? strndup(e->message, strcspn(e->message, "\n")) : NULL;
            *err = wh_strdup_printf("malformed report '%s': line %d: %s", path, e ? e->line : 0,
                                    msg ? msg : "parse error");
            free(msg);
        }
        xmlResetLastError();
        if (*doc)
            xmlFreeDoc(*doc);
        *doc = NULL;
        return WH_EPARSE;
    }
    return 0;
}

/* ---- results ---- */

void wh_fwu_clean_line(const char *l, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        if (l[i] == '\033' && i + 1 < n && l[i + 1] == '[') {
            i += 2;
            while (i < n && !isalpha((unsigned char)l[i]))
                i++;
            continue;
        }
        if (l[i] != '\r')
            out[k++] = l[i];
    }
    out[k] = '\0';
}
