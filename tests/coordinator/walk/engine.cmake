# The round engine and rendering: hand-built trees and oracle functions, no
# libclang, sockets or builds.
wh_add_test(test_engine SOURCES test_engine.c ref_hdd.c LIBS wh_engine)
wh_add_test(test_render SOURCES test_render.c LIBS wh_engine)
wh_add_test(test_trail SOURCES test_trail.c LIBS wh_engine)
# The walk through chains on real slots: the next chain waits for due verdicts.
wh_add_e2e(chain_wait)
# The precheck checks a window of a chain's steps, not all of them.
wh_add_e2e(precheck_window)
# The body's data flow (libclang) and the walk's prior on it.
wh_add_test(test_prior SOURCES test_prior.c LIBS wh_engine wh_tree)
# The walk's prior end to end: same answer, fewer surprises, early claims.
wh_add_e2e(prior)
