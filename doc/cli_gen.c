/*
 * cli_gen — build-time generator: the man pages and the bash completion
 * from the option table (common/cli_table.c), so they cannot drift from
 * what the binaries parse. Not installed.
 *
 *   cli_gen man TEMPLATE.in OUT    expands the template's @…@ lines
 *   cli_gen bash OUT               the bash completion of all three programs
 *   cli_gen rows                   every row as "PROG CMD --NAME [-X] [ARG]" (tests)
 *
 * Template lines (each alone on its line):
 *   @VERSION@ in any line       the version (0.3.0 plus git describe)
 *   @SYNOPSIS PROG@             the usage lines of PROG and its commands
 *   @OPTIONS PROG@              the options of PROG itself
 *   @COMMANDS PROG@             every command of PROG: usage, summary, options
 *   @FRAMEWORKS@                the framework presets (wh_framework_names)
 */
#include "cli.h"
#include "framework.h"

#include <stdlib.h>
#include <string.h>

/* Writes text as roff: '-' and '\' escaped, no line starting with '.' or '\''. */
static void s_roff(FILE *fp, const char *text)
{
    if (*text == '.' || *text == '\'')
        fputs("\\&", fp);
    for (const char *p = text; *p; p++) {
        if (*p == '-')
            fputs("\\-", fp);
        else if (*p == '\\')
            fputs("\\e", fp);
        else
            fputc(*p, fp);
    }
}

static void s_man_synopsis(FILE *fp, const wh_cli_cmd_t *c)
{
    char full[64];
    fputs(".PP\n.B ", fp);
    s_roff(fp, wh_cli_fullname(c, full, sizeof full));
    fputc('\n', fp);
    if (c->synopsis && *c->synopsis) {
        s_roff(fp, c->synopsis);
        fputc('\n', fp);
    }
}

static void s_man_options(FILE *fp, const wh_cli_cmd_t *c)
{
    for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++) {
        if (!(o->cmds & c->bit))
            continue;
        fputs(".TP\n", fp);
        if (o->shortopt)
            fprintf(fp, "\\fB\\-%c\\fR, ", o->shortopt);
        fputs("\\fB\\-\\-", fp);
        s_roff(fp, o->name);
        fputs("\\fR", fp);
        if (o->arg) {
            fputs("=\\fI", fp);
            s_roff(fp, o->arg);
            fputs("\\fR", fp);
        }
        fputc('\n', fp);
        s_roff(fp, o->help);
        fputc('\n', fp);
    }
}

static void s_man_commands(FILE *fp, const char *prog)
{
    char full[64];
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++) {
        if (!c->name || strcmp(c->prog, prog))
            continue;
        fputs(".SS \"", fp);
        s_roff(fp, wh_cli_fullname(c, full, sizeof full));
        fputs("\"\n", fp);
        s_man_synopsis(fp, c);
        fputs(".PP\n", fp);
        s_roff(fp, c->summary);
        fputc('\n', fp);
        s_man_options(fp, c);
    }
}

/* One template line: a directive, or text with @VERSION@ replaced. */
static int s_man_line(FILE *out, const char *line)
{
    char prog[64];
    if (sscanf(line, "@SYNOPSIS %63[^@]@", prog) == 1 || sscanf(line, "@OPTIONS %63[^@]@", prog) == 1 ||
        sscanf(line, "@COMMANDS %63[^@]@", prog) == 1) {
        const wh_cli_cmd_t *self = wh_cli_cmd(prog, NULL);
        if (!self) {
            fprintf(stderr, "cli_gen: no program '%s' in the table\n", prog);
            return -1;
        }
        if (line[1] == 'S') {
            for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++)
                if (!strcmp(c->prog, prog))
                    s_man_synopsis(out, c);
        } else if (line[1] == 'O') {
            s_man_options(out, self);
        } else {
            s_man_commands(out, prog);
        }
        return 0;
    }
    if (!strncmp(line, "@FRAMEWORKS@", 12)) {
        s_roff(out, wh_framework_names());
        fputc('\n', out);
        return 0;
    }
    const char *v = strstr(line, "@VERSION@");
    if (v) {
        fwrite(line, 1, (size_t)(v - line), out);
        fputs(wh_cli_version(), out);
        fputs(v + 9, out);
    } else {
        fputs(line, out);
    }
    return 0;
}

static int s_man(const char *in, FILE *out)
{
    FILE *fp = fopen(in, "r");
    if (!fp) {
        fprintf(stderr, "cli_gen: cannot read '%s'\n", in);
        return 1;
    }
    char line[4096];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp))
        rc = s_man_line(out, line);
    fclose(fp);
    return rc ? 1 : 0;
}

/* The key of a command in the completion: "PROG CMD" ("whittle reduce",
 * "whittle-node "). */
static void s_key(char *buf, size_t size, const wh_cli_cmd_t *c)
{
    snprintf(buf, size, "%s %s", c->prog, c->name ? c->name : "");
}

/* How the value of an option completes: a word list from "a|b|c" (its
 * lower-case words), folders for ...DIR, users for USER, files for FILE,
 * PREFIX, GLOB and SPEC, nothing for numbers and free text. */
static void s_bash_value(FILE *fp, const char *arg)
{
    char words[256] = "";
    size_t k = 0;
    if (strchr(arg, '|')) {
        for (const char *p = arg; *p;) {
            size_t w = strcspn(p, "|");
            int lower = w > 0 && strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-") >= w;
            if (lower && k + w + 2 < sizeof words)
                k += (size_t)snprintf(words + k, sizeof words - k, "%s%.*s", k ? " " : "", (int)w, p);
            p += w + (p[w] == '|');
        }
    }
    size_t n = strlen(arg);
    if (k)
        fprintf(fp, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", words);
    else if (n >= 3 && !strcmp(arg + n - 3, "DIR"))
        fputs("COMPREPLY=($(compgen -d -- \"$cur\"))", fp);
    else if (!strcmp(arg, "USER"))
        fputs("COMPREPLY=($(compgen -u -- \"$cur\"))", fp);
    else if (!strcmp(arg, "FILE") || !strcmp(arg, "PREFIX") || !strcmp(arg, "GLOB") ||
             !strcmp(arg, "SPEC") || strstr(arg, "DIR"))
        fputs("COMPREPLY=($(compgen -f -- \"$cur\"))", fp);
    else
        fputs("COMPREPLY=()", fp);
}

static void s_bash_values(FILE *fp)
{
    char key[80];
    fputs("# _whittle_value PROG CMD OPTION CUR: completes the value of OPTION.\n"
          "_whittle_value() {\n    local cur=$4\n    case \"$1 $2 $3\" in\n", fp);
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++) {
        s_key(key, sizeof key, c);
        for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++) {
            if (!(o->cmds & c->bit) || !o->arg)
                continue;
            fprintf(fp, "    \"%s --%s\"", key, o->name);
            if (o->shortopt)
                fprintf(fp, " | \"%s -%c\"", key, o->shortopt);
            fputs(") ", fp);
            if (!strcmp(o->name, "framework"))
                /* The presets are the program's: ask it (the help's last line). */
                fprintf(fp, "COMPREPLY=($(compgen -W \"$(%s help %s 2>/dev/null | sed -n "
                            "'s/^frameworks: //p' | tr -d ,)\" -- \"$cur\"))",
                        c->prog, c->name);
            else
                s_bash_value(fp, o->arg);
            fputs(" ;;\n", fp);
        }
    }
    fputs("    *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n    esac\n}\n\n", fp);
}

/* Per command: its options, and those that take a value. */
static void s_bash_tables(FILE *fp)
{
    char key[80];
    fputs("    case \"$prog $cmd\" in\n", fp);
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++) {
        s_key(key, sizeof key, c);
        fprintf(fp, "    \"%s\")\n        opts=\"", key);
        int first = 1;
        for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++) {
            if (!(o->cmds & c->bit))
                continue;
            fprintf(fp, "%s--%s", first ? "" : " ", o->name);
            if (o->shortopt)
                fprintf(fp, " -%c", o->shortopt);
            first = 0;
        }
        fputs("\"\n        valued=\" ", fp);
        for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++) {
            if (!(o->cmds & c->bit) || !o->arg)
                continue;
            fprintf(fp, "--%s ", o->name);
            if (o->shortopt)
                fprintf(fp, "-%c ", o->shortopt);
        }
        /* A synopsis that opens with words (`stats|clear|forget ...`):
         * its first argument is one of them, not a file. */
        fputs("\"\n        words=\"", fp);
        size_t wl = c->synopsis ? strspn(c->synopsis, "abcdefghijklmnopqrstuvwxyz-|") : 0;
        if (wl && strchr("| ", c->synopsis[wl] ? c->synopsis[wl] : ' ') &&
            memchr(c->synopsis, '|', wl))
            for (size_t k = 0; k < wl; k++)
                fputc(c->synopsis[k] == '|' ? ' ' : c->synopsis[k], fp);
        fputs("\" ;;\n", fp);
    }
    fputs("    *) return ;;\n    esac\n", fp);
}

static void s_bash(FILE *fp)
{
    fputs("# bash completion for whittle, whittle-coordinator and whittle-node.\n"
          "# Generated at build time from common/cli_table.c (cli_gen); do not edit.\n\n", fp);
    s_bash_values(fp);
    fputs("_whittle_complete() {\n"
          "    local prog=${COMP_WORDS[0]##*/} cur=${COMP_WORDS[COMP_CWORD]}\n"
          "    local prev=${COMP_WORDS[COMP_CWORD-1]} cmd= opts valued words\n"
          "    if [ \"$prog\" = whittle ]; then\n"
          "        if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "            COMPREPLY=($(compgen -W \"", fp);
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++)
        if (c->name && !strcmp(c->prog, "whittle"))
            fprintf(fp, "%s ", c->name);
    fputs("--help -h --version\" -- \"$cur\"))\n"
          "            return\n"
          "        fi\n"
          "        cmd=${COMP_WORDS[1]}\n"
          "    fi\n"
          "    # bash splits --opt=value at '='.\n"
          "    if [ \"$cur\" = = ]; then\n"
          "        cur=\n"
          "    elif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    fi\n", fp);
    s_bash_tables(fp);
    fputs("    if [[ $valued == *\" $prev \"* ]]; then\n"
          "        _whittle_value \"$prog\" \"$cmd\" \"$prev\" \"$cur\"\n"
          "    elif [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    elif [ -n \"$words\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
          "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "    elif [ \"$cmd\" = help ]; then\n"
          "        COMPREPLY=($(compgen -W \"", fp);
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++)
        if (c->name && !strcmp(c->prog, "whittle"))
            fprintf(fp, "%s ", c->name);
    fputs("\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -F _whittle_complete whittle whittle-coordinator whittle-node\n", fp);
}

static void s_rows(FILE *fp)
{
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog; c++)
        for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++)
            if (o->cmds & c->bit) {
                fprintf(fp, "%s %s --%s", c->prog, c->name ? c->name : "-", o->name);
                if (o->shortopt)
                    fprintf(fp, " -%c", o->shortopt);
                fputc('\n', fp);
            }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int need = !strcmp(what, "man") ? 4 : !strcmp(what, "bash") ? 3 : !strcmp(what, "rows") ? 2 : 0;
    if (!need || argc != need) {
        fputs("usage: cli_gen man TEMPLATE.in OUT | cli_gen bash OUT | cli_gen rows\n", stderr);
        return 2;
    }
    if (need == 2) {
        s_rows(stdout);
        return 0;
    }
    const char *outp = argv[argc - 1];
    FILE *out = fopen(outp, "w");
    if (!out) {
        fprintf(stderr, "cli_gen: cannot write '%s'\n", outp);
        return 1;
    }
    int rc = 0;
    if (need == 4)
        rc = s_man(argv[2], out);
    else
        s_bash(out);
    if (fclose(out) != 0)
        rc = 1;
    if (rc)
        remove(outp);
    return rc;
}
