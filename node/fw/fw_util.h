/*
 * fw_util — what the report readers of the framework presets share
 * (framework.c, fw_xunit.c, fw_console.c, junit_cases.c): loading a report as XML under a
 * size cap, walking libxml2 elements, finding a "file.c:LINE" location in
 * text (starting or abandoning a result is framework.h's). Private to node/fw
 * ("fwu" = framework utilities); nothing outside node/fw includes it.
 *
 * Every function may be called from any thread: libxml2 is initialized once
 * (pthread_once) and each load parses its own document.
 */
#ifndef WH_FW_UTIL_H
#define WH_FW_UTIL_H

#include <stddef.h>

#include <libxml/tree.h>

/* Reports larger than this are refused (a runaway test writing megabytes of
 * output into system-out should not take the node down). */
#define WH_FWU_REPORT_CAP ((size_t)64 << 20)
/* Lines of a multi-line console message kept for the fingerprint. */
#define WH_FWU_MSG_MAX_LINES 20

/* l[0, n) into out (cap + 1 bytes) without ANSI escapes and '\r', cut at
 * cap bytes and NUL-terminated: a console line as its reader sees it. */
void wh_fwu_clean_line(const char *l, size_t n, char *out, size_t cap);

/* Finds the first "path/file.ext:LINE" in s[0, n), where ext is a C or C++
 * source or header extension. Returns 1 and sets [*start, *end) to the
 * token (path through the line digits) and *loc to a malloc'ed
 * "file.ext:LINE" (each only when not NULL); 0 when there is none; -1 when
 * allocating *loc failed (*start and *end are then untouched). */
int wh_fwu_find_location(const char *s, size_t n, size_t *start, size_t *end, char **loc);

/* A malloc'ed copy of the libxml2 string x (NULL stays NULL), which it
 * frees: callers free the result with free(), not xmlFree(). */
char *wh_fwu_xstr(xmlChar *x);

/* The attribute name of n, malloc'ed; NULL when n has none. */
char *wh_fwu_prop(xmlNodePtr n, const char *name);

/* 1 when n is an element with the local name name (namespaces ignored). */
int wh_fwu_is_elem(xmlNodePtr n, const char *name);

/* The first child element of n (may be NULL) called name, or NULL. */
xmlNodePtr wh_fwu_child(xmlNodePtr n, const char *name);

/* Reads the report at path (at most WH_FWU_REPORT_CAP bytes) into *doc,
 * which the caller frees with xmlFreeDoc. Entities, DTDs and the network
 * are never loaded: a report is untrusted input. Returns 0; WH_EREPORT when
 * there is no path, no file or an empty one (the test died before writing
 * it); WH_EPARSE when it is too big or malformed. On error *doc is NULL and
 * *err (when err is not NULL) a malloc'ed one-line reason. */
int wh_fwu_load(const char *path, xmlDocPtr *doc, char **err);


/* ---- JUnit test cases (junit_cases.c) ---- */

/* The first <testcase> (document order, any depth, from n and its
 * siblings) that names test: its name, classname + "." or "::" + name, or
 * its enclosing testsuite's name + "." + name. */
xmlNodePtr wh_fwu_junit_find(xmlNodePtr n, const char *test);

/* The status of a <testcase> (see junit_cases.h); *fail is its first
 * <failure> or <error>, else NULL. */
int wh_fwu_junit_status(xmlNodePtr tc, xmlNodePtr *fail);

/* The first non-empty line of s, trimmed; malloc'ed ("" when none). */
char *wh_fwu_first_line(const char *s);

#endif
