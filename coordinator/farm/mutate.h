/*
 * mutate — the `whittle mutate` command: seeds mutants (mutagen) into the
 * library sources of a project, builds each in a workspace copy (the
 * project itself is never written), runs every test function of the test
 * file --repeat times, judges each run with the framework preset's reader
 * (wh_evaluate) and writes mutants.json and the kill matrix kills.csv
 * (definite = failed on every run, potential = on some; seed 001).
 */
#ifndef WH_MUTATE_H
#define WH_MUTATE_H

/* argv holds the options after "mutate". Returns the exit status: 0, 2 for
 * bad input, 3 when a test fails on the unmutated project, 1 otherwise. */
int wh_mutate_cmd(int argc, char **argv);

#endif
