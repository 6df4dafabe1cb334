/*
 * suite_cmd — the `whittle suite` command: reads a kill matrix, runs the
 * chosen test-suite reduction methods and prints (and optionally writes as
 * JSON) size, mutants covered and time of each. Kept out of whittle_main.c
 * so the main option parser only dispatches to it.
 */
#ifndef WH_SUITE_CMD_H
#define WH_SUITE_CMD_H

/* argv holds the options after "suite". Returns the process exit status:
 * 0 on success, 2 on a usage error, 1 on a failure (message on stderr). */
int wh_suite_cmd(int argc, char **argv);

#endif
