/*
 * report — report.html: one self-contained page made from a run folder
 * (record.h) for a person to read. It shows the diff of the test file
 * (reduced.diff), the statement tree with the sweep that removed each unit
 * (tree.json), a timeline of the candidates per slot as inline SVG (build,
 * run, verdict, cached, predicted: candidates.csv), the six reduction
 * measures of the thesis, section 5.6, the fingerprint and the fault-kept
 * check (summary.json). A run that stopped part-way gets a page of what it
 * recorded, the end of its run.log and partial.diff (the accepted
 * configuration when it stopped) shown as partial; its test is named from
 * tree.json, else job.json.
 *
 * The page loads nothing: no scripts, fonts, images or links outside it.
 * Everything that comes from the user's files (test names, source lines,
 * messages, slot names) is HTML-escaped. Reads the folder and writes nothing
 * but report.html; any thread. `whittle report RUN_DIR` (report_cmd.c) makes
 * it again.
 */
#ifndef WH_REPORT_H
#define WH_REPORT_H

#include "wh_common.h"

/* The page for run folder dir, malloc'ed; NULL with *err set when the
 * folder cannot be read. */
char *wh_report_html(const char *dir, char **err);

/* Appends s HTML-escaped (& < > " ') to b. */
void wh_report_esc(wh_buf_t *b, const char *s);

/* Writes dir/report.html (atomically). 0, or a negative WH_E* code with
 * *err set. */
int wh_report_write(const char *dir, char **err);

/* `whittle report RUN_DIR` (options from common/cli_table.c): writes the
 * page again; the exit status (0, 1: the folder is no run folder, 2: usage). */
int wh_report_cmd(int argc, char **argv);

#endif
