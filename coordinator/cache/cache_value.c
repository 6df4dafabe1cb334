/*
 * cache_value — what a cache entry is, shared by the cache's front
 * (cache.c) and its back ends (cache_be.h) so that neither includes the
 * other's header for it: binary keys and their hex form, the key spaces,
 * node names, the stored value "<Verdict> node=<ID>", the counts of a
 * forget and of stats, and the default folder. Pure functions, no I/O
 * (wh_cache_default_dir reads the environment).
 */
#define _GNU_SOURCE
#include "cache_value.h"

#include <stdlib.h>
#include <string.h>

int wh_cache_storable(wh_verdict_t v)
{
    return v > WH_V_NONE && v < WH_V_COUNT && v != WH_V_INFRA_ERROR;
}

static int s_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses exactly 64 hex chars (no terminator needed). */
int wh_cache_key_parse_n(const char *hex, uint8_t out[WH_CACHE_KEY_BYTES])
{
    for (int i = 0; i < WH_CACHE_KEY_BYTES; i++) {
        int hi = s_hexval((unsigned char)hex[2 * i]), lo = s_hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return WH_EINVAL;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void wh_cache_key_hex(const uint8_t key[WH_CACHE_KEY_BYTES], char out[2 * WH_CACHE_KEY_BYTES + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < WH_CACHE_KEY_BYTES; i++) {
        out[2 * i] = digits[key[i] >> 4];
        out[2 * i + 1] = digits[key[i] & 15];
    }
    out[2 * WH_CACHE_KEY_BYTES] = '\0';
}

/* The default folder: $WHITTLE_CACHE_DIR, $XDG_CACHE_HOME/whittle or
 * ~/.cache/whittle. */
char *wh_cache_default_dir(void)
{
    const char *d = getenv("WHITTLE_CACHE_DIR");
    if (d && *d)
        return strdup(d);
    d = getenv("XDG_CACHE_HOME");
    if (d && *d)
        return wh_path_join(d, "whittle");
    d = getenv("HOME");
    if (d && *d)
        return wh_path_join(d, ".cache/whittle");
    return NULL;
}

/* ---- node names and values ---- */

static int s_node_char(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '@' || ch == '+' || ch == '-';
}

int wh_cache_node_ok(const char *name)
{
    if (!name || !*name || strlen(name) > WH_CACHE_NODE_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if (!s_node_char((unsigned char)*p))
            return 0;
    return 1;
}

void wh_cache_node_clean(const char *name, char out[WH_CACHE_NODE_MAX + 1])
{
    if (!name || !*name)
        name = WH_CACHE_NODE_LOCAL;
    size_t i = 0;
    for (; name[i] && i < WH_CACHE_NODE_MAX; i++)
        out[i] = s_node_char((unsigned char)name[i]) ? name[i] : '_';
    out[i] = '\0';
}

int wh_cache_value_format(wh_verdict_t v, const char *node, char *out, size_t outsz)
{
    char clean[WH_CACHE_NODE_MAX + 1];
    wh_cache_node_clean(node, clean);
    int n = snprintf(out, outsz, "%s node=%s", wh_verdict_name(v), clean);
    return n < 0 ? 0 : (size_t)n < outsz ? n : (int)outsz - 1;
}

uint32_t wh_cache_value_gen(const char *s, size_t n)
{
    uint64_t g = 0;
    for (size_t i = 0; i + 4 < n; i++) {
        if ((i && s[i - 1] != ' ') || memcmp(s + i, "gen=", 4))
            continue;
        g = 0;
        for (size_t k = i + 4; k < n && s[k] >= '0' && s[k] <= '9'; k++)
            g = g * 10 + (uint64_t)(s[k] - '0') > UINT32_MAX ? UINT32_MAX
                                                              : g * 10 + (uint64_t)(s[k] - '0');
    }
    return (uint32_t)g;
}

int wh_cache_value_parse(const char *s, size_t n, wh_verdict_t *v,
                         char node[WH_CACHE_NODE_MAX + 1])
{
    node[0] = '\0';
    *v = WH_V_NONE;
    size_t i = 0;
    while (i < n && s[i] != ' ')
        i++;
    char name[32];
    if (i == 0 || i >= sizeof name)
        return WH_EINVAL;
    memcpy(name, s, i);
    name[i] = '\0';
    wh_verdict_t pv = wh_verdict_parse(name);
    if (!wh_cache_storable(pv))
        return WH_EINVAL;
    while (i < n) {
        size_t start = ++i;
        while (i < n && s[i] != ' ')
            i++;
        size_t tl = i - start;
        if (tl > 5 && tl - 5 <= WH_CACHE_NODE_MAX && !strncmp(s + start, "node=", 5)) {
            memcpy(node, s + start + 5, tl - 5);
            node[tl - 5] = '\0';
            if (!wh_cache_node_ok(node))
                node[0] = '\0';
        }
    }
    *v = pv;
    return 0;
}
