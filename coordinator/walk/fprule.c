/*
 * fprule — the fingerprint-location rule (see fprule.h).
 */
#define _GNU_SOURCE
#include "fprule.h"

#include <stdlib.h>
#include <string.h>

#include "prior.h"

int wh_fprule_line(const wh_tree_t *t, const char *location, int match_full)
{
    /* wh_prior_seed finds the statement of the test body on the
     * location's line of the test file (and says no for other files). */
    if (!match_full || !t || !location || strncmp(location, "line ", 5) == 0 ||
        wh_prior_seed(t, location) < 0)
        return 0;
    const char *colon = strrchr(location, ':');
    long line = colon ? strtol(colon + 1, NULL, 10) : 0;
    return line > 0 && line < 1L << 30 ? (int)line : 0;
}

int wh_fprule_blank(const char *text, size_t len, int line)
{
    if (line < 1)
        return 0;
    size_t p = 0;
    for (int l = 1; l < line && p < len; p++)
        if (text[p] == '\n')
            l++;
    if (p >= len)
        return 0; /* no such line: the rule says nothing */
    for (; p < len && text[p] != '\n'; p++) {
        if (text[p] == ' ' || text[p] == '\t' || text[p] == '\r' || text[p] == '\f' ||
            text[p] == '\v')
            continue;
        return p + 1 < len && text[p] == '/' && text[p + 1] == '/';
    }
    return 1;
}

/* 1 when unit u, or a unit around it, is removed (rendering's rule). */
static int s_gone(const wh_tree_t *t, const uint8_t *removed, int u)
{
    for (int steps = 0; u >= 0 && u < t->n && steps <= t->n; steps++) {
        if (removed[u])
            return 1;
        u = t->units[u].parent;
    }
    return 0;
}

int wh_fprule_removes(const wh_tree_t *t, const uint8_t *removed, int line)
{
    /* What wh_fprule_blank says of the rendered text, without rendering
     * it (this runs for every Preserved candidate of a round at every
     * verdict): each byte of the line that is code must lie in a removed
     * unit, which rendering blanks. The units are read once, keeping the
     * removed ones that overlap the line (a byte of the line can lie only
     * in those): a pass over every unit for each byte of the line cost
     * more than the precheck at 5000 statements (issue 36). */
    if (line < 1 || !t || !removed)
        return 0;
    /* The line's start, counted from the last unit that begins on it or
     * before it (units know their line), not from the file's first byte:
     * the failing line is usually near the end of the file. */
    size_t p = 0;
    int l = 1;
    for (int u = 0; u < t->n; u++) {
        const wh_unit_t *un = &t->units[u];
        if ((int)un->line <= line && (int)un->line > l && un->begin < t->text_len) {
            l = (int)un->line;
            p = un->begin;
        }
    }
    while (p > 0 && l > 1 && t->text[p - 1] != '\n')
        p--;
    for (; l < line && p < t->text_len; p++)
        if (t->text[p] == '\n')
            l++;
    if (p >= t->text_len)
        return 0;
    size_t end = p;
    while (end < t->text_len && t->text[end] != '\n')
        end++;
    enum { S_SPAN_MAX = 64 };
    size_t span[S_SPAN_MAX][2];
    int nspan = 0, many = 0;
    for (int u = 0; u < t->n; u++) {
        const wh_unit_t *un = &t->units[u];
        if (un->begin < end && un->end > p && s_gone(t, removed, u)) {
            if (nspan == S_SPAN_MAX) {
                many = 1;
                break;
            }
            span[nspan][0] = un->begin;
            span[nspan++][1] = un->end;
        }
    }
    for (; p < end; p++) {
        char ch = t->text[p];
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v')
            continue;
        int covered = 0;
        if (many) /* more removed units on one line than the list holds */
            for (int u = 0; u < t->n && !covered; u++)
                covered = t->units[u].begin <= p && p < t->units[u].end && s_gone(t, removed, u);
        for (int i = 0; i < nspan && !covered && !many; i++)
            covered = span[i][0] <= p && p < span[i][1];
        if (covered)
            continue;
        return p + 1 < t->text_len && ch == '/' && t->text[p + 1] == '/';
    }
    return 1;
}
