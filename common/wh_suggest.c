/*
 * wh_suggest — the name a mistyped one most likely meant: an option or a
 * command ("did you mean --project?"), a test name, a whittle.json field.
 * See wh_common.h.
 */
#include "wh_common.h"

#include <string.h>

/* Edit distance of a and b counting a swap of two neighbours as one edit
 * (optimal string alignment: "tset" is one edit from "test", as a typist
 * makes it), capped: returns cap + 1 past cap. */
static size_t s_distance(const char *a, const char *b, size_t cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 128 || lb > 128)
        return cap + 1;
    size_t rows[3][129], *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= lb; j++)
        p[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t best = c[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t v = p[j - 1] + (a[i - 1] != b[j - 1]);
            v = v < p[j] + 1 ? v : p[j] + 1;
            v = v < c[j - 1] + 1 ? v : c[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = v < pp[j - 2] + 1 ? v : pp[j - 2] + 1;
            c[j] = v;
            best = v < best ? v : best;
        }
        if (best > cap)
            return cap + 1;
        size_t *t = pp;
        pp = p, p = c, c = t;
    }
    return p[lb];
}

const char *wh_suggest(const char *typed, const char *const *names, size_t n)
{
    size_t len = strlen(typed), cap = len < 4 ? 0 : len < 7 ? 1 : 2;
    const char *best = NULL;
    size_t best_d = cap + 1;
    for (size_t i = 0; i < n; i++) {
        if (len >= 3 && !strncmp(names[i], typed, len))
            return names[i]; /* an abbreviation: the first name it starts */
        size_t d = s_distance(typed, names[i], cap);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}
