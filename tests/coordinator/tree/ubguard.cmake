# The UB guard: coordinator/tree/ubguard.c, and its e2e on tests/fixtures/ub_expect
# and tests/fixtures/ub_constarg (its own rule, ubarg.c).
wh_add_test(test_ubguard SOURCES test_ubguard.c LIBS wh_ubguard wh_precheck)
wh_add_e2e(ub_guard ub_constarg)
# Verdict names do not depend on timing: a speculation the guard holds is
# never built (tests/fixtures/ub_race, issue 36).
wh_add_e2e(ub_race)
