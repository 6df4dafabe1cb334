/*
 * whole — a whole CTest test judged as CTest judges it; see whole.h.
 */
#define _GNU_SOURCE
#include "whole.h"
#include "fw_segment.h"
#include "sanitizer.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

int wh_whole_read(const char *console, size_t len, const char *test, wh_test_result_t *out)
{
    wh_test_result_init(out, NULL);
    wh_seg_t g;
    wh_seg_find(console, len, test, &g);
    if (g.state == WH_SEG_FAILED)
        return wh_fw_segment_result(console + g.start, g.end - g.start, test, out);
    if (g.state == WH_SEG_PASSED || g.state == WH_SEG_SKIPPED) {
        out->status = g.state == WH_SEG_PASSED ? WH_TR_PASSED : WH_TR_SKIPPED;
        out->fp.test = strdup(test);
        return out->fp.test ? 0 : WH_ENOMEM;
    }
    return 0;
}

/* The first of rxs (one per line) that matches text, as a malloc'ed copy;
 * NULL when none. A regex that does not compile is *bad (malloc'ed). */
static char *s_first_match(const char *rxs, const char *text, char **bad)
{
    char *copy = rxs ? strdup(rxs) : NULL, *hit = NULL;
    for (char *save = NULL, *rx = copy ? strtok_r(copy, "\n", &save) : NULL; rx && !hit && !*bad;
         rx = strtok_r(NULL, "\n", &save)) {
        regex_t re;
        if (regcomp(&re, rx, REG_EXTENDED | REG_NOSUB)) {
            *bad = strdup(rx);
            break;
        }
        if (regexec(&re, text, 0, NULL, 0) == 0)
            hit = strdup(rx);
        regfree(&re);
    }
    free(copy);
    return hit;
}

char *wh_whole_judge(const wh_whole_t *w, const wh_run_result_t *rr, const char *console,
                     size_t len, const char *san, int *oom)
{
    *oom = 0;
    if (rr->signaled) {
        /* CTest's "Exception": failed, WILL_FAIL or not. */
        char *k = wh_crash_kind(rr->term_signal);
        char *why = wh_strdup_printf("killed by a signal (%s)", k ? k : "?");
        free(k);
        *oom = !why;
        return why;
    }
    char *text = strndup(console ? console : "", console ? len : 0);
    if (!text) {
        *oom = 1;
        return NULL;
    }
    int has_pass = w->pass_rx && *w->pass_rx;
    char *bad = NULL, *why = NULL;
    char *passed = has_pass ? s_first_match(w->pass_rx, text, &bad) : NULL;
    char *failed = !bad ? s_first_match(w->fail_rx, text, &bad) : NULL;
    free(text);
    if (bad)
        why = wh_strdup_printf("CTest's regex '%s' is no POSIX extended regex", bad);
    else if (has_pass && !passed)
        why = strdup("no PASS_REGULAR_EXPRESSION matched its output");
    else if (failed)
        why = wh_strdup_printf("FAIL_REGULAR_EXPRESSION '%s' matched its output", failed);
    else if (!has_pass && rr->exit_code != 0)
        why = wh_strdup_printf("exit status %d%s%s%s", rr->exit_code, san ? " (" : "",
                               san ? san : "", san ? ")" : "");
    if (w->will_fail && !bad) {
        /* WILL_FAIL: what failed passes, what passed fails. */
        int fails = why != NULL;
        free(why);
        why = fails ? NULL : strdup("it passed, and its WILL_FAIL property says it must fail");
        *oom = !fails && !why;
    } else {
        *oom = (bad || (has_pass && !passed) || failed || (!has_pass && rr->exit_code)) && !why;
    }
    free(bad), free(passed), free(failed);
    return why;
}
