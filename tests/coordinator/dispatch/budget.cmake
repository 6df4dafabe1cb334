# Busy and loss budgets of the pool (issue 10): the backoff module alone,
# and a node that always answers busy beside an honest one.
wh_add_test(test_budget SOURCES test_budget.c LIBS wh_coord)
wh_add_e2e(busy_node)
wh_add_test(test_spend SOURCES test_spend.c LIBS wh_coord)
