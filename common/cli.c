/*
 * cli — argv parsing and help text from the option table. See cli.h.
 *
 * getopt_long runs in RETURN_IN_ORDER mode ("-" first in the short-option
 * string): positional arguments come back in order as code 1, and "--"
 * ends the options, leaving the rest to the command (compiler flags). A
 * leading ":" makes a missing value distinguishable from an unknown option.
 * Long names must be spelled in full: getopt_long's unique-prefix matching
 * would let a script depend on an abbreviation that a new option breaks.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "wh_common.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define S_VAL_BASE 256 /* getopt_long codes of long options: S_VAL_BASE + row */

/* The parse's allocations: one parse at a time (getopt_long is global). */
static char **s_av;
static struct option *s_lo;
static char **s_pos;
static char s_shorts[2 * WH_CLI_MAX_OPTS + 4];

void wh_cli_end(wh_cli_t *c)
{
    free(s_av);
    free(s_lo);
    free(s_pos);
    s_av = NULL;
    s_lo = NULL;
    s_pos = NULL;
    if (c) {
        c->pos = NULL;
        c->npos = 0;
    }
}

const wh_cli_cmd_t *wh_cli_cmd(const char *prog, const char *name)
{
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++)
        if (!strcmp(c->prog, prog) && (name ? c->name && !strcmp(c->name, name) : !c->name))
            return c;
    return NULL;
}

const char *wh_cli_fullname(const wh_cli_cmd_t *cmd, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", cmd->prog, cmd->name ? " " : "", cmd->name ? cmd->name : "");
    return buf;
}

void wh_cli_begin(wh_cli_t *c, const char *prog, const char *name, int argc, char **argv)
{
    wh_cli_end(NULL);
    memset(c, 0, sizeof *c);
    c->cmd = wh_cli_cmd(prog, name);
    c->argc = argc;
    c->argv = argv;
    for (const wh_cli_opt_t *o = wh_cli_opts; o->name && c->cmd; o++)
        if ((o->cmds & c->cmd->bit) && c->nrows < WH_CLI_MAX_OPTS)
            c->rows[c->nrows++] = o;
}

int wh_cli_is(const wh_cli_t *c, const char *name)
{
    return c->opt && !strcmp(c->opt->name, name);
}

/* Prints "PROG: error: …" and sets the exit status 2. */
static int s_error(wh_cli_t *c, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: error: ", c->cmd ? c->cmd->prog : "whittle");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    c->exit = 2;
    return -1;
}

static int s_unknown(wh_cli_t *c, const char *token)
{
    char name[128], full[64], hint[96] = "";
    snprintf(name, sizeof name, "%.*s", (int)strcspn(token, "="), token);
    wh_cli_fullname(c->cmd, full, sizeof full);
    if (!strncmp(name, "--", 2) && name[2]) {
        const char *names[WH_CLI_MAX_OPTS];
        for (int i = 0; i < c->nrows; i++)
            names[i] = c->rows[i]->name;
        const char *near = wh_suggest(name + 2, names, (size_t)c->nrows);
        if (near)
            snprintf(hint, sizeof hint, "did you mean --%s? ", near);
    }
    fprintf(stderr, "%s: error: unknown option '%s' for %s (%ssee %s --help)\n", c->cmd->prog,
            name, full, hint, full);
    c->exit = 2;
    return -1;
}

/* getopt_long's tables for this command: optstring and long options. */
static struct option *s_longopts(const wh_cli_t *c, char *shorts, size_t size)
{
    struct option *lo = calloc((size_t)c->nrows + 1, sizeof *lo);
    size_t k = 0;
    shorts[k++] = '-';
    shorts[k++] = ':';
    for (int i = 0; lo && i < c->nrows; i++) {
        lo[i].name = c->rows[i]->name;
        lo[i].has_arg = c->rows[i]->arg ? required_argument : no_argument;
        lo[i].val = S_VAL_BASE + i;
        if (c->rows[i]->shortopt && k + 3 < size) {
            shorts[k++] = c->rows[i]->shortopt;
            if (c->rows[i]->arg)
                shorts[k++] = ':';
        }
    }
    shorts[k] = '\0';
    return lo;
}

static int s_row_of(const wh_cli_t *c, int code)
{
    if (code >= S_VAL_BASE && code < S_VAL_BASE + c->nrows)
        return code - S_VAL_BASE;
    for (int i = 0; i < c->nrows; i++)
        if (code > 0 && c->rows[i]->shortopt == code)
            return i;
    return -1;
}

/* The argv token getopt_long just read a long option from, checked to
 * spell the name in full. */
static int s_exact(const wh_cli_t *c, char **av, int at, int row)
{
    const char *tok = av[at];
    size_t n = strlen(c->rows[row]->name);
    return tok && !strncmp(tok, "--", 2) && !strncmp(tok + 2, c->rows[row]->name, n) &&
           (tok[2 + n] == '\0' || tok[2 + n] == '=');
}

static int s_builtin(wh_cli_t *c)
{
    if (wh_cli_is(c, "help")) {
        wh_cli_help(c->cmd, stdout);
        if (c->epilog)
            fputs(c->epilog, stdout);
        c->exit = 0;
        return -1;
    }
    if (wh_cli_is(c, "version")) {
        printf("%s %s\n", c->cmd->prog, wh_cli_version());
        c->exit = 0;
        return -1;
    }
    return 1;
}

/* After the last option: the operands' count and what follows "--". */
static int s_finish(wh_cli_t *c, char **av, int ac)
{
    if (optind <= ac && optind > 1 && !strcmp(av[optind - 1], "--")) {
        c->dash = 1;
        c->extra = c->argv + (optind - 1);
        c->nextra = ac - optind;
    }
    if (c->nextra && !c->cmd->dashdash) {
        char full[64];
        return s_error(c, "%s takes no arguments after '--' (got '%s')",
                       wh_cli_fullname(c->cmd, full, sizeof full), c->extra[0]);
    }
    if (c->npos > c->cmd->max_pos) {
        char full[64];
        return s_error(c, "unexpected argument '%s' for %s", c->pos[c->cmd->max_pos],
                       wh_cli_fullname(c->cmd, full, sizeof full));
    }
    return 0;
}

int wh_cli_next(wh_cli_t *c)
{
    if (!c->cmd) {
        fputs("whittle: error: command missing from the option table\n", stderr);
        c->exit = 2;
        return -1;
    }
    if (!c->started) {
        /* getopt_long wants argv[0]; it may not reorder in this mode. */
        wh_cli_end(NULL);
        s_av = calloc((size_t)c->argc + 2, sizeof *s_av);
        s_lo = s_longopts(c, s_shorts, sizeof s_shorts);
        s_pos = calloc((size_t)c->argc + 1, sizeof *s_pos);
        c->pos = s_pos;
        if (!s_av || !s_lo || !s_pos)
            return s_error(c, "%s%s", "out of memory", "");
        char **av = s_av;
        av[0] = (char *)c->cmd->prog;
        memcpy(av + 1, c->argv, (size_t)c->argc * sizeof *av);
        c->started = 1;
        optind = 0;
        opterr = 0;
    }
    int ac = c->argc + 1;
    char **av = s_av;
    struct option *lo = s_lo;
    const char *shorts = s_shorts;
    for (;;) {
        int at = optind ? optind : 1, li = -1;
        int code = getopt_long(ac, av, shorts, lo, &li);
        c->opt = NULL;
        c->arg = NULL;
        if (code == -1) {
            /* c->argv[i] is av[i + 1]: point c->extra into the caller's argv. */
            int rc = s_finish(c, av, ac);
            return rc;
        }
        if (code == 1) {
            c->pos[c->npos++] = optarg;
            continue;
        }
        if (code == '?' && optopt >= S_VAL_BASE && optopt < S_VAL_BASE + c->nrows) {
            /* A flag given "=value" (getopt_long names the flag in optopt). */
            char nm[80];
            snprintf(nm, sizeof nm, "--%s", c->rows[optopt - S_VAL_BASE]->name);
            return s_exact(c, av, at, optopt - S_VAL_BASE)
                       ? s_error(c, "%s takes no value (got '%s')", nm, av[at])
                       : s_unknown(c, av[at]);
        }
        if (code == '?')
            return optopt ? s_unknown(c, (char[]){'-', (char)optopt, 0}) : s_unknown(c, av[optind - 1]);
        int row = s_row_of(c, code == ':' ? optopt : code);
        if (row < 0)
            return s_unknown(c, av[optind - 1]);
        if (code == ':') {
            char nm[80];
            if (optopt >= S_VAL_BASE)
                snprintf(nm, sizeof nm, "--%s", c->rows[row]->name);
            else
                snprintf(nm, sizeof nm, "-%c", c->rows[row]->shortopt);
            return s_error(c, "%s needs a value%s", nm, "");
        }
        if (code >= S_VAL_BASE && !s_exact(c, av, at, row))
            return s_unknown(c, av[at]);
        c->opt = c->rows[row];
        c->arg = c->opt->arg ? optarg : NULL;
        return s_builtin(c);
    }
}
