# `whittle inspect` (coordinator/cli/whittle_main.c): the project root it
# guesses header folders under, and the errors it names (issue 19).
wh_add_e2e(inspect_root inspect_utest)
