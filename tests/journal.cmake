# The coordinator's job journal (issue 10): jobs survive a coordinator crash.
wh_add_test(test_journal SOURCES test_journal.c LIBS wh_journal)
