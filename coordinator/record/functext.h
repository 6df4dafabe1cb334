/*
 * functext — the reduced test function as the console prints it.
 */
#ifndef WH_FUNCTEXT_H
#define WH_FUNCTEXT_H

#include <stddef.h>

/* The function whose body spans text[body_begin, body_end) (from '{' to
 * '}'), as it reads in lines_true (the line-true rendering: the same length
 * as text, removed statements blanked): from the line of its signature (the
 * line of '{', or the one before when '{' is alone on its line) to the
 * closing '}', without the lines that became blank, and with no two blank
 * lines in a row, as reduced.c (compact) has it. malloc'd, NULL on ENOMEM. */
char *wh_function_text(const char *text, size_t text_len, size_t body_begin, size_t body_end,
                       const char *lines_true);

#endif
