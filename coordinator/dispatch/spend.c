/* A job's budget: parsing and the spent test (spend.h). */
#include "spend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wh_common.h"

#define S_MAX_BUILDS 1000000
#define S_MAX_MS (30ull * 24 * 3600 * 1000)

int wh_spend_duration(const char *s, uint64_t *ms)
{
    if (!s || !*s)
        return -1;
    uint64_t total = 0;
    const char *p = s;
    int parts = 0;
    while (*p) {
        if (*p < '0' || *p > '9')
            return -1;
        errno = 0;
        char *end = NULL;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || end == p || v > S_MAX_MS / 1000)
            return -1;
        uint64_t unit = 1000;
        if (*end == 'd')
            unit = 24ull * 3600 * 1000;
        else if (*end == 'h')
            unit = 3600ull * 1000;
        else if (*end == 'm')
            unit = 60ull * 1000;
        else if (*end == 's' || *end == '\0')
            unit = 1000;
        else
            return -1;
        if (*end == '\0' && parts > 0)
            return -1; /* "1h30": a bare number only on its own */
        total += (uint64_t)v * unit;
        if (total > S_MAX_MS)
            return -1;
        p = *end ? end + 1 : end;
        parts++;
    }
    if (total == 0)
        return -1;
    *ms = total;
    return 0;
}

static int s_bad(char **err, const char *opt, const char *arg, const char *why)
{
    *err = wh_strdup_printf("%s '%s': %s", opt, arg, why);
    return WH_EINVAL;
}

int wh_spend_parse(const char *arg, wh_spend_t *b, char **err)
{
    return wh_spend_parse_opt("--budget", arg, b, err);
}

int wh_spend_parse_opt(const char *opt, const char *arg, wh_spend_t *b, char **err)
{
    static const char *const what =
        "want builds=N (1 to 1000000) or time=DURATION (90s, 30m, 2h, 1h30m; at most 30d), "
        "or both joined by a comma";
    if (!arg || !*arg)
        return s_bad(err, opt, arg ? arg : "", what);
    char *copy = strdup(arg);
    if (!copy)
        return WH_ENOMEM;
    int rc = 0;
    for (char *part = copy, *next; part && !rc; part = next) {
        /* every comma separates two parts: "builds=3," is refused */
        next = strchr(part, ',');
        if (next)
            *next++ = '\0';
        if (!strncmp(part, "builds=", 7)) {
            long n = 0;
            if (wh_parse_long(part + 7, 1, S_MAX_BUILDS, &n))
                rc = s_bad(err, opt, arg, what);
            else
                b->builds = (int)n;
        } else if (!strncmp(part, "time=", 5)) {
            uint64_t ms = 0;
            if (wh_spend_duration(part + 5, &ms) < 0)
                rc = s_bad(err, opt, arg, what);
            else
                b->ms = ms;
        } else {
            rc = s_bad(err, opt, arg, what);
        }
    }
    free(copy);
    return rc;
}

static void s_duration(uint64_t ms, char *buf, size_t n)
{
    uint64_t s = ms / 1000;
    if (s % 3600 == 0)
        snprintf(buf, n, "%lluh", (unsigned long long)(s / 3600));
    else if (s % 60 == 0)
        snprintf(buf, n, "%llum", (unsigned long long)(s / 60));
    else
        snprintf(buf, n, "%llus", (unsigned long long)s);
}

void wh_spend_format(const wh_spend_t *b, char *buf, size_t n)
{
    char t[32] = "";
    if (b->ms)
        s_duration(b->ms, t, sizeof t);
    if (b->builds && b->ms)
        snprintf(buf, n, "builds=%d,time=%s", b->builds, t);
    else if (b->builds)
        snprintf(buf, n, "builds=%d", b->builds);
    else if (b->ms)
        snprintf(buf, n, "time=%s", t);
    else if (n)
        buf[0] = '\0';
}

/* The budget b spent? what: "" or "batch budget " before the limit;
 * whose: "the walk" or "the batch". */
static int s_over(const wh_spend_t *b, int builds, uint64_t elapsed_ms, const char *what,
                  const char *whose, char *buf, size_t n)
{
    if (b->builds && builds >= b->builds) {
        snprintf(buf, n, "%sbuilds=%d spent: %d build%s of %s", what, b->builds, builds,
                 builds == 1 ? "" : "s", whose);
        return 1;
    }
    if (b->ms && elapsed_ms >= b->ms) {
        char t[32];
        s_duration(b->ms, t, sizeof t);
        snprintf(buf, n, "%stime=%s spent: %.1f s, %d build%s of %s", what, t,
                 (double)elapsed_ms / 1000.0, builds, builds == 1 ? "" : "s", whose);
        return 1;
    }
    return 0;
}

int wh_spend_over(const wh_spend_t *b, int builds, uint64_t elapsed_ms, char *buf, size_t n)
{
    return s_over(b, builds, elapsed_ms, "", "the walk", buf, n);
}

int wh_spend_batch_over(const wh_spend_t *b, int builds, uint64_t elapsed_ms, char *buf,
                        size_t n)
{
    return s_over(b, builds, elapsed_ms, "batch budget ", "the batch", buf, n);
}
