/*
 * foreign — is the original failure another test's? See foreign.h.
 */
#define _GNU_SOURCE
#include "foreign.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *s_base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The line of fp's location when it is in the job's test file, else 0. */
static unsigned long s_fp_line(const wh_job_t *j, const wh_fp_t *fp)
{
    const char *loc = fp ? fp->location : NULL;
    if (!loc || !*loc)
        return 0;
    const char *num = NULL;
    if (strncmp(loc, "line ", 5) == 0) {
        num = loc + 5;
    } else {
        const char *colon = strrchr(loc, ':');
        const char *base = s_base(j->file ? j->file : "");
        if (!colon || strlen(base) != (size_t)(colon - loc) || strncmp(loc, base, strlen(base)))
            return 0;
        num = colon + 1;
    }
    char *end = NULL;
    unsigned long n = strtoul(num, &end, 10);
    return end != num && !*end ? n : 0;
}

/* Skips a comment, string, char literal or preprocessor line starting at
 * text[i]; the index after it, or i when there is none. */
static size_t s_skip(const char *t, size_t len, size_t i, int line_start)
{
    if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
        while (i < len && t[i] != '\n')
            i++;
        return i;
    }
    if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
        const char *e = memmem(t + i + 2, len - i - 2, "*/", 2);
        return e ? (size_t)(e - t) + 2 : len;
    }
    if (t[i] == '"' || t[i] == '\'') {
        char q = t[i++];
        while (i < len && t[i] != q && t[i] != '\n')
            i += t[i] == '\\' ? 2 : 1;
        return i < len ? i + 1 : len;
    }
    if (t[i] == '#' && line_start) {
        while (i < len && !(t[i] == '\n' && t[i - 1] != '\\'))
            i++;
        return i;
    }
    return i;
}

/* Whether the top-level braces opening at t[open] (the head starting at
 * t[head]) define a test: the identifier before the head's first '('
 * contains "test" in any case (test_x, TEST, START_TEST, Test). */
static int s_is_test_head(const char *t, size_t head, size_t open)
{
    const char *p = memchr(t + head, '(', open - head);
    if (!p)
        return 0;
    const char *e = p;
    while (e > t + head && isspace((unsigned char)e[-1]))
        e--;
    const char *s = e;
    while (s > t + head && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
        s--;
    char name[128];
    size_t n = (size_t)(e - s) < sizeof name - 1 ? (size_t)(e - s) : sizeof name - 1;
    memcpy(name, s, n);
    name[n] = '\0';
    return strcasestr(name, "test") != NULL;
}

/* The offset of the '{' of the top-level braces around offset at, or
 * (size_t)-1; *test says whether they define a test. */
static size_t s_block_of(const char *t, size_t len, size_t at, int *test)
{
    size_t head = 0, open = 0;
    int depth = 0, line_start = 1;
    for (size_t i = 0; i < len;) {
        size_t k = s_skip(t, len, i, line_start);
        if (k != i) {
            i = k;
            continue;
        }
        char c = t[i];
        if (c == '{' && depth++ == 0)
            open = i;
        else if (c == '}' && depth > 0 && --depth == 0) {
            if (at > open && at < i) {
                *test = s_is_test_head(t, head, open);
                return open;
            }
            head = i + 1;
        } else if (c == ';' && depth == 0)
            head = i + 1;
        if (!isspace((unsigned char)c))
            line_start = 0;
        else if (c == '\n')
            line_start = 1;
        i++;
    }
    return (size_t)-1;
}

char *wh_foreign_refusal(const wh_job_t *j, const wh_fp_t *fp, const char *text, size_t len,
                         size_t body_begin)
{
    if (!j || !text || !j->framework || strcmp(j->framework, "console") != 0 ||
        !j->failure_regex || strstr(j->failure_regex, "<test>") ||
        strstr(j->failure_regex, "'test'"))
        return NULL;
    unsigned long line = s_fp_line(j, fp);
    if (!line)
        return NULL;
    size_t at = 0;
    for (unsigned long l = 1; l < line && at < len; at++)
        if (text[at] == '\n')
            l++;
    if (at >= len)
        return NULL;
    int test = 0;
    size_t open = s_block_of(text, len, at, &test);
    if (open == (size_t)-1 || open == body_begin || !test)
        return NULL;
    return wh_strdup_printf(
        "the failure the original run shows (%s: %s) is at line %lu of %s, inside another test "
        "than %s: --failure-regex has no (?<test>...) group, so its first match names the "
        "target; make the regex match only %s's failure, add a test group, or make --run run %s "
        "alone",
        fp->location, fp->message ? fp->message : "", line, j->file, j->test, j->test, j->test);
}
