/*
 * cli_suggest — the option or command a mistyped name most likely meant
 * ("did you mean --project?"). See cli.h.
 */
#include "cli.h"

#include <string.h>

/* Levenshtein distance of a and b, capped: returns cap + 1 past cap. */
static size_t s_distance(const char *a, const char *b, size_t cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return cap + 1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t v = diag + (a[i - 1] != b[j - 1]);
            v = v < up + 1 ? v : up + 1;
            v = v < row[j - 1] + 1 ? v : row[j - 1] + 1;
            row[j] = v;
            diag = up;
            best = v < best ? v : best;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb];
}

const char *wh_cli_suggest(const char *typed, const char *const *names, size_t n)
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
