/*
 * cli — the command line of every whittle binary, from one table.
 *
 * cli_table.c holds every command (`whittle reduce`, `whittle-node`, …) and
 * every option (long name, short letter, argument name, help text, the
 * commands that take it). This module parses argv against that table with
 * getopt_long, so `--opt=value`, `--opt value`, `-j4`, `-j 4` and clustered
 * short flags all work, and writes the help text. The man pages and the
 * bash completion are generated from the same table at build time
 * (tests/e2e/cli.sh checks that nothing is listed anywhere else).
 *
 * A command's handler walks its options:
 *
 *     wh_cli_t c;
 *     int rc;
 *     wh_cli_begin(&c, "whittle", "reduce", argc, argv);
 *     while ((rc = wh_cli_next(&c)) > 0)
 *         if (wh_cli_is(&c, "jobs")) … c.arg …
 *     if (rc < 0)
 *         return c.exit;          // --help, --version or an error (printed)
 *     … c.pos[0 .. c.npos), c.extra[0 .. c.nextra) …
 *
 * Not thread-safe (getopt_long keeps global state): parse on the main
 * thread, before starting others.
 */
#ifndef WH_CLI_H
#define WH_CLI_H

#include <stdio.h>

/* Commands, as bits: an option row says which commands take it. */
enum {
    WH_CLI_INSPECT = 1u << 0,
    WH_CLI_REDUCE = 1u << 1,
    WH_CLI_SUBMIT = 1u << 2,
    WH_CLI_STATUS = 1u << 3,
    WH_CLI_KEYGEN = 1u << 4,
    WH_CLI_SUITE = 1u << 5,
    WH_CLI_MUTATE = 1u << 6,
    WH_CLI_GROUP = 1u << 7,
    WH_CLI_HELP = 1u << 8,
    WH_CLI_MAIN = 1u << 9,  /* `whittle` with no command */
    WH_CLI_COORD = 1u << 10, /* whittle-coordinator */
    WH_CLI_NODE = 1u << 11,  /* whittle-node */
    WH_CLI_CACHE = 1u << 12, /* whittle cache */
    WH_CLI_REPORT = 1u << 13, /* whittle report */
    WH_CLI_WATCH = 1u << 14,
    WH_CLI_CANCEL = 1u << 15,
};
#define WH_CLI_ALL 0xffffffffu /* every command, those added later too */
/* A new command: a bit above, a row in wh_cli_cmds (cli_table.c), its
 * options as rows of wh_cli_opts, and a handler that walks them with
 * wh_cli_next / wh_cli_is. e2e_cli then checks its --help, man page and
 * completion. */

/* One command of one program. */
typedef struct {
    unsigned bit;         /* WH_CLI_… */
    const char *prog;     /* "whittle", "whittle-coordinator", "whittle-node" */
    const char *name;     /* "reduce"; NULL for the program itself */
    const char *synopsis; /* what follows the command name in its usage line */
    int max_pos;          /* positional arguments it takes (before any --) */
    int dashdash;         /* 1 when `-- ARGS…` is accepted */
    const char *summary;  /* one line: what it does */
} wh_cli_cmd_t;

/* One option row. The same long name may appear in several rows (with
 * different help) as long as no command takes two of them. */
typedef struct {
    unsigned cmds;     /* WH_CLI_… bits of the commands that take it */
    const char *name;  /* long name without "--" */
    char shortopt;     /* short letter, or 0 */
    const char *arg;   /* argument name ("N", "DIR"), NULL for a flag */
    const char *help;  /* one or more sentences */
} wh_cli_opt_t;

/* The table (cli_table.c); both lists end with a zeroed row. */
extern const wh_cli_cmd_t wh_cli_cmds[];
extern const wh_cli_opt_t wh_cli_opts[];

/* "0.3.0" plus `git describe` at build time when there was one. */
const char *wh_cli_version(void);


#define WH_CLI_MAX_OPTS 64

typedef struct {
    const wh_cli_cmd_t *cmd;
    const wh_cli_opt_t *opt; /* the option wh_cli_next returned */
    const char *arg;         /* its value; NULL for a flag */
    char **pos;              /* positional arguments */
    int npos;
    char **extra;            /* the arguments after "--" */
    int nextra;
    int dash;                /* 1 when "--" ended the options */
    int exit;                /* the exit status when wh_cli_next returned -1 */
    const char *epilog;      /* printed after --help when set (by the caller) */
    /* private */
    int argc;
    char **argv;
    int started;
    const wh_cli_opt_t *rows[WH_CLI_MAX_OPTS];
    int nrows;
} wh_cli_t;

/* The command `prog name` (name NULL for the program itself), or NULL. */
const wh_cli_cmd_t *wh_cli_cmd(const char *prog, const char *name);

/* Prepares to parse argv[0..argc) (the arguments after the command name)
 * for `prog name`. The command must be in the table. */
void wh_cli_begin(wh_cli_t *c, const char *prog, const char *name, int argc, char **argv);

/* The next option: 1 with c->opt and c->arg set; 0 when every option was
 * read (c->pos and c->extra set); -1 when the caller should return c->exit:
 * 0 after --help or --version (printed to stdout), 2 after an error
 * (printed to stderr, naming the option and the command). */
int wh_cli_next(wh_cli_t *c);

/* Frees what the parse allocated (c->pos). Also done by the next
 * wh_cli_begin, so a handler that returns early leaks nothing. */
void wh_cli_end(wh_cli_t *c);

/* 1 when the option just read is the one with this long name. */
int wh_cli_is(const wh_cli_t *c, const char *name);

/* The full command name, "whittle reduce" or "whittle-node". */
const char *wh_cli_fullname(const wh_cli_cmd_t *cmd, char *buf, size_t size);

/* Writes the command's help: synopsis, summary and every option explained;
 * a program's own entry (name NULL) also lists its commands. */
void wh_cli_help(const wh_cli_cmd_t *cmd, FILE *fp);

/* Writes the one-line synopsis(es) used by `whittle --help` and the man pages. */
void wh_cli_synopsis(const wh_cli_cmd_t *cmd, FILE *fp, const char *indent);

#endif
