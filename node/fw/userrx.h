/*
 * userrx — the regular expressions users give whittle (--failure-regex,
 * --pass-regex, --message-continuation), compiled with PCRE2 as users write
 * them: Perl syntax (\d \s \w \b, lookarounds, lazy quantifiers, (?:…)),
 * named groups (?<name>…) / (?P<name>…) / (?'name'…), and POSIX bracket
 * classes ([[:digit:]]).
 *
 * Two ways to apply one:
 *   line by line (the default): each line of the output, without its "\n"
 *     (and a "\r" before it), is a subject of its own, so nothing crosses a
 *     line and ^ $ anchor at each line;
 *   whole output: a pattern that sets (?s) or (?m) itself (at its start or
 *     in a group, "(?s)", "(?ms)", "(?s:…)") is matched against the whole
 *     output with Perl's meaning of those flags, so a message may span
 *     lines: "(?s)FAIL (?<test>\w+)\n(?<message>.*?)\n\n".
 * Matching is bytewise (no UTF mode: test output is not always UTF-8), and
 * bounded: a pattern that backtracks catastrophically stops with an error
 * instead of hanging the slot.
 *
 * A compiled regex is read-only: any thread may match with it.
 */
#ifndef WH_USERRX_H
#define WH_USERRX_H

#include <stddef.h>

typedef struct wh_urx wh_urx_t;

/* Compiles src. what names the option in errors ("--failure-regex"). NULL
 * with *err (when err is not NULL) one line: "bad --failure-regex 'RE':
 * <PCRE2's message> at offset N"; or "out of memory". */
wh_urx_t *wh_urx_new(const char *src, const char *what, char **err);
void wh_urx_destroy(wh_urx_t **rx);

/* 1 when rx is applied to the whole output, 0 when line by line. */
int wh_urx_whole(const wh_urx_t *rx);

/* One match, as wh_urx_each hands it to its callback; valid only there. */
typedef struct {
    const char *text; /* the whole text searched */
    size_t so, eo;    /* the match: offsets into text */
    const wh_urx_t *rx;
    void *md;         /* PCRE2's match data */
    size_t base;      /* offset of the subject (the line) in text */
} wh_urx_match_t;

/* Calls fn for every match of rx in text[0, len), in order, until fn
 * returns nonzero; returns that value, 0 when fn never stopped it,
 * WH_ENOMEM, or WH_EPARSE when PCRE2 gave up (match or depth limit).
 * NUL bytes in text are ordinary characters. At most 100000 matches are
 * looked at. */
typedef int (*wh_urx_fn)(void *arg, const wh_urx_match_t *m);
int wh_urx_each(const wh_urx_t *rx, const char *text, size_t len, wh_urx_fn fn, void *arg);

/* The text of the group called name in m, malloc'ed; NULL when the regex
 * has no such group, it took no part in the match, or memory ran out. */
char *wh_urx_group(const wh_urx_match_t *m, const char *name);

/* 1 when rx matches somewhere in s[0, n) (one subject, whatever the mode),
 * 0 when not, negative as wh_urx_each. */
int wh_urx_test(const wh_urx_t *rx, const char *s, size_t n);

#endif
