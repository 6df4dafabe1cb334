/*
 * cli_help — `--help` text from the option table. See cli.h.
 */
#include "cli.h"

#include <string.h>

#define S_COL 30   /* where the help text of an option starts */
#define S_WIDTH 79

/* Writes text from column `col` (the cursor is at `at`), wrapped at words. */
static void s_wrap(FILE *fp, const char *text, int at, int col)
{
    if (at > 0 && at >= col) {
        fputc('\n', fp);
        at = 0;
    }
    fprintf(fp, "%*s", col - at, "");
    at = col;
    while (*text) {
        size_t w = strcspn(text, " ");
        if (at > col && at + 1 + (int)w > S_WIDTH) {
            fprintf(fp, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', fp);
            at++;
        }
        fwrite(text, 1, w, fp);
        at += (int)w;
        text += w;
        while (*text == ' ')
            text++;
    }
    fputc('\n', fp);
}

void wh_cli_synopsis(const wh_cli_cmd_t *cmd, FILE *fp, const char *indent)
{
    char full[64];
    fprintf(fp, "%s%s", indent, wh_cli_fullname(cmd, full, sizeof full));
    if (cmd->synopsis && *cmd->synopsis)
        fprintf(fp, " %s", cmd->synopsis);
    fputc('\n', fp);
}

/* "  -j, --jobs=N|auto" */
static int s_opt_head(FILE *fp, const wh_cli_opt_t *o)
{
    int n = 0;
    if (o->shortopt)
        n += fprintf(fp, "  -%c, ", o->shortopt);
    else
        n += fprintf(fp, "      ");
    n += fprintf(fp, "--%s", o->name);
    if (o->arg)
        n += fprintf(fp, "=%s", o->arg);
    return n;
}

void wh_cli_help(const wh_cli_cmd_t *cmd, FILE *fp)
{
    fputs("usage: ", fp);
    wh_cli_synopsis(cmd, fp, "");
    fputc('\n', fp);
    s_wrap(fp, cmd->summary, 0, 0);
    int any = 0;
    for (const wh_cli_cmd_t *c = wh_cli_cmds; c->prog && !cmd->name; c++) {
        if (!c->name || strcmp(c->prog, cmd->prog))
            continue;
        if (!any++)
            fputs("\ncommands:\n", fp);
        wh_cli_synopsis(c, fp, "  ");
    }
    any = 0;
    for (const wh_cli_opt_t *o = wh_cli_opts; o->name; o++) {
        if (!(o->cmds & cmd->bit))
            continue;
        if (!any++)
            fputs("\noptions:\n", fp);
        s_wrap(fp, o->help, s_opt_head(fp, o) + 2, S_COL);
    }
}
