# JUnit cases of a report: names, classnames, failures, system-out.
wh_add_test(test_junit_cases SOURCES test_junit_cases.c LIBS wh_oracle)
