/*
 * cache_cmd — `whittle cache stats|clear|forget`. See cache_cmd.h.
 */
#include "cache_cmd.h"
#include "workstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cli.h"
#include "wh_mac.h"
#include "wh_common.h"

#define S_USAGE "whittle cache stats|clear [--cache SPEC] | forget --node KEYID [--cache SPEC]"

typedef struct {
    const char *sub;   /* stats, clear, forget */
    const char *spec;  /* --cache, NULL: the embedded default */
    const char *node;  /* --node (forget) */
} s_opts_t;

static int s_usage_error(const char *fmt, const char *arg)
{
    fputs("whittle: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (usage: " S_USAGE ")\n", stderr);
    return 2;
}

/* 0, 2 (a usage error, printed) or -1 (--help or --version printed). */
static int s_parse(int argc, char **argv, s_opts_t *o)
{
    memset(o, 0, sizeof *o);
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "cache", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0) {
        if (wh_cli_is(&c, "cache"))
            o->spec = c.arg;
        else if (wh_cli_is(&c, "node"))
            o->node = c.arg;
        else if (wh_cli_is(&c, "cache-secret-file"))
            wh_mac_set_secret_file(c.arg);
    }
    if (rc < 0)
        return c.exit ? c.exit : -1; /* -1: --help or --version, done */
    o->sub = c.npos ? c.pos[0] : NULL;
    rc = 0;
    if (!o->sub)
        rc = s_usage_error("%s", "cache needs a subcommand: stats, clear or forget");
    else if (strcmp(o->sub, "stats") && strcmp(o->sub, "clear") && strcmp(o->sub, "forget"))
        rc = s_usage_error("unknown cache subcommand '%s'", o->sub);
    else if (strcmp(o->sub, "forget") && o->node)
        rc = s_usage_error("--node is for cache forget, not cache %s", o->sub);
    else if (!strcmp(o->sub, "forget") && !o->node)
        rc = s_usage_error("%s", "cache forget needs --node KEYID");
    else if (o->node && !wh_cache_node_ok(o->node))
        rc = s_usage_error("bad node key id '%s' (1 to 64 of A-Z a-z 0-9 . _ @ + -)", o->node);
    wh_cli_end(&c);
    return rc;
}

static int s_failed(int rc, const char *what)
{
    if (rc == WH_EUNAVAIL)
        fprintf(stderr, "whittle: error: redis unavailable: nothing %s there; run it again "
                        "when it answers\n", what);
    else if (rc)
        fprintf(stderr, "whittle: error: cache: %s\n", wh_strerror(rc));
    return rc ? 1 : 0;
}

static int s_forget(wh_cache_t *c, const s_opts_t *o)
{
    wh_cache_forgot_t f;
    int rc = wh_cache_forget_node(c, o->node, &f);
    if (strncmp(wh_cache_describe(c), "redis", 5) == 0)
        printf("forgot %ld verdicts of node %s: %ld in redis, %ld in the embedded cache; "
               "generation %llu\n",
               f.redis + f.embedded, o->node, f.redis, f.embedded,
               (unsigned long long)f.generation);
    else
        printf("forgot %ld verdicts of node %s in the %s cache; generation %llu\n", f.embedded,
               o->node, wh_cache_describe(c), (unsigned long long)f.generation);
    return s_failed(rc, "forgotten");
}

static int s_clear(wh_cache_t *c)
{
    wh_cache_forgot_t f;
    int rc = wh_cache_clear(c, &f);
    if (strncmp(wh_cache_describe(c), "redis", 5) == 0)
        printf("cleared %ld verdicts: %ld in redis, %ld in the embedded cache; generation %llu\n",
               f.redis + f.embedded, f.redis, f.embedded, (unsigned long long)f.generation);
    else
        printf("cleared %ld verdicts in the %s cache; generation %llu\n", f.embedded,
               wh_cache_describe(c), (unsigned long long)f.generation);
    /* The embedded default's kept workspaces (workstore.h) go too. */
    int w = wh_workstore_clear();
    if (w == WH_EUNAVAIL)
        fprintf(stderr, "whittle: warning: the kept workspaces are in use by a running whittle; "
                        "not cleared\n");
    else if (w > 0)
        printf("cleared %d kept workspace%s\n", w, w == 1 ? "" : "s");
    return s_failed(rc, "cleared");
}

static void s_print_stats(const wh_cache_stats_t *st, const char *label)
{
    long total = 0;
    for (int v = 0; v < WH_V_COUNT; v++)
        total += st->verdicts[v];
    printf("%s: %s\n  verdicts: %ld", label, st->where, total);
    const char *sep = " (";
    for (int v = 0; v < WH_V_COUNT; v++)
        if (st->verdicts[v]) {
            printf("%s%s %ld", sep, wh_verdict_name((wh_verdict_t)v), st->verdicts[v]);
            sep = ", ";
        }
    printf("%s\n  predicted: %ld\n  blobs: %ld\n", *sep == ',' ? ")" : "", st->predicted,
           st->blobs);
    if (st->dropped)
        printf("  forgotten, held until compaction: %ld\n", st->dropped);
    printf("  size: %llu bytes\n  generation: %llu\n", (unsigned long long)st->bytes,
           (unsigned long long)st->generation);
    if (st->hits >= 0)
        printf("  lookups: %lld hits, %lld misses\n", st->hits, st->misses);
    else
        printf("  lookups: not recorded (embedded)\n");
    if (!strncmp(st->where, "redis", 5))
    {
        printf("  without a valid MAC (not believed): %ld values; %lld lookups rejected\n",
               st->unauthenticated, st->rejected < 0 ? 0 : st->rejected);
        if (st->stale)
            printf("  of a generation before the last forget (not believed): %ld values\n",
                   st->stale);
    }
}

static int s_stats(wh_cache_t *c)
{
    wh_cache_stats_t st[2];
    int n = 0;
    int rc = wh_cache_stats(c, st, &n);
    for (int i = 0; i < n; i++)
        s_print_stats(&st[i], i ? "fallback" : "cache");
    int nws = 0;
    uint64_t bytes = 0;
    char *where = wh_workstore_stats(&nws, &bytes);
    if (where)
        printf("workspaces: %s\n  kept: %d set up, %llu bytes (cap %llu, WHITTLE_WORK_MAX)\n",
               where, nws, (unsigned long long)bytes,
               (unsigned long long)wh_workstore_max());
    free(where);
    return s_failed(rc, "counted");
}

int wh_cache_cmd(int argc, char **argv)
{
    s_opts_t o;
    int rc = s_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    char *err = NULL;
    wh_cache_t *c = wh_cache_open(o.spec, &err);
    if (!c) {
        fprintf(stderr, "whittle: error: %s\n", err ? err : "cannot open the cache");
        free(err);
        return 1;
    }
    if (!strcmp(o.sub, "forget"))
        rc = s_forget(c, &o);
    else if (!strcmp(o.sub, "clear"))
        rc = s_clear(c);
    else
        rc = s_stats(c);
    wh_cache_close(&c);
    return rc;
}
