/*
 * report_cmd — `whittle report RUN_DIR`: report.html made again from a run
 * folder (report.h). Its options are rows of common/cli_table.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "report.h"
#include "wh_common.h"

int wh_report_cmd(int argc, char **argv)
{
    wh_cli_t c;
    int rc;
    wh_cli_begin(&c, "whittle", "report", argc, argv);
    while ((rc = wh_cli_next(&c)) > 0)
        ;
    if (rc < 0)
        return c.exit;
    if (c.npos != 1) {
        fputs("usage: whittle report RUN_DIR\n", stderr);
        return 2;
    }
    char *err = NULL;
    if (wh_report_write(c.pos[0], &err)) {
        fprintf(stderr, "whittle: error: %s\n", err ? err : "out of memory");
        free(err);
        return 1;
    }
    char *p = wh_path_join(c.pos[0], "report.html");
    printf("Report: %s\n", p ? p : "report.html");
    free(p);
    return 0;
}
