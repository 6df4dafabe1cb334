# Progress, argv-only external commands, job identity, unreachable
# coordinators (issue 12).
wh_add_e2e(space_path unreachable identity progress eta)

# The status line's format and ETA, and the engine's rounds-left count.
wh_add_test(test_progress SOURCES test_progress.c LIBS wh_coord)

