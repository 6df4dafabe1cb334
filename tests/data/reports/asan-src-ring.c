#include <stdlib.h>
#include "ring.h"
static int *g_buf;
static int g_len;
void ring_init(int cap) { g_buf = malloc(cap * sizeof *g_buf); g_len = 0; }
void ring_push(int v) { g_buf[g_len++] = v; }
int ring_peek(void) { return g_buf[g_len]; }
void ring_free(void) { free(g_buf); }
int ring_after_free(void) { free(g_buf); return g_buf[0]; }
int add(int a, int b) { return a + b; }
void *leak(void) { return malloc(8); }
