/*
 * scratch — a private TMPDIR and HOME for the commands of one workspace.
 * Test harnesses name their temp files by the clock or by a fixed name
 * (libarchive's names its folder by the second, in /tmp): two slots that
 * build or test at once collided, and the same candidate was Preserved on
 * one run and DifferentFailure on another. So every command of a workspace
 * sees TMPDIR (and TMP, TEMP) and HOME in "<root>.scratch/", beside the
 * workspace like its report and console log (runas.h's bwrap sandbox shows
 * those and masks other slots'), owned by the user the commands run as,
 * mode 0700, and emptied before each candidate run so nothing one run
 * leaves behind reaches the next.
 *
 * Threads: any; a scratch belongs to one workspace, which one slot uses at
 * a time.
 */
#ifndef WH_SCRATCH_H
#define WH_SCRATCH_H

#include "runas.h"

typedef struct {
    char *dir;             /* "<root>.scratch" */
    char *vars[4];         /* TMPDIR=, TMP=, TEMP=, HOME= */
    const char *env[5];    /* vars, NULL-terminated: wh_run_opts_t's scratch_env */
} wh_scratch_t;

/* Makes "<root>.scratch/tmp" and "<root>.scratch/home" empty (whatever was
 * in them is removed; the folders themselves stay, so a sandbox of another
 * slot that masks them never races their removal) and hands them to
 * runas's user (NULL: the caller's), and fills s. 0, or a negative code
 * (s is cleared then). */
int wh_scratch_prepare(wh_scratch_t *s, const char *root, const wh_runas_t *runas);

/* Frees s's strings; the folders stay until the next prepare or
 * wh_scratch_remove. */
void wh_scratch_clear(wh_scratch_t *s);

/* Removes root's scratch folder, if any. */
void wh_scratch_remove(const char *root);

#endif
