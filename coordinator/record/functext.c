/*
 * functext — the reduced test function as the console prints it. See functext.h.
 */
#include "functext.h"

#include "wh_common.h"

/* Whether s[i, j) holds only blanks. */
static int s_blank(const char *s, size_t i, size_t j)
{
    for (size_t k = i; k < j; k++)
        if (s[k] != ' ' && s[k] != '\t' && s[k] != '\r')
            return 0;
    return 1;
}

/* Where the function's text starts: the line of '{', or the one before. */
static size_t s_start(const char *text, size_t b)
{
    size_t ls = b;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    if (s_blank(text, ls, b) && ls > 0) {
        ls--;
        while (ls > 0 && text[ls - 1] != '\n')
            ls--;
    }
    return ls;
}

char *wh_function_text(const char *text, size_t text_len, size_t body_begin, size_t body_end,
                       const char *lines_true)
{
    wh_buf_t out = WH_BUF_INIT;
    int last_blank = 0;
    for (size_t i = s_start(text, body_begin); i < body_end;) {
        size_t j = i;
        while (j < text_len && text[j] != '\n')
            j++;
        int was_blank = s_blank(text, i, j), now_blank = s_blank(lines_true, i, j);
        if (!(now_blank && !was_blank) && !(now_blank && last_blank)) {
            wh_buf_append(&out, lines_true + i, j - i);
            wh_buf_puts(&out, "\n");
            last_blank = now_blank;
        }
        i = j + 1;
    }
    return wh_buf_detach(&out);
}
