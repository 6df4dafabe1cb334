/*
 * progress — the status line, its ETA, and the one drawer on stdout.
 */
#define _GNU_SOURCE
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The live line is redrawn at most this often. */
#define S_TTY_MS 100

uint64_t wh_progress_eta_ms(int rounds_left, uint64_t median_ms)
{
    return rounds_left > 0 ? (uint64_t)rounds_left * median_ms : 0;
}

double wh_progress_waves(double b, int slots)
{
    double s = slots > 1 ? slots : 1;
    return b >= s ? b / s : b < 1 ? b : 1;
}

uint64_t wh_progress_eta(const wh_progress_plan_t *pl)
{
    if (!pl->median_ms)
        return 0;
    double built = pl->built < 0 ? 0 : pl->built > 1 ? 1 : pl->built;
    double waves = 0, none = 1;
    double q = pl->win_rate < 0 ? 0 : pl->win_rate > 1 ? 1 : pl->win_rate;
    for (int k = 0; k < pl->rounds; k++) {
        waves += wh_progress_waves(pl->cands[k] * built, pl->slots);
        none *= 1 - q;
    }
    if (pl->last_sweep < pl->rounds)
        none = 1; /* the plan holds the next sweep already */
    /* The sweep again: single-unit rounds of up to a window each. */
    double again = (1 - none) * pl->units_left * built;
    waves += again >= pl->slots ? again / (pl->slots > 1 ? pl->slots : 1) : again;
    double wave = (double)(pl->wave_ms ? pl->wave_ms : pl->median_ms);
    double ms = waves * wave - (double)pl->into_ms;
    return ms >= 1 ? (uint64_t)(ms + 0.5) : pl->rounds > 0;
}

void wh_progress_duration(uint64_t ms, char *out, size_t cap)
{
    uint64_t s = (ms + 500) / 1000;
    if (ms == 0)
        snprintf(out, cap, "?");
    else if (s < 60)
        snprintf(out, cap, "%llus", (unsigned long long)(s ? s : 1));
    else if (s < 3600)
        snprintf(out, cap, "%llum%02llus", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(out, cap, "%lluh%02llum", (unsigned long long)(s / 3600),
                 (unsigned long long)(s % 3600 / 60));
}

static int s_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t wh_progress_median(uint64_t *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, s_cmp_u64);
    return v[(n - 1) / 2];
}

void wh_progress_format(const wh_progress_t *p, wh_buf_t *b)
{
    if (p->phase) {
        wh_buf_printf(b, "%s | %d/%d units left | %d built, %d predicted, %d cached", p->phase,
                      p->units_left, p->units, p->built, p->predicted, p->cached);
        return;
    }
    char eta[32];
    uint64_t ms = p->eta_ms ? p->eta_ms : wh_progress_eta_ms(p->rounds_left, p->median_ms);
    if (p->rounds_left == 0 && p->median_ms)
        snprintf(eta, sizeof eta, "0s");
    else
        wh_progress_duration(ms, eta, sizeof eta);
    wh_buf_printf(b, "sweep %d level %d round %d | %d/%d units left | %d built, %d predicted, "
                  "%d cached | ETA %s", p->sweep, p->level, p->round, p->units_left, p->units,
                  p->built, p->predicted, p->cached, eta);
}

wh_progress_mode_t wh_progress_mode_auto(int quiet)
{
    return quiet ? WH_PROGRESS_QUIET : isatty(STDOUT_FILENO) ? WH_PROGRESS_TTY : WH_PROGRESS_PLAIN;
}

static struct {
    int on;
    wh_progress_mode_t mode;
    unsigned period_ms;
    int drawn;          /* a live line is on the screen */
    uint64_t last_ms;   /* when the last line was drawn */
    int sweep, level;   /* of the last plain line */
    const char *phase;
    char line[512];     /* the live line on the screen */
} s_d;

void wh_progress_begin(wh_progress_mode_t mode, unsigned period_ms)
{
    memset(&s_d, 0, sizeof s_d);
    s_d.on = 1;
    s_d.mode = mode;
    s_d.period_ms = period_ms;
    s_d.sweep = s_d.level = -1;
}

void wh_progress_update_line(const char *line, int changed)
{
    if (!s_d.on || s_d.mode == WH_PROGRESS_QUIET)
        return;
    uint64_t now = wh_now_ms();
    if (s_d.mode == WH_PROGRESS_TTY) {
        if (s_d.drawn && (now - s_d.last_ms < S_TTY_MS || !strcmp(line, s_d.line)))
            return;
        snprintf(s_d.line, sizeof s_d.line, "%s", line);
        /* A line wider than the terminal would wrap, and "\r" would
         * redraw only its last row. */
        struct winsize ws;
        int cols = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 0;
        printf("\r%.*s\033[K", cols ? cols : (int)strlen(line), line);
        s_d.drawn = 1;
    } else {
        if (!changed && s_d.last_ms && now - s_d.last_ms < s_d.period_ms)
            return;
        printf("Progress: %s\n", line);
    }
    s_d.last_ms = now;
    fflush(stdout);
}

void wh_progress_update(const wh_progress_t *p)
{
    if (!s_d.on || s_d.mode == WH_PROGRESS_QUIET)
        return;
    int changed = p->sweep != s_d.sweep || p->level != s_d.level || p->phase != s_d.phase;
    if (s_d.mode == WH_PROGRESS_PLAIN && !changed && s_d.last_ms &&
        wh_now_ms() - s_d.last_ms < s_d.period_ms)
        return; /* skip the formatting too */
    wh_buf_t b = WH_BUF_INIT;
    wh_progress_format(p, &b);
    wh_progress_update_line(b.buf ? b.buf : "", changed);
    if (s_d.mode == WH_PROGRESS_PLAIN) {
        s_d.sweep = p->sweep;
        s_d.level = p->level;
        s_d.phase = p->phase;
    }
    wh_buf_free(&b);
}

void wh_progress_erase(void)
{
    if (s_d.on && s_d.drawn) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
        s_d.drawn = 0;
    }
}

void wh_progress_end(void)
{
    wh_progress_erase();
    s_d.on = 0;
}
