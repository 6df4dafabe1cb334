/*
 * render — candidate test files from the pristine text (see render.h).
 *
 * Rendering blanks bytes in place instead of deleting them, so a candidate
 * has the original's length and every surviving byte keeps its offset, line
 * and column: a failing assert's file:line in a candidate is its line in the
 * original. The compact form is derived from the line-true form, line by
 * line, so both agree on what survives.
 */
#include "render.h"

#include <stdlib.h>
#include <string.h>

/* effective[i] = 1 when unit i or any ancestor is marked removed. Walks the
 * parent chain instead of relying on pre-order, with a step bound so that a
 * malformed (cyclic) parent array cannot loop forever. */
static uint8_t *s_effective(const wh_tree_t *t, const uint8_t *removed)
{
    size_t k = t->n > 0 ? (size_t)t->n : 1;
    uint8_t *eff = calloc(k, 1);
    if (!eff || !removed)
        return eff;
    for (int i = 0; i < t->n; i++) {
        int u = i, steps = 0;
        while (u >= 0 && u < t->n && steps++ <= t->n) {
            if (removed[u]) {
                eff[i] = 1;
                break;
            }
            u = t->units[u].parent;
        }
    }
    return eff;
}

/* Renders into a fresh buffer; blanked[b] = 1 for every byte that was turned
 * into a space (when blanked is not NULL). */
static char *s_render(const wh_tree_t *t, const uint8_t *removed, uint8_t *blanked)
{
    uint8_t *eff = s_effective(t, removed);
    char *out = malloc(t->text_len + 1);
    if (!eff || !out) {
        free(eff);
        free(out);
        return NULL;
    }
    memcpy(out, t->text, t->text_len);
    out[t->text_len] = '\0';
    for (int i = 0; i < t->n; i++) {
        if (!eff[i])
            continue;
        size_t b = t->units[i].begin, end = t->units[i].end;
        if (end > t->text_len)
            end = t->text_len;
        for (; b < end; b++) {
            /* Line ends survive so that lines keep their numbers; a CR stays
             * with its LF so CRLF files keep their line ends intact. */
            if (out[b] == '\n' || out[b] == '\r')
                continue;
            out[b] = ' ';
            if (blanked)
                blanked[b] = 1;
        }
    }
    free(eff);
    return out;
}

char *wh_render(const wh_tree_t *t, const uint8_t *removed, size_t *out_len)
{
    char *out = s_render(t, removed, NULL);
    if (out && out_len)
        *out_len = t->text_len;
    return out;
}

static int s_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int s_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!s_is_space(s[i]))
            return 0;
    return 1;
}

char *wh_render_compact(const wh_tree_t *t, const uint8_t *removed, size_t *out_len)
{
    size_t len = t->text_len;
    uint8_t *blanked = calloc(len + 1, 1);
    char *lt = blanked ? s_render(t, removed, blanked) : NULL;
    char *out = lt ? malloc(len + 1) : NULL;
    if (!out) {
        free(blanked);
        free(lt);
        return NULL;
    }
    size_t o = 0;
    int prev_blank_in_body = 0; /* the last line written was blank and in the body */
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(lt + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - lt) : len; /* the line is [start, end) */
        size_t next = nl ? end + 1 : len;
        int was_blank = s_blank(t->text + start, end - start);
        int now_blank = s_blank(lt + start, end - start);
        if (!was_blank && now_blank) {
            /* Everything on the line was removed: drop the whole line. */
            start = next;
            continue;
        }
        int in_body = start > t->body_begin && end < t->body_end;
        if (now_blank && in_body && prev_blank_in_body) {
            /* A second blank line in a row inside the body: squeeze. */
            start = next;
            continue;
        }
        prev_blank_in_body = now_blank && in_body;
        /* Trailing whitespace that removal left behind is noise for a
         * reader; a line whose tail no removal touched is kept as written. */
        size_t cr = (end > start && lt[end - 1] == '\r') ? 1 : 0;
        size_t k = end - cr, tail = k, touched = 0;
        while (tail > start && s_is_space(lt[tail - 1]))
            touched |= blanked[--tail];
        if (touched)
            k = tail;
        memcpy(out + o, lt + start, k - start);
        o += k - start;
        if (cr)
            out[o++] = '\r';
        if (nl)
            out[o++] = '\n';
        start = next;
    }
    out[o] = '\0';
    free(blanked);
    free(lt);
    if (out_len)
        *out_len = o;
    return out;
}
